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
  size_t stride;                /* doubles a spectrum's re (or im) part */
  /* a channel's own transforms and scratch: channels run side by side
   * (clr-workers.h) */
  ClrFftHostReal **fft;
  /* filter f's partition p: re at ((f parts + p) 2) stride, im after it;
   * scaled by 1 / B, the inverse transform's scale */
  double *spectra;
  /* channel ch's delay line: slot s's re at ((ch parts + s) 2) stride,
   * block b's spectrum in slot b % parts */
  double *ring;
  double *acc;                  /* channel ch's sum: re and im, 2 stride */
  double *out;                  /* and its inverse transform's 2B samples */
  uint64_t blocks;              /* the first block of the next call */
  size_t bytes;
};

static double *
try_doubles (ClrConvHost * h, size_t n)
{
  double *p = g_try_malloc0 (n * sizeof (double));

  h->bytes += p ? n * sizeof (double) : 0;
  return p;
}

ClrConvHost *
clr_conv_host_new (const double *const *taps, size_t n_taps,
    uint32_t n_filters, uint32_t block, uint32_t parts, uint32_t channels)
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
  /* whole vectors of 8 doubles a part, so every spectrum's parts start
   * as aligned as the first */
  h->stride = (B + 1 + 7) / 8 * 8;
  if (!(h->fft = g_try_new0 (ClrFftHostReal *, channels)))
    goto failed;
  for (f = 0; f < channels; f++)
    h->fft[f] = clr_fft_host_real_new (2 * B);
  if (!(h->spectra = try_doubles (h, (size_t) n_filters * parts * 2 *
              h->stride)) || !(h->ring = try_doubles (h, (size_t) channels *
              parts * 2 * h->stride)) || !(h->acc = try_doubles (h,
              (size_t) channels * 2 * h->stride))
      || !(h->out = try_doubles (h, (size_t) channels * 2 * B)))
    goto failed;
  for (f = 0; f < n_filters; f++)
    for (p = 0; p < parts; p++) {
      const size_t first = (size_t) p * B;
      const size_t len = parts == 1 ? n_taps : MIN (B, n_taps - first);
      double *re = h->spectra + ((size_t) f * parts + p) * 2 * h->stride;
      double *im = re + h->stride;
      size_t k;

      clr_fft_host_real_split (h->fft[0], taps[f] + first, TRUE, 1, len, re,
          im);
      for (k = 0; k < h->bins; k++) {
        re[k] /= (double) B;
        im[k] /= (double) B;
      }
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
      sizeof (double));
  h->blocks = 0;
}

size_t
clr_conv_host_get_memory (ClrConvHost * h)
{
  return h->bytes;
}

static double *
slot (ClrConvHost * h, uint32_t ch, uint64_t block)
{
  return h->ring + ((size_t) ch * h->parts + block % h->parts) * 2 *
      h->stride;
}

void
clr_conv_host_load (ClrConvHost * h, uint32_t ch, uint32_t b, gboolean f64,
    const void *x, size_t step)
{
  double *re = slot (h, ch, h->blocks + b);

  clr_fft_host_real_split (h->fft[ch], x, f64, step, 2 * (size_t) h->block,
      re, re + h->stride);
}

/* a[k] += x0[k] h0[k] + ... + x3[k] h3[k] over the bins: four partitions
 * a pass over the sum, which a pass for each loaded and stored four times
 * as often (perf: the sum was the hottest loop) */
CLR_VECTOR_CLONES static void
multiply_add4 (size_t n, const double *const *x, const double *const *h,
    double *restrict ar, double *restrict ai, size_t S)
{
  const double *restrict x0 = x[0], *restrict x1 = x[1];
  const double *restrict x2 = x[2], *restrict x3 = x[3];
  const double *restrict h0 = h[0], *restrict h1 = h[1];
  const double *restrict h2 = h[2], *restrict h3 = h[3];
  size_t k;

  for (k = 0; k < n; k++) {
    double re = ar[k], im = ai[k];

    re += x0[k] * h0[k] - x0[k + S] * h0[k + S];
    im += x0[k] * h0[k + S] + x0[k + S] * h0[k];
    re += x1[k] * h1[k] - x1[k + S] * h1[k + S];
    im += x1[k] * h1[k + S] + x1[k + S] * h1[k];
    re += x2[k] * h2[k] - x2[k + S] * h2[k + S];
    im += x2[k] * h2[k + S] + x2[k + S] * h2[k];
    re += x3[k] * h3[k] - x3[k + S] * h3[k + S];
    im += x3[k] * h3[k + S] + x3[k + S] * h3[k];
    ar[k] = re;
    ai[k] = im;
  }
}

/* a[k] (+)= x[k] h[k] over the bins: the first partition sets */
CLR_VECTOR_CLONES static void
multiply_add (size_t n, gboolean first, const double *restrict xr,
    const double *restrict xi, const double *restrict hr,
    const double *restrict hi, double *restrict ar, double *restrict ai)
{
  size_t k;

  if (first) {
    for (k = 0; k < n; k++) {
      ar[k] = xr[k] * hr[k] - xi[k] * hi[k];
      ai[k] = xr[k] * hi[k] + xi[k] * hr[k];
    }
    return;
  }
  for (k = 0; k < n; k++) {
    ar[k] += xr[k] * hr[k] - xi[k] * hi[k];
    ai[k] += xr[k] * hi[k] + xi[k] * hr[k];
  }
}

void
clr_conv_host_run (ClrConvHost * h, uint32_t ch, uint32_t b,
    uint32_t filter, gboolean f64, size_t hop, void *y, size_t step)
{
  const size_t S = h->stride, first = 2 * (size_t) h->block - hop;
  double *ar = h->acc + (size_t) ch * 2 * S, *ai = ar + S;
  double *out = h->out + (size_t) ch * 2 * h->block;
  uint32_t p;
  size_t j;

  /* partition p meets the spectrum of the block p blocks back; after the
   * first, four at a time */
  for (p = 0; p < h->parts;) {
    const double *xs[4], *hs[4];
    uint32_t i;

    if (p > 0 && p + 4 <= h->parts) {
      for (i = 0; i < 4; i++) {
        xs[i] = slot (h, ch, h->blocks + b + h->parts - p - i);
        hs[i] = h->spectra + ((size_t) filter * h->parts + p + i) * 2 * S;
      }
      multiply_add4 (h->bins, xs, hs, ar, ai, S);
      p += 4;
    } else {
      const double *xr = slot (h, ch, h->blocks + b + h->parts - p);
      const double *hr = h->spectra + ((size_t) filter * h->parts + p) * 2 *
          S;

      multiply_add (h->bins, p == 0, xr, xr + S, hr, hr + S, ar, ai);
      p++;
    }
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
