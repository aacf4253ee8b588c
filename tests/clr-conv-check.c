/* clresample tests: see clr-conv-check.h. */
#include <math.h>
#include "clr-conv-check.h"

double
clr_check_uniform (guint64 * state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double) (*state >> 11) / (double) (1ull << 52) - 1.0;
}

double **
clr_check_filters (unsigned n_filters, size_t taps)
{
  double **h = g_new (double *, n_filters);
  unsigned f;
  size_t k;

  for (f = 0; f < n_filters; f++) {
    guint64 state = 1000 + f;
    h[f] = g_new (double, taps);
    for (k = 0; k < taps; k++)
      h[f][k] = clr_check_uniform (&state) * exp (-6.9 * k / taps);
  }
  return h;
}

void
clr_check_free_planes (void *planes, unsigned n)
{
  void **p = planes;
  unsigned i;

  for (i = 0; i < n; i++)
    g_free (p[i]);
  g_free (p);
}

double
clr_check_direct (const double *h, size_t taps, const double *x,
    size_t frames, size_t t)
{
  size_t k, k0 = t >= frames ? t - frames + 1 : 0, k1 = MIN (taps, t + 1);
  double acc = 0.0;

  for (k = k0; k < k1; k++)
    acc += h[k] * x[t - k];
  return acc;
}
