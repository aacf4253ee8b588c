/* clr-oversample-bench: the engine's FFT path (clr-engine-fft.c) for
 * M-Scaler-class oversampling beside its direct kernels (issue 12), in one
 * run:
 *
 *   crossover  in-process, engine level: stereo F32 interleaved noise in
 *              calls of 1024 input frames, each path forced (tuning.fft),
 *              at 2x, 4x, 16x up and 4x down and a list of taps per
 *              phase: multiple of real time, the engine's latency in input
 *              frames, the FFT path's block and set-up time (filter design
 *              and transforms), and the smallest taps where the FFT path
 *              wins, beside where clr_kernel_plan_choose() switches;
 *   pipelines  `gst-launch-1.0 -q audiotestsrc wave=white-noise ... !
 *              clresample taps=63488 ! audio/x-raw,rate=705600 !
 *              fakesink` as a whole child process, CLRESAMPLE_FFT=1 and 0:
 *              wall time from spawn to exit (start-up, the device's kernel
 *              builds, filter design and the drain included), the child's
 *              CPU time and peak RSS;
 *   --dump DIR one short case (44.1 -> 705.6 kHz, stereo, 2 s, F32 and F64
 *              through the FFT path) written as float64 raw files with the
 *              full-rate prototype, for bench/oversample-ref.py to compare
 *              with scipy's oaconvolve of the zero-stuffed input.
 *
 * The crossover cells measure the steady state: each run pre-rolls a fresh
 * engine past its latency untimed (the direct kernels produce nothing until
 * the window is full; the FFT path's first transforms and PoCL's first
 * launches stay out), then times a number of calls. That number comes from
 * a probe run, so that a run takes about 1.5 s (--quick: 0.5) whatever its
 * speed, capped by --seconds of audio; a cell whose least run would exceed
 * 20 s prints "-". The two paths' runs alternate and the best counts, and
 * the speed-up is also given by the process's CPU time: this machine may
 * be shared, and others' work only ever makes a run slower.
 *
 * usage: clr-oversample-bench [--device SPEC] [--seconds S] [--runs N]
 *            [--quick] [--taps N,..] [--no-crossover] [--no-pipelines]
 *            [--pipeline-seconds S] [--direct-seconds S] [--dump DIR]
 *            [--csv FILE]
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <glib.h>
#include <glib/gstdio.h>
#include "clr-bench-util.h"
#include "conv/clr-conv.h"
#include "resample/clr-engine.h"
#include "resample/clr-kernel-plan.h"

#ifndef CLR_BENCH_PLUGIN_DIR
#define CLR_BENCH_PLUGIN_DIR ""
#endif

#define CHANNELS 2
#define CALL 1024
/* the noise the crossover cycles through: a whole number of calls */
#define NOISE_FRAMES (1u << 17)
#define TAPS_MAX_LIST 32
/* a run's least timed calls, and the most a cell may take */
#define MIN_CALLS 4
#define SKIP_WALL_S 20.0
/* the case */
#define OVS_IN 44100
#define OVS_OUT 705600
#define OVS_TAPS 63488
#define DUMP_SECONDS 2.0

extern char **environ;

typedef struct
{
  uint32_t in_rate, out_rate;
} Ratio;

/* the crossover table's ratios: these, or --ratios */
#define RATIOS_MAX 8
static Ratio ratios[RATIOS_MAX] = {
  {44100, 88200}, {44100, 176400}, {44100, 705600}, {192000, 48000},
};

static guint n_ratios = 4;
#define N_RATIOS n_ratios

typedef struct
{
  gchar *device;
  double seconds;               /* audio a crossover run at most */
  double cell_wall;             /* wall a crossover run aims at */
  double probe_wall;
  gint runs;
  gboolean quick;
  gboolean no_crossover, no_pipelines;
  double pipeline_seconds, direct_seconds;
  gchar *dump;
  guint64 taps[TAPS_MAX_LIST];
  guint n_taps;
  gboolean taps_given;

  ClrDevice *dev;
  float *noise;                 /* NOISE_FRAMES stereo frames */
  float *out;
  size_t out_cap;               /* frames */
  FILE *csv;
} Bench;

typedef struct
{
  gboolean done;                /* measured (else skipped or failed) */
  gboolean failed;
  double x_real;                /* best of the runs */
  double x_cpu;                 /* audio seconds / process CPU seconds
                                 * (PoCL's threads included), best */
  size_t calls;                 /* timed calls a run */
  double setup_ms;              /* best of the runs */
  double audio_s;               /* timed audio a run */
  uint32_t latency;             /* input frames */
  uint32_t block;               /* the FFT path's; 0 for direct */
  uint32_t taps;                /* as designed */
} Cell;

static void
csv_value (Bench * b, const char *table, const char *row, const char *col,
    double v)
{
  if (b->csv && !isnan (v))
    fprintf (b->csv, "%s,%s,%s,%.6g\n", table, row, col, v);
}

static ClrEngine *
new_engine (Bench * b, const Ratio * r, uint32_t taps, ClrFormat format,
    gboolean fft, double *setup_s, GError ** err)
{
  ClrEngineConfig cfg = { r->in_rate, r->out_rate, CHANNELS,
    CLR_QUALITY_DEFAULT, taps, format, FALSE, 0
  };
  /* the environment's other knobs (CLRESAMPLE_FFT_BLOCK among them) stay */
  ClrTuning t = *clr_tuning_get ();
  double t0 = now_s ();
  ClrEngine *e;

  t.fft.set = TRUE;
  t.fft.value = fft;
  e = clr_engine_new_tuned (b->dev, &cfg, &t, err);
  *setup_s = now_s () - t0;
  return e;
}

/* Pushes `calls` calls of CALL noise frames from *pos on (cycling), the
 * output into b->out, overwritten call by call. */
static gboolean
push_calls (Bench * b, ClrEngine * e, size_t * pos, size_t calls,
    GError ** err)
{
  size_t i, n;

  for (i = 0; i < calls; i++) {
    const void *ip[1] = { b->noise + *pos * CHANNELS };
    size_t want = clr_engine_out_frames (e, CALL);
    void *op[1];

    if (want > b->out_cap) {
      b->out = g_renew (float, b->out, want * CHANNELS);
      b->out_cap = want;
    }
    op[0] = b->out;
    if (!clr_engine_process (e, ip, CALL, op, &n, err))
      return FALSE;
    *pos = (*pos + CALL) % NOISE_FRAMES;
  }
  return TRUE;
}

/* One run on a fresh engine: pre-rolled past its latency and two calls
 * more (untimed), then *calls calls timed; *calls = 0: as many as take
 * b->probe_wall, the count written back. Returns the multiple of real
 * time, or a negative value after printing the error. */
static double
one_run (Bench * b, const Ratio * r, uint32_t taps, gboolean fft,
    size_t * calls, Cell * c)
{
  GError *err = NULL;
  double setup, t0, cpu0, wall, audio;
  size_t pos = 0, n = 0;
  ClrEngine *e = new_engine (b, r, taps, CLR_FORMAT_F32, fft, &setup, &err);

  if (!e)
    goto failed;
  c->latency = clr_engine_get_latency (e);
  c->taps = clr_engine_get_filter (e)->taps;
  /* the FFT path answers its block later than the direct kernels'
   * K / 2 (clr-engine-fft.c) */
  c->block = fft ? c->latency - c->taps / 2 : 0;
  c->setup_ms = MIN (c->setup_ms, setup * 1e3);
  if (!push_calls (b, e, &pos, (c->latency + CALL - 1) / CALL + 2, &err))
    goto failed;
  cpu0 = clr_bench_cpu_seconds ();
  t0 = now_s ();
  if (*calls) {
    if (!push_calls (b, e, &pos, *calls, &err))
      goto failed;
    n = *calls;
  } else {
    do {
      if (!push_calls (b, e, &pos, 1, &err))
        goto failed;
      n++;
    } while (now_s () - t0 < b->probe_wall || n < 2);
    *calls = n;
  }
  wall = now_s () - t0;
  audio = (double) n * CALL / r->in_rate;
  c->x_cpu = MAX (c->x_cpu, audio / (clr_bench_cpu_seconds () - cpu0));
  clr_engine_free (e);
  return audio / wall;

failed:
  fprintf (stderr, "  %u -> %u, %u taps, %s: %s\n", r->in_rate, r->out_rate,
      taps, fft ? "FFT" : "direct", err ? err->message : "?");
  g_clear_error (&err);
  if (e)
    clr_engine_free (e);
  return -1.0;
}

/* A cell's probe: one run as long as b->probe_wall, then the calls a run
 * of about b->cell_wall takes (within MIN_CALLS and --seconds of audio).
 * `predict`, a multiple of real time expected from a neighbouring cell (0:
 * none), skips the cell without a probe when even its least run would
 * take too long; so does the probe's own speed. */
static void
probe_cell (Bench * b, const Ratio * r, uint32_t taps, gboolean fft,
    double predict, Cell * c)
{
  const size_t max_calls = MAX ((size_t) (b->seconds * r->in_rate / CALL),
      MIN_CALLS);
  double x;

  memset (c, 0, sizeof (*c));
  c->setup_ms = G_MAXDOUBLE;
  if (predict > 0 && (double) MIN_CALLS * CALL / r->in_rate / predict >
      SKIP_WALL_S)
    return;
  x = one_run (b, r, taps, fft, &c->calls, c);
  c->x_cpu = 0;
  if (x <= 0) {
    c->failed = TRUE;
    c->calls = 0;
    return;
  }
  if ((double) MIN_CALLS * CALL / r->in_rate / x > SKIP_WALL_S) {
    c->calls = 0;
    return;
  }
  c->calls = CLAMP ((size_t) (x * b->cell_wall * r->in_rate / CALL),
      MIN_CALLS, max_calls);
  c->audio_s = (double) c->calls * CALL / r->in_rate;
}

/* One taps of one ratio, both paths: probes, then --runs runs of each,
 * alternating, so that a busy spell of a shared machine slows both; the
 * best counts. */
static void
run_pair (Bench * b, const Ratio * r, uint32_t taps, double predict,
    Cell * d, Cell * f)
{
  Cell *both[2] = { f, d };
  gint i, k;

  probe_cell (b, r, taps, TRUE, 0, f);
  probe_cell (b, r, taps, FALSE, predict, d);
  for (i = 0; i < b->runs; i++)
    for (k = 0; k < 2; k++) {
      Cell *c = both[k];
      double x;

      if (!c->calls || c->failed)
        continue;
      if ((x = one_run (b, r, taps, c == f, &c->calls, c)) <= 0)
        c->failed = TRUE;
      else
        c->x_real = MAX (c->x_real, x);
    }
  for (k = 0; k < 2; k++)
    both[k]->done = both[k]->calls && !both[k]->failed;
}

/* Whether clr_kernel_plan_choose(), left to its defaults, takes the FFT
 * path for this stream. */
static gboolean
plan_takes_fft (Bench * b, const Ratio * r, uint32_t taps)
{
  ClrKernelFacts f = { 0, };
  ClrTuning t = *clr_tuning_get ();
  ClrKernelPlan p;
  ClrRatio ratio;

  clr_ratio_init (&ratio, r->in_rate, r->out_rate);
  t.fft.set = FALSE;
  f.is_gpu = clr_device_is_gpu (b->dev);
  f.has_fp64 = clr_device_has_fp64 (b->dev);
  f.format = CLR_FORMAT_F32;
  f.channels = CHANNELS;
  f.I = ratio.I;
  f.D = ratio.D;
  f.taps = taps;
  f.fft_block_max = clr_conv_max_block (b->dev);
  clr_kernel_plan_choose (&f, &t, &p);
  return p.fft_block > 0;
}

/* The least taps (a multiple of 4) from which the plan takes the FFT path;
 * 0: never up to CLR_TAPS_MAX. */
static uint32_t
plan_threshold (Bench * b, const Ratio * r)
{
  uint32_t taps;

  for (taps = 4; taps <= CLR_TAPS_MAX; taps += 4)
    if (plan_takes_fft (b, r, taps))
      return taps;
  return 0;
}

static void
format_x (char *buf, size_t len, const Cell * c)
{
  if (c->done)
    g_snprintf (buf, len, "%.2f", c->x_real);
  else
    g_snprintf (buf, len, "%s", c->failed ? "failed" : "-");
}

/* FFT over direct speed of a cell, by wall or CPU time; NAN unless both
 * ran. */
static double
speedup (const Cell * c, gboolean cpu)
{
  const Cell *d = &c[0], *f = &c[1];

  if (!d->done || !f->done)
    return NAN;
  return cpu ? f->x_cpu / d->x_cpu : f->x_real / d->x_real;
}

/* One ratio's crossover, by wall or CPU time: the smallest taps where the
 * FFT path is faster, the ratio there and below, and a log-log
 * interpolation between the two. A direct cell skipped for its length
 * counts as slower. */
static void
print_crossover (Bench * b, const char *ratio_s, Cell (*cells)[2],
    gboolean cpu)
{
  gint first = -1, last_slower = -1;
  gboolean stays = TRUE;
  guint i;

  for (i = 0; i < b->n_taps; i++) {
    const Cell *d = &cells[i][0], *f = &cells[i][1];
    gboolean faster, measured = f->done && (d->done || !d->failed);

    if (!measured)
      continue;
    faster = !d->done || speedup (cells[i], cpu) > 1.0;
    if (faster && first < 0)
      first = i;
    if (!faster && first >= 0)
      stays = FALSE;
    if (!faster && first < 0)
      last_slower = i;
  }
  printf ("  %-15s %-5s ", ratio_s, cpu ? "cpu:" : "wall:");
  if (first < 0) {
    printf ("FFT never faster up to %" G_GUINT64_FORMAT " taps\n",
        b->taps[b->n_taps - 1]);
    return;
  }
  printf ("FFT faster from %5" G_GUINT64_FORMAT " taps", b->taps[first]);
  csv_value (b, "crossover-summary", ratio_s, cpu ? "fft_faster_from_cpu" :
      "fft_faster_from", b->taps[first]);
  if (cells[first][0].done)
    printf (" (%.2fx)", speedup (cells[first], cpu));
  if (last_slower >= 0 && last_slower == first - 1
      && cells[first][0].done && cells[last_slower][0].done) {
    const double l0 = log (speedup (cells[last_slower], cpu));
    const double l1 = log (speedup (cells[first], cpu));
    const double lt0 = log ((double) b->taps[last_slower]);
    const double lt1 = log ((double) b->taps[first]);
    const double cross = exp (lt0 + (lt1 - lt0) * (0 - l0) / (l1 - l0));

    printf (", %" G_GUINT64_FORMAT ": %.2fx; ~%.0f", b->taps[last_slower],
        exp (l0), cross);
    csv_value (b, "crossover-summary", ratio_s, cpu ? "interpolated_cpu" :
        "interpolated", cross);
  }
  printf ("%s\n", stays ? "" : " (not at every larger taps)");
}

static void
crossover_table (Bench * b)
{
  Cell cells[RATIOS_MAX][TAPS_MAX_LIST][2];
  guint r, i;

  printf ("== crossover: stereo F32 noise, calls of %u input frames, "
      "steady state, best of %d, the paths alternating\n", CALL, b->runs);
  printf ("   x: audio seconds / wall seconds of the process calls; lat: "
      "engine latency in input\n   frames; setup: engine creation (filter "
      "design, transforms); FFT/dir: speed-up by wall\n   time, cpu: by "
      "the process's CPU time; audio: seconds timed a run, direct/FFT;\n"
      "   plan: the path clr_kernel_plan_choose() takes at these taps by "
      "default\n");
  printf ("%-15s %6s | %9s %6s | %9s %6s %5s %8s | %7s %6s %9s %6s\n",
      "ratio", "taps", "direct x", "lat", "FFT x", "lat", "block",
      "setup ms", "FFT/dir", "cpu", "audio", "plan");
  fflush (stdout);
  for (r = 0; r < N_RATIOS; r++) {
    double prev_direct = 0.0;
    uint32_t prev_taps = 0;

    for (i = 0; i < b->n_taps; i++) {
      const uint32_t taps = (uint32_t) b->taps[i];
      Cell *d = &cells[r][i][0], *f = &cells[r][i][1];
      char dx[16], fx[16], dlat[16], ratio_s[32], sp[16], sp_cpu[16];
      char row[64], audio[32], setup[16];
      double predict = prev_direct > 0 ? prev_direct * prev_taps / taps : 0;

      /* a direct cell whose least run, from the last one's speed scaled
       * by the taps, would take too long is skipped unprobed */
      run_pair (b, &ratios[r], taps, predict, d, f);
      if (d->done) {
        prev_direct = d->x_real;
        prev_taps = taps;
      }
      format_x (dx, sizeof (dx), d);
      format_x (fx, sizeof (fx), f);
      g_snprintf (dlat, sizeof (dlat), d->done ? "%u" : "-", d->latency);
      g_snprintf (setup, sizeof (setup), f->done ? "%.1f" : "-",
          f->setup_ms);
      g_snprintf (sp, sizeof (sp), "%.2f", speedup (cells[r][i], FALSE));
      g_snprintf (sp_cpu, sizeof (sp_cpu), "%.2f", speedup (cells[r][i],
              TRUE));
      g_snprintf (ratio_s, sizeof (ratio_s), "%u->%u", ratios[r].in_rate,
          ratios[r].out_rate);
      g_snprintf (audio, sizeof (audio), "%.1f/%.1f", d->audio_s,
          f->audio_s);
      printf ("%-15s %6u | %9s %6s | %9s %6u %5u %8s | %7s %6s %9s %6s\n",
          ratio_s, taps, dx, dlat, fx, f->latency, f->block, setup,
          d->done && f->done ? sp : "-", d->done && f->done ? sp_cpu : "-",
          audio, plan_takes_fft (b, &ratios[r], f->taps ? f->taps : taps) ?
          "FFT" : "direct");
      fflush (stdout);
      g_snprintf (row, sizeof (row), "%s/%u", ratio_s, taps);
      if (d->done) {
        csv_value (b, "crossover", row, "direct_x_real", d->x_real);
        csv_value (b, "crossover", row, "direct_x_cpu", d->x_cpu);
        csv_value (b, "crossover", row, "direct_latency", d->latency);
      }
      if (f->done) {
        csv_value (b, "crossover", row, "fft_x_real", f->x_real);
        csv_value (b, "crossover", row, "fft_x_cpu", f->x_cpu);
        csv_value (b, "crossover", row, "fft_latency", f->latency);
        csv_value (b, "crossover", row, "fft_block", f->block);
        csv_value (b, "crossover", row, "fft_setup_ms", f->setup_ms);
      }
    }
  }
  printf ("\ncrossover: the smallest taps per phase where the FFT path is "
      "faster, by wall and by CPU\ntime (\"~\": log-interpolated between "
      "the neighbouring taps), and where the plan switches:\n");
  for (r = 0; r < N_RATIOS; r++) {
    const uint32_t plan = plan_threshold (b, &ratios[r]);
    char ratio_s[32];

    g_snprintf (ratio_s, sizeof (ratio_s), "%u->%u", ratios[r].in_rate,
        ratios[r].out_rate);
    print_crossover (b, ratio_s, cells[r], FALSE);
    print_crossover (b, ratio_s, cells[r], TRUE);
    if (plan)
      printf ("  %-15s plan: FFT from  %5u taps\n", ratio_s, plan);
    else
      printf ("  %-15s plan: never FFT\n", ratio_s);
    csv_value (b, "crossover-summary", ratio_s, "plan_taps", plan);
  }
  printf ("\n");
  fflush (stdout);
}

/* ---- pipelines ---- */

typedef struct
{
  const char *name;
  gboolean fft;
  gboolean f64;
  guint buffer;                 /* frames */
  double seconds;
  /* results */
  guint n_buffers;
  double audio_s, best_wall, cpu_s, rss_mb;
  gint ok;
  gchar *error;
} PipeRow;

static gchar **
pipe_argv (Bench * b, const char *gst_launch, guint buffer, guint n_buffers,
    gboolean f64)
{
  GPtrArray *a = g_ptr_array_new ();

  g_ptr_array_add (a, g_strdup (gst_launch));
  g_ptr_array_add (a, g_strdup ("-q"));
  g_ptr_array_add (a, g_strdup ("audiotestsrc"));
  g_ptr_array_add (a, g_strdup ("wave=white-noise"));
  g_ptr_array_add (a, g_strdup_printf ("samplesperbuffer=%u", buffer));
  g_ptr_array_add (a, g_strdup_printf ("num-buffers=%u", n_buffers));
  g_ptr_array_add (a, g_strdup ("!"));
  g_ptr_array_add (a, g_strdup_printf ("audio/x-raw,format=%s,rate=%u,"
          "channels=%u", f64 ? "F64LE" : "F32LE", OVS_IN, CHANNELS));
  g_ptr_array_add (a, g_strdup ("!"));
  g_ptr_array_add (a, g_strdup ("clresample"));
  g_ptr_array_add (a, g_strdup_printf ("taps=%u", OVS_TAPS));
  if (b->device)
    g_ptr_array_add (a, g_strdup_printf ("device=%s", b->device));
  g_ptr_array_add (a, g_strdup ("!"));
  g_ptr_array_add (a, g_strdup_printf ("audio/x-raw,rate=%u", OVS_OUT));
  g_ptr_array_add (a, g_strdup ("!"));
  g_ptr_array_add (a, g_strdup ("fakesink"));
  g_ptr_array_add (a, NULL);
  return (gchar **) g_ptr_array_free (a, FALSE);
}

/* Runs argv under envp to its exit; wall seconds from spawn to reaping,
 * the child's rusage. posix_spawn, not fork + setenv: this process has
 * the OpenCL runtime's threads. Returns FALSE with *errout set (the
 * child's stderr) on failure. */
static gboolean
spawn_timed (gchar ** argv, gchar ** envp, double *wall, struct rusage *ru,
    gchar ** errout)
{
  posix_spawn_file_actions_t fa;
  gchar *err_path = NULL;
  double t0;
  pid_t pid;
  int status = 0, fd, rc;

  fd = g_file_open_tmp ("clr-ovs-XXXXXX", &err_path, NULL);
  if (fd < 0) {
    *errout = g_strdup ("no temporary file for the child's stderr");
    return FALSE;
  }
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2 (&fa, fd, 2);
  t0 = now_s ();
  rc = posix_spawn (&pid, argv[0], &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy (&fa);
  if (rc == 0) {
    while (wait4 (pid, &status, 0, ru) < 0 && errno == EINTR);
    *wall = now_s () - t0;
  }
  close (fd);
  if (rc != 0 || !WIFEXITED (status) || WEXITSTATUS (status) != 0) {
    gchar *text = NULL;
    if (rc != 0)
      *errout = g_strdup_printf ("spawn %s: %s", argv[0], g_strerror (rc));
    else if (g_file_get_contents (err_path, &text, NULL, NULL) && *text)
      *errout = g_strstrip (text), text = NULL;
    else
      *errout = g_strdup_printf ("exit status %d", status);
    g_free (text);
    g_unlink (err_path);
    g_free (err_path);
    return FALSE;
  }
  g_unlink (err_path);
  g_free (err_path);
  return TRUE;
}

static void
pipelines_table (Bench * b)
{
  const double fft_s = b->pipeline_seconds, dir_s = b->direct_seconds;
  PipeRow rows[] = {
    {"FFT F32 B=1024", TRUE, FALSE, 1024, fft_s},
    {"FFT F32 B=44100", TRUE, FALSE, 44100, fft_s},
    {"FFT F64 B=1024", TRUE, TRUE, 1024, fft_s},
    {"direct F32 B=1024", FALSE, FALSE, 1024, dir_s},
    {"direct F32 B=44100", FALSE, FALSE, 44100, dir_s},
    /* one buffer: what start-up, kernel builds, filter design and the
     * drain of the latency cost every row above */
    {"FFT F32 one buffer", TRUE, FALSE, 1024, 0},
  };
  gchar *gst_launch = g_find_program_in_path ("gst-launch-1.0");
  gchar **env_fft, **env_direct, **argv, *line;
  double start_wall;
  guint i;
  gint run;

  printf ("== pipelines: whole gst-launch-1.0 processes, clresample "
      "taps=%u (x %u phases), best of %d, rows alternating\n", OVS_TAPS,
      OVS_OUT / OVS_IN, b->runs);
  if (!gst_launch) {
    printf ("   skipped: no gst-launch-1.0 on PATH\n\n");
    return;
  }
  env_fft = g_environ_setenv (g_get_environ (), "CLRESAMPLE_FFT", "1", TRUE);
  env_direct = g_environ_setenv (g_get_environ (), "CLRESAMPLE_FFT", "0",
      TRUE);
  argv = pipe_argv (b, gst_launch, 1024, 1, FALSE);
  line = g_strjoinv (" ", argv + 1);
  printf ("   gst-launch-1.0 %s\n   (B = samplesperbuffer, N = num-buffers; "
      "env CLRESAMPLE_FFT=1 or 0; GST_PLUGIN_PATH=%s)\n", line,
      g_environ_getenv (env_fft, "GST_PLUGIN_PATH") ?
      g_environ_getenv (env_fft, "GST_PLUGIN_PATH") : "(unset)");
  printf ("   x real: audio / wall; cpu: the child's user + system seconds; "
      "RSS: its peak\n");
  g_free (line);
  g_strfreev (argv);

  /* a warm-up, untimed: the registry after a GST_PLUGIN_PATH change, and
   * the OpenCL runtime's on-disk kernel caches, each format and path */
  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    struct rusage ru;
    gchar *err = NULL;
    double wall;

    if (i == 1 || i >= 4)       /* the same kernels as rows 0 and 3 */
      continue;
    argv = pipe_argv (b, gst_launch, 1024, 1, rows[i].f64);
    if (!spawn_timed (argv, rows[i].fft ? env_fft : env_direct, &wall, &ru,
            &err)) {
      printf ("   warm-up of %s failed: %s\n", rows[i].name, err);
      g_free (err);
    }
    g_strfreev (argv);
  }
  printf ("   net x: audio / (wall - the one-buffer row's wall): the rate past "
      "start-up,\n   what a stream longer than this one approaches\n");
  printf ("%-19s %6s %5s | %8s %8s %8s %8s %8s %8s\n", "row", "B", "N",
      "audio s", "wall s", "x real", "net x", "cpu s", "RSS MB");
  fflush (stdout);

  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    PipeRow *p = &rows[i];
    p->n_buffers = MAX ((guint) ceil (p->seconds * OVS_IN / p->buffer), 1);
    p->audio_s = (double) p->n_buffers * p->buffer / OVS_IN;
    p->best_wall = G_MAXDOUBLE;
  }
  for (run = 0; run < b->runs; run++)
    for (i = 0; i < G_N_ELEMENTS (rows); i++) {
      PipeRow *p = &rows[i];
      struct rusage ru;
      double wall;
      gchar *err = NULL;

      if (p->error)
        continue;
      argv = pipe_argv (b, gst_launch, p->buffer, p->n_buffers, p->f64);
      if (spawn_timed (argv, p->fft ? env_fft : env_direct, &wall, &ru,
              &err)) {
        if (wall < p->best_wall) {
          p->best_wall = wall;
          p->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
              ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
        }
        /* ru_maxrss: kilobytes on Linux */
        p->rss_mb = MAX (p->rss_mb, ru.ru_maxrss / 1024.0);
        p->ok++;
      } else {
        p->error = err;
      }
      g_strfreev (argv);
      fprintf (stderr, "  pipeline %s run %d: %s\n", p->name, run + 1,
          p->error ? "failed" : "done");
    }
  start_wall = rows[G_N_ELEMENTS (rows) - 1].ok ?
      rows[G_N_ELEMENTS (rows) - 1].best_wall : 0;
  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    PipeRow *p = &rows[i];
    double net;

    if (p->error || !p->ok) {
      printf ("%-19s %6u %5u | failed: %s\n", p->name, p->buffer,
          p->n_buffers, p->error ? p->error : "?");
      continue;
    }
    net = p->best_wall > start_wall && p->n_buffers > 1 ?
        p->audio_s / (p->best_wall - start_wall) : NAN;
    printf ("%-19s %6u %5u | %8.2f %8.2f %8.2f %8.2f %8.2f %8.1f\n", p->name,
        p->buffer, p->n_buffers, p->audio_s, p->best_wall,
        p->audio_s / p->best_wall, net, p->cpu_s, p->rss_mb);
    if (!isnan (net))
      csv_value (b, "pipelines", p->name, "net_x", net);
    csv_value (b, "pipelines", p->name, "audio_s", p->audio_s);
    csv_value (b, "pipelines", p->name, "wall_s", p->best_wall);
    csv_value (b, "pipelines", p->name, "x_real", p->audio_s / p->best_wall);
    csv_value (b, "pipelines", p->name, "cpu_s", p->cpu_s);
    csv_value (b, "pipelines", p->name, "rss_mb", p->rss_mb);
  }
  printf ("\n");
  fflush (stdout);
  for (i = 0; i < G_N_ELEMENTS (rows); i++)
    g_free (rows[i].error);
  g_strfreev (env_fft);
  g_strfreev (env_direct);
  g_free (gst_launch);
}

/* ---- dump ---- */

static gboolean
write_f64 (const gchar * dir, const gchar * name, const double *v, size_t n)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *err = NULL;
  gboolean ok = g_file_set_contents (path, (const gchar *) v,
      (gssize) (n * sizeof (double)), &err);

  if (!ok) {
    fprintf (stderr, "%s\n", err->message);
    g_error_free (err);
  }
  g_free (path);
  return ok;
}

/* The whole input through a fresh FFT-path engine in calls of CALL frames,
 * then the drain; y gets every output frame as double. Returns the
 * seconds of process + drain (set-up excluded), negative on failure. */
static double
dump_run (Bench * b, const Ratio * r, uint32_t taps, ClrFormat format,
    const double *x, size_t frames, double *y, size_t out_total,
    ClrFilter * filter, uint32_t * latency)
{
  const gboolean f64 = format == CLR_FORMAT_F64;
  const size_t ss = clr_format_size (format);
  char *in = g_malloc (frames * CHANNELS * ss);
  char *out = g_malloc ((out_total + 1) * CHANNELS * ss);
  GError *err = NULL;
  double setup, t0, secs = -1.0;
  size_t i, pos, got = 0, n;
  ClrEngine *e = new_engine (b, r, taps, format, TRUE, &setup, &err);

  if (!e)
    goto done;
  *filter = *clr_engine_get_filter (e);
  *latency = clr_engine_get_latency (e);
  for (i = 0; i < frames * CHANNELS; i++) {
    if (f64)
      ((double *) in)[i] = x[i];
    else
      ((float *) in)[i] = (float) x[i];
  }
  t0 = now_s ();
  for (pos = 0; pos < frames; pos += CALL) {
    const size_t len = MIN (CALL, frames - pos);
    const void *ip[1] = { in + pos * CHANNELS * ss };
    void *op[1] = { out + got * CHANNELS * ss };

    if (got + clr_engine_out_frames (e, len) > out_total + 1
        || !clr_engine_process (e, ip, len, op, &n, &err))
      goto done;
    got += n;
  }
  {
    void *op[1] = { out + got * CHANNELS * ss };
    if (got + clr_engine_drain_frames (e) > out_total + 1
        || !clr_engine_drain (e, op, &n, &err))
      goto done;
    got += n;
  }
  secs = now_s () - t0;
  if (got != out_total) {
    fprintf (stderr, "dump: %zu output frames for %zu\n", got, out_total);
    secs = -1.0;
    goto done;
  }
  for (i = 0; i < out_total * CHANNELS; i++)
    y[i] = f64 ? ((double *) out)[i] : ((float *) out)[i];

done:
  if (err) {
    fprintf (stderr, "dump %s: %s\n", f64 ? "F64" : "F32", err->message);
    g_error_free (err);
  }
  if (e)
    clr_engine_free (e);
  g_free (in);
  g_free (out);
  return secs;
}

static int
dump_case (Bench * b)
{
  const Ratio r = { OVS_IN, OVS_OUT };
  const uint32_t taps = b->taps_given ? (uint32_t) b->taps[0] : OVS_TAPS;
  const size_t frames = (size_t) (DUMP_SECONDS * OVS_IN);
  const gboolean fp64 = clr_device_has_fp64 (b->dev);
  ClrRatio ratio;
  ClrFilter filter;
  size_t out_total, i, n_proto;
  uint64_t I, c;
  double *x, *y, *g, secs[2] = { NAN, NAN };
  uint32_t latency = 0;
  guint64 state = 7;
  gint f, run;
  GString *meta;
  gchar *path;

  if (g_mkdir_with_parents (b->dump, 0755) != 0) {
    fprintf (stderr, "%s: %s\n", b->dump, g_strerror (errno));
    return 1;
  }
  clr_ratio_init (&ratio, r.in_rate, r.out_rate);
  I = ratio.I;
  out_total = clr_ratio_out_total (&ratio, frames);
  /* noise that float holds exactly: F32 and F64 runs see the same x */
  x = g_new (double, frames * CHANNELS);
  for (i = 0; i < frames * CHANNELS; i++)
    x[i] = (float) (0.5 * next_uniform (&state));
  y = g_new (double, out_total * CHANNELS);
  if (!write_f64 (b->dump, "input.f64", x, frames * CHANNELS))
    return 1;
  printf ("== dump: %u -> %u, %u taps per phase, stereo, %.1f s of noise, "
      "FFT path, calls of %u frames, into %s\n", r.in_rate, r.out_rate,
      taps, DUMP_SECONDS, CALL, b->dump);
  for (f = 0; f < 2; f++) {
    const ClrFormat format = f ? CLR_FORMAT_F64 : CLR_FORMAT_F32;

    if (f && !fp64) {
      printf ("   F64: skipped, the device has no fp64\n");
      continue;
    }
    /* the first run also meets the runtime's first launches: best of
     * two at least */
    for (run = 0; run < MAX (b->runs, 2); run++) {
      double s = dump_run (b, &r, taps, format, x, frames, y, out_total,
          &filter, &latency);
      if (s < 0)
        return 1;
      secs[f] = isnan (secs[f]) ? s : MIN (secs[f], s);
    }
    if (!write_f64 (b->dump, f ? "out-f64.f64" : "out-f32.f64", y,
            out_total * CHANNELS))
      return 1;
    printf ("   %s: %.3f s process + drain, %.1fx real time\n", f ? "F64" :
        "F32", secs[f], DUMP_SECONDS / secs[f]);
    csv_value (b, "dump", f ? "F64" : "F32", "seconds", secs[f]);
  }

  /* the full-rate prototype: g[n] = h ((n - c) / I), n = 0 .. K I, so
   * that y[m] = sum_j x[j] h (m / I - j) = (u * g)[m + c] for the zero-
   * stuffed u[j I] = x[j] */
  c = (uint64_t) filter.taps * I / 2;
  n_proto = (size_t) filter.taps * I + 1;
  g = g_new (double, n_proto);
  for (i = 0; i < n_proto; i++)
    g[i] = clr_filter_eval (&filter, ((double) i - (double) c) / (double) I);
  if (!write_f64 (b->dump, "proto.f64", g, n_proto))
    return 1;

  meta = g_string_new ("{\n");
  g_string_append_printf (meta, "  \"in_rate\": %u,\n  \"out_rate\": %u,\n"
      "  \"I\": %" G_GUINT64_FORMAT ",\n  \"D\": %" G_GUINT64_FORMAT ",\n"
      "  \"K\": %u,\n  \"c\": %" G_GUINT64_FORMAT ",\n"
      "  \"frames\": %zu,\n  \"out_frames\": %zu,\n  \"channels\": %u,\n"
      "  \"call_frames\": %u,\n  \"fft_latency\": %u,\n"
      "  \"device\": \"%s\",\n", r.in_rate, r.out_rate, ratio.I, ratio.D,
      filter.taps, c, frames, out_total, CHANNELS, CALL, latency,
      clr_device_get_name (b->dev));
  g_string_append_printf (meta, "  \"input\": \"input.f64\",\n"
      "  \"proto\": \"proto.f64\",\n  \"proto_len\": %zu,\n"
      "  \"out_f32\": \"out-f32.f64\",\n  \"out_f64\": %s,\n",
      n_proto, fp64 ? "\"out-f64.f64\"" : "null");
  g_string_append_printf (meta, "  \"seconds_f32\": %.6f,\n", secs[0]);
  if (fp64)
    g_string_append_printf (meta, "  \"seconds_f64\": %.6f\n}\n", secs[1]);
  else
    g_string_append (meta, "  \"seconds_f64\": null\n}\n");
  path = g_build_filename (b->dump, "meta.json", NULL);
  if (!g_file_set_contents (path, meta->str, -1, NULL)) {
    fprintf (stderr, "%s: cannot write\n", path);
    return 1;
  }
  printf ("   files: input.f64, out-f32.f64%s, proto.f64 (%zu taps at "
      "%u Hz), meta.json\n\n", fp64 ? ", out-f64.f64" : "", n_proto,
      r.out_rate);
  fflush (stdout);
  g_free (path);
  g_string_free (meta, TRUE);
  g_free (x);
  g_free (y);
  g_free (g);
  return 0;
}

int
main (int argc, char **argv)
{
  Bench b = { 0, };
  gchar *taps_text = NULL, *csv_path = NULL, *ratios_text = NULL;
  double pipeline_s = 0, direct_s = 0;
  GOptionEntry entries[] = {
    {"device", 'd', 0, G_OPTION_ARG_STRING, &b.device,
        "OpenCL device: auto, gpu, cpu, N, P:D or a name substring", "SPEC"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &b.seconds,
        "Audio seconds a crossover run at most (default 10; --quick 3)",
        "S"},
    {"runs", 'r', 0, G_OPTION_ARG_INT, &b.runs,
        "Runs a cell or pipeline row, the best counting (default 2; "
          "--quick 1)", "N"},
    {"quick", 'q', 0, G_OPTION_ARG_NONE, &b.quick,
        "Shorter runs: a quick look, not figures to quote", NULL},
    {"taps", 't', 0, G_OPTION_ARG_STRING, &taps_text,
        "Taps per phase for the crossover (default 256,512,...,16384); "
          "the first also for --dump", "N,.."},
    {"ratios", 0, 0, G_OPTION_ARG_STRING, &ratios_text,
        "Rate pairs of the crossover table (default 44100:88200,"
          "44100:176400,44100:705600,192000:48000)", "IN:OUT,.."},
    {"no-crossover", 0, 0, G_OPTION_ARG_NONE, &b.no_crossover,
        "Leave out the crossover table", NULL},
    {"no-pipelines", 0, 0, G_OPTION_ARG_NONE, &b.no_pipelines,
        "Leave out the gst-launch-1.0 rows", NULL},
    {"pipeline-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &pipeline_s,
        "Audio seconds of the FFT pipeline rows (default 60; --quick 10)",
        "S"},
    {"direct-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &direct_s,
        "Audio seconds of the direct pipeline rows (default 3; --quick 1.5)",
        "S"},
    {"dump", 0, 0, G_OPTION_ARG_FILENAME, &b.dump,
        "Write the short case's input, outputs and prototype for "
          "bench/oversample-ref.py into DIR", "DIR"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path,
        "Also write table,row,column,value lines to FILE", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- clresample's FFT path for "
      "long-filter oversampling beside its direct kernels (issue 12)");
  GError *err = NULL;
  int status = 0;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (ratios_text) {
    gchar **pairs = g_strsplit (ratios_text, ",", -1);

    for (n_ratios = 0; pairs[n_ratios] && n_ratios < RATIOS_MAX; n_ratios++)
      if (sscanf (pairs[n_ratios], "%u:%u", &ratios[n_ratios].in_rate,
              &ratios[n_ratios].out_rate) != 2) {
        fprintf (stderr, "--ratios: '%s' is no IN:OUT\n", pairs[n_ratios]);
        return 2;
      }
    g_strfreev (pairs);
    g_free (ratios_text);
  }
  if (b.seconds == 0)
    b.seconds = b.quick ? 3.0 : 10.0;
  if (b.runs == 0)
    b.runs = b.quick ? 1 : 2;
  b.cell_wall = b.quick ? 0.5 : 1.5;
  b.probe_wall = b.quick ? 0.15 : 0.3;
  b.pipeline_seconds = pipeline_s > 0 ? pipeline_s : b.quick ? 10.0 : 60.0;
  b.direct_seconds = direct_s > 0 ? direct_s : b.quick ? 1.5 : 3.0;
  for (b.n_taps = 0; b.n_taps < 7; b.n_taps++)
    b.taps[b.n_taps] = 256u << b.n_taps;
  if (taps_text) {
    b.taps_given = TRUE;
    b.n_taps = parse_list (taps_text, b.taps, TAPS_MAX_LIST, FALSE);
  }
  for (i = 0; i < b.n_taps; i++)
    if (b.taps[i] > CLR_TAPS_MAX)
      b.n_taps = 0;
  if (b.seconds < 0 || b.runs < 1 || b.n_taps == 0) {
    fprintf (stderr, "--seconds must be > 0, --runs >= 1, --taps a list of "
        "taps per phase up to %u\n", CLR_TAPS_MAX);
    return 2;
  }
  if (csv_path) {
    b.csv = fopen (csv_path, "w");
    if (!b.csv) {
      fprintf (stderr, "%s: %s\n", csv_path, g_strerror (errno));
      return 2;
    }
    fprintf (b.csv, "table,row,column,value\n");
  }
  /* the child pipelines find the plugin of this build tree without setup */
  if (!g_getenv ("GST_PLUGIN_PATH_1_0") && !g_getenv ("GST_PLUGIN_PATH")
      && CLR_BENCH_PLUGIN_DIR[0])
    g_setenv ("GST_PLUGIN_PATH", CLR_BENCH_PLUGIN_DIR, TRUE);

  b.dev = clr_device_acquire (b.device ? b.device : "auto", &err);
  if (!b.dev) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  b.noise = g_new (float, (size_t) NOISE_FRAMES * CHANNELS);
  {
    guint64 state = 1;
    for (i = 0; i < NOISE_FRAMES * CHANNELS; i++)
      b.noise[i] = (float) (0.5 * next_uniform (&state));
  }
  printf ("clr-oversample-bench: device '%s' (%s, fp64 %s), %s; load "
      "average %.2f\n\n", clr_device_get_name (b.dev),
      clr_device_is_gpu (b.dev) ? "GPU" : "CPU",
      clr_device_has_fp64 (b.dev) ? "yes" : "no", b.quick ? "quick" :
      "full", load_average ());
  fflush (stdout);

  if (!b.no_crossover) {
    /* the kernels' builds and first launches, each path, out of the
     * figures */
    Cell warm = { 0, };
    size_t calls = 0;
    one_run (&b, &ratios[0], 256, TRUE, &calls, &warm);
    calls = 0;
    one_run (&b, &ratios[0], 256, FALSE, &calls, &warm);
    crossover_table (&b);
  }
  if (!b.no_pipelines)
    pipelines_table (&b);
  if (b.dump)
    status = dump_case (&b);
  printf ("load average at the end: %.2f\n", load_average ());

  if (b.csv)
    fclose (b.csv);
  clr_device_unref (b.dev);
  g_free (b.noise);
  g_free (b.out);
  g_free (b.device);
  g_free (b.dump);
  g_free (taps_text);
  g_free (csv_path);
  return status;
}
