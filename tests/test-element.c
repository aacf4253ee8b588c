/* clresample: element tests with GstHarness, on the real OpenCL device
 * (PoCL in CI). Every expectation is exact: frame counts, timestamps,
 * offsets, samples against the float64 reference. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include <stdlib.h>
#include "device/clr-device.h"
#include "resample/clr-engine.h"
#include "design/clr-filter.h"
#include "design/clr-rate.h"
#include "clr-reference.h"
#include "clr-signal.h"

#include "clr-harness.h"

static void
check_reference_launch (const char *launch, guint taps, int in_rate,
    int out_rate, int channels)
{
  clr_check_reference (launch, taps, 0.0, 0.0, in_rate, out_rate, channels);
}

static void
check_reference (int in_rate, int out_rate, int channels)
{
  check_reference_launch ("clresample", 0, in_rate, out_rate, channels);
}

GST_START_TEST (test_reference)
{
  static const int cases[][3] = {
    {44100, 48000, 1}, {44100, 48000, 2}, {48000, 44100, 6},
    {44100, 192000, 2}, {96000, 44100, 2}, {8000, 44100, 1},
    {44100, 44101, 6}, {44100, 44101, 1},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_reference (cases[i][0], cases[i][1], cases[i][2]);
}

GST_END_TEST;

GST_START_TEST (test_buffer_sizes)
{
  size_t frames = 48000, *pieces, i;
  float *in = g_new (float, frames * 2);
  Collected a, b;
  GRand *rand = g_rand_new_with_seed (1234);
  double worst = 0.0;

  clr_signal_noise (in, frames * 2, 0.9, 99);
  pieces = g_new (size_t, 200);
  for (i = 0; i < 200; i++)
    pieces[i] = g_rand_int_range (rand, 1, 3001);
  {
    size_t one = frames;
    clr_run_stream ("clresample", 44100, 48000, 2, in, frames, &one, 1, &a);
  }
  clr_run_stream ("clresample", 44100, 48000, 2, in, frames, pieces, 200, &b);
  fail_unless_equals_uint64 (a.frames, 52245);  /* ceil (48000 * 160/147) */
  fail_unless_equals_uint64 (b.frames, a.frames);
  for (i = 0; i < a.frames * 2; i++)
    worst = MAX (worst, fabs (a.data[i] - b.data[i]));
  fail_unless (worst <= 1e-6, "output depends on buffer sizes: %g", worst);
  g_rand_free (rand);
  g_free (pieces);
  g_free (in);
  clr_collected_free (&a);
  clr_collected_free (&b);
}

GST_END_TEST;

/* With staging through page-locked memory (GPUs; CLRESAMPLE_PINNED=1 makes
 * PoCL do it too) the output buffers are page-locked themselves, the
 * drained tail included, and a large buffer's output lands in them
 * straight from the device; otherwise they are ordinary memory. Either
 * way the samples are those of small buffers, which come through the
 * scheduler's staging. */
GST_START_TEST (test_output_memory)
{
  const gchar *env = g_getenv ("CLRESAMPLE_PINNED");
  ClrDevice *dev = clr_device_acquire (NULL, NULL);
  /* the engine's rule: GPUs stage through page-locked memory */
  const gboolean pinned = env ? atoi (env) != 0 : clr_device_is_gpu (dev);
  /* 44100 frames come out as 384 kB, past the engine's direct output;
   * the last piece, 11800 frames, and the tail stay below it */
  size_t frames = 100000, small = 4410, large = 44100, i;
  float *in = g_new (float, frames * 2);
  Collected c, d;

  clr_signal_noise (in, frames * 2, 0.5, 8);
  clr_run_stream ("clresample", 44100, 48000, 2, in, frames, &large, 1, &c);
  fail_unless_equals_uint64 (c.frames, 108844); /* ceil (100000 * 160/147) */
  fail_unless_equals_int (c.buffers->len, 4);   /* 3 buffers and the tail */
  for (i = 0; i < c.buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c.buffers, i);
    /* the tail is small: ordinary memory */
    const gboolean large = gst_buffer_get_size (b) >=
        CLR_ENGINE_DIRECT_MIN_BYTES;
    fail_unless_equals_int (gst_buffer_n_memory (b), 1);
    fail_unless_equals_int (gst_memory_is_type (gst_buffer_peek_memory (b, 0),
            "ClrPinnedMemory"), pinned && large);
    fail_unless_equals_int (large, i < 2);
  }
  clr_run_stream ("clresample", 44100, 48000, 2, in, frames, &small, 1, &d);
  fail_unless_equals_uint64 (d.frames, c.frames);
  fail_unless (memcmp (c.data, d.data, c.frames * 2 * sizeof (float)) == 0,
      "large buffers give other samples than small ones");
  g_free (in);
  clr_collected_free (&c);
  clr_collected_free (&d);
  clr_device_unref (dev);
}

GST_END_TEST;

/* Timestamps, durations and offsets are contiguous and come from counters;
 * the first output sits on the first input; EOS drains to the exact total. */
static void
check_timestamps_launch (const char *launch, int in_rate, int out_rate,
    size_t frames, size_t piece)
{
  const GstClockTime start = 1 * GST_SECOND + 12345;
  GstHarness *h = clr_make_harness (launch, in_rate, out_rate, 1);
  float *in = g_new0 (float, frames);
  guint64 total = 0, offset0;
  Collected c;
  guint i;

  clr_signal_noise (in, frames, 0.5, 3);
  {
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  clr_push_stream (h, in, frames, 1, in_rate, start, &piece, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  fail_unless (c.buffers->len > 0);
  offset0 = gst_util_uint64_scale_int_round (start, out_rate, GST_SECOND);
  for (i = 0; i < c.buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c.buffers, i);
    guint64 n = gst_buffer_get_size (b) / sizeof (float);
    GstClockTime pts = start + gst_util_uint64_scale_int_round (total, GST_SECOND,
        out_rate);
    GstClockTime end = start + gst_util_uint64_scale_int_round (total + n,
        GST_SECOND, out_rate);

    fail_unless_equals_clocktime (GST_BUFFER_PTS (b), pts);
    fail_unless_equals_clocktime (GST_BUFFER_DURATION (b), end - pts);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), offset0 + total);
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (b), offset0 + total + n);
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), i == 0);
    total += n;
  }
  fail_unless_equals_clocktime (GST_BUFFER_PTS (g_ptr_array_index (c.buffers,
              0)), start);
  {
    ClrRatio r;
    clr_ratio_init (&r, in_rate, out_rate);
    fail_unless_equals_uint64 (total, clr_ratio_out_total (&r, frames));
  }
  g_free (in);
  clr_collected_free (&c);
  gst_harness_teardown (h);
}

static void
check_timestamps (int in_rate, int out_rate, size_t frames, size_t piece)
{
  check_timestamps_launch ("clresample", in_rate, out_rate, frames, piece);
}

GST_START_TEST (test_timestamps)
{
  check_timestamps (44100, 48000, 44100, 1024);
  check_timestamps (48000, 44100, 48000, 480);
  check_timestamps (44100, 192000, 10000, 1);
  check_timestamps (44100, 44101, 44100, 4096);
  check_timestamps (96000, 8000, 9600, 777);
}

GST_END_TEST;

GST_START_TEST (test_exact_totals)
{
  static const int cases[][3] = {
    {44100, 48000, 44100}, {44100, 48000, 1}, {44100, 48000, 147},
    {48000, 44100, 1000}, {8000, 44100, 12345}, {44100, 8000, 11},
    {22050, 48000, 22050},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    size_t frames = cases[i][2];
    float *in = g_new0 (float, frames);
    ClrRatio r;
    Collected c;

    clr_signal_noise (in, frames, 0.5, i);
    clr_run_stream ("clresample", cases[i][0], cases[i][1], 1, in, frames, NULL,
        0, &c);
    clr_ratio_init (&r, cases[i][0], cases[i][1]);
    fail_unless_equals_uint64 (c.frames, clr_ratio_out_total (&r, frames));
    g_free (in);
    clr_collected_free (&c);
  }
}

GST_END_TEST;

GST_START_TEST (test_latency)
{
  GstHarness *h = clr_make_harness ("clresample quality=4", 44100, 48000, 2);
  ClrRatio r;
  ClrFilter f;
  GstClockTime expected;

  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, 4, 0);
  expected = gst_util_uint64_scale_int_round (f.taps / 2, GST_SECOND, 44100);
  fail_unless (expected > 0);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      10 * GST_MSECOND + expected);
  gst_harness_teardown (h);

  /* equal rates add nothing */
  h = clr_make_harness ("clresample", 48000, 48000, 2);
  gst_harness_set_upstream_latency (h, 10 * GST_MSECOND);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      10 * GST_MSECOND);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A DISCONT buffer or a timestamp jump ends the run: its tail comes out
 * complete, and the next run starts on the new timestamp, marked DISCONT. */
static void
check_discont (gboolean flag, GstClockTime jump_to)
{
  GstHarness *h = clr_make_harness ("clresample", 44100, 48000, 1);
  size_t frames = 10000;
  float *in = g_new0 (float, frames);
  GstBuffer *b;
  Collected c;
  guint64 first_run = 0;
  guint i;

  clr_signal_noise (in, frames, 0.5, 5);
  clr_push_stream (h, in, frames, 1, 44100, 0, NULL, 0);
  b = clr_make_buffer (in, 4410, 1, 44100, jump_to, 0);
  if (flag)
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  for (i = 0; i < c.buffers->len; i++) {
    b = g_ptr_array_index (c.buffers, i);
    if (GST_BUFFER_PTS (b) >= jump_to)
      break;
    first_run += gst_buffer_get_size (b) / sizeof (float);
  }
  /* ceil (10000 * 160 / 147) frames: the first run drained completely */
  fail_unless_equals_uint64 (first_run, 10885);
  fail_unless (i < c.buffers->len);
  fail_unless_equals_clocktime (GST_BUFFER_PTS (b), jump_to);
  fail_unless (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT));
  fail_unless_equals_uint64 (c.frames - first_run, 4800);
  g_free (in);
  clr_collected_free (&c);
  gst_harness_teardown (h);
}

GST_START_TEST (test_discont)
{
  check_discont (TRUE, 5 * GST_SECOND);
  check_discont (FALSE, 7 * GST_SECOND);
}

GST_END_TEST;

/* Jitter below the threshold is absorbed: timestamps stay on the counter. */
GST_START_TEST (test_jitter_absorbed)
{
  GstHarness *h = clr_make_harness ("clresample", 48000, 44100, 1);
  float in[4800];
  Collected c;
  guint i, total = 0;

  clr_signal_noise (in, 4800, 0.5, 8);
  for (i = 0; i < 10; i++) {
    GstBuffer *b = clr_make_buffer (in, 4800, 1, 48000, 0, i * 4800);
    GST_BUFFER_PTS (b) += (i % 2) ? 2 * GST_MSECOND : 0;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  for (i = 0; i < c.buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c.buffers, i);
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        gst_util_uint64_scale_int_round (total, GST_SECOND, 44100));
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), i == 0);
    total += gst_buffer_get_size (b) / sizeof (float);
  }
  fail_unless_equals_int (total, 44100);
  clr_collected_free (&c);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* FLUSH_STOP forgets the history: after it the element behaves as new. */
GST_START_TEST (test_flush)
{
  GstHarness *h = clr_make_harness ("clresample", 44100, 48000, 2);
  size_t frames = 8000;
  float *a = g_new (float, frames * 2), *b = g_new (float, frames * 2);
  GstSegment seg;
  Collected fresh, after;
  GstBuffer *buf;

  clr_signal_noise (a, frames * 2, 0.5, 10);
  clr_signal_noise (b, frames * 2, 0.5, 11);
  clr_run_stream ("clresample", 44100, 48000, 2, b, frames, NULL, 0, &fresh);

  clr_push_stream (h, a, frames, 2, 44100, 0, NULL, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  while ((buf = gst_harness_try_pull (h)))
    gst_buffer_unref (buf);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  clr_push_stream (h, b, frames, 2, 44100, 0, NULL, 0);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 2, &after);
  fail_unless_equals_uint64 (after.frames, fresh.frames);
  clr_assert_samples (after.data, fresh.data, fresh.frames * 2,
      "after the flush, against a fresh stream");
  buf = g_ptr_array_index (after.buffers, 0);
  fail_unless_equals_clocktime (GST_BUFFER_PTS (buf), 0);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT));
  g_free (a);
  g_free (b);
  clr_collected_free (&fresh);
  clr_collected_free (&after);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_passthrough)
{
  GstHarness *h = clr_make_harness ("clresample", 48000, 48000, 2);
  float in[2048] = { 0.25f };
  GstBuffer *b = clr_make_buffer (in, 1024, 2, 48000, 0, 0), *out;

  gst_buffer_ref (b);
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  out = gst_harness_pull (h);
  /* zero-copy: the very same buffer */
  fail_unless (out == b);
  gst_buffer_unref (out);
  gst_buffer_unref (b);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* GAP in, GAP out of the right length once the history is silent; the
 * ringing tail of real audio before it is still computed. */
GST_START_TEST (test_gap)
{
  GstHarness *h = clr_make_harness ("clresample", 48000, 44100, 1);
  float in[4800];
  Collected c;
  guint i, total = 0, gaps = 0;

  clr_signal_noise (in, 4800, 0.5, 12);
  fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (in, 4800, 1,
              48000, 0, 0)), GST_FLOW_OK);
  for (i = 1; i <= 20; i++) {
    GstBuffer *b = clr_make_buffer (in, 4800, 1, 48000, 0, i * 4800);
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_GAP);
    gst_buffer_memset (b, 0, 0, 4800 * sizeof (float));
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, 1, &c);
  for (i = 0; i < c.buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c.buffers, i);
    guint n = gst_buffer_get_size (b) / sizeof (float);

    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        gst_util_uint64_scale_int_round (total, GST_SECOND, 44100));
    if (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_GAP)) {
      clr_assert_samples (c.data + total, NULL, n, "a GAP buffer");
      gaps++;
    }
    total += n;
  }
  /* 21 * 4800 frames at 48 kHz = 2.1 s = 92610 frames at 44.1 kHz */
  fail_unless_equals_int (total, 92610);
  fail_unless (gaps >= 17, "only %u GAP buffers out", gaps);
  /* the first output after the sound is its tail, not a GAP */
  fail_if (GST_BUFFER_FLAG_IS_SET (g_ptr_array_index (c.buffers, 1),
          GST_BUFFER_FLAG_GAP));
  clr_collected_free (&c);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* THD+N of a 1 kHz tone at -1 dBFS, 44.1 -> 48 kHz, default quality: the
 * residual after a least-squares sine fit over the steady state. The figure
 * is the one docs/quality.md documents. */
#define THDN_DEFAULT_MAX_DB (-142.0)

GST_START_TEST (test_thdn_default)
{
  const size_t frames = 88200;
  const double amp = pow (10.0, -1.0 / 20.0);
  float *in = g_new (float, frames);
  ClrSineFit fit;
  Collected c;
  double db;

  clr_signal_sine (in, frames, 1, 1000, 44100, amp, 0.0);
  clr_run_stream ("clresample", 44100, 48000, 1, in, frames, NULL, 0, &c);
  fail_unless_equals_uint64 (c.frames, 96000);
  /* skip the switch-on and switch-off transients: 0.25 s each side */
  clr_sine_fit (c.data, 12000, c.frames - 24000, 1, 0, 1000.0, 48000.0, &fit);
  db = clr_sine_fit_thdn_db (&fit);
  GST_INFO ("THD+N %.1f dB, amplitude %.9f", db, fit.amplitude);
  g_printerr ("THD+N 1 kHz 44.1 -> 48 kHz, quality 4: %.1f dB\n", db);
  fail_unless (db <= THDN_DEFAULT_MAX_DB, "THD+N %.1f dB > %.1f dB", db,
      THDN_DEFAULT_MAX_DB);
  fail_unless (fabs (fit.amplitude - amp) < 1e-6);
  g_free (in);
  clr_collected_free (&c);
}

GST_END_TEST;

static double
time_offset (int in_rate, int out_rate, int quality)
{
  char *launch = g_strdup_printf ("clresample quality=%d", quality);
  double d = clr_time_offset (launch, in_rate, out_rate);

  g_free (launch);
  return d;
}

GST_START_TEST (test_time_alignment)
{
  static const int pairs[][2] = {
    {44100, 48000}, {22050, 48000}, {48000, 44100}, {44100, 192000},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pairs); i++) {
    double d = time_offset (pairs[i][0], pairs[i][1], CLR_QUALITY_DEFAULT);
    fail_unless (fabs (d) <= 0.001, "%d -> %d: offset %g samples",
        pairs[i][0], pairs[i][1], d);
  }
  fail_unless (fabs (time_offset (44100, 48000, 0)) <= 0.001);
  fail_unless (fabs (time_offset (44100, 48000, 10)) <= 0.001);
}

GST_END_TEST;

/* Long filters take the FFT path (clr-engine-fft.c): the same guarantees
 * as the direct kernels, with its own latency. 8192 taps are past the
 * CPU's crossovers up and down; CLRESAMPLE_FFT=1 is not needed. */
GST_START_TEST (test_fft_path)
{
  static const int pairs[][2] = { {44100, 176400}, {192000, 48000} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pairs); i++) {
    const int in_rate = pairs[i][0], out_rate = pairs[i][1];
    ClrEngineConfig cfg = { in_rate, out_rate, 2, CLR_QUALITY_DEFAULT, 8192,
      CLR_FORMAT_F32, FALSE, 0
    };
    GError *err = NULL;
    ClrDevice *dev = clr_device_acquire ("auto", &err);
    ClrEngine *e = clr_engine_new (dev, &cfg, &err);
    GstHarness *h;
    double d;

    fail_unless (e != NULL);
    /* the samples, against the float64 reference */
    check_reference_launch ("clresample taps=8192", 8192, in_rate, out_rate,
        2);
    /* counters, the first output on the first input, exact totals */
    check_timestamps_launch ("clresample taps=8192", in_rate, out_rate,
        20000, 1024);
    check_timestamps_launch ("clresample taps=8192", in_rate, out_rate, 7,
        1);
    d = clr_time_offset ("clresample taps=8192", in_rate, out_rate);
    fail_unless (fabs (d) <= 0.001, "%d -> %d: offset %g samples", in_rate,
        out_rate, d);
    /* the latency query: K/2 + the convolution's block */
    h = clr_make_harness ("clresample taps=8192", in_rate, out_rate, 2);
    gst_harness_set_upstream_latency (h, 0);
    fail_unless (clr_engine_get_latency (e) > 8192 / 2);
    fail_unless_equals_clocktime (gst_harness_query_latency (h),
        gst_util_uint64_scale_int_round (clr_engine_get_latency (e),
            GST_SECOND, in_rate));
    gst_harness_teardown (h);
    clr_engine_free (e);
    clr_device_unref (dev);
  }
}

GST_END_TEST;

/* Every format and layout through the element, against the float64
 * reference: F32 and the integer formats to within their resolution, F64 to
 * within double rounding. */
typedef struct {
  const char *format;
  int bytes;
  double scale;                 /* integer full scale; 0 for float */
  double tolerance;
} FormatCase;

static double
sample_get (const FormatCase * fc, const guint8 * p)
{
  if (!strcmp (fc->format, "F32LE"))
    return *(const float *) p;
  if (!strcmp (fc->format, "F64LE"))
    return *(const double *) p;
  if (fc->bytes == 2)
    return *(const gint16 *) p / fc->scale;
  return *(const gint32 *) p / fc->scale;
}

static void
sample_set (const FormatCase * fc, guint8 * p, float v)
{
  if (!strcmp (fc->format, "F32LE"))
    *(float *) p = v;
  else if (!strcmp (fc->format, "F64LE"))
    *(double *) p = v;
  else if (fc->bytes == 2)
    *(gint16 *) p = (gint16) rint (v * fc->scale);
  else
    *(gint32 *) p = (gint32) rint (v * fc->scale);
}

static void
check_format (const FormatCase * fc, gboolean planar)
{
  const int in_rate = 44100, out_rate = 48000, ch = 2;
  const size_t frames = 6000, piece = 1000;
  const char *layout = planar ? "non-interleaved" : "interleaved";
  char *in_caps = g_strdup_printf ("audio/x-raw,format=%s,layout=%s,"
      "rate=%d,channels=%d", fc->format, layout, in_rate, ch);
  char *out_caps = g_strdup_printf ("audio/x-raw,format=%s,layout=%s,"
      "rate=%d,channels=%d", fc->format, layout, out_rate, ch);
  GstHarness *h = gst_harness_new ("clresample");
  float *in = g_new (float, frames * ch);
  GstAudioInfo info;
  GstBuffer *buf;
  double *ref, worst = 0.0;
  size_t n_ref, pos, got = 0, i, c;
  ClrRatio r;
  ClrFilter f;
  gboolean no_f64 = g_getenv ("CLRESAMPLE_NO_FP64") != NULL;
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, out_caps);
  gst_harness_set_src_caps_str (h, in_caps);
  caps = gst_caps_from_string (in_caps);
  gst_audio_info_from_caps (&info, caps);
  gst_caps_unref (caps);

  clr_signal_noise (in, frames * ch, 0.5, 31);
  for (i = 0; i < frames * ch && fc->scale > 0; i++)
    in[i] = (float) (rint (in[i] * fc->scale) / fc->scale);

  for (pos = 0; pos < frames; pos += piece) {
    GstMapInfo map;
    GstFlowReturn ret;

    buf = gst_buffer_new_allocate (NULL, piece * ch * fc->bytes, NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (i = 0; i < piece; i++)
      for (c = 0; c < (size_t) ch; c++)
        sample_set (fc, map.data + (planar ? c * piece + i : i * ch + c) *
            fc->bytes, in[(pos + i) * ch + c]);
    gst_buffer_unmap (buf, &map);
    if (planar)
      gst_buffer_add_audio_meta (buf, &info, piece, NULL);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (pos, GST_SECOND,
        in_rate);
    ret = gst_harness_push (h, buf);
    if (no_f64 && !strcmp (fc->format, "F64LE")) {
      /* refused in negotiation on a device without doubles */
      fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
      goto done;
    }
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  clr_ratio_init (&r, in_rate, out_rate);
  clr_filter_design (&f, &r, CLR_QUALITY_DEFAULT, 0);
  ref = clr_reference_resample (&r, &f, in, frames, ch, &n_ref);
  while ((buf = gst_harness_try_pull (h))) {
    GstAudioBuffer ab;
    GstAudioInfo oinfo;

    caps = gst_caps_from_string (out_caps);
    gst_audio_info_from_caps (&oinfo, caps);
    gst_caps_unref (caps);
    fail_unless (gst_audio_buffer_map (&ab, &oinfo, buf, GST_MAP_READ));
    /* one check a buffer (gst-check records each one that passes) */
    fail_unless (got + ab.n_samples <= n_ref);
    for (i = 0; i < ab.n_samples; i++)
      for (c = 0; c < (size_t) ch; c++) {
        const guint8 *p = planar ? (const guint8 *) ab.planes[c] +
            i * fc->bytes : (const guint8 *) ab.planes[0] +
            (i * ch + c) * fc->bytes;
        worst = MAX (worst, fabs (sample_get (fc, p) -
                ref[(got + i) * ch + c]));
      }
    got += ab.n_samples;
    gst_audio_buffer_unmap (&ab);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_uint64 (got, n_ref);
  fail_unless (worst <= fc->tolerance, "%s %s: error %g > %g", fc->format,
      layout, worst, fc->tolerance);
  g_free (ref);
done:
  g_free (in);
  g_free (in_caps);
  g_free (out_caps);
  gst_harness_teardown (h);
}

GST_START_TEST (test_formats)
{
  static const FormatCase cases[] = {
    {"F32LE", 4, 0, 1e-5},
    {"F64LE", 8, 0, 1e-12},
    {"S16LE", 2, 32768.0, 1.0 / 32768.0},
    {"S24_32LE", 4, 8388608.0, 1.0 / 8388608.0},
    /* the reference sees 32-bit input through float: 24 bits */
    {"S32LE", 4, 2147483648.0, 1e-6},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    check_format (&cases[i], FALSE);
    check_format (&cases[i], TRUE);
  }
}

GST_END_TEST;

GST_START_TEST (test_device_name)
{
  GstHarness *h = clr_make_harness ("clresample device=cpu", 44100, 48000, 1);
  gchar *name = NULL;
  GstElement *e = gst_harness_find_element (h, "clresample");

  g_object_get (e, "device-name", &name, NULL);
  gst_object_unref (e);
  fail_unless (name != NULL && *name);
  g_free (name);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
clresample_suite (void)
{
  Suite *s = suite_create ("clresample");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_reference);
  tcase_add_test (tc, test_buffer_sizes);
  tcase_add_test (tc, test_output_memory);
  tcase_add_test (tc, test_timestamps);
  tcase_add_test (tc, test_exact_totals);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_discont);
  tcase_add_test (tc, test_jitter_absorbed);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_thdn_default);
  tcase_add_test (tc, test_time_alignment);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_fft_path);
  tcase_add_test (tc, test_device_name);
  return s;
}

GST_CHECK_MAIN (clresample);
