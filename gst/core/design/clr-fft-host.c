/* clresample: the spectrum of a real signal on the host, in double. See
 * clr-fft-host.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "clr-fft-host.h"

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
 * p < len / 4, each part an array of its own */
typedef struct
{
  size_t len, stride;
  double *w1r, *w1i, *w2r, *w2i, *w3r, *w3i;
} Pass4;

struct _ClrFftHostReal
{
  size_t n, m;                  /* real points, complex points (n / 2) */
  unsigned n_passes;
  Pass4 *passes;
  gboolean radix2;              /* a last radix-2 pass */
  double *post_r, *post_i;      /* e^(-pi i k / m), k <= m */
  double *ar, *ai, *br, *bi;    /* the m-point transform's two buffers */
  double *spec;                 /* run ()'s split bins, 2 (m + 1) */
};

/* One Stockham radix-4 pass: len points a sequence, `stride` sequences
 * interleaved, from x to y (in the order OTFFT's fft0 gives). */
CLR_VECTOR_CLONES static void
pass4 (const Pass4 * ps, const double *restrict xr,
    const double *restrict xi, double *restrict yr, double *restrict yi)
{
  const size_t m4 = ps->len / 4, s = ps->stride;
  size_t p, q;

  for (p = 0; p < m4; p++) {
    const double w1r = ps->w1r[p], w1i = ps->w1i[p], w2r = ps->w2r[p],
        w2i = ps->w2i[p], w3r = ps->w3r[p], w3i = ps->w3i[p];
    const double *restrict ar = xr + s * p, *restrict ai = xi + s * p;
    const double *restrict br = ar + s * m4, *restrict bi = ai + s * m4;
    const double *restrict cr = br + s * m4, *restrict ci = bi + s * m4;
    const double *restrict dr = cr + s * m4, *restrict di = ci + s * m4;
    double *restrict y0r = yr + s * 4 * p, *restrict y0i = yi + s * 4 * p;
    double *restrict y1r = y0r + s, *restrict y1i = y0i + s;
    double *restrict y2r = y1r + s, *restrict y2i = y1i + s;
    double *restrict y3r = y2r + s, *restrict y3i = y2i + s;

    /* the eight inputs and eight outputs are apart (restrict), but GCC
     * gives up checking that many pointers at run time and left this
     * loop, the transforms' hottest, scalar */
#pragma GCC ivdep
    for (q = 0; q < s; q++) {
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
    const double *restrict xi, double *restrict yr, double *restrict yi)
{
  const size_t m4 = ps->len / 4;
  const double *restrict w1r = ps->w1r, *restrict w1i = ps->w1i;
  const double *restrict w2r = ps->w2r, *restrict w2i = ps->w2i;
  const double *restrict w3r = ps->w3r, *restrict w3i = ps->w3i;
  size_t p;

  for (p = 0; p < m4; p++) {
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
    double *restrict yr, double *restrict yi)
{
  size_t q;

  for (q = 0; q < s; q++) {
    yr[q] = xr[q] + xr[q + s];
    yi[q] = xi[q] + xi[q + s];
    yr[q + s] = xr[q] - xr[q + s];
    yi[q + s] = xi[q] - xi[q + s];
  }
}

/* The m-point forward transform of (ar, ai); returns where the result
 * is: the passes go back and forth between the plan's two buffers. */
static gboolean
fft_complex (ClrFftHostReal * plan, double **re, double **im)
{
  double *xr = plan->ar, *xi = plan->ai, *yr = plan->br, *yi = plan->bi, *t;
  unsigned i;

  for (i = 0; i < plan->n_passes; i++) {
    if (plan->passes[i].stride == 1)
      pass4_first (&plan->passes[i], xr, xi, yr, yi);
    else
      pass4 (&plan->passes[i], xr, xi, yr, yi);
    t = xr, xr = yr, yr = t;
    t = xi, xi = yi, yi = t;
  }
  if (plan->radix2) {
    pass2 (plan->m / 2, xr, xi, yr, yi);
    t = xr, xr = yr, yr = t;
    t = xi, xi = yi, yi = t;
  }
  *re = xr;
  *im = xi;
  return TRUE;
}

ClrFftHostReal *
clr_fft_host_real_new (size_t n)
{
  ClrFftHostReal *plan;
  size_t k, len, s;
  unsigned i;

  g_return_val_if_fail (n >= 2 && (n & (n - 1)) == 0, NULL);
  plan = g_new0 (ClrFftHostReal, 1);
  plan->n = n;
  plan->m = n / 2;
  for (len = plan->m; len >= 4; len /= 4)
    plan->n_passes++;
  plan->radix2 = len == 2;
  plan->passes = g_new0 (Pass4, MAX (plan->n_passes, 1));
  for (i = 0, len = plan->m, s = 1; i < plan->n_passes; i++, len /= 4,
      s *= 4) {
    Pass4 *ps = &plan->passes[i];
    double *w = must_alloc (6 * (len / 4));
    size_t p;

    ps->len = len;
    ps->stride = s;
    ps->w1r = w;
    ps->w1i = w + len / 4;
    ps->w2r = w + 2 * (len / 4);
    ps->w2i = w + 3 * (len / 4);
    ps->w3r = w + 4 * (len / 4);
    ps->w3i = w + 5 * (len / 4);
    for (p = 0; p < len / 4; p++) {
      const double a = -2.0 * G_PI / (double) len;

      ps->w1r[p] = cos (a * (double) p);
      ps->w1i[p] = sin (a * (double) p);
      ps->w2r[p] = cos (a * (double) (2 * p));
      ps->w2i[p] = sin (a * (double) (2 * p));
      ps->w3r[p] = cos (a * (double) (3 * p));
      ps->w3i[p] = sin (a * (double) (3 * p));
    }
  }
  plan->post_r = must_alloc (2 * (plan->m + 1));
  plan->post_i = plan->post_r + plan->m + 1;
  for (k = 0; k <= plan->m; k++) {
    plan->post_r[k] = cos (G_PI * (double) k / (double) plan->m);
    plan->post_i[k] = -sin (G_PI * (double) k / (double) plan->m);
  }
  plan->ar = must_alloc (4 * plan->m);
  plan->ai = plan->ar + plan->m;
  plan->br = plan->ai + plan->m;
  plan->bi = plan->br + plan->m;
  return plan;
}

/* X[k] = E[k] + e^(-pi i k / m) O[k], E and O the even and odd samples'
 * spectra: E = (Z[k] + conj Z[m - k]) / 2, O = (Z[k] - conj Z[m - k]) /
 * 2i. */
CLR_VECTOR_CLONES static void
split_even_odd (size_t m, const double *restrict zr, const double *restrict zi,
    const double *restrict wr, const double *restrict wi,
    double *restrict re, double *restrict im)
{
  size_t k;

  re[0] = zr[0] + zi[0];
  im[0] = 0.0;
  re[m] = zr[0] - zi[0];
  im[m] = 0.0;
  for (k = 1; k < m; k++) {
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
  if (x64) {
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
  split_even_odd (m, zr, zi, plan->post_r, plan->post_i, re, im);
}

/* The even and odd samples' m-point spectra from X[k] and X[k + m] =
 * conj X[m - k]: E = (X[k] + conj X[m - k]) / 2, O = (X[k] - conj
 * X[m - k]) e^(pi i k / m) / 2, into z = conj (E + i O), whose forward
 * transform is m conj (x[2t] + i x[2t + 1]). */
CLR_VECTOR_CLONES static void
join_even_odd (size_t m, const double *restrict re,
    const double *restrict im, const double *restrict wr,
    const double *restrict wi, double *restrict zr, double *restrict zi)
{
  size_t k;

  zr[0] = 0.5 * (re[0] + re[m]);
  zi[0] = -0.5 * (re[0] - re[m]);
  for (k = 1; k < m; k++) {
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

void
clr_fft_host_real_inverse_split (ClrFftHostReal * plan, const double *re,
    const double *im, double *x)
{
  const size_t m = plan->m;
  double *zr, *zi;
  size_t k;

  join_even_odd (m, re, im, plan->post_r, plan->post_i, plan->ar, plan->ai);
  fft_complex (plan, &zr, &zi);
  for (k = 0; k < m; k++) {
    x[2 * k] = zr[k];
    x[2 * k + 1] = -zi[k];
  }
}

void
clr_fft_host_real_run (ClrFftHostReal * plan, const double *x, size_t n_x,
    double *out)
{
  const size_t m = plan->m;
  double *re, *im;
  size_t k;

  if (!plan->spec)
    plan->spec = must_alloc (2 * (m + 1));
  re = plan->spec;
  im = re + m + 1;
  clr_fft_host_real_split (plan, x, TRUE, 1, n_x, re, im);
  for (k = 0; k <= m; k++) {
    out[2 * k] = re[k];
    out[2 * k + 1] = im[k];
  }
}

void
clr_fft_host_real_inverse_run (ClrFftHostReal * plan, const double *spec,
    double *x)
{
  const size_t m = plan->m;
  double *re, *im;
  size_t k, t;

  if (!plan->spec)
    plan->spec = must_alloc (2 * (m + 1));
  re = plan->spec;
  im = re + m + 1;
  for (k = 0; k <= m; k++) {
    re[k] = spec[2 * k];
    im[k] = spec[2 * k + 1];
  }
  clr_fft_host_real_inverse_split (plan, re, im, x);
  for (t = 0; t < plan->n; t++)
    x[t] /= (double) m;
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
  g_free (plan->spec);
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
