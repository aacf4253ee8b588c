/* clresample: the spectrum of a real signal on the host, in double. See
 * clr-fft-host.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "clr-fft-host.h"
#include "clr-workers.h"

/* Transparent huge pages' size on x86-64 and arm64's usual kernels */
#define CLR_HUGE_PAGE ((size_t) 2 << 20)

double *
clr_fft_host_alloc (size_t n)
{
  const size_t bytes = n * sizeof (double);

#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= CLR_HUGE_PAGE && n < G_MAXSIZE / sizeof (double)) {
    void *p = NULL;

    if (posix_memalign (&p, CLR_HUGE_PAGE, bytes) != 0)
      return NULL;
    /* a hint: where the kernel has none to give, ordinary pages */
    madvise (p, bytes, MADV_HUGEPAGE);
    return p;
  }
#endif
  return g_try_new (double, n);
}

/* the same, or the process ends, as g_new () */
static double *
must_alloc (size_t n)
{
  double *p = clr_fft_host_alloc (n);

  if (!p)
    g_error ("out of memory for a transform of %" G_GSIZE_FORMAT " points",
        n);
  return p;
}

/* A radix-4 pass's twiddles: e^(-2 pi i k p / len) for k = 1, 2, 3 and
 * p < len / 4. The first pass (stride 1, its loop over p the vector one)
 * has them in arrays of their own; the others read them from the plan's
 * half circle (post_r, post_i), one each a turn of p: a 2^21-point
 * design's transform kept 4 MB less, each page of it fresh memory the
 * kernel clears. */
typedef struct
{
  size_t len, stride;
  double *w1r, *w1i, *w2r, *w2i, *w3r, *w3i;
} Pass4;

/* e^(-pi i k / m) for k < 2 m from the half circle (re, im) of k <= m:
 * past m, the negative of k - m's */
static inline void
circle_at (const double *re, const double *im, size_t m, size_t k,
    double *wr, double *wi)
{
  *wr = k <= m ? re[k] : -re[k - m];
  *wi = k <= m ? im[k] : -im[k - m];
}

struct _ClrFftHostReal
{
  size_t n, m;                  /* real points, complex points (n / 2) */
  unsigned n_passes;
  Pass4 *passes;
  gboolean radix2;              /* a last radix-2 pass */
  double *post_r, *post_i;      /* e^(-pi i k / m), k <= m */
  /* the m-point transform's two buffers, m + 1 points each: run ()
   * splits the result into the one the passes left free */
  double *ar, *ai, *br, *bi;
};

/* One Stockham radix-4 pass: len points a sequence, `stride` sequences
 * interleaved, from x to y (in the order OTFFT's fft0 gives). */
CLR_VECTOR_CLONES static void
pass4 (const Pass4 * ps, const double *post_r, const double *post_i,
    size_t m, const double *restrict xr, const double *restrict xi,
    double *restrict yr, double *restrict yi, size_t p0, size_t p1,
    size_t q0, size_t q1)
{
  const size_t m4 = ps->len / 4, s = ps->stride;
  size_t p, q;

  for (p = p0; p < p1; p++) {
    /* e^(-pi i k / m) at k = 2 p s, 4 p s, 6 p s */
    double w1r, w1i, w2r, w2i, w3r, w3i;
    const double *restrict ar = xr + s * p, *restrict ai = xi + s * p;
    const double *restrict br = ar + s * m4, *restrict bi = ai + s * m4;
    const double *restrict cr = br + s * m4, *restrict ci = bi + s * m4;
    const double *restrict dr = cr + s * m4, *restrict di = ci + s * m4;
    double *restrict y0r = yr + s * 4 * p, *restrict y0i = yi + s * 4 * p;
    double *restrict y1r = y0r + s, *restrict y1i = y0i + s;
    double *restrict y2r = y1r + s, *restrict y2i = y1i + s;
    double *restrict y3r = y2r + s, *restrict y3i = y2i + s;

    circle_at (post_r, post_i, m, 2 * p * s, &w1r, &w1i);
    circle_at (post_r, post_i, m, 4 * p * s, &w2r, &w2i);
    circle_at (post_r, post_i, m, 6 * p * s, &w3r, &w3i);
    /* the eight inputs and eight outputs are apart (restrict), but GCC
     * gives up checking that many pointers at run time and left this
     * loop, the transforms' hottest, scalar */
#pragma GCC ivdep
    for (q = q0; q < q1; q++) {
      const double apcr = ar[q] + cr[q], apci = ai[q] + ci[q];
      const double amcr = ar[q] - cr[q], amci = ai[q] - ci[q];
      const double bpdr = br[q] + dr[q], bpdi = bi[q] + di[q];
      const double bmdr = br[q] - dr[q], bmdi = bi[q] - di[q];
      /* (a - c) -/+ i (b - d) */
      const double t1r = amcr + bmdi, t1i = amci - bmdr;
      const double t3r = amcr - bmdi, t3i = amci + bmdr;
      const double t2r = apcr - bpdr, t2i = apci - bpdi;

      y0r[q] = apcr + bpdr;
      y0i[q] = apci + bpdi;
      y1r[q] = w1r * t1r - w1i * t1i;
      y1i[q] = w1r * t1i + w1i * t1r;
      y2r[q] = w2r * t2r - w2i * t2i;
      y2i[q] = w2r * t2i + w2i * t2r;
      y3r[q] = w3r * t3r - w3i * t3i;
      y3i[q] = w3r * t3i + w3i * t3r;
    }
  }
}

/* pass4 () where stride is 1 (the first pass): there its inner loop has
 * one turn, which leaves it scalar; here the loop over p is the vector
 * one (its four outputs interleaved in y) */
CLR_VECTOR_CLONES static void
pass4_first (const Pass4 * ps, const double *restrict xr,
    const double *restrict xi, double *restrict yr, double *restrict yi,
    size_t p0, size_t p1)
{
  const size_t m4 = ps->len / 4;
  const double *restrict w1r = ps->w1r, *restrict w1i = ps->w1i;
  const double *restrict w2r = ps->w2r, *restrict w2i = ps->w2i;
  const double *restrict w3r = ps->w3r, *restrict w3i = ps->w3i;
  size_t p;

  for (p = p0; p < p1; p++) {
    const double apcr = xr[p] + xr[p + 2 * m4], apci = xi[p] + xi[p + 2 * m4];
    const double amcr = xr[p] - xr[p + 2 * m4], amci = xi[p] - xi[p + 2 * m4];
    const double bpdr = xr[p + m4] + xr[p + 3 * m4];
    const double bpdi = xi[p + m4] + xi[p + 3 * m4];
    const double bmdr = xr[p + m4] - xr[p + 3 * m4];
    const double bmdi = xi[p + m4] - xi[p + 3 * m4];
    const double t1r = amcr + bmdi, t1i = amci - bmdr;
    const double t3r = amcr - bmdi, t3i = amci + bmdr;
    const double t2r = apcr - bpdr, t2i = apci - bpdi;

    yr[4 * p] = apcr + bpdr;
    yi[4 * p] = apci + bpdi;
    yr[4 * p + 1] = w1r[p] * t1r - w1i[p] * t1i;
    yi[4 * p + 1] = w1r[p] * t1i + w1i[p] * t1r;
    yr[4 * p + 2] = w2r[p] * t2r - w2i[p] * t2i;
    yi[4 * p + 2] = w2r[p] * t2i + w2i[p] * t2r;
    yr[4 * p + 3] = w3r[p] * t3r - w3i[p] * t3i;
    yi[4 * p + 3] = w3r[p] * t3i + w3i[p] * t3r;
  }
}

/* The last pass where log2 m is odd: sequences of 2, m / 2 of them. */
CLR_VECTOR_CLONES static void
pass2 (size_t s, const double *restrict xr, const double *restrict xi,
    double *restrict yr, double *restrict yi, size_t q0, size_t q1)
{
  size_t q;

  for (q = q0; q < q1; q++) {
    yr[q] = xr[q] + xr[q + s];
    yi[q] = xi[q] + xi[q + s];
    yr[q + s] = xr[q] - xr[q + s];
    yi[q + s] = xi[q] - xi[q + s];
  }
}

/* One step of a transform, cut in parts (part_run ()) */
typedef enum
{
  STEP_PASS4,
  STEP_PASS2,
  STEP_SPLIT,
  STEP_JOIN,
  STEP_LOAD,
  STEP_PACK,
  STEP_UNPACK,
  STEP_SCALE
} StepKind;

typedef struct
{
  StepKind kind;
  guint parts;
  const Pass4 *ps;
  size_t m;
  const double *xr, *xi, *wr, *wi;
  double *yr, *yi;
  /* interleaved (re, im) pairs: read by LOAD (the real signal, n_x
   * samples `step` apart) and UNPACK, written by PACK and SCALE */
  double *pairs;
  size_t n_x, step;
  double scale;                 /* SCALE's factor */
} Step;

#define part_at clr_workers_part_start

CLR_VECTOR_CLONES static void split_even_odd (size_t m,
    const double *restrict zr, const double *restrict zi,
    const double *restrict wr, const double *restrict wi,
    double *restrict re, double *restrict im, size_t k0, size_t k1);
CLR_VECTOR_CLONES static void join_even_odd (size_t m,
    const double *restrict re, const double *restrict im,
    const double *restrict wr, const double *restrict wi,
    double *restrict zr, double *restrict zi, size_t k0, size_t k1);

/* part i's points of n: [*a, *b) */
static inline void
part_range (const Step * st, size_t n, guint i, size_t * a, size_t * b)
{
  *a = clr_workers_part_start (n, i, st->parts);
  *b = clr_workers_part_start (n, i + 1, st->parts);
}

static void
part_run (gpointer user, guint i)
{
  const Step *st = user;
  size_t a, b, k;

  switch (st->kind) {
    case STEP_PASS4:{
      const size_t m4 = st->ps->len / 4, s = st->ps->stride;

      if (s == 1) {
        part_range (st, m4, i, &a, &b);
        pass4_first (st->ps, st->xr, st->xi, st->yr, st->yi, a, b);
      } else if (m4 >= st->parts) {
        part_range (st, m4, i, &a, &b);
        pass4 (st->ps, st->wr, st->wi, st->m, st->xr, st->xi, st->yr,
            st->yi, a, b, 0, s);
      } else {
        /* the last passes: few sequences, long runs of them */
        part_range (st, s, i, &a, &b);
        pass4 (st->ps, st->wr, st->wi, st->m, st->xr, st->xi, st->yr,
            st->yi, 0, m4, a, b);
      }
      break;
    }
    case STEP_PASS2:
      part_range (st, st->m / 2, i, &a, &b);
      pass2 (st->m / 2, st->xr, st->xi, st->yr, st->yi, a, b);
      break;
    case STEP_SPLIT:
      part_range (st, st->m, i, &a, &b);
      split_even_odd (st->m, st->xr, st->xi, st->wr, st->wi, st->yr, st->yi,
          a, b);
      break;
    case STEP_JOIN:
      part_range (st, st->m, i, &a, &b);
      join_even_odd (st->m, st->xr, st->xi, st->wr, st->wi, st->yr, st->yi,
          a, b);
      break;
    case STEP_LOAD:
      /* z[t] = x[2t] + i x[2t + 1], zero past n_x */
      part_range (st, st->m, i, &a, &b);
      for (k = a; k < b; k++) {
        st->yr[k] = 2 * k < st->n_x ? st->pairs[2 * k * st->step] : 0.0;
        st->yi[k] = 2 * k + 1 < st->n_x ?
            st->pairs[(2 * k + 1) * st->step] : 0.0;
      }
      break;
    case STEP_PACK:
      /* bins (xr, xi), m + 1 each, interleaved into pairs */
      part_range (st, st->m + 1, i, &a, &b);
      for (k = a; k < b; k++) {
        st->pairs[2 * k] = st->xr[k];
        st->pairs[2 * k + 1] = st->xi[k];
      }
      break;
    case STEP_UNPACK:
      part_range (st, st->m + 1, i, &a, &b);
      for (k = a; k < b; k++) {
        st->yr[k] = st->pairs[2 * k];
        st->yi[k] = st->pairs[2 * k + 1];
      }
      break;
    case STEP_SCALE:
      /* the inverse's samples, conjugated and scaled (by 1 / m, a power
       * of two: exactly the division), into pairs */
      part_range (st, st->m, i, &a, &b);
      for (k = a; k < b; k++) {
        st->pairs[2 * k] = st->xr[k] * st->scale;
        st->pairs[2 * k + 1] = -st->xi[k] * st->scale;
      }
      break;
  }
}

/* step's parts, on this thread and the workers */
static void
step_run (Step * st, size_t m)
{
  st->parts = clr_workers_parts (m, CLR_FFT_HOST_PARALLEL);
  clr_workers_for (part_run, st, st->parts);
}

/* The m-point forward transform of (ar, ai); returns where the result
 * is: the passes go back and forth between the plan's two buffers. */
static gboolean
fft_complex (ClrFftHostReal * plan, double **re, double **im)
{
  double *xr = plan->ar, *xi = plan->ai, *yr = plan->br, *yi = plan->bi, *t;
  unsigned i;

  for (i = 0; i < plan->n_passes; i++) {
    Step st = {.kind = STEP_PASS4,.ps = &plan->passes[i],.m = plan->m,
      .wr = plan->post_r,.wi = plan->post_i,.xr = xr,.xi = xi,.yr = yr,
      .yi = yi
    };

    step_run (&st, plan->m);
    t = xr, xr = yr, yr = t;
    t = xi, xi = yi, yi = t;
  }
  if (plan->radix2) {
    Step st = {.kind = STEP_PASS2,.m = plan->m,.xr = xr,.xi = xi,.yr = yr,
      .yi = yi
    };

    step_run (&st, plan->m);
    t = xr, xr = yr, yr = t;
    t = xi, xi = yi, yi = t;
  }
  *re = xr;
  *im = xi;
  return TRUE;
}

/* e^(-pi i k / m) for k <= m into (re, im): sines and cosines for the
 * first eighth of the circle only, the rest by its symmetries (a design's
 * 2^20-point transform took 2^20 sincos () for its tables, a fifth of a
 * cold minimum-phase design) */
static void
half_circle (size_t m, double *re, double *im)
{
  size_t k;

  if (m < 4) {
    for (k = 0; k <= m; k++) {
      re[k] = cos (G_PI * (double) k / (double) m);
      im[k] = -sin (G_PI * (double) k / (double) m);
    }
    return;
  }
  for (k = 0; k <= m / 4; k++) {
    re[k] = cos (G_PI * (double) k / (double) m);
    im[k] = -sin (G_PI * (double) k / (double) m);
  }
  /* pi / 2 - x */
  for (; k <= m / 2; k++) {
    re[k] = -im[m / 2 - k];
    im[k] = -re[m / 2 - k];
  }
  /* pi - x */
  for (; k <= m; k++) {
    re[k] = -re[m - k];
    im[k] = im[m - k];
  }
}

ClrFftHostReal *
clr_fft_host_real_new (size_t n)
{
  ClrFftHostReal *plan;
  size_t len, s;
  unsigned i;

  g_return_val_if_fail (n >= 2 && (n & (n - 1)) == 0, NULL);
  plan = g_new0 (ClrFftHostReal, 1);
  plan->n = n;
  plan->m = n / 2;
  plan->post_r = must_alloc (2 * (plan->m + 1));
  plan->post_i = plan->post_r + plan->m + 1;
  half_circle (plan->m, plan->post_r, plan->post_i);
  for (len = plan->m; len >= 4; len /= 4)
    plan->n_passes++;
  plan->radix2 = len == 2;
  plan->passes = g_new0 (Pass4, MAX (plan->n_passes, 1));
  for (i = 0, len = plan->m, s = 1; i < plan->n_passes; i++, len /= 4,
      s *= 4) {
    Pass4 *ps = &plan->passes[i];
    double *wr[3], *wi[3];
    size_t p, j;

    ps->len = len;
    ps->stride = s;
    if (s != 1)
      continue;
    wr[0] = ps->w1r = must_alloc (6 * (len / 4));
    wi[0] = ps->w1i = ps->w1r + len / 4;
    wr[1] = ps->w2r = ps->w1r + 2 * (len / 4);
    wi[1] = ps->w2i = ps->w1r + 3 * (len / 4);
    wr[2] = ps->w3r = ps->w1r + 4 * (len / 4);
    wi[2] = ps->w3i = ps->w1r + 5 * (len / 4);
    /* e^(-2 pi i j p / len) = e^(-pi i k / m), k = 2 j p (len is m) */
    for (j = 0; j < 3; j++)
      for (p = 0; p < len / 4; p++)
        circle_at (plan->post_r, plan->post_i, plan->m, 2 * (j + 1) * p,
            &wr[j][p], &wi[j][p]);
  }
  plan->ar = must_alloc (4 * (plan->m + 1));
  plan->ai = plan->ar + plan->m + 1;
  plan->br = plan->ai + plan->m + 1;
  plan->bi = plan->br + plan->m + 1;
  return plan;
}

/* X[k] = E[k] + e^(-pi i k / m) O[k], E and O the even and odd samples'
 * spectra: E = (Z[k] + conj Z[m - k]) / 2, O = (Z[k] - conj Z[m - k]) /
 * 2i. */
CLR_VECTOR_CLONES static void
split_even_odd (size_t m, const double *restrict zr, const double *restrict zi,
    const double *restrict wr, const double *restrict wi,
    double *restrict re, double *restrict im, size_t k0, size_t k1)
{
  size_t k;

  if (k0 == 0) {
    re[0] = zr[0] + zi[0];
    im[0] = 0.0;
    re[m] = zr[0] - zi[0];
    im[m] = 0.0;
    k0 = 1;
  }
  for (k = k0; k < k1; k++) {
    const double er = 0.5 * (zr[k] + zr[m - k]);
    const double ei = 0.5 * (zi[k] - zi[m - k]);
    const double or_ = 0.5 * (zi[k] + zi[m - k]);
    const double oi = -0.5 * (zr[k] - zr[m - k]);

    re[k] = er + wr[k] * or_ - wi[k] * oi;
    im[k] = ei + wr[k] * oi + wi[k] * or_;
  }
}

void
clr_fft_host_real_split (ClrFftHostReal * plan, const void *x, gboolean x64,
    size_t step, size_t n_x, double *re, double *im)
{
  const size_t m = plan->m;
  double *zr, *zi;
  size_t t;

  g_return_if_fail (n_x <= plan->n);
  /* z[t] = x[2t] + i x[2t + 1] */
  if (x64 && m >= CLR_FFT_HOST_PARALLEL) {
    Step st = {.kind = STEP_LOAD,.m = m,.yr = plan->ar,.yi = plan->ai,
      .pairs = (double *) x,.n_x = n_x,.step = step
    };

    step_run (&st, m);
    /* zeros and all */
    t = 2 * m;
  } else if (x64) {
    const double *xd = x;

    for (t = 0; t + 1 < n_x; t += 2) {
      plan->ar[t / 2] = xd[t * step];
      plan->ai[t / 2] = xd[(t + 1) * step];
    }
    if (t < n_x)
      plan->ar[t / 2] = xd[t * step];
  } else {
    const float *xf = x;

    for (t = 0; t + 1 < n_x; t += 2) {
      plan->ar[t / 2] = xf[t * step];
      plan->ai[t / 2] = xf[(t + 1) * step];
    }
    if (t < n_x)
      plan->ar[t / 2] = xf[t * step];
  }
  if (t < n_x) {
    plan->ai[t / 2] = 0.0;
    t += 2;
  }
  if (t / 2 < m) {
    memset (plan->ar + t / 2, 0, (m - t / 2) * sizeof (double));
    memset (plan->ai + t / 2, 0, (m - t / 2) * sizeof (double));
  }
  fft_complex (plan, &zr, &zi);
  if (m == 1) {
    re[0] = zr[0] + zi[0];
    re[1] = zr[0] - zi[0];
    im[0] = im[1] = 0.0;
    return;
  }
  {
    Step st = {.kind = STEP_SPLIT,.m = m,.xr = zr,.xi = zi,
      .wr = plan->post_r,.wi = plan->post_i,.yr = re,.yi = im
    };

    step_run (&st, m);
  }
}

/* The even and odd samples' m-point spectra from X[k] and X[k + m] =
 * conj X[m - k]: E = (X[k] + conj X[m - k]) / 2, O = (X[k] - conj
 * X[m - k]) e^(pi i k / m) / 2, into z = conj (E + i O), whose forward
 * transform is m conj (x[2t] + i x[2t + 1]). */
CLR_VECTOR_CLONES static void
join_even_odd (size_t m, const double *restrict re,
    const double *restrict im, const double *restrict wr,
    const double *restrict wi, double *restrict zr, double *restrict zi,
    size_t k0, size_t k1)
{
  size_t k;

  if (k0 == 0) {
    zr[0] = 0.5 * (re[0] + re[m]);
    zi[0] = -0.5 * (re[0] - re[m]);
    k0 = 1;
  }
  for (k = k0; k < k1; k++) {
    const double er = 0.5 * (re[k] + re[m - k]);
    const double ei = 0.5 * (im[k] - im[m - k]);
    const double dr = 0.5 * (re[k] - re[m - k]);
    const double di = 0.5 * (im[k] + im[m - k]);
    /* e^(+pi i k / m) */
    const double or_ = dr * wr[k] + di * wi[k];
    const double oi = -dr * wi[k] + di * wr[k];

    zr[k] = er - oi;
    zi[k] = -(ei + or_);
  }
}

/* inverse_split ()'s samples times scale into x (1 / m: the inverse
 * itself) */
static void
inverse (ClrFftHostReal * plan, const double *re, const double *im,
    double *x, double scale)
{
  const size_t m = plan->m;
  Step join = {.kind = STEP_JOIN,.m = m,.xr = re,.xi = im,.wr = plan->post_r,
    .wi = plan->post_i,.yr = plan->ar,.yi = plan->ai
  };
  Step out = {.kind = STEP_SCALE,.m = m,.pairs = x,.scale = scale };
  double *zr, *zi;

  step_run (&join, m);
  fft_complex (plan, &zr, &zi);
  out.xr = zr;
  out.xi = zi;
  step_run (&out, m);
}

void
clr_fft_host_real_inverse_split (ClrFftHostReal * plan, const double *re,
    const double *im, double *x)
{
  inverse (plan, re, im, x, 1.0);
}

static void
free_buffers (ClrFftHostReal * plan, double **re, double **im)
{
  const gboolean in_b = (plan->n_passes + (plan->radix2 ? 1 : 0)) % 2;

  *re = in_b ? plan->ar : plan->br;
  *im = in_b ? plan->ai : plan->bi;
}

void
clr_fft_host_real_run (ClrFftHostReal * plan, const double *x, size_t n_x,
    double *out)
{
  const size_t m = plan->m;
  double *re, *im;

  /* the buffers the passes leave free (the transform ends in ar, ai
   * after an even number of them) */
  free_buffers (plan, &re, &im);
  clr_fft_host_real_split (plan, x, TRUE, 1, n_x, re, im);
  {
    Step st = {.kind = STEP_PACK,.m = m,.xr = re,.xi = im,.pairs = out };

    step_run (&st, m);
  }
}

void
clr_fft_host_real_inverse_run (ClrFftHostReal * plan, const double *spec,
    double *x)
{
  /* the bins in br, bi: join_even_odd () reads them into ar, ai before
   * the passes write there */
  Step unpack = {.kind = STEP_UNPACK,.m = plan->m,.yr = plan->br,
    .yi = plan->bi,.pairs = (double *) spec
  };

  step_run (&unpack, plan->m);
  inverse (plan, plan->br, plan->bi, x, 1.0 / (double) plan->m);
}

void
clr_fft_host_real_free (ClrFftHostReal * plan)
{
  unsigned i;

  if (!plan)
    return;
  for (i = 0; i < plan->n_passes; i++)
    g_free (plan->passes[i].w1r);
  g_free (plan->passes);
  g_free (plan->post_r);
  g_free (plan->ar);
  g_free (plan);
}

void
clr_fft_host_real (const double *x, size_t n_x, size_t n, double *out)
{
  ClrFftHostReal *plan;

  g_return_if_fail (n >= 2 && (n & (n - 1)) == 0 && n_x <= n);
  plan = clr_fft_host_real_new (n);
  clr_fft_host_real_run (plan, x, n_x, out);
  clr_fft_host_real_free (plan);
}

const char *
clr_fft_host_variant (void)
{
  /* the clones' own condition (clr-fft-host.h) and their resolver's */
#ifdef CLR_HAVE_VECTOR_CLONES
  return __builtin_cpu_supports ("x86-64-v4") ? "x86-v4" :
      __builtin_cpu_supports ("x86-64-v3") ? "x86-v3" : "x86";
#else
  return "any";
#endif
}
