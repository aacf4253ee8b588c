/* clr-fir-bench: clfirfilter beside the stock audiofirfilter, side by side
 * in one run, on noise at 48 kHz with long decaying-noise filters (issue
 * 10). For each filter length, channel count, block size and element:
 *
 *   harness   buffers of B frames pushed through GstHarness one at a time,
 *             as a real-time source delivers them: multiple of real time,
 *             median and p99 microseconds a buffer (the push returns when
 *             the element has filtered it and pushed what it had; the
 *             first buffer, which builds the kernels, not counted; the
 *             drain at EOS counted in the multiple of real time), and the
 *             error of an output excerpt against a float64 direct
 *             convolution, in dB re the excerpt's RMS;
 *   pipeline  `audiotestsrc wave=white-noise samplesperbuffer=B ! ELEMENT !
 *             fakesink` as a whole child process (this program again, with
 *             --child), wall time from exec to exit: start-up, plugin
 *             loading and the device's kernel builds included; and the
 *             median and p99 of the element's own time a block inside that
 *             pipeline (a buffer on its sink pad to its output on its src
 *             pad; the child prints them, the first block left out), and the
 *             multiple of real time the element's mean a block makes
 *             there ("own x": its throughput with the source's own cost,
 *             white noise made on the CPU, taken out).
 *
 * B = 0 is the offline case: clfirfilter block-size=0 (one unpartitioned
 * block as large as the device holds), fed 16384-frame buffers.
 * audiofirfilter has no block size: its own FFT block follows the filter
 * length (its latency is about that long), so it runs at every B for the
 * per-buffer cost a B-frame source sees.
 *
 * usage: clr-fir-bench [--seconds S] [--taps N,..] [--channels C,..]
 *            [--blocks B,..] [--elements clfirfilter,audiofirfilter]
 *            [--device SPEC] [--f64] [--no-pipelines]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include "clr-bench-util.h"
#include "clr-bench-gst.h"
#include <gst/audio/audio.h>
#include <gst/check/gstharness.h>

#define RATE 48000
#define OFFLINE_BUFFER 16384
#define EXCERPT_MAC_MAX 400000000.0     /* multiply-adds of the reference */

typedef struct
{
  double seconds;
  gchar *device;
  gboolean f64;
  gboolean no_pipelines;
} Options;

/* A filter of noise decaying by 60 dB over its length: every tap matters
 * and the output stays near the input's level. */
static double *
make_filter (size_t taps)
{
  double *h = g_new (double, taps);
  guint64 state = 100;
  size_t n;

  for (n = 0; n < taps; n++)
    h[n] = next_uniform (&state) * exp (-6.9 * n / taps) * 4.0 /
        sqrt ((double) taps);
  return h;
}

static GstElement *
make_filter_element (const gchar * name, const Options * o, size_t taps,
    guint block)
{
  GstElement *el = gst_element_factory_make (name, NULL);
  double *h;

  if (!el)
    return NULL;
  h = make_filter (taps);
  clr_bench_set_kernel (el, h, taps);
  g_free (h);
  if (g_str_equal (name, "clfirfilter")) {
    g_object_set (el, "block-size", block, NULL);
    if (o->device)
      g_object_set (el, "device", o->device, NULL);
  }
  return el;
}

typedef struct
{
  double x_real;                /* audio seconds / push seconds */
  double median_us, p99_us;
  double err_db;                /* max error re the excerpt's RMS */
  gchar *error;                 /* why the run failed, or NULL */
} HarnessResult;

/* Output frame t of either element is y[t] = sum over k of h[k] x[t - k]
 * (latency 0: audiofirfilter's and clfirfilter's own delay compensated):
 * the worst error over frames ending in the middle of the stream, as many
 * as a reference of EXCERPT_MAC_MAX multiply-adds allows. Not the last
 * frames: audiofirfilter (1.22) gets the ones it pushes at EOS wrong when
 * there are two or more channels. */
static double
excerpt_error_db (const double *h, size_t taps, const double *x,
    guint channels, const double *y, size_t frames)
{
  size_t excerpt = (size_t) CLAMP (EXCERPT_MAC_MAX / ((double) taps *
          channels), 16, 512), t, k, end = frames / 2;
  double err = 0.0, sum_sq = 0.0;
  guint c;

  excerpt = MIN (excerpt, end);
  for (c = 0; c < channels; c++)
    for (t = end - excerpt; t < end; t++) {
      double want = 0.0;
      for (k = 0; k < taps && k <= t; k++)
        want += h[k] * x[(t - k) * channels + c];
      err = MAX (err, fabs (y[t * channels + c] - want));
      sum_sq += want * want;
    }
  return 20.0 * log10 (MAX (err, 1e-300) / sqrt (sum_sq / (excerpt *
              channels)));
}

/* Everything the harness has output, onto y after the `got` frames there
 * (at most `frames`); returns the new count. */
static size_t
pull_outputs (GstHarness * h, gboolean f64, guint channels, double *y,
    size_t frames, size_t got)
{
  const size_t ss = f64 ? sizeof (double) : sizeof (float);
  GstBuffer *out;
  GstMapInfo map;
  size_t s;

  while ((out = gst_harness_try_pull (h))) {
    gst_buffer_map (out, &map, GST_MAP_READ);
    for (s = 0; s < map.size / ss && got * channels + s < frames * channels;
        s++)
      y[got * channels + s] = f64 ? ((double *) map.data)[s] :
          ((float *) map.data)[s];
    got += map.size / ss / channels;
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
  }
  return got;
}

static void
run_harness (const Options * o, const gchar * name, size_t taps,
    guint channels, guint block, HarnessResult * r)
{
  const size_t frames = (size_t) (o->seconds * RATE);
  const size_t buf_frames = block ? block : OFFLINE_BUFFER;
  const size_t ss = o->f64 ? sizeof (double) : sizeof (float);
  const size_t n_bufs = (frames + buf_frames - 1) / buf_frames;
  GstElement *el = make_filter_element (name, o, taps, block);
  GstHarness *h;
  gchar *caps;
  double *x, *y, *filter, *times, total = 0.0;
  guint64 state = 1;
  size_t i, got = 0;

  memset (r, 0, sizeof (*r));
  if (!el) {
    r->error = g_strdup_printf ("no element %s", name);
    return;
  }
  h = gst_harness_new_with_element (el, "sink", "src");
  caps = clr_bench_caps_string (o->f64, RATE, channels);
  gst_harness_set_caps_str (h, caps, caps);
  g_free (caps);
  x = g_new (double, frames * channels);
  y = g_new0 (double, frames * channels);
  times = g_new (double, n_bufs);
  for (i = 0; i < frames * channels; i++)
    x[i] = 0.5 * next_uniform (&state);
  if (!o->f64)
    for (i = 0; i < frames * channels; i++)
      x[i] = (float) x[i];
  for (i = 0; i < n_bufs; i++) {
    const size_t pos = i * buf_frames, len = MIN (buf_frames, frames - pos);
    GstBuffer *buf = gst_buffer_new_allocate (NULL, len * channels * ss,
        NULL);
    GstMapInfo map;
    size_t s;
    double t0;

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (s = 0; s < len * channels; s++) {
      if (o->f64)
        ((double *) map.data)[s] = x[pos * channels + s];
      else
        ((float *) map.data)[s] = (float) x[pos * channels + s];
    }
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (pos, GST_SECOND, RATE);
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (len, GST_SECOND,
        RATE);
    GST_BUFFER_OFFSET (buf) = pos;
    GST_BUFFER_OFFSET_END (buf) = pos + len;
    if (i == 0)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    t0 = now_s ();
    if (gst_harness_push (h, buf) != GST_FLOW_OK) {
      r->error = g_strdup_printf ("%s refused buffer %zu", name, i);
      break;
    }
    /* the first buffer builds the device's kernels: a one-off, out of the
     * per-buffer figures (the pipeline rows include it) */
    times[i] = now_s () - t0;
    if (i > 0)
      total += times[i];
    got = pull_outputs (h, o->f64, channels, y, frames, got);
  }
  if (!r->error) {
    /* audiofirfilter keeps its last FFT block until EOS */
    double t0 = now_s ();
    /* the drain counts: audiofirfilter filters what it holds (with a long
     * filter and a short run, everything) only now */
    gst_harness_push_event (h, gst_event_new_eos ());
    total += now_s () - t0;
    got = pull_outputs (h, o->f64, channels, y, frames, got);
    if (got < frames)
      r->error = g_strdup_printf ("%s gave %zu frames for %zu", name, got,
          frames);
  }
  if (!r->error) {
    const size_t timed = MAX (n_bufs, 2) - 1;
    qsort (times + 1, timed, sizeof (double), cmp_double);
    r->x_real = (double) (frames - MIN (frames, buf_frames)) / RATE / total;
    r->median_us = percentile (times + 1, timed, 0.5) * 1e6;
    r->p99_us = percentile (times + 1, timed, 0.99) * 1e6;
    filter = make_filter (taps);
    r->err_db = excerpt_error_db (filter, taps, x, channels, y, frames);
    g_free (filter);
  }
  gst_harness_teardown (h);
  g_free (x);
  g_free (y);
  g_free (times);
}

/* The child: the pipeline once, exit status 0 on EOS. Built by hand, not
 * parsed: the kernel, a GValueArray, cannot be given on a launch line. */
static int
run_child (const Options * o, const gchar * name, size_t taps,
    guint channels, guint block)
{
  const size_t buf_frames = block ? block : OFFLINE_BUFFER;
  const gint n_bufs = (gint) ceil (o->seconds * RATE / buf_frames);
  gchar *caps_str = clr_bench_caps_string (o->f64, RATE, channels);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("audiotestsrc", NULL);
  GstElement *filter = gst_element_factory_make ("capsfilter", NULL);
  GstElement *el = make_filter_element (name, o, taps, block);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  ClrBlockTimes blocks = { NULL, 0 };
  double median, p99, mean;
  GError *err = NULL;
  GstMessage *msg;
  int status = 1;

  g_free (caps_str);
  if (!src || !filter || !el || !sink) {
    fprintf (stderr, "missing element (%s?)\n", name);
    return 1;
  }
  g_object_set (src, "wave", 5 /* white-noise */ , "samplesperbuffer",
      (gint) buf_frames, "num-buffers", n_bufs, NULL);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_bin_add_many (GST_BIN (pipe), src, filter, el, sink, NULL);
  if (!gst_element_link_many (src, filter, el, sink, NULL)) {
    fprintf (stderr, "could not link %s\n", name);
    gst_object_unref (pipe);
    return 1;
  }
  clr_block_times_attach (&blocks, el);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  clr_block_times_finish (&blocks, &median, &p99, &mean);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    status = 0;
    printf ("blocks %g %g %g\n", median, p99, mean);
  } else {
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "%s\n", err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return status;
}

/* Wall seconds of the child process, and its median, p99 and mean us of
 * the element a block; NAN on failure. */
static double
time_child (const Options * o, const gchar * self, const gchar * name,
    size_t taps, guint channels, guint block, double *median, double *p99,
    double *mean)
{
  gchar *argv[16];
  gchar *secs = g_strdup_printf ("%g", o->seconds);
  gchar *spec = g_strdup_printf ("%s,%zu,%u,%u", name, taps, channels, block);
  gchar *errout = NULL, *out = NULL;
  gint status = 0, n = 0;
  GError *err = NULL;
  double t0, t = NAN;

  argv[n++] = (gchar *) self;
  argv[n++] = (gchar *) "--child";
  argv[n++] = spec;
  argv[n++] = (gchar *) "--seconds";
  argv[n++] = secs;
  if (o->f64)
    argv[n++] = (gchar *) "--f64";
  if (o->device) {
    argv[n++] = (gchar *) "--device";
    argv[n++] = o->device;
  }
  argv[n] = NULL;
  t0 = now_s ();
  *median = *p99 = *mean = NAN;
  if (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL,
          &out, &errout, &status, &err)
      && g_spawn_check_wait_status (status, NULL)) {
    const gchar *line = strstr (out, "blocks ");
    t = now_s () - t0;
    if (line)
      sscanf (line, "blocks %lf %lf %lf", median, p99, mean);
  } else
    fprintf (stderr, "  pipeline %s: %s\n", spec, err ? err->message :
        errout);
  g_clear_error (&err);
  g_free (errout);
  g_free (out);
  g_free (secs);
  g_free (spec);
  return t;
}

int
main (int argc, char **argv)
{
  guint64 taps_list[16] = { 8192, 65536, 262144, 1048576 };
  guint64 channels_list[16] = { 2, 32 }, blocks[16] = { 256, 1024, 0 };
  guint n_taps = 4, n_channels = 2, n_blocks = 3;
  gchar *taps_text = NULL, *channels_text = NULL, *blocks_text = NULL;
  gchar *elements_text = NULL, *child = NULL, **elements;
  Options o = { 10.0, NULL, FALSE, FALSE };
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &o.seconds,
        "Seconds of noise at 48 kHz a run (default 10)", "S"},
    {"taps", 't', 0, G_OPTION_ARG_STRING, &taps_text,
        "Filter lengths (default 8192,65536,262144,1048576)", "N,.."},
    {"channels", 'c', 0, G_OPTION_ARG_STRING, &channels_text,
        "Channel counts (default 2,32)", "C,.."},
    {"blocks", 'b', 0, G_OPTION_ARG_STRING, &blocks_text,
        "Frames a buffer and clfirfilter's block-size; 0: offline "
        "(default 256,1024,0)", "B,.."},
    {"elements", 'e', 0, G_OPTION_ARG_STRING, &elements_text,
        "Elements (default clfirfilter,audiofirfilter)", "E,.."},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &o.device,
        "clfirfilter's device: auto, gpu, cpu, N, P:D or a name", "SPEC"},
    {"f64", 0, 0, G_OPTION_ARG_NONE, &o.f64, "F64 samples (default F32)",
        NULL},
    {"no-pipelines", 0, 0, G_OPTION_ARG_NONE, &o.no_pipelines,
        "Only the harness rows", NULL},
    {"child", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &child,
        "(internal) run one pipeline: ELEMENT,TAPS,CHANNELS,BLOCK", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- clfirfilter beside "
      "audiofirfilter");
  GError *err = NULL;
  guint i, j, k, e;

  gst_init (&argc, &argv);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.seconds <= 0
      || (taps_text && !(n_taps = parse_list (taps_text, taps_list, 16,
                  FALSE)))
      || (channels_text && !(n_channels = parse_list (channels_text,
                  channels_list, 16, FALSE)))
      || (blocks_text && !(n_blocks = parse_list (blocks_text, blocks, 16,
                  TRUE)))) {
    fprintf (stderr, "--seconds must be > 0; --taps, --channels and "
        "--blocks lists of numbers\n");
    return 2;
  }
  if (child) {
    gchar **f = g_strsplit (child, ",", -1);
    int status = g_strv_length (f) == 4 ? run_child (&o, f[0],
        g_ascii_strtoull (f[1], NULL, 10), (guint) g_ascii_strtoull (f[2],
            NULL, 10), (guint) g_ascii_strtoull (f[3], NULL, 10)) : 2;
    g_strfreev (f);
    return status;
  }
  elements = g_strsplit (elements_text ? elements_text :
      "clfirfilter,audiofirfilter", ",", -1);
  printf ("clr-fir-bench: %s, %.1f s of noise at %d Hz a run, device %s\n",
      o.f64 ? "F64" : "F32", o.seconds, RATE, o.device ? o.device : "auto");
  /* pipeline: the whole process's multiple of real time (the source's
   * cost in it), then the element's own a block in it, and the multiple
   * of real time that its mean a block makes ("own x") */
  printf ("%-15s %8s %3s %6s | %9s %9s %9s %9s | %9s %9s %9s %9s\n",
      "element", "taps", "ch", "B", "x real", "median us", "p99 us",
      "err dB", "pipeline", "median us", "p99 us", "own x");
  for (i = 0; i < n_taps; i++)
    for (j = 0; j < n_channels; j++)
      for (k = 0; k < n_blocks; k++)
        for (e = 0; elements[e]; e++) {
          HarnessResult r;
          double wall = NAN, pmed = NAN, p99 = NAN, mean = NAN;
          const double buf_us = (blocks[k] ? blocks[k] : OFFLINE_BUFFER) *
              1e6 / RATE;

          run_harness (&o, elements[e], taps_list[i], channels_list[j],
              blocks[k], &r);
          if (!o.no_pipelines && !r.error)
            wall = time_child (&o, argv[0], elements[e], taps_list[i],
                channels_list[j], blocks[k], &pmed, &p99, &mean);
          if (r.error)
            printf ("%-15s %8" G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT
                " %6" G_GUINT64_FORMAT " | failed: %s\n", elements[e],
                taps_list[i], channels_list[j], blocks[k], r.error);
          else
            printf ("%-15s %8" G_GUINT64_FORMAT " %3" G_GUINT64_FORMAT
                " %6" G_GUINT64_FORMAT " | %9.1f %9.1f %9.1f %9.1f | %9.1f"
                " %9.1f %9.1f %9.1f\n", elements[e], taps_list[i],
                channels_list[j], blocks[k], r.x_real, r.median_us, r.p99_us,
                r.err_db, o.seconds / wall, pmed, p99, buf_us / mean);
          fflush (stdout);
          g_free (r.error);
        }
  g_strfreev (elements);
  g_free (taps_text);
  g_free (channels_text);
  g_free (blocks_text);
  g_free (elements_text);
  g_free (o.device);
  return 0;
}
