/* clresample: short filters in direct form. See clr-conv-direct.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <string.h>
#include "clr-conv-direct.h"

/* Outputs summed together: their sums stay in registers across the taps,
 * and the compiler vectorises across them without reordering any one
 * sum. */
#define CLR_DIRECT_RUN 32

struct _ClrConvDirect
{
  size_t n_taps;
  uint32_t n_filters;
  double *taps;                 /* filter f's tap k at f n_taps + k */
  double *window;               /* the loaded window, in double */
  size_t window_cap;
  size_t n;                     /* outputs of the loaded window */
};

ClrConvDirect *
clr_conv_direct_new (const double *const *taps, size_t n_taps,
    uint32_t n_filters)
{
  ClrConvDirect *d = g_try_new0 (ClrConvDirect, 1);
  uint32_t f;

  if (!d || !(d->taps = g_try_malloc (n_filters * n_taps *
              sizeof (double)))) {
    g_free (d);
    return NULL;
  }
  d->n_taps = n_taps;
  d->n_filters = n_filters;
  for (f = 0; f < n_filters; f++)
    memcpy (d->taps + f * n_taps, taps[f], n_taps * sizeof (double));
  return d;
}

void
clr_conv_direct_free (ClrConvDirect * d)
{
  if (!d)
    return;
  g_free (d->taps);
  g_free (d->window);
  g_free (d);
}

gboolean
clr_conv_direct_load (ClrConvDirect * d, gboolean f64, const void *x,
    size_t step, size_t n)
{
  const size_t len = d->n_taps - 1 + n;
  size_t i;

  /* a whole run past the window's end, read by the last run's unused
   * sums */
  if (len + CLR_DIRECT_RUN > d->window_cap) {
    double *w = g_try_realloc (d->window, (len + CLR_DIRECT_RUN) *
        sizeof (double));

    if (!w)
      return FALSE;
    d->window = w;
    d->window_cap = len + CLR_DIRECT_RUN;
  }
  memset (d->window + len, 0, CLR_DIRECT_RUN * sizeof (double));
  if (f64)
    for (i = 0; i < len; i++)
      d->window[i] = ((const double *) x)[i * step];
  else
    for (i = 0; i < len; i++)
      d->window[i] = ((const float *) x)[i * step];
  d->n = n;
  return TRUE;
}

void
clr_conv_direct_run (ClrConvDirect * d, uint32_t filter, gboolean f64,
    void *y, size_t step)
{
  const double *h = d->taps + (size_t) filter * d->n_taps;
  const size_t taps = d->n_taps;
  double acc[CLR_DIRECT_RUN];
  size_t j, r, k, run;

  for (j = 0; j < d->n; j += run) {
    /* output j + r is window frame taps - 1 + j + r */
    const double *x = d->window + j + taps - 1;

    run = MIN (CLR_DIRECT_RUN, d->n - j);
    memset (acc, 0, sizeof (acc));
    /* every sum tap 0 first, as the textbook writes it: the output does
     * not depend on where a run starts, and a float64 reference that sums
     * in that order gives the same doubles */
    for (k = 0; k < taps; k++) {
      const double hk = h[k], *xk = x - k;

      for (r = 0; r < CLR_DIRECT_RUN; r++)
        acc[r] += hk * xk[r];
    }
    if (f64)
      for (r = 0; r < run; r++)
        ((double *) y)[(j + r) * step] = acc[r];
    else
      for (r = 0; r < run; r++)
        ((float *) y)[(j + r) * step] = (float) acc[r];
  }
}
