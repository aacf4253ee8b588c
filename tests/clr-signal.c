#include <math.h>
#include "clr-signal.h"

void
clr_signal_noise (float *out, size_t n, double amp, uint64_t seed)
{
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i;

  for (i = 0; i < n; i++) {
    /* xorshift64*: fast, and the same sequence on every machine */
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    out[i] = (float) (amp * (((s * 0x2545F4914F6CDD1Dull) >> 11) *
            (2.0 / 9007199254740992.0) - 1.0));
  }
}

void
clr_signal_sine (float *out, size_t frames, unsigned channels, unsigned f,
    unsigned rate, double amp, double phase)
{
  size_t i;
  unsigned c;

  for (i = 0; i < frames; i++) {
    uint64_t k = ((uint64_t) f * i) % rate;
    double v = amp * sin (2.0 * M_PI * (double) k / rate + phase);
    for (c = 0; c < channels; c++)
      out[i * channels + c] = (float) v;
  }
}

/* Solves the 3x3 normal equations by Gaussian elimination. */
static void
solve3 (double a[3][3], double b[3], double x[3])
{
  int i, j, k;

  for (i = 0; i < 3; i++) {
    int p = i;
    for (j = i + 1; j < 3; j++)
      if (fabs (a[j][i]) > fabs (a[p][i]))
        p = j;
    for (k = 0; k < 3; k++) {
      double t = a[i][k];
      a[i][k] = a[p][k];
      a[p][k] = t;
    }
    {
      double t = b[i];
      b[i] = b[p];
      b[p] = t;
    }
    for (j = i + 1; j < 3; j++) {
      double q = a[j][i] / a[i][i];
      for (k = i; k < 3; k++)
        a[j][k] -= q * a[i][k];
      b[j] -= q * b[i];
    }
  }
  for (i = 2; i >= 0; i--) {
    double s = b[i];
    for (k = i + 1; k < 3; k++)
      s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
}

void
clr_sine_fit (const float *x, size_t start, size_t n, unsigned channels,
    unsigned channel, double f, double rate, ClrSineFit * fit)
{
  double ata[3][3] = { {0} }, atb[3] = { 0 }, sol[3], w = 2.0 * M_PI * f /
      rate, sse = 0.0;
  size_t i;

  for (i = start; i < start + n; i++) {
    double basis[3] = { sin (w * i), cos (w * i), 1.0 };
    double y = x[i * channels + channel];
    int a, b;
    for (a = 0; a < 3; a++) {
      for (b = 0; b < 3; b++)
        ata[a][b] += basis[a] * basis[b];
      atb[a] += basis[a] * y;
    }
  }
  solve3 (ata, atb, sol);
  for (i = start; i < start + n; i++) {
    double e = x[i * channels + channel] - (sol[0] * sin (w * i) +
        sol[1] * cos (w * i) + sol[2]);
    sse += e * e;
  }
  fit->amplitude = hypot (sol[0], sol[1]);
  fit->phase = atan2 (sol[1], sol[0]);
  fit->dc = sol[2];
  fit->residual_rms = sqrt (sse / n);
}

double
clr_sine_fit_thdn_db (const ClrSineFit * fit)
{
  return 20.0 * log10 (fit->residual_rms / (fit->amplitude / M_SQRT2));
}
