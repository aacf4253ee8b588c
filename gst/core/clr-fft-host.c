/* clresample: the spectrum of a real signal on the host, in double. See
 * clr-fft-host.h. */
#include <math.h>
#include <string.h>
#include "clr-fft-host.h"

/* In-place complex FFT of m points (a power of two), interleaved re/im. */
static void
fft_complex (double *z, size_t m)
{
  double *w;
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
  /* e^(-2 pi i t / m) for t < m / 2; each stage of length len steps
   * through it by m / len */
  w = g_new (double, MAX (m, 2));
  for (i = 0; i < m / 2; i++) {
    w[2 * i] = cos (2.0 * G_PI * (double) i / (double) m);
    w[2 * i + 1] = -sin (2.0 * G_PI * (double) i / (double) m);
  }
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
  g_free (w);
}

void
clr_fft_host_complex (double *z, size_t m, gboolean inverse)
{
  size_t i;

  g_return_if_fail (m >= 1 && (m & (m - 1)) == 0);
  /* the inverse as the conjugate of the forward transform of the
   * conjugate */
  for (i = 0; inverse && i < m; i++)
    z[2 * i + 1] = -z[2 * i + 1];
  fft_complex (z, m);
  for (i = 0; inverse && i < m; i++)
    z[2 * i + 1] = -z[2 * i + 1];
}

void
clr_fft_host_real (const double *x, size_t n_x, size_t n, double *out)
{
  size_t m = n / 2, k;
  double *z;

  g_return_if_fail (n >= 2 && (n & (n - 1)) == 0 && n_x <= n);

  /* the m-point complex transform of z[t] = x[2t] + i x[2t + 1], then its
   * even and odd halves apart: X[k] = E[k] + e^(-2 pi i k / n) O[k] */
  z = g_new0 (double, 2 * m);
  memcpy (z, x, n_x * sizeof (double));
  fft_complex (z, m);
  for (k = 0; k <= m; k++) {
    size_t a = k % m, b = (m - k) % m;
    double zr = z[2 * a], zi = z[2 * a + 1];
    double cr = z[2 * b], ci = -z[2 * b + 1];
    double er = 0.5 * (zr + cr), ei = 0.5 * (zi + ci);
    /* O = (Z - conj Z[m - k]) / 2i */
    double or_ = 0.5 * (zi - ci), oi = -0.5 * (zr - cr);
    double wr = cos (G_PI * (double) k / (double) m);
    double wi = -sin (G_PI * (double) k / (double) m);
    out[2 * k] = er + wr * or_ - wi * oi;
    out[2 * k + 1] = ei + wr * oi + wi * or_;
  }
  g_free (z);
}
