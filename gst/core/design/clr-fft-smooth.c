/* clresample: the spectrum of a real signal on the host, in double, at
 * lengths with factors 2, 3, 5 and 7. See clr-fft-smooth.h. */
#include <math.h>
#include <string.h>
#include "clr-fft-smooth.h"

#define RADIX_MAX 7

static size_t
smallest_factor (size_t n)
{
  static const size_t primes[] = { 2, 3, 5, 7 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (primes); i++)
    if (n % primes[i] == 0)
      return primes[i];
  return n;
}

gboolean
clr_fft_smooth_ok (size_t n)
{
  size_t p;

  if (n == 0)
    return FALSE;
  while (n > 1) {
    p = smallest_factor (n);
    if (p > RADIX_MAX)
      return FALSE;
    n /= p;
  }
  return TRUE;
}

/* out[0, n) = the n-point transform of in[0], in[stride], ...; w holds
 * e^(-2 pi i j / N) for j < N, and N / n = step. Decimation in time: the
 * p sub-transforms of every p-th input go to out + q m (m = n / p), then
 * each k combines the p values at out[q m + k] into the outputs k + r m,
 * the same p places. */
static void
fft (const double *in, size_t stride, double *out, size_t n,
    const double *w, size_t step)
{
  size_t p, m, k, q, r;
  const size_t big_n = n * step;

  if (n == 1) {
    out[0] = in[0];
    out[1] = in[1];
    return;
  }
  p = smallest_factor (n);
  m = n / p;
  for (q = 0; q < p; q++)
    fft (in + 2 * q * stride, stride * p, out + 2 * q * m, m, w, step * p);
  for (k = 0; k < m; k++) {
    double y[2 * RADIX_MAX];
    for (q = 0; q < p; q++) {
      y[2 * q] = out[2 * (q * m + k)];
      y[2 * q + 1] = out[2 * (q * m + k) + 1];
    }
    for (r = 0; r < p; r++) {
      double re = 0, im = 0;
      for (q = 0; q < p; q++) {
        /* W_n^(q (k + r m)), as an index into the table of W_N */
        size_t e = (q * (k + r * m) % n) * step % big_n;
        double wr = w[2 * e], wi = w[2 * e + 1];
        re += y[2 * q] * wr - y[2 * q + 1] * wi;
        im += y[2 * q] * wi + y[2 * q + 1] * wr;
      }
      out[2 * (k + r * m)] = re;
      out[2 * (k + r * m) + 1] = im;
    }
  }
}

void
clr_fft_smooth_real (const double *x, size_t n_x, size_t n, double *out)
{
  double *z, *w, *spec;
  size_t j;

  g_return_if_fail (n >= 2 && n % 2 == 0 && clr_fft_smooth_ok (n)
      && n_x <= n);

  z = g_new0 (double, 2 * n);
  w = g_new (double, 2 * n);
  spec = g_new (double, 2 * n);
  for (j = 0; j < n_x; j++)
    z[2 * j] = x[j];
  for (j = 0; j < n; j++) {
    w[2 * j] = cos (2.0 * G_PI * (double) j / (double) n);
    w[2 * j + 1] = -sin (2.0 * G_PI * (double) j / (double) n);
  }
  fft (z, 1, spec, n, w, 1);
  memcpy (out, spec, (n + 2) * sizeof (double));
  g_free (z);
  g_free (w);
  g_free (spec);
}
