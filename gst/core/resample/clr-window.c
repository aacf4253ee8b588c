/* clresample: a resampler's window on the host. See clr-window.h. */
#include <string.h>
#include "device/clr-device.h"
#include "clr-window.h"

void
clr_window_init (ClrWindow * w, size_t channels, ClrFormat format,
    size_t wsize, gboolean interleaved)
{
  memset (w, 0, sizeof (*w));
  w->channels = channels;
  w->format = format;
  w->ssize = clr_format_size (format);
  w->wsize = wsize;
  w->interleaved = interleaved;
}

void
clr_window_clear (ClrWindow * w)
{
  g_free (w->buf);
  w->buf = NULL;
  w->cap = w->base = 0;
}

/* Channel c's sample of window frame i, and the distance between frames */
static char *
sample_at (ClrWindow * w, size_t c, size_t i)
{
  if (w->interleaved)
    return w->buf + ((w->base + i) * w->channels + c) * w->wsize;
  return w->buf + (c * w->cap + w->base + i) * w->wsize;
}

const char *
clr_window_plane (const ClrWindow * w, size_t c)
{
  return sample_at ((ClrWindow *) w, c, 0);
}

static size_t
frame_step (ClrWindow * w)
{
  return w->interleaved ? w->channels : 1;
}

gboolean
clr_window_reserve (ClrWindow * w, size_t len, size_t frames,
    GError ** error)
{
  const size_t ws = w->wsize, ch = w->channels;
  size_t cap, c;
  char *nb;

  if (frames <= w->cap) {
    if (w->base + frames <= w->cap)
      return TRUE;
    /* memmove: the history may overlap its new place */
    if (w->interleaved)
      memmove (w->buf, sample_at (w, 0, 0), len * ch * ws);
    for (c = 0; !w->interleaved && c < ch; c++)
      memmove (w->buf + c * w->cap * ws, sample_at (w, c, 0), len * ws);
    w->base = 0;
    return TRUE;
  }
  cap = MAX (frames, w->cap + w->cap / 2);
  if (!(nb = g_try_malloc (cap * ch * ws))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for an input window of %" G_GSIZE_FORMAT
        " frames", cap);
    return FALSE;
  }
  if (w->buf && w->interleaved)
    memcpy (nb, sample_at (w, 0, 0), len * ch * ws);
  for (c = 0; w->buf && !w->interleaved && c < ch; c++)
    memcpy (nb + c * cap * ws, sample_at (w, c, 0), len * ws);
  g_free (w->buf);
  w->buf = nb;
  w->cap = cap;
  w->base = 0;
  return TRUE;
}

void
clr_window_advance (ClrWindow * w, size_t skip)
{
  w->base += skip;
}

void
clr_window_rewind (ClrWindow * w)
{
  w->base = 0;
}

/* n samples `src_step` samples apart in the stream's format into the
 * window's type, `dst_step` apart. Integers go to doubles unscaled (the
 * kernel scales them as it does its own conversions), so the values and
 * every product are those of the kernel's conversion. */
static void
load (ClrWindow * w, char *dst, size_t dst_step, const char *src,
    size_t src_step, size_t n)
{
  size_t i;

  if (w->wsize == w->ssize && dst_step == 1 && src_step == 1) {
    memcpy (dst, src, n * w->ssize);
    return;
  }
  if (w->wsize == w->ssize) {
    switch (w->ssize) {
      case 2:
        for (i = 0; i < n; i++)
          ((guint16 *) dst)[i * dst_step] = ((const guint16 *) src)[i *
              src_step];
        break;
      case 4:
        for (i = 0; i < n; i++)
          ((guint32 *) dst)[i * dst_step] = ((const guint32 *) src)[i *
              src_step];
        break;
      default:
        for (i = 0; i < n; i++)
          ((guint64 *) dst)[i * dst_step] = ((const guint64 *) src)[i *
              src_step];
        break;
    }
    return;
  }
  switch (w->format) {
    case CLR_FORMAT_S16:
      for (i = 0; i < n; i++)
        ((double *) dst)[i * dst_step] = ((const gint16 *) src)[i * src_step];
      break;
    case CLR_FORMAT_S32:
    case CLR_FORMAT_S24_32:
      for (i = 0; i < n; i++)
        ((double *) dst)[i * dst_step] = ((const gint32 *) src)[i * src_step];
      break;
    default:
      for (i = 0; i < n; i++)
        ((double *) dst)[i * dst_step] = ((const float *) src)[i * src_step];
      break;
  }
}

/* ... and back: exact, the doubles came from such samples (or zeros) */
static void
store (ClrWindow * w, char *dst, const char *src, size_t src_step, size_t n)
{
  size_t i;

  if (w->wsize == w->ssize) {
    for (i = 0; i < n; i++)
      memcpy (dst + i * w->ssize, src + i * src_step * w->wsize, w->ssize);
    return;
  }
  switch (w->format) {
    case CLR_FORMAT_S16:
      for (i = 0; i < n; i++)
        ((gint16 *) dst)[i] = (gint16) ((const double *) src)[i * src_step];
      break;
    case CLR_FORMAT_S32:
    case CLR_FORMAT_S24_32:
      for (i = 0; i < n; i++)
        ((gint32 *) dst)[i] = (gint32) ((const double *) src)[i * src_step];
      break;
    default:
      for (i = 0; i < n; i++)
        ((float *) dst)[i] = (float) ((const double *) src)[i * src_step];
      break;
  }
}

void
clr_window_write_input (ClrWindow * w, size_t at, const void *const *in,
    gboolean planar, size_t n)
{
  const size_t ch = w->channels;
  size_t c;

  if (w->interleaved && !planar && w->wsize == w->ssize) {
    memcpy (sample_at (w, 0, at), in[0], n * ch * w->ssize);
    return;
  }
  if (!w->interleaved && !planar && ch > 1 && w->wsize == w->ssize) {
    char *planes[CLR_CHANNELS_MAX];

    /* all channels in one pass over the frames */
    for (c = 0; c < ch; c++)
      planes[c] = sample_at (w, c, at);
    clr_deinterleave (planes, in[0], n, ch, w->ssize);
    return;
  }
  for (c = 0; c < ch; c++) {
    if (planar || ch == 1)
      load (w, sample_at (w, c, at), frame_step (w), in[c], 1, n);
    else
      load (w, sample_at (w, c, at), frame_step (w),
          (const char *) in[0] + c * w->ssize, ch, n);
  }
}

void
clr_window_write_zeros (ClrWindow * w, size_t at, size_t n)
{
  size_t c;

  if (w->interleaved) {
    memset (sample_at (w, 0, at), 0, n * w->channels * w->wsize);
    return;
  }
  for (c = 0; c < w->channels; c++)
    memset (sample_at (w, c, at), 0, n * w->wsize);
}

void
clr_window_copy_out (ClrWindow * w, size_t n, char *dst, size_t pitch)
{
  size_t c;

  if (w->interleaved) {
    memcpy (dst, sample_at (w, 0, 0), n * w->channels * w->wsize);
    return;
  }
  for (c = 0; c < w->channels; c++)
    memcpy (dst + c * pitch * w->wsize, sample_at (w, c, 0), n * w->wsize);
}

void
clr_window_get (ClrWindow * w, size_t len, char *host)
{
  size_t c;

  for (c = 0; c < w->channels; c++)
    store (w, host + c * len * w->ssize, sample_at (w, c, 0), frame_step (w),
        len);
}

void
clr_window_put (ClrWindow * w, size_t at, size_t len, const char *host)
{
  size_t c;

  for (c = 0; c < w->channels; c++)
    load (w, sample_at (w, c, at), frame_step (w), host + c * len * w->ssize,
        1, len);
}
