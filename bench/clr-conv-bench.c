/* clr-conv-bench: the convolution engine (clr-conv.h) on stereo noise with
 * long filters: speed as a multiple of real time at 48 kHz and per block,
 * fed block by block (a real-time stream) and in large calls (offline), and
 * the error against a float64 direct convolution on an excerpt. Times are
 * the best of three runs; "cpu us" is the CPU time a block (PoCL's threads
 * included), steadier than wall time on a shared machine.
 *
 * usage: clr-conv-bench [--seconds S] [--device SPEC] [--f64]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <glib.h>
#include "clr-conv.h"

#define RATE 48000
#define CHANNELS 2
#define OFFLINE_CALL 16384
#define EXCERPT 512
#define REPEATS 3

static double
next_uniform (guint64 * state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double) (*state >> 11) / (double) (1ull << 52) - 1.0;
}

/* The process's CPU time in seconds, PoCL's threads included. */
static double
cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs `frames` frames through c in calls of `call` frames; returns the
 * wall time in seconds and sets *cpu to the CPU time, or returns a negative
 * value after printing the error. */
static double
run (ClrConv * c, size_t ss, void **in, void **out, size_t frames,
    size_t call, double *cpu)
{
  const double cpu0 = cpu_seconds ();
  const void *ip[CHANNELS];
  void *op[CHANNELS];
  GError *err = NULL;
  gint64 t0 = g_get_monotonic_time ();
  size_t done, len, ch;

  clr_conv_reset (c);
  for (done = 0; done < frames; done += len) {
    len = MIN (call, frames - done);
    for (ch = 0; ch < CHANNELS; ch++) {
      ip[ch] = (char *) in[ch] + done * ss;
      op[ch] = (char *) out[ch] + done * ss;
    }
    if (!clr_conv_process (c, ip, len, op, &err)) {
      fprintf (stderr, "clr_conv_process: %s\n", err->message);
      g_error_free (err);
      return -1;
    }
  }
  *cpu = cpu_seconds () - cpu0;
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

  for (ch = 0; ch < CHANNELS; ch++)
    for (t = end - EXCERPT; t < end; t++) {
      size_t n = t - latency;
      double want = 0.0, got;
      for (k = 0; k < taps && k <= n; k++)
        want += h[ch][k] * x[ch][n - k];
      got = f64 ? ((double *) out[ch])[t] : ((float *) out[ch])[t];
      err = MAX (err, fabs (got - want));
      sum_sq += want * want;
    }
  return err / sqrt (sum_sq / (CHANNELS * EXCERPT));
}

int
main (int argc, char **argv)
{
  static const size_t taps_list[] = { 8192, 65536, 262144 };
  static const uint32_t blocks[] = { 256, 1024 };
  double seconds = 10.0;
  gchar *spec = NULL;
  gboolean f64 = FALSE;
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Seconds of stereo noise at 48 kHz per run (default 10)", "S"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &spec,
        "OpenCL device: auto, gpu, cpu, N, P:D or a name substring", "SPEC"},
    {"f64", 0, 0, G_OPTION_ARG_NONE, &f64,
        "F64 samples and double-precision FFTs (default F32)", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- the convolution engine "
      "at 8192-262144 taps");
  size_t frames, ss;
  GError *err = NULL;
  ClrDevice *dev;
  double *x[CHANNELS], *h[CHANNELS];
  void *in[CHANNELS], *out[CHANNELS];
  size_t i, j, ch, n;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || seconds <= 0) {
    fprintf (stderr, "%s\n", err ? err->message : "--seconds must be > 0");
    return 2;
  }
  g_option_context_free (ctx);
  frames = (size_t) (seconds * RATE);
  ss = f64 ? 8 : 4;
  dev = clr_device_acquire (spec, &err);
  if (!dev) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  for (ch = 0; ch < CHANNELS; ch++) {
    guint64 state = 1 + ch;
    x[ch] = g_new (double, frames);
    in[ch] = g_malloc (frames * ss);
    out[ch] = g_malloc (frames * ss);
    for (n = 0; n < frames; n++) {
      double v = 0.5 * next_uniform (&state);
      if (f64)
        ((double *) in[ch])[n] = v;
      else
        ((float *) in[ch])[n] = (float) v;
      x[ch][n] = f64 ? v : (float) v;
    }
  }
  printf ("clr-conv-bench: '%s', stereo %s, %.1f s of noise at %u Hz, "
      "one filter a channel\n", clr_device_get_name (dev), f64 ? "F64" :
      "F32", seconds, RATE);
  printf ("%8s %6s | %9s %9s %9s | %9s %9s %9s | %11s\n", "", "",
      "stream:", "", "", "offline:", "", "", "");
  printf ("%8s %6s | %9s %9s %9s | %9s %9s %9s | %11s\n", "taps", "B",
      "x real", "us/block", "cpu us", "x real", "us/block", "cpu us",
      "max err/RMS");
  for (i = 0; i < G_N_ELEMENTS (taps_list); i++) {
    const size_t taps = taps_list[i];
    for (ch = 0; ch < CHANNELS; ch++) {
      guint64 state = 100 + ch;
      h[ch] = g_new (double, taps);
      for (n = 0; n < taps; n++)
        h[ch][n] = next_uniform (&state) * exp (-6.9 * n / taps);
    }
    for (j = 0; j < G_N_ELEMENTS (blocks); j++) {
      ClrConvConfig cfg = { CHANNELS, blocks[j], f64 ? CLR_CONV_F64 :
        CLR_CONV_F32, (const double *const *) h, taps, CHANNELS
      };
      ClrConv *c = clr_conv_new (dev, &cfg, &err);
      double t_stream, t_offline, cpu_stream, cpu_offline, cpu;
      double n_blocks = (double) frames / blocks[j];

      if (!c) {
        fprintf (stderr, "%s\n", err->message);
        g_clear_error (&err);
        continue;
      }
      /* a warm-up: first-use costs stay out of the figures */
      run (c, ss, in, out, MIN (frames, 4 * OFFLINE_CALL), OFFLINE_CALL,
          &cpu);
      t_stream = best_of (c, ss, in, out, frames, blocks[j], &cpu_stream);
      t_offline = best_of (c, ss, in, out, frames, OFFLINE_CALL,
          &cpu_offline);
      if (t_stream > 0 && t_offline > 0)
        printf ("%8zu %6u | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %11.2e\n",
            taps, blocks[j], seconds / t_stream, t_stream * 1e6 / n_blocks,
            cpu_stream * 1e6 / n_blocks, seconds / t_offline,
            t_offline * 1e6 / n_blocks, cpu_offline * 1e6 / n_blocks,
            excerpt_error (h, taps, x, f64, out, frames,
                clr_conv_get_latency (c)));
      fflush (stdout);
      clr_conv_free (c);
    }
    for (ch = 0; ch < CHANNELS; ch++)
      g_free (h[ch]);
  }
  for (ch = 0; ch < CHANNELS; ch++) {
    g_free (x[ch]);
    g_free (in[ch]);
    g_free (out[ch]);
  }
  clr_device_unref (dev);
  g_free (spec);
  return 0;
}
