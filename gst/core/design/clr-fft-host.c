/* clresample: the spectrum of a real signal on the host, in double. See
 * clr-fft-host.h. */
#include <math.h>
#include <string.h>
#include "clr-fft-host.h"

struct _ClrFftHostReal
{
  size_t n, m;                  /* real points, complex points (n / 2) */
  double *w;                    /* e^(-2 pi i t / m), t < m / 2 */
  double *split;                /* e^(-pi i k / m), k <= m */
  double *z;                    /* the m-point transform's scratch */
};

/* e^(-2 pi i t / m) for t < m / 2, interleaved re/im */
static double *
stage_twiddles (size_t m)
{
  double *w = g_new (double, MAX (m, 2));
  size_t i;

  for (i = 0; i < m / 2; i++) {
    w[2 * i] = cos (2.0 * G_PI * (double) i / (double) m);
    w[2 * i + 1] = -sin (2.0 * G_PI * (double) i / (double) m);
  }
  return w;
}

/* In-place complex FFT of m points (a power of two), interleaved re/im,
 * with w from stage_twiddles (m). */
static void
fft_complex (double *z, size_t m, const double *w)
{
  size_t i, j, len;

  /* bit-reversed order first, then the butterflies in natural order */
  for (i = 1, j = 0; i < m; i++) {
    size_t bit = m >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j |= bit;
    if (i < j) {
      double re = z[2 * i], im = z[2 * i + 1];
      z[2 * i] = z[2 * j];
      z[2 * i + 1] = z[2 * j + 1];
      z[2 * j] = re;
      z[2 * j + 1] = im;
    }
  }
  /* each stage of length len steps through w by m / len */
  for (len = 2; len <= m; len <<= 1) {
    size_t half = len / 2, step = m / len, k;
    for (i = 0; i < m; i += len) {
      for (k = 0; k < half; k++) {
        double wr = w[2 * k * step], wi = w[2 * k * step + 1];
        double *a = z + 2 * (i + k), *b = z + 2 * (i + k + half);
        double br = b[0] * wr - b[1] * wi, bi = b[0] * wi + b[1] * wr;
        b[0] = a[0] - br;
        b[1] = a[1] - bi;
        a[0] += br;
        a[1] += bi;
      }
    }
  }
}

ClrFftHostReal *
clr_fft_host_real_new (size_t n)
{
  ClrFftHostReal *plan;
  size_t k;

  g_return_val_if_fail (n >= 2 && (n & (n - 1)) == 0, NULL);
  plan = g_new0 (ClrFftHostReal, 1);
  plan->n = n;
  plan->m = n / 2;
  plan->w = stage_twiddles (plan->m);
  plan->split = g_new (double, 2 * (plan->m + 1));
  for (k = 0; k <= plan->m; k++) {
    plan->split[2 * k] = cos (G_PI * (double) k / (double) plan->m);
    plan->split[2 * k + 1] = -sin (G_PI * (double) k / (double) plan->m);
  }
  plan->z = g_new (double, 2 * plan->m);
  return plan;
}

void
clr_fft_host_real_run (ClrFftHostReal * plan, const double *x, size_t n_x,
    double *out)
{
  const size_t m = plan->m;
  double *z = plan->z;
  size_t k;

  g_return_if_fail (n_x <= plan->n);

  /* the m-point complex transform of z[t] = x[2t] + i x[2t + 1], then its
   * even and odd halves apart: X[k] = E[k] + e^(-2 pi i k / n) O[k] */
  memcpy (z, x, n_x * sizeof (double));
  memset (z + n_x, 0, (2 * m - n_x) * sizeof (double));
  fft_complex (z, m, plan->w);
  for (k = 0; k <= m; k++) {
    size_t a = k % m, b = (m - k) % m;
    double zr = z[2 * a], zi = z[2 * a + 1];
    double cr = z[2 * b], ci = -z[2 * b + 1];
    double er = 0.5 * (zr + cr), ei = 0.5 * (zi + ci);
    /* O = (Z - conj Z[m - k]) / 2i */
    double or_ = 0.5 * (zi - ci), oi = -0.5 * (zr - cr);
    double wr = plan->split[2 * k], wi = plan->split[2 * k + 1];
    out[2 * k] = er + wr * or_ - wi * oi;
    out[2 * k + 1] = ei + wr * oi + wi * or_;
  }
}

void
clr_fft_host_real_inverse_run (ClrFftHostReal * plan, const double *spec,
    double *x)
{
  const size_t m = plan->m;
  double *z = plan->z;
  size_t k;

  /* the even and odd samples' m-point spectra from X[k] and X[k + m] =
   * conj X[m - k]: E = (X[k] + conj X[m - k]) / 2, O = (X[k] - conj
   * X[m - k]) e^(pi i k / m) / 2; then z = E + i O, whose m-point inverse
   * is x[2t] + i x[2t + 1]. Taken conjugated, so that the forward
   * transform serves. */
  for (k = 0; k < m; k++) {
    /* bins 0 and m are real */
    double xr = spec[2 * k], xi = k ? spec[2 * k + 1] : 0.0;
    double cr = spec[2 * (m - k)], ci = k ? -spec[2 * (m - k) + 1] : 0.0;
    double er = 0.5 * (xr + cr), ei = 0.5 * (xi + ci);
    double dr = 0.5 * (xr - cr), di = 0.5 * (xi - ci);
    double wr = plan->split[2 * k], wi = -plan->split[2 * k + 1];
    double or_ = dr * wr - di * wi, oi = dr * wi + di * wr;

    z[2 * k] = er - oi;
    z[2 * k + 1] = -(ei + or_);
  }
  fft_complex (z, m, plan->w);
  for (k = 0; k < m; k++) {
    x[2 * k] = z[2 * k] / (double) m;
    x[2 * k + 1] = -z[2 * k + 1] / (double) m;
  }
}

void
clr_fft_host_real_free (ClrFftHostReal * plan)
{
  if (!plan)
    return;
  g_free (plan->w);
  g_free (plan->split);
  g_free (plan->z);
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
