/* clr-conv-bench: the convolution engine (clr-conv.h) on noise with long
 * filters: speed as a multiple of real time at 48 kHz and per block, fed
 * block by block (a real-time stream) and in large calls (offline), and the
 * error against a float64 direct convolution on an excerpt. Times are the
 * best of three runs; "p99 us" is the 99th percentile of the stream's
 * calls (each one block) over all three; "cpu us" is the CPU time a block
 * (PoCL's threads included), steadier than wall time on a shared machine.
 *
 * usage: clr-conv-bench [--seconds S] [--device SPEC] [--f64]
 *            [--taps N,N,..] [--blocks B,B,..] [--channels C] [--outputs K]
 *            [--paced] [--verbose]
 * --outputs K: K outputs a channel (a crossover's bands: one input
 * transform a block, K filters a channel; ClrConvConfig.outputs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <glib.h>
#include "clr-bench-util.h"
#include "conv/clr-conv.h"
#include "clr-log.h"

#define RATE 48000
#define CHANNELS_MAX 256
#define OFFLINE_CALL 16384
#define EXCERPT 512
#define REPEATS 3

/* Runs `frames` frames through c in calls of `call` frames; returns the
 * wall time in seconds and sets *cpu to the CPU time, or returns a negative
 * value after printing the error. */
static guint channels = 2;
/* outputs a channel; planes out: channels x outputs */
static guint outputs = 1;
/* every stream call's wall time in microseconds, for the p99 */
static GArray *call_us;
/* --paced: the stream's calls as a real-time source makes them, each when
 * its block's last frame has come (48 kHz), so that work handed to other
 * threads has the time it would have */
static gboolean paced;

static double
run (ClrConv * c, size_t ss, void **in, void **out, size_t frames,
    size_t call, double *cpu)
{
  const double cpu0 = clr_bench_cpu_seconds ();
  const void *ip[CHANNELS_MAX];
  void *op[CLR_CONV_OUTPUTS_MAX];
  GError *err = NULL;
  gint64 t0 = g_get_monotonic_time ();
  size_t done, len, ch;

  clr_conv_reset (c);
  for (done = 0; done < frames; done += len) {
    gint64 t_call;

    len = MIN (call, frames - done);
    if (paced && call_us) {
      const gint64 due = t0 + (gint64) ((done + len) * G_USEC_PER_SEC / RATE);

      while (g_get_monotonic_time () < due)
        g_usleep (MAX (due - g_get_monotonic_time (), 0));
    }
    t_call = g_get_monotonic_time ();
    for (ch = 0; ch < channels; ch++)
      ip[ch] = (char *) in[ch] + done * ss;
    for (ch = 0; ch < channels * outputs; ch++)
      op[ch] = (char *) out[ch] + done * ss;
    if (!clr_conv_process (c, ip, len, op, &err)) {
      fprintf (stderr, "clr_conv_process: %s\n", err->message);
      g_error_free (err);
      return -1;
    }
    if (call_us) {
      double us = (double) (g_get_monotonic_time () - t_call);
      g_array_append_val (call_us, us);
    }
  }
  *cpu = clr_bench_cpu_seconds () - cpu0;
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* The fastest of REPEATS runs, wall and CPU time each: the machine may be
 * shared, and others' work only ever makes a run slower. The CPU time is
 * the steadier figure on a loaded machine. */
static double
best_of (ClrConv * c, size_t ss, void **in, void **out, size_t frames,
    size_t call, double *cpu_best)
{
  double best = G_MAXDOUBLE, t, cpu;
  int i;

  *cpu_best = G_MAXDOUBLE;
  for (i = 0; i < REPEATS; i++) {
    if ((t = run (c, ss, in, out, frames, call, &cpu)) < 0)
      return t;
    best = MIN (best, t);
    *cpu_best = MIN (*cpu_best, cpu);
  }
  return best;
}

/* Max error of output frames [end - EXCERPT, end) over their RMS, against
 * y[n] = sum over k of h[k] x[n - k] in double. */
static double
excerpt_error (double *const *h, size_t taps, double *const *x,
    gboolean f64, void *const *out, size_t end, uint32_t latency)
{
  double err = 0.0, sum_sq = 0.0;
  size_t t, k, ch;

  for (ch = 0; ch < channels * outputs; ch++)
    for (t = end - EXCERPT; t < end; t++) {
      size_t n = t - latency;
      double want = 0.0, got;
      for (k = 0; k < taps && k <= n; k++)
        want += h[ch][k] * x[ch % channels][n - k];
      got = f64 ? ((double *) out[ch])[t] : ((float *) out[ch])[t];
      err = MAX (err, fabs (got - want));
      sum_sq += want * want;
    }
  return err / sqrt (sum_sq / (channels * outputs * EXCERPT));
}

static void
print_log (ClrLogLevel level, const char *msg)
{
  fprintf (stderr, "clr: %s\n", msg);
}

int
main (int argc, char **argv)
{
  guint64 taps_list[16] = { 8192, 65536, 262144 }, blocks[16] = { 256, 1024 };
  guint n_taps = 3, n_blocks_list = 2;
  double seconds = 10.0;
  gchar *spec = NULL, *taps_text = NULL, *blocks_text = NULL;
  gboolean f64 = FALSE, verbose = FALSE;
  gint channels_opt = 2, outputs_opt = 1;
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Seconds of noise at 48 kHz per run (default 10)", "S"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &spec,
        "OpenCL device: auto, gpu, cpu, N, P:D or a name substring", "SPEC"},
    {"f64", 0, 0, G_OPTION_ARG_NONE, &f64,
        "F64 samples and double-precision FFTs (default F32)", NULL},
    {"taps", 't', 0, G_OPTION_ARG_STRING, &taps_text,
        "Filter lengths (default 8192,65536,262144)", "N,N,.."},
    {"blocks", 'b', 0, G_OPTION_ARG_STRING, &blocks_text,
        "Block sizes, powers of two (default 256,1024)", "B,B,.."},
    {"channels", 'c', 0, G_OPTION_ARG_INT, &channels_opt,
        "Channels, one filter each (default 2)", "C"},
    {"outputs", 'o', 0, G_OPTION_ARG_INT, &outputs_opt,
        "Outputs (bands) a channel, each its own filter (default 1)", "K"},
    {"paced", 0, 0, G_OPTION_ARG_NONE, &paced,
        "Feed the stream in real time (its calls 1 block apart at 48 kHz): "
        "p99 as a live source sees it", NULL},
    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
        "Print the engine's log (its set-up of each run)", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- the convolution engine "
      "with long filters");
  size_t frames, ss;
  GError *err = NULL;
  ClrDevice *dev;
  double *x[CHANNELS_MAX], *h[CLR_CONV_OUTPUTS_MAX];
  void *in[CHANNELS_MAX], *out[CLR_CONV_OUTPUTS_MAX];
  size_t i, j, ch, n;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (seconds <= 0 || channels_opt < 1 || channels_opt > CHANNELS_MAX
      || (taps_text && !(n_taps = parse_list (taps_text, taps_list, 16,
                  FALSE)))
      || (blocks_text && !(n_blocks_list = parse_list (blocks_text, blocks,
                  16, FALSE)))) {
    fprintf (stderr, "--seconds must be > 0, --channels 1..%u, --taps and "
        "--blocks lists of positive integers\n", CHANNELS_MAX);
    return 2;
  }
  channels = channels_opt;
  outputs = CLAMP (outputs_opt, 1, (gint) (CLR_CONV_OUTPUTS_MAX / channels));
  if (verbose)
    clr_log_set_func (print_log);
  frames = (size_t) (seconds * RATE);
  ss = f64 ? 8 : 4;
  dev = clr_device_acquire (spec, &err);
  if (!dev) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  for (ch = 0; ch < channels; ch++) {
    guint64 state = 1 + ch;
    x[ch] = g_new (double, frames);
    in[ch] = g_malloc (frames * ss);
    for (n = 0; n < frames; n++) {
      double v = 0.5 * next_uniform (&state);
      if (f64)
        ((double *) in[ch])[n] = v;
      else
        ((float *) in[ch])[n] = (float) v;
      x[ch][n] = f64 ? v : (float) v;
    }
  }
  for (ch = 0; ch < channels * outputs; ch++)
    out[ch] = g_malloc (frames * ss);
  printf ("clr-conv-bench: '%s', %u channels x %u output(s) %s, %.1f s of "
      "noise at %u Hz, one filter an output\n", clr_device_get_name (dev),
      channels, outputs, f64 ? "F64" : "F32", seconds, RATE);
  printf ("%8s %6s | %9s %9s %9s %9s | %9s %9s %9s | %11s\n", "", "",
      "stream:", "", "", "", "offline:", "", "", "");
  printf ("%8s %6s | %9s %9s %9s %9s | %9s %9s %9s | %11s\n", "taps", "B",
      "x real", "us/block", "p99 us", "cpu us", "x real", "us/block",
      "cpu us", "max err/RMS");
  for (i = 0; i < n_taps; i++) {
    const size_t taps = taps_list[i];
    for (ch = 0; ch < channels * outputs; ch++) {
      guint64 state = 100 + ch;
      h[ch] = g_new (double, taps);
      for (n = 0; n < taps; n++)
        h[ch][n] = next_uniform (&state) * exp (-6.9 * n / taps);
    }
    for (j = 0; j < n_blocks_list; j++) {
      ClrConvConfig cfg = { channels, (uint32_t) blocks[j],
        f64 ? CLR_CONV_F64 : CLR_CONV_F32, (const double *const *) h, taps,
        channels * outputs, outputs
      };
      ClrConv *c = clr_conv_new (dev, &cfg, &err);
      double t_stream, t_offline, cpu_stream, cpu_offline, cpu, p99;
      double n_blocks = (double) frames / blocks[j];

      if (!c) {
        fprintf (stderr, "%s\n", err->message);
        g_clear_error (&err);
        continue;
      }
      /* a warm-up: first-use costs stay out of the figures */
      run (c, ss, in, out, MIN (frames, 4 * OFFLINE_CALL), OFFLINE_CALL,
          &cpu);
      call_us = g_array_new (FALSE, FALSE, sizeof (double));
      t_stream = best_of (c, ss, in, out, frames, blocks[j], &cpu_stream);
      g_array_sort (call_us, cmp_double);
      p99 = call_us->len ? g_array_index (call_us, double,
          (guint) (0.99 * (call_us->len - 1))) : 0.0;
      g_array_free (call_us, TRUE);
      call_us = NULL;
      t_offline = best_of (c, ss, in, out, frames, OFFLINE_CALL,
          &cpu_offline);
      if (t_stream > 0 && t_offline > 0)
        printf ("%8zu %6u | %9.1f %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | "
            "%11.2e\n", taps, (guint) blocks[j], seconds / t_stream,
            t_stream * 1e6 / n_blocks, p99, cpu_stream * 1e6 / n_blocks,
            seconds / t_offline, t_offline * 1e6 / n_blocks,
            cpu_offline * 1e6 / n_blocks, excerpt_error (h, taps, x, f64,
                out, frames, clr_conv_get_latency (c)));
      fflush (stdout);
      clr_conv_free (c);
    }
    for (ch = 0; ch < channels * outputs; ch++)
      g_free (h[ch]);
  }
  for (ch = 0; ch < channels; ch++) {
    g_free (x[ch]);
    g_free (in[ch]);
  }
  for (ch = 0; ch < channels * outputs; ch++)
    g_free (out[ch]);
  clr_device_unref (dev);
  g_free (spec);
  g_free (taps_text);
  g_free (blocks_text);
  return 0;
}
