/* clr-streams-bench: many independent streams in one process, as a server
 * converting audio for many clients runs them (issue 25). For each
 * workload W and stream count N, one fresh process (this program again,
 * --one W N: start-up, plugin loading and the device's kernel builds as a
 * server pays them) runs one GstPipeline of N branches
 *
 *   audiotestsrc wave=white-noise samplesperbuffer=S num-buffers=... !
 *   audio/x-raw,format=F32LE,rate=R,channels=2,layout=interleaved !
 *   ELEMENT ! fakesink sync=false
 *
 * each D seconds of audio (-s, default 30; the caps unpositioned,
 * channel-mask=0, as clr_bench_caps_string writes them), no queues: every
 * branch runs in its source's streaming thread. The workloads (-w):
 *
 *   source             no element: the ceiling (R = 44100, S = 441)
 *   clresample-q4      clresample quality=4 ! audio/x-raw,rate=48000
 *   clresample-q10     the same, quality=10
 *   clresample-q4-adjust  quality=4, each branch at a ratio of its own
 *                      (rate-adjust 1 + ((37 i) mod 1001 - 500) ppm for
 *                      branch i: the variable ratio's kernels, every
 *                      launch mixing streams of different steps; issue 48)
 *   clresample-q4-follow  quality=4, follow-drift=true: each branch's
 *                      loop sets its factor at every buffer (issue 48)
 *   clresample-q10-nohold  the same, max-hold=0 (every buffer converted as
 *                      it comes: the lowest latency a buffer)
 *   audioresample-q10  audioresample quality=10 ! audio/x-raw,rate=48000
 *   clfirfilter-256    clfirfilter block-size=256, an 8192-tap lowpass
 *                      (R = 48000, S = 256; -t sets the taps)
 *   clfirfilter-1024   block-size=1024 (S = 1024)
 *   audiofirfilter     the same taps (S = 256)
 *
 * A row: the process's wall seconds (fork to exit, taken by this parent);
 * the streaming wall (PLAYING to EOS on the bus, taken in the child);
 * stream-seconds converted per streaming second (N * D / streaming wall);
 * the slowest branch's multiple of real time (D / the time from PLAYING
 * to the last buffer at its sink); the element's own time a block over
 * all branches, p50, p99 and max in us (a buffer on its sink pad to the
 * next buffer leaving its src pad in that branch; each branch's first
 * block, which builds kernels, left out); and the process's CPU over the
 * streaming wall (the process's CPU clock in the child, PLAYING to EOS,
 * every thread, the OpenCL runtime's included), in % of one core; the
 * start (PLAYING to the moment every branch has had a buffer at its sink:
 * the device opened, every engine built, the pipeline prerolled), and the
 * rate once every stream flows (N * D / (streaming wall - start)): a
 * fresh process's start is a fixed cost (the GPU driver's own start-up
 * alone is 0.3 s on an H200 host), which a long-running server pays once;
 * and the rest of the process's wall: from fork to PLAYING, and from EOS
 * to the process's end (stopping, freeing, the drivers' own exit: 0.15 s
 * of NVIDIA's after the atexit handlers on an H200 host).
 * After the table, for each N, the ratios of total throughput
 * clresample-q4 / audioresample-q10, clresample-q10 / audioresample-q10
 * and clresample-q10 / source where those ran (with -r, each repeat's
 * and their median): once over the streaming wall, once over the whole
 * process (N * D / proc s, the issue's measure: start-up, the device's
 * opening and the teardown included). The element's pad probes and the
 * sorting of their times after EOS run in the process too; -P (no-probes)
 * leaves them out (no p50/p99/max), so that the process is what
 * gst-launch-1.0 would run. -T (timeline) prints under each row when the
 * median branch's audio passed each tenth of its length, in seconds after
 * PLAYING, and the total rate in each tenth (N * D / 10 over its wall): a
 * short run's start and ramp against its steady rate, in the same process.
 * -L (live) makes every source live (audiotestsrc is-live=true): each
 * branch is paced at real time, as a server's calls are, and nothing is
 * held back; the rows then tell what N real-time streams cost (cpu %, a
 * block's p50/p99/max with probes, over each branch's last nine tenths)
 * and whether every one kept up (slow xRT, which the start lowers).
 *
 * usage: clr-streams-bench [-n N,..] [-s SECONDS] [-w W,..] [-d DEVICE]
 *            [-r REPEAT] [-P] [-T] [-L] [-t TAPS]
 * e.g. build/bench/clr-streams-bench -s 30 -n 1,16,64 -r 3 > results.txt
 * (the command line and the date head the output). -d sets clresample's
 * and clfirfilter's `device`; -r runs the whole list of workloads REPEAT
 * times in turn, so the rows of a ratio are taken side by side. Run from
 * the build tree it finds the plugin without GST_PLUGIN_PATH.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gst/gst.h>
#include "clr-bench-util.h"
#include "clr-bench-gst.h"

#define FIR_TAPS_DEFAULT 8192
#define MAX_COUNTS 16
#define RESULT_TAG "clr-streams-result"
#define TIMELINE_TAG "clr-streams-timeline"
#define TENTHS 10

typedef struct
{
  const gchar *name;
  const gchar *element;         /* NULL: the source alone */
  gint quality;                 /* resamplers' quality; -1: none */
  gint out_rate;                /* a capsfilter after the element; 0: none */
  gint rate;
  guint frames;                 /* samplesperbuffer; clfirfilter's block */
  gboolean fir;                 /* the lowpass kernel, Options.taps long */
  gboolean no_hold;             /* clresample max-hold=0 */
  gint drift;                   /* clresample: 1 rate-adjust a branch, 2
                                 * follow-drift */
} Workload;

static const Workload workloads[] = {
  {"source", NULL, -1, 0, 44100, 441, FALSE},
  {"clresample-q4", "clresample", 4, 48000, 44100, 441, FALSE},
  {"clresample-q10", "clresample", 10, 48000, 44100, 441, FALSE},
  {"clresample-q10-nohold", "clresample", 10, 48000, 44100, 441, FALSE, TRUE},
  {"clresample-q4-adjust", "clresample", 4, 48000, 44100, 441, FALSE, FALSE,
      1},
  {"clresample-q4-follow", "clresample", 4, 48000, 44100, 441, FALSE, FALSE,
      2},
  {"audioresample-q10", "audioresample", 10, 48000, 44100, 441, FALSE},
  {"clfirfilter-256", "clfirfilter", -1, 0, 48000, 256, TRUE},
  {"clfirfilter-1024", "clfirfilter", -1, 0, 48000, 1024, TRUE},
  {"audiofirfilter", "audiofirfilter", -1, 0, 48000, 256, TRUE},
};

#define N_WORKLOADS G_N_ELEMENTS (workloads)

typedef struct
{
  double seconds;
  gchar *device;
  gboolean no_probes;           /* no probes on the element's pads */
  gboolean timeline;            /* print each row's tenths */
  gboolean live;                /* sources paced at real time */
  gint taps;                    /* the FIR workloads' kernel length */
} Options;

typedef struct
{
  gchar *error;                 /* why the row failed, or NULL */
  double proc_wall, stream_wall, slowest_s, p50, p99, max, cpu_pct;
  double start_s;               /* PLAYING to every branch flowing */
  /* PLAYING, s on CLOCK_MONOTONIC: the child's g_get_monotonic_time (),
   * the parent's now_s () */
  double play_at;
  double pre_s, post_s;         /* fork to PLAYING, EOS to the reaping */
  /* s after PLAYING when the median branch's audio passed each tenth of
   * its length (NAN where no timeline came) */
  double tenth_s[TENTHS];
  gchar *device_name;
} Result;

/* One branch's records. Only its own streaming thread writes them, so the
 * probes take no lock; a cache line each, or 64 threads writing
 * neighbouring records would slow each other down. */
typedef union
{
  struct
  {
    ClrBlockTimes blocks;
    gint64 t_first;             /* monotonic us, the first buffer at the sink */
    gint64 t_last;              /* ... and the last */
    gint64 t_tenth[TENTHS];     /* ... and the one that passed each tenth */
    guint tenths;               /* tenths passed */
  } r;
  guint8 line[192];
} Branch;

/* A tenth of a branch's audio (every branch is as long), set before the
 * pipeline starts. */
static GstClockTime tenth_ns;

static const Workload *
find_workload (const gchar * name)
{
  guint i;

  for (i = 0; i < N_WORKLOADS; i++)
    if (g_str_equal (workloads[i].name, name))
      return &workloads[i];
  return NULL;
}

/* A Blackman-windowed sinc lowpass at 20 kHz, unity gain: the cost does
 * not depend on the taps' values, but noise through it stays at its level,
 * with no denormals to slow the CPU paths down. */
static double *
make_lowpass (size_t taps, double rate)
{
  const double fc = 20000.0 / rate, mid = (taps - 1) / 2.0;
  double *h = g_new (double, taps);
  size_t k;

  for (k = 0; k < taps; k++) {
    const double x = k - mid, a = 2.0 * G_PI * k / (taps - 1);
    const double sinc = x == 0.0 ? 2.0 * fc :
        sin (2.0 * G_PI * fc * x) / (G_PI * x);

    h[k] = sinc * (0.42 - 0.5 * cos (a) + 0.08 * cos (2.0 * a));
  }
  return h;
}

static GstPadProbeReturn
sink_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Branch *b = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstClockTime end = GST_BUFFER_PTS (buf);

  b->r.t_last = g_get_monotonic_time ();
  if (G_UNLIKELY (b->r.t_first == 0))
    b->r.t_first = b->r.t_last;
  if (GST_CLOCK_TIME_IS_VALID (end) && GST_BUFFER_DURATION_IS_VALID (buf)) {
    end += GST_BUFFER_DURATION (buf);
    /* a millisecond short still counts: the last tenth ends where the
     * audio does, whatever the output rate rounds it to */
    while (b->r.tenths < TENTHS
        && end + GST_MSECOND >= (b->r.tenths + 1) * tenth_ns)
      b->r.t_tenth[b->r.tenths++] = b->r.t_last;
  }
  return GST_PAD_PROBE_OK;
}

static GstElement *
make_capsfilter (const gchar * caps_str)
{
  GstElement *el = gst_element_factory_make ("capsfilter", NULL);
  GstCaps *caps = gst_caps_from_string (caps_str);

  if (el)
    g_object_set (el, "caps", caps, NULL);
  gst_caps_unref (caps);
  return el;
}

/* One branch into pipe; its element in *element (NULL for the source
 * workload). FALSE with *error set when an element is missing. */
static gboolean
add_branch (GstBin * pipe, const Options * o, const Workload * w,
    GValueArray * kernel, gint n_buffers, guint index, Branch * b,
    GstElement ** element, gchar ** error)
{
  GstElement *chain[5] = { NULL };
  gchar *caps_str = clr_bench_caps_string (FALSE, w->rate, 2);
  guint n = 0, i;
  GstPad *pad;

  chain[n++] = gst_element_factory_make ("audiotestsrc", NULL);
  chain[n++] = make_capsfilter (caps_str);
  g_free (caps_str);
  *element = NULL;
  if (w->element) {
    *element = chain[n++] = gst_element_factory_make (w->element, NULL);
    if (w->out_rate) {
      caps_str = g_strdup_printf ("audio/x-raw,rate=%d", w->out_rate);
      chain[n++] = make_capsfilter (caps_str);
      g_free (caps_str);
    }
  }
  chain[n++] = gst_element_factory_make ("fakesink", NULL);
  for (i = 0; i < n; i++)
    if (!chain[i]) {
      *error = g_strdup_printf ("missing element (%s?)", w->element ?
          w->element : "audiotestsrc");
      for (i = 0; i < n; i++)
        if (chain[i])
          gst_object_unref (gst_object_ref_sink (chain[i]));
      return FALSE;
    }

  gst_util_set_object_arg (G_OBJECT (chain[0]), "wave", "white-noise");
  g_object_set (chain[0], "samplesperbuffer", (gint) w->frames,
      "num-buffers", n_buffers, "is-live", o->live, NULL);
  g_object_set (chain[n - 1], "sync", FALSE, NULL);
  if (w->quality >= 0)
    g_object_set (*element, "quality", w->quality, NULL);
  if (w->no_hold)
    g_object_set (*element, "max-hold", (guint64) 0, NULL);
  if (w->drift == 1)
    g_object_set (*element, "rate-adjust", 1.0 + ((37 * (gint) index) % 1001
            - 500) * 1e-6, NULL);
  else if (w->drift == 2)
    g_object_set (*element, "follow-drift", TRUE, NULL);
  if (kernel)
    g_object_set (*element, "kernel", kernel, NULL);
  if (w->element && g_str_equal (w->element, "clfirfilter"))
    g_object_set (*element, "block-size", w->frames, NULL);
  if (o->device && w->element && g_str_has_prefix (w->element, "cl"))
    g_object_set (*element, "device", o->device, NULL);

  for (i = 0; i < n; i++)
    gst_bin_add (pipe, chain[i]);
  for (i = 0; i + 1 < n; i++)
    if (!gst_element_link (chain[i], chain[i + 1])) {
      *error = g_strdup_printf ("could not link %s to %s",
          GST_OBJECT_NAME (chain[i]), GST_OBJECT_NAME (chain[i + 1]));
      return FALSE;
    }

  if (*element && !o->no_probes) {
    clr_block_times_attach (&b->r.blocks, *element);
    /* room for every block before the run, so that the probes never
     * reallocate: at most one time an input buffer */
    g_array_unref (b->r.blocks.us);
    b->r.blocks.us = g_array_sized_new (FALSE, FALSE, sizeof (double),
        n_buffers);
  }
  pad = gst_element_get_static_pad (chain[n - 1], "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, sink_buffer, b, NULL);
  gst_object_unref (pad);
  return TRUE;
}

/* The element's times a block over all branches, each branch's first
 * (kernel builds, first allocations) left out as clr_block_times_finish
 * leaves it out; with live sources each branch's first tenth: a live
 * source that starts late (the device opening, hundreds of branches
 * prerolling) pushes what it owes the clock at once, and those blocks
 * wait behind each other, which is not the steady load's latency. NAN
 * without blocks. */
static void
pooled_block_times (const Options * o, Branch * b, guint n, double *p50,
    double *p99, double *max)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (double));
  guint i;

  for (i = 0; i < n; i++) {
    const guint len = b[i].r.blocks.us ? b[i].r.blocks.us->len : 0;
    const guint skip = o->live ? MAX (1, len / TENTHS) : 1;

    if (len > skip)
      g_array_append_vals (all, (double *) b[i].r.blocks.us->data + skip,
          len - skip);
  }
  *p50 = *p99 = *max = NAN;
  if (all->len) {
    double *v = (double *) all->data;

    qsort (v, all->len, sizeof (double), cmp_double);
    *p50 = percentile (v, all->len, 0.5);
    *p99 = percentile (v, all->len, 0.99);
    *max = v[all->len - 1];
  }
  g_array_unref (all);
}

/* One TIMELINE_TAG line: for each tenth, the median over the branches
 * that passed it of when they did, s after PLAYING. */
static void
print_timeline (Branch * b, guint n, gint64 t_play)
{
  double *t = g_new (double, n);
  guint k, i, m;

  printf (TIMELINE_TAG);
  for (k = 0; k < TENTHS; k++) {
    for (i = m = 0; i < n; i++)
      if (b[i].r.tenths > k)
        t[m++] = (b[i].r.t_tenth[k] - t_play) * 1e-6;
    qsort (t, m, sizeof (double), cmp_double);
    printf (" %.4f", m ? percentile (t, m, 0.5) : NAN);
  }
  printf ("\n");
  g_free (t);
}

/* The child: one pipeline of n branches to EOS, a TIMELINE_TAG and a
 * RESULT_TAG line on stdout; exit status 0 when it reached EOS. */
static int
run_one (const Options * o, const Workload * w, guint n)
{
  const gint n_buffers = (gint) ceil (o->seconds * w->rate / w->frames);
  const GstClockTime timeout = (GstClockTime) ((10.0 * o->seconds + 60.0) *
      GST_SECOND);
  GstElement *pipe = gst_pipeline_new (NULL), *first = NULL;
  double *h = w->fir ? make_lowpass (o->taps, w->rate) : NULL;
  GValueArray *kernel = h ? clr_bench_kernel_array (h, o->taps) : NULL;
  double cpu0, stream_wall = NAN, cpu_pct = NAN, slowest_s = NAN;
  double start_s = NAN;
  double p50, p99, max;
  gchar *error = NULL, *device_name = NULL;
  GstMessage *msg = NULL;
  Branch *b = NULL;
  gint64 t_play = 0, t_end;
  int status;
  guint i;

  if (posix_memalign ((void **) &b, 64, n * sizeof (Branch)))
    g_error ("out of memory for %u branches", n);
  memset (b, 0, n * sizeof (Branch));
  tenth_ns = (GstClockTime) (o->seconds * GST_SECOND / TENTHS);
  for (i = 0; i < n && !error; i++) {
    GstElement *el;

    if (add_branch (GST_BIN (pipe), o, w, kernel, n_buffers, i, &b[i], &el,
            &error) && !first)
      first = el;
  }
  g_free (h);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  if (kernel)
    g_value_array_free (kernel);
  G_GNUC_END_IGNORE_DEPRECATIONS;

  if (!error) {
    cpu0 = clr_bench_cpu_seconds ();
    t_play = g_get_monotonic_time ();
    if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE)
      error = g_strdup ("could not start the pipeline");
    /* a failed start posts its error too: a few seconds to collect it */
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
        error ? 5 * GST_SECOND : timeout,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    t_end = g_get_monotonic_time ();
    stream_wall = (t_end - t_play) * 1e-6;
    cpu_pct = 100.0 * (clr_bench_cpu_seconds () - cpu0) / stream_wall;
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_free (error);
      error = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (msg->src),
          err->message);
      g_error_free (err);
    } else if (!msg && !error)
      error = g_strdup_printf ("no EOS after %.1f s", stream_wall);
    if (first && g_str_has_prefix (w->element, "cl"))
      g_object_get (first, "device-name", &device_name, NULL);
  }
  if (msg)
    gst_message_unref (msg);
  /* the streaming threads are joined here: only then are the records of a
   * failed run safe to read */
  gst_element_set_state (pipe, GST_STATE_NULL);

  if (!error) {
    gint64 last = 0, flowing = 0;
    gboolean all_flowed = TRUE;

    for (i = 0; i < n; i++) {
      last = MAX (last, b[i].r.t_last);
      flowing = MAX (flowing, b[i].r.t_first);
      all_flowed = all_flowed && b[i].r.t_first != 0;
    }
    slowest_s = (last - t_play) * 1e-6;
    /* a branch that never had a buffer at its sink: no moment when all
     * streams flowed */
    if (all_flowed)
      start_s = (flowing - t_play) * 1e-6;
    pooled_block_times (o, b, n, &p50, &p99, &max);
    print_timeline (b, n, t_play);
    printf (RESULT_TAG " ok %.6f %.6f %.3f %.3f %.3f %.2f %.6f %.6f %s\n",
        stream_wall, slowest_s, p50, p99, max, cpu_pct, start_s,
        t_play * 1e-6,
        device_name ? device_name : "-");
  } else {
    g_strdelimit (error, "\r\n", ' ');
    printf (RESULT_TAG " failed %s\n", error);
  }
  fflush (stdout);

  for (i = 0; i < n; i++)
    if (b[i].r.blocks.us)
      g_array_unref (b[i].r.blocks.us);
  free (b);
  gst_object_unref (pipe);
  g_free (device_name);
  status = error ? 1 : 0;
  g_free (error);
  return status;
}

static void
parse_result (const gchar * out, Result * r)
{
  const gchar *line = out ? strstr (out, RESULT_TAG " ") : NULL;
  const gchar *tl = out ? strstr (out, TIMELINE_TAG " ") : NULL;
  int end = 0, k;
  gchar *p;

  for (k = 0; k < TENTHS; k++)
    r->tenth_s[k] = NAN;
  for (p = (gchar *) (tl ? tl + strlen (TIMELINE_TAG) : NULL), k = 0;
      p && k < TENTHS; k++) {
    gchar *next;
    r->tenth_s[k] = g_ascii_strtod (p, &next);
    p = next != p ? next : NULL;
  }

  if (!line) {
    r->error = g_strdup ("no result from the child");
    return;
  }
  line += strlen (RESULT_TAG " ");
  if (g_str_has_prefix (line, "failed ")) {
    r->error = g_strndup (line + 7, strcspn (line + 7, "\n"));
    return;
  }
  if (sscanf (line, "ok %lf %lf %lf %lf %lf %lf %lf %lf %n",
          &r->stream_wall, &r->slowest_s, &r->p50, &r->p99, &r->max,
          &r->cpu_pct, &r->start_s, &r->play_at, &end) != 8 || !end) {
    r->error = g_strdup ("unreadable result from the child");
    return;
  }
  r->device_name = g_strndup (line + end, strcspn (line + end, "\n"));
}

/* One measurement: `self --one W N` forked and exec'd, its stdout read
 * through a pipe; the wall from fork to its reaping. A child that outlives
 * its own EOS timeout (stuck stopping) is killed. */
static void
run_measurement (const Options * o, const gchar * self, const Workload * w,
    guint n, Result * r)
{
  const double limit = 10.0 * o->seconds + 60.0 + 60.0;
  gchar *n_str = g_strdup_printf ("%u", n);
  gchar *secs = g_strdup_printf ("%g", o->seconds);
  gchar *taps = g_strdup_printf ("%d", o->taps);
  gchar *argv[14];
  GString *out = g_string_new (NULL);
  gboolean killed = FALSE;
  int fds[2], status = 0, k = 0;
  double t0;
  pid_t pid;

  memset (r, 0, sizeof (*r));
  argv[k++] = (gchar *) self;
  argv[k++] = (gchar *) "--one";
  argv[k++] = (gchar *) w->name;
  argv[k++] = n_str;
  argv[k++] = (gchar *) "-s";
  argv[k++] = secs;
  argv[k++] = (gchar *) "-t";
  argv[k++] = taps;
  if (o->device) {
    argv[k++] = (gchar *) "-d";
    argv[k++] = o->device;
  }
  if (o->no_probes)
    argv[k++] = (gchar *) "--no-probes";
  if (o->live)
    argv[k++] = (gchar *) "--live";
  argv[k] = NULL;

  if (pipe (fds) < 0) {
    r->error = g_strdup_printf ("pipe: %s", g_strerror (errno));
    goto done;
  }
  fflush (stdout);
  fflush (stderr);
  t0 = now_s ();
  pid = fork ();
  if (pid == 0) {
    /* only async-signal-safe calls between fork and exec */
    dup2 (fds[1], STDOUT_FILENO);
    close (fds[0]);
    close (fds[1]);
    execv (self, argv);
    _exit (127);
  }
  close (fds[1]);
  if (pid < 0) {
    close (fds[0]);
    r->error = g_strdup_printf ("fork: %s", g_strerror (errno));
    goto done;
  }
  for (;;) {
    struct pollfd p = { fds[0], POLLIN, 0 };
    const double left = t0 + limit - now_s ();
    gchar buf[4096];
    ssize_t got;
    int rc;

    if (left <= 0) {
      kill (pid, SIGKILL);
      killed = TRUE;
      break;
    }
    rc = poll (&p, 1, (int) MIN (left * 1000.0 + 1.0, 60000.0));
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      continue;
    got = read (fds[0], buf, sizeof (buf));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    g_string_append_len (out, buf, got);
  }
  close (fds[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR);
  r->proc_wall = now_s () - t0;

  parse_result (out->str, r);
  /* the child's PLAYING on the same clock: what the process spent before
   * it and after EOS */
  r->pre_s = r->play_at - t0;
  r->post_s = r->proc_wall - r->pre_s - r->stream_wall;
  if (killed) {
    g_free (r->error);
    r->error = g_strdup_printf ("killed after %.0f s", limit);
  } else if (!r->error && !(WIFEXITED (status) && WEXITSTATUS (status) == 0)) {
    /* the figures are in, but the child did not exit cleanly */
    r->error = WIFSIGNALED (status) ?
        g_strdup_printf ("signal %d after its result", WTERMSIG (status)) :
        g_strdup_printf ("exit status %d after its result",
        WEXITSTATUS (status));
  } else if (r->error && WIFSIGNALED (status)) {
    g_free (r->error);
    r->error = g_strdup_printf ("signal %d", WTERMSIG (status));
  }
done:
  g_string_free (out, TRUE);
  g_free (n_str);
  g_free (secs);
  g_free (taps);
}

/* stream-seconds a second of the streaming wall, or (whole) of the
 * whole process */
static double
throughput (const Result * r, guint n, double seconds, gboolean whole)
{
  return r->error ? NAN : n * seconds / (whole ? r->proc_wall :
      r->stream_wall);
}

static void
print_row (const Workload * w, guint n, double seconds, const Result * r)
{
  printf ("%-21s %4u ", w->name, n);
  if (r->error) {
    printf ("failed: %s\n", r->error);
    return;
  }
  printf ("%8.2f %8.2f %9.2f %9.2f ", r->proc_wall, r->stream_wall,
      throughput (r, n, seconds, FALSE), seconds / r->slowest_s);
  if (w->element && !isnan (r->p50))
    printf ("%9.1f %9.1f %9.1f", r->p50, r->p99, r->max);
  else
    printf ("%9s %9s %9s", "-", "-", "-");
  printf (" %7.1f %7.2f %9.2f %6.2f %6.2f\n", r->cpu_pct, r->start_s,
      n * seconds / (r->stream_wall - r->start_s), r->pre_s, r->post_s);
}

/* -T: the row's tenths, and each tenth's total rate (the first from
 * PLAYING, so it holds the start) */
static void
print_timeline_rows (guint n, double seconds, const Result * r)
{
  guint k;

  if (r->error)
    return;
  printf ("   tenths s:");
  for (k = 0; k < TENTHS; k++)
    printf (" %6.3f", r->tenth_s[k]);
  printf ("\n   strm-s/s:");
  for (k = 0; k < TENTHS; k++)
    printf (" %6.0f", n * seconds / TENTHS / (r->tenth_s[k] -
            (k ? r->tenth_s[k - 1] : 0.0)));
  printf ("\n");
}

/* For each N, a / b of total throughput in each repeat where both ran,
 * and their median. */
static void
print_ratio (Result * res, const guint * sel, guint n_sel, guint n_idx,
    guint n_counts, guint repeat, double seconds, guint count,
    gboolean whole, const gchar * a, const gchar * b)
{
  double v[64];
  guint ia = n_sel, ib = n_sel, i, r, nv = 0;

  for (i = 0; i < n_sel; i++) {
    if (g_str_equal (workloads[sel[i]].name, a))
      ia = i;
    if (g_str_equal (workloads[sel[i]].name, b))
      ib = i;
  }
  if (ia == n_sel || ib == n_sel)
    return;
  printf ("  N=%-4u %s / %s:", count, a, b);
  for (r = 0; r < repeat && nv < G_N_ELEMENTS (v); r++) {
    const Result *ra = &res[(r * n_counts + n_idx) * n_sel + ia];
    const Result *rb = &res[(r * n_counts + n_idx) * n_sel + ib];

    if (ra->error || rb->error)
      continue;
    v[nv] = throughput (ra, count, seconds, whole) / throughput (rb, count,
        seconds, whole);
    if (repeat > 1)
      printf (" %.3f", v[nv]);
    nv++;
  }
  if (!nv) {
    printf (" - (a row failed)\n");
    return;
  }
  qsort (v, nv, sizeof (double), cmp_double);
  printf ("%s %.3f\n", repeat > 1 ? ", median" : "", percentile (v, nv,
          0.5));
}

static void
print_header (int argc, char **argv, const Options * o)
{
  GDateTime *now = g_date_time_new_now_local ();
  gchar *date = g_date_time_format (now, "%Y-%m-%d %H:%M:%S %Z");
  const gchar *plugin_path = g_getenv ("GST_PLUGIN_PATH");
  int i;

  printf ("clr-streams-bench %s\n$", date);
  if (plugin_path) {
    gchar *q = g_shell_quote (plugin_path);
    printf (" GST_PLUGIN_PATH=%s", q);
    g_free (q);
  }
  for (i = 0; i < argc; i++) {
    gchar *q = g_shell_quote (argv[i]);
    /* plain words unquoted, so that the line reads as it was typed */
    printf (" %s", strpbrk (argv[i], " \t\n'\"\\$`*?[]{}()<>|&;#~") ||
        !*argv[i] ? q : argv[i]);
    g_free (q);
  }
  printf ("\n%d logical CPUs, load average %.2f at start; %g s of audio a "
      "stream; device %s; FIR workloads %d taps\n", g_get_num_processors (),
      load_average (), o->seconds,
      o->device ? o->device : "auto (the elements' default)", o->taps);
  printf ("proc s: the whole process, fork to exit; strm s: PLAYING to EOS; "
      "strm-s/s: N x %g s / strm s;\nslow xRT: the slowest branch's multiple "
      "of real time; p50/p99/max: the element's us a block, all branches;\n"
      "cpu %%: the process's CPU over strm s, %% of one core;\n"
      "start s: PLAYING to every branch's first buffer at its sink (the "
      "device opened, engines built, pipeline prerolled);\nflowing: N x %g s "
      "/ (strm s - start s), the rate once every stream flows;\npre s: fork "
      "to PLAYING (start-up, plugins, building the pipeline); post s: EOS to "
      "the process's end\n(stopping, freeing, the drivers' own exit)%s\n",
      o->seconds, o->seconds, o->no_probes ? "\nno probes on the element's "
      "pads (-P): the process as gst-launch-1.0 would run it" : "");
  if (o->live)
    printf ("live sources (-L): every branch paced at real time, so strm-s/s "
        "is N at best; cpu %% is what the streams cost;\np50/p99/max over each "
        "branch's last nine tenths (a late start's catching up left out)\n");
  printf ("%-21s %4s %8s %8s %9s %9s %9s %9s %9s %7s %7s %9s %6s %6s\n",
      "workload", "N", "proc s", "strm s", "strm-s/s", "slow xRT", "p50 us",
      "p99 us", "max us", "cpu %", "start s", "flowing", "pre s", "post s");
  g_free (date);
  g_date_time_unref (now);
}

int
main (int argc, char **argv)
{
  guint64 counts[MAX_COUNTS] = { 1, 16, 64 };
  guint n_counts = 3, sel[N_WORKLOADS], n_sel = 0, i, j, r, whole;
  gchar *counts_text = NULL, *workloads_text = NULL, *one = NULL;
  gchar *self = NULL, *device_name = NULL, **orig_argv;
  gint repeat = 1, orig_argc = argc;
  Options o = { 30.0, NULL, FALSE, FALSE, FALSE, FIR_TAPS_DEFAULT };
  GOptionEntry entries[] = {
    {"streams", 'n', 0, G_OPTION_ARG_STRING, &counts_text,
        "Stream counts, one process each (default 1,16,64)", "N,.."},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &o.seconds,
        "Seconds of audio a stream (default 30)", "S"},
    {"workloads", 'w', 0, G_OPTION_ARG_STRING, &workloads_text,
        "Workloads (default all): source, clresample-q4, clresample-q10, "
          "clresample-q10-nohold, clresample-q4-adjust, "
          "clresample-q4-follow, "
          "audioresample-q10, clfirfilter-256, clfirfilter-1024, "
          "audiofirfilter", "W,.."},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &o.device,
        "clresample's and clfirfilter's device: auto, gpu, cpu, N, P:D or a "
          "name", "SPEC"},
    {"repeat", 'r', 0, G_OPTION_ARG_INT, &repeat,
        "Runs of the whole list of workloads, in turn (default 1)", "R"},
    {"taps", 't', 0, G_OPTION_ARG_INT, &o.taps,
        "The FIR workloads' lowpass kernel length (default 8192)", "TAPS"},
    {"no-probes", 'P', 0, G_OPTION_ARG_NONE, &o.no_probes,
        "No probes on the element's pads (no p50/p99/max): the process as "
          "gst-launch-1.0 would run it, for the whole-process ratios", NULL},
    {"live", 'L', 0, G_OPTION_ARG_NONE, &o.live,
        "Live sources (is-live=true): every branch paced at real time, "
          "as a server's streams are", NULL},
    {"timeline", 'T', 0, G_OPTION_ARG_NONE, &o.timeline,
        "Under each row, when the median branch passed each tenth of its "
          "audio, and each tenth's total rate", NULL},
    {"one", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &one,
        "(internal) run one process's pipeline: --one W N", "W"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- many streams in one "
      "process");
  GError *err = NULL;
  Result *res;

  /* run from the build tree without any setup */
  if (!g_getenv ("GST_PLUGIN_PATH_1_0") && !g_getenv ("GST_PLUGIN_PATH")
      && CLR_BENCH_PLUGIN_DIR[0])
    g_setenv ("GST_PLUGIN_PATH", CLR_BENCH_PLUGIN_DIR, TRUE);
  /* the header echoes the command line as typed */
  orig_argv = g_strdupv (argv);
  /* in the parent it also brings the registry up to date, so that the
   * first row does not pay for a rescan the others skip */
  gst_init (&argc, &argv);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.seconds <= 0 || repeat < 1 || o.taps < 1 || (counts_text
          && !(n_counts = parse_list (counts_text, counts, MAX_COUNTS,
                  FALSE)))) {
    fprintf (stderr, "-s must be > 0, -r >= 1, -t >= 1, -n a list of counts "
        "> 0\n");
    return 2;
  }

  if (one) {
    const Workload *w = find_workload (one);
    guint64 n = argc == 2 ? g_ascii_strtoull (argv[1], NULL, 10) : 0;

    if (!w || n == 0) {
      printf (RESULT_TAG " failed bad --one %s %s\n", one,
          argc == 2 ? argv[1] : "(no N)");
      return 2;
    }
    return run_one (&o, w, (guint) n);
  }

  {
    gchar **names = g_strsplit (workloads_text ? workloads_text :
        "source,clresample-q4,clresample-q10,audioresample-q10,"
        "clfirfilter-256,clfirfilter-1024,audiofirfilter", ",", -1);

    for (i = 0; names[i] && n_sel < N_WORKLOADS; i++) {
      const Workload *w = find_workload (names[i]);
      if (!w) {
        fprintf (stderr, "unknown workload %s (see --help)\n", names[i]);
        return 2;
      }
      sel[n_sel++] = w - workloads;
    }
    g_strfreev (names);
  }
  self = strchr (orig_argv[0], '/') ? g_strdup (orig_argv[0]) :
      g_find_program_in_path (orig_argv[0]);
  if (!self) {
    fprintf (stderr, "cannot find %s to run it again\n", orig_argv[0]);
    return 2;
  }

  print_header (orig_argc, orig_argv, &o);
  res = g_new0 (Result, repeat * n_counts * n_sel);
  for (r = 0; r < (guint) repeat; r++)
    for (i = 0; i < n_counts; i++)
      for (j = 0; j < n_sel; j++) {
        const Workload *w = &workloads[sel[j]];
        Result *x = &res[(r * n_counts + i) * n_sel + j];

        run_measurement (&o, self, w, (guint) counts[i], x);
        print_row (w, (guint) counts[i], o.seconds, x);
        if (o.timeline)
          print_timeline_rows ((guint) counts[i], o.seconds, x);
        fflush (stdout);
        if (!device_name && x->device_name && !g_str_equal (x->device_name,
                "-"))
          device_name = g_strdup (x->device_name);
      }

  printf ("\nOpenCL device (as the elements name it): %s\n", device_name ?
      device_name : "-");
  for (whole = 0; whole < 2; whole++) {
    printf ("ratios of total throughput (%s)%s:\n", whole ?
        "whole processes, N x D / proc s" : "strm-s/s", repeat > 1 ?
        ", each repeat's" : "");
    for (i = 0; i < n_counts; i++) {
      print_ratio (res, sel, n_sel, i, n_counts, repeat, o.seconds,
          (guint) counts[i], whole, "clresample-q4", "audioresample-q10");
      print_ratio (res, sel, n_sel, i, n_counts, repeat, o.seconds,
          (guint) counts[i], whole, "clresample-q10", "audioresample-q10");
      print_ratio (res, sel, n_sel, i, n_counts, repeat, o.seconds,
          (guint) counts[i], whole, "clresample-q10", "source");
      /* drifting ratios against the fixed one (issue 48: >= 0.7) */
      print_ratio (res, sel, n_sel, i, n_counts, repeat, o.seconds,
          (guint) counts[i], whole, "clresample-q4-adjust", "clresample-q4");
      print_ratio (res, sel, n_sel, i, n_counts, repeat, o.seconds,
          (guint) counts[i], whole, "clresample-q4-follow", "clresample-q4");
    }
  }
  printf ("load average at the end: %.2f\n", load_average ());

  for (i = 0; i < repeat * n_counts * n_sel; i++) {
    g_free (res[i].error);
    g_free (res[i].device_name);
  }
  g_free (res);
  g_free (device_name);
  g_free (self);
  g_free (counts_text);
  g_free (workloads_text);
  g_free (o.device);
  g_strfreev (orig_argv);
  return 0;
}
