/* clresample: the streaming side of the elements built on the convolution
 * engine (clfirfilter, clcrossover): host format conversion, the engine's
 * latency hidden (output frame t is frame t + D of the engine's, D = B +
 * the compensated delay; N input frames give N output frames, the rest
 * drained at EOS), timestamps from counters, GAP input without device work,
 * and filter changes while playing (a second engine primed with the input
 * kept on the host, crossfaded over one block). */
#ifndef __GST_CLR_FIR_STREAM_H__
#define __GST_CLR_FIR_STREAM_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/audio/audio.h>
#include "core/conv/clr-conv.h"
#include "core/conv/clr-crossover-mix.h"
#include "gstclredge.h"
#include "gstclrcommon.h"

G_BEGIN_DECLS

/* Frames converted and convolved a step: bounds the host work buffers
 * whatever the size of the buffers or of the drain. */
#define GST_CLR_FIR_CHUNK 16384u

typedef struct
{
  /* the element, set at its init: its object lock guards the latency
   * published for queries from other threads */
  GstObject *owner;
  /* the latency the query answers: D frames at the input rate while there
   * is a filter, published whenever it changes (gstclrcommon.h) */
  GstClrLatency latency;

  /* set by the element before gst_clr_fir_stream_setup () */
  ClrDevice *device;
  GstAudioInfo in_info, out_info;       /* out: in's channels x outputs */
  ClrConvFormat cfmt;
  guint block;                  /* B */

  /* the negotiated formats to and from the host conversion's own: S16,
   * S24_32, S32, F32 or F64 (gstclredge.h); set up by setup () */
  GstClrEdge in_edge, out_edge;
  /* those formats to and from the engine's samples (clr-format.h) */
  ClrSampleIn sample_in;
  ClrSampleOut sample_out;

  /* the stream */
  gsize ssize;                  /* bytes an engine sample */
  guint64 delay;                /* D = B + compensated delay */
  gsize n_taps;                 /* the active filter's length */
  ClrConv *conv;
  ClrConv *old_conv;            /* fading out, or NULL */
  guint64 fade_pos, fade_len;   /* frames of the crossfade emitted, all */
  /* timestamps' origin, DISCONT, a failed push of drained output for the
   * next transform () to return (gstclrcommon.h) */
  GstClrRun run;
  guint64 in_total, out_total;  /* frames of this run */
  guint64 silent_run;           /* GAP frames fed since the last audio */
  gboolean conv_stale;          /* conv skipped silence: reset before use */
  guint64 skipped;              /* the silent frames it skipped */
  /* planar work buffers, GST_CLR_FIR_CHUNK frames a plane */
  guint8 *work_in, *work_out, *work_old;

  /* clcrossover: its bands from the conv's lower bands and the input
   * (clr-crossover-mix.h; gst_clr_fir_stream_set_mix ()), or NULL */
  ClrXoMix *mix, *old_mix;      /* with conv, old_conv */
  ClrHistory mix_x;             /* the input the top band is taken from */
  gsize mix_keep;               /* frames of it kept */
  guint8 *work_mix;
} GstClrFirStream;

/* The engine's sample format for a stream format: F64 runs in double, 32-bit
 * integers too where the device has doubles (they keep 8 bits more than
 * float holds); the rest in float, which holds them exactly. */
ClrConvFormat gst_clr_fir_stream_format (ClrDevice * dev, GstAudioFormat fmt);

/* B for a filter: block_size where the filter can be cut in it, else the
 * nearest block that serves (clr_conv_workable_block (), with a warning
 * in element's debug log); or with 0 the power of two at least as long as
 * the filter, from 16 up to the largest block the device takes
 * (CLR_CONV_BLOCK_MAX on CPUs; longer filters take more partitions of
 * that block). */
guint gst_clr_fir_stream_choose_block (GstElement * element, ClrDevice * dev,
    guint block_size, gsize n_taps);

/* Takes `conv` (for a filter of n_taps taps) and sets up the work buffers.
 * The input that primes a new filter is conv's history (ClrConvConfig's
 * history): the element sizes it when it builds the conv. */
void gst_clr_fir_stream_setup (GstClrFirStream * s, ClrConv * conv,
    gsize n_taps);
/* After setup: the conv's outputs are a crossover's lower bands, from
 * which `mix` makes the stream's bands, the top one from the input;
 * reach_max: the most input frames any of the stream's mixes reaches
 * back behind the next engine frame (its lag + the top band's delay).
 * Takes mix; FALSE when out of memory. */
gboolean gst_clr_fir_stream_set_mix (GstClrFirStream * s, ClrXoMix * mix,
    gsize reach_max, GError ** err);

/* Frees the engines and buffers (not the device). */
void gst_clr_fir_stream_clear (GstClrFirStream * s);
/* A new run: counters, history and engine reset; D = B + compensated. */
void gst_clr_fir_stream_reset (GstClrFirStream * s, guint64 compensated);

/* Output frames n more input frames complete. */
guint64 gst_clr_fir_stream_emitted_for (GstClrFirStream * s, guint64 n);

/* `conv` (for a filter of n_taps taps) takes over: primed with the last
 * n_taps - 1 + B frames of the running conv's history, then crossfaded
 * from the old one's output over one block (when the run has output to
 * fade from). With a mix (set_mix ()), `mix` goes with the new conv.
 * FALSE (conv and mix freed) when priming failed. */
gboolean gst_clr_fir_stream_swap (GstClrFirStream * s, ClrConv * conv,
    ClrXoMix * mix, gsize n_taps, GError ** err);

/* transform(): inbuf's frames through the filter into outbuf, stamped.
 * Posts errors on the element itself. */
GstFlowReturn gst_clr_fir_stream_transform (GstBaseTransform * trans,
    GstClrFirStream * s, GstBuffer * inbuf, GstBuffer * outbuf);

/* The frames the run still owes (N in, N out) into *outbuf (NULL: none),
 * stamped, for the caller to push after resetting the run. Posts errors
 * on the element itself. */
GstFlowReturn gst_clr_fir_stream_drain (GstBaseTransform * trans,
    GstClrFirStream * s, GstBuffer ** outbuf);

/* transform_size(): output bytes for `size` input bytes. */
gboolean gst_clr_fir_stream_transform_size (GstClrFirStream * s,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);

G_END_DECLS
#endif
