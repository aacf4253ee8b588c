/* clresample: partitioned FFT convolution on the host. See
 * clr-conv-host.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <string.h>
#include "clr-conv-host.h"
#include "design/clr-fft-host.h"

struct _ClrConvHost
{
  uint32_t block, parts, channels, n_filters;
  size_t bins;                  /* B + 1 */
  size_t stride;                /* values a spectrum's re (or im) part */
  /* spectra kept in float (F32 streams): the sum reads half the bytes,
   * and a million taps' sum is bound by them */
  gboolean narrow;
  size_t vsize;                 /* bytes a kept value */
  /* a channel's own transforms and scratch: channels run side by side
   * (clr-workers.h) */
  ClrFftHostReal **fft;
  /* filter f's partition p: re at ((f parts + p) 2) stride, im after it;
   * scaled by 1 / B, the inverse transform's scale */
  void *spectra;
  /* channel ch's delay line: slot s's re at ((ch parts + s) 2) stride,
   * block b's spectrum in slot b % parts */
  void *ring;
  double *acc;                  /* channel ch's sum: re and im, 2 stride */
  double *out;                  /* and its inverse transform's 2B samples,
                                 * and its forward one's 2 stride bins */
  uint64_t blocks;              /* the first block of the next call */
  size_t bytes;
};

static void *
try_alloc (ClrConvHost * h, size_t n, size_t size)
{
  void *p = g_try_malloc0 (n * size);

  h->bytes += p ? n * size : 0;
  return p;
}

/* The kept spectrum at index i (in values) of `base` */
static void *
at (ClrConvHost * h, void *base, size_t i)
{
  return (char *) base + i * h->vsize;
}

/* A spectrum (split, double) into kept values. */
static void
keep (ClrConvHost * h, const double *re, const double *im, void *to,
    double scale)
{
  size_t k;

  if (h->narrow) {
    float *f = to;

    for (k = 0; k < h->bins; k++) {
      f[k] = (float) (re[k] * scale);
      f[k + h->stride] = (float) (im[k] * scale);
    }
  } else {
    double *d = to;

    for (k = 0; k < h->bins; k++) {
      d[k] = re[k] * scale;
      d[k + h->stride] = im[k] * scale;
    }
  }
}

ClrConvHost *
clr_conv_host_new (const double *const *taps, size_t n_taps,
    uint32_t n_filters, uint32_t block, uint32_t parts, uint32_t channels,
    gboolean narrow)
{
  ClrConvHost *h = g_try_new0 (ClrConvHost, 1);
  const size_t B = block;
  uint32_t f, p;

  if (!h)
    return NULL;
  h->block = block;
  h->parts = parts;
  h->channels = channels;
  h->n_filters = n_filters;
  h->bins = B + 1;
  h->narrow = narrow;
  h->vsize = narrow ? sizeof (float) : sizeof (double);
  /* whole vectors of 16 values a part, so every spectrum's parts start
   * as aligned as the first */
  h->stride = (B + 1 + 15) / 16 * 16;
  if (!(h->fft = g_try_new0 (ClrFftHostReal *, channels)))
    goto failed;
  for (f = 0; f < channels; f++)
    h->fft[f] = clr_fft_host_real_new (2 * B);
  if (!(h->spectra = try_alloc (h, (size_t) n_filters * parts * 2 *
              h->stride, h->vsize)) || !(h->ring = try_alloc (h,
              (size_t) channels * parts * 2 * h->stride, h->vsize))
      || !(h->acc = try_alloc (h, (size_t) channels * 2 * h->stride,
              sizeof (double))) || !(h->out = try_alloc (h,
              (size_t) channels * MAX (2 * B, 2 * h->stride),
              sizeof (double))))
    goto failed;
  for (f = 0; f < n_filters; f++)
    for (p = 0; p < parts; p++) {
      const size_t first = (size_t) p * B;
      const size_t len = parts == 1 ? n_taps : MIN (B, n_taps - first);
      double *re = h->acc, *im = re + h->stride;

      clr_fft_host_real_split (h->fft[0], taps[f] + first, TRUE, 1, len, re,
          im);
      keep (h, re, im, at (h, h->spectra, ((size_t) f * parts + p) * 2 *
              h->stride), 1.0 / (double) B);
    }
  return h;

failed:
  clr_conv_host_free (h);
  return NULL;
}

void
clr_conv_host_free (ClrConvHost * h)
{
  uint32_t ch;

  if (!h)
    return;
  for (ch = 0; h->fft && ch < h->channels; ch++)
    clr_fft_host_real_free (h->fft[ch]);
  g_free (h->fft);
  g_free (h->spectra);
  g_free (h->ring);
  g_free (h->acc);
  g_free (h->out);
  g_free (h);
}

void
clr_conv_host_reset (ClrConvHost * h)
{
  memset (h->ring, 0, (size_t) h->channels * h->parts * 2 * h->stride *
      h->vsize);
  h->blocks = 0;
}

size_t
clr_conv_host_get_memory (ClrConvHost * h)
{
  return h->bytes;
}

static void *
slot (ClrConvHost * h, uint32_t ch, uint64_t block)
{
  return at (h, h->ring, ((size_t) ch * h->parts + block % h->parts) * 2 *
      h->stride);
}

static double *
scratch (ClrConvHost * h, uint32_t ch)
{
  return h->out + (size_t) ch * MAX (2 * (size_t) h->block, 2 * h->stride);
}

void
clr_conv_host_load (ClrConvHost * h, uint32_t ch, uint32_t b, gboolean f64,
    const void *x, size_t step)
{
  double *re = scratch (h, ch);

  if (!h->narrow)
    re = slot (h, ch, h->blocks + b);
  clr_fft_host_real_split (h->fft[ch], x, f64, step, 2 * (size_t) h->block,
      re, re + h->stride);
  if (h->narrow)
    keep (h, re, re + h->stride, slot (h, ch, h->blocks + b), 1.0);
}

/* a[k] (+)= sum over the partitions given of x[k] h[k], over the bins, in
 * double: four partitions a pass over the sum where there are four, which
 * a pass for each loaded and stored four times as often (perf: the sum was
 * the hottest loop); the first pass sets. T: the kept values' type. */
#define MULTIPLY_ADD(name, T) \
CLR_VECTOR_CLONES static void \
name (size_t n, size_t S, unsigned count, gboolean first, \
    const void *const *xv, const void *const *hv, double *restrict ar, \
    double *restrict ai) \
{ \
  const T *restrict x0 = xv[0], *restrict h0 = hv[0]; \
  size_t k; \
  \
  if (count == 4) { \
    const T *restrict x1 = xv[1], *restrict x2 = xv[2]; \
    const T *restrict x3 = xv[3], *restrict h1 = hv[1]; \
    const T *restrict h2 = hv[2], *restrict h3 = hv[3]; \
    \
    for (k = 0; k < n; k++) { \
      double re = first ? 0.0 : ar[k], im = first ? 0.0 : ai[k]; \
      \
      re += (double) x0[k] * h0[k] - (double) x0[k + S] * h0[k + S]; \
      im += (double) x0[k] * h0[k + S] + (double) x0[k + S] * h0[k]; \
      re += (double) x1[k] * h1[k] - (double) x1[k + S] * h1[k + S]; \
      im += (double) x1[k] * h1[k + S] + (double) x1[k + S] * h1[k]; \
      re += (double) x2[k] * h2[k] - (double) x2[k + S] * h2[k + S]; \
      im += (double) x2[k] * h2[k + S] + (double) x2[k + S] * h2[k]; \
      re += (double) x3[k] * h3[k] - (double) x3[k + S] * h3[k + S]; \
      im += (double) x3[k] * h3[k + S] + (double) x3[k + S] * h3[k]; \
      ar[k] = re; \
      ai[k] = im; \
    } \
    return; \
  } \
  for (k = 0; k < n; k++) { \
    double re = first ? 0.0 : ar[k], im = first ? 0.0 : ai[k]; \
    \
    re += (double) x0[k] * h0[k] - (double) x0[k + S] * h0[k + S]; \
    im += (double) x0[k] * h0[k + S] + (double) x0[k + S] * h0[k]; \
    ar[k] = re; \
    ai[k] = im; \
  } \
}

MULTIPLY_ADD (multiply_add_double, double)
MULTIPLY_ADD (multiply_add_float, float)

void
clr_conv_host_run (ClrConvHost * h, uint32_t ch, uint32_t b,
    uint32_t filter, gboolean f64, size_t hop, void *y, size_t step)
{
  const size_t S = h->stride, first = 2 * (size_t) h->block - hop;
  double *ar = h->acc + (size_t) ch * 2 * S, *ai = ar + S;
  double *out = scratch (h, ch);
  /* blocks back past the stream's start hold silence since the reset:
   * their products would add exact zeros (a stream's first blocks, after
   * every start and seek, sum only the partitions they have filled) */
  const uint64_t filled = h->blocks + b + 1;
  const uint32_t parts = filled < h->parts ? (uint32_t) filled : h->parts;
  uint32_t p, i, count;
  size_t j;

  /* partition p meets the spectrum of the block p blocks back: the first
   * alone (it sets the sum), then four at a time */
  for (p = 0; p < parts; p += count) {
    const void *xs[4], *hs[4];

    count = p > 0 && p + 4 <= parts ? 4 : 1;
    for (i = 0; i < count; i++) {
      xs[i] = slot (h, ch, h->blocks + b + h->parts - p - i);
      hs[i] = at (h, h->spectra, ((size_t) filter * h->parts + p + i) * 2 *
          S);
    }
    if (h->narrow)
      multiply_add_float (h->bins, S, count, p == 0, xs, hs, ar, ai);
    else
      multiply_add_double (h->bins, S, count, p == 0, xs, hs, ar, ai);
  }
  clr_fft_host_real_inverse_split (h->fft[ch], ar, ai, out);
  if (f64)
    for (j = 0; j < hop; j++)
      ((double *) y)[j * step] = out[first + j];
  else
    for (j = 0; j < hop; j++)
      ((float *) y)[j * step] = (float) out[first + j];
}

void
clr_conv_host_advance (ClrConvHost * h, uint32_t n)
{
  h->blocks += n;
}
