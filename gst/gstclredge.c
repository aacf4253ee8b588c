/* clresample: the sample-format edge. See gstclredge.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstclredge.h"

/* Samples unpacked a pass: small enough to stay in the cache between the
 * unpack and the conversion that follows it. */
#define EDGE_CHUNK 2048u

GstAudioFormat
gst_clr_edge_work_format (GstAudioFormat format)
{
  const GstAudioFormatInfo *finfo = gst_audio_format_get_info (format);

  if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (finfo))
    return GST_AUDIO_FORMAT_INFO_WIDTH (finfo) == 64 ? GST_AUDIO_FORMAT_F64 :
        GST_AUDIO_FORMAT_F32;
  switch (GST_AUDIO_FORMAT_INFO_DEPTH (finfo)) {
    case 16:
      return GST_AUDIO_FORMAT_S16;
    case 24:
      return GST_AUDIO_FORMAT_S24_32;
    case 32:
      return GST_AUDIO_FORMAT_S32;
    default:                   /* 8, 18, 20 bits: exact in a float */
      return GST_AUDIO_FORMAT_F32;
  }
}

ClrFormat
gst_clr_edge_clr_format (GstAudioFormat format)
{
  switch (gst_clr_edge_work_format (format)) {
    case GST_AUDIO_FORMAT_F32:
      return CLR_FORMAT_F32;
    case GST_AUDIO_FORMAT_F64:
      return CLR_FORMAT_F64;
    case GST_AUDIO_FORMAT_S16:
      return CLR_FORMAT_S16;
    case GST_AUDIO_FORMAT_S32:
      return CLR_FORMAT_S32;
    default:
      return CLR_FORMAT_S24_32;
  }
}

void
gst_clr_edge_clear (GstClrEdge * edge)
{
  g_assert (!edge->is_mapped);
  g_clear_pointer (&edge->planes, g_free);
  g_clear_pointer (&edge->scratch, g_free);
  g_clear_pointer (&edge->tmp, g_free);
  edge->scratch_size = 0;
}

void
gst_clr_edge_set (GstClrEdge * edge, const GstAudioInfo * info)
{
  GstAudioFormat wf = gst_clr_edge_work_format (GST_AUDIO_INFO_FORMAT (info));

  gst_clr_edge_clear (edge);
  edge->info = *info;
  edge->identity = wf == GST_AUDIO_INFO_FORMAT (info);
  /* positions only exist for up to 64 channels */
  gst_audio_info_set_format (&edge->work, wf, GST_AUDIO_INFO_RATE (info),
      GST_AUDIO_INFO_CHANNELS (info), GST_AUDIO_INFO_CHANNELS (info) > 64 ?
      NULL : info->position);
  edge->work.layout = info->layout;
  edge->work.flags = info->flags;
  if (!edge->identity) {
    edge->planes = g_new0 (gpointer, GST_AUDIO_INFO_CHANNELS (info));
    edge->tmp = g_malloc (EDGE_CHUNK * sizeof (gdouble));
  }
}

/* n samples of the negotiated format into the work format */
static void
to_work (GstClrEdge * edge, const guint8 * src, guint8 * dst, gsize n)
{
  const GstAudioFormatInfo *finfo = edge->info.finfo;
  const gsize in_bytes = GST_AUDIO_FORMAT_INFO_WIDTH (finfo) / 8;
  const gsize out_bytes = GST_AUDIO_INFO_WIDTH (&edge->work) / 8;
  const GstAudioFormat wf = GST_AUDIO_INFO_FORMAT (&edge->work);
  gsize done, i, k;

  for (done = 0; done < n; done += k) {
    const gint32 *s32 = edge->tmp;
    const gdouble *f64 = edge->tmp;

    k = MIN (EDGE_CHUNK, n - done);
    /* integers to S32 with zeros below their depth, floats to F64 */
    finfo->unpack_func (finfo, GST_AUDIO_PACK_FLAG_TRUNCATE_RANGE, edge->tmp,
        src + done * in_bytes, (gint) k);
    switch (wf) {
      case GST_AUDIO_FORMAT_S16:
        for (i = 0; i < k; i++)
          ((gint16 *) dst)[done + i] = (gint16) (s32[i] >> 16);
        break;
      case GST_AUDIO_FORMAT_S24_32:
        for (i = 0; i < k; i++)
          ((gint32 *) dst)[done + i] = s32[i] >> 8;
        break;
      case GST_AUDIO_FORMAT_S32:
        memcpy (dst + done * out_bytes, s32, k * out_bytes);
        break;
      case GST_AUDIO_FORMAT_F64:
        memcpy (dst + done * out_bytes, f64, k * out_bytes);
        break;
      default:                 /* F32 */
        if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (finfo))
          for (i = 0; i < k; i++)
            ((gfloat *) dst)[done + i] = (gfloat) f64[i];
        else
          for (i = 0; i < k; i++)
            ((gfloat *) dst)[done + i] = (gfloat) (s32[i] *
                (1.0 / 2147483648.0));
        break;
    }
  }
}

/* n samples of the work format back into the negotiated one; a float
 * carrying fewer bits is rounded to nearest (even) and saturated there */
static void
from_work (GstClrEdge * edge, const guint8 * src, guint8 * dst, gsize n)
{
  const GstAudioFormatInfo *finfo = edge->info.finfo;
  const gsize out_bytes = GST_AUDIO_FORMAT_INFO_WIDTH (finfo) / 8;
  const gsize in_bytes = GST_AUDIO_INFO_WIDTH (&edge->work) / 8;
  const GstAudioFormat wf = GST_AUDIO_INFO_FORMAT (&edge->work);
  const gint depth = GST_AUDIO_FORMAT_INFO_DEPTH (finfo);
  const gdouble scale = ldexp (1.0, depth - 1);
  gsize done, i, k;

  for (done = 0; done < n; done += k) {
    guint32 *s32 = edge->tmp;
    gdouble *f64 = edge->tmp;

    k = MIN (EDGE_CHUNK, n - done);
    switch (wf) {
      case GST_AUDIO_FORMAT_S16:
        for (i = 0; i < k; i++)
          s32[i] = (guint32) ((const gint16 *) src)[done + i] << 16;
        break;
      case GST_AUDIO_FORMAT_S24_32:
        for (i = 0; i < k; i++)
          s32[i] = (guint32) ((const gint32 *) src)[done + i] << 8;
        break;
      case GST_AUDIO_FORMAT_S32:
      case GST_AUDIO_FORMAT_F64:
        memcpy (s32, src + done * in_bytes, k * in_bytes);
        break;
      default:                 /* F32 */
        if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (finfo)) {
          for (i = 0; i < k; i++)
            f64[i] = ((const gfloat *) src)[done + i];
        } else {
          for (i = 0; i < k; i++) {
            gdouble v = nearbyint (((const gfloat *) src)[done + i] * scale);

            v = CLAMP (v, -scale, scale - 1.0);
            /* NaN fails both comparisons: silence, not undefined */
            if (isnan (v))
              v = 0.0;
            s32[i] = (guint32) (gint32) v << (32 - depth);
          }
        }
        break;
    }
    finfo->pack_func (finfo, 0, edge->tmp, dst + done * out_bytes, (gint) k);
  }
}

gboolean
gst_clr_edge_map (GstClrEdge * edge, GstAudioBuffer * work, GstBuffer * buf,
    GstMapFlags flags)
{
  const gboolean interleaved = GST_AUDIO_INFO_LAYOUT (&edge->info) ==
      GST_AUDIO_LAYOUT_INTERLEAVED;
  const gsize wbytes = GST_AUDIO_INFO_WIDTH (&edge->work) / 8;
  gsize plane_samples, need;
  gint p;

  if (edge->identity)
    return gst_audio_buffer_map (work, &edge->info, buf, flags);
  g_return_val_if_fail (!edge->is_mapped, FALSE);
  if (!gst_audio_buffer_map (&edge->mapped, &edge->info, buf, flags))
    return FALSE;
  edge->is_mapped = TRUE;
  edge->writing = (flags & GST_MAP_WRITE) != 0;
  plane_samples = edge->mapped.n_samples *
      (interleaved ? GST_AUDIO_INFO_CHANNELS (&edge->info) : 1);
  need = MAX (1, plane_samples * edge->mapped.n_planes * wbytes);
  if (need > edge->scratch_size) {
    g_free (edge->scratch);
    edge->scratch = g_malloc (need);
    edge->scratch_size = need;
  }
  memset (work, 0, sizeof (*work));
  work->info = edge->work;
  work->n_samples = edge->mapped.n_samples;
  work->n_planes = edge->mapped.n_planes;
  work->planes = edge->planes;
  work->buffer = buf;
  for (p = 0; p < edge->mapped.n_planes; p++) {
    edge->planes[p] = edge->scratch + p * plane_samples * wbytes;
    if (flags & GST_MAP_READ)
      to_work (edge, edge->mapped.planes[p], edge->planes[p], plane_samples);
  }
  return TRUE;
}

void
gst_clr_edge_unmap (GstClrEdge * edge, GstAudioBuffer * work)
{
  gsize plane_samples;
  gint p;

  if (edge->identity) {
    gst_audio_buffer_unmap (work);
    return;
  }
  g_return_if_fail (edge->is_mapped);
  plane_samples = edge->mapped.n_samples *
      (GST_AUDIO_INFO_LAYOUT (&edge->info) == GST_AUDIO_LAYOUT_INTERLEAVED ?
      GST_AUDIO_INFO_CHANNELS (&edge->info) : 1);
  if (edge->writing)
    for (p = 0; p < edge->mapped.n_planes; p++)
      from_work (edge, edge->planes[p], edge->mapped.planes[p],
          plane_samples);
  gst_audio_buffer_unmap (&edge->mapped);
  edge->is_mapped = FALSE;
  memset (work, 0, sizeof (*work));
}
