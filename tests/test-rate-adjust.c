/* clresample: rate-adjust, a factor on the output rate that may change
 * while playing (issue 48, items 1 and 7). Real elements, the real OpenCL
 * device; every count checked is the one the integer position math gives
 * (clr-engine.h, CLR_VAR_I), every sample against a float64 reference. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "resample/clr-engine.h"
#include "clr-reference.h"
#include "clr-signal.h"
#include "clr-analysis.h"

/* The step a variable ratio takes for factor a: 2^32 input phases a
 * phase, D of them an output frame (clr-engine.h) */
static guint64
step_for (int in_rate, int out_rate, double a)
{
  return (guint64) llround (4294967296.0 * in_rate / ((double) out_rate * a));
}

/* Output frames of a whole stream of n input frames at step D: those m
 * whose position floor (m D / 2^32) lies before the input's end */
static guint64
total_for (guint64 n, guint64 D)
{
  return ((n << 32) + D - 1) / D;
}

static gchar *
caps_for (GstAudioFormat fmt, int rate, int ch)
{
  return g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=%d,channels=%d,channel-mask=(bitmask)0",
      gst_audio_format_to_string (fmt), rate, ch);
}

static GstHarness *
harness_for (const char *launch, GstAudioFormat fmt, int ch, int in_rate,
    int out_rate)
{
  GstHarness *h = gst_harness_new_parse (launch);
  gchar *in = caps_for (fmt, in_rate, ch), *out = caps_for (fmt, out_rate,
      ch);

  gst_harness_set_sink_caps_str (h, out);
  gst_harness_set_src_caps_str (h, in);
  g_free (in);
  g_free (out);
  return h;
}

static void
put_sample (guint8 * p, gsize i, GstAudioFormat fmt, double v)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F64:
      ((double *) p)[i] = v;
      break;
    case GST_AUDIO_FORMAT_S16:
      ((gint16 *) p)[i] = (gint16) CLAMP (lrint (v * 32768.0), -32768, 32767);
      break;
    default:
      ((float *) p)[i] = (float) v;
      break;
  }
}

static double
get_sample (const guint8 * p, gsize i, GstAudioFormat fmt)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F64:
      return ((const double *) p)[i];
    case GST_AUDIO_FORMAT_S16:
      return ((const gint16 *) p)[i] / 32768.0;
    default:
      return ((const float *) p)[i];
  }
}

static gsize
sample_bytes (GstAudioFormat fmt)
{
  return fmt == GST_AUDIO_FORMAT_F64 ? 8 : fmt == GST_AUDIO_FORMAT_S16 ? 2 :
      4;
}

/* What came out: every sample (interleaved doubles), the raw bytes, and
 * each buffer's first frame and stamps */
typedef struct
{
  GArray *data;
  GByteArray *bytes;
  GArray *pts, *dur, *frames;
} Out;

static void
out_init (Out * o)
{
  o->data = g_array_new (FALSE, FALSE, sizeof (double));
  o->bytes = g_byte_array_new ();
  o->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  o->dur = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  o->frames = g_array_new (FALSE, FALSE, sizeof (guint64));
}

static void
out_clear (Out * o)
{
  g_array_unref (o->data);
  g_byte_array_unref (o->bytes);
  g_array_unref (o->pts);
  g_array_unref (o->dur);
  g_array_unref (o->frames);
}

static gsize
out_frames (const Out * o, int ch)
{
  return o->data->len / ch;
}

static void
pull_all (GstHarness * h, GstAudioFormat fmt, int ch, Out * o)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;
    gsize i, n;
    guint64 f = out_frames (o, ch);

    gst_buffer_map (b, &map, GST_MAP_READ);
    n = map.size / sample_bytes (fmt);
    for (i = 0; i < n; i++) {
      double v = get_sample (map.data, i, fmt);
      g_array_append_val (o->data, v);
    }
    g_byte_array_append (o->bytes, map.data, map.size);
    gst_buffer_unmap (b, &map);
    g_array_append_val (o->pts, GST_BUFFER_PTS (b));
    g_array_append_val (o->dur, GST_BUFFER_DURATION (b));
    g_array_append_val (o->frames, f);
    gst_buffer_unref (b);
  }
}

/* At input frame `at` of the stream, before it is pushed */
typedef void (*AtFunc) (GstHarness * h, gsize at, gpointer data);

/* x (interleaved doubles, frames of ch) through `launch` from in_rate to
 * out_rate in buffers of `piece` frames, stamped from the frame count;
 * then EOS */
static void
run_stream (const char *launch, GstAudioFormat fmt, int ch, int in_rate,
    int out_rate, const double *x, gsize frames, gsize piece, AtFunc at,
    gpointer data, Out * o)
{
  GstHarness *h = harness_for (launch, fmt, ch, in_rate, out_rate);
  gsize pos = 0, i;

  out_init (o);
  while (pos < frames) {
    gsize n = MIN (piece, frames - pos);
    GstBuffer *b = gst_buffer_new_allocate (NULL, n * ch *
        sample_bytes (fmt), NULL);
    GstMapInfo map;

    if (at)
      at (h, pos, data);
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (i = 0; i < n * ch; i++)
      put_sample (map.data, i, fmt, x[pos * ch + i]);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale_int_round (pos, GST_SECOND,
        in_rate);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int_round (pos + n,
        GST_SECOND, in_rate) - GST_BUFFER_PTS (b);
    GST_BUFFER_OFFSET (b) = pos;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    pull_all (h, fmt, ch, o);
    pos += n;
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, fmt, ch, o);
  gst_harness_teardown (h);
}

/* amp sin (2 pi f_c t / rate) on each channel c, f_c = f (1 + c / 2) */
static double *
sine (gsize frames, int ch, double f, int rate, double amp)
{
  double *x = g_new (double, frames * ch);
  gsize i;
  int c;

  for (i = 0; i < frames; i++)
    for (c = 0; c < ch; c++)
      x[i * ch + c] = amp * sin (2.0 * G_PI * f * (1.0 + c / 2.0) *
          (double) i / rate);
  return x;
}

/* The error of o against the ideal sine at output m's exact input
 * position t(m) = m * D / I (input samples), over outputs [skip, n -
 * skip), in dB of the sine's RMS: THD+N against the float64 truth */
static double
error_db (const Out * o, int ch, double f, int in_rate, double amp,
    guint64 I, guint64 D, gsize skip)
{
  const gsize n = out_frames (o, ch);
  double e2 = 0.0, s2 = 0.0;
  gsize m;
  int c;

  fail_unless (n > 2 * skip);
  for (m = skip; m < n - skip; m++) {
    /* m * D as n + p / I exactly (I, D < 2^43, m < 2^20) */
    const guint64 q = (guint64) m * D;
    const double t = (double) (q / I) + (double) (q % I) / (double) I;

    for (c = 0; c < ch; c++) {
      const double want = amp * sin (2.0 * G_PI * f * (1.0 + c / 2.0) * t /
          in_rate);
      const double d = g_array_index (o->data, double, m * ch + c) - want;
      e2 += d * d;
      s2 += want * want;
    }
  }
  return 10.0 * log10 (e2 / s2);
}

/* Buffers stamped from the frame count at the output caps' rate, each
 * where the one before ended */
static void
check_stamps (const Out * o, int out_rate)
{
  guint i;

  for (i = 0; i < o->pts->len; i++) {
    guint64 f = g_array_index (o->frames, guint64, i);
    GstClockTime pts = g_array_index (o->pts, GstClockTime, i);
    GstClockTime dur = g_array_index (o->dur, GstClockTime, i);

    fail_unless_equals_uint64 (pts, gst_util_uint64_scale_int_round (f,
            GST_SECOND, out_rate));
    if (i + 1 < o->pts->len)
      fail_unless_equals_uint64 (pts + dur, g_array_index (o->pts,
              GstClockTime, i + 1));
  }
}

typedef struct
{
  int in_rate, out_rate;
  double adjust;
} CountCase;

/* A constant factor: exactly the frames the integer math gives, within
 * one frame of n * out / in * a, stamped at the caps' rate */
GST_START_TEST (test_counts)
{
  static const CountCase cases[] = {
    {44100, 48000, 1.0001}, {44100, 48000, 0.9995}, {48000, 44100, 1.03},
    {48000, 48000, 1.000125}, {48000, 48000, 0.95}, {44100, 44101, 1.05},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const CountCase *k = &cases[i];
    const gsize n = k->in_rate / 2 + 123;
    double *x = sine (n, 1, 440.0, k->in_rate, 0.5);
    gchar *launch = g_strdup_printf ("clresample max-hold=0 rate-adjust=%.17g",
        k->adjust);
    const guint64 D = step_for (k->in_rate, k->out_rate, k->adjust);
    const guint64 want = total_for (n, D);
    const double ideal = (double) n * k->out_rate / k->in_rate * k->adjust;
    Out o;

    run_stream (launch, GST_AUDIO_FORMAT_F32, 1, k->in_rate, k->out_rate, x,
        n, 1000, NULL, NULL, &o);
    GST_INFO ("%d -> %d Hz x %.9g: %" G_GSIZE_FORMAT " frames, %.3f ideal",
        k->in_rate, k->out_rate, k->adjust, out_frames (&o, 1), ideal);
    fail_unless_equals_uint64 (out_frames (&o, 1), want);
    fail_unless (fabs ((double) want - ideal) <= 1.0);
    check_stamps (&o, k->out_rate);
    /* a variable ratio is not the caps' ratio: the sine comes out at the
     * adjusted positions */
    fail_unless (error_db (&o, 1, 440.0, k->in_rate, 0.5, G_GUINT64_CONSTANT
            (1) << 32, D, 200) < -80.0);
    out_clear (&o);
    g_free (launch);
    g_free (x);
  }
}

GST_END_TEST;

/* 1 kHz, 44.1 -> 48 kHz, at the fixed ratio and at a steady 1.0001: the
 * error against the float64 truth within 6 dB of the fixed ratio's */
static void
quality_case (GstAudioFormat fmt, int quality, double *fixed_db,
    double *var_db)
{
  const gsize n = 44100;
  double *x = sine (n, 1, 1000.0, 44100, 0.5);
  gchar *l_fixed = g_strdup_printf ("clresample max-hold=0 quality=%d",
      quality);
  gchar *l_var = g_strdup_printf ("clresample max-hold=0 quality=%d "
      "rate-adjust=1.0001", quality);
  Out o;

  run_stream (l_fixed, fmt, 1, 44100, 48000, x, n, 1024, NULL, NULL, &o);
  *fixed_db = error_db (&o, 1, 1000.0, 44100, 0.5, 160, 147, 4800);
  out_clear (&o);
  run_stream (l_var, fmt, 1, 44100, 48000, x, n, 1024, NULL, NULL, &o);
  *var_db = error_db (&o, 1, 1000.0, 44100, 0.5, G_GUINT64_CONSTANT (1) << 32,
      step_for (44100, 48000, 1.0001), 4800);
  out_clear (&o);
  g_printerr ("1 kHz 44.1 -> 48 kHz %s quality %d: fixed %.1f dB, "
      "rate-adjust=1.0001 %.1f dB\n", gst_audio_format_to_string (fmt),
      quality, *fixed_db, *var_db);
  g_free (l_fixed);
  g_free (l_var);
  g_free (x);
}

GST_START_TEST (test_quality)
{
  static const struct
  {
    GstAudioFormat fmt;
    int quality;
  } cases[] = {
    {GST_AUDIO_FORMAT_F32, 4}, {GST_AUDIO_FORMAT_F32, 10},
    {GST_AUDIO_FORMAT_F64, 10},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    double fixed, var;

    quality_case (cases[i].fmt, cases[i].quality, &fixed, &var);
    fail_unless (var <= fixed + 6.0, "%s q%d: %.1f dB against %.1f fixed",
        gst_audio_format_to_string (cases[i].fmt), cases[i].quality, var,
        fixed);
  }
}

GST_END_TEST;

typedef struct
{
  gsize at[4];
  double adjust[4];
} Steps;

static void
set_steps_on (GstElement * e, gsize pos, gpointer data)
{
  Steps *s = data;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (s->at); i++)
    if (s->at[i] == pos)
      g_object_set (e, "rate-adjust", s->adjust[i], NULL);
}

static void
set_steps (GstHarness * h, gsize pos, gpointer data)
{
  GstElement *e = gst_harness_find_element (h, "clresample");

  set_steps_on (e, pos, data);
  gst_object_unref (e);
}

/* A 100 Hz sine, rate-adjust stepped while playing: from the exact ratio
 * to +500 ppm (a switch to the variable ratio), to -500 ppm, back to 1.0.
 * No click: no second difference past the sine's own (A w^2, w at the
 * fastest the factor makes it) and the filter's noise; the tone clean at
 * the end. A position off by 0.05 input samples at a switch would add
 * A w 0.05 = 3e-4 to a second difference. */
GST_START_TEST (test_no_click)
{
  const gsize n = 44100 * 2;
  const double amp = 0.5, f = 100.0;
  double *x = sine (n, 1, f, 44100, amp);
  Steps steps = { {44100 / 2, 44100, 44100 * 3 / 2, G_MAXSIZE},
  {1.0005, 0.9995, 1.0, 1.0}
  };
  const double w = 2.0 * G_PI * f / (48000 * 0.9995);
  const double bound = amp * w * w * 1.01 + 2e-5;
  double worst = 0.0;
  ClrSineFit fit;
  float *tail;
  gsize m, len;
  Out o;

  run_stream ("clresample max-hold=0", GST_AUDIO_FORMAT_F32, 1, 44100, 48000,
      x, n, 441, set_steps, &steps, &o);
  /* the factors' frames: between 1.0 and 1.0005 of 48000 a second */
  GST_INFO ("%" G_GSIZE_FORMAT " frames", out_frames (&o, 1));
  fail_unless (out_frames (&o, 1) > 96000 && out_frames (&o, 1) < 96000 +
      24 + 1);
  check_stamps (&o, 48000);
  /* not the stream's own start and end, where the sine starts and stops
   * abruptly */
  for (m = 200; m + 1 < out_frames (&o, 1) - 200; m++) {
    const double *y = (const double *) o.data->data;
    const double d2 = fabs (y[m + 1] - 2.0 * y[m] + y[m - 1]);

    if (d2 > bound && g_getenv ("CLR_TEST_DUMP"))
      g_printerr ("d2 %g at %" G_GSIZE_FORMAT "\n", d2, m);
    worst = MAX (worst, d2);
  }
  GST_INFO ("worst second difference %g, bound %g", worst, bound);
  fail_unless (worst <= bound, "a click: second difference %g > %g", worst,
      bound);
  /* slewed back to 1.0: a clean 100 Hz tone over the last 0.3 s */
  len = 48000 * 3 / 10;
  tail = g_new (float, len);
  for (m = 0; m < len; m++)
    tail[m] = (float) g_array_index (o.data, double, out_frames (&o, 1) -
        len - 200 + m);
  clr_sine_fit (tail, 0, len, 1, 0, f, 48000, &fit);
  GST_INFO ("after the steps: THD+N %.1f dB", clr_sine_fit_thdn_db (&fit));
  fail_unless (clr_sine_fit_thdn_db (&fit) < -90.0);
  g_free (tail);
  out_clear (&o);
  g_free (x);
}

GST_END_TEST;

/* Steps applied on clresample's sink pad as each buffer arrives: the
 * factor set just before the buffer that starts at s->at[i] */
static GstPadProbeReturn
steps_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  GstElement *e = GST_ELEMENT (gst_pad_get_parent (pad));

  set_steps_on (e, GST_BUFFER_OFFSET (b), data);
  gst_object_unref (e);
  return GST_PAD_PROBE_OK;
}

/* x (stereo F32, 44.1 kHz) to 48 kHz through a real pipeline, appsrc !
 * clresample max-hold=HOLD ! appsink, not live and not synced: pushed as
 * fast as it goes, ahead of the pipeline's clock as a file's conversion
 * is. The output's bytes into o->bytes, its buffers counted in o->pts. */
static void
run_pipeline (guint64 max_hold, const double *x, gsize frames, gsize piece,
    Steps * steps, Out * o)
{
  gchar *launch = g_strdup_printf ("appsrc name=src format=time ! "
      "audio/x-raw,format=F32LE,rate=44100,channels=2,layout=interleaved ! "
      "clresample name=r max-hold=%" G_GUINT64_FORMAT " ! "
      "audio/x-raw,rate=48000 ! appsink name=sink sync=false", max_hold);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (r, "sink");
  GstSample *sample;
  GstFlowReturn ret;
  gsize pos = 0, i;

  fail_unless (pipe != NULL);
  out_init (o);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, steps_probe, steps,
      NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (pos = 0; pos < frames; pos += piece) {
    gsize n = MIN (piece, frames - pos);
    GstBuffer *b = gst_buffer_new_allocate (NULL, n * 2 * sizeof (float),
        NULL);
    GstMapInfo map;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (i = 0; i < n * 2; i++)
      ((float *) map.data)[i] = (float) x[pos * 2 + i];
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale_int_round (pos, GST_SECOND,
        44100);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int_round (pos + n,
        GST_SECOND, 44100) - GST_BUFFER_PTS (b);
    GST_BUFFER_OFFSET (b) = pos;
    g_signal_emit_by_name (src, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  for (;;) {
    GstMapInfo map;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    gst_buffer_map (gst_sample_get_buffer (sample), &map, GST_MAP_READ);
    g_byte_array_append (o->bytes, map.data, map.size);
    gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
    g_array_append_val (o->pts, GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)));
    gst_sample_unref (sample);
  }
  fail_unless (o->bytes->len > 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (r);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
}

/* A stream converted ahead of the clock gathers its input (max-hold) into
 * larger jobs: a factor set before a buffer applies from that buffer on
 * all the same, not from wherever the held input next goes through (which
 * held a ramp's factor for half a second at a time). The output is the
 * same to the bit as buffer by buffer: the steps fall on input frames,
 * however the input is cut. */
GST_START_TEST (test_held_input)
{
  const gsize n = 44100 * 2;
  double *x = sine (n, 2, 1000.0, 44100, 0.5);
  Steps steps = { {4410, 44100 / 2, 44100, 44100 * 3 / 2},
  {1.0002, 1.0005, 0.9995, 1.0}
  };
  Out held, alone;

  run_pipeline (GST_SECOND, x, n, 441, &steps, &held);
  run_pipeline (0, x, n, 441, &steps, &alone);
  GST_INFO ("held: %u buffers, buffer by buffer: %u", held.pts->len,
      alone.pts->len);
  /* it did hold: fewer, larger buffers */
  fail_unless (held.pts->len < alone.pts->len / 2);
  fail_unless_equals_uint64 (held.bytes->len, alone.bytes->len);
  fail_unless (memcmp (held.bytes->data, alone.bytes->data,
          held.bytes->len) == 0);
  out_clear (&held);
  out_clear (&alone);
  g_free (x);
}

GST_END_TEST;

static void
set_then_unset (GstHarness * h, gsize pos, gpointer data)
{
  (void) data;
  if (pos == 0) {
    GstElement *e = gst_harness_find_element (h, "clresample");

    g_object_set (e, "rate-adjust", 1.0001, NULL);
    g_object_set (e, "rate-adjust", 1.0, NULL);
    gst_object_unref (e);
  }
}

/* Exactly 1.0, set or never set: the exact rational path, the same
 * bytes as without the property, and equal rates pass through */
GST_START_TEST (test_exactly_one)
{
  const gsize n = 20000;
  double *x = sine (n, 2, 997.0, 44100, 0.5);
  Out a, b, c;
  gsize i;

  run_stream ("clresample max-hold=0", GST_AUDIO_FORMAT_F32, 2, 44100, 48000,
      x, n, 1000, NULL, NULL, &a);
  run_stream ("clresample max-hold=0 rate-adjust=1.0", GST_AUDIO_FORMAT_F32,
      2, 44100, 48000, x, n, 1000, NULL, NULL, &b);
  fail_unless_equals_int (a.bytes->len, b.bytes->len);
  fail_unless (memcmp (a.bytes->data, b.bytes->data, a.bytes->len) == 0);
  /* set and set back before a buffer went through: still the exact ratio */
  run_stream ("clresample max-hold=0", GST_AUDIO_FORMAT_F32, 2, 44100, 48000,
      x, n, 1000, set_then_unset, NULL, &c);
  fail_unless_equals_int (a.bytes->len, c.bytes->len);
  fail_unless (memcmp (a.bytes->data, c.bytes->data, a.bytes->len) == 0);
  out_clear (&a);
  out_clear (&b);
  out_clear (&c);
  /* equal rates at 1.0: the input's bytes */
  run_stream ("clresample max-hold=0 rate-adjust=1.0", GST_AUDIO_FORMAT_F32,
      2, 48000, 48000, x, n, 1000, NULL, NULL, &a);
  fail_unless_equals_int (out_frames (&a, 2), n);
  for (i = 0; i < n * 2; i++)
    fail_unless (g_array_index (a.data, double, i) == (float) x[i]);
  out_clear (&a);
  g_free (x);
}

GST_END_TEST;

static void
set_at_12000 (GstHarness * h, gsize pos, gpointer data)
{
  if (pos == 12000) {
    GstElement *e = gst_harness_find_element (h, "clresample");

    g_object_set (e, "rate-adjust", *(double *) data, NULL);
    gst_object_unref (e);
  }
}

/* Equal rates pass through until rate-adjust leaves 1.0: the input's
 * samples up to there, then a variable ratio from that buffer on (its
 * frames exactly the integer math's), the stamps contiguous across */
GST_START_TEST (test_leave_passthrough)
{
  const gsize n = 36000;
  double *x = sine (n, 1, 440.0, 48000, 0.5), adjust = 1.001;
  gsize i;
  Out o;

  run_stream ("clresample max-hold=0", GST_AUDIO_FORMAT_F32, 1, 48000, 48000,
      x, n, 1000, set_at_12000, &adjust, &o);
  fail_unless_equals_uint64 (out_frames (&o, 1), 12000 + total_for (n -
          12000, step_for (48000, 48000, adjust)));
  for (i = 0; i < 12000; i++)
    fail_unless (g_array_index (o.data, double, i) == (float) x[i]);
  check_stamps (&o, 48000);
  out_clear (&o);
  g_free (x);
}

GST_END_TEST;

/* Downsampling 48 -> 44.1 kHz at 0.999, then 0.99 while playing: the
 * filter serves down to 0.999 * (1 - 0.002) only, so the element builds
 * one for 0.99 and switches to it. A tone at 21.95 kHz, past the output's
 * Nyquist at 0.99 (21.83 kHz) but inside the first filter's transition
 * band, must stay at the quality's stopband (125 dB at quality 4) once
 * the factor slewed there: no aliasing. */
GST_START_TEST (test_no_alias_down)
{
  const gsize n = 48000 * 3 / 2;
  double *x = sine (n, 1, 21950.0, 48000, 0.5), to = 0.99, e2 = 0.0, db;
  gsize m, from, len;
  Out o;

  run_stream ("clresample max-hold=0 rate-adjust=0.999",
      GST_AUDIO_FORMAT_F64, 1, 48000, 44100, x, n, 480, set_at_12000, &to,
      &o);
  /* the last 0.3 s but the tail, at 0.99 since 0.9 s of slew */
  len = 44100 * 3 / 10;
  from = out_frames (&o, 1) - len - 200;
  for (m = from; m < from + len; m++)
    e2 += g_array_index (o.data, double, m) * g_array_index (o.data, double,
        m);
  db = 10.0 * log10 (e2 / len / (0.5 * 0.5 / 2));
  g_printerr ("alias of 21.95 kHz at 48 -> 44.1 kHz x 0.99: %.1f dB\n", db);
  fail_unless (db < -120.0, "alias %.1f dB", db);
  out_clear (&o);
  g_free (x);
}

GST_END_TEST;

typedef struct
{
  GstBus *bus;
  gsize at;
  double bad;
} Bad;

static void
set_bad (GstHarness * h, gsize pos, gpointer data)
{
  Bad *b = data;
  GstElement *e = gst_harness_find_element (h, "clresample");

  if (pos == 0) {
    b->bus = gst_bus_new ();
    gst_element_set_bus (e, b->bus);
  }
  if (pos == b->at)
    g_object_set (e, "rate-adjust", b->bad, NULL);
  gst_object_unref (e);
}

/* 1.2 and 0.9 while playing at 1.0001: refused with a warning that says
 * what to do, and the stream goes on at 1.0001 (its frame count says so) */
GST_START_TEST (test_bad_input)
{
  static const double bad[] = { 1.2, 0.9, 1.0500001 };
  const gsize n = 44100;
  double *x = sine (n, 1, 440.0, 44100, 0.5);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    Bad b = { NULL, 20000, bad[i] };
    GstMessage *msg;
    GError *err = NULL;
    gchar *debug = NULL, *expect;
    Out o;

    run_stream ("clresample max-hold=0 rate-adjust=1.0001",
        GST_AUDIO_FORMAT_F32, 1, 44100, 48000, x, n, 1000, set_bad, &b, &o);
    fail_unless_equals_uint64 (out_frames (&o, 1), total_for (n,
            step_for (44100, 48000, 1.0001)));
    msg = gst_bus_pop_filtered (b.bus, GST_MESSAGE_WARNING);
    fail_unless (msg != NULL, "no warning for rate-adjust=%g", bad[i]);
    gst_message_parse_warning (msg, &err, &debug);
    GST_INFO ("warning: %s", err->message);
    expect = g_strdup_printf ("rate-adjust %g is out of range", bad[i]);
    fail_unless (strstr (err->message, expect) != NULL, "%s", err->message);
    fail_unless (strstr (err->message, "between 0.95 and 1.05") != NULL);
    fail_unless (strstr (err->message, "goes on at 1.0001") != NULL,
        "%s", err->message);
    fail_unless (gst_bus_pop_filtered (b.bus, GST_MESSAGE_ERROR) == NULL);
    g_free (expect);
    g_error_free (err);
    g_free (debug);
    gst_message_unref (msg);
    gst_object_unref (b.bus);
    out_clear (&o);
  }
  g_free (x);
}

GST_END_TEST;

typedef struct
{
  GstAudioFormat fmt;
  int ch;
  double adjust;
  double bound_db;
  double got_db;
  gsize frames, want;
} Stream;

static gpointer
run_one (gpointer data)
{
  Stream *s = data;
  const gsize n = 44100 / 2;
  double *x = sine (n, s->ch, 1000.0, 44100, 0.5);
  gchar *launch = g_strdup_printf ("clresample max-hold=0 rate-adjust=%.17g",
      s->adjust);
  const guint64 D = step_for (44100, 48000, s->adjust);
  Out o;

  run_stream (launch, s->fmt, s->ch, 44100, 48000, x, n, 441, NULL, NULL,
      &o);
  s->frames = out_frames (&o, s->ch);
  s->want = total_for (n, D);
  s->got_db = error_db (&o, s->ch, 1000.0, 44100, 0.5, G_GUINT64_CONSTANT (1)
      << 32, D, 200);
  out_clear (&o);
  g_free (launch);
  g_free (x);
  return NULL;
}

/* F32, F64 and S16, mono and stereo, each at its own factor, all at once
 * in one process: the streams of one format and layout may share launches
 * (test_engine_batched makes sure they do), each with its own step in its
 * row. Every count exact, every stream
 * within its format's bound of the float64 truth. */
GST_START_TEST (test_formats_batched)
{
  Stream streams[] = {
    {GST_AUDIO_FORMAT_F32, 1, 1.0001, -95.0},
    {GST_AUDIO_FORMAT_F32, 1, 0.9993, -95.0},
    {GST_AUDIO_FORMAT_F32, 2, 1.0002, -95.0},
    {GST_AUDIO_FORMAT_F32, 2, 0.9998, -95.0},
    {GST_AUDIO_FORMAT_F64, 1, 1.0003, -95.0},
    {GST_AUDIO_FORMAT_F64, 2, 0.9997, -95.0},
    {GST_AUDIO_FORMAT_S16, 1, 1.0004, -85.0},
    {GST_AUDIO_FORMAT_S16, 2, 0.9996, -85.0},
  };
  GThread *t[G_N_ELEMENTS (streams)];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (streams); i++)
    t[i] = g_thread_new ("stream", run_one, &streams[i]);
  for (i = 0; i < G_N_ELEMENTS (streams); i++)
    g_thread_join (t[i]);
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    Stream *s = &streams[i];

    GST_INFO ("%s %d ch x %.9g: %" G_GSIZE_FORMAT " frames, %.1f dB",
        gst_audio_format_to_string (s->fmt), s->ch, s->adjust, s->frames,
        s->got_db);
    fail_unless_equals_uint64 (s->frames, s->want);
    fail_unless (s->got_db < s->bound_db, "%s %d ch: %.1f dB",
        gst_audio_format_to_string (s->fmt), s->ch, s->got_db);
  }
}

GST_END_TEST;

/* ---- The engine alone ------------------------------------------------ */

static ClrDevice *device;

/* the engines' overrides: the environment's, but for the tests of the
 * device's shared batches (its kernels, where a CPU device's streams
 * would run on the host) */
static ClrTuning var_tuning;
static gboolean var_tuning_set;

static ClrEngine *
var_engine_full (int in_rate, int out_rate, int ch, double adjust,
    int quality, ClrFormat format, double adjust_low)
{
  if (!var_tuning_set) {
    var_tuning = *clr_tuning_get ();
    var_tuning_set = TRUE;
  }
  ClrEngineConfig cfg = { 0, };
  GError *err = NULL;
  ClrEngine *e;

  /* in the test's own process: gst-check forks a child for each test,
   * and an OpenCL platform does not survive a fork */
  if (!device && !(device = clr_device_acquire ("auto", &err)))
    g_error ("no OpenCL device for the tests: %s", err->message);

  cfg.in_rate = in_rate;
  cfg.out_rate = out_rate;
  cfg.channels = ch;
  cfg.quality = quality;
  cfg.format = format;
  cfg.variable = adjust > 0.0;
  cfg.adjust = adjust;
  cfg.adjust_low = adjust_low;
  cfg.history = 4096;
  e = clr_engine_new_tuned (device, &cfg, &var_tuning, &err);
  fail_unless (e != NULL, "%s", err ? err->message : "");
  return e;
}

static ClrEngine *
var_engine (int in_rate, int out_rate, int ch, double adjust)
{
  return var_engine_full (in_rate, out_rate, ch, adjust,
      CLR_QUALITY_DEFAULT, CLR_FORMAT_F32, adjust > 0.0 ? MIN (adjust,
          1.0) : 0.0);
}

/* The interpolating kernel the plan gives ch channels on the test's
 * device: two channels a work-item on a CPU (fp64), one on a GPU
 * (docs/design.md, "Kernel selection") */
static const char *
interp_kernel (int ch)
{
  return !clr_device_is_gpu (device) && ch >= 2 ? "clr_resample_interp_c2" :
      "clr_resample_interp";
}

/* in[0..n) through e in pieces of 1 to 3000 frames, then drained */
static float *
engine_run (ClrEngine * e, const float *in, gsize n, int ch, gsize * got)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (float));
  guint32 seed = 7;
  gsize pos = 0, k;
  GError *err = NULL;

  while (pos < n) {
    gsize len = MIN (n - pos, 1 + (seed = seed * 1664525u + 1013904223u) %
        3000), want = clr_engine_out_frames (e, len);
    const void *ip[1] = { in + pos * ch };
    void *op[1];

    g_array_set_size (out, out->len + want * ch);
    op[0] = &g_array_index (out, float, out->len - want * ch);
    fail_unless (clr_engine_process (e, ip, len, op, &k, &err), "%s",
        err ? err->message : "");
    fail_unless_equals_uint64 (k, want);
    pos += len;
  }
  k = clr_engine_drain_frames (e);
  {
    void *op[1];
    gsize d;

    g_array_set_size (out, out->len + k * ch);
    op[0] = &g_array_index (out, float, out->len - k * ch);
    fail_unless (clr_engine_drain (e, op, &d, &err));
    fail_unless_equals_uint64 (d, k);
  }
  *got = out->len / ch;
  return (float *) g_array_free (out, FALSE);
}

/* A constant factor against the float64 reference of the same filter at
 * the same exact positions (ratio 2^32 / D): every sample within 1e-5,
 * the count exact, in buffers of any size; non-interleaved planes the
 * same samples */
GST_START_TEST (test_engine_reference)
{
  static const CountCase cases[] = {
    {44100, 48000, 1.0003}, {48000, 44100, 0.97}, {48000, 48000, 1.02},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const CountCase *k = &cases[i];
    const gsize n = 6000;
    const int ch = 2;
    float *in = g_new (float, n * ch), *got;
    ClrEngine *e = var_engine (k->in_rate, k->out_rate, ch, k->adjust);
    ClrRatio r = { k->in_rate, k->out_rate, G_GUINT64_CONSTANT (1) << 32,
      step_for (k->in_rate, k->out_rate, k->adjust)
    };
    double *ref, worst = 0.0;
    gsize n_ref, n_got, j;

    fail_unless (clr_engine_is_variable (e));
    fail_unless_equals_string (clr_engine_get_kernel (e), interp_kernel (ch));
    clr_signal_noise (in, n * ch, 0.5, 1000 + i);
    got = engine_run (e, in, n, ch, &n_got);
    ref = clr_reference_resample (&r, clr_engine_get_filter (e), in, n, ch,
        &n_ref);
    fail_unless_equals_uint64 (n_got, n_ref);
    fail_unless_equals_uint64 (n_got, total_for (n, r.D));
    for (j = 0; j < n_ref * ch; j++)
      worst = MAX (worst, fabs (got[j] - ref[j]));
    GST_INFO ("%d -> %d x %g: worst %g", k->in_rate, k->out_rate, k->adjust,
        worst);
    fail_unless (worst <= 1e-5, "worst %g", worst);
    /* non-interleaved: the same samples, plane by plane */
    {
      ClrEngineConfig cfg = { 0, };
      GError *err = NULL;
      ClrEngine *pe;
      float *planes = g_new (float, n * ch), *pout;
      gsize c, f, want, drained, got_n;
      const void *ip[2] = { planes, planes + n };
      void *op[2];

      cfg.in_rate = k->in_rate;
      cfg.out_rate = k->out_rate;
      cfg.channels = ch;
      cfg.quality = CLR_QUALITY_DEFAULT;
      cfg.format = CLR_FORMAT_F32;
      cfg.planar = TRUE;
      cfg.variable = TRUE;
      cfg.adjust = k->adjust;
      cfg.adjust_low = MIN (k->adjust, 1.0);
      pe = clr_engine_new (device, &cfg, &err);
      fail_unless (pe != NULL);
      for (c = 0; c < (gsize) ch; c++)
        for (f = 0; f < n; f++)
          planes[c * n + f] = in[f * ch + c];
      want = clr_engine_out_frames (pe, n);
      drained = n_got - want;
      pout = g_new (float, n_got * ch);
      op[0] = pout;
      op[1] = pout + want;
      fail_unless (clr_engine_process (pe, ip, n, op, &got_n, &err));
      fail_unless_equals_uint64 (got_n, want);
      fail_unless_equals_uint64 (clr_engine_drain_frames (pe), drained);
      {
        float *tail = g_new (float, drained * ch + 1);
        void *tp[2] = { tail, tail + drained };

        fail_unless (clr_engine_drain (pe, tp, &got_n, &err));
        fail_unless_equals_uint64 (got_n, drained);
        for (c = 0; c < (gsize) ch; c++)
          for (f = 0; f < n_got; f++)
            fail_unless (got[f * ch + c] == (f < want ? pout[c * want + f] :
                    tail[c * drained + f - want]));
        g_free (tail);
      }
      g_free (pout);
      g_free (planes);
      clr_engine_free (pe);
    }
    g_free (ref);
    g_free (got);
    g_free (in);
    clr_engine_free (e);
  }
}

GST_END_TEST;

/* A successor continues a variable stream where it is, bit for bit (the
 * same filter on the same device), its factor and slew with it; a fixed
 * ratio's stream continues on a variable one at its exact position; and a
 * fixed ratio refuses a variable one's stream */
GST_START_TEST (test_engine_continuation)
{
  const gsize n = 9000, half = 4321;
  const int ch = 1;
  float *in = g_new (float, n), *whole, *a, *b;
  ClrEngine *e, *s, *f;
  gsize n_whole, na, nb, k;
  GError *err = NULL;
  int64_t pn, qn;
  uint64_t pp, qp, pd, qd;
  const void *ip[1];
  void *op[1];

  clr_signal_noise (in, n, 0.5, 99);
  /* the whole stream on one engine, slewing from 1.0 to 1.002 from
   * frame half on */
  e = var_engine (44100, 48000, ch, 1.0);
  a = g_new (float, 2 * n);
  ip[0] = in;
  op[0] = a;
  fail_unless (clr_engine_process (e, ip, half, op, &na, &err));
  fail_unless (clr_engine_set_adjust (e, 1.002));
  fail_unless (!clr_engine_set_adjust (e, 1.2));
  fail_unless_equals_float (clr_engine_get_adjust_target (e), 1.002);
  k = clr_engine_out_frames (e, n - half);
  ip[0] = in + half;
  op[0] = a + na;
  fail_unless (clr_engine_process (e, ip, n - half, op, &nb, &err));
  fail_unless_equals_uint64 (nb, k);
  /* 10000 ppm/s: 0.2 s of input to reach it, more than the stream */
  fail_unless (clr_engine_get_adjust (e) > 1.0
      && clr_engine_get_adjust (e) < 1.002);
  whole = a;
  n_whole = na + nb;
  clr_engine_free (e);

  /* the same, cut over to a successor in mid-slew */
  e = var_engine (44100, 48000, ch, 1.0);
  b = g_new (float, 2 * n);
  ip[0] = in;
  op[0] = b;
  fail_unless (clr_engine_process (e, ip, half, op, &na, &err));
  fail_unless (clr_engine_set_adjust (e, 1.002));
  ip[0] = in + half;
  op[0] = b + na;
  fail_unless (clr_engine_process (e, ip, 1500, op, &nb, &err));
  s = var_engine (44100, 48000, ch, 1.0);
  fail_unless (clr_engine_continue_from (s, e, &err));
  clr_engine_get_position (e, &pn, &pp, &pd);
  clr_engine_get_position (s, &qn, &qp, &qd);
  fail_unless (pn == qn && pp == qp && pd == qd);
  fail_unless_equals_float (clr_engine_get_adjust (s),
      clr_engine_get_adjust (e));
  fail_unless_equals_float (clr_engine_get_adjust_target (s), 1.002);
  ip[0] = in + half + 1500;
  op[0] = b + na + nb;
  fail_unless (clr_engine_process (s, ip, n - half - 1500, op, &k, &err));
  fail_unless_equals_uint64 (na + nb + k, n_whole);
  fail_unless (memcmp (whole, b, n_whole * sizeof (float)) == 0);

  /* a fixed ratio refuses the variable stream */
  f = var_engine (44100, 48000, ch, 0.0);
  fail_if (clr_engine_continue_from (f, s, &err));
  fail_unless (err && strstr (err->message, "variable"));
  g_clear_error (&err);
  /* and a variable ratio continues a fixed one at its exact position
   * (160 phases: 2^32 / 160 is exact in 2^-32 units only to the floor) */
  clr_engine_reset (f);
  ip[0] = in;
  op[0] = a;
  fail_unless (clr_engine_process (f, ip, 3001, op, &na, &err));
  clr_engine_free (s);
  s = var_engine (44100, 48000, ch, 1.0);
  fail_unless (clr_engine_continue_from (s, f, &err));
  clr_engine_get_position (f, &pn, &pp, &pd);
  clr_engine_get_position (s, &qn, &qp, &qd);
  fail_unless_equals_uint64 (pd, 160);
  fail_unless_equals_uint64 (qd, G_GUINT64_CONSTANT (1) << 32);
  fail_unless (pn == qn && qp == (pp << 32) / 160);
  fail_unless_equals_uint64 (clr_engine_get_out_total (s),
      clr_engine_get_out_total (f));

  clr_engine_free (e);
  clr_engine_free (s);
  clr_engine_free (f);
  g_free (a);
  g_free (b);
  g_free (in);
}

GST_END_TEST;

/* in[0..n) through e in pieces of `piece` frames (0: random, 1 to 3000),
 * the factor set to `to` before input frame `at`; then drained */
static float *
engine_run_step (ClrEngine * e, const float *in, gsize n, gsize piece,
    gsize at, double to, gsize * got)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (float));
  guint32 seed = 11;
  gsize pos = 0, k, d;
  GError *err = NULL;
  void *op[1] = { NULL };

  while (pos < n) {
    gsize len = piece ? piece : 1 + (seed = seed * 1664525u + 1013904223u) %
        3000, want;
    const void *ip[1] = { in + pos };

    if (pos <= at && pos + len > at && pos < at)
      len = at - pos;
    len = MIN (len, n - pos);
    if (pos == at)
      fail_unless (clr_engine_set_adjust (e, to));
    if (piece == 1) {
      /* calls of no input take no step of the slew */
      fail_unless_equals_uint64 (clr_engine_out_frames (e, 0), 0);
      fail_unless (clr_engine_process (e, ip, 0, op, &k, &err));
      fail_unless_equals_uint64 (k, 0);
    }
    want = clr_engine_out_frames (e, len);
    g_array_set_size (out, out->len + want);
    op[0] = &g_array_index (out, float, out->len - want);
    fail_unless (clr_engine_process (e, ip, len, op, &k, &err));
    fail_unless_equals_uint64 (k, want);
    pos += len;
  }
  k = clr_engine_drain_frames (e);
  g_array_set_size (out, out->len + k);
  op[0] = &g_array_index (out, float, out->len - k);
  fail_unless (clr_engine_drain (e, op, &d, &err));
  fail_unless_equals_uint64 (d, k);
  *got = out->len;
  return (float *) g_array_free (out, FALSE);
}

/* A slew's outputs, from a change on output 1 until get_adjust () first
 * reads the target: e fed one input frame a call from input frame `from`
 * on (its factor `to` set before frame `from`); the factor between
 * moves towards the target with every output or stays (the slope starts
 * from 0, so that the first outputs move the step by less than a unit),
 * never back and never past it */
static gsize
slew_outputs (ClrEngine * e, const float *in, gsize from, double to)
{
  const void *ip[1];
  float sink[8];
  void *op[1] = { sink };
  guint64 start;
  double last = clr_engine_get_adjust (e);
  const double sign = to > last ? 1.0 : -1.0;
  gsize i = from, k;
  GError *err = NULL;

  fail_unless (clr_engine_set_adjust (e, to));
  start = clr_engine_get_out_total (e);
  while (clr_engine_get_adjust (e) != to) {
    ip[0] = in + i++;
    fail_unless (clr_engine_process (e, ip, 1, op, &k, &err));
    if (k > 0) {
      const double now = clr_engine_get_adjust (e);

      fail_unless (sign * (now - last) >= 0.0 && sign * (to - now) >= 0.0,
          "%.15g after %.15g", now, last);
      last = now;
    }
  }
  return (gsize) (clr_engine_get_out_total (e) - start);
}

/* A slew comes out the same however the input is cut: the same samples
 * from buffers of 1 (each after a call of none), 441 and 1 to 3000
 * frames. It takes 20 ms of output for a small change (+5 ppm: 960
 * outputs at 48 kHz), 10000 ppm a second on average for a large one
 * (+2000 ppm: the step moves by 1 - 1 / 1.002, in 0.1996 s, 9582
 * outputs, two halves of 4791). */
GST_START_TEST (test_engine_slew)
{
  const gsize n = 20000, at = 2200;
  float *in = g_new (float, n), *ref, *got;
  static const gsize pieces[] = { 441, 1, 0 };
  gsize n_ref, n_got, i, outs;
  ClrEngine *e;

  clr_signal_noise (in, n, 0.5, 5);
  e = var_engine (44100, 48000, 1, 1.0);
  ref = engine_run_step (e, in, n, 4096, at, 1.002, &n_ref);
  fail_unless_equals_float (clr_engine_get_adjust (e), 1.002);
  for (i = 0; i < G_N_ELEMENTS (pieces); i++) {
    clr_engine_reset (e);
    fail_unless (clr_engine_set_adjust (e, 1.0));
    got = engine_run_step (e, in, n, pieces[i], at, 1.002, &n_got);
    fail_unless_equals_uint64 (n_got, n_ref);
    fail_unless (memcmp (got, ref, n_ref * sizeof (float)) == 0,
        "pieces of %" G_GSIZE_FORMAT ": other samples", pieces[i]);
    g_free (got);
  }
  clr_engine_reset (e);
  fail_unless (clr_engine_set_adjust (e, 1.0));
  {
    const void *ip[1] = { in };
    float sink[4096];
    void *op[1] = { sink };
    gsize k;
    GError *err = NULL;

    fail_unless (clr_engine_process (e, ip, at, op, &k, &err));
  }
  outs = slew_outputs (e, in, at, 1.002);
  GST_INFO ("+2000 ppm: %" G_GSIZE_FORMAT " outputs", outs);
  fail_unless (outs >= 9578 && outs <= 9584, "%" G_GSIZE_FORMAT, outs);
  outs = slew_outputs (e, in, at + 9000, 1.002005);
  GST_INFO ("+5 ppm: %" G_GSIZE_FORMAT " outputs", outs);
  fail_unless (outs >= 935 && outs <= 985, "%" G_GSIZE_FORMAT, outs);
  clr_engine_free (e);
  g_free (ref);
  g_free (in);
}

GST_END_TEST;

/* The test's own slew, output by output (clr-engine.h, clr-slew.h), in
 * units of 2^-48 of an input frame: from the next output on, the step
 * grows by the slope and the slope by a jerk an output, one jerk over the
 * first half of the slew and another over the second, then the step is
 * the target's and the position is cut to 2^-32 (the engine's fractions
 * end with the slew). Each half lasts 10 ms of output; a target set
 * within 160 ms of the last: the halves chosen last while they stay
 * within 1.25 to 4 times the outputs since, else the shortest of 10, 20,
 * 40 and 80 ms at least 1.5 times them; longer where the mean slope
 * would pass 10000 ppm a second. The jerks
 * j1 = (d - a0 (3h + 1) / 2) / h^2 rounded towards a0, j2 so that the
 * slope ends in [0, h) on the change's side, j1 moved on by one while
 * the step would pass the target. A slew that would last over 2^20
 * outputs runs straight (the step grows by d / outputs, rounded, an
 * output, over 20 ms or at 10000 ppm a second). A change that moves
 * nothing is taken at once. The engine's own sums are closed forms of
 * these; this is the recurrence they must agree with. */
typedef struct
{
  guint64 step, to, rem, half1, set_at, span;  /* step, to: 2^-48 */
  gint64 slope, jerk[2];        /* 2^-48 an output, an output */
} Slew;

static void
slew_start (Slew * s, int in_rate, int out_rate, double target, guint64 out)
{
  const guint64 to = step_for (in_rate, out_rate, target);
  const gint64 d = (gint64) (to - (s->step >> 16));
  const gint64 d16 = (gint64) ((to << 16) - s->step);
  const double steepest = 0.01 * (double) (s->step >> 16) * 65536.0 /
      out_rate;
  const double usual = round (out_rate * 0.010), a0 = (double) s->slope;
  const double since = (double) (gint64) (out - s->set_at);
  double half = usual, outputs;

  if (since >= 0.0 && since <= 16.0 * usual) {
    half = (double) s->span;
    if (half < usual || half < 1.25 * since || half > 4.0 * since)
      for (half = usual; half < 1.5 * since && half < 8.0 * usual;)
        half *= 2.0;
  }
  s->span = (guint64) half;
  half = MAX (half, ceil (fabs ((double) d16) / (2.0 * steepest)));
  s->set_at = out;
  s->to = to << 16;
  if (2.0 * half <= 1 << 20) {
    const double sign = d16 >= 0 ? 1.0 : -1.0;
    const double c2h = half * (half - 1.0) / 2.0;
    const double c22h = half * (2.0 * half - 1.0);
    double j1 = sign * floor (sign * ((double) d16 - a0 * (3.0 * half +
                1.0) / 2.0) / (half * half)), j2;

    for (;;) {
      j2 = -sign * floor (sign * (a0 + j1 * half) / half);
      if (sign * (a0 * 2.0 * half + j1 * (c22h - c2h) + j2 * c2h -
              (double) d16) <= 0.0)
        break;
      j1 -= sign;
    }
    if ((fabs (j1) + fabs (j2)) * (2.0 * half) * (2.0 * half - 1.0) *
        (2.0 * half - 2.0) / 6.0 >= 0x1p60)
      goto straight;
    if (j1 == 0.0 && j2 == 0.0 && s->slope == 0) {
      s->step = s->to;
      s->rem = 0;
      return;
    }
    s->jerk[0] = (gint64) j1;
    s->jerk[1] = (gint64) j2;
    s->half1 = (guint64) half;
    s->rem = 2 * s->half1;
    return;
  }
straight:
  outputs = MAX (out_rate * 0.020, fabs ((double) d) / (double) (s->step >>
          16) / 0.01 * out_rate);
  s->rem = (guint64) MAX (llround (outputs), 1);
  s->half1 = 0;
  s->jerk[0] = s->jerk[1] = 0;
  s->slope = llround ((double) d16 / (double) s->rem);
  if (s->slope == 0) {
    s->step = s->to;
    s->rem = 0;
  }
}

/* The position after this output's step (2^-48), s moved on by one */
static guint64
slew_next (Slew * s, guint64 pos)
{
  pos += s->step;
  if (s->rem > 1) {
    s->step += (guint64) s->slope;
    s->slope += s->jerk[s->half1 > 0 ? 0 : 1];
    if (s->half1 > 0)
      s->half1--;
    s->rem--;
  } else if (s->rem == 1) {
    s->step = s->to;
    s->rem = 0;
    s->half1 = 0;
    s->slope = 0;
    pos &= ~G_GUINT64_CONSTANT (0xffff);
  }
  return pos;
}

typedef struct
{
  gsize at;                     /* input frame the factor is set before */
  double to;
} SetAt;

/* Factors set while playing, slews overlapping, against the float64
 * reference at the positions the slew gives output by output (the test's
 * own integers, Slew): the count exact and every sample within 1e-5, in
 * pieces of 1 to 3000 frames, one and two channels (clr_resample_interp
 * and _c2), up and down. An engine whose slew took 1 ms instead missed
 * by 0.025; one of 10 ms had another count at the second set. */
GST_START_TEST (test_engine_slew_reference)
{
  static const CountCase cases[] = {
    {44100, 48000, 1.0}, {48000, 44100, 1.0}, {22050, 48000, 1.0},
  };
  static const SetAt sets[] = {
    {1200, 1.00005}, {1450, 1.00009}, {2000, 1.0001}, {3000, 0.998},
    {9000, 0.99805}, {9100, 0.9981}, {14000, 0.99811},
  };
  const gsize n = 16000;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const CountCase *k = &cases[i];
    const int ch = i == 1 ? 2 : 1;
    float *in = g_new (float, n * ch);
    ClrEngine *e = var_engine (k->in_rate, k->out_rate, ch, k->adjust);
    const gint64 lag = clr_engine_get_filter (e)->lead;
    GArray *out = g_array_new (FALSE, FALSE, sizeof (float));
    GArray *pn = g_array_new (FALSE, FALSE, sizeof (gint64));
    GArray *pp = g_array_new (FALSE, FALSE, sizeof (guint64));
    guint64 marks[G_N_ELEMENTS (sets)];
    Slew sl = { 0, };
    guint64 pos = 0;
    guint32 seed = 3 + i;
    gsize pos_in = 0, s = 0, got, j, want;
    double *ref, worst = 0.0;
    GError *err = NULL;

    fail_unless_equals_string (clr_engine_get_kernel (e), interp_kernel (ch));
    clr_signal_noise (in, n * ch, 0.5, 400 + i);
    /* the positions: a set before input frame `at` slews from the first
     * output not yet out, the first whose frame passes at - 1 - lag */
    sl.step = sl.to = step_for (k->in_rate, k->out_rate, k->adjust) << 16;
    while ((pos >> 48) < n) {
      const gint64 frame = (gint64) (pos >> 48);
      const guint64 p = (pos >> 16) & G_GUINT64_CONSTANT (0xffffffff);

      for (; s < G_N_ELEMENTS (sets) && frame > (gint64) sets[s].at - 1 -
          lag; s++) {
        marks[s] = pn->len;
        slew_start (&sl, k->in_rate, k->out_rate, sets[s].to, pn->len);
      }
      g_array_append_val (pn, frame);
      g_array_append_val (pp, p);
      pos = slew_next (&sl, pos);
    }
    /* the engine, cut at random and at each set */
    for (s = 0; pos_in < n;) {
      gsize len = 1 + (seed = seed * 1664525u + 1013904223u) % 3000;
      const void *ip[1] = { in + pos_in * ch };
      void *op[1];

      if (s < G_N_ELEMENTS (sets) && pos_in == sets[s].at) {
        fail_unless_equals_uint64 (clr_engine_get_out_total (e), marks[s]);
        fail_unless (clr_engine_set_adjust (e, sets[s++].to));
      }
      len = MIN (len, n - pos_in);
      if (s < G_N_ELEMENTS (sets))
        len = MIN (len, sets[s].at - pos_in);
      want = clr_engine_out_frames (e, len);
      g_array_set_size (out, out->len + want * ch);
      op[0] = &g_array_index (out, float, out->len - want * ch);
      fail_unless (clr_engine_process (e, ip, len, op, &got, &err), "%s",
          err ? err->message : "");
      fail_unless_equals_uint64 (got, want);
      pos_in += len;
    }
    want = clr_engine_drain_frames (e);
    {
      void *op[1];

      g_array_set_size (out, out->len + want * ch);
      op[0] = &g_array_index (out, float, out->len - want * ch);
      fail_unless (clr_engine_drain (e, op, &got, &err));
      fail_unless_equals_uint64 (got, want);
    }
    fail_unless_equals_uint64 (out->len / ch, pn->len);
    ref = clr_reference_resample_at (clr_engine_get_filter (e),
        G_GUINT64_CONSTANT (1) << 32, (const int64_t *) pn->data,
        (const uint64_t *) pp->data, pn->len, in, n, ch);
    for (j = 0; j < pn->len * ch; j++)
      worst = MAX (worst, fabs (g_array_index (out, float, j) - ref[j]));
    GST_INFO ("%d -> %d, %d ch: worst %g", k->in_rate, k->out_rate, ch,
        worst);
    fail_unless (worst <= 1e-5, "%d -> %d: worst %g", k->in_rate,
        k->out_rate, worst);
    g_free (ref);
    g_array_free (out, TRUE);
    g_array_free (pn, TRUE);
    g_array_free (pp, TRUE);
    g_free (in);
    clr_engine_free (e);
  }
}

GST_END_TEST;

/* During a slew the positions fall between the 2^-32 of a frame a row
 * carries: the coefficients' interpolation takes the 2^-16 of that below
 * (resample.cl's row_pos ()). Quality 10, F64, 44.1 -> 192 kHz, a
 * 15 kHz sine, the factor set every 441 input frames along a ramp of
 * 500 ppm/s: the error's rms against the float64 reference at the test's
 * own positions to 2^-48 (every 4th output, past the first 0.1 s). The
 * positions rounded to 2^-32 read 1.0e-10 (jitter of 2^-32 / sqrt (12) of
 * a frame at 15 kHz: -198 dB of images in clr-drift-quality's ramp); the
 * fraction taken, 1.1e-13 on the host's sums and on the kernels. */
GST_START_TEST (test_engine_slew_subunit)
{
  const int in_rate = 44100, out_rate = 192000;
  const gsize n = 22050, every = 4;
  /* factors down to 0.999 */
  ClrEngine *e = var_engine_full (in_rate, out_rate, 1, 1.0,
      CLR_QUALITY_MAX, CLR_FORMAT_F64, 0.999);
  const gint64 lag = clr_engine_get_filter (e)->lead;
  float *inf = g_new (float, n);
  double *in = g_new (double, n), *out, *ref, sum = 0.0;
  GArray *pn = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *pp = g_array_new (FALSE, FALSE, sizeof (guint64));
  GArray *idx = g_array_new (FALSE, FALSE, sizeof (gsize));
  Slew sl = { 0, };
  guint64 pos = 0;
  gsize i, k = 0, got, total = 0, pos_in = 0, cnt = 0;
  GError *err = NULL;

  /* exact in float: the reference reads float input */
  clr_signal_sine (inf, n, 1, 15000, in_rate, 0.5, 0.0);
  for (i = 0; i < n; i++)
    in[i] = inf[i];
  /* the positions, output by output: set k before input frame 441 k
   * slews from the first output whose frame passes 441 k - 1 - lag */
  sl.step = sl.to = step_for (in_rate, out_rate, 1.0) << 16;
  for (i = 0; (pos >> 48) < n; i++) {
    const gint64 frame = (gint64) (pos >> 48);

    for (; k * 441 < n && frame > (gint64) (k * 441) - 1 - lag; k++)
      if (k > 0)
        slew_start (&sl, in_rate, out_rate, 1.0 + 500e-6 * k * 0.01, i);
    if (i % every == 0 && i >= (gsize) out_rate / 10) {
      const guint64 p48 = pos & ((G_GUINT64_CONSTANT (1) << 48) - 1);
      g_array_append_val (pn, frame);
      g_array_append_val (pp, p48);
      g_array_append_val (idx, i);
    }
    pos = slew_next (&sl, pos);
  }
  out = g_new0 (double, i + 16);
  /* the engine, the factor set before every 441 frames */
  for (k = 0; pos_in < n; k++) {
    const gsize len = MIN (441, n - pos_in);
    const void *ip[1] = { in + pos_in };
    void *op[1] = { out + total };

    if (k > 0)
      fail_unless (clr_engine_set_adjust (e, 1.0 + 500e-6 * k * 0.01));
    fail_unless (total + clr_engine_out_frames (e, len) <= i + 16);
    fail_unless (clr_engine_process (e, ip, len, op, &got, &err), "%s",
        err ? err->message : "");
    total += got;
    pos_in += len;
  }
  ref = clr_reference_resample_at (clr_engine_get_filter (e),
      G_GUINT64_CONSTANT (1) << 48, (const int64_t *) pn->data,
      (const uint64_t *) pp->data, pn->len, inf, n, 1);
  for (k = 0; k < pn->len; k++) {
    const gsize at = g_array_index (idx, gsize, k);

    if (at >= total)
      break;
    sum += (out[at] - ref[k]) * (out[at] - ref[k]);
    cnt++;
  }
  fail_unless (cnt > 10000);
  GST_INFO ("rms error %g over %" G_GSIZE_FORMAT " outputs",
      sqrt (sum / cnt), cnt);
  fail_unless (sqrt (sum / cnt) < 1e-11, "rms error %g", sqrt (sum / cnt));
  g_free (ref);
  g_free (out);
  g_free (in);
  g_free (inf);
  g_array_free (pn, TRUE);
  g_array_free (pp, TRUE);
  g_array_free (idx, TRUE);
  clr_engine_free (e);
}

GST_END_TEST;

/* A ramp's corner, commanded every 10 ms of input as a drift loop or an
 * application would (tests/quality/clr-drift-quality's ramp): the factor
 * rising at 500 ppm/s turns to falling over 0.5 s along a raised cosine.
 * The frequency must follow a curve smooth to its slope, not straight
 * pieces that turn a corner at every command: THD+N of 1 kHz at -1 dBFS,
 * 44.1 -> 48 kHz, quality 10, F64, in the window of 8192 outputs (Kaiser
 * beta 38, all but +-48 bins around the tone) over the corner's middle,
 * and in one on the straight part before it (the target, as issue 48's:
 * within 10 dB of the fixed ratio's -216.1, test_quality). Straight
 * slews, each restarted by the next command, read -166.8 dB at the
 * corner; the two-half slews -216.0. */
static double
corner_d (double t, double t0)
{
  const double s = 500e-6, tau = 0.5;

  if (t < t0 - tau / 2.0)
    return s * t;
  if (t < t0 + tau / 2.0)
    return s * (t0 - tau / 2.0) + s * tau / G_PI * sin (G_PI / tau * (t -
            t0 + tau / 2.0));
  return s * (t0 - tau / 2.0) + s * tau / G_PI - s * (t - t0 - tau / 2.0);
}

GST_START_TEST (test_engine_ramp_corner)
{
  const int in_rate = 44100, out_rate = 48000;
  const gsize n = 66150, block = 441, win = 8192;
  const double t0 = 0.8;
  ClrEngine *e = var_engine_full (in_rate, out_rate, 1, 1.0,
      CLR_QUALITY_MAX, CLR_FORMAT_F64, 0.998);
  double *in = g_new0 (double, n), *out = g_new0 (double, n * 2);
  gsize pos = 0, total = 0, got, at;
  double corner, straight;
  GError *err = NULL;

  clr_tone_add (in, n, 1, in_rate, clr_freq_hz (1000), pow (10.0, -1.0 /
          20.0), 0.0, 0);
  for (pos = 0; pos < n; pos += block) {
    const gsize len = MIN (block, n - pos);
    const void *ip[1] = { in + pos };
    void *op[1] = { out + total };

    fail_unless (clr_engine_set_adjust (e, 1.0 + corner_d ((double) pos /
                in_rate, t0)));
    fail_unless (total + clr_engine_out_frames (e, len) <= n * 2);
    fail_unless (clr_engine_process (e, ip, len, op, &got, &err), "%s",
        err ? err->message : "");
    total += got;
  }
  /* the corner's middle, output 0 being about input frame 0 */
  at = (gsize) (t0 * out_rate) - win / 2;
  fail_unless (at + win <= total && win / 2 <= (gsize) (0.3 * out_rate));
  corner = clr_db (clr_window_thdn (out, 1, at, win, out_rate, 990.0,
          1010.0, 48, 38.0, NULL)) / 2.0;
  straight = clr_db (clr_window_thdn (out, 1, (gsize) (0.3 * out_rate) - win
          / 2, win, out_rate, 990.0, 1010.0, 48, 38.0, NULL)) / 2.0;
  GST_INFO ("THD+N at the corner %.1f dB, on the straight part %.1f dB",
      corner, straight);
  fail_unless (corner <= -206.0, "corner: %.1f dB", corner);
  fail_unless (straight <= -206.0, "straight: %.1f dB", straight);
  g_free (in);
  g_free (out);
  clr_engine_free (e);
}

GST_END_TEST;

/* Tones at 25, 30, 40 and 47 kHz (-13 dBFS each), 96 -> 44.1 kHz at
 * quality q: variable (factor `adjust`, its filter for factors down to
 * adjust_low) or fixed (adjust 0). For each tone, in dB over the tone:
 * got[] the power at its fold (a Blackman-Harris window over 2^15 outputs
 * after the first 4096, its sidelobes 92 dB below aliases that are
 * themselves below -130 dB; a DFT at the fold frequency), want[] the
 * engine's filter's response at the tone, its continuous Fourier
 * transform in float64 (clr_filter_eval () 64 points an input sample). */
#define ALIAS_TONES 4
static void
alias_db (int q, double adjust, double adjust_low, double *got,
    double *want)
{
  static const double tones[ALIAS_TONES] = { 25000, 30000, 40000, 47000 };
  const gsize n = 96000, skip = 4096, len = 32768;
  const double amp = pow (10.0, -13.0 / 20.0);
  const double fs = 44100.0 * (adjust > 0.0 ? adjust : 1.0);
  ClrEngineConfig cfg = { 0, };
  GError *err = NULL;
  ClrEngine *e;
  const ClrFilter *f;
  float *in = g_new0 (float, n), *out;
  const void *ip[1] = { in };
  void *op[1];
  gsize k, i, t;

  if (!device && !(device = clr_device_acquire ("auto", &err)))
    g_error ("no OpenCL device for the tests: %s", err->message);
  cfg.in_rate = 96000;
  cfg.out_rate = 44100;
  cfg.channels = 1;
  cfg.quality = q;
  cfg.format = CLR_FORMAT_F32;
  cfg.variable = adjust > 0.0;
  cfg.adjust = adjust > 0.0 ? adjust : 0.0;
  cfg.adjust_low = adjust > 0.0 ? adjust_low : 0.0;
  e = clr_engine_new (device, &cfg, &err);
  fail_unless (e != NULL, "%s", err ? err->message : "");
  f = clr_engine_get_filter (e);
  for (i = 0; i < n; i++)
    for (t = 0; t < ALIAS_TONES; t++)
      in[i] += (float) (amp * sin (2.0 * G_PI * tones[t] * i / 96000.0 +
              t));
  out = g_new (float, clr_engine_out_frames (e, n) + 1);
  op[0] = out;
  fail_unless (clr_engine_process (e, ip, n, op, &k, &err));
  fail_unless (k >= skip + len);
  for (t = 0; t < ALIAS_TONES; t++) {
    /* the fold: the tone less the nearest multiple of the output rate */
    const double fold = fabs (tones[t] - fs * round (tones[t] / fs));
    const double ft = tones[t] / 96000.0;
    double re = 0.0, im = 0.0, wsum = 0.0, h = 0.0;
    gint64 j;

    for (i = 0; i < len; i++) {
      const double x = 2.0 * G_PI * i / len;
      const double w = 0.35875 - 0.48829 * cos (x) + 0.14128 * cos (2 * x)
          - 0.01168 * cos (3 * x);
      const double ph = 2.0 * G_PI * fold * i / fs;

      re += w * out[skip + i] * cos (ph);
      im += w * out[skip + i] * sin (ph);
      wsum += w;
    }
    got[t] = 20.0 * log10 (2.0 * hypot (re, im) / wsum / amp + 1e-30);
    for (j = -32 * (gint64) f->taps; j <= 32 * (gint64) f->taps; j++)
      h += clr_filter_eval (f, j / 64.0) * cos (2.0 * G_PI * ft * j / 64.0);
    want[t] = 20.0 * log10 (fabs (h / 64.0) + 1e-30);
  }
  g_free (out);
  g_free (in);
  clr_engine_free (e);
}

/* A variable ratio's aliases are its filter's, as a fixed one's: at each
 * fold of 96 -> 44.1 kHz, fixed and x1.0001 (the filter for factors down
 * to 0.998, the element's guard), what the design's response gives at the
 * tone, within 1 dB, at q4 and q10. Why q4's variable figure reads -137
 * dB where the fixed one reads -151: the tones fall on different points
 * of two designs' sidelobes (360 taps for 44011 Hz against 356 for 44100;
 * both designs' sidelobes peak at -134 dB around 25 kHz, a 125 dB
 * design): the fixed one's -151 is a null, not a better filter. */
GST_START_TEST (test_engine_alias)
{
  static const struct
  {
    int q;
    double adjust, low;
  } cases[] = {
    {4, 0.0, 0.0}, {4, 1.0001, 0.998}, {10, 0.0, 0.0}, {10, 1.0001, 0.998},
  };
  double got[ALIAS_TONES], want[ALIAS_TONES];
  guint i, t;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    alias_db (cases[i].q, cases[i].adjust, cases[i].low, got, want);
    for (t = 0; t < ALIAS_TONES; t++) {
      /* A GPU's table kernels keep float coefficients: each rounded by up
       * to 2^-24 of itself, which fills the design's nulls to about -150
       * dB (an H100 read -159.4 dB where q4's design has -156.8); below
       * that the level follows the rounding, not the design. A CPU's
       * doubles follow the design all the way. */
      const double floor_db = clr_device_is_gpu (device) ? -150.0 : -1e9;

      GST_INFO ("q%d x%g tone %u: %.1f dB, design %.1f dB", cases[i].q,
          cases[i].adjust, t, got[t], want[t]);
      fail_unless (fabs (got[t] - want[t]) <= 1.0 || (got[t] <= floor_db
              && want[t] <= floor_db), "q%d x%g tone %u: %.1f "
          "dB, the design's %.1f dB", cases[i].q, cases[i].adjust, t,
          got[t], want[t]);
    }
  }
}

GST_END_TEST;

typedef struct
{
  double adjust;
  const float *in;
  gsize n;
  float *out;
  gsize got;
  guint company;                /* the most streams a batch held */
} Paced;

static gpointer
run_paced (gpointer data)
{
  Paced *p = data;
  ClrEngine *e = var_engine (44100, 48000, 1, p->adjust);
  gsize pos = 0, k, cap = p->n * 2;
  GError *err = NULL;

  /* live-like: each job may wait a moment for other streams' jobs */
  clr_engine_set_paced (e, TRUE);
  p->out = g_new (float, cap);
  p->got = 0;
  while (pos < p->n) {
    gsize len = MIN (441, p->n - pos);
    const void *ip[1] = { p->in + pos };
    void *op[1] = { p->out + p->got };

    fail_unless (clr_engine_process (e, ip, len, op, &k, &err));
    p->got += k;
    p->company = MAX (p->company, clr_engine_get_company (e));
    pos += len;
  }
  {
    void *op[1] = { p->out + p->got };
    fail_unless (clr_engine_drain (e, op, &k, &err));
    p->got += k;
  }
  clr_engine_free (e);
  return NULL;
}

/* Streams at different factors share launches (each its own step in its
 * row of the batch): four at once, paced as live streams are, so that
 * their jobs meet in the device's batches; every one sample for sample
 * its own float64 reference. */
GST_START_TEST (test_engine_batched)
{
  static const double adjust[] = { 1.0001, 0.9993, 1.0305, 0.96 };
  const gsize n = 44100 / 2;
  float *in = g_new (float, n);
  Paced p[G_N_ELEMENTS (adjust)];
  GThread *t[G_N_ELEMENTS (adjust)];
  guint i, company = 0;

  clr_signal_noise (in, n, 0.5, 42);
  /* the device's kernels (a CPU's streams would otherwise run on the
   * host, each alone) */
  var_tuning = *clr_tuning_get ();
  var_tuning_set = TRUE;
  var_tuning.resample_host.set = TRUE;
  var_tuning.resample_host.value = 0;
  /* the device and the kernel made before the threads race for them */
  clr_engine_free (var_engine (44100, 48000, 1, 1.0));
  for (i = 0; i < G_N_ELEMENTS (adjust); i++) {
    p[i] = (Paced) {
    adjust[i], in, n, NULL, 0, 0};
    t[i] = g_thread_new ("paced", run_paced, &p[i]);
  }
  for (i = 0; i < G_N_ELEMENTS (adjust); i++)
    g_thread_join (t[i]);
  for (i = 0; i < G_N_ELEMENTS (adjust); i++) {
    ClrEngine *e = var_engine (44100, 48000, 1, adjust[i]);
    ClrRatio r = { 44100, 48000, G_GUINT64_CONSTANT (1) << 32,
      step_for (44100, 48000, adjust[i])
    };
    gsize n_ref, j;
    double *ref = clr_reference_resample (&r, clr_engine_get_filter (e), in,
        n, 1, &n_ref), worst = 0.0;

    fail_unless_equals_uint64 (p[i].got, n_ref);
    for (j = 0; j < n_ref; j++)
      worst = MAX (worst, fabs (p[i].out[j] - ref[j]));
    GST_INFO ("x %g: worst %g, batches of up to %u streams", adjust[i], worst,
        p[i].company);
    fail_unless (worst <= 1e-5, "x %g: worst %g", adjust[i], worst);
    company = MAX (company, p[i].company);
    g_free (ref);
    g_free (p[i].out);
    clr_engine_free (e);
  }
  var_tuning_set = FALSE;
  fail_unless (company >= 2, "the streams never shared a batch");
  g_free (in);
}

GST_END_TEST;

static Suite *
rate_adjust_suite (void)
{
  Suite *s = suite_create ("rate-adjust");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_engine_reference);
  tcase_add_test (tc, test_engine_continuation);
  tcase_add_test (tc, test_engine_slew);
  tcase_add_test (tc, test_engine_slew_reference);
  tcase_add_test (tc, test_engine_slew_subunit);
  tcase_add_test (tc, test_engine_ramp_corner);
  tcase_add_test (tc, test_engine_alias);
  tcase_add_test (tc, test_engine_batched);
  tcase_add_test (tc, test_counts);
  tcase_add_test (tc, test_exactly_one);
  tcase_add_test (tc, test_leave_passthrough);
  tcase_add_test (tc, test_no_alias_down);
  tcase_add_test (tc, test_bad_input);
  tcase_add_test (tc, test_no_click);
  tcase_add_test (tc, test_held_input);
  tcase_add_test (tc, test_quality);
  tcase_add_test (tc, test_formats_batched);
  return s;
}

GST_CHECK_MAIN (rate_adjust);
