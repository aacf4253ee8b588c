/* clresample: the streaming side of the convolution elements. See
 * gstclrfirstream.h.
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
#include "gstclrfirstream.h"
#include "gstclrcommon.h"

GST_DEBUG_CATEGORY_STATIC (clr_fir_stream_debug);
#define GST_CAT_DEFAULT clr_fir_stream_debug

static void
debug_init (void)
{
  static gsize once;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (clr_fir_stream_debug, "clfirstream", 0,
        "clfirfilter's and clcrossover's streams");
    g_once_init_leave (&once, 1);
  }
}

/* (De)interleaving walks the work planes frame by frame: off 4 KiB
 * multiples, as the conv's fifo */
#define PLANE_PITCH (GST_CLR_FIR_CHUNK + CLR_CONV_PLANE_PAD)
#define PLANE(s, base, c) \
  ((base) + (gsize) (c) * PLANE_PITCH * (s)->ssize)

ClrConvFormat
gst_clr_fir_stream_format (ClrDevice * dev, GstAudioFormat fmt)
{
  fmt = gst_clr_edge_work_format (fmt);
  return fmt == GST_AUDIO_FORMAT_F64 || (fmt == GST_AUDIO_FORMAT_S32
      && clr_device_has_fp64 (dev)) ? CLR_CONV_F64 : CLR_CONV_F32;
}

guint
gst_clr_fir_stream_choose_block (GstElement * element, ClrDevice * dev,
    guint block_size, gsize n_taps)
{
  guint b = CLR_CONV_BLOCK_MIN, max = clr_conv_max_block (dev);

  if (block_size > 0) {
    /* a block the filter cannot be cut in (not a power of two, a filter
     * too long for one transform with it, or out of range): the nearest
     * that serves, with a word in the debug log, rather than a refusal */
    b = clr_conv_workable_block (block_size, n_taps, max);
    debug_init ();
    if (b != block_size)
      GST_WARNING_OBJECT (element, "block-size %u does "
          "not serve %" G_GSIZE_FORMAT " taps on this device (a power of two "
          "from %u to %u, or a multiple of %u whose block + taps - 1 is at "
          "most %u): blocks of %u frames instead", block_size, n_taps,
          CLR_CONV_BLOCK_MIN, max, CLR_CONV_BLOCK_MIN, 2 * max, b);
    return b;
  }
  while (b < max && b < n_taps)
    b <<= 1;
  return b;
}

/* ---- samples ---------------------------------------------------------- */

/* Where channel c's frame `off` lies in a mapped buffer, and how many
 * samples apart its frames are. */
static guint8 *
sample_ptr (const GstAudioBuffer * ab, guint c, gsize off, gsize * stride)
{
  const GstAudioInfo *info = &ab->info;
  /* not GST_AUDIO_INFO_BPS: that is the depth, 3 bytes for S24_32 */
  gsize bps = GST_AUDIO_INFO_WIDTH (info) / 8;
  guint ch = GST_AUDIO_INFO_CHANNELS (info);

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    *stride = ch;
    return (guint8 *) ab->planes[0] + (off * ch + c) * bps;
  }
  *stride = 1;
  return (guint8 *) ab->planes[c] + off * bps;
}

static inline double
engine_get (const GstClrFirStream * s, const guint8 * plane, gsize i)
{
  return s->cfmt == CLR_CONV_F64 ? ((const double *) plane)[i] :
      ((const float *) plane)[i];
}

static inline void
engine_set (const GstClrFirStream * s, guint8 * plane, gsize i, double v)
{
  if (s->cfmt == CLR_CONV_F64)
    ((double *) plane)[i] = v;
  else
    ((float *) plane)[i] = (float) v;
}

/* Frames off..off + n of the stream's buffer into the planar work input */
/* The stream's samples are the engine's own type: no conversion. */
static inline gboolean
is_float_as_engine (const GstClrFirStream * s, GstAudioFormat fmt)
{
  return (s->cfmt == CLR_CONV_F32 && fmt == GST_AUDIO_FORMAT_F32)
      || (s->cfmt == CLR_CONV_F64 && fmt == GST_AUDIO_FORMAT_F64);
}

/* Frames off .. off + n of a buffer into the engine's samples: channel
 * c's frame i at base + c * pitch + i * step samples (planes: step 1;
 * interleaved like the buffer: pitch 1, step = the channels). */
static void
convert_in (GstClrFirStream * s, const GstAudioBuffer * ab, gsize off,
    gsize n, guint8 * base, gsize pitch, gsize step)
{
  GstAudioFormat fmt = GST_AUDIO_INFO_FORMAT (&ab->info);
  guint c, ch = GST_AUDIO_INFO_CHANNELS (&s->in_info);
  gsize i, stride;

  if (GST_AUDIO_INFO_LAYOUT (&ab->info) == GST_AUDIO_LAYOUT_INTERLEAVED
      && is_float_as_engine (s, fmt) && (ch == 1 || step == ch)) {
    /* the same samples in the same order */
    memcpy (base, sample_ptr (ab, 0, off, &stride), n * ch * s->ssize);
    return;
  }
  /* interleaved floats into planes frame by frame: a channel at a time
   * would walk the buffer ch times, a cache line a sample (64 channels:
   * 3/4 of a block's time on an H100's host) */
  if (GST_AUDIO_INFO_LAYOUT (&ab->info) == GST_AUDIO_LAYOUT_INTERLEAVED
      && is_float_as_engine (s, fmt) && step == 1) {
    const guint8 *src = sample_ptr (ab, 0, off, &stride);
    guint8 *planes[CLR_CONV_CHANNELS_MAX];

    for (c = 0; c < ch; c++)
      planes[c] = base + c * pitch * s->ssize;
    if (s->cfmt == CLR_CONV_F32)
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((float *) planes[c])[i] = ((const float *) src)[i * ch + c];
    else
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((double *) planes[c])[i] = ((const double *) src)[i * ch + c];
    return;
  }
  for (c = 0; c < ch; c++) {
    const guint8 *src = sample_ptr (ab, c, off, &stride);
    guint8 *dst = base + c * pitch * s->ssize;

    if (is_float_as_engine (s, fmt) && stride == 1 && step == 1)
      memcpy (dst, src, n * s->ssize);
    else
      s->sample_in (src, stride, dst, step, n);
  }
}

/* Frames from .. from + n of the engine's samples (laid out as for
 * convert_in ()) into a buffer at frame off */
static void
convert_out (GstClrFirStream * s, GstAudioBuffer * ab, gsize off,
    const guint8 * base, gsize pitch, gsize step, gsize from, gsize n)
{
  GstAudioFormat fmt = GST_AUDIO_INFO_FORMAT (&ab->info);
  guint c, ch = GST_AUDIO_INFO_CHANNELS (&s->out_info);
  gsize i, stride;

  if (GST_AUDIO_INFO_LAYOUT (&ab->info) == GST_AUDIO_LAYOUT_INTERLEAVED
      && is_float_as_engine (s, fmt) && (ch == 1 || step == ch)) {
    memcpy (sample_ptr (ab, 0, off, &stride), base + from * ch * s->ssize,
        n * ch * s->ssize);
    return;
  }
  /* frame by frame, as convert_in () */
  if (GST_AUDIO_INFO_LAYOUT (&ab->info) == GST_AUDIO_LAYOUT_INTERLEAVED
      && is_float_as_engine (s, fmt) && step == 1) {
    guint8 *dst = sample_ptr (ab, 0, off, &stride);
    const guint8 *planes[CLR_CONV_OUTPUTS_MAX];

    for (c = 0; c < ch; c++)
      planes[c] = base + c * pitch * s->ssize;
    if (s->cfmt == CLR_CONV_F32)
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((float *) dst)[i * ch + c] = ((const float *) planes[c])[from + i];
    else
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((double *) dst)[i * ch + c] =
              ((const double *) planes[c])[from + i];
    return;
  }
  for (c = 0; c < ch; c++) {
    guint8 *dst = sample_ptr (ab, c, off, &stride);
    const guint8 *src = base + c * pitch * s->ssize;

    if (is_float_as_engine (s, fmt) && stride == 1 && step == 1)
      memcpy (dst, src + from * s->ssize, n * s->ssize);
    else
      s->sample_out (src + from * step * s->ssize, step, dst, stride, n);
  }
}

/* ---- priming a new filter --------------------------------------------- */

/* Plane pointers into a work buffer: n of them (g_free the array). */
static void **
work_planes (GstClrFirStream * s, guint8 * base, guint n)
{
  void **p = g_new (void *, MAX (n, 1));
  guint c;

  for (c = 0; c < n; c++)
    p[c] = PLANE (s, base, c);
  return p;
}

/* Input frames before now that a new filter can be primed with: the
 * running convolution's history, then the silence fed past it while it
 * was left stale (a GAP). */
static guint64
prime_available (GstClrFirStream * s)
{
  return clr_conv_get_history_len (s->conv) +
      (s->conv_stale ? s->skipped : 0);
}

/* Runs the last `frames` of those frames through conv, output discarded
 * (but for what mix keeps of it, when mixing): conv then continues the
 * stream where it is. */
static gboolean
prime (GstClrFirStream * s, ClrConv * conv, ClrXoMix * mix, gsize frames,
    GError ** err)
{
  const guint ch = GST_AUDIO_INFO_CHANNELS (&s->in_info);
  const gsize silence = s->conv_stale ? MIN (frames, s->skipped) : 0;
  void **in = work_planes (s, s->work_in, ch);
  void **out = work_planes (s, s->work_out, clr_conv_get_outputs (conv));
  gsize done = 0, n;
  gboolean ok = TRUE;

  if (mix)
    ok = clr_xo_mix_reset (mix, (gint64) (s->in_total - frames), err);
  /* the history's part of them, then the silence after it */
  while (ok && done < frames) {
    n = MIN (GST_CLR_FIR_CHUNK, (done < frames - silence ? frames - silence :
            frames) - done);
    if (done < frames - silence)
      ok = clr_conv_read_history (s->conv, frames - silence - done, n, in,
          err) && clr_conv_process (conv, (const void *const *) in, n, out,
          err);
    else
      ok = clr_conv_process (conv, NULL, n, out, err);
    /* the mix's past outputs, for its delays */
    ok = ok && (!mix || clr_xo_mix_run (mix, &s->mix_x, s->work_out,
            PLANE_PITCH, 1, n, n, NULL, 0, err));
    done += n;
  }
  g_free (in);
  g_free (out);
  return ok;
}

/* ---- set-up ----------------------------------------------------------- */

/* What latency queries on other threads read (gstclrfirbase.c). */
static void
publish_latency (GstClrFirStream * s)
{
  if (s->owner)
    gst_clr_latency_publish (s->owner, &s->latency, s->conv ? s->delay : 0,
        s->conv ? GST_AUDIO_INFO_RATE (&s->in_info) : 0);
}

void
gst_clr_fir_stream_setup (GstClrFirStream * s, ClrConv * conv, gsize n_taps)
{
  const gsize plane = (gsize) PLANE_PITCH * (s->cfmt == CLR_CONV_F64 ?
      sizeof (double) : sizeof (float));

  gst_clr_fir_stream_clear (s);
  s->run.pending_flow = GST_FLOW_OK;
  gst_clr_edge_set (&s->in_edge, &s->in_info);
  gst_clr_edge_set (&s->out_edge, &s->out_info);
  s->sample_in = clr_format_sample_in (gst_clr_edge_clr_format
      (GST_AUDIO_INFO_FORMAT (&s->in_info)), s->cfmt == CLR_CONV_F64);
  s->sample_out = clr_format_sample_out (gst_clr_edge_clr_format
      (GST_AUDIO_INFO_FORMAT (&s->out_info)), s->cfmt == CLR_CONV_F64);
  s->ssize = s->cfmt == CLR_CONV_F64 ? sizeof (double) : sizeof (float);
  s->conv = conv;
  s->n_taps = n_taps;
  publish_latency (s);
  s->work_in = g_malloc0 (GST_AUDIO_INFO_CHANNELS (&s->in_info) * plane);
  s->work_out = g_malloc0 (GST_AUDIO_INFO_CHANNELS (&s->out_info) * plane);
  s->work_old = g_malloc0 (GST_AUDIO_INFO_CHANNELS (&s->out_info) * plane);
}

void
gst_clr_fir_stream_clear (GstClrFirStream * s)
{
  g_clear_pointer (&s->conv, clr_conv_free);
  g_clear_pointer (&s->old_conv, clr_conv_free);
  g_clear_pointer (&s->work_in, g_free);
  g_clear_pointer (&s->work_out, g_free);
  g_clear_pointer (&s->work_old, g_free);
  g_clear_pointer (&s->mix, clr_xo_mix_free);
  g_clear_pointer (&s->old_mix, clr_xo_mix_free);
  clr_history_clear (&s->mix_x);
  g_clear_pointer (&s->work_mix, g_free);
  gst_clr_edge_clear (&s->in_edge);
  gst_clr_edge_clear (&s->out_edge);
  publish_latency (s);
}

/* The mix's input: silence before the run */
static void
mix_x_reset (GstClrFirStream * s)
{
  clr_history_reset (&s->mix_x, -(gint64) s->mix_keep);
  /* set_mix () made the room: nothing to allocate */
  if (clr_history_make_room (&s->mix_x, 0, s->mix_keep, NULL))
    clr_history_append (&s->mix_x, NULL, TRUE, s->mix_keep);
}

gboolean
gst_clr_fir_stream_set_mix (GstClrFirStream * s, ClrXoMix * mix,
    gsize reach_max, GError ** err)
{
  s->mix = mix;
  s->mix_keep = reach_max + GST_CLR_FIR_CHUNK;
  clr_history_init (&s->mix_x, GST_AUDIO_INFO_CHANNELS (&s->in_info),
      s->ssize);
  s->work_mix = g_malloc0 (GST_AUDIO_INFO_CHANNELS (&s->out_info) *
      (gsize) PLANE_PITCH * s->ssize);
  if (!clr_history_make_room (&s->mix_x, 0, s->mix_keep + GST_CLR_FIR_CHUNK,
          err))
    return FALSE;
  mix_x_reset (s);
  return clr_xo_mix_reset (mix, 0, err);
}

void
gst_clr_fir_stream_reset (GstClrFirStream * s, guint64 compensated)
{
  if (s->conv)
    clr_conv_reset (s->conv);
  g_clear_pointer (&s->old_conv, clr_conv_free);
  g_clear_pointer (&s->old_mix, clr_xo_mix_free);
  if (s->mix) {
    mix_x_reset (s);
    /* its room was made at the first: this allocates nothing */
    clr_xo_mix_reset (s->mix, 0, NULL);
  }
  gst_clr_run_reset (&s->run);
  s->in_total = s->out_total = 0;
  /* before the stream: silence */
  s->silent_run = G_MAXUINT64 / 4;
  s->conv_stale = FALSE;
  s->delay = s->block + compensated;
  /* the frames the delay drops need no transforms, but for those a band
   * delay of the mix reads back */
  if (s->conv)
    clr_conv_discard (s->conv, s->delay - MIN (s->delay, s->mix ?
            clr_xo_mix_get_max_delay (s->mix) : 0));
  publish_latency (s);
}

/* ---- processing ------------------------------------------------------- */

/* Output frame k is frame k + D of what the engine gives (k + the
 * compensated delay of the convolution). */
guint64
gst_clr_fir_stream_emitted_for (GstClrFirStream * s, guint64 n)
{
  guint64 end = s->in_total + n;

  return (end > s->delay ? end - s->delay : 0) - s->out_total;
}

/* The crossfade over the emitted frames: (1 - w) old + w new, w = i / F
 * over its F frames; the old engine goes at its end. */
static void
crossfade (GstClrFirStream * s, void **newp, void **oldp, gsize skip,
    gsize emit)
{
  guint c, ch = GST_AUDIO_INFO_CHANNELS (&s->out_info);
  gsize i;

  for (i = 0; i < emit; i++) {
    guint64 f = s->fade_pos + i;
    double w = f < s->fade_len ? (double) f / s->fade_len : 1.0;

    for (c = 0; c < ch; c++) {
      double a = engine_get (s, oldp[c], skip + i);
      double b = engine_get (s, newp[c], skip + i);
      engine_set (s, newp[c], skip + i, a + w * (b - a));
    }
  }
  s->fade_pos += emit;
  if (s->fade_pos >= s->fade_len) {
    g_clear_pointer (&s->old_conv, clr_conv_free);
    g_clear_pointer (&s->old_mix, clr_xo_mix_free);
  }
}

/* A step's buffers, for the conv's source and sink callbacks */
typedef struct
{
  GstClrFirStream *s;
  const GstAudioBuffer *in;
  gsize in_off;
  GstAudioBuffer *out;
  gsize out_off;
  gsize skip;                   /* output frames still to drop */
  GError **err;
  gboolean failed;              /* *err set */
} StepIO;

/* n frames of the input into the mix's (NULL: silence), laid out as the
 * conv's (see convert_in ()) */
static gboolean
mix_x_push (GstClrFirStream * s, const guint8 * base, gsize pitch,
    gsize step, gsize n, GError ** err)
{
  return clr_history_push_laid_out (&s->mix_x, s->mix_keep, base, pitch,
      step, n, err);
}

static void
step_source (gpointer user, void *base, size_t pitch, size_t step,
    size_t from, size_t n)
{
  StepIO *io = user;

  convert_in (io->s, io->in, io->in_off + from, n, base, pitch, step);
  if (io->s->mix && !io->failed && !mix_x_push (io->s, base, pitch, step, n,
          io->err))
    io->failed = TRUE;
}

/* The bands of the conv's n frames (the first `drop` only taken in) into
 * the buffer at frame io->out_off: straight into it when it holds the
 * engine's samples, else through the work planes */
static void
step_mix (StepIO * io, const void *base, size_t pitch, size_t step,
    size_t n, size_t drop)
{
  GstClrFirStream *s = io->s;
  const guint ch = GST_AUDIO_INFO_CHANNELS (&s->out_info);
  /* no output buffer while priming (n == drop) */
  const gboolean direct = n > drop &&
      is_float_as_engine (s, GST_AUDIO_INFO_FORMAT (&io->out->info));
  void *planes[CLR_CONV_OUTPUTS_MAX];
  gsize out_step = 1, stride;
  guint c;

  for (c = 0; n > drop && c < ch; c++) {
    if (!direct)
      planes[c] = PLANE (s, s->work_mix, c);
    else if (GST_AUDIO_INFO_LAYOUT (&s->out_info) ==
        GST_AUDIO_LAYOUT_INTERLEAVED)
      planes[c] = sample_ptr (io->out, 0, io->out_off, &out_step) +
          c * s->ssize;
    else
      planes[c] = sample_ptr (io->out, c, io->out_off, &stride);
  }
  if (io->failed || !clr_xo_mix_run (s->mix, &s->mix_x, base, pitch, step,
          n, drop, n > drop ? planes : NULL, out_step, io->err)) {
    io->failed = TRUE;
    return;
  }
  if (n > drop && !direct)
    convert_out (s, io->out, io->out_off, s->work_mix, PLANE_PITCH, 1, 0,
        n - drop);
}

static void
step_sink (gpointer user, const void *base, size_t pitch, size_t step,
    size_t n)
{
  StepIO *io = user;
  gsize drop = MIN (n, io->skip);

  io->skip -= drop;
  g_assert (n == drop || io->out != NULL);
  if (io->s->mix)
    step_mix (io, base, pitch, step, n, drop);
  else if (n > drop)
    convert_out (io->s, io->out, io->out_off, base, pitch, step, drop,
        n - drop);
  io->out_off += n - drop;
}

/* One step of at most GST_CLR_FIR_CHUNK frames: in (NULL: silence) from
 * frame in_off through the filter, the output frames it completes into out
 * from frame *out_off (out NULL: none may come). Without a crossfade the
 * samples go straight between the buffers and the conv's own planes;
 * during one, through the work planes, where the two outputs meet. */
static gboolean
process_chunk (GstClrFirStream * s, const GstAudioBuffer * in, gsize in_off,
    gsize n, GstAudioBuffer * out, gsize * out_off, GError ** err)
{
  const guint n_out = GST_AUDIO_INFO_CHANNELS (&s->out_info);
  const gsize skip = s->in_total < s->delay ?
      MIN (n, s->delay - s->in_total) : 0, emit = n - skip;
  StepIO io = { s, in, in_off, out, *out_off, skip, err, FALSE };
  void **inp, **outp, **oldp, **mixp;
  gboolean ok = FALSE;

  /* silence into the mix's input here: no source sees it */
  if (s->mix && !in && !mix_x_push (s, NULL, 0, 1, n, err))
    return FALSE;
  if (!s->old_conv) {
    GError *conv_err = NULL;

    /* the callbacks' own errors (the mix's memory) come first */
    if (!clr_conv_process_with (s->conv, in ? step_source : NULL, &io, n,
            step_sink, &io, &conv_err) || io.failed) {
      if (io.failed)
        g_clear_error (&conv_err);
      else
        g_propagate_error (err, conv_err);
      return FALSE;
    }
    g_assert (io.out_off == *out_off + emit);
    goto counted;
  }
  inp = work_planes (s, s->work_in, GST_AUDIO_INFO_CHANNELS (&s->in_info));
  outp = work_planes (s, s->work_out, n_out);
  oldp = work_planes (s, s->work_old, n_out);
  mixp = work_planes (s, s->work_mix, s->mix ? n_out : 0);
  if (in)
    convert_in (s, in, in_off, n, s->work_in, PLANE_PITCH, 1);
  if (in && s->mix && !mix_x_push (s, s->work_in, PLANE_PITCH, 1, n, err))
    goto done;
  if (!clr_conv_process (s->conv, in ? (const void *const *) inp : NULL,
          n, outp, err)
      || !clr_conv_process (s->old_conv, in ? (const void *const *) inp :
          NULL, n, oldp, err))
    goto done;
  if (s->mix) {
    /* the new bands into the mix planes, the old ones over the conv's
     * output, which the new mix has read */
    if (!clr_xo_mix_run (s->mix, &s->mix_x, s->work_out, PLANE_PITCH, 1, n,
            skip, emit > 0 ? mixp : NULL, 1, err)
        || !clr_xo_mix_run (s->old_mix, &s->mix_x, s->work_old, PLANE_PITCH,
            1, n, skip, emit > 0 ? outp : NULL, 1, err))
      goto done;
    if (emit > 0) {
      crossfade (s, mixp, outp, 0, emit);
      convert_out (s, out, *out_off, s->work_mix, PLANE_PITCH, 1, 0, emit);
    }
  } else if (emit > 0) {
    crossfade (s, outp, oldp, skip, emit);
    g_assert (out != NULL);
    convert_out (s, out, *out_off, s->work_out, PLANE_PITCH, 1, skip, emit);
  }
  ok = TRUE;
done:
  g_free (inp);
  g_free (outp);
  g_free (oldp);
  g_free (mixp);
  if (!ok)
    return FALSE;
counted:
  *out_off += emit;
  s->in_total += n;
  s->out_total += emit;
  return TRUE;
}

/* n frames of in (NULL: silence, GAP) through the filter, the output frames
 * they complete (emitted_for (n)) into out. *silent: the output is silence
 * by construction and no device work was done. */
static gboolean
feed (GstClrFirStream * s, const GstAudioBuffer * in, gsize n,
    GstAudioBuffer * out, gboolean * silent, GError ** err)
{
  gsize done = 0, out_off = 0, emit = gst_clr_fir_stream_emitted_for (s, n);
  guint c;

  *silent = FALSE;
  /* Silence after at least B + taps - 1 silent frames gives silence (the
   * state holds nothing else): a GAP costs no device work, and the
   * convolution is reset before the next audio. */
  if (!in && !s->old_conv && s->silent_run >= (guint64) s->block +
      s->n_taps - 1) {
    for (c = 0; emit > 0 && c < (guint) GST_AUDIO_BUFFER_N_PLANES (out); c++)
      memset (out->planes[c], 0, emit * (GST_AUDIO_INFO_LAYOUT (&out->info)
              == GST_AUDIO_LAYOUT_INTERLEAVED ? GST_AUDIO_INFO_BPF
              (&out->info) : GST_AUDIO_INFO_WIDTH (&out->info) / 8));
    if (s->mix && !mix_x_push (s, NULL, 0, 1, n, err))
      return FALSE;
    s->in_total += n;
    s->out_total += emit;
    s->silent_run += n;
    s->skipped = s->conv_stale ? s->skipped + n : n;
    s->conv_stale = TRUE;
    *silent = TRUE;
    return TRUE;
  }
  if (s->conv_stale) {
    clr_conv_reset (s->conv);
    /* the silence took the mix's past outputs to zero too (n_taps counts
     * its delays) */
    if (s->mix && !clr_xo_mix_reset (s->mix, (gint64) s->in_total, err))
      return FALSE;
    s->conv_stale = FALSE;
  }
  while (done < n) {
    gsize len = MIN (GST_CLR_FIR_CHUNK, n - done);
    if (!process_chunk (s, in, done, len, out, &out_off, err))
      return FALSE;
    done += len;
  }
  g_assert (out_off == emit);
  s->silent_run = in ? 0 : s->silent_run + n;
  return TRUE;
}

gboolean
gst_clr_fir_stream_swap (GstClrFirStream * s, ClrConv * conv, ClrXoMix * mix,
    gsize n_taps, GError ** err)
{
  /* the new filter's output from here on needs taps - 1 + B frames of the
   * input before; what came before the stream counts as silence, and so
   * does what the history no longer holds */
  gsize frames = MIN (prime_available (s), (guint64) n_taps - 1 + s->block);

  g_assert (!s->mix == !mix);
  if (!prime (s, conv, mix, frames, err)) {
    clr_conv_free (conv);
    clr_xo_mix_free (mix);
    return FALSE;
  }
  if (s->run.started && !s->conv_stale && s->in_total > 0) {
    s->old_conv = s->conv;
    s->old_mix = s->mix;
    s->fade_pos = 0;
    s->fade_len = s->block;
  } else {
    clr_conv_free (s->conv);
    clr_xo_mix_free (s->mix);
  }
  s->conv = conv;
  s->mix = mix;
  s->n_taps = n_taps;
  s->conv_stale = FALSE;
  return TRUE;
}

/* ---- buffers ------------------------------------------------------------ */

static void
post_failed (GstBaseTransform * trans, GstClrFirStream * s, GError * err)
{
  /* A device that no longer answers is lost: the error names it and the
   * call that fails on it, and "auto" no longer picks it. These elements
   * cannot change device while playing, so their streams stop there. */
  if (clr_device_lose (s->device, &err))
    GST_ELEMENT_ERROR (trans, RESOURCE, FAILED, ("%s", err->message), (NULL));
  else
    GST_ELEMENT_ERROR (trans, RESOURCE, FAILED,
        ("OpenCL filtering failed on '%s'", clr_device_get_name (s->device)),
        ("%s", err->message));
  g_error_free (err);
}

/* `frames` frames of silence through the filter into *outbuf (NULL where
 * they complete no output frame), stamped, GAP where silent by
 * construction. Posts errors on the element. */
static GstFlowReturn
feed_silence (GstBaseTransform * trans, GstClrFirStream * s, gsize frames,
    GstBuffer ** outbuf)
{
  GError *err = NULL;
  GstBuffer *buf;
  GstAudioBuffer abuf;
  guint64 first = s->out_total, n = gst_clr_fir_stream_emitted_for (s,
      frames);
  gboolean silent, ok;

  *outbuf = NULL;
  buf = n > 0 ? gst_clr_alloc_output (trans, &s->out_info, n) : NULL;
  if (buf && !gst_clr_edge_map (&s->out_edge, &abuf, buf, GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    return gst_clr_map_failed (GST_ELEMENT (trans));
  }
  ok = feed (s, NULL, frames, buf ? &abuf : NULL, &silent, &err);
  if (buf)
    gst_clr_edge_unmap (&s->out_edge, &abuf);
  if (!ok) {
    gst_clear_buffer (&buf);
    post_failed (trans, s, err);
    return GST_FLOW_ERROR;
  }
  if (!buf)
    return GST_FLOW_OK;
  g_assert (s->out_total == first + n);
  gst_clr_run_stamp (&s->run, buf, GST_AUDIO_INFO_RATE (&s->in_info), first,
      n);
  if (silent)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  *outbuf = buf;
  return GST_FLOW_OK;
}

GstFlowReturn
gst_clr_fir_stream_drain (GstBaseTransform * trans, GstClrFirStream * s,
    GstBuffer ** outbuf)
{
  GstFlowReturn ret;

  *outbuf = NULL;
  if (!s->conv || !s->run.started || s->in_total == s->out_total)
    return GST_FLOW_OK;
  /* D more frames of silence complete the last D output frames */
  ret = feed_silence (trans, s, s->delay, outbuf);
  if (*outbuf)
    GST_LOG_OBJECT (trans, "draining %" G_GSIZE_FORMAT " frames at %"
        GST_TIME_FORMAT, gst_buffer_get_size (*outbuf) /
        GST_AUDIO_INFO_BPF (&s->out_info), GST_TIME_ARGS (GST_BUFFER_PTS
            (*outbuf)));
  return ret;
}

gboolean
gst_clr_fir_stream_transform_size (GstClrFirStream * s,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize)
{
  GstAudioInfo info, other;

  /* every buffer's output: the stream's caps as parsed at set_caps
   * (parsed again, they take GLib's quark lock, which hundreds of
   * streams' threads queue on) */
  if (direction == GST_PAD_SINK && s->conv) {
    *othersize = gst_clr_fir_stream_emitted_for (s,
        size / GST_AUDIO_INFO_BPF (&s->in_info)) *
        GST_AUDIO_INFO_BPF (&s->out_info);
    return TRUE;
  }
  /* an estimate for allocation queries */
  if (!gst_audio_info_from_caps (&info, caps)
      || !gst_audio_info_from_caps (&other, othercaps))
    return FALSE;
  *othersize = size / GST_AUDIO_INFO_BPF (&info) *
      GST_AUDIO_INFO_BPF (&other);
  return TRUE;
}

/* A GAP after audio: its first `frames` frames of silence through the
 * filter, whose output is the filter's tail (real samples), pushed as a
 * buffer of its own, so that the rest of the GAP comes out as a GAP
 * buffer. */
static GstFlowReturn
push_tail (GstBaseTransform * trans, GstClrFirStream * s, gsize frames)
{
  GstBuffer *buf;
  GstFlowReturn ret = feed_silence (trans, s, frames, &buf);

  if (buf)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), buf);
  return ret;
}

GstFlowReturn
gst_clr_fir_stream_transform (GstBaseTransform * trans, GstClrFirStream * s,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstElement *element = GST_ELEMENT (trans);
  GstAudioBuffer in_ab, out_ab;
  GError *err = NULL;
  gsize frames, expected, bpf = GST_AUDIO_INFO_BPF (&s->out_info);
  guint64 first;
  gboolean gap, silent, ok;

  if (G_UNLIKELY (!s->conv))
    return gst_clr_not_negotiated (element);
  if (G_UNLIKELY (s->run.pending_flow != GST_FLOW_OK))
    return gst_clr_run_take_flow (&s->run);
  gst_clr_run_begin (&s->run, inbuf, GST_AUDIO_INFO_RATE (&s->in_info));
  if (!gst_clr_edge_map (&s->in_edge, &in_ab, inbuf, GST_MAP_READ))
    return gst_clr_map_failed (element);
  frames = in_ab.n_samples;
  gap = GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP);
  if (gap && !s->old_conv && s->silent_run < (guint64) s->block +
      s->n_taps - 1) {
    /* silence from B + taps - 1 frames on (feed ()): the tail before it
     * as audio, the rest of the GAP as GAP */
    guint64 need = s->block + s->n_taps - 1 - s->silent_run;

    if (need < frames) {
      GstFlowReturn ret = push_tail (trans, s, need);

      if (ret != GST_FLOW_OK) {
        gst_clr_edge_unmap (&s->in_edge, &in_ab);
        return ret;
      }
      frames -= need;
    }
  }
  expected = gst_clr_fir_stream_emitted_for (s, frames);
  if (G_UNLIKELY (gst_buffer_get_size (outbuf) < expected * bpf)) {
    gst_clr_edge_unmap (&s->in_edge, &in_ab);
    GST_ELEMENT_ERROR (element, CORE, FAILED, (NULL),
        ("output buffer of %" G_GSIZE_FORMAT " bytes, need %" G_GSIZE_FORMAT,
            gst_buffer_get_size (outbuf), expected * bpf));
    return GST_FLOW_ERROR;
  }
  gst_clr_resize_output (outbuf, &s->out_info, expected);
  if (expected > 0 && !gst_clr_edge_map (&s->out_edge, &out_ab, outbuf,
          GST_MAP_WRITE)) {
    gst_clr_edge_unmap (&s->in_edge, &in_ab);
    return gst_clr_map_failed (element);
  }
  first = s->out_total;
  ok = feed (s, gap ? NULL : &in_ab, frames, expected > 0 ? &out_ab : NULL,
      &silent, &err);
  if (expected > 0)
    gst_clr_edge_unmap (&s->out_edge, &out_ab);
  gst_clr_edge_unmap (&s->in_edge, &in_ab);
  if (!ok) {
    post_failed (trans, s, err);
    return GST_FLOW_ERROR;
  }
  if (expected == 0)
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  gst_clr_run_stamp (&s->run, outbuf, GST_AUDIO_INFO_RATE (&s->in_info),
      first, expected);
  if (silent)
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_GAP);
  else
    GST_BUFFER_FLAG_UNSET (outbuf, GST_BUFFER_FLAG_GAP);
  return GST_FLOW_OK;
}
