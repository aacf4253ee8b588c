/* clresample: live filter changes without a stall. A change of taps or
 * quality while playing designs the new filter and sets up its engine on a
 * thread of its own (gstclrbuilder.h) while the old filter plays on; the
 * streaming thread only swaps them. Here in real time: a live source, the
 * million-tap filter of the M-Scaler example (docs/elements.md), and the
 * arrival of every output buffer timed on the wall clock. Real elements, the real
 * OpenCL device. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "conv/clr-conv.h"
#include "design/clr-design-cache.h"
#include "resample/clr-engine.h"
#include <glib/gstdio.h>
#include "clr-audio-check.h"

#define IN_RATE 44100
#define OUT_RATE 705600
/* 16 x 61440 = 983,040 taps, then 16 x 63488 = 1,015,808: both on the FFT
 * path with blocks of 4096 frames, and 1024 input frames (23.2 ms) more
 * latency after the change */
#define TAPS_FROM 61440u
#define TAPS_TO 63488u
#define QUALITY 10
/* what the element keeps for a successor (gstclresample.c) */
#define HISTORY_MAX_BYTES (16u << 20)

typedef struct
{
  gint64 at;                    /* monotonic us of arrival */
  GstClockTime pts, duration;
  guint64 offset, offset_end;
  gsize frames;
  gboolean discont;
} Arrival;

/* A live source through clresample into a fakesink that does not sync:
 * every output buffer's arrival as the streaming thread pushes it. */
typedef struct
{
  GstElement *pipeline, *src, *resampler;
  guint channels;               /* of the output */
  GstBus *bus;
  GMutex lock;
  GArray *arrivals;
  GArray *switches;             /* monotonic us of each latency message */
} Live;

static GstPadProbeReturn
on_output (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Live *l = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  Arrival a = { g_get_monotonic_time (), GST_BUFFER_PTS (buf),
    GST_BUFFER_DURATION (buf), GST_BUFFER_OFFSET (buf),
    GST_BUFFER_OFFSET_END (buf), gst_buffer_get_size (buf) / (l->channels *
        sizeof (float)), GST_BUFFER_FLAG_IS_SET (buf,
        GST_BUFFER_FLAG_DISCONT)
  };

  g_mutex_lock (&l->lock);
  g_array_append_val (l->arrivals, a);
  g_mutex_unlock (&l->lock);
  return GST_PAD_PROBE_OK;
}

/* The element posts a latency message when a new engine takes over: the
 * moment the new filter plays. */
static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Live *l = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_LATENCY
      && GST_MESSAGE_SRC (msg) == GST_OBJECT (l->resampler)) {
    gint64 now = g_get_monotonic_time ();

    g_mutex_lock (&l->lock);
    g_array_append_val (l->switches, now);
    g_mutex_unlock (&l->lock);
  }
  return GST_BUS_PASS;
}

/* `desc`: a source named src, the element under test named r */
static void
live_start_desc (Live * l, const gchar * desc, guint channels)
{
  GstPad *pad;
  guint i;

  l->pipeline = gst_parse_launch (desc, NULL);
  l->channels = channels;
  fail_unless (l->pipeline != NULL);
  g_mutex_init (&l->lock);
  l->arrivals = g_array_new (FALSE, FALSE, sizeof (Arrival));
  l->switches = g_array_new (FALSE, FALSE, sizeof (gint64));
  l->src = gst_bin_get_by_name (GST_BIN (l->pipeline), "src");
  l->resampler = gst_bin_get_by_name (GST_BIN (l->pipeline), "r");
  l->bus = gst_element_get_bus (l->pipeline);
  gst_bus_set_sync_handler (l->bus, on_message, l, NULL);
  pad = gst_element_get_static_pad (l->resampler, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_output, l, NULL);
  gst_object_unref (pad);
  fail_unless (gst_element_set_state (l->pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  /* the first engine (and the kernels, the first time) take a while */
  for (i = 0; i < 2000; i++) {
    gboolean any;

    g_mutex_lock (&l->lock);
    any = l->arrivals->len > 0;
    g_mutex_unlock (&l->lock);
    if (any)
      break;
    g_usleep (10000);
  }
  fail_unless (l->arrivals->len > 0, "no output");
}

static void
live_start (Live * l, guint taps)
{
  gchar *desc = g_strdup_printf ("audiotestsrc name=src is-live=true "
      "samplesperbuffer=441 wave=sine freq=1000 ! audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=%d,channels=2 ! clresample name=r quality=%d "
      "taps=%u ! audio/x-raw,rate=%d ! fakesink sync=false", IN_RATE,
      QUALITY, taps, OUT_RATE);

  live_start_desc (l, desc, 2);
  g_free (desc);
}

static void
live_stop (Live * l)
{
  fail_unless_equals_int (gst_element_set_state (l->pipeline,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
}

static void
live_free (Live * l)
{
  gst_bus_set_sync_handler (l->bus, NULL, NULL, NULL);
  gst_object_unref (l->bus);
  gst_object_unref (l->src);
  gst_object_unref (l->resampler);
  gst_object_unref (l->pipeline);
  g_array_unref (l->arrivals);
  g_array_unref (l->switches);
  g_mutex_clear (&l->lock);
}

/* Latency messages of the resampler at or after `from` */
static guint
switches_since (Live * l, gint64 from)
{
  guint i, n = 0;

  g_mutex_lock (&l->lock);
  for (i = 0; i < l->switches->len; i++)
    n += g_array_index (l->switches, gint64, i) >= from;
  g_mutex_unlock (&l->lock);
  return n;
}

/* Sets taps, and waits for the new filter to take over: when it did. */
static gint64
live_change (Live * l, guint taps, gint64 * changed)
{
  gint64 at;
  guint i;

  *changed = g_get_monotonic_time ();
  g_object_set (l->resampler, "taps", taps, NULL);
  for (i = 0; i < 1000 && switches_since (l, *changed) == 0; i++)
    g_usleep (10000);
  fail_unless (switches_since (l, *changed) > 0, "taps %u never took over",
      taps);
  g_mutex_lock (&l->lock);
  at = g_array_index (l->switches, gint64, l->switches->len - 1);
  g_mutex_unlock (&l->lock);
  return at;
}

/* The largest wall-clock gap before an arrival in [from, to) (us). */
static gint64
largest_gap (Live * l, gint64 from, gint64 to)
{
  gint64 worst = 0;
  guint i;

  for (i = 1; i < l->arrivals->len; i++) {
    const Arrival *a = &g_array_index (l->arrivals, Arrival, i);
    const Arrival *p = &g_array_index (l->arrivals, Arrival, i - 1);

    if (a->at >= from && a->at < to)
      worst = MAX (worst, a->at - p->at);
  }
  return worst;
}

/* Every output buffer starts where the one before it ended (timestamps,
 * offsets, sizes), and none but the first is DISCONT. */
static void
check_contiguous (Live * l)
{
  guint64 frames = 0;
  guint i;

  for (i = 0; i < l->arrivals->len; i++) {
    const Arrival *a = &g_array_index (l->arrivals, Arrival, i);

    fail_unless_equals_uint64 (a->offset_end - a->offset, a->frames);
    frames += a->frames;
    if (i == 0) {
      fail_unless (a->discont);
      continue;
    }
    fail_if (a->discont, "DISCONT at buffer %u", i);
    fail_unless_equals_uint64 (a->offset, (a - 1)->offset_end);
    fail_unless_equals_clocktime (a->pts, (a - 1)->pts + (a - 1)->duration);
  }
  fail_unless_equals_uint64 (frames, g_array_index (l->arrivals, Arrival,
          l->arrivals->len - 1).offset_end - g_array_index (l->arrivals,
          Arrival, 0).offset);
}

/* The element's own latency in `launch`, alone in a harness */
static GstClockTime
latency_of (const gchar * launch, gint in_rate, gint out_rate)
{
  gchar *in = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=%d,channels=2", in_rate);
  gchar *out = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=%d,channels=2", out_rate);
  GstHarness *h = gst_harness_new_parse (launch);
  GstClockTime latency;

  gst_harness_set_sink_caps_str (h, out);
  gst_harness_set_src_caps_str (h, in);
  gst_harness_set_upstream_latency (h, 0);
  latency = gst_harness_query_latency (h);
  gst_harness_teardown (h);
  g_free (in);
  g_free (out);
  return latency;
}

static GstClockTime
latency_of_taps (guint taps)
{
  gchar *launch = g_strdup_printf ("clresample quality=%d taps=%u", QUALITY,
      taps);
  GstClockTime latency = latency_of (launch, IN_RATE, OUT_RATE);

  g_free (launch);
  return latency;
}

/* The pipeline's latency at the resampler less its source's: the
 * resampler's. */
static GstClockTime
latency_in_pipeline (Live * l)
{
  GstQuery *q = gst_query_new_latency ();
  GstClockTime at_src, at_out;
  GstPad *pad;

  pad = gst_element_get_static_pad (l->src, "src");
  fail_unless (gst_pad_query (pad, q));
  gst_query_parse_latency (q, NULL, &at_src, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (l->resampler, "src");
  fail_unless (gst_pad_query (pad, q));
  gst_query_parse_latency (q, NULL, &at_out, NULL);
  gst_object_unref (pad);
  gst_query_unref (q);
  return at_out - at_src;
}

/* What a change costs when it is built in line: the new engine from
 * scratch (the filter designed, its spectra, its buffers; kernels already
 * compiled), in this process's own copy of the core. */
static gint64
build_time_us (void)
{
  ClrEngineConfig cfg = { IN_RATE, OUT_RATE, 2, QUALITY, TAPS_TO,
    CLR_FORMAT_F32, FALSE, 0
  };
  GError *err = NULL;
  ClrDevice *dev = clr_device_acquire ("auto", &err);
  ClrEngine *e;
  gint64 t = 0;
  guint i;

  fail_unless (dev != NULL, "%s", err ? err->message : "?");
  cfg.history = MIN (CLR_TAPS_MAX + CLR_CONV_BLOCK_MAX,
      HISTORY_MAX_BYTES / (2 * sizeof (float)));
  /* the first compiles the kernels; the design made anew each time, not
   * read from the cache on disk (a build in line without one is what the
   * stalls are held against) */
  g_setenv ("CLRESAMPLE_CACHE", "0", TRUE);
  for (i = 0; i < 2; i++) {
    clr_design_cache_clear ();
    t = g_get_monotonic_time ();
    e = clr_engine_new (dev, &cfg, &err);
    t = g_get_monotonic_time () - t;
    fail_unless (e != NULL, "%s", err ? err->message : "?");
    clr_engine_free (e);
  }
  g_unsetenv ("CLRESAMPLE_CACHE");
  clr_design_cache_clear ();
  clr_device_unref (dev);
  return t;
}

/* A live 44.1 kHz stereo source (10 ms buffers) through 16 x 61440 taps to
 * 705.6 kHz; after 2.5 s taps goes to 63488 (a design not made before in
 * this process), 1.5 s after it took over back to 61440 (whose design the
 * cache still holds). The largest wall-clock gap between output buffers
 * from the change to 1.5 s after the new filter took over, against the
 * largest in the 1.5 s before it (about a buffer, 10 ms): the difference
 * must stay under the latency the new filter adds (23.2 ms, in which it
 * can give nothing) plus half of what building it in line costs (105-130
 * ms here), the stall a synchronous build made on top of the rest; and
 * the change back to a filter the element ran before, which adds no
 * latency, under half that build time alone. The priming of the new
 * filter with the kept input (40-90 ms for a million taps on two CPU
 * cores) runs on the builder's thread too, from a snapshot of the stream
 * at the change; the switch only runs the input since through it
 * (clr_engine_catch_up ()). Measured here: 30-33 ms around the change and
 * 15-20 ms around the change back, 13-15 ms steady. Every output buffer
 * starts where the one before ended
 * (timestamps and offsets), none is DISCONT but the first, and the
 * element's latency becomes that of the new filter. */
GST_START_TEST (test_live_change_no_stall)
{
  const GstClockTime lat_from = latency_of_taps (TAPS_FROM);
  const gint64 build_us = build_time_us ();
  Live l = { 0 };
  gint64 first, steady, changed, changed_back, switched, switched_back;
  gint64 around, around_back, added_us;
  GstClockTime lat_to, lat_before, lat_after, lat_back;

  live_start (&l, TAPS_FROM);
  g_mutex_lock (&l.lock);
  first = g_array_index (l.arrivals, Arrival, 0).at;
  g_mutex_unlock (&l.lock);
  while (g_get_monotonic_time () < first + 2500000)
    g_usleep (10000);
  lat_before = latency_in_pipeline (&l);
  switched = live_change (&l, TAPS_TO, &changed);
  g_usleep (1500000);
  lat_after = latency_in_pipeline (&l);
  switched_back = live_change (&l, TAPS_FROM, &changed_back);
  g_usleep (1500000);
  lat_back = latency_in_pipeline (&l);
  live_stop (&l);
  /* only now: the harness would have left the design in the cache */
  lat_to = latency_of_taps (TAPS_TO);
  added_us = (gint64) (lat_to - lat_from) / GST_USECOND;

  steady = largest_gap (&l, changed - 1500000, changed);
  around = largest_gap (&l, changed, switched + 1500000);
  around_back = largest_gap (&l, changed_back, switched_back + 1500000);
  g_print ("# taps %u -> %u live: the new filter after %.1f ms; largest "
      "gap between output buffers %.1f ms before the change, %.1f ms "
      "around it; building it in line takes %.1f ms\n", TAPS_FROM, TAPS_TO,
      (switched - changed) / 1000.0, steady / 1000.0, around / 1000.0,
      build_us / 1000.0);
  g_print ("# and back to %u (its design cached): after %.1f ms, largest gap "
      "%.1f ms\n", TAPS_FROM, (switched_back - changed_back) / 1000.0,
      around_back / 1000.0);
#ifndef __SANITIZE_ADDRESS__
  /* Wall-clock bounds: under AddressSanitizer on two cores every thread
   * runs several times slower and the steady gaps reach 40-60 ms, so the
   * same code (at 92a9c64 as now) missed them in 3 runs of 4; there the
   * change is checked for what it does, not for its timing */
  fail_unless (around - steady < added_us + build_us / 2,
      "a stall of %.1f ms at the change", (around - steady) / 1000.0);
  fail_unless (around_back - steady < build_us / 2,
      "a stall of %.1f ms at the change back", (around_back - steady) /
      1000.0);
#endif
  check_contiguous (&l);
  /* the new filter runs: the element's latency is now its own */
  fail_unless_equals_clocktime (lat_before, lat_from);
  fail_unless_equals_clocktime (lat_after, lat_to);
  fail_unless_equals_clocktime (lat_back, lat_from);
  live_free (&l);
}

GST_END_TEST;

/* A second change while the first is being built supersedes it: only the
 * last one ever plays (one switch after it), and the stream stays
 * contiguous. A change still being built when the pipeline stops is
 * dropped, and stopping waits for it: no crash, no leak (the sanitizer
 * pass). */
GST_START_TEST (test_supersede_and_stop)
{
  const guint taps_last = 57344;
  const GstClockTime lat_last = latency_of_taps (taps_last);
  Live l = { 0 };
  gint64 first, changed, changed2;
  guint i;

  live_start (&l, TAPS_FROM);
  g_mutex_lock (&l.lock);
  first = g_array_index (l.arrivals, Arrival, 0).at;
  g_mutex_unlock (&l.lock);
  while (g_get_monotonic_time () < first + 1000000)
    g_usleep (10000);
  changed = g_get_monotonic_time ();
  g_object_set (l.resampler, "taps", TAPS_TO, NULL);
  /* the streaming thread has handed it to the builder (a buffer comes
   * every 10 ms), which takes 100 ms and more to build it */
  g_usleep (40000);
  changed2 = g_get_monotonic_time ();
  g_object_set (l.resampler, "taps", taps_last, NULL);
  for (i = 0; i < 1000 && switches_since (&l, changed2) == 0; i++)
    g_usleep (10000);
  g_usleep (500000);
  GST_INFO ("%u switches since the first change",
      switches_since (&l, changed));
  fail_unless_equals_int (switches_since (&l, changed2), 1);
  fail_unless_equals_clocktime (latency_in_pipeline (&l), lat_last);

  /* stopped while a change is being built */
  g_object_set (l.resampler, "taps", TAPS_FROM, NULL);
  g_usleep (30000);
  live_stop (&l);
  check_contiguous (&l);
  live_free (&l);
}

GST_END_TEST;

/* A device that cannot be had, asked for while playing: a warning, and the
 * element goes on with the device it has, and says so (device-name); a
 * later change of quality still applies, on that device, and does not
 * try the bad device again. The harness's clock stands still, so each
 * change is waited for at the buffer after it. */
GST_START_TEST (test_failed_device)
{
  GstHarness *h = gst_harness_new_parse ("clresample quality=4");
  GstElement *e = gst_harness_find_element (h, "clresample");
  GstBus *bus = gst_bus_new ();
  const GstClockTime lat10 = latency_of ("clresample quality=10", 44100,
      48000);
  float *in = g_new0 (float, 1024 * 2);
  gchar *name = NULL, *after = NULL;
  GstMessage *msg;
  GError *err = NULL;
  guint64 pos = 0;
  guint i;

  gst_element_set_bus (e, bus);
  gst_harness_set_sink_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=48000,channels=2");
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=44100,channels=2");
  gst_harness_set_upstream_latency (h, 0);
  for (i = 0; i < 12; i++) {
    GstBuffer *b = gst_buffer_new_memdup (in, 1024 * 2 * sizeof (float));

    GST_BUFFER_PTS (b) = gst_util_uint64_scale_int (pos, GST_SECOND, 44100);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int (pos + 1024,
        GST_SECOND, 44100) - GST_BUFFER_PTS (b);
    pos += 1024;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    if (i == 4) {
      g_object_get (e, "device-name", &name, NULL);
      g_object_set (e, "device", "no-such-opencl-device-xyz", NULL);
    } else if (i == 6) {
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
      fail_unless (msg != NULL, "no warning for the bad device");
      gst_message_parse_warning (msg, &err, NULL);
      fail_unless (strstr (err->message, "going on with the old") != NULL,
          "%s", err->message);
      g_clear_error (&err);
      gst_message_unref (msg);
      g_object_get (e, "device-name", &after, NULL);
      fail_unless_equals_string (after, name);
      g_object_set (e, "quality", 10, NULL);
    }
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL,
      "the bad device was tried again");
  fail_unless_equals_clocktime (gst_harness_query_latency (h), lat10);
  g_free (after);
  g_object_get (e, "device-name", &after, NULL);
  fail_unless_equals_string (after, name);

  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  gst_harness_teardown (h);
  g_free (name);
  g_free (after);
  g_free (in);
}

GST_END_TEST;

/* clcrossover in real time: new frequencies and stopband while a live
 * source plays are designed off the streaming thread; the old filters play
 * on until the new ones crossfade in (the transition width, a property of
 * the running design, follows then), and every output frame comes out,
 * contiguous. A design still being built when the pipeline stops is
 * dropped. */
GST_START_TEST (test_crossover_live)
{
  Live l = { 0 };
  double before, after = 0.0;
  gint64 first;
  guint i;

  live_start_desc (&l, "audiotestsrc name=src is-live=true "
      "samplesperbuffer=480 wave=white-noise ! audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=48000,channels=2 ! clcrossover name=r "
      "frequencies=250,2000,8000 taps=32767 block-size=1024 ! "
      "fakesink sync=false", 8);
  g_object_get (l.resampler, "transition", &before, NULL);
  g_mutex_lock (&l.lock);
  first = g_array_index (l.arrivals, Arrival, 0).at;
  g_mutex_unlock (&l.lock);
  while (g_get_monotonic_time () < first + 500000)
    g_usleep (10000);
  g_object_set (l.resampler, "frequencies", "300,2500,9000", "stopband",
      100.0, NULL);
  for (i = 0; i < 500; i++) {
    g_object_get (l.resampler, "transition", &after, NULL);
    if (after != before)
      break;
    g_usleep (10000);
  }
  fail_unless (after < before, "the new design never took over");
  g_usleep (300000);
  g_object_set (l.resampler, "frequencies", "250,2000,8000", NULL);
  g_usleep (5000);
  live_stop (&l);
  check_contiguous (&l);
  live_free (&l);
}

GST_END_TEST;

/* clfirfilter's "new filter" log line (category clfirfilter, INFO), which
 * the streaming thread writes when a new filter takes over: the moment
 * it plays. */
static Live *fir_live;

static void
fir_watch_log (GstDebugCategory * cat, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  Live *l = g_atomic_pointer_get (&fir_live);
  gint64 now = g_get_monotonic_time ();

  if (!l || level != GST_LEVEL_INFO
      || strcmp (gst_debug_category_get_name (cat), "clfirfilter") != 0
      || !g_str_has_prefix (gst_debug_message_get (message), "new filter: "))
    return;
  g_mutex_lock (&l->lock);
  g_array_append_val (l->switches, now);
  g_mutex_unlock (&l->lock);
}

/* every case's teardown: a case that failed before it ended its watch
 * (jumping out of its function, CK_FORK=no in the sanitizer pass) leaves
 * no Live of its dead stack to the next case's log lines */
static void
fir_watch_end (void)
{
  g_atomic_pointer_set (&fir_live, NULL);
}

/* What the change cost when it was made in line: the convolution of `h`
 * from scratch, as the element makes it (stereo F32, blocks of 1024, the
 * history it keeps), kernels already compiled. */
static gint64
fir_build_time_us (const double *h, gsize taps)
{
  ClrConvConfig cfg = { 0 };
  GError *err = NULL;
  ClrDevice *dev = clr_device_acquire ("auto", &err);
  gint64 t = 0;
  guint i;

  fail_unless (dev != NULL, "%s", err ? err->message : "?");
  cfg.channels = 2;
  cfg.block = 1024;
  cfg.format = CLR_CONV_F32;
  cfg.taps = &h;
  cfg.n_taps = taps;
  cfg.n_filters = 1;
  cfg.history = taps - 1 + cfg.block;
  cfg.interleaved = TRUE;
  for (i = 0; i < 2; i++) {
    ClrConv *c;

    t = g_get_monotonic_time ();
    c = clr_conv_new (dev, &cfg, &err);
    t = g_get_monotonic_time () - t;
    fail_unless (c != NULL, "%s", err ? err->message : "?");
    clr_conv_free (c);
  }
  clr_device_unref (dev);
  return t;
}

/* clfirfilter in real time (issue 46): a 480000-tap `location` set while
 * a live source plays 10 ms buffers. The file is read on a thread of its
 * own, and its convolution is built on the builder's thread
 * (gstclrbuilder.h) while the old filter plays on; the streaming thread
 * only primes it with the kept input and crossfades. The largest
 * wall-clock gap between output buffers from the change to 0.5 s after
 * the new filter took over, against the largest in the 0.5 s before: the
 * difference must stay under half of what building the convolution in
 * line costs (the stall it made, 145 ms on two CPU cores in the issue).
 * Every output buffer starts where the one before ended. */
GST_START_TEST (test_firfilter_location_live)
{
  const gsize taps = 480000;
  double *h = make_filter (taps, 11);
  gchar *wav = write_wav (&h, 1, taps);
  const gint64 build_us = fir_build_time_us (h, taps);
  static gsize added = 0;
  Live l = { 0 };
  gint64 first, changed, switched = 0, steady, around;
  guint i;

  if (g_once_init_enter (&added)) {
    gst_debug_set_threshold_for_name ("clfirfilter", GST_LEVEL_INFO);
    gst_debug_add_log_function (fir_watch_log, NULL, NULL);
    g_once_init_leave (&added, 1);
  }
  live_start_desc (&l, "audiotestsrc name=src is-live=true "
      "samplesperbuffer=480 wave=white-noise ! audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=48000,channels=2 ! clfirfilter name=r ! "
      "fakesink sync=false", 2);
  g_atomic_pointer_set (&fir_live, &l);
  g_mutex_lock (&l.lock);
  first = g_array_index (l.arrivals, Arrival, 0).at;
  g_mutex_unlock (&l.lock);
  while (g_get_monotonic_time () < first + 1000000)
    g_usleep (10000);
  changed = g_get_monotonic_time ();
  g_object_set (l.resampler, "location", wav, NULL);
  for (i = 0; i < 1000 && switches_since (&l, changed) == 0; i++)
    g_usleep (10000);
  fail_unless (switches_since (&l, changed) > 0, "the file never took over");
  g_mutex_lock (&l.lock);
  switched = g_array_index (l.switches, gint64, l.switches->len - 1);
  g_mutex_unlock (&l.lock);
  g_usleep (500000);
  live_stop (&l);
  g_atomic_pointer_set (&fir_live, NULL);

  steady = largest_gap (&l, changed - 500000, changed);
  around = largest_gap (&l, changed, switched + 500000);
  g_print ("# clfirfilter location of %" G_GSIZE_FORMAT " taps live: the new "
      "filter after %.1f ms; largest gap between output buffers %.1f ms "
      "before the change, %.1f ms around it; building it in line takes "
      "%.1f ms\n", taps, (switched - changed) / 1000.0, steady / 1000.0,
      around / 1000.0, build_us / 1000.0);
#ifndef __SANITIZE_ADDRESS__
  /* wall-clock: not under AddressSanitizer (test_live_change_no_stall) */
  fail_unless (around - steady < build_us / 2,
      "a stall of %.1f ms at the change", (around - steady) / 1000.0);
#endif
  check_contiguous (&l);
  live_free (&l);
  g_unlink (wav);
  g_free (wav);
  g_free (h);
}

GST_END_TEST;

/* 44100 stereo frames of a tone at 44.1 kHz from `at`: 48000 frames, 384
 * kB, out at 48 kHz, past the engine's direct output (page-locked output
 * buffers on the staging path) */
static GstBuffer *
tone_second (guint64 at)
{
  const gsize n = IN_RATE;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * 2 * sizeof (float),
      NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < 2 * n; i++)
    ((float *) map.data)[i] = 0.5f * sinf (2.0f * G_PI * 1000.0f *
        (float) (at + i / 2) / IN_RATE);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (at, GST_SECOND, IN_RATE);
  GST_BUFFER_DURATION (buf) = GST_SECOND;
  return buf;
}

/* the allocator of the one memory of the next output buffer, which must be
 * page-locked (a reference) */
static GstAllocator *
pull_pinned (GstHarness * h, GstBuffer ** buf)
{
  GstMemory *mem;

  *buf = gst_harness_pull (h);
  fail_unless (*buf != NULL);
  fail_unless_equals_int (gst_buffer_n_memory (*buf), 1);
  mem = gst_buffer_peek_memory (*buf, 0);
  fail_unless (gst_memory_is_type (mem, "ClrPinnedMemory"),
      "output buffer not page-locked");
  return gst_object_ref (mem->allocator);
}

/* `device` changed while playing (issue 46), where output buffers are
 * page-locked (CLRESAMPLE_PINNED=1, as on GPUs) and there are two devices
 * (POCL_DEVICES="pthread basic"; the redesign-two-devices run): the
 * element renegotiates its allocation, so that the output buffers come
 * from the new device's page-locked allocator, not the old one's (an extra
 * copy, and the old device's context kept alive), and the old allocator
 * goes once its last buffers are freed. */
GST_START_TEST (test_device_change_allocator)
{
  const gchar *pinned = g_getenv ("CLRESAMPLE_PINNED");
  ClrDevice *second = clr_device_acquire ("1", NULL);
  GstHarness *h;
  GstAllocator *a, *b;
  GstBuffer *buf;
  gchar *name0 = NULL, *name1 = NULL;
  gpointer old;

  if (!second || !pinned || !atoi (pinned)) {
    g_print ("# skipped: needs two OpenCL devices and CLRESAMPLE_PINNED=1 "
        "(the redesign-two-devices run)\n");
    if (second)
      clr_device_unref (second);
    return;
  }
  clr_device_unref (second);
  h = gst_harness_new ("clresample");
  g_object_set (h->element, "device", "0", NULL);
  gst_harness_set_sink_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=48000,channels=2");
  gst_harness_set_src_caps_str (h, "audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=44100,channels=2");
  fail_unless_equals_int (gst_harness_push (h, tone_second (0)),
      GST_FLOW_OK);
  a = pull_pinned (h, &buf);
  gst_buffer_unref (buf);
  g_object_get (h->element, "device-name", &name0, NULL);

  g_object_set (h->element, "device", "1", NULL);
  /* the change applies at this buffer, allocated before it */
  fail_unless_equals_int (gst_harness_push (h, tone_second (IN_RATE)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
  g_object_get (h->element, "device-name", &name1, NULL);
  fail_if (g_strcmp0 (name0, name1) == 0, "still on '%s'", name0);
  fail_unless_equals_int (gst_harness_push (h, tone_second (2 * IN_RATE)),
      GST_FLOW_OK);
  b = pull_pinned (h, &buf);
  gst_buffer_unref (buf);
  fail_if (a == b, "the old device's allocator is still used");

  /* nothing holds the old one but us */
  old = a;
  g_object_add_weak_pointer (G_OBJECT (a), &old);
  gst_object_unref (a);
  fail_unless (old == NULL, "the old device's allocator is kept");
  gst_object_unref (b);
  gst_harness_teardown (h);
  g_free (name0);
  g_free (name1);
}

GST_END_TEST;

static Suite *
redesign_suite (void)
{
  Suite *s = suite_create ("clresample-redesign");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, NULL, fir_watch_end);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_live_change_no_stall);
  tcase_add_test (tc, test_supersede_and_stop);
  tcase_add_test (tc, test_failed_device);
  tcase_add_test (tc, test_crossover_live);
  tcase_add_test (tc, test_firfilter_location_live);
  tcase_add_test (tc, test_device_change_allocator);
  return s;
}

GST_CHECK_MAIN (redesign);
