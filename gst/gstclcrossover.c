/* clresample: GStreamer element splitting audio into bands with a
 * linear-phase multi-band FIR crossover on OpenCL devices.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-clcrossover
 * @title: clcrossover
 *
 * clcrossover splits audio into frequency bands with linear-phase FIR
 * filters (docs/crossover.md): `frequencies` "250,2000,8000" make 4 bands.
 * The bands go out as the channels of one stream, band-major (band 0's
 * channels, then band 1's, ...), unpositioned (channel-mask 0): a stereo
 * input and 4 bands give 8 channels, for deinterleave or audioconvert's
 * mix-matrix to route to the amplifiers.
 *
 * The band filters are designed in double precision as complementary
 * linear-phase FIRs of `taps` taps: band k = LP(f_k) - LP(f_{k-1}), the
 * top band the input minus LP(f_last), so that the bands sum to the input,
 * exactly up to rounding, and each pair crosses at -6.02 dB. The filters'
 * delay of (taps - 1) / 2 frames is compensated in the timestamps (as
 * clfirfilter's latency): output frame t is the bands of input frame t.
 * One input transform a block serves all bands (the convolution engine's
 * several outputs a channel); the engine filters by the lower bands only,
 * and the top band is the input less their sum, so the bands sum to the
 * input whatever the precision of the transforms.
 *
 * `frequencies`, `gains`, `delays` and `stopband` may change while
 * PLAYING: the filters are designed again and the new ones crossfaded over
 * one block (not the number of bands, which fixes the output's channels).
 *
 * Reverse playback (a segment of negative rate): as clfirfilter, each
 * buffer is split on its own, forwards, its tail drained before the next
 * one; the bands of each buffer still sum to it.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=song.wav ! wavparse ! audioconvert ! \
 *     audio/x-raw,channels=2 ! clcrossover frequencies=250,2000,8000 ! \
 *     audioconvert ! wavenc ! filesink location=bands.wav
 * ]| Splits a stereo file into 4 bands, an 8-channel WAV file.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstclcrossover.h"
#include "gstclrbuilder.h"
#include "gstclrcommon.h"
#include "gstclrfirbase.h"
#include "core/conv/clr-conv.h"
#include "core/design/clr-crossover-design.h"

GST_DEBUG_CATEGORY_STATIC (cl_crossover_debug);
#define GST_CAT_DEFAULT cl_crossover_debug

#define DEFAULT_FREQUENCIES "250,2000,8000"
#define DEFAULT_TAPS 8191u
#define TAPS_MAX 1048575u
#define DEFAULT_STOPBAND 120.0
#define DEFAULT_BLOCK_SIZE 256u
#define DELAY_MAX_MS 1000.0

enum
{
  PROP_0,
  PROP_FREQUENCIES,
  PROP_TAPS,
  PROP_STOPBAND,
  PROP_TRANSITION,
  PROP_GAINS,
  PROP_SLOPES,
  PROP_SLOPE_TAPS,
  PROP_DELAYS,
  PROP_BLOCK_SIZE,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
};

/* every format audioresample takes: the edges convert (gstclredge.h) */
#define CLR_XO_FORMATS "format = (string) " GST_CLR_EDGE_FORMATS ", " \
  "rate = (int) [ 1, MAX ], " \
  "layout = (string) { interleaved, non-interleaved }"
#define CLR_XO_SINK_CAPS "audio/x-raw, " CLR_XO_FORMATS \
  ", channels = (int) [ 1, 256 ]"
#define CLR_XO_SRC_CAPS "audio/x-raw, " CLR_XO_FORMATS \
  ", channels = (int) [ 2, 1024 ], channel-mask = (bitmask) 0"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CLR_XO_SINK_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CLR_XO_SRC_CAPS));

/* A comma list of numbers as a property gives it: the text, the values,
 * or why it is not one */
typedef struct
{
  gchar *text;
  GArray *values;               /* doubles */
  gchar *error;
} NumList;

struct _GstClCrossover
{
  GstClrFirBase parent;

  /* properties, under the object lock */
  NumList freqs, gains, delays;
  /* the slopes property: its text, and the LR order of each point (empty:
   * brick walls), or why it cannot be read */
  gchar *slopes_text;
  GArray *orders;
  gchar *slopes_error;
  guint taps;
  double stopband;
  guint block_size;
  gchar *device_spec;
  gboolean design_changed;      /* applied at the next buffer */
  guint design_serial;          /* counts the changes */

  /* streaming state: the streaming thread, start/stop and set_caps; the
   * device (stream.device) set under the object lock */
  guint bands;                  /* of the stream's filters */
  guint stream_taps;            /* taps of the stream's designs */
  guint active_serial;          /* the design the stream runs */
  double transition;            /* Hz, of the stream's design; 0: none */
  /* its LR points (slope_points 0: none): `slope-taps` measures them when
   * read, and keeps the answer in slope_taps until the next design */
  guint slope_points;
  double *slope_freqs;
  guint *slope_orders;
  double slope_rate, slope_stopband;
  guint slope_serial;           /* counts the designs run */
  gchar *slope_taps;
  /* designs changed while playing, made on a thread of their own */
  GstClrBuilder builder;
};

#define gst_cl_crossover_parent_class parent_class
G_DEFINE_TYPE (GstClCrossover, gst_cl_crossover, GST_TYPE_CLR_FIR_BASE);

static void reset_run (GstClrFirBase * base);
GST_ELEMENT_REGISTER_DEFINE (clcrossover, "clcrossover", GST_RANK_NONE,
    GST_TYPE_CL_CROSSOVER);

static void gst_cl_crossover_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_crossover_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_crossover_finalize (GObject * object);
static gboolean gst_cl_crossover_start (GstBaseTransform * trans);
static gboolean gst_cl_crossover_stop (GstBaseTransform * trans);
static GstCaps *gst_cl_crossover_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cl_crossover_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static void gst_cl_crossover_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);

/* ---- number lists ------------------------------------------------------- */

static void
num_list_clear (NumList * l)
{
  g_clear_pointer (&l->text, g_free);
  g_clear_pointer (&l->values, g_array_unref);
  g_clear_pointer (&l->error, g_free);
}

/* "250,2000,8000" (commas, blanks or semicolons between the numbers) */
static void
num_list_set (NumList * l, const gchar * text, const gchar * what)
{
  gchar **parts;
  guint i;

  num_list_clear (l);
  l->text = g_strdup (text ? text : "");
  l->values = g_array_new (FALSE, FALSE, sizeof (double));
  parts = g_strsplit_set (l->text, ",; \t", -1);
  for (i = 0; parts[i]; i++) {
    gchar *end;
    double v;

    if (!*parts[i])
      continue;
    v = g_ascii_strtod (parts[i], &end);
    if (end == parts[i] || *end || !isfinite (v)) {
      l->error = g_strdup_printf ("%s \"%s\": '%s' is not a number", what,
          l->text, parts[i]);
      break;
    }
    g_array_append_val (l->values, v);
  }
  g_strfreev (parts);
}

/* The slopes property: "LR4,LR8,48", a Linkwitz-Riley order or a slope
 * in dB an octave (6 dB an order) a crossover point; empty: brick walls. */
static void
slopes_set (GstClCrossover * self, const gchar * text)
{
  gchar **parts;
  guint i;

  g_free (self->slopes_text);
  g_clear_pointer (&self->slopes_error, g_free);
  if (self->orders)
    g_array_unref (self->orders);
  self->slopes_text = g_strdup (text ? text : "");
  self->orders = g_array_new (FALSE, FALSE, sizeof (guint));
  parts = g_strsplit_set (self->slopes_text, ",; \t", -1);
  for (i = 0; parts[i] && !self->slopes_error; i++) {
    const gchar *p = parts[i];
    gboolean lr = g_ascii_strncasecmp (p, "LR", 2) == 0;
    gchar *end;
    guint64 v;

    if (!*p)
      continue;
    v = g_ascii_strtoull (lr ? p + 2 : p, &end, 10);
    if (end == (lr ? p + 2 : p) || *end || (!lr && v % 6))
      self->slopes_error = g_strdup_printf ("slopes \"%s\": '%s' is neither "
          "a Linkwitz-Riley order (LR2, LR4, LR8 ...) nor a slope in dB an "
          "octave (12, 24, 48 ...)", self->slopes_text, p);
    else {
      guint order = (guint) MIN (lr ? v : v / 6, G_MAXUINT);
      g_array_append_val (self->orders, order);
    }
  }
  g_strfreev (parts);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cl_crossover_class_init (GstClCrossoverClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags playing = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ready = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;

  GST_DEBUG_CATEGORY_INIT (cl_crossover_debug, "clcrossover", 0,
      "clcrossover element");

  gobject_class->set_property = gst_cl_crossover_set_property;
  gobject_class->get_property = gst_cl_crossover_get_property;
  gobject_class->finalize = gst_cl_crossover_finalize;

  g_object_class_install_property (gobject_class, PROP_FREQUENCIES,
      g_param_spec_string ("frequencies", "Crossover frequencies",
          "The crossover points in Hz, ascending, between 0 and half the "
          "sample rate, separated by commas: n points make n + 1 bands (the "
          "number of bands is fixed while PLAYING, the points are not)",
          DEFAULT_FREQUENCIES, playing));
  g_object_class_install_property (gobject_class, PROP_TAPS,
      g_param_spec_uint ("taps", "Taps",
          "Taps of each band's filter (odd): the filters' delay, "
          "(taps - 1) / 2 frames, and their transition width (see "
          "transition). Taken at the next caps", 3, TAPS_MAX, DEFAULT_TAPS,
          ready));
  g_object_class_install_property (gobject_class, PROP_STOPBAND,
      g_param_spec_double ("stopband", "Stopband",
          "Stopband depth of the lowpasses in dB: a band is at most "
          "-(stopband - 6) dB two bands away. Deeper stopbands widen the "
          "transition for the same taps (transition = (stopband - 7.95) "
          "rate / (14.36 (taps - 1)))", CLR_XO_STOPBAND_MIN,
          CLR_XO_STOPBAND_MAX, DEFAULT_STOPBAND, playing));
  g_object_class_install_property (gobject_class, PROP_TRANSITION,
      g_param_spec_double ("transition", "Transition width",
          "Width of each crossover's transition band in Hz, centred on its "
          "frequency, for the stream's rate (0 until it is known)", 0,
          G_MAXDOUBLE, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstClCrossover:slopes:
   *
   * Each crossover point's slope, as a loudspeaker designer gives it: a
   * Linkwitz-Riley order (LR2, LR4, LR8: 12, 24, 48 dB an octave) or the
   * slope in dB an octave, separated by commas, one a point. The bands
   * are then those of the analogue LR tree in magnitude, with linear
   * phase, and still sum to a pure delay; each transition spans a ratio of
   * frequencies rather than a fixed width in Hz, so a high point rings for
   * a fraction of a millisecond where a brick wall of the same taps rings
   * for most of the filter. Empty (the default): brick-wall points of
   * `transition` Hz. `taps` is the length every band gets.
   */
  g_object_class_install_property (gobject_class, PROP_SLOPES,
      g_param_spec_string ("slopes", "Crossover slopes",
          "Slope of each crossover point, separated by commas: a "
          "Linkwitz-Riley order (LR2, LR4, LR8) or dB an octave (12, 24, 48); "
          "empty: brick walls of the transition width", "", playing));
  g_object_class_install_property (gobject_class, PROP_SLOPE_TAPS,
      g_param_spec_string ("slope-taps", "Taps the slopes need",
          "With slopes: the taps each crossover point needs at the stream's "
          "rate to keep within 0.1 dB of its analogue Linkwitz-Riley "
          "target, separated by commas; more than taps means that point is "
          "cut short (the last design with slopes; NULL before one)", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_GAINS,
      g_param_spec_string ("gains", "Band gains",
          "Gain of each band in dB, separated by commas, one a band (empty: "
          "0 dB)", "", playing));
  g_object_class_install_property (gobject_class, PROP_DELAYS,
      g_param_spec_string ("delays", "Band delays",
          "Delay of each band in milliseconds (driver alignment), separated "
          "by commas, one a band (empty: none), rounded to whole frames, "
          "0 to 1000 ms", "", playing));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_uint ("block-size", "Block size",
          "Frames a block: the latency beyond the filters' delay, and the "
          "work a block. A power of two, 16-16384 (the filters cut into "
          "partitions that long), or any multiple of 16 up to 32752 whose "
          "block + taps - 1 is at most 32768 (the filters whole in one "
          "transform: more frames a transform); another value takes the "
          "nearest below that serves; 0: one block as long as the filters "
          "(up to 16384), for offline throughput", 0,
          CLR_CONV_HOP_MAX, DEFAULT_BLOCK_SIZE, ready));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device", GST_CLR_DEVICE_BLURB,
          GST_CLR_DEFAULT_DEVICE, ready));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          GST_CLR_DEVICE_NAME_BLURB, NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL crossover", "Filter/Effect/Audio",
      "Splits audio into bands with linear-phase FIR crossover filters on "
      "OpenCL devices, the bands as channels", "clresample developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cl_crossover_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cl_crossover_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cl_crossover_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cl_crossover_set_caps);
  GST_CLR_FIR_BASE_CLASS (klass)->reset_run = reset_run;
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cl_crossover_before_transform);
}

static void xo_job_build (gpointer job);
static void xo_job_free (gpointer job);

static void
gst_cl_crossover_init (GstClCrossover * self)
{
  num_list_set (&self->freqs, DEFAULT_FREQUENCIES, "frequencies");
  num_list_set (&self->gains, "", "gains");
  slopes_set (self, "");
  num_list_set (&self->delays, "", "delays");
  self->taps = DEFAULT_TAPS;
  self->stopband = DEFAULT_STOPBAND;
  self->block_size = DEFAULT_BLOCK_SIZE;
  self->device_spec = g_strdup (GST_CLR_DEFAULT_DEVICE);
  gst_audio_info_init (&self->parent.stream.in_info);
  gst_audio_info_init (&self->parent.stream.out_info);
  gst_clr_builder_init (&self->builder, "clr-xo-build", xo_job_build,
      xo_job_free);
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_crossover_finalize (GObject * object)
{
  GstClCrossover *self = GST_CL_CROSSOVER (object);

  num_list_clear (&self->freqs);
  num_list_clear (&self->gains);
  num_list_clear (&self->delays);
  g_free (self->slopes_text);
  g_free (self->slopes_error);
  g_free (self->slope_freqs);
  g_free (self->slope_orders);
  g_free (self->slope_taps);
  g_array_unref (self->orders);
  g_free (self->device_spec);
  gst_clr_builder_clear (&self->builder);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cl_crossover_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClCrossover *self = GST_CL_CROSSOVER (object);
  gboolean redesign = TRUE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FREQUENCIES:
      num_list_set (&self->freqs, g_value_get_string (value), "frequencies");
      break;
    case PROP_GAINS:
      num_list_set (&self->gains, g_value_get_string (value), "gains");
      break;
    case PROP_SLOPES:
      slopes_set (self, g_value_get_string (value));
      break;
    case PROP_DELAYS:
      num_list_set (&self->delays, g_value_get_string (value), "delays");
      break;
    case PROP_STOPBAND:
      self->stopband = g_value_get_double (value);
      break;
    case PROP_TAPS:
      self->taps = g_value_get_uint (value);
      break;
    case PROP_BLOCK_SIZE:
      self->block_size = g_value_get_uint (value);
      redesign = FALSE;
      break;
    case PROP_DEVICE:
      g_free (self->device_spec);
      self->device_spec = g_value_dup_string (value);
      if (!self->device_spec)
        self->device_spec = g_strdup (GST_CLR_DEFAULT_DEVICE);
      redesign = FALSE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      redesign = FALSE;
      break;
  }
  if (redesign) {
    self->design_changed = TRUE;
    self->design_serial++;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_DEVICE)
    gst_clr_prefetch_renamed (GST_ELEMENT (self),
        gst_clr_host_serves_conv ());
}

/* `slope-taps`: the taps each LR point of the running design needs, found
 * by designing and measuring (clr_xo_lr_taps (): up to a second or two for
 * low points), so only when asked and outside the object lock; NULL before
 * a design with slopes. */
static gchar *
gst_cl_crossover_slope_taps (GstClCrossover * self)
{
  double *freqs, rate, stopband;
  guint *orders, points, serial, i;
  GString *t;

  GST_OBJECT_LOCK (self);
  if (self->slope_taps || !self->slope_points) {
    gchar *known = g_strdup (self->slope_taps);

    GST_OBJECT_UNLOCK (self);
    return known;
  }
  points = self->slope_points;
  freqs = g_memdup2 (self->slope_freqs, points * sizeof (double));
  orders = g_memdup2 (self->slope_orders, points * sizeof (guint));
  rate = self->slope_rate;
  stopband = self->slope_stopband;
  serial = self->slope_serial;
  GST_OBJECT_UNLOCK (self);

  t = g_string_new (NULL);
  for (i = 0; i < points; i++)
    g_string_append_printf (t, "%s%" G_GSIZE_FORMAT, i ? "," : "",
        clr_xo_lr_taps (rate, freqs[i], orders[i], stopband));
  g_free (freqs);
  g_free (orders);
  GST_OBJECT_LOCK (self);
  if (serial == self->slope_serial && !self->slope_taps)
    self->slope_taps = g_strdup (t->str);
  GST_OBJECT_UNLOCK (self);
  return g_string_free (t, FALSE);
}

static void
gst_cl_crossover_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClCrossover *self = GST_CL_CROSSOVER (object);

  if (prop_id == PROP_SLOPE_TAPS) {
    g_value_take_string (value, gst_cl_crossover_slope_taps (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_FREQUENCIES:
      g_value_set_string (value, self->freqs.text);
      break;
    case PROP_GAINS:
      g_value_set_string (value, self->gains.text);
      break;
    case PROP_SLOPES:
      g_value_set_string (value, self->slopes_text);
      break;
    case PROP_DELAYS:
      g_value_set_string (value, self->delays.text);
      break;
    case PROP_STOPBAND:
      g_value_set_double (value, self->stopband);
      break;
    case PROP_TRANSITION:
      g_value_set_double (value, self->transition);
      break;
    case PROP_TAPS:
      g_value_set_uint (value, self->taps);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_uint (value, self->block_size);
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

/* ---- the design --------------------------------------------------------- */

/* Bands the frequencies property asks for now (its numbers + 1; its
 * items + 1 when one is no number) */
static guint
bands_asked (GstClCrossover * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = self->freqs.values->len + 1;
  if (self->freqs.error) {
    gchar **parts = g_strsplit (self->freqs.text, ",", -1);
    n = g_strv_length (parts) + 1;
    g_strfreev (parts);
  }
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* Why a band list (gains or delays) cannot be used, or NULL */
static gchar *
band_list_check (const NumList * l, guint bands, const gchar * what,
    double lo, double hi, const gchar * unit)
{
  guint i;

  if (l->error)
    return g_strdup (l->error);
  if (l->values->len && l->values->len != bands)
    return g_strdup_printf ("%s \"%s\" gives %u values for %u bands: give "
        "one a band, or none", what, l->text, l->values->len, bands);
  for (i = 0; i < l->values->len; i++) {
    double v = g_array_index (l->values, double, i);
    if (v < lo || v > hi)
      return g_strdup_printf ("%s: %g %s for band %u is out of range (%g to "
          "%g %s)", what, v, unit, i, lo, hi, unit);
  }
  return NULL;
}

/* The input kept for a new design: its filters are taps + the delays long,
 * the delays at most DELAY_MAX_MS */
static gsize
hist_frames (GstClCrossover * self, guint taps)
{
  return taps + (gsize) ceil (DELAY_MAX_MS / 1000.0 *
      GST_AUDIO_INFO_RATE (&self->parent.stream.in_info)) - 1 +
      self->parent.stream.block;
}

/* How far behind the engine's output its input lies for the top band:
 * the engine's block and the filters' delay (clr-crossover-mix.h) */
static gsize
mix_lag (GstClCrossover * self)
{
  return self->parent.stream.block + (self->stream_taps - 1) / 2;
}

/* The input frames a mix reaches back at most: its lag and the longest
 * band delay */
static gsize
mix_reach_max (GstClCrossover * self)
{
  return mix_lag (self) + (gsize) ceil (DELAY_MAX_MS / 1000.0 *
      GST_AUDIO_INFO_RATE (&self->parent.stream.in_info));
}

/* A design for the builder's thread (gstclrbuilder.h), or for set_caps
 * to make in line: all it needs, none of the element's state. */
typedef struct
{
  guint serial;                 /* design_serial it was asked at */
  guint bands;
  gint rate;
  ClrXoSpec spec;               /* the bare bands: no gains, no delays */
  double *freqs, *gains;        /* gains: the mix's, or NULL */
  guint *orders;                /* LR orders a point, or NULL */
  gsize *delays;                /* the mix's, in frames, or NULL */
  ClrConvConfig cfg;            /* all but the taps */
  ClrDevice *device;
  gsize mix_lag;
  /* the stream it was made for */
  GstAudioInfo in_info, out_info;
  guint block, stream_taps;
  /* made by gst_cl_crossover_job_build () */
  ClrConv *conv;
  ClrXoMix *mix;
  gsize n_taps;                 /* the filters' reach: taps + the longest
                                 * delay */
  double transition;
  GError *error;
} XoJob;

static void
xo_job_free (gpointer data)
{
  XoJob *job = data;

  if (job->conv)
    clr_conv_free (job->conv);
  clr_xo_mix_free (job->mix);
  if (job->device)
    clr_device_unref (job->device);
  g_free (job->freqs);
  g_free (job->orders);
  g_free (job->gains);
  g_free (job->delays);
  g_clear_error (&job->error);
  g_free (job);
}

/* GstClrBuildFunc: the filters designed in double, their engine (the
 * spectra of every partition) and the mix: the part that takes long. */
static void
xo_job_build (gpointer data)
{
  XoJob *job = data;
  gsize len = 0, max_delay = 0;
  double **h;
  guint i;

  h = clr_xo_design (&job->spec, &len, &job->error);
  if (!h)
    return;
  /* the lower bands; the top one is the input less their sum */
  job->cfg.taps = (const double *const *) h;
  job->cfg.n_taps = len;
  job->conv = clr_conv_new (job->device, &job->cfg, &job->error);
  job->cfg.taps = NULL;
  clr_xo_free (h, job->bands);
  if (!job->conv)
    return;
  for (i = 0; job->delays && i < job->bands; i++)
    max_delay = MAX (max_delay, job->delays[i]);
  job->mix = clr_xo_mix_new (job->cfg.format == CLR_CONV_F64,
      job->cfg.channels, job->bands, job->gains, job->delays, job->mix_lag,
      GST_CLR_FIR_CHUNK);
  job->n_taps = len + max_delay;
  job->transition = clr_xo_transition_hz (job->rate, job->spec.taps,
      job->spec.stopband_db);
}

/* The band filters the properties ask for, at the stream's rate, as a job:
 * an engine for the stream (the stream's block and format) filtering by the
 * lower bands, and the mix, which makes all bands from its output (with
 * the gains and delays). NULL with *err saying why the properties cannot
 * be used (checked here, at once: a bad list is refused with a warning at
 * the buffer after it, whoever builds the filters). */
static XoJob *
gst_cl_crossover_prepare (GstClCrossover * self, guint bands, GError ** err)
{
  /* the format the host conversion carries the stream in (gstclredge.h) */
  const GstAudioFormat fmt = gst_clr_edge_work_format
      (GST_AUDIO_INFO_FORMAT (&self->parent.stream.in_info));
  const gint rate = GST_AUDIO_INFO_RATE (&self->parent.stream.in_info);
  XoJob *job = g_new0 (XoJob, 1);
  gchar *why = NULL;
  guint i;

  job->bands = bands;
  job->rate = rate;
  job->spec.rate = rate;
  GST_OBJECT_LOCK (self);
  job->serial = self->design_serial;
  self->design_changed = FALSE;
  if (self->freqs.error)
    why = g_strdup (self->freqs.error);
  else if (self->freqs.values->len + 1 != bands)
    why = g_strdup_printf ("frequencies \"%s\" make %u bands, but the "
        "stream has %u: the number of bands can change only in READY",
        self->freqs.text, self->freqs.values->len + 1, bands);
  if (!why)
    why = band_list_check (&self->gains, bands, "gains", CLR_XO_GAIN_MIN_DB,
        CLR_XO_GAIN_MAX_DB, "dB");
  if (!why)
    why = band_list_check (&self->delays, bands, "delays", 0.0,
        DELAY_MAX_MS, "ms");
  if (!why && self->slopes_error)
    why = g_strdup (self->slopes_error);
  else if (!why && self->orders->len && self->orders->len != bands - 1)
    why = g_strdup_printf ("slopes \"%s\" gives %u slopes for %u crossover "
        "points: give one a point, or none", self->slopes_text,
        self->orders->len, bands - 1);
  if (!why && self->orders->len)
    job->orders = g_memdup2 (self->orders->data, (bands - 1) *
        sizeof (guint));
  if (!why) {
    job->freqs = g_memdup2 (self->freqs.values->data, (bands - 1) *
        sizeof (double));
    if (self->gains.values->len)
      job->gains = g_memdup2 (self->gains.values->data, bands *
          sizeof (double));
    if (self->delays.values->len) {
      job->delays = g_new (gsize, bands);
      for (i = 0; i < bands; i++)
        job->delays[i] = (gsize) llround (g_array_index (self->delays.values,
                double, i) * rate / 1000.0);
    }
  }
  job->spec.taps = self->stream_taps;
  job->spec.stopband_db = self->stopband;
  GST_OBJECT_UNLOCK (self);
  if (why)
    goto refused;

  job->spec.freqs = job->freqs;
  job->spec.n_freqs = bands - 1;
  job->spec.gains_db = job->gains;
  job->spec.delays = job->delays;
  job->spec.orders = job->orders;
  why = clr_xo_check (&job->spec);
  if (why)
    goto refused;
  /* the gains and delays are the mix's: the filters are the bare bands */
  job->spec.gains_db = NULL;
  job->spec.delays = NULL;

  job->device = clr_device_ref (self->parent.stream.device);
  job->cfg.channels = GST_AUDIO_INFO_CHANNELS (&self->parent.stream.in_info);
  job->cfg.block = self->parent.stream.block;
  job->cfg.format = self->parent.stream.cfmt;
  job->cfg.n_filters = bands - 1;
  job->cfg.outputs = bands - 1;
  job->cfg.history = hist_frames (self, job->spec.taps);
  /* as clfirfilter: the bands' planes interleaved band-major are the
   * output's channel order */
  job->cfg.interleaved = GST_AUDIO_INFO_LAYOUT (&self->parent.stream.in_info) ==
      GST_AUDIO_LAYOUT_INTERLEAVED;
  /* the mix reads the bands frame by frame either way; on CPUs each
   * band's transform then writes a plane of its own (clr-conv.h) */
  job->cfg.planar_outputs = clr_knob_or (clr_tuning_get ()->xo_planes,
      !clr_device_is_gpu (self->parent.stream.device)) != 0;
  /* The bands sum to the input by construction, whatever the
   * transforms' precision: on CPUs, where float transforms are 1.5x
   * faster, they serve float and 16-bit samples (a band's error ~1e-6
   * of the RMS instead of ~3e-7, docs/crossover.md); 24- and 32-bit
   * integers keep errors under their last bit, and GPUs, where double
   * costs little, keep double. */
  job->cfg.float_transforms = !clr_device_is_gpu (self->parent.stream.device)
      && (fmt == GST_AUDIO_FORMAT_F32 || fmt == GST_AUDIO_FORMAT_S16);
  job->mix_lag = mix_lag (self);
  job->in_info = self->parent.stream.in_info;
  job->out_info = self->parent.stream.out_info;
  job->block = self->parent.stream.block;
  job->stream_taps = self->stream_taps;
  return job;

refused:
  g_set_error_literal (err, CLR_ERROR, CLR_ERROR_INVALID, why);
  g_free (why);
  xo_job_free (job);
  return NULL;
}

/* The stream's transition width and its LR points, from the design it
 * runs now */
static void
gst_cl_crossover_note_design (GstClCrossover * self, const XoJob * job)
{
  const guint points = job->orders ? job->bands - 1 : 0;

  GST_OBJECT_LOCK (self);
  self->transition = job->transition;
  g_free (self->slope_freqs);
  g_free (self->slope_orders);
  g_clear_pointer (&self->slope_taps, g_free);
  self->slope_points = points;
  self->slope_freqs = points ? g_memdup2 (job->freqs, points *
      sizeof (double)) : NULL;
  self->slope_orders = points ? g_memdup2 (job->orders, points *
      sizeof (guint)) : NULL;
  self->slope_rate = job->rate;
  self->slope_stopband = job->spec.stopband_db;
  self->slope_serial++;
  GST_OBJECT_UNLOCK (self);
}

/* The band filters the properties ask for, made now (set_caps: a new
 * stream waits for its filters anyway): the engine, *mix and *n_taps as
 * the job has them; NULL with *err saying why. */
static ClrConv *
gst_cl_crossover_build (GstClCrossover * self, guint bands, ClrXoMix ** mix,
    gsize * n_taps, guint * serial, GError ** err)
{
  XoJob *job = gst_cl_crossover_prepare (self, bands, err);
  ClrConv *conv;

  *mix = NULL;
  if (!job)
    return NULL;
  xo_job_build (job);
  *serial = job->serial;
  conv = job->conv;
  if (conv) {
    *mix = job->mix;
    *n_taps = job->n_taps;
    gst_cl_crossover_note_design (self, job);
    job->conv = NULL;
    job->mix = NULL;
  } else {
    g_propagate_error (err, job->error);
    job->error = NULL;
  }
  xo_job_free (job);
  return conv;
}

/* ---- caps ------------------------------------------------------------- */

/* channels x or / bands, on an int or a range; FALSE: none fits */
static gboolean
map_channels (GstStructure * st, guint bands, gboolean to_src)
{
  const GValue *v = gst_structure_get_value (st, "channels");
  gint lo, hi;

  if (!v)
    return TRUE;
  if (G_VALUE_HOLDS_INT (v)) {
    lo = hi = g_value_get_int (v);
  } else if (GST_VALUE_HOLDS_INT_RANGE (v)) {
    lo = gst_value_get_int_range_min (v);
    hi = gst_value_get_int_range_max (v);
  } else {
    return FALSE;
  }
  if (to_src) {
    lo = MIN ((gint64) lo * bands, G_MAXINT);
    hi = MIN ((gint64) hi * bands, G_MAXINT);
  } else {
    lo = (lo + bands - 1) / bands;
    hi = hi / bands;
  }
  if (lo > hi || hi < 1)
    return FALSE;
  if (lo == hi)
    gst_structure_set (st, "channels", G_TYPE_INT, lo, NULL);
  else
    gst_structure_set (st, "channels", GST_TYPE_INT_RANGE, MAX (lo, 1), hi,
        NULL);
  return TRUE;
}

static GstCaps *
gst_cl_crossover_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstClCrossover *self = GST_CL_CROSSOVER (trans);
  const guint bands = self->parent.stream.conv ? self->bands :
      bands_asked (self);
  GstCaps *res = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *st = gst_structure_copy (gst_caps_get_structure (caps, i));

    if (!map_channels (st, bands, direction == GST_PAD_SINK)) {
      gst_structure_free (st);
      continue;
    }
    if (direction == GST_PAD_SINK)
      gst_structure_set (st, "channel-mask", GST_TYPE_BITMASK,
          (guint64) 0, NULL);
    else
      gst_structure_remove_field (st, "channel-mask");
    res = gst_caps_merge_structure (res, st);
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = tmp;
  }
  GST_OBJECT_LOCK (self);
  res = gst_clr_caps_for_device (res, self->parent.stream.device);
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

static void
gst_cl_crossover_reset_stream (GstClCrossover * self)
{
  /* the filters' delay: taps changes wait for the next caps */
  gst_clr_fir_stream_reset (&self->parent.stream, self->parent.stream.conv ?
      (self->stream_taps - 1) / 2 : 0);
}

static gboolean
gst_cl_crossover_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClCrossover *self = GST_CL_CROSSOVER (trans);
  GstAudioInfo in, out;
  GError *err = NULL;
  ClrConv *conv;
  ClrXoMix *mix;
  guint bands, block_size, taps, serial;
  gsize n_taps = 0;

  if (!self->parent.stream.device || !gst_audio_info_from_caps (&in, incaps)
      || !gst_audio_info_from_caps (&out, outcaps))
    return FALSE;
  bands = GST_AUDIO_INFO_CHANNELS (&out) / GST_AUDIO_INFO_CHANNELS (&in);
  /* what GstAudioFilter clips the input to the segment with (its own
   * set_caps, which this replaces, would set it) */
  GST_AUDIO_FILTER (self)->info = in;
  /* the same caps again (a renegotiation): the stream goes on */
  if (self->parent.stream.conv && gst_audio_info_is_equal (&in,
          &self->parent.stream.in_info) && gst_audio_info_is_equal (&out,
          &self->parent.stream.out_info))
    return TRUE;
  gst_clr_fir_stream_clear (&self->parent.stream);
  self->parent.stream.in_info = in;
  self->parent.stream.out_info = out;
  self->parent.stream.cfmt =
      gst_clr_fir_stream_format (self->parent.stream.device,
      GST_AUDIO_INFO_FORMAT (&in));
  self->bands = bands;
  GST_OBJECT_LOCK (self);
  block_size = self->block_size;
  taps = self->taps;
  GST_OBJECT_UNLOCK (self);
  self->stream_taps = taps;
  self->parent.stream.block =
      gst_clr_fir_stream_choose_block (GST_ELEMENT (self),
      self->parent.stream.device,
      block_size, taps);
  conv = gst_cl_crossover_build (self, bands, &mix, &n_taps, &serial, &err);
  if (!conv)
    goto failed;
  self->active_serial = serial;
  gst_clr_fir_stream_setup (&self->parent.stream, conv, n_taps);
  if (!gst_clr_fir_stream_set_mix (&self->parent.stream, mix,
          mix_reach_max (self), &err))
    goto failed;
  gst_cl_crossover_reset_stream (self);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
  GST_INFO_OBJECT (self, "%u channels in %u bands, %" G_GSIZE_FORMAT " taps, "
      "blocks of %u frames, %s on '%s'", GST_AUDIO_INFO_CHANNELS (&in), bands,
      n_taps, self->parent.stream.block,
      self->parent.stream.cfmt == CLR_CONV_F64 ? "F64" : "F32",
      clr_device_get_name (self->parent.stream.device));
  return TRUE;

failed:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("clcrossover cannot split this stream: %s", err->message),
      ("%u channels, %u bands, %s, device '%s'",
          GST_AUDIO_INFO_CHANNELS (&in), bands,
          gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (&in)),
          clr_device_get_name (self->parent.stream.device)));
  g_error_free (err);
  gst_clr_fir_stream_clear (&self->parent.stream);
  return FALSE;
}

static gboolean
gst_cl_crossover_start (GstBaseTransform * trans)
{
  GstClCrossover *self = GST_CL_CROSSOVER (trans);

  return gst_clr_open_device (GST_ELEMENT (self), &self->device_spec,
      &self->parent.stream.device, NULL, gst_clr_host_serves_conv ());
}

static gboolean
gst_cl_crossover_stop (GstBaseTransform * trans)
{
  GstClCrossover *self = GST_CL_CROSSOVER (trans);

  /* a design still being built belongs to this run */
  gst_clr_builder_cancel (&self->builder);
  gst_clr_fir_stream_clear (&self->parent.stream);
  gst_clr_close_device (GST_ELEMENT (self), &self->parent.stream.device);
  gst_audio_info_init (&self->parent.stream.in_info);
  gst_audio_info_init (&self->parent.stream.out_info);
  GST_OBJECT_LOCK (self);
  self->transition = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ---- the stream ------------------------------------------------------- */

static void
reset_run (GstClrFirBase * base)
{
  gst_cl_crossover_reset_stream (GST_CL_CROSSOVER (base));
}

/* Pushes the frames the stream still owes (N in, N out) and resets. */
static GstFlowReturn
gst_cl_crossover_drain (GstClCrossover * self)
{
  return gst_clr_fir_base_drain (GST_CLR_FIR_BASE (self));
}

/* The design last asked for goes to the builder's thread; a design that
 * cannot be made is refused with a warning at once, and the old filters
 * (or the design still being built) go on. */
static void
gst_cl_crossover_queue_design (GstClCrossover * self)
{
  GError *err = NULL;
  XoJob *job = gst_cl_crossover_prepare (self, self->bands, &err);

  if (!job) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Could not use the new crossover design; going on with the old "
            "one: %s", err->message), (NULL));
    g_error_free (err);
    return;
  }
  GST_DEBUG_OBJECT (self, "designing %u", job->serial);
  gst_clr_builder_submit (&self->builder, job);
}

/* The design built last takes over: the new engine primed with the kept
 * input, crossfaded over one block. Until it is built the old filters play
 * on; a design built during a crossfade waits for its end. A design that
 * could not be made is refused with a warning, and the old filters go
 * on. */
static void
gst_cl_crossover_apply (GstClCrossover * self, GstBuffer * buf)
{
  GError *err = NULL;
  XoJob *job;

  if (self->parent.stream.old_conv)
    return;
  if (gst_clr_builder_busy (&self->builder))
    gst_clr_builder_wait (&self->builder, GST_BASE_TRANSFORM (self), buf);
  job = gst_clr_builder_take (&self->builder);
  if (!job)
    return;
  if (!gst_audio_info_is_equal (&job->in_info, &self->parent.stream.in_info)
      || !gst_audio_info_is_equal (&job->out_info,
          &self->parent.stream.out_info)
      || job->block != self->parent.stream.block
      || job->stream_taps != self->stream_taps
      || job->device != self->parent.stream.device) {
    /* made for a stream that new caps replaced: again, for this one */
    xo_job_free (job);
    gst_cl_crossover_queue_design (self);
    return;
  }
  if (!job->conv) {
    err = job->error;
    job->error = NULL;
    goto failed;
  }
  /* the swap takes the engine and the mix, and frees them if it fails */
  if (!gst_clr_fir_stream_swap (&self->parent.stream,
          g_steal_pointer (&job->conv), g_steal_pointer (&job->mix),
          job->n_taps, &err))
    goto failed;
  self->active_serial = job->serial;
  gst_cl_crossover_note_design (self, job);
  GST_DEBUG_OBJECT (self, "new design %u: %" G_GSIZE_FORMAT " taps%s",
      job->serial, job->n_taps,
      self->parent.stream.old_conv ? ", crossfading" : "");
  xo_job_free (job);
  return;

failed:
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("Could not use the new crossover design; going on with the old "
          "one: %s", err->message), (NULL));
  g_error_free (err);
  xo_job_free (job);
}

/* Runs before basetransform sizes the output buffer: a discontinuity that
 * drains the old run, or a new design, comes first. */
static void
gst_cl_crossover_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClCrossover *self = GST_CL_CROSSOVER (trans);
  gboolean changed;

  if (!self->parent.stream.conv)
    return;
  if (self->parent.stream.run.started && gst_clr_is_discont (GST_ELEMENT (self),
          buf, self->parent.stream.run.t0, self->parent.stream.in_total,
          GST_AUDIO_INFO_RATE (&self->parent.stream.in_info)))
    gst_cl_crossover_drain (self);
  GST_OBJECT_LOCK (self);
  changed = self->design_changed;
  GST_OBJECT_UNLOCK (self);
  /* designed off this thread: no stall of the stream while long filters
   * are designed and transformed */
  if (changed)
    gst_cl_crossover_queue_design (self);
  gst_cl_crossover_apply (self, buf);
}

