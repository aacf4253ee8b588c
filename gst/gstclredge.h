/* clresample: the sample-format edge of the plugin's elements. Every raw
 * format audioresample negotiates (8 to 32-bit integers signed or not,
 * packed 18/20/24-bit, both endiannesses, floats) reaches the engines as
 * one of the five they run natively (F32, F64, S16, S24_32, S32 in native
 * endianness) and goes back on the way out, through GStreamer's own
 * GstAudioFormatInfo unpack and pack functions. The native five pass
 * untouched (no copy).
 *
 * Precision: nothing is lost. A format is carried by the native one of its
 * own depth where there is one (S16BE and U16 by S16, S24 packed and
 * U24_32 by S24_32, U32 by S32), a pure rearrangement of bits each way;
 * the 8, 18 and 20-bit formats by F32, whose 24-bit mantissa holds them
 * exactly, rounded to nearest and saturated on the way out as the
 * engines' integer kernels round. */
#ifndef __GST_CLR_EDGE_H__
#define __GST_CLR_EDGE_H__

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include "core/clr-format.h"

G_BEGIN_DECLS

typedef struct
{
  GstAudioInfo info;            /* the negotiated format */
  GstAudioInfo work;            /* the engine's: same rate, channels, layout */
  gboolean identity;            /* work is info: buffers map straight */

  /* while a converted buffer is mapped: the buffer itself, and the
   * engine's samples in scratch */
  GstAudioBuffer mapped;
  gboolean is_mapped, writing;
  gpointer *planes;             /* into scratch, one a plane */
  guint8 *scratch;
  gsize scratch_size;
  gpointer tmp;                 /* unpacked samples (S32 or F64), a chunk */
} GstClrEdge;

/* The native format that carries `format` (itself when native). */
GstAudioFormat gst_clr_edge_work_format (GstAudioFormat format);
/* ... as the core names it. */
ClrFormat gst_clr_edge_clr_format (GstAudioFormat format);

/* Sets the edge up for `info` (frees what it held). */
void gst_clr_edge_set (GstClrEdge * edge, const GstAudioInfo * info);
void gst_clr_edge_clear (GstClrEdge * edge);

/* gst_audio_buffer_map () of `buf` whose result `work` holds the samples
 * in the work format: for reading converted at once, for writing
 * converted into `buf` at gst_clr_edge_unmap (). One buffer at a time. */
gboolean gst_clr_edge_map (GstClrEdge * edge, GstAudioBuffer * work,
    GstBuffer * buf, GstMapFlags flags);
void gst_clr_edge_unmap (GstClrEdge * edge, GstAudioBuffer * work);

/* Caps: every format audioresample takes, as a format list string. */
#define GST_CLR_EDGE_FORMATS GST_AUDIO_FORMATS_ALL

G_END_DECLS
#endif
