/* clr-start-bench: how long a player waits for sound (issue 46). Each run
 * is a fresh process (this program again, with --one), as a player or a
 * gst-launch-1.0 is: the time from set_state (PLAYING) to the first buffer
 * at the sink, then, with the sink synced to the clock and the pipeline
 * playing in real time, a flushing seek's time from gst_element_seek () to
 * the first buffer of the new position. Cases take turns within each
 * round, so that a noisy machine spreads its noise over all of them.
 *
 * usage: clr-start-bench [--rounds R] [--cases NAME,NAME,..] [--no-seek]
 *            [--device SPEC] [--built-ahead MS] [--cold-designs]
 *
 * --built-ahead MS: the pipeline is built MS milliseconds before
 * set_state (PLAYING), as a player that builds the next track's pipeline
 * while the last one plays, or before the user presses play (the elements
 * open their device from the moment they are in a bin: clr_device_prefetch
 * ()); the default 0 plays at once, as gst-launch-1.0 does.
 *
 * The input is a 10 s 44.1 kHz stereo S16 WAV of a sine, read as a player
 * reads a file: filesrc ! wavparse ! audioconvert ! ELEMENT ! caps !
 * fakesink (the resamplers to 48 kHz, the -44101 cases to 44101 Hz, a
 * coprime ratio; the FIR elements at the file's rate).
 * Prints each round's milliseconds, then the medians. The plugin is found
 * in this build tree (or through GST_PLUGIN_PATH). The caches the elements
 * keep (PoCL's kernel cache, the plugin's own) are whatever the user's
 * are: run with CLRESAMPLE_CACHE=0, or an empty XDG_CACHE_HOME, for the
 * cold figures (the device listing and the program binaries cold too).
 *
 * --cold-designs: before each run the plugin's designed filters (its
 * cache's "bank" and "phase" entries) are deleted, and everything else is
 * kept: the device listing, the program binaries, PoCL's kernel cache.
 * Issue 46's "design cache empty" row: a user's first play of a new
 * quality, phase or rate on a machine that has played others.
 */
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clr-disk-cache.h"

typedef struct {
  const char *name;
  const char *element;          /* the element and its properties */
  int rate;                     /* the output rate, from 44.1 kHz */
  gboolean live;                /* from a live source, not the file */
} Case;

static const Case cases[] = {
  {"audioresample", "audioresample", 48000},
  {"audioresample-q10", "audioresample quality=10", 48000},
  {"clresample", "clresample", 48000},
  {"clresample-q10-linear", "clresample quality=10", 48000},
  {"clresample-q10-intermediate",
      "clresample quality=10 phase=intermediate", 48000},
  {"clresample-q10-minimum", "clresample quality=10 phase=minimum", 48000},
  {"clfirfilter-8192", "clfirfilter location=@IR@", 44100},
  {"clcrossover", "clcrossover", 44100},
  /* a coprime ratio (I = 44101): tens of thousands of phases (issue 48) */
  {"audioresample-q10-44101", "audioresample quality=10", 44101},
  {"clresample-44101", "clresample", 44101},
  {"clresample-q10-44101", "clresample quality=10", 44101},
  /* a live source (a capture, an RTP receiver): 10 ms buffers paced by
   * the clock; no seek. On a GPU machine clresample starts it on the CPU
   * while the GPU opens (clr_device_acquire_interim ()). */
  {"live-audioresample", "audioresample", 48000, TRUE},
  {"live-clresample", "clresample", 48000, TRUE},
  {"live-clresample-q10", "clresample quality=10", 48000, TRUE},
};

#define N_CASES G_N_ELEMENTS (cases)
#define SEEK_AFTER_MS 300
#define SEEK_TO_S 5

typedef struct {
  GMutex lock;
  GCond cond;
  gint64 t_first;               /* monotonic us of the first buffer */
  gint64 t_seeked;              /* ... of the first after the seek */
  gboolean seeking;
} Probe;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  const gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&p->lock);
  if (!p->t_first)
    p->t_first = now;
  else if (p->seeking && !p->t_seeked)
    p->t_seeked = now;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

/* Waits until *field is set, the pipeline posts an error (printed) or the
 * deadline passes; FALSE but for the first */
static gboolean
wait_for (Probe * p, GstBus * bus, gint64 * field, gint64 deadline)
{
  gboolean ok = FALSE;

  while (g_get_monotonic_time () < deadline) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (msg) {
      GError *e = NULL;

      gst_message_parse_error (msg, &e, NULL);
      fprintf (stderr, "error: %s\n", e->message);
      g_error_free (e);
      gst_message_unref (msg);
      return FALSE;
    }
    g_mutex_lock (&p->lock);
    if (!*field)
      g_cond_wait_until (&p->cond, &p->lock, MIN (deadline,
              g_get_monotonic_time () + 20000));
    ok = *field != 0;
    g_mutex_unlock (&p->lock);
    if (ok)
      return TRUE;
  }
  return FALSE;
}

static gchar *
pipeline_text (const Case * c, const char *dir, const char *device,
    gboolean sync)
{
  gchar *ir = g_build_filename (dir, "ir.wav", NULL);
  gchar **parts = g_strsplit (c->element, "@IR@", -1);
  gchar *element = g_strjoinv (ir, parts);
  gchar *dev = device && g_str_has_prefix (c->element, "cl") ?
      g_strdup_printf (" device=%s", device) : g_strdup ("");
  gchar *src = c->live ? g_strdup ("audiotestsrc is-live=true freq=1000 "
      "samplesperbuffer=441 ! audio/x-raw,format=S16LE,rate=44100,"
      "channels=2") : g_strdup_printf ("filesrc location=%s/in.wav ! "
      "wavparse", dir);
  gchar *text = g_strdup_printf ("%s ! audioconvert ! %s%s ! "
      "audio/x-raw,rate=%d ! fakesink name=sink sync=%s", src, element, dev,
      c->rate, sync ? "true" : "false");

  g_free (src);
  g_free (dev);
  g_free (element);
  g_strfreev (parts);
  g_free (ir);
  return text;
}

/* The child: one pipeline, one start (and one seek); prints
 * "START_MS SEEK_MS" (SEEK_MS -1 when not measured). */
static int
run_one (const Case * c, const char *dir, const char *device, gboolean seek,
    gint ahead_ms)
{
  gchar *text = pipeline_text (c, dir, device, seek);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (text, &err);
  GstElement *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  Probe p = { 0 };
  gint64 t0, t_seek = 0;
  double start_ms, seek_ms = -1.0;
  int rc = 1;

  g_free (text);
  if (!pipe) {
    fprintf (stderr, "%s: %s\n", c->name, err->message);
    g_error_free (err);
    return 1;
  }
  g_mutex_init (&p.lock);
  g_cond_init (&p.cond);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &p, NULL);
  bus = gst_element_get_bus (pipe);
  if (ahead_ms > 0)
    g_usleep ((gulong) ahead_ms * 1000);

  t0 = g_get_monotonic_time ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (!wait_for (&p, bus, &p.t_first, t0 + 30 * G_USEC_PER_SEC)) {
    fprintf (stderr, "%s: no buffer in 30 s\n", c->name);
    goto done;
  }
  start_ms = (p.t_first - t0) / 1000.0;
  if (seek) {
    /* a player seeks while it plays in real time */
    g_usleep (SEEK_AFTER_MS * 1000);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      fprintf (stderr, "%s: error while playing\n", c->name);
      gst_message_unref (msg);
      goto done;
    }
    g_mutex_lock (&p.lock);
    p.seeking = TRUE;
    g_mutex_unlock (&p.lock);
    t_seek = g_get_monotonic_time ();
    if (!gst_element_seek_simple (pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
            SEEK_TO_S * GST_SECOND)) {
      fprintf (stderr, "%s: seek refused\n", c->name);
      goto done;
    }
    if (!wait_for (&p, bus, &p.t_seeked, t_seek + 30 * G_USEC_PER_SEC)) {
      fprintf (stderr, "%s: no buffer after the seek\n", c->name);
      goto done;
    }
    seek_ms = (p.t_seeked - t_seek) / 1000.0;
  }
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    fprintf (stderr, "%s: %s\n", c->name, e->message);
    g_error_free (e);
    gst_message_unref (msg);
    goto done;
  }
  printf ("%.3f %.3f\n", start_ms, seek_ms);
  rc = 0;
done:
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_cond_clear (&p.cond);
  g_mutex_clear (&p.lock);
  return rc;
}

static gboolean
make_inputs (const char *dir)
{
  const char *launch[] = {
    "audiotestsrc freq=1000 num-buffers=441 samplesperbuffer=1000 ! "
        "audio/x-raw,format=S16LE,rate=44100,channels=2 ! wavenc ! "
        "filesink location=%s/in.wav",
    /* clfirfilter's 8192-tap filter: noise, as a measured room's tail */
    "audiotestsrc wave=white-noise volume=0.01 num-buffers=1 "
        "samplesperbuffer=8192 ! audio/x-raw,format=F32LE,rate=44100,"
        "channels=1 ! wavenc ! filesink location=%s/ir.wav",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (launch); i++) {
    gchar *text = g_strdup_printf (launch[i], dir);
    GError *err = NULL;
    GstElement *pipe = gst_parse_launch (text, &err);
    GstBus *bus;
    GstMessage *msg;
    gboolean ok;

    g_free (text);
    if (!pipe) {
      fprintf (stderr, "input: %s\n", err->message);
      g_error_free (err);
      return FALSE;
    }
    bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    gst_message_unref (msg);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* the designs kept in the plugin's cache (clr-disk-cache.h), deleted;
 * FALSE where one could not be */
static gboolean
forget_designs (void)
{
  gchar *folder = clr_disk_cache_dir ();
  GDir *d = folder ? g_dir_open (folder, 0, NULL) : NULL;
  const gchar *name;
  gboolean ok = TRUE;

  while (d && (name = g_dir_read_name (d))) {
    if (g_str_has_prefix (name, "bank-") || g_str_has_prefix (name, "phase-")) {
      gchar *path = g_build_filename (folder, name, NULL);

      if (g_unlink (path) != 0)
        ok = FALSE;
      g_free (path);
    }
  }
  if (d)
    g_dir_close (d);
  g_free (folder);
  return ok;
}

/* seconds a run may take, start to exit */
#define RUN_BOUND_S 60

static int
compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* the median of the runs that gave a figure (a failed run holds NAN) */
static double
median (double *v, guint n)
{
  guint i, m = 0;

  for (i = 0; i < n; i++)
    if (!isnan (v[i]))
      v[m++] = v[i];
  if (!m)
    return NAN;
  qsort (v, m, sizeof *v, compare_doubles);
  return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

int
main (int argc, char **argv)
{
  gint rounds = 5;
  gchar *case_list = NULL, *one = NULL, *dir_opt = NULL, *device = NULL;
  gboolean no_seek = FALSE, cold_designs = FALSE;
  gint ahead_ms = 0;
  GOptionEntry entries[] = {
    {"built-ahead", 'a', 0, G_OPTION_ARG_INT, &ahead_ms,
        "build each pipeline this long before playing it (0)", "MS"},
    {"rounds", 'r', 0, G_OPTION_ARG_INT, &rounds, "rounds (5)", "R"},
    {"cases", 'c', 0, G_OPTION_ARG_STRING, &case_list,
        "cases, comma-separated (all)", "NAMES"},
    {"no-seek", 0, 0, G_OPTION_ARG_NONE, &no_seek, "start only", NULL},
    {"cold-designs", 0, 0, G_OPTION_ARG_NONE, &cold_designs,
        "delete the cached filter designs before each run", NULL},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "the elements' device property (their default)", "SPEC"},
    {"one", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &one, NULL, NULL},
    {"dir", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &dir_opt, NULL,
        NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- time to first sound");
  GError *err = NULL;
  const Case *chosen[N_CASES];
  double start[N_CASES][64], seekt[N_CASES][64];
  guint n_chosen = 0, i, r, failed = 0;
  gchar *dir;

#ifdef CLR_BENCH_PLUGIN_DIR
  /* before gst_init (): the option group initializes GStreamer */
  if (!g_getenv ("GST_PLUGIN_PATH") && !g_getenv ("GST_PLUGIN_PATH_1_0"))
    g_setenv ("GST_PLUGIN_PATH", CLR_BENCH_PLUGIN_DIR, TRUE);
#endif
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  gst_init (NULL, NULL);

  if (one) {
    /* a run that hangs (in a teardown, at exit) ends by SIGALRM and is
     * reported as failed, and the rounds go on */
    alarm (RUN_BOUND_S);
    for (i = 0; i < N_CASES; i++)
      if (g_str_equal (cases[i].name, one))
        return run_one (&cases[i], dir_opt, device, !no_seek && !cases[i].live,
            ahead_ms);
    fprintf (stderr, "no case %s\n", one);
    return 2;
  }

  if (rounds < 1 || rounds > 64) {
    fprintf (stderr, "--rounds: 1 to 64\n");
    return 2;
  }
  for (i = 0; i < N_CASES; i++) {
    gchar *needle = g_strdup_printf (",%s,", cases[i].name);
    gchar *hay = g_strdup_printf (",%s,", case_list ? case_list : "");

    if (!case_list || strstr (hay, needle))
      chosen[n_chosen++] = &cases[i];
    g_free (hay);
    g_free (needle);
  }
  if (!n_chosen) {
    fprintf (stderr, "no such case: %s\n", case_list);
    return 2;
  }
  dir = g_dir_make_tmp ("clr-start-XXXXXX", &err);
  if (!dir || !make_inputs (dir)) {
    fprintf (stderr, "could not write the inputs\n");
    return 1;
  }

  printf ("# time to the first buffer after set_state (PLAYING), and after "
      "a flushing seek (%d ms into real-time play, to %d s), ms; a fresh "
      "process a run; %d rounds; pipelines built %d ms ahead%s\n",
      SEEK_AFTER_MS, SEEK_TO_S, rounds, ahead_ms,
      cold_designs ? "; the designs' cache emptied before each run" : "");
  printf ("%-30s %5s %10s %10s\n", "case", "round", "start ms", "seek ms");
  for (r = 0; r < (guint) rounds; r++)
    for (i = 0; i < n_chosen; i++) {
      /* rotate the order a round */
      const guint k = (i + r) % n_chosen;
      gchar *out = NULL, *errs = NULL;
      gint status = 0;
      const gchar *argv_one[9] = { argv[0], "--one", chosen[k]->name,
        "--dir", dir, NULL
      };
      gchar *dev_arg = device ? g_strdup_printf ("--device=%s", device) :
          NULL;
      gchar *ahead_arg = g_strdup_printf ("--built-ahead=%d", ahead_ms);
      guint a = 5;

      argv_one[a++] = ahead_arg;
      if (no_seek)
        argv_one[a++] = "--no-seek";
      if (cold_designs && !forget_designs ()) {
        fprintf (stderr, "could not delete the cached designs\n");
        return 1;
      }
      if (dev_arg)
        argv_one[a++] = dev_arg;
      if (!g_spawn_sync (NULL, (gchar **) argv_one, NULL, 0, NULL, NULL,
              &out, &errs, &status, &err)) {
        fprintf (stderr, "%s: %s\n", chosen[k]->name, err->message);
        return 1;
      }
      /* a failed run (a crash included) is reported with how it ended and
       * its stderr, and the rounds go on: one failure must not hide what
       * the others measure, nor how often it happens */
      if (!g_spawn_check_wait_status (status, &err) ||
          sscanf (out, "%lf %lf", &start[k][r], &seekt[k][r]) != 2) {
        printf ("%-30s %5u     FAILED (%s)\n", chosen[k]->name, r,
            err ? err->message : "no figure printed");
        fprintf (stderr, "%s, round %u: %s\n", chosen[k]->name, r,
            errs && *errs ? errs : "(nothing on stderr)");
        g_clear_error (&err);
        start[k][r] = seekt[k][r] = NAN;
        failed++;
      } else {
        printf ("%-30s %5u %10.1f %10.2f\n", chosen[k]->name, r,
            start[k][r], seekt[k][r]);
      }
      fflush (stdout);
      g_free (dev_arg);
      g_free (ahead_arg);
      g_free (out);
      g_free (errs);
    }
  printf ("\n%-30s %10s %10s %10s\n", "median", "start ms", "seek ms",
      "seek range");
  for (i = 0; i < n_chosen; i++) {
    double lo = INFINITY, hi = -INFINITY;

    for (r = 0; r < (guint) rounds; r++) {
      if (isnan (seekt[i][r]))
        continue;
      lo = MIN (lo, seekt[i][r]);
      hi = MAX (hi, seekt[i][r]);
    }
    printf ("%-30s %10.1f %10.2f %4.2f-%.2f\n", chosen[i]->name,
        median (start[i], rounds), median (seekt[i], rounds), lo, hi);
  }
  {
    gchar *f;

    f = g_build_filename (dir, "in.wav", NULL);
    g_unlink (f);
    g_free (f);
    f = g_build_filename (dir, "ir.wav", NULL);
    g_unlink (f);
    g_free (f);
    g_rmdir (dir);
  }
  g_free (dir);
  if (failed)
    printf ("%u run%s failed\n", failed, failed == 1 ? "" : "s");
  return failed ? 1 : 0;
}
