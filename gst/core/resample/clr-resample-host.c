/* clresample: the polyphase sums of a CPU device's streams on the host.
 * See clr-resample-host.h.
 *
 * Built with -ffp-contract=off: the only fused multiply-adds are the
 * fma () calls, where the kernels have theirs (their own explicit fma ()
 * and, in the interpolated rows, the one the OpenCL compiler forms of
 * each `a * b + c`, clang's FP_CONTRACT on), so that the products and
 * roundings are the kernels'. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "design/clr-fft-host.h"
#include "clr-resample-host.h"

/* The host's transforms' clones (design/clr-fft-host.h), and one for
 * AVX-512, whose registers hold the kernels' eight lanes */
#ifdef CLR_HAVE_VECTOR_CLONES
#define RESAMPLE_CLONES \
  __attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", \
              "default")))
#else
#define RESAMPLE_CLONES
#endif

/* Vectors of four and eight doubles (the kernels' a8: one register with
 * AVX-512, two with AVX2), read from anywhere (the window's taps start
 * at any frame), a double in every lane, and their lane-wise fused
 * multiply-add: vfmadd231pd where the CPU has FMA, elsewhere the C
 * library's exact fma () a lane */
typedef double v4 __attribute__ ((vector_size (32)));
typedef double v8 __attribute__ ((vector_size (64)));

#define VECTOR_OPS(V, N)                                                \
static inline V                                                         \
load##N (const double *p)                                               \
{                                                                       \
  V v;                                                                  \
                                                                        \
  memcpy (&v, p, sizeof v);                                             \
  return v;                                                             \
}                                                                       \
                                                                        \
static inline V                                                         \
splat##N (double x)                                                     \
{                                                                       \
  V v;                                                                  \
  int l;                                                                \
                                                                        \
  for (l = 0; l < N; l++)                                               \
    v[l] = x;                                                           \
  return v;                                                             \
}                                                                       \
                                                                        \
static inline V                                                         \
fma##N (V a, V b, V c)                                                  \
{                                                                       \
  V r;                                                                  \
  int l;                                                                \
                                                                        \
  for (l = 0; l < N; l++)                                               \
    r[l] = fma (a[l], b[l], c[l]);                                      \
  return r;                                                             \
}

VECTOR_OPS (v4, 4)
VECTOR_OPS (v8, 8)

static inline v4
fold (v8 a)
{
  v4 lo = { a[0], a[1], a[2], a[3] }, hi = { a[4], a[5], a[6], a[7] };

  return lo + hi;
}

/* The interpolating kernels' coefficients of taps k..k+N-1 (CLR_GRID_ROWS,
 * CLR_ROWS): w0 h0 + w1 h1 + w2 h2 + w3 h3 as the OpenCL compiler fuses
 * it, each addition taking the product on its left into an fma */
typedef struct {
  const double *h0, *h1, *h2, *h3;
  double w0, w1, w2, w3;
} Rows;

#define ROW_COEF(N, r, k)                                               \
  fma##N (splat##N ((r)->w3), load##N ((r)->h3 + (k)),                  \
      fma##N (splat##N ((r)->w2), load##N ((r)->h2 + (k)),              \
          fma##N (splat##N ((r)->w0), load##N ((r)->h0 + (k)),          \
              splat##N ((r)->w1) * load##N ((r)->h1 + (k)))))

/* f: the position's fraction below p, 2^-16 of a unit (position ()) */
static inline Rows
grid_rows (const ClrResampleHostJob * j, uint64_t p, uint32_t f)
{
  const uint64_t pg = p * j->grid, q0 = pg / j->I;
  const double u = ((double) (pg - q0 * j->I) + (double) (j->grid * f) /
      65536.0) / (double) j->I;
  const double um1 = u - 1, um2 = u - 2, up1 = u + 1;
  const double w0 = -u * um1 * um2 / 6, w1 = up1 * um1 * um2 / 2;
  const double w2 = -up1 * u * um2 / 2, w3 = up1 * u * um1 / 6;
  const double *h0 = j->coef + q0 * j->taps;
  Rows r = {
    h0, p ? h0 + j->taps : j->coef + (j->grid + 3) * j->taps,
    h0 + 2 * j->taps, h0 + 3 * j->taps, w0, w1, w2, w3
  };

  return r;
}

/* The kernels' store_int (): v rounded to nearest even through the FPU
 * (a double of 1.5 * 2^52 plus it holds the integer in its low bits),
 * saturated, NaN to 0 */
static inline int32_t
store_int (double v, double lo, double hi)
{
  const double c = isnan (v) ? 0.0 : v < lo ? lo : v > hi ? hi : v;
  const double big = 0x1.8p52, s = c + big;
  int64_t a, b;

  memcpy (&a, &s, sizeof a);
  memcpy (&b, &big, sizeof b);
  return (int32_t) (a - b);
}

/* y (at full scale 1) as sample i of the output */
static inline void
store (const ClrResampleHostJob * j, size_t at, double y)
{
  switch (j->format) {
    case CLR_FORMAT_F64:
      ((double *) j->out)[at] = y;
      break;
    case CLR_FORMAT_S16:
      ((int16_t *) j->out)[at] = (int16_t) store_int (y * 32768.0, -32768.0,
          32767.0);
      break;
    case CLR_FORMAT_S32:
      ((int32_t *) j->out)[at] = store_int (y * 2147483648.0, -2147483648.0,
          2147483647.0);
      break;
    case CLR_FORMAT_S24_32:
      ((int32_t *) j->out)[at] = store_int (y * 8388608.0, -8388608.0,
          8388607.0);
      break;
    default:
      ((float *) j->out)[at] = (float) y;
      break;
  }
}

/* The window holds integers unscaled (clr-window.c): the kernels scale
 * the sum */
static double
scale_in (ClrFormat f)
{
  switch (f) {
    case CLR_FORMAT_S16:
      return 1.0 / 32768.0;
    case CLR_FORMAT_S32:
      return 1.0 / 2147483648.0;
    case CLR_FORMAT_S24_32:
      return 1.0 / 8388608.0;
    default:
      return 1.0;
  }
}

/* The kernels' eight-wide sum a8 (its lanes a chain of fmas each),
 * folded to four (a8.lo + a8.hi), the tail of four, and the four lanes
 * added pairwise (sum4_scaled ()) */
static inline double
lanes (v4 a)
{
  return (a[0] + a[1]) + (a[2] + a[3]);
}

/* One row of coefficients (H8 (k), H4 (k): taps k..k+7, k..k+3) over two
 * channels' taps (CLR_DOT; _c2 shares each coefficient) */
#define DOT2(H8, H4, x0, x1, taps, y0, y1)                              \
  do {                                                                  \
    v8 a = { 0, }, b = { 0, };                                          \
    v4 a4, b4;                                                          \
    size_t k = 0;                                                       \
    for (; k + 8 <= (taps); k += 8) {                                   \
      const v8 hk = H8 (k);                                             \
      a = fma8 (hk, load8 ((x0) + k), a);                               \
      b = fma8 (hk, load8 ((x1) + k), b);                               \
    }                                                                   \
    a4 = fold (a);                                                      \
    b4 = fold (b);                                                      \
    if (k < (taps)) {                                                   \
      const v4 h4 = H4 (k);                                             \
      a4 = fma4 (h4, load4 ((x0) + k), a4);                             \
      b4 = fma4 (h4, load4 ((x1) + k), b4);                             \
    }                                                                   \
    *(y0) = lanes (a4);                                                 \
    *(y1) = lanes (b4);                                                 \
  } while (0)

/* ... and over one channel's */
#define DOT1(H8, H4, x0, taps, y0)                                      \
  do {                                                                  \
    v8 a = { 0, };                                                      \
    v4 a4;                                                              \
    size_t k = 0;                                                       \
    for (; k + 8 <= (taps); k += 8)                                     \
      a = fma8 (H8 (k), load8 ((x0) + k), a);                           \
    a4 = fold (a);                                                      \
    if (k < (taps))                                                     \
      a4 = fma4 (H4 (k), load4 ((x0) + k), a4);                         \
    *(y0) = lanes (a4);                                                 \
  } while (0)

/* The position of output i: resample.cl's row_pos (), mod 2^64; and in
 * *frac what it rounded down, 2^-16 of a unit, while the slew lasts
 * (0 after it and for a fixed ratio) */
static inline uint64_t
position (const ClrResampleHostJob * j, uint64_t i, uint32_t * frac)
{
  *frac = 0;
  if (!j->slew.step)
    return j->phase0 + i * j->D;
  return j->phase0 + clr_slew_offset (&j->slew, i, frac);
}

/* The frame and phase of output i, adv + p / I: a fixed ratio's by steps
 * of D (a 64-bit division an output cost as much as a fifth of a
 * stereo output's sums), a variable one's from row_pos () */
typedef struct {
  uint64_t adv, p, dq, dr;
  uint32_t f;
} Walk;

static inline Walk
walk_start (const ClrResampleHostJob * j, size_t i)
{
  uint32_t f;
  const uint64_t pos = position (j, i, &f);
  Walk w = { pos / j->I, pos % j->I, j->D / j->I, j->D % j->I, f };

  return w;
}

static inline void
walk_next (const ClrResampleHostJob * j, Walk * w, size_t i)
{
  if (j->slew.step) {
    *w = walk_start (j, i);
    return;
  }
  w->adv += w->dq;
  w->p += w->dr;
  if (w->p >= j->I) {
    w->p -= j->I;
    w->adv++;
  }
}

/* Every output of the job, its coefficients H (k) after SETUP for the
 * output's phase p */
#define RUN(j, SETUP, H8, H4)                                                \
  do {                                                                  \
    const double scale = scale_in ((j)->format);                       \
    const size_t taps = (j)->taps;                                      \
    Walk w = walk_start (j, i0);                                        \
    size_t i;                                                           \
    uint32_t c;                                                         \
    for (i = i0; i < i1; i++, walk_next (j, &w, i)) {                   \
      const uint64_t adv = w.adv, p = w.p;                              \
      const double *x = (j)->win + (j)->first_tap + adv;                \
      SETUP;                                                            \
      for (c = 0; c < (j)->channels; c += 2) {                          \
        const double *x0 = x + c * (j)->w_cstride;                      \
        const size_t at = i * (j)->o_fstride + c * (j)->o_cstride;      \
        double y0, y1;                                                  \
        if (c + 1 == (j)->channels) {                                   \
          DOT1 (H8, H4, x0, taps, &y0);                                      \
          store (j, at, y0 * scale);                                    \
          break;                                                        \
        }                                                               \
        DOT2 (H8, H4, x0, x0 + (j)->w_cstride, taps, &y0, &y1);              \
        store (j, at, y0 * scale);                                      \
        store (j, at + (j)->o_cstride, y1 * scale);                     \
      }                                                                 \
    }                                                                   \
  } while (0)

RESAMPLE_CLONES void
clr_resample_host_run (const ClrResampleHostJob * j, size_t i0, size_t i1)
{
  if (j->grid) {
#define GRID8(k) ROW_COEF (8, &r, (k))
#define GRID4(k) ROW_COEF (4, &r, (k))
    RUN (j, const Rows r = grid_rows (j, p, w.f), GRID8, GRID4);
#undef GRID8
#undef GRID4
  } else {
#define TABLE8(k) load8 (h + (k))
#define TABLE4(k) load4 (h + (k))
    RUN (j, const double *h = j->coef + p * taps, TABLE8, TABLE4);
#undef TABLE8
#undef TABLE4
  }
}
