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

/* The interpolating kernels' coefficient of tap k (CLR_GRID_ROWS,
 * CLR_ROWS): w0 h0 + w1 h1 + w2 h2 + w3 h3 as the OpenCL compiler fuses
 * it, each addition taking the product on its left into an fma */
typedef struct {
  const double *h0, *h1, *h2, *h3;
  double w0, w1, w2, w3;
} Rows;

static inline double
row_coef (const Rows * r, uint32_t k)
{
  return fma (r->w3, r->h3[k], fma (r->w2, r->h2[k], fma (r->w0, r->h0[k],
              r->w1 * r->h1[k])));
}

static inline void
grid_rows (const ClrResampleHostJob * j, uint64_t p, Rows * r)
{
  const uint64_t pg = p * j->grid, q0 = pg / j->I;
  const double u = (double) (pg - q0 * j->I) / (double) j->I;
  const double um1 = u - 1, um2 = u - 2, up1 = u + 1;

  r->w0 = -u * um1 * um2 / 6;
  r->w1 = up1 * um1 * um2 / 2;
  r->w2 = -up1 * u * um2 / 2;
  r->w3 = up1 * u * um1 / 6;
  r->h0 = j->coef + q0 * j->taps;
  r->h1 = p ? r->h0 + j->taps : j->coef + (j->grid + 3) * j->taps;
  r->h2 = r->h0 + 2 * j->taps;
  r->h3 = r->h0 + 3 * j->taps;
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

/* Two channels' sums (x1 may be x0) over one row of coefficients, as
 * CLR_DOT and _c2: eight lanes of fma, folded to four, a tail of four,
 * the lanes added pairwise */
static inline void
dot_table (const double *restrict h, const double *restrict x0,
    const double *restrict x1, uint32_t taps, double *y0, double *y1)
{
  double a[8] = { 0, }, b[8] = { 0, }, a4[4], b4[4];
  uint32_t k = 0, l;

  for (; k + 8 <= taps; k += 8)
    for (l = 0; l < 8; l++) {
      a[l] = fma (h[k + l], x0[k + l], a[l]);
      b[l] = fma (h[k + l], x1[k + l], b[l]);
    }
  for (l = 0; l < 4; l++) {
    a4[l] = a[l] + a[l + 4];
    b4[l] = b[l] + b[l + 4];
  }
  if (k < taps)
    for (l = 0; l < 4; l++) {
      a4[l] = fma (h[k + l], x0[k + l], a4[l]);
      b4[l] = fma (h[k + l], x1[k + l], b4[l]);
    }
  *y0 = (a4[0] + a4[1]) + (a4[2] + a4[3]);
  *y1 = (b4[0] + b4[1]) + (b4[2] + b4[3]);
}

/* The same with each coefficient interpolated from the grid rows */
static inline void
dot_rows (const Rows * r, const double *restrict x0,
    const double *restrict x1, uint32_t taps, double *y0, double *y1)
{
  double a[8] = { 0, }, b[8] = { 0, }, a4[4], b4[4], h[8];
  uint32_t k = 0, l;

  for (; k + 8 <= taps; k += 8) {
    for (l = 0; l < 8; l++)
      h[l] = row_coef (r, k + l);
    for (l = 0; l < 8; l++) {
      a[l] = fma (h[l], x0[k + l], a[l]);
      b[l] = fma (h[l], x1[k + l], b[l]);
    }
  }
  for (l = 0; l < 4; l++) {
    a4[l] = a[l] + a[l + 4];
    b4[l] = b[l] + b[l + 4];
  }
  if (k < taps) {
    for (l = 0; l < 4; l++)
      h[l] = row_coef (r, k + l);
    for (l = 0; l < 4; l++) {
      a4[l] = fma (h[l], x0[k + l], a4[l]);
      b4[l] = fma (h[l], x1[k + l], b4[l]);
    }
  }
  *y0 = (a4[0] + a4[1]) + (a4[2] + a4[3]);
  *y1 = (b4[0] + b4[1]) + (b4[2] + b4[3]);
}

/* The position of output i: resample.cl's row_pos (), mod 2^64 */
static inline uint64_t
position (const ClrResampleHostJob * j, uint64_t i)
{
  uint64_t m;

  if (!j->step)
    return j->phase0 + i * j->D;
  m = MIN (i, j->slew_len);
  return j->phase0 + i * j->step + j->inc * (m * (m - 1) / 2 + m * (i - m))
      + j->slew_rest * (i - m);
}

CLR_VECTOR_CLONES void
clr_resample_host_run (const ClrResampleHostJob * j)
{
  const double scale = scale_in (j->format);
  size_t i;
  uint32_t c;

  for (i = 0; i < j->n_out; i++) {
    const uint64_t pos = position (j, i), adv = pos / j->I;
    const uint64_t p = pos - adv * j->I;
    const double *x = j->win + j->first_tap + adv;
    Rows r;

    if (j->grid)
      grid_rows (j, p, &r);
    for (c = 0; c < j->channels; c += 2) {
      const uint32_t c1 = c + 1 < j->channels ? c + 1 : c;
      double y0, y1;

      if (j->grid)
        dot_rows (&r, x + c * j->w_cstride, x + c1 * j->w_cstride, j->taps,
            &y0, &y1);
      else
        dot_table (j->coef + p * j->taps, x + c * j->w_cstride,
            x + c1 * j->w_cstride, j->taps, &y0, &y1);
      store (j, i * j->o_fstride + c * j->o_cstride, y0 * scale);
      if (c1 != c)
        store (j, i * j->o_fstride + c1 * j->o_cstride, y1 * scale);
    }
  }
}
