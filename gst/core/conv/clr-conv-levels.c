/* clresample: non-uniform partitions for long filters. See
 * clr-conv-levels.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <string.h>
#include "clr-conv-levels.h"

static double
level_cost (const ClrConvCosts * k, unsigned planes, uint32_t block,
    size_t taps)
{
  const size_t parts = (taps + block - 1) / block;
  const double fft = k->fft_by_log2 ? k->fft_by_log2[g_bit_storage (block) -
      1] : k->fft_ns;

  return planes * (fft + k->mac_ns * parts) + k->call_ns / block;
}

/* Each level's blocks `factor` times the last's (1: one level), each level
 * as few partitions as let the next one start (start >= its block -
 * block, or with slack two blocks of its own later), the last taking
 * the rest. */
static void
plan_for (size_t taps, uint32_t block, uint32_t max_block, unsigned planes,
    unsigned factor, gboolean slack, const ClrConvCosts * k,
    ClrConvLevelPlan * p)
{
  size_t start = 0, end, parts;
  uint32_t b = block, next;
  unsigned i;

  memset (p, 0, sizeof (*p));
  while (start < taps) {
    i = p->n++;
    next = (uint32_t) MIN ((guint64) b * factor, max_block);
    end = taps;
    if (next > b && i + 2 < CLR_CONV_LEVELS_MAX) {
      const size_t due = (slack ? 3 * (size_t) next : next) - block;

      parts = due > start ? (due - start + b - 1) / b : 1;
      end = MIN (taps, start + MAX (parts, 1) * b);
    }
    p->block[i] = b;
    p->start[i] = start;
    p->taps[i] = end - start;
    p->cost += level_cost (k, planes, b, end - start);
    start = end;
    b = next;
  }
}

void
clr_conv_levels_plan_factor (size_t taps, uint32_t block,
    uint32_t max_block, unsigned planes, unsigned factor, gboolean slack,
    const ClrConvCosts * costs, ClrConvLevelPlan * plan)
{
  plan_for (taps, block, max_block, planes, MAX (factor, 1), slack, costs,
      plan);
}

void
clr_conv_levels_plan (size_t taps, uint32_t block, uint32_t max_block,
    unsigned planes, gboolean slack, const ClrConvCosts * costs,
    ClrConvLevelPlan * plan)
{
  static const unsigned factors[] = { 2, 4, 8, 16, 32 };
  ClrConvLevelPlan p;
  unsigned i;

  plan_for (taps, block, block, planes, 1, slack, costs, plan);
  for (i = 0; i < G_N_ELEMENTS (factors) && block < max_block; i++) {
    plan_for (taps, block, max_block, planes, factors[i], slack, costs, &p);
    if (p.cost < plan->cost)
      *plan = p;
  }
}

gboolean
clr_conv_delay_init (ClrConvDelay * d, size_t planes, size_t ssize,
    size_t delay, size_t most)
{
  memset (d, 0, sizeof (*d));
  d->planes = planes;
  d->ssize = ssize;
  d->delay = delay;
  d->cap = delay + most;
  if (!(d->data = g_try_malloc (planes * d->cap * ssize)))
    return FALSE;
  clr_conv_delay_reset (d);
  return TRUE;
}

void
clr_conv_delay_clear (ClrConvDelay * d)
{
  g_clear_pointer (&d->data, g_free);
}

void
clr_conv_delay_reset (ClrConvDelay * d)
{
  memset (d->data, 0, d->planes * d->cap * d->ssize);
  d->start = 0;
  d->len = d->delay;
}

void
clr_conv_delay_push (ClrConvDelay * d, const void *base, size_t pitch,
    size_t step, size_t n)
{
  const size_t ss = d->ssize;
  size_t k, i, at;

  g_return_if_fail (d->len + n <= d->cap);
  for (k = 0; k < d->planes; k++) {
    char *ring = d->data + k * d->cap * ss;
    const char *src;

    at = (d->start + d->len) % d->cap;
    if (!base) {
      const size_t first = MIN (n, d->cap - at);

      memset (ring + at * ss, 0, first * ss);
      memset (ring, 0, (n - first) * ss);
      continue;
    }
    src = (const char *) base + k * pitch * ss;
    i = MIN (n, d->cap - at);
    clr_conv_copy_samples (ring + at * ss, 1, src, step, i, ss);
    clr_conv_copy_samples (ring, 1, src + i * step * ss, step, n - i, ss);
  }
  d->len += n;
}

void
clr_conv_copy_samples (void *dst, size_t dstep, const void *src,
    size_t sstep, size_t n, size_t ss)
{
  size_t i;

  if (dstep == 1 && sstep == 1) {
    memcpy (dst, src, n * ss);
  } else if (ss == sizeof (float) && dstep == 1 && sstep == 2) {
    /* a stereo stream's channel out of its interleaved samples, the
     * common case: a constant stride the vectoriser takes (the general
     * loop below stays scalar, 6 % of a 65536-tap stereo filter at 256) */
    float *restrict d = dst;
    const float *restrict s = src;

    for (i = 0; i < n; i++)
      d[i] = s[2 * i];
  } else if (ss == sizeof (float) && dstep == 2 && sstep == 1) {
    /* and back into them */
    float *restrict d = dst;
    const float *restrict s = src;

    for (i = 0; i < n; i++)
      d[2 * i] = s[i];
  } else if (ss == sizeof (float))
    for (i = 0; i < n; i++)
      ((float *) dst)[i * dstep] = ((const float *) src)[i * sstep];
  else if (ss == sizeof (double))
    for (i = 0; i < n; i++)
      ((double *) dst)[i * dstep] = ((const double *) src)[i * sstep];
  else
    for (i = 0; i < n; i++)
      memcpy ((char *) dst + i * dstep * ss, (const char *) src +
          i * sstep * ss, ss);
}

void
clr_conv_delay_take (ClrConvDelay * d, void *planes, size_t pitch, size_t n)
{
  const size_t ss = d->ssize;
  const size_t first = MIN (n, d->cap - d->start);
  size_t k;

  g_return_if_fail (n <= d->len);
  for (k = 0; k < d->planes; k++) {
    const char *ring = d->data + k * d->cap * ss;
    char *dst = (char *) planes + k * pitch * ss;

    memcpy (dst, ring + d->start * ss, first * ss);
    memcpy (dst + first * ss, ring, (n - first) * ss);
  }
  d->start = (d->start + n) % d->cap;
  d->len -= n;
}

void
clr_conv_delay_add_to_double (ClrConvDelay * d, gboolean f64, double *sums,
    size_t pitch, size_t n)
{
  const size_t first = MIN (n, d->cap - d->start);
  size_t k, i;

  g_return_if_fail (n <= d->len);
  for (k = 0; k < d->planes; k++) {
    double *to = sums + k * pitch;

    /* up to the ring's end, then from its start */
    if (f64) {
      const double *ring = (const double *) d->data + k * d->cap;

      for (i = 0; i < first; i++)
        to[i] += ring[d->start + i];
      for (i = first; i < n; i++)
        to[i] += ring[i - first];
    } else {
      const float *ring = (const float *) d->data + k * d->cap;

      for (i = 0; i < first; i++)
        to[i] += ring[d->start + i];
      for (i = first; i < n; i++)
        to[i] += ring[i - first];
    }
  }
  d->start = (d->start + n) % d->cap;
  d->len -= n;
}
