/* clresample: input held back and converted in one launch while a stream
 * runs far ahead of real time (gst_cl_resample_may_hold()). Real pipelines,
 * appsrc ! clresample ! appsink, against the same stream converted buffer
 * by buffer through GstHarness (a live source, so never held): the same
 * samples, the same timestamps, exact totals; held input comes out before
 * any event that followed it; live and real-time streams are never held.
 * A live stream's jobs, and only a live stream's, are paced: the device's
 * scheduler may keep them a moment for other streams' company. */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/audio/audio.h>
#include "design/clr-filter.h"
#include "clr-harness.h"
#include "design/clr-rate.h"
#include "clr-signal.h"

#define IN_RATE 44100
#define OUT_RATE 48000
#define PIECE 1024

typedef struct
{
  gboolean live;                /* appsrc is-live */
  gboolean planar;              /* non-interleaved buffers */
  guint pace_us;                /* sleep between pushes */
  gssize gap_at;                /* piece index pushed as a GAP buffer, or -1 */
  gssize tag_at;                /* a tag event before this piece, or -1 */
  guint stall_at;               /* the streaming thread stalls before ... */
  guint stall_us;               /* ... this piece for this long (0: never) */
  const char *props;            /* clresample's properties, or NULL */
} Feed;

typedef struct
{
  Collected out;                /* interleaved samples, buffers */
  int channels;
  guint64 probe_frames;         /* output frames seen by the sink so far */
  guint64 frames_before_tag;    /* ... when the tag came */
  gboolean tag_seen;
  GArray *arrivals;             /* Arrival, an output buffer each */
  GArray *entries;              /* GstClockTime: the pipeline clock's running
                                 * time when input piece i reached
                                 * clresample, where it decides to hold */
} Result;

/* An output buffer at the sink: its timestamps */
typedef struct
{
  GstClockTime pts, duration;
} Arrival;

static GstPadProbeReturn
record_tag (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Result *r = user_data;
  GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

  if (GST_EVENT_TYPE (ev) == GST_EVENT_TAG && !r->tag_seen) {
    r->tag_seen = TRUE;
    r->frames_before_tag = r->probe_frames;
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
record_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Result *r = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  Arrival a = { GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf) };

  g_array_append_val (r->arrivals, a);
  r->probe_frames += gst_buffer_get_size (buf) / (r->channels *
      sizeof (float));
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
record_entry (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Result *r = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstElement *element = gst_pad_get_parent_element (pad);
  GstClock *clock = gst_element_get_clock (element);
  const guint i = (guint) (GST_BUFFER_OFFSET (buf) / PIECE);
  GstClockTime now = GST_CLOCK_TIME_NONE;

  if (clock) {
    now = gst_clock_get_time (clock) - gst_element_get_base_time (element);
    gst_object_unref (clock);
  }
  gst_object_unref (element);
  if (r->entries->len <= i)
    g_array_set_size (r->entries, i + 1);
  g_array_index (r->entries, GstClockTime, i) = now;
  return GST_PAD_PROBE_OK;
}

/* Holds the streaming thread before one piece while the producer goes on
 * pushing: the pieces it pushed meanwhile queue up in appsrc and reach
 * clresample back to back. */
static GstPadProbeReturn
stall (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  const Feed *f = user_data;

  if (GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info)) ==
      (guint64) f->stall_at * PIECE)
    g_usleep (f->stall_us);
  return GST_PAD_PROBE_OK;
}

/* One piece as a buffer: interleaved, or planes with their audio meta. */
static GstBuffer *
make_piece (const Feed * f, const float *in, size_t pos, size_t len,
    int channels, gboolean gap)
{
  GstBuffer *buf = clr_make_buffer (in + pos * channels, len, channels,
      IN_RATE, 0, pos);

  if (f->planar) {
    GstAudioInfo info;
    GstMapInfo map;
    float *planes = g_new (float, len * channels);
    size_t i, c;

    for (i = 0; i < len; i++)
      for (c = 0; c < (size_t) channels; c++)
        planes[c * len + i] = in[(pos + i) * channels + c];
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    memcpy (map.data, planes, len * channels * sizeof (float));
    gst_buffer_unmap (buf, &map);
    g_free (planes);
    gst_audio_info_set_format (&info, GST_AUDIO_FORMAT_F32LE, IN_RATE,
        channels, NULL);
    info.layout = GST_AUDIO_LAYOUT_NON_INTERLEAVED;
    gst_buffer_add_audio_meta (buf, &info, len, NULL);
  }
  if (gap) {
    gst_buffer_memset (buf, 0, 0, gst_buffer_get_size (buf));
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  }
  return buf;
}

/* appsrc ! clresample ! appsink; the output as interleaved samples. */
static void
run_pipeline (const Feed * f, const float *in, size_t frames, int channels,
    Result * r)
{
  const char *layout = f->planar ? "non-interleaved" : "interleaved";
  gchar *launch = g_strdup_printf ("appsrc name=src format=time is-live=%s "
      "caps=audio/x-raw,format=F32LE,layout=%s,rate=%d,channels=%d,"
      "channel-mask=(bitmask)0 ! clresample name=resampler %s ! "
      "audio/x-raw,rate=%d,"
      "layout=%s ! appsink name=sink sync=false", f->live ? "true" : "false",
      layout, IN_RATE, channels, f->props ? f->props : "", OUT_RATE, layout);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *sinkpad = gst_element_get_static_pad (sink, "sink");
  GByteArray *bytes = g_byte_array_new ();
  GstSample *sample;
  GstFlowReturn ret;
  GstBuffer *in_buf;
  size_t pos = 0, piece = 0;

  memset (r, 0, sizeof (*r));
  r->channels = channels;
  r->arrivals = g_array_new (FALSE, FALSE, sizeof (Arrival));
  r->entries = g_array_new (FALSE, TRUE, sizeof (GstClockTime));
  {
    GstElement *resampler = gst_bin_get_by_name (GST_BIN (pipe),
        "resampler");
    GstPad *in_pad = gst_element_get_static_pad (resampler, "sink");

    gst_pad_add_probe (in_pad, GST_PAD_PROBE_TYPE_BUFFER, record_entry, r,
        NULL);
    gst_object_unref (in_pad);
    gst_object_unref (resampler);
  }
  r->out.buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      record_tag, r, NULL);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, record_buffer, r,
      NULL);
  if (f->stall_us) {
    GstPad *srcpad = gst_element_get_static_pad (src, "src");
    gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, stall,
        (gpointer) f, NULL);
    gst_object_unref (srcpad);
  }
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while (pos < frames) {
    size_t len = MIN (PIECE, frames - pos);

    if ((gssize) piece == f->tag_at)
      fail_unless (gst_element_send_event (src,
              gst_event_new_tag (gst_tag_list_new (GST_TAG_TITLE, "batch",
                      NULL))));
    in_buf = make_piece (f, in, pos, len, channels,
        (gssize) piece == f->gap_at);
    /* the signal takes a reference of its own */
    g_signal_emit_by_name (src, "push-buffer", in_buf, &ret);
    gst_buffer_unref (in_buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
    if (f->pace_us)
      g_usleep (f->pace_us);
    pos += len;
    piece++;
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  /* NULL at EOS */
  while (g_signal_emit_by_name (sink, "pull-sample", &sample), sample) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstAudioInfo info;
    GstAudioBuffer ab;
    size_t i, c;

    gst_audio_info_from_caps (&info, gst_sample_get_caps (sample));
    fail_unless (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ));
    for (i = 0; i < ab.n_samples; i++)
      for (c = 0; c < (size_t) channels; c++) {
        float v = f->planar ? ((float *) ab.planes[c])[i] :
            ((float *) ab.planes[0])[i * channels + c];
        g_byte_array_append (bytes, (guint8 *) & v, sizeof (v));
      }
    gst_audio_buffer_unmap (&ab);
    g_ptr_array_add (r->out.buffers, gst_buffer_ref (buf));
    gst_sample_unref (sample);
  }
  r->out.frames = bytes->len / (channels * sizeof (float));
  r->out.data = (float *) g_byte_array_free (bytes, FALSE);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sinkpad);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
}

/* The same stream converted buffer by buffer (GstHarness: a live source). */
static void
run_reference (const float *in, size_t frames, int channels, Collected * c)
{
  size_t piece = PIECE;

  clr_run_stream ("clresample", IN_RATE, OUT_RATE, channels, in, frames,
      &piece, 1, c);
}

/* Output frame count of a whole stream of n input frames */
static guint64
total_out (size_t n)
{
  return gst_util_uint64_scale_int_ceil (n, OUT_RATE, IN_RATE);
}

static void
check_timestamps (Collected * c)
{
  guint64 offset = 0;
  guint i;

  for (i = 0; i < c->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (c->buffers, i);
    guint64 n = GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);

    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), offset);
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        gst_util_uint64_scale_int_round (offset, GST_SECOND, OUT_RATE));
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b) + GST_BUFFER_DURATION (b),
        gst_util_uint64_scale_int_round (offset + n, GST_SECOND, OUT_RATE));
    /* one run: only the first buffer starts one */
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), i == 0);
    offset += n;
  }
  fail_unless_equals_uint64 (offset, c->frames);
}

static void
check_same_samples (Collected * got, Collected * want, int channels)
{
  fail_unless_equals_uint64 (got->frames, want->frames);
  fail_unless (memcmp (got->data, want->data,
          got->frames * channels * sizeof (float)) == 0,
      "held input gave other samples than buffer-by-buffer conversion");
}

/* `frames` frames of noise (f's GAP piece silent) through run_pipeline ()
 * as f feeds them, checked against the same stream converted buffer by
 * buffer: the same samples, the same timestamps. */
static void
run_checked (const Feed * f, size_t frames, int channels, guint seed,
    Result * r)
{
  float *in = g_new (float, frames * channels);
  Collected ref;

  clr_signal_noise (in, frames * channels, 0.5, seed);
  if (f->gap_at >= 0)
    memset (in + f->gap_at * PIECE * channels, 0,
        PIECE * channels * sizeof (float));
  run_reference (in, frames, channels, &ref);
  run_pipeline (f, in, frames, channels, r);
  check_same_samples (&r->out, &ref, channels);
  check_timestamps (&r->out);
  clr_collected_free (&ref);
  g_free (in);
}

static void
result_clear (Result * r)
{
  clr_collected_free (&r->out);
  g_array_unref (r->arrivals);
  g_array_unref (r->entries);
}

static void
held_matches (gboolean planar, int channels)
{
  size_t frames = 10 * IN_RATE + 777, n_in = (frames + PIECE - 1) / PIECE;
  Feed f = { FALSE, planar, 0, -1, -1 };
  Result r;

  run_checked (&f, frames, channels, 42, &r);
  fail_unless_equals_uint64 (r.out.frames, total_out (frames));
  /* it did hold: a whole stream far faster than real time comes out in
   * half-second batches, not one buffer per input buffer (20 batches and
   * the first window's 16 buffers here; with PoCL's kernel cache cold,
   * each first launch of a size compiles for seconds under the sanitizers,
   * and each such stall costs another window of single buffers) */
  GST_INFO ("%u input buffers, %u output buffers", (guint) n_in,
      r.out.buffers->len);
  fail_unless (r.out.buffers->len <= n_in / 4, "%u buffers out for %u in",
      r.out.buffers->len, (guint) n_in);
  result_clear (&r);
}

GST_START_TEST (test_held_interleaved)
{
  held_matches (FALSE, 2);
}

GST_END_TEST;

GST_START_TEST (test_held_planar)
{
  held_matches (TRUE, 6);
}

GST_END_TEST;

/* A live source, or a producer at real-time speed: every buffer is
 * converted as it comes, one output buffer each. */
static void
never_held (gboolean live, guint pace_us, size_t frames, guint stall_us)
{
  size_t n_in = (frames + PIECE - 1) / PIECE;
  Feed f = { live, FALSE, pace_us, -1, -1, 20, stall_us };
  Result r;

  run_checked (&f, frames, 2, 7, &r);
  /* n_in buffers and the drained tail */
  fail_unless_equals_int (r.out.buffers->len, n_in + 1);
  result_clear (&r);
}

GST_START_TEST (test_live_never_held)
{
  never_held (TRUE, 0, 5 * IN_RATE, 0);
}

GST_END_TEST;

GST_START_TEST (test_real_time_never_held)
{
  /* 1024 frames (23.2 ms) every 15 ms, 0.93 s of them: 1.5x real time,
   * whose lead over the clock stays under the half second that holding
   * asks for */
  never_held (FALSE, 15000, 40 * PIECE, 0);
}

GST_END_TEST;

/* The same after a 150 ms stall of the streaming thread: ten pieces queue
 * up in appsrc and arrive back to back, yet the stream as a whole still
 * comes at 1.5x real time. */
GST_START_TEST (test_real_time_stall_never_held)
{
  never_held (FALSE, 15000, 40 * PIECE, 150000);
}

GST_END_TEST;

/* A producer at twice real time gains half a second on the clock after
 * a second, and is held from then on (the arrival speed alone never
 * decides: under load a stream's buffers come in bursts). What is held
 * never exceeds half the lead it had, so that a sink's queue behind the
 * element keeps the other half: every output buffer of held input is at
 * most half as long as the lead over the clock of the piece that
 * completed it, when that piece reached clresample (less that piece, and
 * 20 ms for the clock readings and the filter's delay). The lead is taken
 * at the element's input, not when the output arrives: a machine busy
 * with other tests may delay a conversion by far more than the slack. */
GST_START_TEST (test_held_half_the_lead)
{
  const GstClockTime piece_time = gst_util_uint64_scale_int (PIECE,
      GST_SECOND, IN_RATE), slack = 20 * GST_MSECOND;
  size_t frames = 5 * IN_RATE, n_in = (frames + PIECE - 1) / PIECE;
  /* 23.2 ms of audio every 11.6 ms */
  Feed f = { FALSE, FALSE, 11610, -1, -1 };
  Result r;
  guint i, held = 0;

  run_checked (&f, frames, 2, 11, &r);
  fail_unless_equals_int (r.arrivals->len, r.out.buffers->len);
  for (i = 0; i < r.arrivals->len; i++) {
    const Arrival *a = &g_array_index (r.arrivals, Arrival, i);
    /* the piece that completed it, and when it came to clresample */
    const GstClockTime last = a->pts + a->duration - piece_time;
    const guint k = (guint) ((gst_util_uint64_scale_int_round (last, IN_RATE,
                GST_SECOND) + PIECE / 2) / PIECE);
    GstClockTime entry;
    GstClockTimeDiff lead;

    if (a->duration <= 2 * piece_time)
      continue;
    held++;
    fail_unless (k < r.entries->len, "no record of piece %u", k);
    entry = g_array_index (r.entries, GstClockTime, k);
    fail_unless (GST_CLOCK_TIME_IS_VALID (entry));
    /* its running time over the clock's then */
    lead = GST_CLOCK_DIFF (entry, last);
    fail_unless ((GstClockTimeDiff) a->duration <= lead / 2 +
        (GstClockTimeDiff) (piece_time + slack),
        "%" GST_TIME_FORMAT " held with a lead of %" GST_STIME_FORMAT,
        GST_TIME_ARGS (a->duration), GST_STIME_ARGS (lead));
  }
  GST_INFO ("%u input buffers, %u output buffers, %u of held input",
      (guint) n_in, r.out.buffers->len, held);
  fail_unless (held > 0, "a stream at twice real time was never held");
  result_clear (&r);
}

GST_END_TEST;

/* max-hold bounds what a stream far ahead of the clock gathers: at 0 every
 * buffer is converted as it comes, at 0.1 s no output buffer of held input
 * is longer than 0.1 s and the piece that completed it; the samples and
 * timestamps are those of buffer-by-buffer conversion either way. */
static void
held_at_most (const char *props, GstClockTime most)
{
  const GstClockTime piece_time = gst_util_uint64_scale_int (PIECE,
      GST_SECOND, IN_RATE);
  size_t frames = 6 * IN_RATE, n_in = (frames + PIECE - 1) / PIECE;
  Feed f = { FALSE, FALSE, 0, -1, -1, 0, 0, props };
  Result r;
  guint i, held = 0;

  run_checked (&f, frames, 2, 5, &r);
  for (i = 0; i < r.out.buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (r.out.buffers, i);

    held += GST_BUFFER_DURATION (b) > 2 * piece_time;
    fail_unless (GST_BUFFER_DURATION (b) <= most + piece_time + GST_MSECOND,
        "%" GST_TIME_FORMAT " out with %s", GST_TIME_ARGS
        (GST_BUFFER_DURATION (b)), props);
  }
  if (most == 0) {
    /* n_in buffers and the drained tail */
    fail_unless_equals_int (r.out.buffers->len, n_in + 1);
  } else {
    fail_unless (held > 0, "nothing held with %s", props);
  }
  result_clear (&r);
}

GST_START_TEST (test_max_hold)
{
  held_at_most ("max-hold=0", 0);
  held_at_most ("max-hold=100000000", 100 * GST_MSECOND);
}

GST_END_TEST;

/* A GAP buffer and a tag event in the middle of held input: what was held
 * comes out before them, and the stream is the one converted buffer by
 * buffer (the GAP as silence). */
GST_START_TEST (test_held_before_gap_and_events)
{
  size_t frames = 6 * IN_RATE, tag_piece = 100, gap_piece = 150, taps;
  Feed f = { FALSE, FALSE, 0, gap_piece, tag_piece };
  ClrRatio ratio;
  ClrFilter filter;
  Result r;
  gint64 last;

  run_checked (&f, frames, 2, 3, &r);
  /* before the tag: every output frame the input before it allows (the
   * filter looks taps/2 frames ahead) */
  clr_ratio_init (&ratio, IN_RATE, OUT_RATE);
  clr_filter_design (&filter, &ratio, CLR_QUALITY_DEFAULT, 0);
  taps = filter.taps;
  last = (gint64) (tag_piece * PIECE) - 1 - taps / 2;
  fail_unless (r.tag_seen);
  fail_unless_equals_uint64 (r.frames_before_tag,
      clr_ratio_out_upto (&ratio, last));
  result_clear (&r);
}

GST_END_TEST;

/* The counts in the scheduler's closing line ("scheduler of 'D' done: N
 * jobs (P paced) in ..."), logged when the last engine that used it goes:
 * the plugin has its own copy of the core, so its scheduler is seen
 * through its log. */
typedef struct
{
  GMutex lock;
  guint closed;                 /* schedulers closed */
  guint64 jobs, paced;          /* the last one's */
} SchedClosing;

static void
read_sched_closing (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  SchedClosing *c = user_data;
  const gchar *text, *done;
  guint64 jobs, paced;

  if (strcmp (gst_debug_category_get_name (category), "clresample-engine"))
    return;
  text = gst_debug_message_get (message);
  if (!text || !(done = strstr (text, "' done: ")))
    return;
  if (sscanf (done, "' done: %" G_GUINT64_FORMAT " jobs (%" G_GUINT64_FORMAT
          " paced)", &jobs, &paced) != 2)
    return;
  g_mutex_lock (&c->lock);
  c->closed++;
  c->jobs = jobs;
  c->paced = paced;
  g_mutex_unlock (&c->lock);
}

/* every case's teardown: a case that failed in check_paced () (jumping
 * out of it, CK_FORK=no in the sanitizer pass) leaves no hook reading its
 * dead stack */
static void
sched_closing_end (void)
{
  gst_debug_remove_log_function (read_sched_closing);
}

/* Whether a stream's jobs reach the device's scheduler paced by its audio,
 * as candidates for its gathering window (which may keep a batch a moment
 * for other streams' jobs): every job of a live stream, none of a stream
 * that is not live or has max-hold=0 (the lowest latency a buffer). The
 * scheduler counts them exactly; the output is still checked against the
 * stream converted buffer by buffer. */
static void
check_paced (gboolean live, const char *props, gboolean want_paced)
{
  const size_t frames = IN_RATE;
  Feed f = { live, FALSE, 0, -1, -1, 20, 0, props };
  float *in = g_new (float, frames * 2);
  SchedClosing c = { 0, };
  Collected ref;
  Result r;

  clr_signal_noise (in, frames * 2, 0.5, 11);
  run_reference (in, frames, 2, &ref);
  g_mutex_init (&c.lock);
  gst_debug_set_threshold_for_name ("clresample-engine", GST_LEVEL_INFO);
  gst_debug_add_log_function (read_sched_closing, &c, NULL);
  run_pipeline (&f, in, frames, 2, &r);
  gst_debug_remove_log_function (read_sched_closing);
  gst_debug_unset_threshold_for_name ("clresample-engine");
  /* the pipeline's own scheduler, closed as it went to NULL */
  fail_unless_equals_int (c.closed, 1);
  GST_INFO ("live %d, %s: %" G_GUINT64_FORMAT " jobs, %" G_GUINT64_FORMAT
      " paced", live, props ? props : "defaults", c.jobs, c.paced);
  fail_unless (c.jobs > 0);
  fail_unless_equals_uint64 (c.paced, want_paced ? c.jobs : 0);
  check_same_samples (&r.out, &ref, 2);
  check_timestamps (&r.out);
  g_mutex_clear (&c.lock);
  clr_collected_free (&ref);
  result_clear (&r);
  g_free (in);
}

GST_START_TEST (test_live_jobs_paced)
{
  check_paced (TRUE, NULL, TRUE);
  check_paced (TRUE, "max-hold=0", FALSE);
  check_paced (FALSE, NULL, FALSE);
}

GST_END_TEST;

static Suite *
batching_suite (void)
{
  Suite *s = suite_create ("clresample-batching");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, NULL, sched_closing_end);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_held_interleaved);
  tcase_add_test (tc, test_held_planar);
  tcase_add_test (tc, test_live_never_held);
  tcase_add_test (tc, test_real_time_never_held);
  tcase_add_test (tc, test_real_time_stall_never_held);
  tcase_add_test (tc, test_held_half_the_lead);
  tcase_add_test (tc, test_max_hold);
  tcase_add_test (tc, test_held_before_gap_and_events);
  tcase_add_test (tc, test_live_jobs_paced);
  return s;
}

GST_CHECK_MAIN (batching);
