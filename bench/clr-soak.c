/* clr-soak: many live streams in one process for minutes, with the
 * changes a server's streams go through and OpenCL faults injected
 * (issue 47, item 5).
 *
 * Each stream is a pipeline of its own, all in one process and sharing
 * the device (its one scheduler):
 *
 *   audiotestsrc is-live=true wave=sine freq=F (a frequency a stream) !
 *   capsfilter (format, rate, channels) ! ELEMENT !
 *   capsfilter (another rate) ! fakesink sync=true
 *
 * ELEMENT is clresample (--elements resample, the default); --elements
 * mix makes every third stream a clfirfilter (a 127-tap lowpass) and
 * every third a clcrossover (two points, 511 taps), with no rate change.
 * A schedule drawn from the seed (GRand), the same in every run of that
 * seed, gives each stream an action every --interval seconds on average
 * (--actions chooses the kinds):
 *
 *   pause     PAUSED, then PLAYING again 50-500 ms later
 *   seek      a flushing seek, to the start (run_blocking_action () says
 *             why)
 *   caps      the first capsfilter's rate and channels changed while
 *             playing: the source and the element renegotiate
 *   swap      the element taken out while playing and a fresh one put in
 *             (the pad upstream of it blocked, EOS sent through the old
 *             one to drain it and dropped behind it, as GStreamer's
 *             documentation on dynamic pipelines does it)
 *
 * Pauses and seeks run on threads of their own, swaps on the stream's
 * streaming thread, so that no stream's action waits for another's. An
 * action that comes while its stream is still in the last one (a pause
 * not over, a swap not done) or has failed is skipped and counted.
 * At the end every pipeline is sent EOS, and must post EOS within
 * --eos-bound ms (5000), or have failed with the ERROR a fault explains:
 * one that does neither is a hang. Every buffer's lateness is taken on
 * the sink's pad while the sink is PLAYING: the clock's time less the
 * base time less the buffer's running time. With no queue the streaming
 * thread waits in the sink until a buffer's running time plus the
 * pipeline's latency, so the next buffer comes that latency less its own
 * duration late, plus whatever held it up on its way.
 *
 * The machine is shared (people build beside the test suite): a thread
 * of the soak that only sleeps, and /proc/stat, tell when the process was
 * held up or other processes took the CPU. Buffers due then are left out
 * of each stream's "max outside stalls", which the comparison below uses
 * for the run with faults; the plain max keeps them.
 *
 * --compare runs the same seed twice, each a child process of its own:
 * without faults, then with the fault shim (tests/fault/clr-fault-shim.c,
 * --shim or CLR_FAULT_SHIM, else the one of this build tree) preloaded to
 * fail each OpenCL call with probability --fault-rate (1e-4, seed
 * --seed). It passes when
 *
 * - in the run without faults every stream reaches EOS;
 * - in the run with faults every stream reaches EOS or posts an ERROR
 *   that names an OpenCL failure at most 250 ms after a fault of its
 *   own, in a call the error names where it names one (measured: 0.1 to
 *   1.7 ms after, 4.6 under AddressSanitizer): each fault explains one
 *   error at most, so that one fault that fails two streams leaves an
 *   error unexplained (a fault that crossed into another stream). The
 *   faults' times and calls are taken as the shim logs them
 *   (CLR_FAULT_LOG), on the faulting thread;
 * - no stream hangs, and both children exit 0 (in a build with
 *   AddressSanitizer, LeakSanitizer's report fails the child);
 * - every stream with no error in the run with faults is at most --slack
 *   ms (20) later at its latest buffer (outside stalls) than at its
 *   latest in the run without (--no-lateness-check only reports it:
 *   under a sanitizer the timing is not the element's; where stalls and
 *   others' CPU fill more than half the run with faults, it is reported
 *   and not judged).
 *
 * --faults runs the child with faults alone; with neither option the
 * soak runs once in this process (the shim may be preloaded by hand).
 * Prints the table (actions done and skipped by kind, faults, errors,
 * hangs, lateness p50 / p99 / max) and exits 1 on any failure.
 *
 * usage: clr-soak [-n STREAMS] [-s SECONDS] [--seed S] [-d SPEC]
 *            [-e resample|mix] [-a pause,seek,caps,swap] [-c|-f]
 *            [--shim PATH] [--fault-rate P] [-i S] [--slack MS]
 *            [--eos-bound MS] [-b MS] [--no-lateness-check]
 * e.g. build/bench/clr-soak -c -n 64 -s 600 (the soak: 64
 * streams on a 2-core CPU, 512 on a GPU). The plugin is found in this
 * build tree (or through GST_PLUGIN_PATH). CLR_SOAK_DEBUG=MS prints every
 * action, fault, stall, latency and buffer more than MS late as it comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gst/gst.h>
#include "clr-lowpass.h"

/* lateness histograms: 0.5 ms bins up to 5 s (later counts as 5 s) */
#define LATE_BIN_US 500
#define LATE_BINS 10000
/* a stream's first second: its engine built, its first batches; the
 * same in every run, and not what the soak is after */
#define WARMUP_US G_USEC_PER_SEC
/* each stream's latest buffers, kept with the time each was due */
#define TOP_LATE 128
/* the process held up: a thread that sleeps STALL_TICK_US woke this much
 * later than it asked */
#define STALL_TICK_US 2000
#define STALL_MIN_US 10000
/* other processes busy: over a window of CONTENTION_WINDOW_US, more CPU
 * than CONTENTION_SHARE of one core went to processes other than this */
#define CONTENTION_WINDOW_US 100000
#define CONTENTION_SHARE 0.3
/* the lateness is compared only where the machine was busy with others
 * (or the process held up) for at most this share of the run with
 * faults, % */
#define BUSY_PERCENT 50
/* a buffer due this long after a stall or a busy window is still late
 * for its backlog */
#define BACKLOG_US 100000
/* an action under way at the end (a pause, a seek, a swap whose pad must
 * see a buffer to block) is waited for this long at most: one that takes
 * longer is a hang of its stream (a cold start under a sanitizer builds
 * kernels for seconds) */
#define ACTION_BOUND_US (20 * G_USEC_PER_SEC)
/* an error is explained by a fault injected at most this long before it
 * (measured: 0.1-1.7 ms, 4.6 under AddressSanitizer; a loaded machine
 * may hold the stream's thread up before it posts) */
#define EXPLAIN_US (G_USEC_PER_SEC / 4)

typedef enum
{
  ACT_PAUSE,
  ACT_SEEK,
  ACT_CAPS,
  ACT_SWAP,
  N_ACTS,
  ACT_EOS = N_ACTS              /* the end, not drawn */
} ActKind;

static const gchar *const act_names[N_ACTS] = {
  "pause/resume", "flushing seek", "renegotiation", "element swap"
};

static const gchar *const act_keys[N_ACTS] = {
  "pause", "seek", "caps", "swap"
};

typedef struct
{
  gint64 at_us;                 /* from the start of the soak */
  guint stream;
  ActKind kind;
  guint arg;                    /* pause ms, or a caps choice */
} Action;

typedef struct
{
  guint n;
  gdouble seconds;
  guint seed;
  const gchar *device;
  gboolean mix;
  gdouble interval;
  gint eos_bound_ms;
  gint buffer_ms;
  guint act_mask;               /* the kinds of action drawn */
  const gchar *actions;         /* the same, as given */
} Config;

/* What one run gives, in this process or parsed from a child */
typedef struct
{
  gchar end[8];                 /* eos, error, hang */
  gdouble max_ms, steady_ms, p50_ms;
  /* the buffer of steady_ms: when it was due, s after the start, and
   * how long after the last fault before it, ms (-1: none) */
  gdouble steady_at_s, steady_after_fault_ms;
  guint64 buffers;
  gint64 error_us;              /* g_get_monotonic_time () of the ERROR */
  gboolean explained;
  gdouble after_fault_ms;       /* the error, after the last fault */
  gchar fault_call[48];         /* the call of the fault it is put to */
  gchar *error;
} StreamResult;

typedef struct
{
  guint n;
  guint done[N_ACTS], skipped[N_ACTS];
  StreamResult *s;
  gdouble p50_ms, p99_ms, max_ms, steady_ms;
  guint faults, stalls;
  gdouble stalled_ms, busy_ms;
  /* the parent's: whether the child ran to its end and exited 0 */
  gboolean child_ok;
  gchar *child_why;
} RunResult;

/* CLR_SOAK_DEBUG=MS: every action, stall and fault, and every buffer
 * more than MS late (100 where not a number), on stderr as they come */
static gint64 debug_late_us, debug_start_us;

/* ------------------------------------------------------------------ */
/* the faults, as the shim logs them */

/* The shim writes "clr-fault: failing NAME call N" to stderr on the
 * thread whose call it fails, before the call returns: stderr is a stream
 * of ours that takes the time and the call of each such line there and
 * passes every byte on to the real one */
typedef struct
{
  gint64 us;                    /* g_get_monotonic_time () */
  gchar call[48];
} Fault;

static GMutex fault_lock;
static GArray *faults;          /* Fault */

static ssize_t
stderr_write (void *cookie, const char *buf, size_t size)
{
  static const char mark[] = "clr-fault: failing ";
  size_t done = 0;

  if (size >= sizeof mark - 1 && !memcmp (buf, mark, sizeof mark - 1)) {
    Fault f = { g_get_monotonic_time () };
    const size_t len = MIN (strcspn (buf + sizeof mark - 1, " \n"),
        MIN (size - (sizeof mark - 1), sizeof f.call - 1));

    memcpy (f.call, buf + sizeof mark - 1, len);
    g_mutex_lock (&fault_lock);
    g_array_append_val (faults, f);
    g_mutex_unlock (&fault_lock);
    if (debug_late_us) {
      gchar line[64];
      gint n = g_snprintf (line, sizeof line, "clr-soak: at %.3f s: ",
          (f.us - debug_start_us) / 1e6);

      if (write (2, line, n) < 0)
        return size;
    }
  }
  while (done < size) {
    ssize_t w = write (2, buf + done, size - done);

    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    done += w;
  }
  return size;
}

static void
time_faults (void)
{
  cookie_io_functions_t io = { NULL, stderr_write, NULL, NULL };
  FILE *f = fopencookie (NULL, "w", io);

  faults = g_array_new (FALSE, FALSE, sizeof (Fault));
  if (!f)
    return;
  /* unbuffered: one write a line, at once */
  setvbuf (f, NULL, _IONBF, 0);
  stderr = f;
}

/* ------------------------------------------------------------------ */
/* one run: the streams */

typedef struct _Soak Soak;

typedef struct
{
  Soak *soak;
  guint index;
  const gchar *factory;
  GstElement *pipeline, *src, *caps_in, *element, *caps_out, *sink;
  const gchar *format;
  gint out_rate;

  /* an action under way (atomic): set where it starts, on the main
   * thread, cleared where it ends, on the thread that ends it; and since
   * when (the main thread's) */
  gint busy;
  gint64 busy_since_us;
  /* main thread: an action that never ended (a hang); the EOS sent */
  gboolean stuck;
  Action eos_action;

  /* the source's streaming thread (a seek's, the flow stopped) */
  gint src_rate, src_old_rate;
  gboolean src_rate_changed;
  gint64 src_ts_offset;

  /* under lock: the sink's streaming thread and the bus */
  GMutex lock;
  guint32 *late_hist;
  guint64 buffers, measured;
  gint64 late_max_us;
  gint64 top_late_us[TOP_LATE], top_due_us[TOP_LATE];
  guint n_top, top_floor;       /* how many; the least of them */
  gint64 first_buffer_us;
  gboolean errored, eos;
  gint64 error_us;
  gchar *error;
} Stream;

struct _Soak
{
  const Config *cfg;
  Stream *streams;
  Action *actions;
  guint n_actions, next_action;
  gint64 start_us, end_us;
  GMainLoop *loop;
  GstClock *clock;
  guint done[N_ACTS], skipped[N_ACTS];
  /* pauses and seeks, each on a thread of its own: a state change or a
   * flush waits for its stream's thread, and no other stream's action
   * may wait for it (the main loop only sets them going) */
  GThreadPool *pool;
  gint phase;                   /* playing, ending (pauses and swaps
                                 * finishing), waiting for EOS */
  gint64 eos_deadline_us;
  /* when the process was held up or the machine busy with others: pairs
   * of g_get_monotonic_time (), the last widened for the backlog */
  GMutex noise_lock;
  GArray *noise;
  guint stalls;
  gdouble stalled_ms, busy_ms;
  gint stop_watch;
};

/* the rates and channel counts streams start at and change to */
static const gint in_rates[] = { 22050, 32000, 44100, 48000, 88200, 96000 };
static const gint out_rates[] = { 44100, 48000 };
static const gint channel_counts[] = { 1, 2, 2, 2, 6 };
static const gchar *const formats[] = { "F32LE", "S16LE" };

#define N_CAPS_CHOICES (G_N_ELEMENTS (in_rates) * G_N_ELEMENTS (channel_counts))

static gint
caps_rate (guint choice)
{
  return in_rates[choice % G_N_ELEMENTS (in_rates)];
}

static gint
caps_channels (guint choice)
{
  return channel_counts[(choice / G_N_ELEMENTS (in_rates))
      % G_N_ELEMENTS (channel_counts)];
}

static GstCaps *
input_caps (Stream * s, guint choice)
{
  return gst_caps_new_simple ("audio/x-raw",
      "format", G_TYPE_STRING, s->format,
      "rate", G_TYPE_INT, caps_rate (choice),
      "channels", G_TYPE_INT, caps_channels (choice),
      "layout", G_TYPE_STRING, "interleaved", NULL);
}

static gint64
since_start_us (Soak * soak)
{
  return g_get_monotonic_time () - soak->start_us;
}

/* A fresh element of the stream's kind */
static GstElement *
make_element (Stream * s)
{
  GstElement *e = gst_element_factory_make (s->factory, NULL);

  if (!e)
    g_error ("no element %s: is the plugin built and found?", s->factory);
  if (s->soak->cfg->device)
    g_object_set (e, "device", s->soak->cfg->device, NULL);
  if (!strcmp (s->factory, "clfirfilter"))
    clr_test_set_lowpass (e, 127);
  else if (!strcmp (s->factory, "clcrossover"))
    g_object_set (e, "frequencies", "300,3000", "taps", 511, NULL);
  return e;
}

/* One of the stream's TOP_LATE latest buffers, if it is; under s->lock */
static void
keep_late (Stream * s, gint64 late_us, gint64 due_us)
{
  guint k;

  if (s->n_top < TOP_LATE)
    k = s->n_top++;
  else if (late_us > s->top_late_us[s->top_floor])
    k = s->top_floor;
  else
    return;
  s->top_late_us[k] = late_us;
  s->top_due_us[k] = due_us;
  for (k = 0; k < s->n_top; k++)
    if (s->top_late_us[k] < s->top_late_us[s->top_floor])
      s->top_floor = k;
}

/* The sink's pad: each buffer's lateness against the clock while the sink
 * plays (not a preroll after a flush, nor in a pause: the base time is
 * not the one the buffer will play against) */
static GstPadProbeReturn
on_sink_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstEvent *ev;
  const GstSegment *seg;
  GstClockTime rt, now, base;
  gint64 late_us, t = g_get_monotonic_time ();
  gboolean playing;

  GST_OBJECT_LOCK (s->sink);
  playing = GST_STATE (s->sink) == GST_STATE_PLAYING
      && GST_STATE_PENDING (s->sink) == GST_STATE_VOID_PENDING;
  GST_OBJECT_UNLOCK (s->sink);

  g_mutex_lock (&s->lock);
  s->buffers++;
  if (!s->first_buffer_us)
    s->first_buffer_us = t;
  g_mutex_unlock (&s->lock);
  if (!playing || !GST_BUFFER_PTS_IS_VALID (buf)
      || t - s->first_buffer_us < WARMUP_US)
    return GST_PAD_PROBE_OK;

  ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  if (!ev)
    return GST_PAD_PROBE_OK;
  gst_event_parse_segment (ev, &seg);
  rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  gst_event_unref (ev);
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return GST_PAD_PROBE_OK;
  now = gst_clock_get_time (s->soak->clock);
  base = gst_element_get_base_time (s->sink);
  late_us = GST_CLOCK_DIFF (base + rt, now) / 1000;
  if (debug_late_us && late_us > debug_late_us)
    g_printerr ("clr-soak: stream %u %.1f ms late at %.3f s\n", s->index,
        late_us / 1000.0, since_start_us (s->soak) / 1e6);

  g_mutex_lock (&s->lock);
  s->measured++;
  s->late_max_us = s->measured == 1 ? late_us : MAX (s->late_max_us,
      late_us);
  s->late_hist[CLAMP (late_us / LATE_BIN_US, 0, LATE_BINS - 1)]++;
  keep_late (s, late_us, t - late_us);
  g_mutex_unlock (&s->lock);
  return GST_PAD_PROBE_OK;
}

/* The source's pad. audiotestsrc stamps a buffer with its sample count
 * over the rate of the moment, so a new rate moves its clock: to 96 kHz
 * from 44.1 kHz, 3 s of samples read as 1.4 s, and the live source,
 * which waits for each buffer's timestamp, pushes 1.6 s as fast as it
 * can (a burst no live source makes); the first buffer at the new rate
 * has a duration made of the two rates. Here its timestamps go on where
 * they were: that buffer's duration from its samples, and the source's
 * timestamp-offset moved by what the new rate takes off the next one
 * (set before it is made, on this thread). A seek counts from 0 again,
 * offset 0. */
static GstPadProbeReturn
on_source_data (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
    guint64 first, end;
    GstClockTime duration;

    if (!s->src_rate_changed)
      return GST_PAD_PROBE_OK;
    s->src_rate_changed = FALSE;
    first = GST_BUFFER_OFFSET (buf);
    end = GST_BUFFER_OFFSET_END (buf);
    duration = gst_util_uint64_scale_int (end - first, GST_SECOND,
        s->src_rate);
    buf = gst_buffer_make_writable (buf);
    GST_BUFFER_DURATION (buf) = duration;
    GST_PAD_PROBE_INFO_DATA (info) = buf;
    /* this buffer began at first / old rate; the next begins at end /
     * new rate, and must begin where this one ends */
    s->src_ts_offset += (gint64) gst_util_uint64_scale_int (first,
        GST_SECOND, s->src_old_rate) + (gint64) duration -
        (gint64) gst_util_uint64_scale_int (end, GST_SECOND, s->src_rate);
    g_object_set (s->src, "timestamp-offset", s->src_ts_offset, NULL);
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);
    GstCaps *caps;
    gint rate;

    if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP) {
      s->src_ts_offset = 0;
      s->src_rate_changed = FALSE;
      g_object_set (s->src, "timestamp-offset", (gint64) 0, NULL);
    } else if (GST_EVENT_TYPE (ev) == GST_EVENT_CAPS) {
      gst_event_parse_caps (ev, &caps);
      if (gst_structure_get_int (gst_caps_get_structure (caps, 0), "rate",
              &rate)) {
        if (s->src_rate && rate != s->src_rate) {
          /* two changes before a buffer: the first rate made the last */
          if (!s->src_rate_changed)
            s->src_old_rate = s->src_rate;
          s->src_rate_changed = TRUE;
        }
        s->src_rate = rate;
      }
    }
  }
  return GST_PAD_PROBE_OK;
}

/* the pipelines' latency recalculated off the main loop: the
 * recalculation takes a pipeline's state lock, and one stream stuck under
 * it (a hang) must not stop the main loop's ticks for every other stream,
 * which would then all count as hung */
static GThreadPool *latency_pool;

static void
recalculate_latency (gpointer data, gpointer user_data)
{
  gst_bin_recalculate_latency (GST_BIN (data));
  if (debug_late_us) {
    GstQuery *q = gst_query_new_latency ();
    GstClockTime min = GST_CLOCK_TIME_NONE;

    if (gst_element_query (GST_ELEMENT (data), q))
      gst_query_parse_latency (q, NULL, &min, NULL);
    gst_query_unref (q);
    g_printerr ("clr-soak: %s latency %.1f ms at %.3f s\n",
        GST_OBJECT_NAME (data), GST_CLOCK_TIME_IS_VALID (min) ? min / 1e6 :
        -1.0, (g_get_monotonic_time () - debug_start_us) / 1e6);
  }
  gst_object_unref (data);
}

/* On the thread that posts: a stream's first ERROR and its EOS, the time
 * each came. Every message is dropped here: nobody pops these buses, and
 * over ten minutes their queues would grow. */
static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Stream *s = data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &err, &debug);
      g_mutex_lock (&s->lock);
      if (!s->errored) {
        s->errored = TRUE;
        s->error_us = g_get_monotonic_time ();
        s->error = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME
            (GST_MESSAGE_SRC (msg)), err->message, debug ? debug : "");
        g_strdelimit (s->error, "\r\n", ' ');
      }
      g_mutex_unlock (&s->lock);
      g_error_free (err);
      g_free (debug);
      break;
    }
    case GST_MESSAGE_EOS:
      g_mutex_lock (&s->lock);
      s->eos = TRUE;
      g_mutex_unlock (&s->lock);
      break;
    case GST_MESSAGE_LATENCY:
      /* as gst-launch-1.0 does: the pipeline's latency follows the
       * elements' (a swapped-in element, a new rate) */
      g_thread_pool_push (latency_pool, gst_object_ref (s->pipeline), NULL);
      break;
    default:
      break;
  }
  return GST_BUS_DROP;
}

static gboolean
stream_failed (Stream * s)
{
  gboolean failed;

  g_mutex_lock (&s->lock);
  failed = s->errored;
  g_mutex_unlock (&s->lock);
  return failed;
}

static void
stream_build (Soak * soak, Stream * s, guint index, GRand * rand)
{
  const Config *cfg = soak->cfg;
  const guint choice = g_rand_int_range (rand, 0, N_CAPS_CHOICES);
  GstCaps *caps;
  GstPad *pad;
  GstBus *bus;
  gchar name[32];

  s->soak = soak;
  s->index = index;
  s->factory = !cfg->mix || index % 3 == 0 ? "clresample"
      : index % 3 == 1 ? "clfirfilter" : "clcrossover";
  s->format = formats[g_rand_int_range (rand, 0, G_N_ELEMENTS (formats))];
  s->out_rate = out_rates[g_rand_int_range (rand, 0,
          G_N_ELEMENTS (out_rates))];
  g_mutex_init (&s->lock);
  s->late_hist = g_new0 (guint32, LATE_BINS);

  g_snprintf (name, sizeof name, "stream%u", index);
  s->pipeline = gst_pipeline_new (name);
  gst_pipeline_use_clock (GST_PIPELINE (s->pipeline), soak->clock);
  s->src = gst_element_factory_make ("audiotestsrc", NULL);
  /* a distinct frequency a stream: a mixed-up output is audible */
  g_object_set (s->src, "is-live", TRUE, "wave", 0 /* sine */ ,
      "freq", 220.0 + 7.0 * index, "volume", 0.5,
      "samplesperbuffer", caps_rate (choice) * cfg->buffer_ms / 1000, NULL);
  s->caps_in = gst_element_factory_make ("capsfilter", NULL);
  caps = input_caps (s, choice);
  g_object_set (s->caps_in, "caps", caps, NULL);
  gst_caps_unref (caps);
  s->element = make_element (s);
  s->caps_out = gst_element_factory_make ("capsfilter", NULL);
  caps = !strcmp (s->factory, "clresample") ?
      gst_caps_new_simple ("audio/x-raw", "rate", G_TYPE_INT, s->out_rate,
      NULL) : gst_caps_new_empty_simple ("audio/x-raw");
  g_object_set (s->caps_out, "caps", caps, NULL);
  gst_caps_unref (caps);
  s->sink = gst_element_factory_make ("fakesink", NULL);
  g_object_set (s->sink, "sync", TRUE, NULL);
  gst_bin_add_many (GST_BIN (s->pipeline), s->src, s->caps_in, s->element,
      s->caps_out, s->sink, NULL);
  if (!gst_element_link_many (s->src, s->caps_in, s->element, s->caps_out,
          s->sink, NULL))
    g_error ("stream %u: could not link", index);

  pad = gst_element_get_static_pad (s->src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      on_source_data, s, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (s->sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_buffer, s, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (s->pipeline);
  gst_bus_set_sync_handler (bus, on_message, s, NULL);
  gst_object_unref (bus);
}

static void
stream_free (Stream * s)
{
  gst_object_unref (s->pipeline);
  g_free (s->late_hist);
  g_free (s->error);
  g_mutex_clear (&s->lock);
}

/* ---- the swap: block, drain the old element, put a fresh one in ---- */

/* Behind the old element: its EOS (ours, sent to drain it) goes no
 * further, or the sink would end the stream */
static GstPadProbeReturn
drop_eos (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  return GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS ?
      GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

/* The source's streaming thread, held on the pad before the element
 * (which no other thread is in): the element's tail drained through EOS,
 * the element set to NULL and taken out, a fresh one put in its place
 * and set playing, all here, as GStreamer's documentation on dynamic
 * pipelines does it; the probe then goes and the buffer it held flows
 * into the fresh element, the stream's sticky events (stream-start,
 * caps, segment) before it */
static GstPadProbeReturn
on_blocked (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;
  GstElement *old = s->element, *fresh;
  GstPad *src, *sink;

  src = gst_element_get_static_pad (old, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, drop_eos,
      NULL, NULL);
  gst_object_unref (src);
  sink = gst_element_get_static_pad (old, "sink");
  gst_pad_send_event (sink, gst_event_new_eos ());
  gst_object_unref (sink);

  gst_element_set_state (old, GST_STATE_NULL);
  gst_bin_remove (GST_BIN (s->pipeline), old);
  fresh = make_element (s);
  gst_bin_add (GST_BIN (s->pipeline), fresh);
  if (!gst_element_link_many (s->caps_in, fresh, s->caps_out, NULL))
    g_error ("stream %u: could not link the fresh element", s->index);
  gst_element_sync_state_with_parent (fresh);
  s->element = fresh;
  g_atomic_int_set (&s->busy, 0);
  return GST_PAD_PROBE_REMOVE;
}

static void
swap_start (Stream * s)
{
  GstPad *pad = gst_element_get_static_pad (s->caps_in, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM, on_blocked,
      s, NULL);
  gst_object_unref (pad);
}

/* ---- the schedule ---- */

static gint
compare_actions (gconstpointer a, gconstpointer b)
{
  const Action *x = a, *y = b;

  if (x->at_us != y->at_us)
    return x->at_us < y->at_us ? -1 : 1;
  return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Every stream's actions over the soak, drawn from rand alone: the same
 * in every run of the seed, however the runs went */
static void
make_schedule (Soak * soak, GRand * rand)
{
  const Config *cfg = soak->cfg;
  const gint64 end = (gint64) (cfg->seconds * G_USEC_PER_SEC);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (Action));
  guint i;

  for (i = 0; i < cfg->n; i++) {
    gint64 t = (gint64) (g_rand_double_range (rand, 0.5, 1.5) *
        cfg->interval * G_USEC_PER_SEC);

    while (t < end - G_USEC_PER_SEC) {
      Action act = { t, i, g_rand_int_range (rand, 0, N_ACTS), 0 };

      /* every kind draws its argument whether it is chosen or not: a
       * kind left out leaves the others' schedule as it was */
      act.arg = g_rand_int_range (rand, 0, N_CAPS_CHOICES);
      if (act.kind == ACT_PAUSE)
        act.arg = 50 + act.arg * 450 / (N_CAPS_CHOICES - 1);
      if (cfg->act_mask & (1u << act.kind))
        g_array_append_val (a, act);
      /* exponential gaps, at least 0.2 s, so that actions come at any
       * moment of a stream's life and sometimes close together */
      t += (gint64) ((0.2 - log (1.0 - g_rand_double (rand)) *
              cfg->interval) * G_USEC_PER_SEC);
    }
  }
  g_array_sort (a, compare_actions);
  soak->n_actions = a->len;
  soak->actions = (Action *) g_array_free (a, FALSE);
}

/* A live pipeline's way back to PLAYING is asynchronous: after a pause
 * the sink prerolls on the first buffer in PLAYING, and a flushing seek
 * makes it lose its state and preroll again. The action ends only when
 * that has: sending EOS in between deadlocks GStreamer itself, which
 * the soak's test met once in about ten runs under load (the pipeline's
 * state lock held by the EOS on its way to the live source, which waits
 * for the streaming thread; that thread waiting in the sink's preroll
 * for PLAYING; the bin's step to PLAYING waiting for the state lock).
 * FALSE where it has not within the action's bound: the stream stays
 * busy and gets no EOS, a hang (tick ()); one that fails meanwhile frees
 * the thread at once */
static gboolean
settle (Stream * s)
{
  const gint64 until = g_get_monotonic_time () + ACTION_BOUND_US;

  while (gst_element_get_state (s->pipeline, NULL, NULL, 100 * GST_MSECOND)
      == GST_STATE_CHANGE_ASYNC) {
    if (stream_failed (s))
      return TRUE;
    if (g_get_monotonic_time () > until)
      return FALSE;
  }
  return TRUE;
}

/* On a thread of the pool: a pause, and the play after it; a seek */
static void
run_blocking_action (gpointer data, gpointer user_data)
{
  const Action *act = data;
  Soak *soak = user_data;
  Stream *s = &soak->streams[act->stream];

  if (act->kind == ACT_EOS) {
    /* on a thread of its own too: sending EOS to a live source waits for
     * its streaming thread under the pipeline's state lock */
    gst_element_send_event (s->pipeline, gst_event_new_eos ());
    return;
  }
  if (act->kind == ACT_PAUSE) {
    gst_element_set_state (s->pipeline, GST_STATE_PAUSED);
    g_usleep (act->arg * 1000);
    gst_element_set_state (s->pipeline, GST_STATE_PLAYING);
  } else {
    /* to the start: a live source seeked to P waits P on the pipeline's
     * new base time before its first buffer (basesrc waits for the
     * buffer's timestamp, not its running time), then plays P late; the
     * flush, segment and DISCONT are the same to the element */
    if (!gst_element_seek_simple (s->pipeline, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, 0))
      g_printerr ("clr-soak: stream %u: a flushing seek was refused\n",
          s->index);
  }
  if (settle (s))
    g_atomic_int_set (&s->busy, 0);
}

static void
run_action (Soak * soak, const Action * act)
{
  Stream *s = &soak->streams[act->stream];
  GstCaps *caps;

  if (stream_failed (s) || !g_atomic_int_compare_and_exchange (&s->busy, 0,
          1)) {
    soak->skipped[act->kind]++;
    return;
  }
  s->busy_since_us = g_get_monotonic_time ();
  soak->done[act->kind]++;
  if (debug_late_us)
    g_printerr ("clr-soak: stream %u %s (%u) at %.3f s\n", s->index,
        act_names[act->kind], act->arg, since_start_us (soak) / 1e6);
  switch (act->kind) {
    case ACT_PAUSE:
    case ACT_SEEK:
      g_thread_pool_push (soak->pool, (gpointer) act, NULL);
      break;
    case ACT_CAPS:
      caps = input_caps (s, act->arg);
      g_object_set (s->caps_in, "caps", caps, NULL);
      gst_caps_unref (caps);
      g_atomic_int_set (&s->busy, 0);
      break;
    case ACT_SWAP:
      swap_start (s);
      break;
    default:
      g_assert_not_reached ();
  }
}

/* ---- the main loop ---- */

/* Every 5 ms: the actions due; at the end, the actions under way let
 * finish, then EOS to every stream and the wait for them */
static gboolean
tick (gpointer data)
{
  Soak *soak = data;
  const gint64 now = since_start_us (soak);
  gboolean busy = FALSE;
  guint i;

  if (soak->phase == 0) {
    while (soak->next_action < soak->n_actions
        && soak->actions[soak->next_action].at_us <= now)
      run_action (soak, &soak->actions[soak->next_action++]);
    if (now >= soak->end_us)
      soak->phase = 1;
    return G_SOURCE_CONTINUE;
  }

  if (soak->phase == 1) {
    /* one that never ends (a swap whose pad never blocks, a state change
     * that never returns) is left as it is, and its stream gets no EOS
     * (a state change under way and EOS deadlock each other): a hang */
    for (i = 0; i < soak->cfg->n; i++) {
      Stream *s = &soak->streams[i];

      if (!g_atomic_int_get (&s->busy) || stream_failed (s))
        continue;
      if (g_get_monotonic_time () - s->busy_since_us < ACTION_BOUND_US)
        busy = TRUE;
      else
        s->stuck = TRUE;
    }
    if (busy)
      return G_SOURCE_CONTINUE;
    for (i = 0; i < soak->cfg->n; i++) {
      Stream *s = &soak->streams[i];

      if (stream_failed (s) || s->stuck)
        continue;
      s->eos_action.stream = i;
      s->eos_action.kind = ACT_EOS;
      g_thread_pool_push (soak->pool, &s->eos_action, NULL);
    }
    soak->phase = 2;
    soak->eos_deadline_us = g_get_monotonic_time () +
        (gint64) soak->cfg->eos_bound_ms * 1000;
    return G_SOURCE_CONTINUE;
  }

  for (i = 0; i < soak->cfg->n; i++) {
    Stream *s = &soak->streams[i];
    gboolean ended;

    g_mutex_lock (&s->lock);
    ended = s->eos || s->errored;
    g_mutex_unlock (&s->lock);
    if (!ended && g_get_monotonic_time () < soak->eos_deadline_us)
      return G_SOURCE_CONTINUE;
  }
  g_main_loop_quit (soak->loop);
  return G_SOURCE_REMOVE;
}

/* gdb's and timeout's paths and this process's id, for the watchdog: set
 * up before the run, since a signal handler may only fork and exec */
static gchar *watchdog_gdb, *watchdog_timeout, **watchdog_env;
static gchar watchdog_pid[24];

/* every thread's stack on stderr, by gdb (with debug symbols from Debian's
 * debuginfod where the network lets it), within 60 s */
static void
watchdog_stacks (gboolean symbols)
{
  pid_t pid = fork ();

  if (pid == 0) {
    dup2 (2, 1);
    execle (watchdog_timeout, "timeout", "60", watchdog_gdb, "-batch",
        "-nx", "-iex", symbols ? "set debuginfod enabled on" :
        "set debuginfod enabled off", "-p", watchdog_pid, "-ex",
        "thread apply all bt 30", (char *) NULL, watchdog_env);
    _exit (127);
  } else if (pid > 0) {
    waitpid (pid, NULL, 0);
  }
}

static void
on_watchdog (int sig)
{
  static const char msg[] = "clr-soak: the run did not end (a hang in "
      "a state change or a teardown)\n";
  static const char again[] = "clr-soak: the same stacks with GStreamer's "
      "debug symbols, where debuginfod gives them:\n";

  if (write (2, msg, sizeof msg - 1) < 0)
    _exit (3);
  /* where every thread waits: a hang in CI says where it is; first at
   * once, then named (GStreamer's static functions have no names without
   * its debug symbols, and fetching LLVM's may take the whole bound) */
  if (watchdog_gdb) {
    watchdog_stacks (FALSE);
    if (write (2, again, sizeof again - 1) < 0)
      _exit (3);
    watchdog_stacks (TRUE);
  }
  _exit (3);
}

/* ---- what else held the streams up ---- */

/* CPU time in clock ticks: the whole machine's busy time, and this
 * process's; FALSE where /proc cannot tell */
static gboolean
read_cpu_ticks (guint64 * machine, guint64 * self)
{
  unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
  unsigned long utime, stime;
  gchar *text = NULL, *p;
  gboolean ok = FALSE;

  if (!g_file_get_contents ("/proc/stat", &text, NULL, NULL))
    return FALSE;
  if (sscanf (text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
          &nice, &sys, &idle, &iowait, &irq, &softirq, &steal) == 8)
    *machine = user + nice + sys + irq + softirq + steal;
  else
    goto done;
  g_free (text);
  text = NULL;
  if (!g_file_get_contents ("/proc/self/stat", &text, NULL, NULL))
    goto done;
  /* after the command's name, which may hold spaces: state is field 3,
   * utime and stime fields 14 and 15 */
  if (!(p = strrchr (text, ')')) || sscanf (p + 2, "%*c %*d %*d %*d %*d "
          "%*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
    goto done;
  *self = utime + stime;
  ok = TRUE;
done:
  g_free (text);
  return ok;
}

static void
add_noise (Soak * soak, gint64 from, gint64 to)
{
  g_mutex_lock (&soak->noise_lock);
  g_array_append_val (soak->noise, from);
  g_array_append_val (soak->noise, to);
  g_mutex_unlock (&soak->noise_lock);
}

/* A thread that only sleeps: where it wakes STALL_MIN_US later than it
 * asked, the process was held up (the machine busy with others, or every
 * thread of this one running); and every CONTENTION_WINDOW_US, whether
 * other processes took more than CONTENTION_SHARE of a core. Buffers due
 * then are late for reasons of no stream's own. */
static gpointer
watch_noise (gpointer data)
{
  Soak *soak = data;
  const gdouble tick_us = 1e6 / sysconf (_SC_CLK_TCK);
  gint64 last = g_get_monotonic_time (), window = last;
  guint64 machine0 = 0, self0 = 0, machine, self;
  gboolean have_cpu = read_cpu_ticks (&machine0, &self0);

  while (!g_atomic_int_get (&soak->stop_watch)) {
    gint64 now;

    g_usleep (STALL_TICK_US);
    now = g_get_monotonic_time ();
    if (now - last > STALL_TICK_US + STALL_MIN_US) {
      /* a stall is seen as it ends: the slowdown that led to it, and
       * the backlog after it, as long again */
      add_noise (soak, last - (now - last), now + MAX (now - last,
              BACKLOG_US));
      soak->stalls++;
      soak->stalled_ms += (now - last) / 1000.0;
      if (debug_late_us)
        g_printerr ("clr-soak: held up %.1f ms at %.3f s\n",
            (now - last) / 1000.0, (now - soak->start_us) / 1e6);
    }
    last = now;
    if (have_cpu && now - window >= CONTENTION_WINDOW_US
        && read_cpu_ticks (&machine, &self)) {
      const gdouble others_us = ((gdouble) (machine - machine0) -
          (gdouble) (self - self0)) * tick_us;

      if (others_us > CONTENTION_SHARE * (now - window)) {
        add_noise (soak, window, now + BACKLOG_US);
        soak->busy_ms += (now - window) / 1000.0;
      }
      machine0 = machine;
      self0 = self;
      window = now;
    }
  }
  return NULL;
}

static gboolean
due_in_noise (GArray * noise, gint64 t)
{
  guint k;

  for (k = 0; k + 1 < noise->len; k += 2)
    if (t >= g_array_index (noise, gint64, k)
        && t <= g_array_index (noise, gint64, k + 1))
      return TRUE;
  return FALSE;
}

/* The stream's latest buffer not due while the process was held up or
 * the machine busy; where all of its TOP_LATE latest were, the least of
 * them (an upper bound) */
static gdouble
steady_max_ms (Stream * s, GArray * noise, gint64 * due_us)
{
  gint64 best = G_MININT64;
  guint k;

  *due_us = 0;
  for (k = 0; k < s->n_top; k++)
    if (!due_in_noise (noise, s->top_due_us[k])
        && s->top_late_us[k] > best) {
      best = s->top_late_us[k];
      *due_us = s->top_due_us[k];
    }
  if (best == G_MININT64 && s->n_top) {
    best = s->top_late_us[s->top_floor];
    *due_us = s->top_due_us[s->top_floor];
  }
  return MAX (best, 0) / 1000.0;
}

/* How long after the last fault before it t was, ms; -1 where none was
 * (faults in order of time) */
static gdouble
after_last_fault_ms (const GArray * faults, gint64 t)
{
  gint64 last = -1;
  guint f;

  for (f = 0; f < faults->len && g_array_index (faults, Fault, f).us <= t;
      f++)
    last = g_array_index (faults, Fault, f).us;
  return last < 0 ? -1.0 : (t - last) / 1000.0;
}

/* The q-quantile of a histogram, ms */
static gdouble
hist_quantile (const guint64 * hist, guint64 total, gdouble q)
{
  guint64 want = (guint64) (q * total), seen = 0;
  guint b;

  for (b = 0; b < LATE_BINS; b++) {
    seen += hist[b];
    if (seen > want)
      return (b + 0.5) * LATE_BIN_US / 1000.0;
  }
  return LATE_BINS * LATE_BIN_US / 1000.0;
}

/* ---- errors and the faults that explain them ---- */

/* An error that names an OpenCL failure: a status (CL_...), a call
 * (clEnqueue..., clCreate...) or OpenCL itself */
static gboolean
names_opencl (const gchar * error)
{
  const gchar *p;

  if (!error)
    return FALSE;
  if (strstr (error, "CL_") || strstr (error, "OpenCL"))
    return TRUE;
  for (p = error; (p = strstr (p, "cl")); p++)
    if (g_ascii_isupper (p[2]))
      return TRUE;
  return FALSE;
}

static gint
compare_faults (gconstpointer a, gconstpointer b)
{
  const gint64 x = ((const Fault *) a)->us, y = ((const Fault *) b)->us;

  return (x > y) - (x < y);
}

static gint
compare_errors (gconstpointer a, gconstpointer b, gpointer data)
{
  const StreamResult *s = data;
  const gint64 x = s[*(const guint *) a].error_us;
  const gint64 y = s[*(const guint *) b].error_us;

  return (x > y) - (x < y);
}

/* Whether an error could come of a fault in call: where the error names
 * OpenCL calls (the one that failed its stream's own run, a probe's),
 * call is one of them, or one of the same family (clSetKernelArg,
 * clSetKernelArgSVMPointer); where it names none, any call */
static gboolean
error_names_call (const gchar * error, const gchar * call)
{
  gboolean named = FALSE;
  const gchar *p;

  for (p = error; (p = strstr (p, "cl")); p++) {
    gsize len = 2;

    if (!g_ascii_isupper (p[2]) || (p > error && g_ascii_isalnum (p[-1])))
      continue;
    while (g_ascii_isalnum (p[len]))
      len++;
    named = TRUE;
    if (!strncmp (p, call, MIN (len, strlen (call))))
      return TRUE;
  }
  return !named;
}

/* Each error put to a fault of its own: the last one before it, at most
 * EXPLAIN_US before it (a fault surfaces in its stream within a
 * millisecond or two), in a call the error names, that no earlier error
 * took; the errors in the order they came, faults in order of time. One
 * fault that failed two streams leaves the second unexplained. */
static void
explain_errors (RunResult * r, const GArray * faults)
{
  guint *order = g_new (guint, r->n), n_err = 0, i;
  gboolean *used = g_new0 (gboolean, faults->len + 1);

  for (i = 0; i < r->n; i++)
    if (!strcmp (r->s[i].end, "error"))
      order[n_err++] = i;
  g_qsort_with_data (order, n_err, sizeof *order, compare_errors, r->s);
  for (i = 0; i < n_err; i++) {
    StreamResult *sr = &r->s[order[i]];
    gint f;

    for (f = (gint) faults->len - 1; f >= 0; f--) {
      const Fault *fault = &g_array_index (faults, Fault, f);

      if (fault->us > sr->error_us)
        continue;
      if (fault->us < sr->error_us - EXPLAIN_US)
        break;
      if (!used[f] && names_opencl (sr->error)
          && error_names_call (sr->error, fault->call)) {
        used[f] = TRUE;
        sr->explained = TRUE;
        g_strlcpy (sr->fault_call, fault->call, sizeof sr->fault_call);
        break;
      }
    }
    sr->after_fault_ms = after_last_fault_ms (faults, sr->error_us);
  }
  g_free (used);
  g_free (order);
}

/* ---- one run ---- */

static void
run_soak (const Config * cfg, RunResult * r)
{
  Soak soak = { cfg };
  GRand *rand = g_rand_new_with_seed (cfg->seed);
  guint64 *all = g_new0 (guint64, LATE_BINS), *one =
      g_new0 (guint64, LATE_BINS), total = 0;
  gint64 *due = g_new0 (gint64, cfg->n);
  GThread *watch;
  guint i, b;

  /* a hang anywhere, a state change to NULL included, ends the run, with
   * every thread's stack where gdb is installed (CLR_SOAK_STACKS=0: not) */
  if (g_strcmp0 (g_getenv ("CLR_SOAK_STACKS"), "0") != 0) {
    watchdog_gdb = g_find_program_in_path ("gdb");
    watchdog_timeout = g_find_program_in_path ("timeout");
    if (!watchdog_timeout)
      g_clear_pointer (&watchdog_gdb, g_free);
    watchdog_env = g_environ_setenv (g_get_environ (), "DEBUGINFOD_URLS",
        "https://debuginfod.debian.net", FALSE);
  }
  g_snprintf (watchdog_pid, sizeof watchdog_pid, "%d", (int) getpid ());
#ifdef PR_SET_PTRACER
  /* a kernel that lets only ancestors trace (Yama): let gdb in */
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
  signal (SIGALRM, on_watchdog);
  alarm ((guint) cfg->seconds + cfg->eos_bound_ms / 1000 + 120);

  soak.clock = gst_system_clock_obtain ();
  soak.loop = g_main_loop_new (NULL, FALSE);
  soak.streams = g_new0 (Stream, cfg->n);
  latency_pool = g_thread_pool_new (recalculate_latency, NULL, -1,
      FALSE, NULL);
  for (i = 0; i < cfg->n; i++)
    stream_build (&soak, &soak.streams[i], i, rand);
  make_schedule (&soak, rand);
  g_rand_free (rand);
  g_mutex_init (&soak.noise_lock);
  soak.noise = g_array_new (FALSE, FALSE, sizeof (gint64));

  soak.start_us = debug_start_us = g_get_monotonic_time ();
  soak.end_us = (gint64) (cfg->seconds * G_USEC_PER_SEC);
  soak.pool = g_thread_pool_new (run_blocking_action, &soak, -1, FALSE,
      NULL);
  watch = g_thread_new ("clr-soak-noise", watch_noise, &soak);
  for (i = 0; i < cfg->n; i++)
    gst_element_set_state (soak.streams[i].pipeline, GST_STATE_PLAYING);
  g_timeout_add (5, tick, &soak);
  g_main_loop_run (soak.loop);
  /* the pauses and seeks still under way (one that never ends: the
   * watchdog) */
  g_thread_pool_free (soak.pool, FALSE, TRUE);
  g_atomic_int_set (&soak.stop_watch, 1);
  g_thread_join (watch);

  memset (r, 0, sizeof *r);
  r->n = cfg->n;
  memcpy (r->done, soak.done, sizeof r->done);
  memcpy (r->skipped, soak.skipped, sizeof r->skipped);
  r->stalls = soak.stalls;
  r->stalled_ms = soak.stalled_ms;
  r->busy_ms = soak.busy_ms;
  r->s = g_new0 (StreamResult, cfg->n);
  for (i = 0; i < cfg->n; i++) {
    Stream *s = &soak.streams[i];
    StreamResult *sr = &r->s[i];
    guint64 n = 0;

    gst_element_set_state (s->pipeline, GST_STATE_NULL);
    g_mutex_lock (&s->lock);
    g_strlcpy (sr->end, s->errored ? "error" : s->eos ? "eos" : "hang",
        sizeof sr->end);
    if (s->stuck && !s->errored && !s->eos)
      s->error = g_strdup ("an action (a pause, a seek or a swap) never "
          "ended");
    for (b = 0; b < LATE_BINS; b++) {
      one[b] = s->late_hist[b];
      all[b] += one[b];
      n += one[b];
    }
    total += n;
    sr->max_ms = n ? s->late_max_us / 1000.0 : 0;
    sr->steady_ms = n ? steady_max_ms (s, soak.noise, &due[i]) : 0;
    sr->steady_at_s = due[i] ? (due[i] - soak.start_us) / 1e6 : -1.0;
    sr->p50_ms = n ? hist_quantile (one, n, 0.5) : 0;
    sr->buffers = s->buffers;
    sr->error_us = s->error_us;
    sr->error = g_strdup (s->error);
    g_mutex_unlock (&s->lock);
    r->max_ms = MAX (r->max_ms, sr->max_ms);
    r->steady_ms = MAX (r->steady_ms, sr->steady_ms);
    stream_free (s);
  }
  /* after the pipelines' last messages */
  g_thread_pool_free (latency_pool, FALSE, TRUE);
  latency_pool = NULL;
  alarm (0);
  r->p50_ms = total ? hist_quantile (all, total, 0.5) : 0;
  r->p99_ms = total ? hist_quantile (all, total, 0.99) : 0;
  g_mutex_lock (&fault_lock);
  r->faults = faults->len;
  /* appended as each thread got the lock, not quite in time order */
  g_array_sort (faults, compare_faults);
  explain_errors (r, faults);
  for (i = 0; i < cfg->n; i++)
    r->s[i].steady_after_fault_ms = due[i] ?
        after_last_fault_ms (faults, due[i]) : -1.0;
  g_mutex_unlock (&fault_lock);
  g_free (due);

  g_free (all);
  g_free (one);
  g_free (soak.streams);
  g_free (soak.actions);
  g_main_loop_unref (soak.loop);
  gst_object_unref (soak.clock);
  g_array_unref (soak.noise);
  g_mutex_clear (&soak.noise_lock);
}

/* ------------------------------------------------------------------ */
/* a child's results, as lines on its stdout */

static void
print_run (const RunResult * r)
{
  guint i, k;

  for (k = 0; k < N_ACTS; k++)
    g_print ("act %u %u %u\n", k, r->done[k], r->skipped[k]);
  g_print ("late %.3f %.3f %.3f %.3f\n", r->p50_ms, r->p99_ms, r->max_ms,
      r->steady_ms);
  g_print ("noise %u %u %.3f %.3f\n", r->faults, r->stalls, r->stalled_ms,
      r->busy_ms);
  for (i = 0; i < r->n; i++) {
    const StreamResult *sr = &r->s[i];

    g_print ("stream %u %s %.3f %.3f %.3f %.3f %.3f %" G_GUINT64_FORMAT
        " %d %.3f %s %s\n", i, sr->end, sr->max_ms, sr->steady_ms,
        sr->steady_at_s, sr->steady_after_fault_ms, sr->p50_ms, sr->buffers,
        sr->explained, sr->after_fault_ms, sr->fault_call[0] ?
        sr->fault_call : "-", sr->error ? sr->error : "-");
  }
}

static gboolean
parse_run (const gchar * out, guint n, RunResult * r)
{
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i, seen = 0;

  r->n = n;
  r->s = g_new0 (StreamResult, n);
  for (i = 0; lines[i]; i++) {
    StreamResult sr = { {0} };
    guint k, done, skipped;
    gint explained, used = 0;

    if (sscanf (lines[i], "act %u %u %u", &k, &done, &skipped) == 3
        && k < N_ACTS) {
      r->done[k] = done;
      r->skipped[k] = skipped;
    } else if (sscanf (lines[i], "late %lf %lf %lf %lf", &r->p50_ms,
            &r->p99_ms, &r->max_ms, &r->steady_ms) == 4) {
    } else if (sscanf (lines[i], "noise %u %u %lf %lf", &r->faults,
            &r->stalls, &r->stalled_ms, &r->busy_ms) == 4) {
    } else if (sscanf (lines[i], "stream %u %7s %lf %lf %lf %lf %lf %"
            G_GUINT64_FORMAT " %d %lf %47s %n", &k, sr.end, &sr.max_ms,
            &sr.steady_ms, &sr.steady_at_s, &sr.steady_after_fault_ms,
            &sr.p50_ms, &sr.buffers, &explained, &sr.after_fault_ms,
            sr.fault_call, &used) == 11 && used && k < n
        && !r->s[k].end[0]) {
      const gchar *text = lines[i] + used;

      sr.explained = explained;
      if (!strcmp (sr.fault_call, "-"))
        sr.fault_call[0] = 0;
      sr.error = strcmp (text, "-") ? g_strdup (text) : NULL;
      r->s[k] = sr;
      seen++;
    }
  }
  g_strfreev (lines);
  return seen == n;
}

static void
run_result_clear (RunResult * r)
{
  guint i;

  for (i = 0; r->s && i < r->n; i++)
    g_free (r->s[i].error);
  g_free (r->s);
  g_free (r->child_why);
}

/* ------------------------------------------------------------------ */
/* the parent: children */

/* The sanitizer runtime this process runs with, if any (AddressSanitizer's,
 * or LeakSanitizer's alone, whose leak check costs a long soak little): a
 * library preloaded before it, AddressSanitizer refuses to start, and
 * LeakSanitizer's interceptors would miss the shim's allocations */
static gchar *
asan_runtime (void)
{
  gchar *maps = NULL, **lines, *path = NULL;
  guint i;

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return NULL;
  lines = g_strsplit (maps, "\n", -1);
  for (i = 0; lines[i] && !path; i++) {
    const gchar *p = strchr (lines[i], '/');

    if (p && (strstr (p, "/libasan.so") || strstr (p, "/liblsan.so")))
      path = g_strdup (p);
  }
  g_strfreev (lines);
  g_free (maps);
  return path;
}

typedef struct
{
  gint fd;
  const gchar *label;
  GString *tail;                /* the last of stderr, for a failure */
  guint forwarded;
} ErrReader;

/* A child's stderr, as it comes: the shim's lines counted in the child,
 * not here; the rest forwarded, the first 100 lines (all of them with
 * CLR_SOAK_DEBUG), and its last 64 KB kept */
static gpointer
read_stderr (gpointer data)
{
  ErrReader *er = data;
  FILE *f = fdopen (er->fd, "r");
  gchar line[4096];

  while (fgets (line, sizeof line, f)) {
    if (g_str_has_prefix (line, "clr-fault: failing "))
      continue;
    g_string_append (er->tail, line);
    /* room for the watchdog's stacks of every thread */
    if (er->tail->len > 1 << 20)
      g_string_erase (er->tail, 0, er->tail->len - (1 << 20));
    /* all of it where CLR_SOAK_DEBUG asked for the child's every action
     * and late buffer: a stream's late buffer is traced back through its
     * actions before it */
    if (debug_late_us || er->forwarded++ < 100)
      g_printerr ("[%s] %s", er->label, line);
  }
  fclose (f);
  return NULL;
}

/* This program again, --run with the same options, the shim preloaded
 * where faults; its results into r */
static void
run_child (const Config * cfg, gboolean faults, const gchar * shim,
    gdouble fault_rate, RunResult * r)
{
  gchar **env = g_get_environ ();
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  const gchar *label = faults ? "with faults" : "without faults";
  gint out_fd, err_fd, status = 0;
  GPid pid;
  GError *err = NULL;
  ErrReader er = { 0 };
  GThread *reader;
  GString *out = g_string_new (NULL);
  gchar buf[4096];
  gssize got;

  memset (r, 0, sizeof *r);
  env = g_environ_unsetenv (env, "CLR_FAULT");
  env = g_environ_unsetenv (env, "CLR_FAULT_STATS");
  if (faults) {
    gchar *asan = asan_runtime ();
    gchar *preload = asan ? g_strdup_printf ("%s:%s", asan, shim)
        : g_strdup (shim);

    env = g_environ_setenv (env, "LD_PRELOAD", preload, TRUE);
    env = g_environ_setenv (env, "CLR_FAULT_RANDOM",
        g_ascii_dtostr (buf, sizeof buf, fault_rate), TRUE);
    g_snprintf (buf, sizeof buf, "%u", cfg->seed);
    env = g_environ_setenv (env, "CLR_FAULT_SEED", buf, TRUE);
    env = g_environ_setenv (env, "CLR_FAULT_LOG", "1", TRUE);
    g_free (preload);
    g_free (asan);
  } else {
    env = g_environ_unsetenv (env, "LD_PRELOAD");
    env = g_environ_unsetenv (env, "CLR_FAULT_RANDOM");
  }

  g_ptr_array_add (argv, g_file_read_link ("/proc/self/exe", NULL));
  g_ptr_array_add (argv, g_strdup ("--run"));
  g_ptr_array_add (argv, g_strdup_printf ("--streams=%u", cfg->n));
  g_ptr_array_add (argv, g_strdup_printf ("--seconds=%g", cfg->seconds));
  g_ptr_array_add (argv, g_strdup_printf ("--seed=%u", cfg->seed));
  g_ptr_array_add (argv, g_strdup_printf ("--interval=%g", cfg->interval));
  g_ptr_array_add (argv, g_strdup_printf ("--eos-bound=%d",
          cfg->eos_bound_ms));
  g_ptr_array_add (argv, g_strdup_printf ("--buffer-ms=%d", cfg->buffer_ms));
  g_ptr_array_add (argv, g_strdup_printf ("--elements=%s", cfg->mix ? "mix"
          : "resample"));
  g_ptr_array_add (argv, g_strdup_printf ("--actions=%s", cfg->actions));
  if (cfg->device)
    g_ptr_array_add (argv, g_strdup_printf ("--device=%s", cfg->device));
  g_ptr_array_add (argv, NULL);

  if (!g_spawn_async_with_pipes (NULL, (gchar **) argv->pdata, env,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd,
          &err_fd, &err)) {
    r->child_why = g_strdup_printf ("could not start: %s", err->message);
    g_error_free (err);
    goto done;
  }
  er.fd = err_fd;
  er.label = label;
  er.tail = g_string_new (NULL);
  reader = g_thread_new ("stderr", read_stderr, &er);
  while ((got = read (out_fd, buf, sizeof buf)) != 0) {
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      break;
    g_string_append_len (out, buf, got);
  }
  close (out_fd);
  g_thread_join (reader);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR);
  g_spawn_close_pid (pid);

  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    r->child_why = WIFEXITED (status) ?
        g_strdup_printf ("exit status %d%s", WEXITSTATUS (status),
        WEXITSTATUS (status) == 3 ? ", its watchdog: a hang" : "")
        : g_strdup_printf ("killed by signal %d", WTERMSIG (status));
  if (!parse_run (out->str, cfg->n, r) && !r->child_why)
    r->child_why = g_strdup ("its results were incomplete");
  r->child_ok = !r->child_why;
  if (!r->child_ok)
    g_printerr ("clr-soak: the run %s failed (%s); the end of its "
        "stderr:\n%s\n", label, r->child_why, er.tail->str);
  g_string_free (er.tail, TRUE);
done:
  g_string_free (out, TRUE);
  g_ptr_array_free (argv, TRUE);
  g_strfreev (env);
}

/* ------------------------------------------------------------------ */
/* the verdict */

typedef struct
{
  guint eos, errors, hangs, unexplained;
} Counts;

static Counts
count_ends (const RunResult * r)
{
  Counts c = { 0 };
  guint i;

  for (i = 0; i < r->n; i++) {
    if (!strcmp (r->s[i].end, "eos")) {
      c.eos++;
    } else if (!strcmp (r->s[i].end, "error")) {
      c.errors++;
      if (!r->s[i].explained)
        c.unexplained++;
    } else {
      c.hangs++;
    }
  }
  return c;
}

static void
print_errors (const gchar * label, const RunResult * r)
{
  guint i, printed = 0;

  for (i = 0; i < r->n && printed < 20; i++) {
    const StreamResult *sr = &r->s[i];

    if (!sr->error || strcmp (sr->end, "error"))
      continue;
    if (sr->explained)
      g_print ("  %s, stream %u, a fault in %s (the last fault %.1f ms "
          "before): %s\n", label, i, sr->fault_call, sr->after_fault_ms,
          sr->error);
    else
      g_print ("  %s, stream %u, no fault of its own explains it: %s\n",
          label, i, sr->error);
    printed++;
  }
  for (i = 0; i < r->n; i++)
    if (!strcmp (r->s[i].end, "hang"))
      g_print ("  %s, stream %u: a hang: %s\n", label, i, r->s[i].error ?
          r->s[i].error : "no EOS within the bound");
}

/* The table: a column a run; with two, each stream's lateness compared.
 * Whether everything passed. */
static gboolean
report (const Config * cfg, RunResult ** runs, const gchar ** labels,
    guint n_runs, gboolean faults_in_last, gboolean check_lateness,
    gdouble slack_ms)
{
  Counts c[2];
  gboolean ok = TRUE;
  guint k, i, later = 0, compared = 0;
  gdouble worst = -1e9, busy = 0;
  gint worst_stream = -1;

  for (i = 0; i < n_runs; i++)
    c[i] = count_ends (runs[i]);
  g_print ("\nclr-soak: %u live streams (%s), %g s, seed %u, an action "
      "every %g s a stream (%s), %d ms buffers, device %s\n", cfg->n,
      cfg->mix ? "clresample, clfirfilter, clcrossover" : "clresample",
      cfg->seconds, cfg->seed, cfg->interval, cfg->actions, cfg->buffer_ms,
      cfg->device ? cfg->device : "(the elements' default)");
  g_print ("%-40s", "");
  for (i = 0; i < n_runs; i++)
    g_print (" %18s", labels[i]);
  g_print ("\n");
  for (k = 0; k < N_ACTS; k++) {
    g_print ("%-40s", act_names[k]);
    for (i = 0; i < n_runs; i++) {
      gchar cell[40];

      g_snprintf (cell, sizeof cell, "%u (%u skipped)", runs[i]->done[k],
          runs[i]->skipped[k]);
      g_print (" %18s", cell);
    }
    g_print ("\n");
  }
#define ROW(title, fmt, expr) do { \
    g_print ("%-40s", title); \
    for (i = 0; i < n_runs; i++) \
      g_print (" %18" fmt, (expr)); \
    g_print ("\n"); \
  } while (0)
  ROW ("faults injected", "u", runs[i]->faults);
  ROW ("streams that reached EOS", "u", c[i].eos);
  ROW ("streams that failed", "u", c[i].errors);
  ROW ("  of them no fault of their own explains", "u", c[i].unexplained);
  ROW ("hangs", "u", c[i].hangs);
  ROW ("lateness p50, ms", ".1f", runs[i]->p50_ms);
  ROW ("lateness p99, ms", ".1f", runs[i]->p99_ms);
  ROW ("lateness max, ms", ".1f", runs[i]->max_ms);
  ROW ("lateness max outside stalls, ms", ".1f", runs[i]->steady_ms);
  ROW ("process held up > 10 ms, times", "u", runs[i]->stalls);
  ROW ("  in all, ms", ".0f", runs[i]->stalled_ms);
  ROW ("others using > 30% of a core, s", ".1f", runs[i]->busy_ms / 1000);
#undef ROW

  for (i = 0; i < n_runs; i++) {
    const RunResult *r = runs[i];
    const gboolean with_faults = faults_in_last && i == n_runs - 1;

    print_errors (labels[i], r);
    if (!r->child_ok || c[i].hangs)
      ok = FALSE;
    /* without faults nothing may fail; with them, only what they explain */
    if (with_faults ? c[i].unexplained > 0 : c[i].errors > 0)
      ok = FALSE;
    if (c[i].eos + c[i].errors + c[i].hangs != cfg->n)
      ok = FALSE;
  }

  if (n_runs == 2) {
    /* each stream's latest buffer with faults, outside the moments the
     * machine was busy with others, against its latest without faults,
     * all of them: those moments can only make the run without faults
     * later, and the comparison more lenient, not the other way round */
    for (i = 0; i < cfg->n; i++) {
      const StreamResult *a = &runs[0]->s[i], *b = &runs[1]->s[i];
      gdouble excess;

      if (strcmp (a->end, "eos") || strcmp (b->end, "eos"))
        continue;
      compared++;
      excess = b->steady_ms - a->max_ms;
      if (excess > worst) {
        worst = excess;
        worst_stream = i;
      }
      if (excess > slack_ms)
        later++;
    }
    /* where other processes took the CPU for much of the run with faults,
     * what is left outside their windows is too little to hold against */
    busy = (runs[1]->busy_ms + runs[1]->stalled_ms) / (10 * cfg->seconds);
    g_print ("streams later with faults (max outside stalls) than without "
        "(max) by more than %.0f ms: %u of %u%s", slack_ms, later, compared,
        !check_lateness ? " (not checked)" : busy > BUSY_PERCENT ?
        " (not judged: the machine was busy with others)" : "");
    if (worst_stream >= 0)
      g_print ("; the most, stream %d: %.1f -> %.1f ms", worst_stream,
          runs[0]->s[worst_stream].max_ms,
          runs[1]->s[worst_stream].steady_ms);
    g_print ("\n");
    for (i = 0, k = 0; i < cfg->n && k < 10; i++) {
      const StreamResult *a = &runs[0]->s[i], *b = &runs[1]->s[i];

      if (strcmp (a->end, "eos") || strcmp (b->end, "eos")
          || b->steady_ms - a->max_ms <= slack_ms)
        continue;
      g_print ("  stream %u: %.1f ms -> %.1f ms (due at %.3f s, ", i,
          a->max_ms, b->steady_ms, b->steady_at_s);
      if (b->steady_after_fault_ms >= 0)
        g_print ("%.1f ms after a fault)\n", b->steady_after_fault_ms);
      else
        g_print ("before any fault)\n");
      k++;
    }
    if (check_lateness && busy > BUSY_PERCENT)
      g_print ("(other processes took more than %.0f%% of a core, or the "
          "process was held up, for %.0f%% of the run with faults: the "
          "lateness is judged where that is at most %d%%)\n",
          CONTENTION_SHARE * 100, busy, BUSY_PERCENT);
    else if (check_lateness && later)
      ok = FALSE;
  }
  g_print ("%s\n", ok ? "PASS" : "FAIL");
  return ok;
}

int
main (int argc, char **argv)
{
  Config cfg = { 64, 60.0, 1, NULL, FALSE, 5.0, 5000, 20, 0, NULL };
  gint n = 64, seed = 1;
  gchar *elements = NULL, *device = NULL, *shim_opt = NULL, *actions = NULL;
  gboolean compare = FALSE, faults_only = FALSE, child = FALSE;
  gboolean no_lateness = FALSE, bad_action = FALSE;
  gdouble fault_rate = 1e-4, slack_ms = 20.0;
  GOptionEntry entries[] = {
    {"streams", 'n', 0, G_OPTION_ARG_INT, &n, "live streams (64)", "N"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &cfg.seconds,
        "how long the streams play (60)", "S"},
    {"seed", 0, 0, G_OPTION_ARG_INT, &seed,
        "the schedule's and the faults' seed (1)", "SEED"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "the elements' device property (their default)", "SPEC"},
    {"elements", 'e', 0, G_OPTION_ARG_STRING, &elements,
        "resample: clresample (default); mix: clresample, clfirfilter "
          "and clcrossover in turn", "resample|mix"},
    {"actions", 'a', 0, G_OPTION_ARG_STRING, &actions,
        "the kinds of action, comma-separated (pause,seek,caps,swap)",
        "LIST"},
    {"compare", 'c', 0, G_OPTION_ARG_NONE, &compare,
        "run without faults, then with them, each a child process, and "
          "compare", NULL},
    {"faults", 'f', 0, G_OPTION_ARG_NONE, &faults_only,
        "the run with faults alone, in a child process", NULL},
    {"shim", 0, 0, G_OPTION_ARG_FILENAME, &shim_opt,
        "the fault shim (CLR_FAULT_SHIM, else this build tree's)", "PATH"},
    {"fault-rate", 0, 0, G_OPTION_ARG_DOUBLE, &fault_rate,
        "each OpenCL call fails with this probability (0.0001)", "P"},
    {"interval", 'i', 0, G_OPTION_ARG_DOUBLE, &cfg.interval,
        "mean seconds between one stream's actions (5)", "S"},
    {"slack", 0, 0, G_OPTION_ARG_DOUBLE, &slack_ms,
        "how much later a stream may be with faults (20)", "MS"},
    {"eos-bound", 0, 0, G_OPTION_ARG_INT, &cfg.eos_bound_ms,
        "how long a stream may take to EOS at the end (5000)", "MS"},
    {"buffer-ms", 'b', 0, G_OPTION_ARG_INT, &cfg.buffer_ms,
        "the source's buffers, ms at its first rate (20)", "MS"},
    {"no-lateness-check", 0, 0, G_OPTION_ARG_NONE, &no_lateness,
        "report the lateness with faults, do not fail on it", NULL},
    {"run", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &child, NULL, NULL},
    {NULL}
  };
  GOptionContext *ctx =
      g_option_context_new ("- live streams under changes and faults");
  GError *err = NULL;
  RunResult runs[2];
  RunResult *table[2] = { &runs[0], &runs[1] };
  const gchar *labels[2], *shim;
  gboolean ok = TRUE;
  gint rc = 0;

  /* what is preloaded into this process (the shim, the sanitizer's
   * runtime before it) stays loaded; the processes it starts get none:
   * PoCL links each kernel it compiles with ld, which LeakSanitizer, if
   * preloaded there, fails at its exit (ld leaks by design), and PoCL
   * aborts the process when the link fails */
  g_unsetenv ("LD_PRELOAD");
#ifdef CLR_BENCH_PLUGIN_DIR
  /* before gst_init (): the option group initializes GStreamer */
  if (!g_getenv ("GST_PLUGIN_PATH") && !g_getenv ("GST_PLUGIN_PATH_1_0"))
    g_setenv ("GST_PLUGIN_PATH", CLR_BENCH_PLUGIN_DIR, TRUE);
#endif
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    g_error_free (err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  cfg.act_mask = actions ? 0 : (1u << N_ACTS) - 1;
  if (actions) {
    gchar **keys = g_strsplit (actions, ",", -1);
    guint i, k;

    for (i = 0; keys[i]; i++) {
      for (k = 0; k < N_ACTS && strcmp (keys[i], act_keys[k]); k++);
      if (k == N_ACTS)
        bad_action = TRUE;
      else
        cfg.act_mask |= 1u << k;
    }
    g_strfreev (keys);
  }
  if (n < 1 || cfg.seconds < 2 || cfg.interval <= 0 || cfg.buffer_ms < 1
      || cfg.eos_bound_ms < 1 || seed < 0 || bad_action || !cfg.act_mask
      || (elements
          && strcmp (elements, "resample") && strcmp (elements, "mix"))) {
    g_printerr ("bad options: see --help\n");
    rc = 2;
    goto out;
  }
  cfg.n = n;
  cfg.seed = seed;
  cfg.device = device;
  cfg.mix = elements && !strcmp (elements, "mix");
  cfg.actions = actions ? actions : "pause,seek,caps,swap";
  if (g_getenv ("CLR_SOAK_DEBUG"))
    debug_late_us = 1000 * MAX (1, atoi (g_getenv ("CLR_SOAK_DEBUG")) ? : 100);
  /* the registry brought up to date here, without the shim, so that the
   * children find it so */
  gst_init (NULL, NULL);

  if (child || (!compare && !faults_only)) {
    /* one run in this process: the faults timed as the shim logs them,
     * if it is preloaded */
    time_faults ();
    run_soak (&cfg, &runs[0]);
    if (child) {
      print_run (&runs[0]);
    } else {
      runs[0].child_ok = TRUE;
      labels[0] = "one run";
      ok = report (&cfg, table, labels, 1, runs[0].faults > 0, FALSE,
          slack_ms);
    }
    run_result_clear (&runs[0]);
    goto out;
  }

  shim = shim_opt ? shim_opt : g_getenv ("CLR_FAULT_SHIM");
#ifdef CLR_SOAK_SHIM
  if (!shim)
    shim = CLR_SOAK_SHIM;
#endif
  if (!shim || !g_file_test (shim, G_FILE_TEST_EXISTS)) {
    g_printerr ("no fault shim: --shim PATH or CLR_FAULT_SHIM\n");
    rc = 2;
    goto out;
  }
  if (compare) {
    run_child (&cfg, FALSE, shim, fault_rate, &runs[0]);
    run_child (&cfg, TRUE, shim, fault_rate, &runs[1]);
    labels[0] = "without faults";
    labels[1] = "with faults";
    ok = report (&cfg, table, labels, 2, TRUE, !no_lateness, slack_ms);
    run_result_clear (&runs[1]);
  } else {
    run_child (&cfg, TRUE, shim, fault_rate, &runs[0]);
    labels[0] = "with faults";
    ok = report (&cfg, table, labels, 1, TRUE, FALSE, slack_ms);
  }
  run_result_clear (&runs[0]);

out:
  if (rc == 0 && !ok)
    rc = 1;
  g_free (elements);
  g_free (device);
  g_free (shim_opt);
  g_free (actions);
  return rc;
}
