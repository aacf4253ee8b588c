/* clr-crossover-bench: clcrossover beside the way a GStreamer user builds a
 * FIR crossover today (issue 11): the input deinterleaved, each channel
 * through a tee into one audiofirfilter a band (the same coefficients,
 * designed by clr-crossover-design.c), the bands interleaved back, band-
 * major as clcrossover orders them. Noise at 48 kHz, the same input for
 * both, in one run:
 *
 *   harness   clcrossover alone in GstHarness, buffers of B frames pushed
 *             one at a time as a real-time source delivers them: multiple
 *             of real time, median and p99 microseconds a buffer (the push
 *             returns when the element has filtered it and pushed what it
 *             had; the first buffer, which builds the kernels, not
 *             counted);
 *   pipeline  appsrc ! ELEMENTS ! appsink in this process, every buffer
 *             queued at once (B frames each), wall time from PLAYING to
 *             EOS and the process's CPU time over it: multiple of real
 *             time, CPU seconds per second of audio; for clcrossover also
 *             the median and p99 of its own time a block in the pipeline
 *             (a buffer on its sink pad to its output on its src pad).
 *
 * Both give the error of an output excerpt against a float64 direct
 * convolution of the designed band filters (dB re the excerpt's RMS), and
 * a last row gives the seed's figure (2.3 s of GPU time per second of
 * audio for 4 bands x 8192 taps).
 *
 * audiofirfilter has no block size: its FFT block follows the filter
 * length, so its latency is about `taps` frames whatever B; clcrossover's
 * is B + (taps - 1) / 2 (both compensate (taps - 1) / 2 in timestamps).
 * "Equal latency" is the row with B = taps + 1.
 *
 * usage: clr-crossover-bench [--seconds S] [--taps N,..] [--channels C,..]
 *            [--blocks B,..] [--frequencies F,..] [--elements
 *            clcrossover,audiofirfilter] [--device SPEC] [--f64]
 *            [--repeat N]
 * With both elements a row ends with the ratio of the two pipelines'
 * multiples of real time; --repeat runs the two pipelines N times in turn
 * (machines are noisy) and gives each ratio and their median.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gst/gst.h>
#include "clr-bench-util.h"
#include "clr-bench-gst.h"
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/check/gstharness.h>
#include "design/clr-crossover-design.h"

#define RATE 48000
#define EXCERPT_MAC_MAX 200000000.0     /* multiply-adds of the reference */

typedef struct
{
  double seconds;
  gchar *device, *freqs_text;
  gboolean f64;
  double freqs[CLR_XO_BANDS_MAX];
  guint bands;
} Options;

typedef struct
{
  double x_real, median_us, p99_us, cpu_per_s, err_db;
  gchar *error;
} Result;

/* The run's input: noise, interleaved, as the format holds it */
static double *
make_input (const Options * o, size_t frames, guint channels)
{
  double *x = g_new (double, frames * channels);
  guint64 state = 1;
  size_t i;

  for (i = 0; i < frames * channels; i++) {
    x[i] = 0.5 * next_uniform (&state);
    if (!o->f64)
      x[i] = (float) x[i];
  }
  return x;
}

static GstBuffer *
make_buffer (const Options * o, const double *x, guint channels, size_t pos,
    size_t len)
{
  const size_t ss = o->f64 ? sizeof (double) : sizeof (float);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, len * channels * ss, NULL);
  GstMapInfo map;
  size_t s;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (s = 0; s < len * channels; s++) {
    if (o->f64)
      ((double *) map.data)[s] = x[pos * channels + s];
    else
      ((float *) map.data)[s] = (float) x[pos * channels + s];
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (pos, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (pos + len,
      GST_SECOND, RATE) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = pos;
  GST_BUFFER_OFFSET_END (buf) = pos + len;
  return buf;
}

/* What a run keeps of its output: every frame is counted, but only the
 * excerpt the error is measured on is stored (stored whole and converted
 * to double, 60 s of 8 channels cost the pipeline rows more in page faults
 * than clcrossover's own work: perf) */
typedef struct {
  size_t frames;                /* output frames seen */
  size_t lo, hi;                /* the excerpt's frames */
  guint out_ch;
  double *kept;                 /* (hi - lo) frames of out_ch */
} Output;

/* The excerpt: frames ending in the middle of the stream, as many as a
 * reference of EXCERPT_MAC_MAX multiply-adds allows */
static void
output_init (Output * y, const Options * o, size_t len, guint channels,
    size_t frames)
{
  const guint out_ch = channels * o->bands;
  const size_t excerpt = MIN ((size_t) CLAMP (EXCERPT_MAC_MAX / ((double) len
              * out_ch), 16, 512), frames / 2);

  y->frames = 0;
  y->hi = frames / 2;
  y->lo = y->hi - excerpt;
  y->out_ch = out_ch;
  y->kept = g_new0 (double, excerpt * out_ch);
}

/* Counts buf's frames and keeps those of the excerpt */
static void
append_output (const Options * o, GstBuffer * buf, Output * y)
{
  const size_t ss = o->f64 ? sizeof (double) : sizeof (float);
  GstMapInfo map;
  size_t n, f, c;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  n = map.size / ss / y->out_ch;
  for (f = MAX (y->frames, y->lo); f < MIN (y->frames + n, y->hi); f++)
    for (c = 0; c < y->out_ch; c++) {
      const size_t s = (f - y->frames) * y->out_ch + c;
      y->kept[(f - y->lo) * y->out_ch + c] = o->f64 ?
          ((double *) map.data)[s] : ((float *) map.data)[s];
    }
  y->frames += n;
  gst_buffer_unmap (buf, &map);
}

/* Output frame t, band k, channel c = (h_k * x)[t + (taps - 1) / 2]: the
 * worst error over the excerpt, in dB re its RMS; NaN when the run gave
 * fewer frames than it took */
static double
excerpt_error_db (const Options * o, double **h, size_t len, size_t taps,
    const double *x, guint channels, const Output * y, size_t frames)
{
  double err = 0.0, sum_sq = 0.0;
  size_t t, k;
  guint c, b;

  if (y->frames < frames)
    return NAN;
  for (b = 0; b < o->bands; b++)
    for (c = 0; c < channels; c++)
      for (t = y->lo; t < y->hi; t++) {
        size_t m = t + (taps - 1) / 2;
        double want = 0.0;
        for (k = 0; k < len && k <= m; k++)
          if (m - k < frames)
            want += h[b][k] * x[(m - k) * channels + c];
        err = MAX (err, fabs (y->kept[(t - y->lo) * y->out_ch +
                    b * channels + c] - want));
        sum_sq += want * want;
      }
  return 20.0 * log10 (MAX (err, 1e-300) / sqrt (sum_sq / ((y->hi - y->lo)
              * channels * o->bands)));
}

static GstElement *
make_crossover (const Options * o, size_t taps, guint block)
{
  GstElement *el = gst_element_factory_make ("clcrossover", NULL);

  if (!el)
    return NULL;
  g_object_set (el, "frequencies", o->freqs_text, "taps", (guint) taps,
      "block-size", block, NULL);
  if (o->device)
    g_object_set (el, "device", o->device, NULL);
  return el;
}

static void
run_harness (const Options * o, double **h, size_t len, size_t taps,
    guint channels, guint block, Result * r)
{
  const size_t frames = (size_t) (o->seconds * RATE);
  const size_t n_bufs = (frames + block - 1) / block;
  GstElement *el = make_crossover (o, taps, block);
  Output y;
  double *x = make_input (o, frames, channels), *times, total = 0.0;
  gchar *in_caps = clr_bench_caps_string (o->f64, RATE, channels);
  gchar *out_caps = clr_bench_caps_string (o->f64, RATE,
      channels * o->bands);
  GstHarness *hn;
  GstBuffer *out;
  size_t i;

  memset (r, 0, sizeof (*r));
  output_init (&y, o, len, channels, frames);
  hn = gst_harness_new_with_element (el, "sink", "src");
  gst_harness_set_caps_str (hn, in_caps, out_caps);
  times = g_new (double, n_bufs);
  for (i = 0; i < n_bufs; i++) {
    const size_t pos = i * block, n = MIN (block, frames - pos);
    GstBuffer *buf = make_buffer (o, x, channels, pos, n);
    double t0;

    t0 = now_s ();
    if (gst_harness_push (hn, buf) != GST_FLOW_OK) {
      r->error = g_strdup_printf ("clcrossover refused buffer %zu", i);
      break;
    }
    times[i] = now_s () - t0;
    if (i > 0)
      total += times[i];
    while ((out = gst_harness_try_pull (hn))) {
      append_output (o, out, &y);
      gst_buffer_unref (out);
    }
  }
  gst_harness_push_event (hn, gst_event_new_eos ());
  while ((out = gst_harness_try_pull (hn))) {
    append_output (o, out, &y);
    gst_buffer_unref (out);
  }
  if (!r->error) {
    const size_t timed = MAX (n_bufs, 2) - 1;
    qsort (times + 1, timed, sizeof (double), cmp_double);
    r->x_real = (double) (frames - MIN (frames, block)) / RATE / total;
    r->median_us = percentile (times + 1, timed, 0.5) * 1e6;
    r->p99_us = percentile (times + 1, timed, 0.99) * 1e6;
    r->cpu_per_s = NAN;
    r->err_db = excerpt_error_db (o, h, len, taps, x, channels, &y, frames);
  }
  gst_harness_teardown (hn);
  g_free (y.kept);
  g_free (x);
  g_free (times);
  g_free (in_caps);
  g_free (out_caps);
}

static GstFlowReturn
on_sample (GstAppSink * sink, gpointer data)
{
  void **ctx = data;
  GstSample *s = gst_app_sink_pull_sample (sink);

  append_output (ctx[0], gst_sample_get_buffer (s), ctx[1]);
  gst_sample_unref (s);
  return GST_FLOW_OK;
}

/* The pipeline between appsrc and appsink: clcrossover, or per channel a
 * tee into one audiofirfilter a band, interleaved band-major */
static GstElement *
make_pipeline (const Options * o, const gchar * what, double **h,
    size_t len, size_t taps, guint channels, guint block)
{
  GString *d = g_string_new ("appsrc name=src format=time ! ");
  GstElement *pipe;
  GError *err = NULL;
  guint b, c;

  if (g_str_equal (what, "clcrossover")) {
    g_string_append (d, "clcrossover name=x ! ");
  } else {
    /* interleave's request pads in band-major order */
    g_string_append (d, "deinterleave name=d  interleave name=i ! "
        "appsink name=sink sync=false  ");
    for (c = 0; c < channels; c++)
      g_string_append_printf (d, "d.src_%u ! tee name=t%u ", c, c);
    for (b = 0; b < o->bands; b++)
      for (c = 0; c < channels; c++)
        g_string_append_printf (d, "t%u. ! queue ! audiofirfilter name=f%u_%u "
            "! i.sink_%u ", c, c, b, b * channels + c);
  }
  if (g_str_equal (what, "clcrossover"))
    g_string_append (d, "appsink name=sink sync=false");
  pipe = gst_parse_launch (d->str, &err);
  g_string_free (d, TRUE);
  if (!pipe) {
    fprintf (stderr, "%s\n", err->message);
    g_error_free (err);
    return NULL;
  }
  if (g_str_equal (what, "clcrossover")) {
    GstElement *x = gst_bin_get_by_name (GST_BIN (pipe), "x");
    g_object_set (x, "frequencies", o->freqs_text, "taps", (guint) taps,
        "block-size", block, NULL);
    if (o->device)
      g_object_set (x, "device", o->device, NULL);
    gst_object_unref (x);
  } else {
    for (c = 0; c < channels; c++)
      for (b = 0; b < o->bands; b++) {
        gchar *name = g_strdup_printf ("f%u_%u", c, b);
        GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), name);

        clr_bench_set_kernel (f, h[b], len);
        g_object_set (f, "latency", (gint64) ((taps - 1) / 2), NULL);
        gst_object_unref (f);
        g_free (name);
      }
  }
  return pipe;
}

static void
run_pipeline (const Options * o, const gchar * what, double **h, size_t len,
    size_t taps, guint channels, guint block, Result * r)
{
  const size_t frames = (size_t) (o->seconds * RATE);
  GstElement *pipe = make_pipeline (o, what, h, len, taps, channels, block);
  Output y;
  double *x = make_input (o, frames, channels), t0, c0;
  GstAppSinkCallbacks cb = { NULL, NULL, on_sample };
  void *ctx[2] = { (void *) o, &y };
  ClrBlockTimes blocks = { NULL, 0 };
  GstElement *src, *sink;
  GstMessage *msg;
  GstCaps *caps;
  gchar *cs;
  size_t pos;

  memset (r, 0, sizeof (*r));
  output_init (&y, o, len, channels, frames);
  if (!pipe) {
    r->error = g_strdup ("could not build the pipeline");
    goto done;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  cs = clr_bench_caps_string (o->f64, RATE, channels);
  caps = gst_caps_from_string (cs);
  g_object_set (src, "caps", caps, "max-bytes", (guint64) 0, NULL);
  gst_caps_unref (caps);
  g_free (cs);
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &cb, ctx, NULL);
  if (g_str_equal (what, "clcrossover")) {
    GstElement *x = gst_bin_get_by_name (GST_BIN (pipe), "x");
    clr_block_times_attach (&blocks, x);
    gst_object_unref (x);
  }
  for (pos = 0; pos < frames; pos += block)
    gst_app_src_push_buffer (GST_APP_SRC (src), make_buffer (o, x, channels,
            pos, MIN (block, frames - pos)));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  t0 = now_s ();
  c0 = clr_bench_cpu_seconds ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r->x_real = o->seconds / (now_s () - t0);
  r->cpu_per_s = (clr_bench_cpu_seconds () - c0) / o->seconds;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    r->error = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  /* clcrossover's own work a block inside the pipeline (the audiofirfilter
   * pipeline spreads its work over many elements and threads: none) */
  clr_block_times_finish (&blocks, &r->median_us, &r->p99_us, NULL);
  if (!r->error)
    r->err_db = excerpt_error_db (o, h, len, taps, x, channels, &y, frames);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
done:
  g_free (y.kept);
  g_free (x);
}

/* Runs of the two pipelines a row of the table may repeat */
#define REPEAT_MAX 64
/* issue 11: clcrossover >= 4x the audiofirfilter pipeline at equal
 * latency */
#define ISSUE_RATIO 4.0

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The pipelines' ratios (clcrossover's x real time over the audiofirfilter
 * pipeline's), run by run, and their median. */
static void
print_ratios (double *ratios, guint n)
{
  double sorted[REPEAT_MAX];
  guint i, at_target = 0;

  if (n == 0)
    return;
  printf ("ratio, clcrossover / tee+audiofir pipelines:");
  for (i = 0; i < n; i++) {
    printf (" %.2f", ratios[i]);
    at_target += ratios[i] >= ISSUE_RATIO;
  }
  memcpy (sorted, ratios, n * sizeof (double));
  qsort (sorted, n, sizeof (double), compare_doubles);
  printf ("; median %.2f; >= %.0f (issue 11's target) in %u of %u\n",
      n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
      ISSUE_RATIO, at_target, n);
  fflush (stdout);
}

static void
print_row (const gchar * what, const gchar * how, size_t taps,
    guint channels, guint block, guint bands, const Result * r)
{
  printf ("%-15s %-8s %6zu %2u %2u %5u | ", what, how, taps, bands,
      channels, block);
  if (r->error)
    printf ("failed: %s\n", r->error);
  else
    printf ("%8.1f %9.1f %9.1f %9.3f %8.1f\n", r->x_real, r->median_us,
        r->p99_us, r->cpu_per_s, r->err_db);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  guint64 taps_list[16] = { 8191 }, channels_list[16] = { 2 };
  guint64 blocks[16] = { 256, 1024, 8192 };
  guint n_taps = 1, n_channels = 1, n_blocks = 3;
  gchar *taps_text = NULL, *channels_text = NULL, *blocks_text = NULL;
  gchar *elements_text = NULL, **elements, **fparts;
  Options o = { 10.0, NULL, NULL, FALSE };
  gint repeat = 1;
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &o.seconds,
        "Seconds of noise at 48 kHz a run (default 10)", "S"},
    {"taps", 't', 0, G_OPTION_ARG_STRING, &taps_text,
        "Taps a band, odd (default 8191)", "N,.."},
    {"channels", 'c', 0, G_OPTION_ARG_STRING, &channels_text,
        "Input channel counts (default 2)", "C,.."},
    {"blocks", 'b', 0, G_OPTION_ARG_STRING, &blocks_text,
        "Frames a buffer and clcrossover's block-size (default "
        "256,1024,8192)", "B,.."},
    {"frequencies", 'f', 0, G_OPTION_ARG_STRING, &o.freqs_text,
        "Crossover frequencies (default 250,2000,8000: 4 bands)", "F,.."},
    {"elements", 'e', 0, G_OPTION_ARG_STRING, &elements_text,
        "clcrossover, audiofirfilter or both (default)", "E,.."},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &o.device,
        "clcrossover's device", "SPEC"},
    {"f64", 0, 0, G_OPTION_ARG_NONE, &o.f64, "F64 samples (default F32)",
        NULL},
    {"repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
        "The two pipelines this many times in turn, with their ratio each "
        "time and the median (default 1)", "N"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- clcrossover beside tee + "
      "audiofirfilter + interleave");
  GError *err = NULL;
  guint i, j, k, e, n;

  gst_init (&argc, &argv);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (!o.freqs_text)
    o.freqs_text = g_strdup ("250,2000,8000");
  fparts = g_strsplit (o.freqs_text, ",", -1);
  for (o.bands = 0; fparts[o.bands] && o.bands < CLR_XO_BANDS_MAX - 1;
      o.bands++)
    o.freqs[o.bands] = g_ascii_strtod (fparts[o.bands], NULL);
  g_strfreev (fparts);
  o.bands++;
  if (o.seconds <= 0 || repeat < 1 || repeat > REPEAT_MAX
      || (taps_text && !(n_taps = parse_list (taps_text, taps_list, 16,
                  FALSE)))
      || (channels_text && !(n_channels = parse_list (channels_text,
                  channels_list, 16, FALSE)))
      || (blocks_text && !(n_blocks = parse_list (blocks_text, blocks,
                  16, TRUE)))) {
    fprintf (stderr, "--seconds must be > 0, --repeat 1 to %d; --taps, "
        "--channels and --blocks lists of numbers\n", REPEAT_MAX);
    return 2;
  }
  elements = g_strsplit (elements_text ? elements_text :
      "clcrossover,audiofirfilter", ",", -1);
  printf ("clr-crossover-bench: %s, %.1f s of noise at %d Hz a run, "
      "crossover %s (%u bands), device %s\n", o.f64 ? "F64" : "F32",
      o.seconds, RATE, o.freqs_text, o.bands, o.device ? o.device : "auto");
  printf ("%-15s %-8s %6s %2s %2s %5s | %8s %9s %9s %9s %8s\n", "element",
      "run", "taps", "bd", "ch", "B", "x real", "median us", "p99 us",
      "CPU s/s", "err dB");
  for (i = 0; i < n_taps; i++) {
    ClrXoSpec spec = { RATE, o.freqs, o.bands - 1, taps_list[i], 120.0 };
    size_t len;
    double **h = clr_xo_design (&spec, &len, &err);

    if (!h) {
      fprintf (stderr, "%s\n", err->message);
      return 2;
    }
    for (j = 0; j < n_channels; j++)
      for (k = 0; k < n_blocks; k++) {
        double ratios[REPEAT_MAX];
        guint n_ratios = 0;

        for (n = 0; n < (guint) repeat; n++) {
          double xo = 0.0, af = 0.0;

          for (e = 0; elements[e]; e++) {
            Result r;

            if (g_str_equal (elements[e], "clcrossover")) {
              if (n == 0) {
                run_harness (&o, h, len, taps_list[i], channels_list[j],
                    blocks[k], &r);
                print_row ("clcrossover", "harness", taps_list[i],
                    channels_list[j], blocks[k], o.bands, &r);
                g_free (r.error);
              }
              run_pipeline (&o, "clcrossover", h, len, taps_list[i],
                  channels_list[j], blocks[k], &r);
              print_row ("clcrossover", "pipeline", taps_list[i],
                  channels_list[j], blocks[k], o.bands, &r);
              xo = r.error ? 0.0 : r.x_real;
            } else {
              run_pipeline (&o, "audiofirfilter", h, len, taps_list[i],
                  channels_list[j], blocks[k], &r);
              print_row ("tee+audiofir", "pipeline", taps_list[i],
                  channels_list[j], blocks[k], o.bands, &r);
              af = r.error ? 0.0 : r.x_real;
            }
            g_free (r.error);
          }
          if (xo > 0.0 && af > 0.0)
            ratios[n_ratios++] = xo / af;
        }
        print_ratios (ratios, n_ratios);
      }
    clr_xo_free (h, o.bands);
  }
  printf ("%-15s %-8s %6d %2d %2d %5s | %8.2f %9s %9s %9.3f %8s\n",
      "seed (issue)", "GPU", 8192, 4, 2, "-", 1 / 2.3, "-", "-", 2.3, "-");
  g_strfreev (elements);
  g_free (taps_text);
  g_free (channels_text);
  g_free (blocks_text);
  g_free (elements_text);
  g_free (o.device);
  g_free (o.freqs_text);
  return 0;
}
