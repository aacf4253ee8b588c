/* clresample: a crossover's bands from the engine's lower bands and the
 * input. See clr-crossover-mix.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <math.h>
#include <string.h>
#include "clr-format.h"
#include "clr-crossover-mix.h"
#include "design/clr-crossover-design.h"

struct _ClrXoMix
{
  gboolean f64;
  size_t ssize;
  size_t channels;
  unsigned bands;
  double gain[CLR_XO_BANDS_MAX];
  size_t delay[CLR_XO_BANDS_MAX];
  size_t max_delay;
  size_t lag;
  size_t max_call;
  int64_t pos;                  /* the next engine frame */
  /* the lower bands' last outputs, when a band is delayed: channels x
   * (bands - 1) planes, frame i of plane p at stream frame start + i */
  ClrHistory past;
};

size_t
clr_xo_mix_get_max_delay (const ClrXoMix * m)
{
  return m->max_delay;
}

ClrXoMix *
clr_xo_mix_new (gboolean f64, size_t channels, unsigned bands,
    const double *gains_db, const size_t *delays, size_t lag,
    size_t max_call)
{
  ClrXoMix *m;
  unsigned k;

  g_return_val_if_fail (bands >= 2 && bands <= CLR_XO_BANDS_MAX, NULL);
  g_return_val_if_fail (channels * (bands - 1) <= CLR_CHANNELS_MAX, NULL);
  m = g_new0 (ClrXoMix, 1);
  m->f64 = f64;
  m->ssize = f64 ? sizeof (double) : sizeof (float);
  m->channels = channels;
  m->bands = bands;
  m->lag = lag;
  m->max_call = max_call;
  for (k = 0; k < bands; k++) {
    m->gain[k] = gains_db ? pow (10.0, gains_db[k] / 20.0) : 1.0;
    m->delay[k] = delays ? delays[k] : 0;
    m->max_delay = MAX (m->max_delay, m->delay[k]);
  }
  clr_history_init (&m->past, channels * (bands - 1), m->ssize);
  return m;
}

void
clr_xo_mix_free (ClrXoMix * m)
{
  if (!m)
    return;
  clr_history_clear (&m->past);
  g_free (m);
}

gboolean
clr_xo_mix_reset (ClrXoMix * m, int64_t pos, GError ** error)
{
  m->pos = pos;
  if (m->max_delay == 0)
    return TRUE;
  /* the silence before, and room for the longest call after it */
  clr_history_reset (&m->past, pos - (int64_t) m->max_delay);
  return clr_history_make_room (&m->past, 0, m->max_delay + m->max_call,
      error) && clr_history_push (&m->past, m->max_delay, NULL, TRUE,
      m->max_delay, error);
}

/* The bands of frames [drop, n) of one channel, samples of type T. e[k]
 * and et[k]: band k's output at the frame band k's and the top band's
 * delay reach back to (the same when no band is delayed), es samples
 * apart; xp: the input at the top band's frame. */
#define MIX_CHANNEL(T) \
  do { \
    const unsigned low = m->bands - 1; \
    const T g_top = (T) m->gain[low]; \
    T g[CLR_XO_BANDS_MAX]; \
    size_t i; \
    unsigned k; \
    for (k = 0; k < low; k++) \
      g[k] = (T) m->gain[k]; \
    for (i = drop; i < n; i++) { \
      T sum = 0; \
      for (k = 0; k < low; k++) { \
        ((T *) o[k])[(i - drop) * out_step] = \
            g[k] * ((const T *) e[k])[i * es]; \
        sum += ((const T *) et[k])[i * es]; \
      } \
      ((T *) o[low])[(i - drop) * out_step] = \
          g_top * (((const T *) xp)[i] - sum); \
    } \
  } while (0)

/* MIX_CHANNEL's work for all channels at once, where nothing is delayed
 * and the output is interleaved frames (the engine's P = (bands - 1)
 * channels lower-band samples of frame i at base + i step + p pitch: rows
 * with pitch 1, planes with step 1; the output's bands x channels at out0 +
 * i out_step): a frame's samples in a row, not channel by channel across
 * all frames, with CH channels and LOW lower bands known to the compiler
 * where they can be. A 20480-frame stereo block in 4 bands on the 2-core
 * test machine: from rows 141 us with a memcpy () a row, 80 us so; from
 * planes 125 us channel by channel, 105-120 us so with the bands unknown,
 * 63 us with them known. */
#define MIX_FRAMES(T, CH, LOW) \
  do { \
    const size_t P = (LOW) * (CH); \
    const T g_top = (T) m->gain[(LOW)]; \
    T gp[CLR_CHANNELS_MAX]; \
    const T *ep[CLR_CHANNELS_MAX]; \
    const T *xc[CLR_CHANNELS_MAX]; \
    size_t i, p, c; \
    unsigned k; \
    for (p = 0; p < P; p++) { \
      gp[p] = (T) m->gain[p / (CH)]; \
      ep[p] = (const T *) base + drop * step + p * pitch; \
    } \
    for (c = 0; c < (CH); c++) \
      xc[c] = (const T *) (clr_history_plane (x, c) + (xf - x->start) * ss) \
          + drop; \
    for (i = 0; i < n - drop; i++) { \
      T *restrict orow = (T *) out0 + i * out_step; \
      T sum[CLR_CHANNELS_MAX]; \
      for (c = 0; c < (CH); c++) { \
        const T v = ep[c][i * step]; \
        sum[c] = v; \
        orow[c] = gp[c] * v; \
      } \
      for (k = 1; k < (LOW); k++) \
        for (c = 0; c < (CH); c++) { \
          const T v = ep[k * (CH) + c][i * step]; \
          sum[c] += v; \
          orow[k * (CH) + c] = gp[k * (CH) + c] * v; \
        } \
      for (c = 0; c < (CH); c++) \
        orow[P + c] = g_top * (xc[c][i] - sum[c]); \
    } \
  } while (0)

/* out[p] are the samples of one interleaved row */
static gboolean
out_is_rows (const ClrXoMix * m, void *const *out, size_t out_step)
{
  const size_t planes = m->channels * m->bands;
  size_t p;

  if (out_step != planes)
    return FALSE;
  for (p = 1; p < planes; p++)
    if ((const char *) out[p] != (const char *) out[0] + p * m->ssize)
      return FALSE;
  return TRUE;
}

gboolean
clr_xo_mix_run (ClrXoMix * m, ClrHistory * x, const void *base,
    size_t pitch, size_t step, size_t n, size_t drop, void *const *out,
    size_t out_step, GError ** error)
{
  const size_t ss = m->ssize, ch = m->channels;
  const unsigned low = m->bands - 1;
  const size_t top_delay = m->delay[low];
  size_t c, es;
  unsigned k;

  g_return_val_if_fail (n <= m->max_call && drop <= n, FALSE);
  /* through the kept outputs, where the delays reach back */
  if (m->max_delay > 0 && !clr_history_push_laid_out (&m->past,
          m->max_delay + m->max_call, base, pitch, step, n, error))
    return FALSE;
  if (drop < n && m->max_delay == 0 && (pitch == 1 || step == 1)
      && out_is_rows (m, out, out_step)) {
    const int64_t xf = m->pos - (int64_t) m->lag;
    char *out0 = out[0];

    g_assert (xf >= x->start && xf + (int64_t) n <= x->start +
        (int64_t) x->len);
    /* stereo in 2 to 5 bands (F32), and in 4 (F64), with everything
     * known: a 20480-frame block from planes in 3 bands took 132 us with
     * the bands left to run time, in 5 bands 218 */
    if (ch == 2 && !m->f64 && low == 1)
      MIX_FRAMES (float, 2, 1);
    else if (ch == 2 && !m->f64 && low == 2)
      MIX_FRAMES (float, 2, 2);
    else if (ch == 2 && !m->f64 && low == 3)
      MIX_FRAMES (float, 2, 3);
    else if (ch == 2 && !m->f64 && low == 4)
      MIX_FRAMES (float, 2, 4);
    else if (ch == 2 && m->f64 && low == 3)
      MIX_FRAMES (double, 2, 3);
    else if (m->f64)
      MIX_FRAMES (double, ch, low);
    else
      MIX_FRAMES (float, ch, low);
    m->pos += (int64_t) n;
    return TRUE;
  }
  for (c = 0; drop < n && c < ch; c++) {
    const void *e[CLR_XO_BANDS_MAX], *et[CLR_XO_BANDS_MAX], *xp;
    void *o[CLR_XO_BANDS_MAX];
    const int64_t xf = m->pos - (int64_t) (m->lag + top_delay);

    g_assert (xf >= x->start && xf + (int64_t) n <= x->start +
        (int64_t) x->len);
    xp = clr_history_plane (x, c) + (xf - x->start) * ss;
    for (k = 0; k < low; k++) {
      const size_t p = k * ch + c;

      if (m->max_delay > 0) {
        char *plane = clr_history_plane (&m->past, p);
        int64_t at = m->pos - m->past.start;

        e[k] = plane + (at - (int64_t) m->delay[k]) * ss;
        et[k] = plane + (at - (int64_t) top_delay) * ss;
      } else {
        e[k] = et[k] = (const char *) base + p * pitch * ss;
      }
    }
    es = m->max_delay > 0 ? 1 : step;
    for (k = 0; k <= low; k++)
      o[k] = out[k * ch + c];
    if (m->f64)
      MIX_CHANNEL (double);
    else
      MIX_CHANNEL (float);
  }
  m->pos += (int64_t) n;
  return TRUE;
}
