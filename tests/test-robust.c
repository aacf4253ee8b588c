/* clresample: robustness in real pipelines. Caps and property changes
 * mid-stream, hostile and awkward input, device trouble, many instances,
 * many state cycles, playbin. Real elements, the real OpenCL device. */
#include <math.h>
#include <malloc.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <glib/gstdio.h>
#include "design/clr-filter.h"
#include "clr-harness.h"
#include "design/clr-rate.h"
#include "clr-reference.h"
#include "clr-signal.h"

static GstElement *
find_resampler (GstHarness * h)
{
  return gst_harness_find_element (h, "clresample");
}

/* Each buffer starts where the one before it ends; only the first is
 * DISCONT unless `runs` says how many runs (DISCONTs) to expect. */
static void
check_contiguous (Collected * c, guint runs)
{
  guint i, disconts = 0;

  for (i = 0; i < c->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c->buffers, i);
    if (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT))
      disconts++;
    if (i > 0) {
      GstBuffer *p = g_ptr_array_index (c->buffers, i - 1);
      fail_unless_equals_clocktime (GST_BUFFER_PTS (b), GST_BUFFER_PTS (p) +
          GST_BUFFER_DURATION (p));
    }
  }
  fail_unless_equals_int (disconts, runs);
}

static guint64
bytes_of (Collected * c)
{
  guint64 n = 0;
  guint i;

  for (i = 0; i < c->buffers->len; i++)
    n += gst_buffer_get_size (g_ptr_array_index (c->buffers, i));
  return n;
}

/* New input caps mid-stream (rate, then channels and format): the old run
 * is drained, the new one starts on its own timestamps, nothing is lost. */
GST_START_TEST (test_input_caps_change)
{
  GstHarness *h = gst_harness_new ("clresample");
  float *in = g_new (float, 48000 * 6);
  Collected c;

  clr_signal_noise (in, 48000 * 6, 0.5, 1);
  gst_harness_set_sink_caps_str (h, "audio/x-raw,rate=48000");
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=44100,channels=2");
  clr_push_stream (h, in, 44100, 2, 44100, 0, NULL, 0);
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=32000,channels=2");
  clr_push_stream (h, in, 32000, 2, 32000, GST_SECOND, NULL, 0);
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=S16LE,"
      "layout=interleaved,rate=96000,channels=6,channel-mask=(bitmask)0");
  {
    gint16 *s = g_new0 (gint16, 96000 * 6);
    GstBuffer *b = gst_buffer_new_wrapped (s, 96000 * 6 * 2);
    GST_BUFFER_PTS (b) = 2 * GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 2, &c);
  /* 1 s stereo F32 at 48 kHz, twice, then 1 s of 6-channel S16 */
  fail_unless_equals_uint64 (bytes_of (&c), 48000 * 8 * 2 + 48000 * 12);
  check_contiguous (&c, 3);
  fail_unless_equals_clocktime (GST_BUFFER_PTS (g_ptr_array_index (c.buffers,
              c.buffers->len - 1)) + GST_BUFFER_DURATION (g_ptr_array_index
          (c.buffers, c.buffers->len - 1)), 3 * GST_SECOND);
  clr_collected_free (&c);
  g_free (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Splits collected output at the first buffer whose rate (frames over
 * duration) is not `rate`. */
static guint64
frames_at_rate (Collected * c, int channels, int rate, guint * first_other)
{
  guint64 n = 0;
  guint i;

  for (i = 0; i < c->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c->buffers, i);
    guint64 f = gst_buffer_get_size (b) / (channels * sizeof (float));
    GstClockTime d = gst_util_uint64_scale_int (f, GST_SECOND, rate);
    if (f > 10 && (GST_BUFFER_DURATION (b) > d + 1 || GST_BUFFER_DURATION (b)
            + 1 < d))
      break;
    n += f;
  }
  *first_other = i;
  return n;
}

/* Downstream asks for another rate mid-stream: the new filter takes over the
 * running stream, no DISCONT, no gap, the same samples as a run at the new
 * rate from the start. */
GST_START_TEST (test_output_rate_change)
{
  GstHarness *h = clr_make_harness ("clresample", 44100, 48000, 2);
  const size_t n = 44100;
  float *in = g_new (float, n * 2);
  Collected c, fresh;
  guint64 m1, k0;
  guint first96;
  float *out96;

  clr_signal_noise (in, n * 2, 0.5, 2);
  clr_run_stream ("clresample", 44100, 96000, 2, in, n, NULL, 0, &fresh);
  clr_push_stream (h, in, n / 2, 2, 44100, 0, NULL, 0);
  gst_harness_set_sink_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=96000,channels=2,channel-mask=(bitmask)0");
  gst_harness_push_upstream_event (h, gst_event_new_reconfigure ());
  {
    GstBuffer *b = clr_make_buffer (in + (n / 2) * 2, n - n / 2, 2, 44100, 0,
        n / 2);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 2, &c);
  check_contiguous (&c, 1);
  m1 = frames_at_rate (&c, 2, 48000, &first96);
  fail_unless (first96 < c.buffers->len, "never switched to 96 kHz");
  k0 = 2 * m1;
  fail_unless_equals_uint64 (k0 + (c.frames - m1), fresh.frames);
  out96 = c.data + m1 * 2;
  clr_assert_samples (out96, fresh.data + k0 * 2, (c.frames - m1) * 2,
      "at 96 kHz, against a fresh stream");
  clr_collected_free (&c);
  clr_collected_free (&fresh);
  g_free (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Half of a stereo 44.1 kHz stream, then `prop` set to `value`, then the
 * other half and EOS: the output before and after the change. */
static void
change_mid_stream (GstHarness * h, GstElement * e, const char *prop,
    const GValue * value, const float *in, size_t n, Collected * before,
    Collected * after)
{
  GstBuffer *b;

  clr_push_stream (h, in, n / 2, 2, 44100, 0, NULL, 0);
  clr_collect (h, 2, before);
  g_object_set_property (G_OBJECT (e), prop, value);
  b = clr_make_buffer (in + (n / 2) * 2, n - n / 2, 2, 44100, 0, n / 2);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 2, after);
}

/* `prop` set to `value` (as gst-launch writes it) while `from` plays, 44.1
 * -> 48 kHz stereo: at the next buffer the new filter takes over with no
 * gap and no DISCONT; before, the old filter's samples, after, the new
 * one's, exactly as runs of `from` and `to` from the start give them.
 * Returns the latency the element answers after the change. */
static GstClockTime
check_seamless_change (const char *from, const char *prop, const char *value,
    const char *to, guint64 seed)
{
  GstHarness *h = clr_make_harness (from, 44100, 48000, 2);
  GstElement *e = find_resampler (h);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      prop);
  const size_t n = 30000;
  float *in = g_new (float, n * 2);
  Collected before, after, one, two;
  GValue v = G_VALUE_INIT;
  GstClockTime latency;

  clr_signal_noise (in, n * 2, 0.5, seed);
  clr_run_stream (from, 44100, 48000, 2, in, n, NULL, 0, &one);
  clr_run_stream (to, 44100, 48000, 2, in, n, NULL, 0, &two);
  fail_unless (ps != NULL);
  g_value_init (&v, ps->value_type);
  fail_unless (gst_value_deserialize (&v, value));
  change_mid_stream (h, e, prop, &v, in, n, &before, &after);
  fail_unless_equals_uint64 (before.frames + after.frames, one.frames);
  clr_assert_samples (before.data, one.data, before.frames * 2,
      "before the change, against the old settings alone");
  clr_assert_samples (after.data, two.data + before.frames * 2,
      after.frames * 2, "after the change, against the new settings alone");
  fail_if (GST_BUFFER_FLAG_IS_SET (g_ptr_array_index (after.buffers, 0),
          GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_clocktime (GST_BUFFER_PTS (g_ptr_array_index
          (after.buffers, 0)), gst_util_uint64_scale_int_round (before.frames,
          GST_SECOND, 48000));
  gst_harness_set_upstream_latency (h, 0);
  latency = gst_harness_query_latency (h);
  g_value_unset (&v);
  clr_collected_free (&before);
  clr_collected_free (&after);
  clr_collected_free (&one);
  clr_collected_free (&two);
  gst_object_unref (e);
  g_free (in);
  gst_harness_teardown (h);
  return latency;
}

/* The latency of a filter's kernel at 44.1 -> 48 kHz: its reach ahead. */
static GstClockTime
kernel_latency (int quality, double phase)
{
  ClrRatio r;
  ClrFilter f;

  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, quality, 0);
  fail_unless (clr_filter_set_phase (&f, &r, phase));
  return gst_util_uint64_scale_int_round (f.lead, GST_SECOND, 44100);
}

/* quality, cutoff and phase changed while playing; the latency follows
 * the filter (the cutoff keeps the taps, so the latency too) */
GST_START_TEST (test_quality_change)
{
  fail_unless_equals_clocktime (check_seamless_change ("clresample quality=4",
          "quality", "10", "clresample quality=10", 3), kernel_latency (10,
          0.0));
}

GST_END_TEST;

GST_START_TEST (test_cutoff_change)
{
  fail_unless_equals_clocktime (check_seamless_change ("clresample",
          "cutoff", "0.97", "clresample cutoff=0.97", 5), kernel_latency (4,
          0.0));
}

GST_END_TEST;

GST_START_TEST (test_phase_change)
{
  fail_unless_equals_clocktime (check_seamless_change ("clresample",
          "phase", "minimum", "clresample phase=minimum", 6),
      kernel_latency (CLR_QUALITY_DEFAULT, 1.0));
  fail_unless_equals_clocktime (check_seamless_change
      ("clresample phase=minimum", "phase", "intermediate",
          "clresample phase=intermediate", 7),
      kernel_latency (CLR_QUALITY_DEFAULT, 0.5));
}

GST_END_TEST;

/* taps changed while playing, across the crossover: the direct kernels
 * hand the stream to the FFT path (clr-engine-fft.c) and back. No DISCONT,
 * no gap, and the samples on each side are those of a run with that filter
 * from the start (within float rounding: the FFT path's blocks fall
 * elsewhere in a stream it joins). */
static void
check_taps_change (guint from, guint to)
{
  char *launch = g_strdup_printf ("clresample taps=%u", from);
  char *launch_to = g_strdup_printf ("clresample taps=%u", to);
  GstHarness *h = clr_make_harness (launch, 44100, 176400, 2);
  GstElement *e = find_resampler (h);
  const size_t n = 30000;
  float *in = g_new (float, n * 2);
  Collected before, after, one, two;
  GValue v = G_VALUE_INIT;
  double e2 = 0, r2 = 0;
  size_t i;

  clr_signal_noise (in, n * 2, 0.5, 4);
  clr_run_stream (launch, 44100, 176400, 2, in, n, NULL, 0, &one);
  clr_run_stream (launch_to, 44100, 176400, 2, in, n, NULL, 0, &two);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, to);
  change_mid_stream (h, e, "taps", &v, in, n, &before, &after);
  fail_unless_equals_uint64 (before.frames + after.frames, one.frames);
  clr_assert_samples (before.data, one.data, before.frames * 2,
      "before the change, against the old taps alone");
  for (i = 0; i < after.frames * 2; i++) {
    double d = after.data[i] - two.data[before.frames * 2 + i];
    e2 += d * d;
    r2 += two.data[before.frames * 2 + i] * two.data[before.frames * 2 + i];
    /* one check for the signal (gst-check records each one that passes) */
    if (fabs (d) >= 1e-5)
      break;
  }
  fail_unless (i == after.frames * 2, "frame %zu after the change: %g, not "
      "%g", i / 2, after.data[i], two.data[before.frames * 2 + i]);
  GST_INFO ("taps %u -> %u: relative RMS %.3g after the change", from, to,
      sqrt (e2 / r2));
  fail_unless (sqrt (e2 / r2) < 1e-6);
  fail_if (GST_BUFFER_FLAG_IS_SET (g_ptr_array_index (after.buffers, 0),
          GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_clocktime (GST_BUFFER_PTS (g_ptr_array_index
          (after.buffers, 0)), gst_util_uint64_scale_int_round (before.frames,
          GST_SECOND, 176400));
  clr_collected_free (&before);
  clr_collected_free (&after);
  clr_collected_free (&one);
  clr_collected_free (&two);
  gst_object_unref (e);
  g_free (in);
  g_free (launch);
  g_free (launch_to);
  gst_harness_teardown (h);
}

GST_START_TEST (test_taps_change_paths)
{
  check_taps_change (256, 4096);
  check_taps_change (4096, 256);
}

GST_END_TEST;

/* Properties hammered from other threads while buffers flow: no crash, no
 * race, and the stream stays exact (each change continues it). */
GST_START_TEST (test_property_stress)
{
  GstHarness *h = gst_harness_new ("clresample");
  GstHarnessThread *t[6];
  GValue v = G_VALUE_INIT;
  const size_t n = 44100 * 4;
  float *in = g_new (float, n * 2);
  Collected c;
  size_t pos;
  guint i;

  clr_signal_noise (in, n * 2, 0.5, 4);
  gst_harness_set_sink_caps_str (h, "audio/x-raw,rate=48000");
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=44100,channels=2");
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 2);
  t[0] = gst_harness_stress_property_start_full (h, "quality", &v, 2000);
  g_value_set_int (&v, 9);
  t[1] = gst_harness_stress_property_start_full (h, "quality", &v, 3000);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 64);
  t[2] = gst_harness_stress_property_start_full (h, "taps", &v, 5000);
  g_value_set_uint (&v, 0);
  t[3] = gst_harness_stress_property_start_full (h, "taps", &v, 7000);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "auto");
  t[4] = gst_harness_stress_property_start_full (h, "device", &v, 11000);
  g_value_set_string (&v, "0");
  t[5] = gst_harness_stress_property_start_full (h, "device", &v, 13000);
  g_value_unset (&v);

  /* paced over about 50 ms, so that every thread (the slowest changes
   * its property every 13 ms) meets the stream: with the kernels from the
   * cache on disk the whole stream takes less than that */
  for (pos = 0; pos < n; pos += 1024) {
    fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (in + pos *
                2, MIN (1024, n - pos), 2, 44100, 0, pos)), GST_FLOW_OK);
    if (pos % (8 * 1024) == 0)
      g_usleep (2000);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < G_N_ELEMENTS (t); i++)
    fail_unless (gst_harness_stress_thread_stop (t[i]) > 0);
  clr_collect (h, 2, &c);
  fail_unless_equals_uint64 (c.frames, 4 * 48000);
  check_contiguous (&c, 1);
  clr_collected_free (&c);
  g_free (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Ten minutes of GAP: GAP out, the right length, timestamps exactly on the
 * input clock at the end, and silence costs no device work. */
GST_START_TEST (test_long_gap)
{
  GstHarness *h = clr_make_harness ("clresample", 48000, 44100, 1);
  float *in = g_new (float, 48000);
  guint64 total = 0;
  guint i, gaps = 0;
  GstBuffer *b;

  clr_signal_noise (in, 48000, 0.5, 5);
  fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (in, 48000, 1,
              48000, 0, 0)), GST_FLOW_OK);
  for (i = 1; i <= 600; i++) {
    b = gst_buffer_new_allocate (NULL, 48000 * sizeof (float), NULL);
    gst_buffer_memset (b, 0, 0, 48000 * sizeof (float));
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
    GST_BUFFER_PTS (b) = i * GST_SECOND;
    GST_BUFFER_DURATION (b) = GST_SECOND;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    while ((b = gst_harness_try_pull (h))) {
      fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
          gst_util_uint64_scale_int_round (total, GST_SECOND, 44100));
      gaps += GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_GAP);
      total += gst_buffer_get_size (b) / sizeof (float);
      gst_buffer_unref (b);
    }
  }
  b = clr_make_buffer (in, 48000, 1, 48000, 0, 601 * 48000);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((b = gst_harness_try_pull (h))) {
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        gst_util_uint64_scale_int_round (total, GST_SECOND, 44100));
    total += gst_buffer_get_size (b) / sizeof (float);
    gst_buffer_unref (b);
  }
  fail_unless_equals_uint64 (total, 602 * 44100);
  fail_unless (gaps >= 598, "%u GAP buffers", gaps);
  g_free (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Buffers with no timestamps: exact lengths, no invented times. Zero-length
 * buffers: nothing out, nothing broken. */
GST_START_TEST (test_untimed_and_empty)
{
  GstHarness *h = clr_make_harness ("clresample", 44100, 48000, 1);
  float in[4410];
  Collected c;
  guint i;

  clr_signal_noise (in, 4410, 0.5, 6);
  for (i = 0; i < 10; i++) {
    GstBuffer *b = gst_buffer_new_memdup (in, sizeof (in));
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  fail_unless_equals_uint64 (c.frames, 48000);
  for (i = 0; i < c.buffers->len; i++)
    fail_if (GST_BUFFER_PTS_IS_VALID (g_ptr_array_index (c.buffers, i)));
  clr_collected_free (&c);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Input outside the segment is clipped before the filter. */
GST_START_TEST (test_segment_clipping)
{
  GstHarness *h = clr_make_harness ("clresample", 44100, 48000, 1);
  float *in = g_new (float, 44100);
  GstSegment seg;
  Collected c;

  clr_signal_noise (in, 44100, 0.5, 7);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = GST_SECOND / 2;
  seg.stop = GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  clr_push_stream (h, in, 44100, 1, 44100, 0, NULL, 0);
  /* wholly after the segment: dropped */
  fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (in, 4410, 1,
              44100, GST_SECOND, 0)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  fail_unless_equals_uint64 (c.frames, 24000);
  fail_unless_equals_clocktime (GST_BUFFER_PTS (g_ptr_array_index (c.buffers,
              0)), GST_SECOND / 2);
  check_contiguous (&c, 1);
  clr_collected_free (&c);
  g_free (in);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pops the first error message from the bus; NULL if none. */
static GError *
pop_error (GstBus * bus, gchar ** debug)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;

  if (!msg)
    return NULL;
  gst_message_parse_error (msg, &err, debug);
  gst_message_unref (msg);
  return err;
}

static GstHarness *
harness_with_bus (const char *launch, int in_rate, int out_rate,
    int channels, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_empty ();
  char *in = g_strdup_printf (CAPS_FMT, in_rate, channels);
  char *out = g_strdup_printf (CAPS_FMT, out_rate, channels);

  *bus = gst_bus_new ();
  gst_harness_add_parse (h, launch);
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_sink_caps_str (h, out);
  gst_harness_set_src_caps_str (h, in);
  g_free (in);
  g_free (out);
  return h;
}

/* The element posted an error whose message holds `text`; then tears the
 * harness down. */
static GError *
expect_error (GstHarness * h, GstBus * bus, const char *text)
{
  gchar *debug = NULL;
  GError *err = pop_error (bus, &debug);

  fail_unless (err != NULL, "no error posted");
  fail_unless (strstr (err->message, text) != NULL, "%s", err->message);
  g_free (debug);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
  return err;
}

static void
check_rate_pair (int in_rate, int out_rate, size_t frames, gboolean ref)
{
  float *in = g_new (float, frames);
  ClrRatio r;
  ClrFilter f;
  Collected c;

  clr_signal_noise (in, frames, 0.5, in_rate + out_rate);
  clr_run_stream ("clresample", in_rate, out_rate, 1, in, frames, NULL, 0,
      &c);
  clr_ratio_init (&r, in_rate, out_rate);
  fail_unless_equals_uint64 (c.frames, clr_ratio_out_total (&r, frames));
  if (ref) {
    size_t n, i;
    double *want, worst = 0.0;
    clr_filter_design (&f, &r, CLR_QUALITY_DEFAULT, 0);
    want = clr_reference_resample (&r, &f, in, frames, 1, &n);
    for (i = 0; i < n; i++)
      worst = MAX (worst, fabs (want[i] - c.data[i]));
    fail_unless (worst < 1e-5, "%d -> %d: %g", in_rate, out_rate, worst);
    g_free (want);
  }
  clr_collected_free (&c);
  g_free (in);
}

GST_START_TEST (test_extreme_rates)
{
  GstHarness *h;

  check_rate_pair (1, 2, 10, TRUE);
  check_rate_pair (1, 1000, 10, TRUE);
  check_rate_pair (8000, 768000, 2000, TRUE);
  check_rate_pair (768000, 8000, 96000, TRUE);
  check_rate_pair (44100, 44101, 44100, FALSE);
  check_rate_pair (44101, 44100, 44101, FALSE);
  check_rate_pair (16000000, 15999999, 20000, FALSE);

  /* absurd requests are refused in negotiation, not attempted */
  h = clr_make_harness ("clresample", 1, 2147483647, 1);
  {
    float x[16] = { 0 };
    fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (x, 16, 1,
                1, 0, 0)), GST_FLOW_NOT_NEGOTIATED);
  }
  gst_harness_teardown (h);
  h = clr_make_harness ("clresample", 8000, 8000 * 1025, 1);
  {
    float x[16] = { 0 };
    fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (x, 16, 1,
                8000, 0, 0)), GST_FLOW_NOT_NEGOTIATED);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 1 to 255 channels: every channel carries the same signal, so every output
 * channel must equal the mono result. */
GST_START_TEST (test_channel_counts)
{
  static const int counts[] = { 1, 2, 8, 64, 255 };
  const size_t n = 2000;
  float *mono = g_new (float, n), *in = g_new (float, n * 255);
  Collected one;
  guint k;

  clr_signal_noise (mono, n, 0.5, 8);
  clr_run_stream ("clresample", 48000, 44100, 1, mono, n, NULL, 0, &one);
  for (k = 0; k < G_N_ELEMENTS (counts); k++) {
    int ch = counts[k], c;
    Collected many;
    size_t i, bad = 0;

    for (i = 0; i < n; i++)
      for (c = 0; c < ch; c++)
        in[i * ch + c] = mono[i];
    clr_run_stream ("clresample", 48000, 44100, ch, in, n, NULL, 0, &many);
    fail_unless_equals_uint64 (many.frames, one.frames);
    for (i = 0; i < many.frames; i++)
      for (c = 0; c < ch; c++)
        bad += !(fabs (many.data[i * ch + c] - one.data[i]) <
            CLR_SAME_SAMPLE);
    fail_unless (bad == 0, "%d channels: %" G_GSIZE_FORMAT " samples differ "
        "from the mono stream's", ch, bad);
    clr_collected_free (&many);
  }
  clr_collected_free (&one);
  g_free (mono);
  g_free (in);
}

GST_END_TEST;

static GString *engine_log;

static void
log_capture (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  if (!strcmp (gst_debug_category_get_name (category), "clresample-engine"))
    g_string_append_printf (engine_log, "%s\n",
        gst_debug_message_get (message));
}

/* The CLRESAMPLE_* variables are read once a process (clr-tuning.h): a
 * test that sets one needs a process of its own, which check forks for
 * every test unless CK_FORK=no (scripts/valgrind.sh). */
static gboolean
own_process (const char *variable)
{
  if (g_strcmp0 (g_getenv ("CK_FORK"), "no") != 0)
    return TRUE;
  g_print ("skipped: setting %s needs a process of its own, not CK_FORK=no\n",
      variable);
  return FALSE;
}

/* A kernel that does not build: an element error that says so, the build
 * log in the debug log, no crash. */
GST_START_TEST (test_build_failure)
{
  GstBus *bus;
  GstHarness *h;
  float x[64] = { 0 };

  if (!own_process ("CLRESAMPLE_BUILD_OPTIONS"))
    return;
  engine_log = g_string_new (NULL);
  gst_debug_set_threshold_for_name ("clresample-engine", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (log_capture, NULL, NULL);
  /* breaks the kernel source: "typedef float int;" (the kernels, not
   * the host's sums of a CPU device) */
  g_setenv ("CLRESAMPLE_BUILD_OPTIONS", "-Dcoef_t=int", TRUE);
  g_setenv ("CLRESAMPLE_RESAMPLE_HOST", "0", TRUE);
  h = harness_with_bus ("clresample", 44100, 48000, 1, &bus);
  fail_if (gst_harness_push (h, clr_make_buffer (x, 64, 1, 44100, 0, 0)) ==
      GST_FLOW_OK);
  g_unsetenv ("CLRESAMPLE_BUILD_OPTIONS");
  g_unsetenv ("CLRESAMPLE_RESAMPLE_HOST");
  gst_debug_remove_log_function (log_capture);
  gst_debug_unset_threshold_for_name ("clresample-engine");
  g_error_free (expect_error (h, bus, "Building the OpenCL kernels"));
  fail_unless (strstr (engine_log->str, "OpenCL build log") != NULL);
  g_string_free (engine_log, TRUE);
}

GST_END_TEST;

/* A device too small for the request (a device-memory budget stands in for
 * a small GPU): a clear element error. */
GST_START_TEST (test_out_of_memory)
{
  GstBus *bus;
  GstHarness *h;
  float x[64] = { 0 };

  if (!own_process ("CLRESAMPLE_DEVICE_MEMORY"))
    return;
  g_setenv ("CLRESAMPLE_DEVICE_MEMORY", "1000000", TRUE);
  h = harness_with_bus ("clresample taps=4096", 44100, 48000, 64, &bus);
  fail_if (gst_harness_push (h, clr_make_buffer (x, 1, 64, 44100, 0, 0)) ==
      GST_FLOW_OK);
  g_error_free (expect_error (h, bus, "device memory"));
  /* and the FFT path: 1,015,808 taps' spectra are 8.4 MB */
  h = harness_with_bus ("clresample taps=63488", 44100, 705600, 2, &bus);
  fail_if (gst_harness_push (h, clr_make_buffer (x, 1, 2, 44100, 0, 0)) ==
      GST_FLOW_OK);
  g_unsetenv ("CLRESAMPLE_DEVICE_MEMORY");
  g_error_free (expect_error (h, bus, "CLRESAMPLE_DEVICE_MEMORY"));
}

GST_END_TEST;

typedef struct {
  const float *in;
  size_t frames;
  Collected out;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;
  clr_run_stream ("clresample", 44100, 48000, 2, j->in, j->frames, NULL, 0,
      &j->out);
  return NULL;
}

/* 16 pipelines at once in one process share the device and each gives what
 * one alone gives. */
GST_START_TEST (test_many_instances)
{
  const size_t n = 20000;
  float *in = g_new (float, n * 2);
  Job jobs[16];
  GThread *threads[16];
  Collected alone;
  guint i;

  clr_signal_noise (in, n * 2, 0.5, 9);
  clr_run_stream ("clresample", 44100, 48000, 2, in, n, NULL, 0, &alone);
  for (i = 0; i < 16; i++) {
    jobs[i].in = in;
    jobs[i].frames = n;
    threads[i] = g_thread_new ("job", run_job, &jobs[i]);
  }
  for (i = 0; i < 16; i++) {
    g_thread_join (threads[i]);
    fail_unless_equals_uint64 (jobs[i].out.frames, alone.frames);
    fail_unless (memcmp (jobs[i].out.data, alone.data,
            alone.frames * 2 * sizeof (float)) == 0);
    clr_collected_free (&jobs[i].out);
  }
  clr_collected_free (&alone);
  g_free (in);
}

GST_END_TEST;

static long
rss_kib (void)
{
  gchar *status = NULL, *p;
  long kib = -1;

  if (g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      && (p = strstr (status, "VmRSS:")))
    kib = strtol (p + 6, NULL, 10);
  g_free (status);
  return kib;
}

/* Bytes the allocator has handed out and not had back, over every arena:
 * unlike RSS, untouched by fragmentation, by freed memory the allocator
 * keeps, or by which thread's arena a cycle happened to use. */
static long
heap_in_use_kib (void)
{
  struct mallinfo2 mi = mallinfo2 ();

  return (long) ((mi.uordblks + mi.hblkhd) / 1024);
}

/* 500 NULL -> PLAYING -> NULL cycles: no failure, and no memory growth. */
GST_START_TEST (test_state_cycles)
{
  GstElement *pipe = gst_parse_launch ("audiotestsrc num-buffers=2 "
      "samplesperbuffer=441 ! audio/x-raw,format=F32LE,rate=44100 ! "
      "clresample ! audio/x-raw,rate=48000 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  long rss_early = 0, heap_early = 0;
  guint i;

  for (i = 0; i < 500; i++) {
    GstMessage *msg;
    fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
    gst_message_unref (msg);
    fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
    if (i == 50) {
      rss_early = rss_kib ();
      heap_early = heap_in_use_kib ();
    }
  }
  GST_INFO ("after 50 cycles: RSS %ld KiB, heap in use %ld KiB; after 500: "
      "%ld, %ld KiB", rss_early, heap_early, rss_kib (), heap_in_use_kib ());
#ifndef __SANITIZE_ADDRESS__
  /* Memory kept a cycle shows over 450 cycles: 2 KiB a cycle on the heap,
   * where the figure is exact (measured: 40 KiB in all, the first cycles'
   * caches); RSS also counts what the allocator keeps for reuse, which
   * varies from run to run by a few MiB, so only gross growth outside the
   * heap (device or mapped memory) fails it. AddressSanitizer holds freed
   * memory in quarantine: there LeakSanitizer judges. */
  fail_unless (heap_in_use_kib () - heap_early < 1024,
      "heap in use grew from %ld to %ld KiB", heap_early, heap_in_use_kib ());
  fail_unless (rss_kib () - rss_early < 16384, "RSS grew from %ld to %ld KiB",
      rss_early, rss_kib ());
#endif
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* playbin with clresample as its audio filter plays a real file to EOS. */
GST_START_TEST (test_playbin)
{
  gchar *dir = g_dir_make_tmp ("clresample-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "tone.wav", NULL);
  gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=20 ! "
      "audio/x-raw,rate=44100,channels=2 ! wavenc ! filesink location=%s",
      path);
  gchar *uri = gst_filename_to_uri (path, NULL);
  GstElement *pipe = gst_parse_launch (launch, NULL), *filter, *sink;
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);

  pipe = gst_element_factory_make ("playbin", NULL);
  /* make it resample: the filter's own output rate differs from the file */
  filter = gst_parse_bin_from_description ("clresample ! "
      "audio/x-raw,rate=96000", TRUE, NULL);
  sink = gst_parse_bin_from_description ("fakesink sync=false", TRUE, NULL);
  g_object_set (pipe, "uri", uri, "audio-filter", filter, "audio-sink", sink,
      "video-sink", gst_element_factory_make ("fakesink", NULL), NULL);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "playbin did not finish");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err;
    gst_message_parse_error (msg, &err, NULL);
    fail ("playbin error: %s", err->message);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_unlink (path);
  g_rmdir (dir);
  g_free (uri);
  g_free (launch);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

static Suite *
robust_suite (void)
{
  Suite *s = suite_create ("clresample-robust");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_input_caps_change);
  tcase_add_test (tc, test_output_rate_change);
  tcase_add_test (tc, test_quality_change);
  tcase_add_test (tc, test_cutoff_change);
  tcase_add_test (tc, test_phase_change);
  tcase_add_test (tc, test_taps_change_paths);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_long_gap);
  tcase_add_test (tc, test_untimed_and_empty);
  tcase_add_test (tc, test_segment_clipping);
  tcase_add_test (tc, test_extreme_rates);
  tcase_add_test (tc, test_channel_counts);
  tcase_add_test (tc, test_build_failure);
  tcase_add_test (tc, test_out_of_memory);
  tcase_add_test (tc, test_many_instances);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_playbin);
  return s;
}

GST_CHECK_MAIN (robust);
