/* clresample: GStreamer element filtering audio with long FIR filters on
 * OpenCL devices.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-clfirfilter
 * @title: clfirfilter
 *
 * clfirfilter convolves audio with a FIR filter of any length (1 tap to
 * millions: room impulse responses, linear-phase equalisers, crossovers)
 * by uniformly partitioned FFT convolution running as OpenCL kernels
 * (docs/convolution.md): on a GPU when there is one, otherwise on the CPU
 * through PoCL. It is a drop-in for audiofirfilter: the same properties
 * (`kernel`, `latency`, `drain-on-changes`, `low-latency`) and the same
 * `rate-changed` signal, the same output (N input frames give N output
 * frames, output frame t is y[t + latency] of the full convolution
 * y = x * h, the last frames drained at EOS), the same timestamps.
 *
 * The filter comes from `kernel` (one filter for every channel) or from
 * `location`, an audio file of impulse responses: one channel gives the
 * same filter on every channel, as many channels as the stream one filter a
 * channel. Whichever of the two was set last is used. Both may change
 * while PLAYING: the new filter's convolution (its spectra, the longest
 * part of a change: built in line, a 480000-tap file stalled 10 ms
 * buffers for 148 ms on two CPU cores) is built off the streaming thread
 * while the old filter plays on, and takes over at the buffer after it is
 * ready, crossfaded over one block from the old one's output (no DISCONT,
 * no frame lost or repeated). A file is read and decoded off the caller's
 * thread too: setting `location` returns at once. A stream that has not
 * started yet waits for it, so that its first buffer is filtered by it (a
 * flushing seek ends that wait: the stream's caps, sent again after the
 * flush, wait again). While PLAYING, a buffer that is due (within 50 ms
 * of the clock) goes on with the filter playing until the new one is read
 * and built; where nobody waits for the output in real time (no clock
 * running: a file conversion, PAUSED; or a buffer further ahead) the
 * buffer waits for it, so that the output does not depend on how fast the
 * file was read or the filter built.
 *
 * A new SEGMENT (a loop's segment seek, say), a new stream, new caps and
 * EOS drain the frames owed first, with the old run's timestamps, as
 * audioresample drains (audiofirfilter drains only at EOS and
 * discontinuities, so a loop's tail would come after the new SEGMENT);
 * caps equal to the current ones change nothing.
 *
 * Reverse playback (a segment of negative rate): each buffer is filtered
 * on its own, forwards, its tail drained before the next buffer, as
 * audiofirfilter does (which restarts at each from its timestamp check);
 * here every buffer is a run of its own even where the step back is
 * smaller than the timestamp jitter absorbed. The filter is not reversed:
 * a reverb rings after each buffer's sound.
 *
 * ## As audiofirfilter
 *
 * An application written for audiofirfilter works unchanged:
 *
 * - `rate-changed` is emitted from the streaming thread when the stream's
 *   rate becomes known or changes, before the first buffer of that rate;
 *   the `kernel` (and `latency`) set in the handler are the ones that
 *   buffer is filtered with, with no crossfade and no added delay.
 * - `latency` compensates the filter's own delay exactly as there. A change
 *   while PLAYING ends the run as audiofirfilter does (the frames owed are
 *   pushed) and starts a new one with it, and a LATENCY message is posted.
 * - `drain-on-changes` (default TRUE): audiofirfilter then keeps its input
 *   across a kernel change and switches filters from one sample to the
 *   next; clfirfilter keeps it too and crossfades over one block, which
 *   does not click. FALSE: as audiofirfilter, the run ends at the change
 *   (the old filter's frames owed are pushed) and the new filter starts on
 *   silence.
 * - `low-latency` (default FALSE): TRUE gives blocks of 16 frames whatever
 *   `block-size` says (the least the engine takes): the delay is then the
 *   filter's own `latency` plus 16 frames, where audiofirfilter's is the
 *   `latency` alone, at a higher cost a frame, as there.
 * - the LATENCY query answers what an output frame really waits for:
 *   `latency` + B frames, B the block (`block-size`, 1024 by default).
 *   audiofirfilter answers `latency` in its time-domain mode and its FFT
 *   block less the kernel (without `latency`) in its FFT mode.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=song.wav ! wavparse ! audioconvert ! \
 *     clfirfilter location=room-correction.wav ! audioconvert ! \
 *     autoaudiosink
 * ]| Plays a WAV file through a room-correction impulse response (one
 * channel: the same filter on both; two: one a channel).
 * |[
 * gst-launch-1.0 filesrc location=in.wav ! wavparse ! audioconvert ! \
 *     audio/x-raw,format=F64LE ! clfirfilter location=hall.flac \
 *     block-size=0 ! audioconvert ! wavenc ! filesink location=wet.wav
 * ]| Convolves a file with a reverb in double precision, offline, in one
 * unpartitioned block (the fastest for throughput).
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstclfirfilter.h"
#include "gstclrwavfile.h"
#include "gstclrcommon.h"
#include "gstclrfirbase.h"
#include "gstclrbuilder.h"
#include "core/conv/clr-conv.h"

GST_DEBUG_CATEGORY_STATIC (cl_fir_filter_debug);
#define GST_CAT_DEFAULT cl_fir_filter_debug

#define DEFAULT_BLOCK_SIZE 1024u
#define DEFAULT_LATENCY 0
#define DEFAULT_DRAIN_ON_CHANGES TRUE
#define DEFAULT_LOW_LATENCY FALSE
#define CLR_FIR_LATENCY_MAX ((guint64) CLR_CONV_TAPS_MAX)
/* The input kept for a new filter is that of a filter of at least this
 * many taps: a change to a longer filter (up to this length) is exact. */
#define CLR_FIR_HISTORY_TAPS 16384u
/* how long reading a `location` file may take */
#define CLR_FIR_LOAD_TIMEOUT (120 * GST_SECOND)
/* how often a load looks whether it was cancelled */
#define CLR_FIR_LOAD_POLL (20 * GST_MSECOND)
/* A buffer waits for a load while its running time lies this far ahead of
 * the clock or further (as GstClrBuilder's GST_CLR_BUILDER_MARGIN): what
 * is left for filtering it and for the elements downstream. */
#define CLR_FIR_LOAD_MARGIN (50 * GST_MSECOND)
/* how often such a wait looks at the clock */
#define CLR_FIR_LOAD_CLOCK_POLL (5 * G_TIME_SPAN_MILLISECOND)

enum
{
  SIGNAL_RATE_CHANGED,
  LAST_SIGNAL
};

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_LATENCY,
  PROP_LOCATION,
  PROP_BLOCK_SIZE,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_DRAIN_ON_CHANGES,
  PROP_LOW_LATENCY,
};

/* every format audioresample takes: the edges convert (gstclredge.h) */
#define CLR_FIR_CAPS \
  "audio/x-raw, format = (string) " GST_CLR_EDGE_FORMATS ", " \
  "rate = (int) [ 1, MAX ], " \
  "channels = (int) [ 1, 256 ], " \
  "layout = (string) { interleaved, non-interleaved }"

/* A filter set: n_filters filters of n_taps taps (immutable, shared by the
 * properties and the streaming thread), or why there is none. */
typedef struct
{
  double **taps;
  gsize n_taps;
  guint n_filters;
  gint rate;                    /* of the file it came from; 0: unknown */
  gchar *origin;                /* "the kernel property" or the file */
  gchar *error;                 /* why it cannot be used, or NULL */
  /* the kernel property's value as given, where it held anything but
   * doubles (get_property returns it); NULL: taps[0] is the value */
  GValueArray *va;
} FirTaps;

/* A `location` file read and decoded by a thread of its own. */
typedef struct
{
  /* not a reference: the element joins the thread before it goes */
  GstClFirFilter *self;
  gchar *location;
  guint seq;                    /* the filter request it answers */
  gint cancelled;               /* atomic: superseded, stopping */
  gboolean done;                /* under the object lock */
  GThread *thread;
} FirLoadJob;

struct _GstClFirFilter
{
  GstClrFirBase parent;

  /* properties, under the object lock */
  FirTaps *filter;              /* what kernel or location gave last */
  FirTaps *kernel;              /* the kernel property, converted */
  gchar *location;
  guint64 latency;
  guint block_size;
  gboolean drain_on_changes;
  gboolean low_latency;
  gchar *device_spec;
  gboolean filter_changed;      /* applied at the next buffer */

  /* `location` loads, under the object lock: every kernel or location set
   * is a new request (filter_seq); a load installs its filter only if no
   * request came after it */
  guint filter_seq;
  GPtrArray *loads;             /* FirLoadJobs whose thread is not joined */
  gboolean load_pending;        /* the last request is a load under way */
  gboolean reload;              /* ... cancelled by stop: again at start */
  gboolean unblock;             /* setup waits no more: going to READY */
  gboolean flushing;            /* ... nor from FLUSH_START to FLUSH_STOP */
  GCond load_cond;              /* a load ended, unblock or a flush */

  /* live filter changes: the new convolution built on a thread of its own
   * while the old filter plays on (gstclrbuilder.h) */
  GstClrBuilder builder;

  /* streaming state: the streaming thread, start/stop and setup; the
   * device (stream.device) set under the object lock */
  GstAudioInfo info;
  FirTaps *active;              /* the filter the stream runs */
  guint64 latency_in_use;
  /* what the latency query answered when the last LATENCY message went */
  guint64 posted_delay;
  gint posted_rate;
  /* the filter (a reference: its address stays its own) and format last
   * refused, NULL if none: upstream retries the same caps again and again,
   * and one error says it */
  FirTaps *refused_taps;
  GstAudioInfo refused_info;
};

#define gst_cl_fir_filter_parent_class parent_class
G_DEFINE_TYPE (GstClFirFilter, gst_cl_fir_filter, GST_TYPE_CLR_FIR_BASE);

static void reset_run (GstClrFirBase * base);
GST_ELEMENT_REGISTER_DEFINE (clfirfilter, "clfirfilter", GST_RANK_NONE,
    GST_TYPE_CL_FIR_FILTER);

static void gst_cl_fir_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_fir_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_fir_filter_finalize (GObject * object);
static gboolean gst_cl_fir_filter_start (GstBaseTransform * trans);
static gboolean gst_cl_fir_filter_stop (GstBaseTransform * trans);
static GstCaps *gst_cl_fir_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cl_fir_filter_setup (GstAudioFilter * filter,
    const GstAudioInfo * info);
static void gst_cl_fir_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstStateChangeReturn gst_cl_fir_filter_change_state (GstElement *
    element, GstStateChange transition);
static gboolean gst_cl_fir_filter_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static void gst_cl_fir_filter_reset_stream (GstClFirFilter * self);

static guint gst_cl_fir_filter_signals[LAST_SIGNAL] = { 0 };

/* ---- filter sets ------------------------------------------------------ */

static void
fir_taps_clear (gpointer data)
{
  FirTaps *t = data;
  guint f;

  for (f = 0; f < t->n_filters; f++)
    g_free (t->taps[f]);
  g_free (t->taps);
  g_free (t->origin);
  g_free (t->error);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  if (t->va)
    g_value_array_free (t->va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

static FirTaps *
fir_taps_new (guint n_filters, gsize n_taps, const gchar * origin)
{
  FirTaps *t = g_atomic_rc_box_new0 (FirTaps);
  guint f;

  t->n_filters = n_filters;
  t->n_taps = n_taps;
  t->taps = g_new0 (double *, MAX (n_filters, 1));
  for (f = 0; f < n_filters; f++)
    t->taps[f] = g_new0 (double, MAX (n_taps, 1));
  t->origin = g_strdup (origin);
  return t;
}

static FirTaps *
fir_taps_failed (const gchar * origin, gchar * error)
{
  FirTaps *t = fir_taps_new (0, 0, origin);

  t->error = error;
  return t;
}

static FirTaps *
fir_taps_ref (FirTaps * t)
{
  return t ? g_atomic_rc_box_acquire (t) : NULL;
}

static void
fir_taps_unref (FirTaps * t)
{
  if (t)
    g_atomic_rc_box_release_full (t, fir_taps_clear);
}

/* Why the taps cannot be a filter, or NULL: said before the device is
 * asked, naming where the filter came from. */
static gchar *
fir_taps_check (const FirTaps * t)
{
  gsize k;
  guint f;

  if (t->error)
    return g_strdup (t->error);
  if (t->n_taps == 0)
    return g_strdup_printf ("the filter from %s is empty: it needs at least "
        "one tap", t->origin);
  if (t->n_taps > CLR_CONV_TAPS_MAX)
    return g_strdup_printf ("the filter from %s has %" G_GSIZE_FORMAT
        " taps; at most %u", t->origin, t->n_taps, CLR_CONV_TAPS_MAX);
  for (f = 0; f < t->n_filters; f++)
    for (k = 0; k < t->n_taps; k++)
      if (!isfinite (t->taps[f][k]))
        return g_strdup_printf ("tap %" G_GSIZE_FORMAT " of %s%s is %s: "
            "taps must be finite numbers", k, t->n_filters > 1 ?
            "a channel of " : "the filter from ", t->origin,
            isnan (t->taps[f][k]) ? "NaN" : "infinite");
  return NULL;
}

/* The kernel property's value as a filter; called without the object
 * lock, as a long kernel takes a while. Doubles are read as they are:
 * a million taps through g_value_transform () took 40 ms, and a copy of
 * the array kept for get_property 24 MB an element. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
static FirTaps *
fir_taps_from_value_array (const GValueArray * va)
{
  FirTaps *t = fir_taps_new (1, va ? va->n_values : 0, "the kernel property");
  GValue d = G_VALUE_INIT;
  guint i;

  /* an empty array comes back empty, NULL as NULL */
  if (va && va->n_values == 0)
    t->va = g_value_array_copy (va);
  g_value_init (&d, G_TYPE_DOUBLE);
  for (i = 0; va && i < va->n_values; i++) {
    const GValue *v = va->values + i;

    if (G_VALUE_HOLDS_DOUBLE (v)) {
      t->taps[0][i] = g_value_get_double (v);
      continue;
    }
    /* ints, floats: get_property gives them back as they were set */
    if (!t->va)
      t->va = g_value_array_copy (va);
    if (!g_value_transform (v, &d)) {
      t->error = g_strdup_printf ("tap %u of the kernel property is a %s, "
          "not a number", i, G_VALUE_TYPE_NAME (v));
      break;
    }
    t->taps[0][i] = g_value_get_double (&d);
  }
  g_value_unset (&d);
  return t;
}

/* The kernel property's value back: as set where it was kept, else the
 * taps as doubles (none: it was set to NULL). */
static GValueArray *
fir_taps_to_value_array (const FirTaps * t)
{
  GValueArray *va;
  GValue v = G_VALUE_INIT;
  gsize i;

  if (t->va)
    return g_value_array_copy (t->va);
  if (t->n_taps == 0)
    return NULL;
  va = g_value_array_new (t->n_taps);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (i = 0; i < t->n_taps; i++) {
    g_value_set_double (&v, t->taps[0][i]);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  return va;
}

G_GNUC_END_IGNORE_DEPRECATIONS;

/* A raw file of native-endian samples, one channel: .f32 / .raw float,
 * .f64 double. */
static FirTaps *
fir_taps_from_raw (const gchar * location, gsize width)
{
  gchar *origin = g_strdup_printf ("'%s'", location), *data = NULL;
  GError *err = NULL;
  FirTaps *t;
  gsize len = 0, k;

  if (!g_file_get_contents (location, &data, &len, &err)) {
    t = fir_taps_failed (origin, g_strdup_printf ("could not read the filter "
            "file %s: %s", origin, err->message));
    g_error_free (err);
  } else if (len % width) {
    t = fir_taps_failed (origin, g_strdup_printf ("the raw filter file %s "
            "holds %" G_GSIZE_FORMAT " bytes, not a whole number of %s", origin,
            len, width == 4 ? "floats" : "doubles"));
  } else {
    t = fir_taps_new (1, len / width, origin);
    for (k = 0; k < t->n_taps; k++) {
      if (width == 4) {
        float v;
        memcpy (&v, data + 4 * k, 4);
        t->taps[0][k] = v;
      } else {
        memcpy (&t->taps[0][k], data + 8 * k, 8);
      }
    }
  }
  g_free (data);
  g_free (origin);
  return t;
}

typedef struct
{
  GArray *samples;              /* doubles, interleaved */
  gint channels, rate;
  gchar *error;
  gint *cancelled;              /* the job's: no more work once set */
} FirLoad;

/* Each decoded buffer, whatever its raw format, unpacked to doubles (the
 * formats' own unpack functions: integers to S32, floats to F64). */
static void
fir_load_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    FirLoad * load)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  const GstAudioFormatInfo *finfo;
  GstAudioInfo info;
  GstMapInfo map;
  gsize n, i, base;
  guint32 mask;
  gpointer tmp;

  if (load->error || !caps || g_atomic_int_get (load->cancelled))
    goto out;
  if (!gst_structure_has_field (gst_caps_get_structure (caps, 0),
          "channel-mask")) {
    /* a file of more than 2 channels without positions (a plain WAV):
     * unpositioned channels, which is what a filter file holds */
    caps = gst_caps_make_writable (caps);
    gst_caps_set_simple (caps, "channel-mask", GST_TYPE_BITMASK,
        (guint64) 0, NULL);
  }
  if (!gst_audio_info_from_caps (&info, caps)) {
    load->error = g_strdup ("the decoded audio has caps clfirfilter does "
        "not understand");
    goto out;
  }
  if (GST_AUDIO_INFO_LAYOUT (&info) != GST_AUDIO_LAYOUT_INTERLEAVED) {
    load->error = g_strdup ("non-interleaved decoder output");
    goto out;
  }
  if (load->channels && load->channels != GST_AUDIO_INFO_CHANNELS (&info)) {
    load->error = g_strdup ("the channel count changes within the file");
    goto out;
  }
  load->channels = GST_AUDIO_INFO_CHANNELS (&info);
  load->rate = GST_AUDIO_INFO_RATE (&info);
  finfo = info.finfo;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto out;
  n = map.size / GST_AUDIO_INFO_BPF (&info) * load->channels;
  tmp = g_malloc (n * 8);
  finfo->unpack_func (finfo, GST_AUDIO_PACK_FLAG_NONE, tmp, map.data, n);
  gst_buffer_unmap (buf, &map);
  base = load->samples->len;
  g_array_set_size (load->samples, base + n);
  /* integers unpack to S32 with their top bits repeated in the low ones
   * (0x4000 to 0x40004000): those go, so that 16384 of S16 is 0.5 */
  mask = ~(guint32) 0 << (32 - MIN (32, GST_AUDIO_FORMAT_INFO_DEPTH (finfo)));
  for (i = 0; i < n; i++)
    g_array_index (load->samples, double, base + i) =
        finfo->unpack_format == GST_AUDIO_FORMAT_F64 ? ((double *) tmp)[i] :
        (gint32) ((guint32) ((gint32 *) tmp)[i] & mask) *
        (1.0 / 2147483648.0);
  g_free (tmp);
out:
  gst_clear_caps (&caps);
}

/* Links decodebin's first raw audio pad to the sink. */
static void
fir_load_pad_added (GstElement * decodebin, GstPad * pad, GstElement * sink)
{
  GstPad *sinkpad = gst_element_get_static_pad (sink, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);

  if (!caps)
    caps = gst_pad_query_caps (pad, NULL);
  if (!gst_pad_is_linked (sinkpad) && gst_caps_get_size (caps) > 0
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "audio/x-raw"))
    gst_pad_link (pad, sinkpad);
  gst_caps_unref (caps);
  gst_object_unref (sinkpad);
}

/* Any audio file GStreamer decodes (WAV, FLAC, ...), through
 * filesrc ! decodebin ! fakesink; raw float files by their name. Runs in a
 * load's own thread (fir_load_thread ()); NULL once *cancelled is set. */
static FirTaps *
fir_taps_from_file (const gchar * location, gint * cancelled)
{
  GstElement *pipe = NULL, *src, *dec, *sink;
  gchar *origin = g_strdup_printf ("'%s'", location), *why = NULL;
  FirLoad load = { g_array_new (FALSE, FALSE, sizeof (double)), 0, 0, NULL,
    cancelled
  };
  GstMessage *msg = NULL;
  FirTaps *t = NULL;
  gint64 deadline;
  gsize frames, k;
  guint c;

  if (g_atomic_int_get (cancelled))
    goto done;
  if (g_str_has_suffix (location, ".f32") || g_str_has_suffix (location,
          ".raw"))
    t = fir_taps_from_raw (location, 4);
  else if (g_str_has_suffix (location, ".f64"))
    t = fir_taps_from_raw (location, 8);
  if (t)
    goto done;
  if (!g_file_test (location, G_FILE_TEST_IS_REGULAR)) {
    why = g_strdup_printf ("the filter file %s does not exist or is not a "
        "regular file", origin);
    goto done;
  }
  /* a WAV of PCM or float samples without decodebin's set-up */
  {
    double *wav;
    gsize n;
    guint ch;
    gint rate;

    if (gst_clr_wav_file_read (location, &wav, &n, &ch, &rate)) {
      if (n == 0) {
        why = g_strdup_printf ("the filter file %s holds no audio samples",
            origin);
      } else {
        t = fir_taps_new (ch, n, origin);
        t->rate = rate;
        for (c = 0; c < ch; c++)
          for (k = 0; k < n; k++)
            t->taps[c][k] = wav[k * ch + c];
      }
      g_free (wav);
      goto done;
    }
  }

  pipe = gst_pipeline_new ("clfirfilter-load");
  src = gst_element_factory_make ("filesrc", NULL);
  dec = gst_element_factory_make ("decodebin", NULL);
  sink = gst_element_factory_make ("fakesink", NULL);
  if (!src || !dec || !sink) {
    why = g_strdup_printf ("could not read the filter file %s: reading "
        "audio files needs the filesrc, decodebin and fakesink elements",
        origin);
    gst_clear_object (&src);
    gst_clear_object (&dec);
    gst_clear_object (&sink);
    goto done;
  }
  gst_bin_add_many (GST_BIN (pipe), src, dec, sink, NULL);
  g_object_set (src, "location", location, NULL);
  g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (fir_load_handoff), &load);
  g_signal_connect (dec, "pad-added", G_CALLBACK (fir_load_pad_added), sink);
  gst_element_link (src, dec);
  deadline = g_get_monotonic_time () + CLR_FIR_LOAD_TIMEOUT / GST_USECOND;
  if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
  else
    /* in short waits: a superseded or stopped load ends within one */
    while (!msg && !g_atomic_int_get (cancelled)
        && g_get_monotonic_time () < deadline)
      msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
          CLR_FIR_LOAD_POLL, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (g_atomic_int_get (cancelled)) {
    /* nobody wants it: no filter, no error */
  } else if (!msg) {
    why = g_strdup_printf ("reading the filter file %s took too long",
        origin);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    why = g_strdup_printf ("the filter file %s is not audio GStreamer can "
        "read (%s)", origin, err->message);
    g_error_free (err);
  } else if (load.error) {
    why = g_strdup_printf ("could not read the filter file %s: %s", origin,
        load.error);
  } else if (load.channels == 0 || load.samples->len == 0) {
    why = g_strdup_printf ("the filter file %s holds no audio samples",
        origin);
  } else {
    frames = load.samples->len / load.channels;
    t = fir_taps_new (load.channels, frames, origin);
    t->rate = load.rate;
    for (c = 0; c < (guint) load.channels; c++)
      for (k = 0; k < frames; k++)
        t->taps[c][k] = g_array_index (load.samples, double,
            k * load.channels + c);
  }

done:
  if (msg)
    gst_message_unref (msg);
  if (pipe)
    gst_object_unref (pipe);
  g_array_unref (load.samples);
  g_free (load.error);
  if (g_atomic_int_get (cancelled))
    g_clear_pointer (&t, fir_taps_unref);
  else if (!t)
    t = fir_taps_failed (origin, g_steal_pointer (&why));
  g_free (why);
  g_free (origin);
  return t;
}

/* ---- `location` off the caller's thread -------------------------------- */

/* Joins the threads of `jobs` (taken; NULL: none) and frees them. Called
 * without the object lock, which a load takes at its end. */
static void
fir_load_jobs_join (GPtrArray * jobs)
{
  guint i;

  if (!jobs)
    return;
  for (i = 0; i < jobs->len; i++) {
    FirLoadJob *job = g_ptr_array_index (jobs, i);

    g_thread_join (job->thread);
    g_free (job->location);
    g_free (job);
  }
  g_ptr_array_unref (jobs);
}

/* Under the object lock: `taps` (taken) is the filter from the next buffer
 * on. Returns the one it replaces, to be released without the lock. */
static FirTaps *
gst_cl_fir_filter_install (GstClFirFilter * self, FirTaps * taps)
{
  FirTaps *old = self->filter;

  self->filter = taps;
  self->filter_changed = TRUE;
  return old;
}

/* A load's thread: the file read and decoded, then made the filter if no
 * kernel or location was set since. Its log lines name no object: the
 * element may be in finalize, waiting for this thread to end; and
 * tests/test-firfilter-api.c follows (and holds) loads by their words. */
static gpointer
fir_load_thread (gpointer data)
{
  FirLoadJob *job = data;
  GstClFirFilter *self = job->self;
  FirTaps *taps, *old = NULL;
  gboolean used = FALSE;

  GST_INFO ("loading the filter file '%s'", job->location);
  taps = fir_taps_from_file (job->location, &job->cancelled);

  GST_OBJECT_LOCK (self);
  if (taps && job->seq == self->filter_seq) {
    old = gst_cl_fir_filter_install (self, fir_taps_ref (taps));
    self->load_pending = FALSE;
    used = TRUE;
  }
  job->done = TRUE;
  g_cond_broadcast (&self->load_cond);
  GST_OBJECT_UNLOCK (self);

  /* the error itself goes out as an element error or warning when the
   * stream takes the filter (setup, apply_filter) */
  if (!used)
    GST_INFO ("the load of '%s' was superseded or stopped", job->location);
  else if (taps->error)
    GST_WARNING ("the filter file '%s' is refused: %s", job->location,
        taps->error);
  else
    GST_INFO ("the filter file '%s' is loaded: %" G_GSIZE_FORMAT " taps x "
        "%u", job->location, taps->n_taps, taps->n_filters);
  fir_taps_unref (taps);
  fir_taps_unref (old);
  return NULL;
}

/* Under the object lock: a new filter request (a kernel or location set).
 * Loads under way are cancelled, for their filter is not wanted any more;
 * those that ended are handed back, to be joined without the lock. */
static GPtrArray *
gst_cl_fir_filter_new_request (GstClFirFilter * self)
{
  GPtrArray *ended = NULL;
  guint i = 0;

  self->filter_seq++;
  self->load_pending = FALSE;
  self->reload = FALSE;
  while (i < self->loads->len) {
    FirLoadJob *job = g_ptr_array_index (self->loads, i);

    if (job->done) {
      if (!ended)
        ended = g_ptr_array_new ();
      g_ptr_array_add (ended, g_ptr_array_remove_index_fast (self->loads, i));
    } else {
      g_atomic_int_set (&job->cancelled, 1);
      i++;
    }
  }
  return ended;
}

/* Under the object lock, after gst_cl_fir_filter_new_request (): reads
 * `location` in a thread of its own. Returns a filter to release without
 * the lock, or NULL. */
static FirTaps *
gst_cl_fir_filter_start_load (GstClFirFilter * self)
{
  FirLoadJob *job = g_new0 (FirLoadJob, 1);
  GError *err = NULL;

  job->self = self;
  job->location = g_strdup (self->location);
  job->seq = self->filter_seq;
  job->thread = g_thread_try_new ("clfir-load", fir_load_thread, job, &err);
  if (!job->thread) {
    gchar *origin = g_strdup_printf ("'%s'", job->location);
    FirTaps *t = fir_taps_failed (origin,
        g_strdup_printf ("could not start reading the filter file %s: %s",
            origin, err->message));

    g_free (origin);
    g_error_free (err);
    g_free (job->location);
    g_free (job);
    return gst_cl_fir_filter_install (self, t);
  }
  self->load_pending = TRUE;
  g_ptr_array_add (self->loads, job);
  return NULL;
}

/* ---- convolutions off the streaming thread ---------------------------- */

/* A filter's convolution for the builder's thread (gstclrbuilder.h), or for
 * setup to make in line: all it needs, none of the element's state. */
typedef struct
{
  FirTaps *taps;                /* the filter; the one running: build none */
  gboolean build;
  ClrDevice *device;
  ClrConvConfig cfg;            /* its taps those of `taps` */
  /* the stream it was made for */
  GstAudioInfo info;
  guint block;
  ClrConvFormat cfmt;
  /* made by fir_job_build () */
  ClrConv *conv;
  GError *error;                /* why `taps` cannot be used */
} FirJob;

static void
fir_job_free (gpointer data)
{
  FirJob *job = data;

  if (job->conv)
    clr_conv_free (job->conv);
  if (job->device)
    clr_device_unref (job->device);
  fir_taps_unref (job->taps);
  g_clear_error (&job->error);
  g_free (job);
}

/* GstClrBuildFunc: the filter checked against the stream, then its
 * convolution (the filter's spectra and the device's buffers: the part
 * that takes long, 58-63 ms for 480000 stereo taps on two CPU cores). */
static void
fir_job_build (gpointer data)
{
  FirJob *job = data;
  guint ch = GST_AUDIO_INFO_CHANNELS (&job->info);
  gchar *why;

  if (!job->build)
    return;
  why = fir_taps_check (job->taps);
  if (!why && job->taps->n_filters != 1 && job->taps->n_filters != ch)
    why = g_strdup_printf ("%s holds %u channels of filters but the stream "
        "has %u channels: give 1 (the same filter on every channel) or %u "
        "(one a channel)", job->taps->origin, job->taps->n_filters, ch, ch);
  if (why) {
    g_set_error_literal (&job->error, CLR_ERROR, CLR_ERROR_INVALID, why);
    g_free (why);
    return;
  }
  job->conv = clr_conv_new (job->device, &job->cfg, &job->error);
  /* no object named: the element may be stopping, waiting for this
   * thread; tests/test-firfilter-api.c follows builds by these words */
  if (job->conv)
    GST_INFO ("the convolution of %s is built: %" G_GSIZE_FORMAT " taps x %u",
        job->taps->origin, job->taps->n_taps, job->taps->n_filters);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cl_fir_filter_class_init (GstClFirFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAudioFilterClass *filter_class = GST_AUDIO_FILTER_CLASS (klass);
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (cl_fir_filter_debug, "clfirfilter", 0,
      "clfirfilter element");

  gobject_class->set_property = gst_cl_fir_filter_set_property;
  gobject_class->get_property = gst_cl_fir_filter_get_property;
  gobject_class->finalize = gst_cl_fir_filter_finalize;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_value_array ("kernel", "Filter kernel",
          "The FIR filter's taps, the same filter on every channel (as "
          "audiofirfilter's kernel; set it in a rate-changed handler to "
          "design it for the stream's rate)",
          /* no element spec: a NaN or an infinity reaches the element,
           * which refuses it with a message that says where it is */
          NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  G_GNUC_END_IGNORE_DEPRECATIONS;
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_uint64 ("latency", "Latency",
          "The filter's own delay in frames, compensated: output frame t is "
          "frame t + latency of the convolution (as audiofirfilter's "
          "latency; a linear-phase filter of n taps: (n - 1) / 2). A change "
          "while PLAYING ends the run at the next buffer (its frames "
          "pushed) and starts a new one with it, as audiofirfilter does", 0,
          CLR_FIR_LATENCY_MAX, DEFAULT_LATENCY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "An audio file of impulse responses (WAV, FLAC, anything "
          "GStreamer decodes; .f32/.raw: raw native floats, .f64: raw "
          "doubles, one channel): 1 channel filters every channel alike, "
          "as many channels as the stream one a channel. Replaces kernel. "
          "Read in a thread of its own: the filter playing goes on until "
          "it is ready where buffers are due (within 50 ms of the clock); "
          "a stream not yet started, and buffers with no clock running or "
          "further ahead, wait for it",
          NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_uint ("block-size", "Block size",
          "Frames a block: the latency, and the work a block. A power of "
          "two, 16-16384 (the filter cut into partitions that long), or "
          "any multiple of 16 up to 32752 whose block + taps - 1 is at "
          "most 32768 (the filter whole in one transform: more frames a "
          "transform); another value takes the nearest below that serves; 0: "
          "one block as long as the filter (up to 16384), for offline "
          "throughput. low-latency overrides it", 0,
          CLR_CONV_HOP_MAX,
          DEFAULT_BLOCK_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DRAIN_ON_CHANGES,
      g_param_spec_boolean ("drain-on-changes", "Drain on changes",
          "As audiofirfilter's. TRUE: a new filter takes over from the old "
          "one's input, crossfaded over one block (audiofirfilter switches "
          "at a sample). FALSE: the run ends at the change (the old "
          "filter's frames owed pushed) and the new filter starts on "
          "silence, as audiofirfilter does", DEFAULT_DRAIN_ON_CHANGES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_LOW_LATENCY,
      g_param_spec_boolean ("low-latency", "Low latency",
          "As audiofirfilter's: the least delay, at a higher cost a frame. "
          "TRUE: blocks of 16 frames whatever block-size says, a delay of "
          "latency + 16 frames (audiofirfilter's: latency). Taken when the "
          "stream starts", DEFAULT_LOW_LATENCY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device", GST_CLR_DEVICE_BLURB,
          GST_CLR_DEFAULT_DEVICE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          GST_CLR_DEVICE_NAME_BLURB, NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstClFirFilter::rate-changed:
   * @filter: the filter on which the signal is emitted
   * @rate: the new sampling rate
   *
   * audiofirfilter's signal: emitted from the streaming thread when the
   * stream's rate becomes known or changes, before its first buffer. A
   * kernel (and latency) set in the handler is the filter that buffer is
   * filtered with.
   */
  gst_cl_fir_filter_signals[SIGNAL_RATE_CHANGED] =
      g_signal_new ("rate-changed", G_TYPE_FROM_CLASS (klass),
      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);

  caps = gst_caps_from_string (CLR_FIR_CAPS);
  gst_audio_filter_class_add_pad_templates (filter_class, caps);
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL FIR filter", "Filter/Effect/Audio",
      "Convolves audio with FIR filters of any length on OpenCL devices",
      "clresample developers");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cl_fir_filter_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cl_fir_filter_start);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cl_fir_filter_sink_event);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cl_fir_filter_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cl_fir_filter_transform_caps);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cl_fir_filter_before_transform);
  filter_class->setup = GST_DEBUG_FUNCPTR (gst_cl_fir_filter_setup);
  GST_CLR_FIR_BASE_CLASS (klass)->reset_run = reset_run;
}

static void
gst_cl_fir_filter_init (GstClFirFilter * self)
{
  GValue one = G_VALUE_INIT;
  GValueArray *va;


  /* audiofirfilter's default: one tap of 1, the identity */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  va = g_value_array_new (1);
  g_value_init (&one, G_TYPE_DOUBLE);
  g_value_set_double (&one, 1.0);
  g_value_array_append (va, &one);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  g_value_unset (&one);
  self->kernel = fir_taps_from_value_array (va);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  self->filter = fir_taps_ref (self->kernel);
  self->loads = g_ptr_array_new ();
  g_cond_init (&self->load_cond);
  gst_clr_builder_init (&self->builder, "clr-fir-build", fir_job_build,
      fir_job_free);
  self->latency = DEFAULT_LATENCY;
  self->block_size = DEFAULT_BLOCK_SIZE;
  self->drain_on_changes = DEFAULT_DRAIN_ON_CHANGES;
  self->low_latency = DEFAULT_LOW_LATENCY;
  self->device_spec = g_strdup (GST_CLR_DEFAULT_DEVICE);
  gst_audio_info_init (&self->info);
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_fir_filter_finalize (GObject * object)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (object);
  guint i;

  /* the loads first: they use the element to their end */
  for (i = 0; i < self->loads->len; i++)
    g_atomic_int_set (&((FirLoadJob *) g_ptr_array_index (self->loads,
                i))->cancelled, 1);
  fir_load_jobs_join (self->loads);
  g_cond_clear (&self->load_cond);
  gst_clr_builder_clear (&self->builder);
  fir_taps_unref (self->filter);
  fir_taps_unref (self->kernel);
  fir_taps_unref (self->refused_taps);
  g_free (self->location);
  g_free (self->device_spec);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cl_fir_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (object);
  FirTaps *taps, *old = NULL, *old_kernel = NULL;
  GPtrArray *ended = NULL;
  gchar *location;

  switch (prop_id) {
    case PROP_KERNEL:
      /* converted before the lock is taken: a long kernel takes a while,
       * and the streaming thread takes the lock at every buffer */
      taps = fir_taps_from_value_array (g_value_get_boxed (value));
      GST_OBJECT_LOCK (self);
      ended = gst_cl_fir_filter_new_request (self);
      old_kernel = self->kernel;
      self->kernel = fir_taps_ref (taps);
      old = gst_cl_fir_filter_install (self, taps);
      GST_OBJECT_UNLOCK (self);
      if (taps->error)
        GST_WARNING_OBJECT (self, "%s", taps->error);
      break;
    case PROP_LOCATION:
      location = g_value_dup_string (value);
      GST_OBJECT_LOCK (self);
      ended = gst_cl_fir_filter_new_request (self);
      g_free (self->location);
      self->location = location;
      if (location && *location)
        old = gst_cl_fir_filter_start_load (self);
      else                      /* no file: back to the kernel property */
        old = gst_cl_fir_filter_install (self, fir_taps_ref (self->kernel));
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_LATENCY:
      GST_OBJECT_LOCK (self);
      self->latency = g_value_get_uint64 (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_BLOCK_SIZE:
      GST_OBJECT_LOCK (self);
      self->block_size = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DRAIN_ON_CHANGES:
      GST_OBJECT_LOCK (self);
      self->drain_on_changes = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_LOW_LATENCY:
      GST_OBJECT_LOCK (self);
      self->low_latency = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_DEVICE:
      GST_OBJECT_LOCK (self);
      g_free (self->device_spec);
      self->device_spec = g_value_dup_string (value);
      if (!self->device_spec)
        self->device_spec = g_strdup (GST_CLR_DEFAULT_DEVICE);
      GST_OBJECT_UNLOCK (self);
      gst_clr_prefetch_renamed (GST_ELEMENT (self),
          gst_clr_host_serves_conv ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  fir_taps_unref (old);
  fir_taps_unref (old_kernel);
  fir_load_jobs_join (ended);
}

static void
gst_cl_fir_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (object);
  FirTaps *kernel;

  if (prop_id == PROP_KERNEL) {
    GST_OBJECT_LOCK (self);
    kernel = fir_taps_ref (self->kernel);
    GST_OBJECT_UNLOCK (self);
    /* made without the lock: the filter holds its taps unchanged */
    g_value_take_boxed (value, fir_taps_to_value_array (kernel));
    fir_taps_unref (kernel);
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LATENCY:
      g_value_set_uint64 (value, self->latency);
      break;
    case PROP_LOCATION:
      g_value_set_string (value, self->location);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_uint (value, self->block_size);
      break;
    case PROP_DRAIN_ON_CHANGES:
      g_value_set_boolean (value, self->drain_on_changes);
      break;
    case PROP_LOW_LATENCY:
      g_value_set_boolean (value, self->low_latency);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device_spec);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->parent.stream.device ?
          clr_device_get_name (self->parent.stream.device) : NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gsize
hist_frames (GstClFirFilter * self, const FirTaps * taps)
{
  /* the input kept for a new filter is that of a filter of at least
   * CLR_FIR_HISTORY_TAPS taps */
  return MAX (taps->n_taps, CLR_FIR_HISTORY_TAPS) - 1 +
      self->parent.stream.block;
}

/* ---- set-up ----------------------------------------------------------- */

static void
gst_cl_fir_filter_free_conv (GstClFirFilter * self)
{
  gst_clr_fir_stream_clear (&self->parent.stream);
  g_clear_pointer (&self->active, fir_taps_unref);
}

/* The convolution of `taps` for the stream as it is now, as a job (built
 * by fir_job_build (), here or on the builder's thread). */
static FirJob *
gst_cl_fir_filter_prepare (GstClFirFilter * self, FirTaps * taps)
{
  FirJob *job = g_new0 (FirJob, 1);

  job->taps = fir_taps_ref (taps);
  job->build = taps != self->active;
  job->device = clr_device_ref (self->parent.stream.device);
  job->info = self->info;
  job->block = self->parent.stream.block;
  job->cfmt = self->parent.stream.cfmt;
  job->cfg.channels = GST_AUDIO_INFO_CHANNELS (&self->info);
  job->cfg.block = job->block;
  job->cfg.format = job->cfmt;
  job->cfg.taps = (const double *const *) taps->taps;
  job->cfg.n_taps = taps->n_taps;
  job->cfg.n_filters = taps->n_filters;
  job->cfg.history = hist_frames (self, taps);
  /* the engine's samples laid out as the stream's: interleaved float
   * buffers then go in and out whole (gstclrfirstream.c) */
  job->cfg.interleaved = GST_AUDIO_INFO_LAYOUT (&self->info) ==
      GST_AUDIO_LAYOUT_INTERLEAVED;
  return job;
}

/* A filter taken: a file recorded at another rate is used as it is, and
 * said so. */
static void
gst_cl_fir_filter_check_rate (GstClFirFilter * self, const FirTaps * taps)
{
  if (taps->rate > 0 && taps->rate != GST_AUDIO_INFO_RATE (&self->info))
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("The filter file %s was "
            "recorded at %d Hz, the stream runs at %d Hz: its taps are used "
            "as they are", taps->origin, taps->rate,
            GST_AUDIO_INFO_RATE (&self->info)), (NULL));
}

/* A convolution of `taps` for the stream's format, made now (setup: a new
 * stream waits for its filter anyway), or NULL with *err saying why in
 * words that name the filter. */
static ClrConv *
gst_cl_fir_filter_build_conv (GstClFirFilter * self, FirTaps * taps,
    GError ** err)
{
  FirJob *job;
  ClrConv *conv;

  /* a new stream: a change still being built was for the one before */
  gst_clr_builder_cancel (&self->builder);
  g_clear_pointer (&self->active, fir_taps_unref);
  job = gst_cl_fir_filter_prepare (self, taps);
  fir_job_build (job);
  conv = g_steal_pointer (&job->conv);
  if (conv)
    gst_cl_fir_filter_check_rate (self, taps);
  else
    g_propagate_error (err, g_steal_pointer (&job->error));
  fir_job_free (job);
  return conv;
}

static gboolean
gst_cl_fir_filter_setup (GstAudioFilter * filter, const GstAudioInfo * info)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (filter);
  guint ch = GST_AUDIO_INFO_CHANNELS (info);
  GstAudioFormat fmt = GST_AUDIO_INFO_FORMAT (info);
  FirTaps *taps;
  guint block_size;
  GError *err = NULL;
  ClrConv *conv;

  /* as audiofirfilter: the application designs its filter for the rate in
   * the handler (kernel, latency), and the first buffer of that rate gets
   * it, taken below */
  if (GST_AUDIO_FILTER_RATE (filter) != GST_AUDIO_INFO_RATE (info))
    g_signal_emit (self, gst_cl_fir_filter_signals[SIGNAL_RATE_CHANGED], 0,
        GST_AUDIO_INFO_RATE (info));
  if (!self->parent.stream.device)
    return FALSE;
  /* the same format again (basetransform renegotiating after a
   * RECONFIGURE): the stream goes on */
  if (self->parent.stream.conv && gst_audio_info_is_equal (info, &self->info))
    return TRUE;
  gst_cl_fir_filter_free_conv (self);
  self->info = self->parent.stream.in_info = *info;
  self->parent.stream.out_info = *info;
  self->parent.stream.cfmt =
      gst_clr_fir_stream_format (self->parent.stream.device, fmt);

  GST_OBJECT_LOCK (self);
  /* a file still loading is waited for, so that the first buffer is
   * filtered by it (a load ends within CLR_FIR_LOAD_TIMEOUT); going to
   * READY lets go, and so does a flush (the wait holds the stream lock,
   * which a flushing seek's FLUSH_STOP takes): the caps are refused, and
   * come again after the flush, to wait for the file again */
  while (self->load_pending && !self->unblock && !self->flushing)
    g_cond_wait (&self->load_cond, GST_OBJECT_GET_LOCK (self));
  if (self->load_pending) {
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "stopped or flushed while waiting for the "
        "filter file");
    return FALSE;
  }
  taps = fir_taps_ref (self->filter);
  self->filter_changed = FALSE;
  block_size = self->low_latency ? CLR_CONV_BLOCK_MIN : self->block_size;
  GST_OBJECT_UNLOCK (self);

  self->parent.stream.block =
      gst_clr_fir_stream_choose_block (GST_ELEMENT (self),
      self->parent.stream.device,
      block_size, taps->n_taps);
  conv = gst_cl_fir_filter_build_conv (self, taps, &err);
  if (!conv)
    goto failed;
  self->active = taps;
  gst_clr_fir_stream_setup (&self->parent.stream, conv, taps->n_taps);
  gst_cl_fir_filter_reset_stream (self);
  GST_INFO_OBJECT (self, "%u channels, %" G_GSIZE_FORMAT " taps x %u "
      "filter(s) from %s, blocks of %u frames, %s on '%s'", ch, taps->n_taps,
      taps->n_filters, taps->origin, self->parent.stream.block,
      self->parent.stream.cfmt == CLR_CONV_F64 ? "F64" : "F32",
      clr_device_get_name (self->parent.stream.device));
  return TRUE;

failed:
  if (taps != self->refused_taps
      || !gst_audio_info_is_equal (info, &self->refused_info))
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("clfirfilter cannot filter this stream: %s", err->message),
        ("%u channels, %s, device '%s'", ch, gst_audio_format_to_string (fmt),
            clr_device_get_name (self->parent.stream.device)));
  self->refused_info = *info;
  if (self->refused_taps != taps) {
    g_clear_pointer (&self->refused_taps, fir_taps_unref);
    self->refused_taps = fir_taps_ref (taps);
  }
  g_error_free (err);
  fir_taps_unref (taps);
  gst_cl_fir_filter_free_conv (self);
  return FALSE;
}

static gboolean
gst_cl_fir_filter_start (GstBaseTransform * trans)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (trans);
  GPtrArray *ended = NULL;
  FirTaps *old = NULL;

  GST_OBJECT_LOCK (self);
  if (self->reload) {
    /* the file whose load stop cancelled is still the filter asked for */
    ended = gst_cl_fir_filter_new_request (self);
    old = gst_cl_fir_filter_start_load (self);
  }
  GST_OBJECT_UNLOCK (self);
  fir_taps_unref (old);
  fir_load_jobs_join (ended);
  return gst_clr_open_device (GST_ELEMENT (self), &self->device_spec,
      &self->parent.stream.device, NULL, gst_clr_host_serves_conv ());
}

static gboolean
gst_cl_fir_filter_stop (GstBaseTransform * trans)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (trans);
  GPtrArray *jobs;
  gboolean pending;
  guint i, seq;

  /* loads under way are cancelled and joined; one whose filter is still
   * the one asked for starts again at the next start */
  GST_OBJECT_LOCK (self);
  jobs = self->loads;
  self->loads = g_ptr_array_new ();
  for (i = 0; i < jobs->len; i++)
    g_atomic_int_set (&((FirLoadJob *) g_ptr_array_index (jobs,
                i))->cancelled, 1);
  pending = self->load_pending;
  seq = self->filter_seq;
  GST_OBJECT_UNLOCK (self);
  fir_load_jobs_join (jobs);
  GST_OBJECT_LOCK (self);
  if (pending && self->load_pending && self->filter_seq == seq) {
    self->load_pending = FALSE;
    self->reload = TRUE;
  }
  GST_OBJECT_UNLOCK (self);

  /* a filter still being built belongs to this run */
  gst_clr_builder_cancel (&self->builder);
  gst_cl_fir_filter_free_conv (self);
  gst_clr_close_device (GST_ELEMENT (self), &self->parent.stream.device);
  gst_audio_info_init (&self->info);
  g_clear_pointer (&self->refused_taps, fir_taps_unref);
  self->posted_delay = 0;
  self->posted_rate = 0;
  return TRUE;
}

static GstStateChangeReturn
gst_cl_fir_filter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (element);

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      GST_OBJECT_LOCK (self);
      self->unblock = FALSE;
      self->flushing = FALSE;
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* a setup waiting for a load lets go before the pads are
       * deactivated, which waits for the streaming thread */
      GST_OBJECT_LOCK (self);
      self->unblock = TRUE;
      g_cond_broadcast (&self->load_cond);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      break;
  }
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* FLUSH_START (from the thread of a flushing seek) ends a setup's wait
 * for a load, until FLUSH_STOP, which comes through once the setup let go
 * of the stream lock. A flag of the element's own, not the pad's: a
 * flushing seek clears that at FLUSH_STOP, before FLUSH_STOP waits for
 * the stream lock, and a setup woken late would wait again. */
static gboolean
gst_cl_fir_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      GST_OBJECT_LOCK (self);
      self->flushing = TRUE;
      g_cond_broadcast (&self->load_cond);
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      GST_OBJECT_LOCK (self);
      self->flushing = FALSE;
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static GstCaps *
gst_cl_fir_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *res = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps
      (trans, direction, caps, filter);

  GST_OBJECT_LOCK (trans);
  res = gst_clr_caps_for_device (res,
      GST_CL_FIR_FILTER (trans)->parent.stream.device);
  GST_OBJECT_UNLOCK (trans);
  return res;
}

/* ---- the stream ------------------------------------------------------- */

static void
gst_cl_fir_filter_reset_stream (GstClFirFilter * self)
{
  gint rate = GST_AUDIO_INFO_RATE (&self->info);
  guint64 latency;

  GST_OBJECT_LOCK (self);
  latency = self->latency;
  GST_OBJECT_UNLOCK (self);
  self->latency_in_use = latency;
  gst_clr_fir_stream_reset (&self->parent.stream, latency);
  /* the latency query's answer changed (the block, the compensated delay
   * or the rate; or it had none: a live pipeline asks before the caps):
   * the pipeline asks again */
  if (self->parent.stream.conv && rate > 0 && (self->parent.stream.delay !=
          self->posted_delay || rate != self->posted_rate)) {
    self->posted_delay = self->parent.stream.delay;
    self->posted_rate = rate;
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
}

static void
reset_run (GstClrFirBase * base)
{
  gst_cl_fir_filter_reset_stream (GST_CL_FIR_FILTER (base));
}

/* Pushes the frames the stream still owes (N in, N out) and resets. */
static GstFlowReturn
gst_cl_fir_filter_drain (GstClFirFilter * self)
{
  return gst_clr_fir_base_drain (GST_CLR_FIR_BASE (self));
}

/* The filter last set goes to the builder's thread, which makes its
 * convolution while the old filter plays on. Every change makes a job,
 * even a change back to the filter running (which builds nothing): it
 * supersedes the jobs before it, whose filters are no longer asked for. */
static void
gst_cl_fir_filter_queue_filter (GstClFirFilter * self)
{
  FirTaps *taps;

  GST_OBJECT_LOCK (self);
  taps = fir_taps_ref (self->filter);
  self->filter_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "the filter from %s: %" G_GSIZE_FORMAT " taps x "
      "%u%s", taps->origin, taps->n_taps, taps->n_filters,
      taps == self->active ? ", the one running" : ", building it");
  gst_clr_builder_submit (&self->builder, gst_cl_fir_filter_prepare (self,
          taps));
  fir_taps_unref (taps);
}

/* The filter built last takes over: the new convolution primed with the
 * kept input, then one block crossfaded from the old one's output (with
 * drain-on-changes=FALSE the old run ends here instead, and the new
 * filter starts on silence). Until it is built the old filter plays on
 * (where nobody waits in real time the buffer waits for it); one built
 * during a crossfade waits for its end. A filter that cannot be used is
 * refused with a warning, and the old one goes on. */
static void
gst_cl_fir_filter_apply_filter (GstClFirFilter * self, GstBuffer * buf,
    gboolean drain_on_changes)
{
  GError *err = NULL;
  FirTaps *taps;
  FirJob *job;

  if (self->parent.stream.old_conv)
    return;
  if (gst_clr_builder_busy (&self->builder))
    gst_clr_builder_wait (&self->builder, GST_BASE_TRANSFORM (self), buf);
  job = gst_clr_builder_take (&self->builder);
  if (!job)
    return;
  if (!gst_audio_info_is_equal (&job->info, &self->info)
      || job->block != self->parent.stream.block
      || job->cfmt != self->parent.stream.cfmt
      || job->device != self->parent.stream.device) {
    /* made for a stream that new caps replaced: again, for this one */
    fir_job_free (job);
    gst_cl_fir_filter_queue_filter (self);
    return;
  }
  if (job->taps == self->active) {
    fir_job_free (job);
    return;
  }
  if (!job->conv) {
    err = g_steal_pointer (&job->error);
    goto failed;
  }
  /* drain-on-changes=FALSE, as audiofirfilter: the old filter's run ends
   * at the change, and the new filter starts on silence (no crossfade) */
  if (!drain_on_changes && self->parent.stream.run.started)
    gst_cl_fir_filter_drain (self);
  taps = job->taps;
  /* primed with max (old taps, CLR_FIR_HISTORY_TAPS) - 1 + B frames at
   * most: exact for a filter no longer than both; the swap takes the
   * convolution, and frees it if it fails */
  if (!gst_clr_fir_stream_swap (&self->parent.stream,
          g_steal_pointer (&job->conv), NULL, taps->n_taps, &err))
    goto failed;
  fir_taps_unref (self->active);
  self->active = fir_taps_ref (taps);
  gst_cl_fir_filter_check_rate (self, taps);
  GST_INFO_OBJECT (self, "new filter: %" G_GSIZE_FORMAT " taps x %u from %s"
      "%s", taps->n_taps, taps->n_filters, taps->origin,
      self->parent.stream.old_conv ? ", crossfading" : "");
  fir_job_free (job);
  return;

failed:
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("Could not use the new filter; going on with the old one: %s",
          err->message), (NULL));
  g_error_free (err);
  fir_job_free (job);
}

/* A `location` file still loading while PLAYING: where nobody waits for
 * the output in real time (no clock running: a file conversion, a test
 * harness, PAUSED; or `buf` well ahead of the clock) the buffer waits for
 * it, so that the output does not depend on how fast the file was read; a
 * buffer that is due goes on with the filter playing. */
static void
gst_cl_fir_filter_wait_load (GstClFirFilter * self, GstBuffer * buf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime running;
  GstClock *clock;
  gboolean pending;

  GST_OBJECT_LOCK (self);
  pending = self->load_pending;
  GST_OBJECT_UNLOCK (self);
  if (!pending)
    return;
  clock = gst_clr_buffer_deadline (trans, buf, &running);
  while (!gst_clr_clock_reached (GST_ELEMENT (self), clock, running,
          CLR_FIR_LOAD_MARGIN)
      && !GST_PAD_IS_FLUSHING (GST_BASE_TRANSFORM_SINK_PAD (trans))) {
    GST_OBJECT_LOCK (self);
    pending = self->load_pending && !self->unblock;
    if (pending)
      g_cond_wait_until (&self->load_cond, GST_OBJECT_GET_LOCK (self),
          g_get_monotonic_time () + CLR_FIR_LOAD_CLOCK_POLL);
    GST_OBJECT_UNLOCK (self);
    if (!pending)
      break;
  }
  if (clock)
    gst_object_unref (clock);
}

/* Runs before basetransform sizes the output buffer: a new filter, or a
 * discontinuity that drains the old run, comes first. */
static void
gst_cl_fir_filter_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClFirFilter *self = GST_CL_FIR_FILTER (trans);
  gboolean changed, drain_on_changes;
  guint64 latency;

  if (!self->parent.stream.conv)
    return;
  /* the old run ends with the old filter; a new one starts with the new */
  if (self->parent.stream.run.started && gst_clr_is_discont (GST_ELEMENT (self),
          buf, self->parent.stream.run.t0, self->parent.stream.in_total,
          GST_AUDIO_INFO_RATE (&self->info)))
    gst_cl_fir_filter_drain (self);
  gst_cl_fir_filter_wait_load (self, buf);
  GST_OBJECT_LOCK (self);
  changed = self->filter_changed;
  drain_on_changes = self->drain_on_changes;
  latency = self->latency;
  GST_OBJECT_UNLOCK (self);
  /* as audiofirfilter: a new latency moves the output against the input,
   * so the run ends (the frames it owes pushed) and a new one starts with
   * it */
  if (latency != self->latency_in_use) {
    if (self->parent.stream.run.started)
      gst_cl_fir_filter_drain (self);
    else
      gst_cl_fir_filter_reset_stream (self);
  }
  /* the new convolution is built off this thread: no stall of the stream
   * while a long filter is transformed */
  if (changed)
    gst_cl_fir_filter_queue_filter (self);
  gst_cl_fir_filter_apply_filter (self, buf, drain_on_changes);
}

