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

/* as gst/core/design/clr-fft-host.h's CLR_VECTOR_CLONES: AVX2 where the
 * machine has it (4 doubles a vector; contraction is off in this file, so
 * no FMA changes a sum) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && __GNUC__ >= 12 && defined(__linux__) && !defined(__SANITIZE_THREAD__)
__attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#endif
void
clr_check_direct_block (const double *h, size_t taps, const double *x,
    size_t frames, size_t t0, size_t n, double *restrict y)
{
  size_t i, k, t;

  for (i = 0; i < n; i++)
    y[i] = 0.0;
  for (k = 0; k < taps; k++) {
    /* the outputs whose sums have this tap: 0 <= t - k < frames */
    const size_t lo = MAX (t0, k), hi = MIN (t0 + n, k + frames);
    const double hk = h[k];

    for (t = lo; t < hi; t++)
      y[t - t0] += hk * x[t - k];
  }
}

double
clr_check_direct_at (ClrCheckRun * r, const double *h, size_t taps,
    const double *x, size_t frames, size_t t)
{
  const gboolean same = r->h == h && r->x == x;
  const gboolean next = same && t == r->last + 1;

  r->last = t;
  if (same && t >= r->t0 && t < r->t0 + r->n)
    return r->y[t - r->t0];
  r->h = h;
  r->x = x;
  if (!next) {
    r->n = 0;
    return clr_check_direct (h, taps, x, frames, t);
  }
  clr_check_direct_block (h, taps, x, frames, t, CLR_CHECK_RUN_BLOCK, r->y);
  r->t0 = t;
  r->n = CLR_CHECK_RUN_BLOCK;
  return r->y[0];
}
