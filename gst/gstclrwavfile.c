/* clresample: a filter's WAV file read straight from its bytes. See
 * gstclrwavfile.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <string.h>
#include "gstclrwavfile.h"

#define WAVE_FORMAT_PCM 1
#define WAVE_FORMAT_IEEE_FLOAT 3
#define WAVE_FORMAT_EXTENSIBLE 0xfffe

static guint32
le32 (const guint8 * p)
{
  return (guint32) p[0] | (guint32) p[1] << 8 | (guint32) p[2] << 16 |
      (guint32) p[3] << 24;
}

static guint16
le16 (const guint8 * p)
{
  return (guint16) (p[0] | p[1] << 8);
}

/* One sample of `bits` bits at p, in the format `tag`. */
static double
sample_at (const guint8 * p, guint tag, guint bits)
{
  if (tag == WAVE_FORMAT_IEEE_FLOAT) {
    if (bits == 32) {
      guint32 u = le32 (p);
      float f;

      memcpy (&f, &u, 4);
      return f;
    } else {
      guint64 u = (guint64) le32 (p) | (guint64) le32 (p + 4) << 32;
      double d;

      memcpy (&d, &u, 8);
      return d;
    }
  }
  switch (bits) {
    case 8:
      return ((int) p[0] - 128) / 128.0;
    case 16:
      return (gint16) le16 (p) / 32768.0;
    case 24:
      return (gint32) ((guint32) p[0] << 8 | (guint32) p[1] << 16 |
          (guint32) p[2] << 24) / 2147483648.0;
    default:
      return (gint32) le32 (p) / 2147483648.0;
  }
}

gboolean
gst_clr_wav_file_read (const gchar * location, double **samples,
    gsize * frames, guint * channels, gint * rate)
{
  guint8 *data = NULL;
  const guint8 *fmt = NULL, *pcm = NULL;
  gsize len = 0, off, pcm_len = 0, n, i;
  guint tag = 0, ch = 0, bits = 0, align = 0;
  guint32 sr = 0;
  gboolean ok = FALSE;

  if (!g_file_get_contents (location, (gchar **) & data, &len, NULL))
    return FALSE;
  if (len < 12 || memcmp (data, "RIFF", 4) || memcmp (data + 8, "WAVE", 4))
    goto done;
  /* the chunks, each padded to an even size; a data chunk whose size is
   * past the file's end (a stream's WAV, written before its length was
   * known) takes what there is */
  for (off = 12; off + 8 <= len;) {
    const guint32 size = le32 (data + off + 4);
    const gsize avail = MIN ((gsize) size, len - off - 8);

    if (!memcmp (data + off, "fmt ", 4) && avail >= 16)
      fmt = data + off + 8;
    else if (!memcmp (data + off, "data", 4) && fmt) {
      pcm = data + off + 8;
      pcm_len = avail;
      break;
    }
    if ((gsize) size + (size & 1) > len - off - 8)
      break;
    off += 8 + (gsize) size + (size & 1);
  }
  if (!fmt || !pcm)
    goto done;
  tag = le16 (fmt);
  ch = le16 (fmt + 2);
  sr = le32 (fmt + 4);
  align = le16 (fmt + 12);
  bits = le16 (fmt + 14);
  /* WAVE_FORMAT_EXTENSIBLE: the format is its sub-format GUID's first two
   * bytes (the rest is the same for PCM and float) */
  if (tag == WAVE_FORMAT_EXTENSIBLE) {
    if (le16 (fmt + 16) < 22 || fmt + 40 > data + len)
      goto done;
    tag = le16 (fmt + 24);
  }
  if (ch == 0 || sr == 0 || sr > G_MAXINT || bits % 8 || align != ch *
      (bits / 8))
    goto done;
  if (!(tag == WAVE_FORMAT_PCM && bits >= 8 && bits <= 32)
      && !(tag == WAVE_FORMAT_IEEE_FLOAT && (bits == 32 || bits == 64)))
    goto done;
  n = pcm_len / align;
  *samples = g_try_new (double, MAX (n * ch, 1));
  if (!*samples)
    goto done;
  for (i = 0; i < n * ch; i++)
    (*samples)[i] = sample_at (pcm + i * (bits / 8), tag, bits);
  *frames = n;
  *channels = ch;
  *rate = (gint) sr;
  ok = TRUE;

done:
  g_free (data);
  return ok;
}
