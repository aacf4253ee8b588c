/* clresample tests: the stream semantics a drop-in for audioresample and
 * audiofirfilter owes (issue 26): timestamps as GStreamer computes them
 * (rounded, contiguous across output-rate switches, ending where the input
 * ends) and GAP buffers after audio split into the filter's tail and GAP.
 */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

typedef struct
{
  GArray *data;                 /* every sample, interleaved */
  GPtrArray *buffers;
} Got;

static gchar *
caps_str (const char *format, int rate, int ch)
{
  return g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=%d,channels=%d,channel-mask=(bitmask)0", format, rate, ch);
}

/* frames [at, at + n) of a 440 Hz tone at `rate` (NULL data: a GAP
 * buffer of zeros), F32 mono, stamped from the frame count */
static GstBuffer *
tone_buffer (guint64 at, gsize n, int rate, gboolean gap)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * sizeof (float), NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < n; i++)
    ((float *) map.data)[i] = gap ? 0.0f :
        (float) (0.5 * sin (2 * G_PI * 440.0 * (at + i) / rate));
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int_round (at, GST_SECOND,
      rate);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int_round (at + n,
      GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = at;
  GST_BUFFER_OFFSET_END (buf) = at + n;
  if (gap)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  return buf;
}

static void
got_init (Got * g)
{
  g->data = g_array_new (FALSE, FALSE, sizeof (float));
  g->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
}

static void
got_clear (Got * g)
{
  g_array_unref (g->data);
  g_ptr_array_unref (g->buffers);
}

static void
pull_all (GstHarness * h, Got * g)
{
  GstBuffer *b;

  while ((b = gst_harness_try_pull (h))) {
    GstMapInfo map;

    gst_buffer_map (b, &map, GST_MAP_READ);
    g_array_append_vals (g->data, map.data, map.size / sizeof (float));
    gst_buffer_unmap (b, &map);
    g_ptr_array_add (g->buffers, b);
  }
}

/* Every buffer starts where the one before ended; returns the last end. */
static GstClockTime
check_contiguous (const Got * g)
{
  GstClockTime end = GST_CLOCK_TIME_NONE;
  guint i;

  for (i = 0; i < g->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (g->buffers, i);

    fail_unless (GST_BUFFER_PTS_IS_VALID (b));
    if (GST_CLOCK_TIME_IS_VALID (end))
      fail_unless_equals_clocktime (GST_BUFFER_PTS (b), end);
    end = GST_BUFFER_PTS (b) + GST_BUFFER_DURATION (b);
  }
  return end;
}

static void
switch_output_rate (GstHarness * h, int rate)
{
  gchar *caps = caps_str ("F32LE", rate, 1);

  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_reconfigure ()));
}

/* Input at 48 kHz; downstream takes 48, then 40, then 50 kHz, a second
 * each: every buffer starts where the one before ended (the new filter's
 * first frame is up to a period after the old output's end) and the
 * stream ends at exactly 3 s. */
GST_START_TEST (test_rate_switch_contiguous)
{
  static const int rates[] = { 48000, 40000, 50000 };
  GstHarness *h = gst_harness_new ("clresample");
  gchar *caps = caps_str ("F32LE", 48000, 1);
  Got g;
  guint64 at = 0;
  guint r, k;

  got_init (&g);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    switch_output_rate (h, rates[r]);
    for (k = 0; k < 100; k++, at += 480)
      fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, 480,
                  48000, FALSE)), GST_FLOW_OK);
    pull_all (h, &g);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &g);
  fail_unless_equals_clocktime (check_contiguous (&g), 3 * GST_SECOND);
  got_clear (&g);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Many switches up and down in a row, all while resampling: contiguous,
 * and the end exactly where the input ends. */
GST_START_TEST (test_rate_switch_many)
{
  static const int rates[] = { 48000, 32000, 96000, 22050, 88200, 8000,
    48000
  };
  GstHarness *h = gst_harness_new ("clresample");
  gchar *caps = caps_str ("F32LE", 44100, 1);
  Got g;
  guint64 at = 0;
  guint r, k;

  got_init (&g);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    switch_output_rate (h, rates[r]);
    /* 0.5 s in buffers of 1103 or 1102 frames (not a divisor) */
    for (k = 0; k < 20; k++) {
      gsize n = k % 2 ? 1102 : 1103;

      fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, n,
                  44100, FALSE)), GST_FLOW_OK);
      at += n;
    }
    pull_all (h, &g);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &g);
  fail_unless_equals_int (at, 7 * 22050);
  fail_unless_equals_clocktime (check_contiguous (&g), 3500 * GST_MSECOND);
  got_clear (&g);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An F64 16384 -> 4096 Hz stream of 4000-frame buffers: every timestamp is
 * the rounded one, GST_FRAMES_TO_CLOCK_TIME (gst_util_uint64_scale_round),
 * not the truncated one (1 ns below it in places). */
GST_START_TEST (test_stamps_rounded)
{
  /* F64 (the case seen) where the device has doubles: the rounding is the
   * same for every format */
  const char *fmt = g_getenv ("CLRESAMPLE_NO_FP64") ? "F32LE" : "F64LE";
  const gsize ss = g_getenv ("CLRESAMPLE_NO_FP64") ? 4 : 8;
  GstHarness *h = gst_harness_new ("clresample");
  guint64 total = 0, at;
  guint i, rounded_up = 0;
  GstBuffer *b;
  gchar *caps = g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=16384,channels=1", fmt);

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  caps = g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=4096,channels=1", fmt);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  for (at = 0; at < 40 * 4000; at += 4000) {
    b = gst_buffer_new_allocate (NULL, 4000 * ss, NULL);
    gst_buffer_memset (b, 0, 0, 4000 * ss);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale_int_round (at, GST_SECOND,
        16384);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale_int_round (at + 4000,
        GST_SECOND, 16384) - GST_BUFFER_PTS (b);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; (b = gst_harness_try_pull (h)); i++) {
    guint64 n = gst_buffer_get_size (b) / ss;

    fail_unless_equals_clocktime (GST_BUFFER_PTS (b),
        GST_FRAMES_TO_CLOCK_TIME (total, 4096));
    fail_unless_equals_clocktime (GST_BUFFER_PTS (b) + GST_BUFFER_DURATION
        (b), GST_FRAMES_TO_CLOCK_TIME (total + n, 4096));
    rounded_up += GST_FRAMES_TO_CLOCK_TIME (total, 4096) !=
        gst_util_uint64_scale_int (total, GST_SECOND, 4096);
    total += n;
    gst_buffer_unref (b);
  }
  fail_unless_equals_uint64 (total, 40 * 1000);
  /* the case the test is about came up */
  fail_unless (rounded_up > 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- GAP ---------------------------------------------------------------- */

typedef struct
{
  const char *element;          /* NULL: clfirfilter with a kernel */
  int in_rate, out_rate;
} GapCase;

static const GapCase gap_cases[] = {
  {"clresample", 8000, 16000},
  {"clresample quality=10", 44100, 48000},
  {NULL, 48000, 48000},
  {"clcrossover frequencies=1000 taps=1023", 48000, 48000},
};

G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
static GstHarness *
gap_harness (const GapCase * c, int *out_ch)
{
  GstHarness *h;
  gchar *caps;

  if (c->element) {
    h = gst_harness_new_parse (c->element);
  } else {
    GstElement *e = gst_element_factory_make ("clfirfilter", NULL);
    GValueArray *va = g_value_array_new (63);
    GValue v = G_VALUE_INIT;
    int k;

    g_value_init (&v, G_TYPE_DOUBLE);
    for (k = 0; k < 63; k++) {
      g_value_set_double (&v, k == 31 ? 0.5 : 0.5 / (63 * (1 + abs (k -
                      31))));
      g_value_array_append (va, &v);
    }
    g_value_unset (&v);
    g_object_set (e, "kernel", va, "block-size", 256, NULL);
    g_value_array_free (va);
    h = gst_harness_new_with_element (e, "sink", "src");
    gst_object_unref (e);
  }
  *out_ch = c->element && g_str_has_prefix (c->element, "clcrossover") ? 2 :
      1;
  caps = caps_str ("F32LE", c->in_rate, 1);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  caps = caps_str ("F32LE", c->out_rate, *out_ch);
  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  return h;
}

G_GNUC_END_IGNORE_DEPRECATIONS;

/* `pattern`: per piece of input, 'a' audio or 'g' GAP, each `piece`
 * frames; with `real_zeros` the GAPs come as zeros not flagged GAP */
static void
run_gap (const GapCase * c, const char *pattern, gsize piece,
    gboolean real_zeros, Got * g, int *out_ch)
{
  GstHarness *h = gap_harness (c, out_ch);
  guint64 at = 0;
  const char *p;

  got_init (g);
  for (p = pattern; *p; p++, at += piece) {
    GstBuffer *b = tone_buffer (at, piece, c->in_rate, *p == 'g');

    if (real_zeros)
      GST_BUFFER_FLAG_UNSET (b, GST_BUFFER_FLAG_GAP);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, g);
  gst_harness_teardown (h);
  /* totals exact: ceil (N out / in) frames of every output channel */
  fail_unless_equals_int (g->data->len, *out_ch *
      gst_util_uint64_scale_int_ceil (at, c->out_rate, c->in_rate));
}

/* frames of GAP-flagged output, after checking they hold zeros */
static guint64
gap_frames (const Got * g, int ch, guint64 * last_audio_end)
{
  guint64 pos = 0, gaps = 0, i;
  guint b;

  *last_audio_end = 0;
  for (b = 0; b < g->buffers->len; b++) {
    GstBuffer *buf = g_ptr_array_index (g->buffers, b);
    guint64 n = gst_buffer_get_size (buf) / sizeof (float) / ch;

    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
      /* one check a buffer (gst-check records each one that passes) */
      for (i = pos * ch; i < (pos + n) * ch; i++)
        if (g_array_index (g->data, float, i) != 0.0f)
          break;
      fail_unless (i == (pos + n) * ch, "GAP buffer %u: sample %"
          G_GUINT64_FORMAT " is not 0", b, i);
      gaps += n;
    } else {
      *last_audio_end = pos + n;
    }
    pos += n;
  }
  return gaps;
}

/* The same samples as the stream with real zeros instead of GAPs: bit
 * for bit from clresample, whose kernels give exact zeros for zeros. The
 * FFT convolution's output carries its rounding (up to ~1e-6 of the RMS
 * with clcrossover's float transforms, docs/crossover.md), which differs
 * where a GAP skipped the transforms and restarted them at the audio. */
static void
check_same_samples (const GapCase * c, const Got * a, const Got * b)
{
  const double tol = c->element && g_str_has_prefix (c->element,
      "clresample") ? 0.0 : 1e-6;
  guint i;

  fail_unless_equals_int (a->data->len, b->data->len);
  /* one check for the signal (gst-check records each one that passes) */
  for (i = 0; i < a->data->len; i++)
    if (fabs (g_array_index (a->data, float, i) -
            g_array_index (b->data, float, i)) > tol)
      break;
  fail_unless (i == a->data->len, "sample %u: %g against %g", i,
      g_array_index (a->data, float, i), g_array_index (b->data, float, i));
}

/* 80 ms of audio, then a 140 ms GAP in one buffer (issue 26's case at
 * 8 -> 16 kHz: it came out as one non-GAP buffer): the output carries the
 * filter's tail as audio and everything past it as GAP; the samples are
 * those of real zeros, the totals exact. Then audio again. */
GST_START_TEST (test_gap_after_audio)
{
  const GapCase *c = &gap_cases[__i__];
  const gsize piece = c->in_rate / 50 * 2;      /* 40 ms */
  /* 80 ms audio, 160 ms GAP in one buffer, 80 ms audio */
  Got g, zeros;
  int ch;
  guint64 gaps, audio_end, total, gap_out;
  GstHarness *h;
  GstBuffer *b;
  guint64 at = 0;
  int k;

  /* in pieces of 40 ms, the GAP as one buffer of 160 ms */
  got_init (&g);
  h = gap_harness (c, &ch);
  for (k = 0; k < 2; k++, at += piece)
    fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, piece,
                c->in_rate, FALSE)), GST_FLOW_OK);
  b = tone_buffer (at, 4 * piece, c->in_rate, TRUE);
  at += 4 * piece;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  pull_all (h, &g);
  total = g.data->len / ch;
  gaps = gap_frames (&g, ch, &audio_end);
  /* up to here: the GAP's output is the tail (audio), then GAP to the end
   * of what came out */
  gap_out = gst_util_uint64_scale_int (4 * piece, c->out_rate, c->in_rate);
  fail_unless (gaps > 0, "%s: no GAP buffer after audio",
      c->element ? c->element : "clfirfilter");
  fail_unless_equals_uint64 (audio_end + gaps, total);
  /* the tail is the filter's reach, far shorter than the GAP */
  fail_unless (gaps > gap_out / 2, "%s: %" G_GUINT64_FORMAT " GAP frames "
      "of %" G_GUINT64_FORMAT, c->element ? c->element : "clfirfilter", gaps,
      gap_out);
  for (k = 0; k < 2; k++, at += piece)
    fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, piece,
                c->in_rate, FALSE)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_all (h, &g);
  gst_harness_teardown (h);
  check_contiguous (&g);

  run_gap (c, "aaggggaa", piece, TRUE, &zeros, &ch);
  check_same_samples (c, &g, &zeros);
  got_clear (&g);
  got_clear (&zeros);
}

GST_END_TEST;

/* GAP before audio, and a stream of GAP only: GAP out (zeros), the audio
 * after it as with real zeros, totals exact. */
GST_START_TEST (test_gap_before_and_only)
{
  const GapCase *c = &gap_cases[__i__];
  const gsize piece = c->in_rate / 50 * 2;
  Got g, zeros;
  int ch;
  guint64 audio_end;

  run_gap (c, "ggggg", piece, FALSE, &g, &ch);
  fail_unless_equals_uint64 (gap_frames (&g, ch, &audio_end),
      g.data->len / ch);
  check_contiguous (&g);
  got_clear (&g);

  run_gap (c, "gggaaag", piece, FALSE, &g, &ch);
  run_gap (c, "gggaaag", piece, TRUE, &zeros, &ch);
  check_same_samples (c, &g, &zeros);
  fail_unless (GST_BUFFER_FLAG_IS_SET (g_ptr_array_index (g.buffers, 0),
          GST_BUFFER_FLAG_GAP));
  check_contiguous (&g);
  got_clear (&g);
  got_clear (&zeros);
}

GST_END_TEST;

/* ---- flow returns of the element's own pushes -------------------------- */

static GstPadProbeReturn
refuse_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer refuse)
{
  if (!*(gboolean *) refuse)
    return GST_PAD_PROBE_OK;
  /* downstream answers NOT_LINKED, as an unlinked branch would */
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = NULL;
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_NOT_LINKED;
  return GST_PAD_PROBE_HANDLED;
}

/* The drain at a caps change pushes the old run's tail; when that push
 * fails, the failure reaches upstream at the next buffer even where that
 * buffer itself gives no output (a new run's first frames): it is not
 * dropped. */
GST_START_TEST (test_drain_flow_returned)
{
  const GapCase *c = &gap_cases[__i__];
  gboolean refuse = FALSE;
  int ch;
  GstHarness *h = gap_harness (c, &ch);
  GstPad *src = gst_element_get_static_pad (h->element, "src");
  gchar *caps;
  guint64 at;

  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, refuse_buffers,
      &refuse, NULL);
  for (at = 0; at < 4 * 2048; at += 2048)
    fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, 2048,
                c->in_rate, FALSE)), GST_FLOW_OK);
  refuse = TRUE;
  /* new input caps (a channel-mask flag only): the run drains */
  if (ch == 1) {
    caps = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
        "rate=%d,channels=1", c->out_rate);
    gst_harness_set_sink_caps_str (h, caps);
    g_free (caps);
  }
  caps = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=%d,channels=1", c->in_rate);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  refuse = FALSE;
  /* 8 frames complete no output frame of the new run */
  fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, 8,
              c->in_rate, FALSE)), GST_FLOW_NOT_LINKED);
  fail_unless_equals_int (gst_harness_push (h, tone_buffer (at + 8, 8,
              c->in_rate, FALSE)), GST_FLOW_OK);
  gst_object_unref (src);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- queries from other threads ------------------------------------------ */

typedef struct
{
  GstPad *pad;
  gint stop;
  gint answers;                 /* atomic: read while the loop runs */
  GstClockTime worst;
} Querier;

static gpointer
query_latency_loop (gpointer data)
{
  Querier *q = data;

  while (!g_atomic_int_get (&q->stop)) {
    GstQuery *query = gst_query_new_latency ();
    GstClockTime min;

    if (gst_pad_query (q->pad, query)) {
      gst_query_parse_latency (query, NULL, &min, NULL);
      q->worst = MAX (q->worst, min);
      g_atomic_int_inc (&q->answers);
    }
    gst_query_unref (query);
  }
  return NULL;
}

/* An application thread asks for the latency while the streaming thread
 * replaces and frees the filter again and again (output-rate switches for
 * clresample, new caps and kernels for clfirfilter): the answer comes from
 * what the streaming thread published, never from a filter being freed
 * (under AddressSanitizer a read of a freed engine fails the test), and it
 * is always one the element really had. */
GST_START_TEST (test_latency_query_from_other_thread)
{
  static const int rates[] = { 48000, 32000, 96000, 22050 };
  const GapCase *c = &gap_cases[__i__];
  int ch, k;
  GstHarness *h = gap_harness (c, &ch);
  Querier q = { 0 };
  GThread *t;
  guint64 at = 0;
  gchar *caps;

  q.pad = gst_element_get_static_pad (h->element, "src");
  t = g_thread_new ("latency-queries", query_latency_loop, &q);
  /* the querier is answered once before the filters start changing under
   * it: on a loaded machine the loop below could otherwise end before that
   * thread first ran (a fresh-clone .ci/run on 2 cores once saw no answer
   * at all, where a run alone gets 10000-100000) */
  for (k = 0; k < 10000 && g_atomic_int_get (&q.answers) == 0; k++)
    g_usleep (1000);
  fail_unless (g_atomic_int_get (&q.answers) > 0,
      "no latency query answered in 10 s");
  for (k = 0; k < 60; k++) {
    if (c->element && g_str_has_prefix (c->element, "clresample")) {
      caps = caps_str ("F32LE", rates[k % G_N_ELEMENTS (rates)], 1);
      gst_harness_set_sink_caps_str (h, caps);
      g_free (caps);
      fail_unless (gst_harness_push_upstream_event (h,
              gst_event_new_reconfigure ()));
    } else {
      /* new input caps (the channel mask): drain, new filter */
      caps = g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
          "rate=%d,channels=1%s", c->in_rate, k % 2 ?
          "" : ",channel-mask=(bitmask)0");
      if (ch == 1)
        gst_harness_set_sink_caps_str (h, caps);
      gst_harness_set_src_caps_str (h, caps);
      g_free (caps);
    }
    fail_unless_equals_int (gst_harness_push (h, tone_buffer (at, 480,
                c->in_rate, FALSE)), GST_FLOW_OK);
    at += 480;
    while (gst_harness_buffers_in_queue (h) > 0)
      gst_buffer_unref (gst_harness_pull (h));
  }
  g_atomic_int_set (&q.stop, 1);
  g_thread_join (t);
  /* every answer is a latency the element had: far below a second here */
  fail_unless (q.worst < 200 * GST_MSECOND, "latency answered: %"
      GST_TIME_FORMAT, GST_TIME_ARGS (q.worst));
  gst_object_unref (q.pad);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---- what players do (issue 46): loops, reverse play, equal caps ------- */

/* What reached the harness's sink pad, in order: buffers and events. */
typedef struct
{
  gboolean is_buffer;
  GstEventType type;
  GstClockTime pts, duration;
  gsize first, frames;          /* its first sample in Trace.data; frames */
  gboolean discont;
} Item;

typedef struct
{
  GArray *items;
  GArray *data;                 /* every buffer's samples, interleaved */
  guint channels;               /* of the output */
  guint caps_in;                /* CAPS events the element's sink pad got */
} Trace;

static GstPadProbeReturn
trace_probe (GstPad * pad, GstPadProbeInfo * info, Trace * t)
{
  Item it = { 0 };

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
    GstMapInfo map;

    it.is_buffer = TRUE;
    it.pts = GST_BUFFER_PTS (b);
    it.duration = GST_BUFFER_DURATION (b);
    it.discont = GST_BUFFER_IS_DISCONT (b);
    gst_buffer_map (b, &map, GST_MAP_READ);
    it.first = t->data->len;
    it.frames = map.size / (t->channels * sizeof (float));
    g_array_append_vals (t->data, map.data, it.frames * t->channels);
    gst_buffer_unmap (b, &map);
  } else {
    it.type = GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info));
  }
  g_array_append_val (t->items, it);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_caps (GstPad * pad, GstPadProbeInfo * info, Trace * t)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_CAPS)
    t->caps_in++;
  return GST_PAD_PROBE_OK;
}

/* A decaying 2048-tap noise filter: a reverb's tail, which a needless
 * drain would cut */
static void
set_reverb (GstElement * e)
{
  GValueArray *va;
  GValue v = G_VALUE_INIT;
  guint32 seed = 7;
  gsize k, taps = 2048;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  va = g_value_array_new (taps);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (k = 0; k < taps; k++) {
    seed = seed * 1664525u + 1013904223u;
    g_value_set_double (&v, ((seed >> 8) / 8388608.0 - 1.0) *
        pow (10.0, -3.0 * k / taps) / 64.0);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  g_object_set (e, "kernel", va, NULL);
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

/* `factory` (clresample, audioresample; clfirfilter with set_reverb ();
 * clcrossover in 2 bands of 255 taps, 2 channels out) from in_rate to
 * out_rate, F32 mono in, traced from here on */
static GstHarness *
trace_harness (const gchar * factory, int in_rate, int out_rate, Trace * t)
{
  GstHarness *h = gst_harness_new (factory);
  const gboolean bands = strcmp (factory, "clcrossover") == 0;
  gchar *in = caps_str ("F32LE", in_rate, 1);
  gchar *out = caps_str ("F32LE", out_rate, bands ? 2 : 1);
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");

  if (g_str_has_suffix (factory, "firfilter"))
    set_reverb (h->element);
  if (bands)
    g_object_set (h->element, "frequencies", "1000", "taps", 255, NULL);
  t->channels = bands ? 2 : 1;
  gst_harness_set_sink_caps_str (h, out);
  gst_harness_set_src_caps_str (h, in);
  g_free (in);
  g_free (out);
  t->items = g_array_new (FALSE, TRUE, sizeof (Item));
  t->data = g_array_new (FALSE, FALSE, sizeof (float));
  t->caps_in = 0;
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) count_caps, t, NULL);
  gst_object_unref (sink);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) trace_probe, t, NULL);
  return h;
}

static void
trace_clear (Trace * t)
{
  g_array_unref (t->items);
  g_array_unref (t->data);
}

static void
push_segment (GstHarness * h, gdouble rate, GstClockTime start,
    GstClockTime stop, GstClockTime base)
{
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.rate = rate;
  seg.start = start;
  seg.stop = stop;
  seg.time = start;
  seg.position = rate < 0 ? stop : start;
  seg.base = base;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)),
      "SEGMENT refused (rate %g)", rate);
}

/* frames [at, at + n) of tone_buffer () pushed in pieces of `piece` */
static void
push_tone (GstHarness * h, guint64 at, gsize n, gsize piece, int rate)
{
  gsize done;

  for (done = 0; done < n; done += piece)
    fail_unless_equals_int (gst_harness_push (h, tone_buffer (at + done,
                MIN (piece, n - done), rate, FALSE)), GST_FLOW_OK);
}

/* The buffers between items a and b (exclusive): contiguous, the first at
 * `start` with DISCONT, the rest without (not looked at where the element
 * passes through: basetransform leaves the flags as they came); returns
 * their frames. */
static gsize
check_pass (const Trace * t, guint a, guint b, GstClockTime start,
    const gchar * what)
{
  const gboolean flags = !strstr (what, "passthrough");
  GstClockTime end = start;
  gsize frames = 0;
  guint i;

  for (i = a + 1; i < b; i++) {
    const Item *it = &g_array_index (t->items, Item, i);

    if (!it->is_buffer)
      continue;
    fail_unless_equals_clocktime (it->pts, end);
    if (flags)
      fail_unless_equals_int (it->discont, end == start);
    end = it->pts + it->duration;
    frames += it->frames;
  }
  fail_unless (frames > 0, "%s: no output", what);
  return frames;
}

/* the index of the n-th (from 1) event of `type`, failing if none */
static guint
nth_event (const Trace * t, GstEventType type, guint n)
{
  guint i;

  for (i = 0; i < t->items->len; i++) {
    const Item *it = &g_array_index (t->items, Item, i);

    if (!it->is_buffer && it->type == type && --n == 0)
      return i;
  }
  fail ("no event %s #%u", gst_event_type_get_name (type), n);
  return 0;
}

/* the samples of the buffers between items a and b (exclusive),
 * concatenated */
static GArray *
pass_samples (const Trace * t, guint a, guint b)
{
  GArray *s = g_array_new (FALSE, FALSE, sizeof (float));
  guint i;

  for (i = a + 1; i < b; i++) {
    const Item *it = &g_array_index (t->items, Item, i);

    if (it->is_buffer)
      g_array_append_vals (s, &g_array_index (t->data, float, it->first),
          it->frames * t->channels);
  }
  return s;
}

static const gchar *const loop_elements[] = {
  "audioresample", "clresample", "clfirfilter", "clcrossover"
};

/* A loop, as a player makes it: a non-flushing segment seek at
 * SEGMENT_DONE, the same 4096 frames again. Each pass's output, the old
 * run's tail included, comes before the next SEGMENT, stamped from 0 to
 * the pass's end; the second pass starts at 0 with DISCONT and is the
 * first again, sample for sample. As audioresample. */
GST_START_TEST (test_segment_loop)
{
  const gchar *factory = loop_elements[__i__];
  const int in_rate = 44100, out_rate =
      g_str_has_suffix (factory, "resample") ? 48000 : 44100;
  const GstClockTime pass = gst_util_uint64_scale_int_round (4096,
      GST_SECOND, in_rate);
  Trace t;
  GstHarness *h = trace_harness (factory, in_rate, out_rate, &t);
  guint s1, s2, eos;
  gsize n1, n2;
  GArray *a, *b;

  push_segment (h, 1.0, 0, pass, 0);
  push_tone (h, 0, 4096, 1024, in_rate);
  push_segment (h, 1.0, 0, pass, pass);
  push_tone (h, 0, 4096, 1024, in_rate);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  s1 = nth_event (&t, GST_EVENT_SEGMENT, 1);
  s2 = nth_event (&t, GST_EVENT_SEGMENT, 2);
  eos = nth_event (&t, GST_EVENT_EOS, 1);
  n1 = check_pass (&t, s1, s2, 0, factory);
  n2 = check_pass (&t, s2, eos, 0, factory);
  if (g_str_has_prefix (factory, "cl")) {
    /* exactly N out for N in, each pass the same */
    fail_unless_equals_uint64 (n1,
        gst_util_uint64_scale_int_ceil (4096, out_rate, in_rate));
    fail_unless_equals_uint64 (n2, n1);
    a = pass_samples (&t, s1, s2);
    b = pass_samples (&t, s2, eos);
    fail_unless (memcmp (a->data, b->data, n1 * t.channels *
            sizeof (float)) == 0,
        "%s: the loop's second pass differs from its first", factory);
    g_array_unref (a);
    g_array_unref (b);
  } else {
    /* its reset converter starts a frame off the fresh one's */
    fail_unless (n2 + 1 >= n1 && n2 <= n1 + 1);
  }
  trace_clear (&t);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* CAPS equal to the current ones, sent again mid-stream (an upstream
 * renegotiation that changed nothing): nothing changes, no drain, no
 * DISCONT, the same samples as without it. As audioresample, whose base
 * class skips them. */
GST_START_TEST (test_equal_caps)
{
  const gchar *factory = loop_elements[__i__];
  const int in_rate = 44100, out_rate =
      g_str_has_suffix (factory, "resample") ? 48000 : 44100;
  Trace plain, again;
  GstHarness *h;
  guint s, eos;
  gchar *caps = caps_str ("F32LE", in_rate, 1);
  GArray *a, *b;
  gsize n;

  h = trace_harness (factory, in_rate, out_rate, &plain);
  push_segment (h, 1.0, 0, GST_CLOCK_TIME_NONE, 0);
  push_tone (h, 0, 8192, 1024, in_rate);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  h = trace_harness (factory, in_rate, out_rate, &again);
  push_segment (h, 1.0, 0, GST_CLOCK_TIME_NONE, 0);
  push_tone (h, 0, 4096, 1024, in_rate);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_caps (gst_caps_from_string (caps))));
  fail_unless_equals_int (again.caps_in, 1);    /* it reached the element */
  push_tone (h, 4096, 4096, 1024, in_rate);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);

  s = nth_event (&plain, GST_EVENT_SEGMENT, 1);
  eos = nth_event (&plain, GST_EVENT_EOS, 1);
  n = check_pass (&plain, s, eos, 0, factory);
  a = pass_samples (&plain, s, eos);
  s = nth_event (&again, GST_EVENT_SEGMENT, 1);
  eos = nth_event (&again, GST_EVENT_EOS, 1);
  fail_unless_equals_uint64 (check_pass (&again, s, eos, 0, factory), n);
  b = pass_samples (&again, s, eos);
  fail_unless (memcmp (a->data, b->data, n * plain.channels *
          sizeof (float)) == 0, "%s: equal caps changed the output", factory);
  g_array_unref (a);
  g_array_unref (b);
  g_free (caps);
  trace_clear (&plain);
  trace_clear (&again);
}

GST_END_TEST;

/* Equal rates pass through, clipped to the segment as audioresample
 * clips them: 4096 frames from 0 into a segment from frame 1440 give 2656
 * frames from 1440 on, stamped from the segment's start; one that stops
 * at frame 3800 the frames audioresample gives, the same samples. */
GST_START_TEST (test_passthrough_clipped)
{
  static const gsize stops[] = { 3800, 0 };
  const int rate = 44100;
  guint k;

  for (k = 0; k < G_N_ELEMENTS (stops); k++) {
    /* rounded up: frame 1440 is the first at or after it */
    const GstClockTime start = gst_util_uint64_scale_int_ceil (1440,
        GST_SECOND, rate);
    const GstClockTime stop = stops[k] ?
        gst_util_uint64_scale_int_round (stops[k], GST_SECOND, rate) :
        GST_CLOCK_TIME_NONE;
    gsize want = 4096 - 1440, got[2];
    Trace t[2];
    GArray *s[2];
    guint e;

    for (e = 0; e < 2; e++) {
      GstHarness *h = trace_harness (e ? "clresample" : "audioresample",
          rate, rate, &t[e]);
      guint a, b;

      push_segment (h, 1.0, start, stop, 0);
      push_tone (h, 0, 4096, 4096, rate);
      fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
      a = nth_event (&t[e], GST_EVENT_SEGMENT, 1);
      b = nth_event (&t[e], GST_EVENT_EOS, 1);
      got[e] = check_pass (&t[e], a, b, start,
          e ? "clresample passthrough" : "audioresample passthrough");
      if (!stops[k])
        fail_unless_equals_uint64 (got[e], want);
      s[e] = pass_samples (&t[e], a, b);
      gst_harness_teardown (h);
    }
    fail_unless_equals_uint64 (got[1], got[0]);
    want = got[0];
    fail_unless (memcmp (s[0]->data, s[1]->data, want * sizeof (float)) ==
        0, "clipped samples differ from audioresample's");
    for (e = 0; e < 2; e++) {
      g_array_unref (s[e]);
      trace_clear (&t[e]);
    }
  }
}

GST_END_TEST;

/* Output runs: (first item, pts, frames) of each DISCONT-started run of
 * buffers, into runs (of 3 guint64s each) */
static GArray *
split_runs (const Trace * t)
{
  GArray *runs = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint i;

  for (i = 0; i < t->items->len; i++) {
    const Item *it = &g_array_index (t->items, Item, i);
    guint64 v[3] = { it->first, it->pts, it->frames };

    if (!it->is_buffer)
      continue;
    if (it->discont || runs->len == 0)
      g_array_append_vals (runs, v, 3);
    else
      g_array_index (runs, guint64, runs->len - 1) += it->frames;
  }
  return runs;
}

typedef struct
{
  const gchar *factory;
  int out_rate;
  gsize piece;
  gboolean flag_discont;        /* as a demuxer marks reversed chunks */
} ReverseCase;

static const ReverseCase reverse_cases[] = {
  {"clresample", 48000, 1024, TRUE},
  {"clresample", 48000, 441, FALSE},
  {"clresample", 44100, 1024, TRUE},
  {"clfirfilter", 44100, 441, FALSE},
};

/* Reverse play: a segment of rate -1 and 4 chunks in reverse order (each
 * forwards inside, as decoders give them). Each chunk is converted on its
 * own: a run a chunk, starting at its timestamp with DISCONT, its samples
 * those of the chunk alone played forwards (filter and tail). With equal
 * rates the chunks pass through untouched. audioresample in the same
 * harness starts its runs at the same timestamps (with DISCONT-marked
 * chunks; it takes 10 ms chunks for one stream) and, passing through,
 * gives the same buffers. */
GST_START_TEST (test_reverse)
{
  const ReverseCase *c = &reverse_cases[__i__];
  const int in_rate = 44100;
  const gsize piece = c->piece, n = 4 * piece;
  const GstClockTime stop = gst_util_uint64_scale_int_round (n, GST_SECOND,
      in_rate);
  const gboolean same = c->out_rate == in_rate
      && g_str_has_suffix (c->factory, "resample");
  Trace t, ar = { NULL }, fwd;
  GstHarness *h;
  GArray *runs, *ar_runs = NULL;
  gint k;

  for (k = 0; k < 2; k++) {
    const gboolean ours = k == 0;
    gint i;

    if (!ours && (!c->flag_discont || strcmp (c->factory, "clresample")))
      break;
    h = trace_harness (ours ? c->factory : "audioresample", in_rate,
        c->out_rate, ours ? &t : &ar);
    push_segment (h, -1.0, 0, stop, 0);
    for (i = 3; i >= 0; i--) {
      GstBuffer *b = tone_buffer (i * piece, piece, in_rate, FALSE);

      if (c->flag_discont)
        GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
      fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    gst_harness_teardown (h);
  }

  runs = split_runs (&t);
  fail_unless_equals_int (runs->len, 4 * 3);
  if (ar.items)
    ar_runs = split_runs (&ar);
  for (k = 0; k < 4; k++) {
    const guint64 *r = &g_array_index (runs, guint64, 3 * k);
    const gsize at = (3 - k) * piece;
    GstClockTime pts = gst_util_uint64_scale_int_round (at, GST_SECOND,
        in_rate);
    guint a, b;
    GArray *s;

    fail_unless_equals_clocktime (r[1], pts);
    if (ar_runs) {
      fail_unless_equals_int (ar_runs->len, 4 * 3);
      fail_unless_equals_clocktime (g_array_index (ar_runs, guint64,
              3 * k + 1), pts);
    }
    /* the chunk alone, forwards */
    h = trace_harness (c->factory, in_rate, c->out_rate, &fwd);
    push_segment (h, 1.0, pts, GST_CLOCK_TIME_NONE, 0);
    push_tone (h, at, piece, piece, in_rate);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    gst_harness_teardown (h);
    a = nth_event (&fwd, GST_EVENT_SEGMENT, 1);
    b = nth_event (&fwd, GST_EVENT_EOS, 1);
    fail_unless_equals_uint64 (r[2], check_pass (&fwd, a, b, pts,
            same ? "passthrough" : c->factory));
    s = pass_samples (&fwd, a, b);
    fail_unless (memcmp (s->data, &g_array_index (t.data, float, r[0]),
            r[2] * sizeof (float)) == 0, "run %d differs from the chunk "
        "played forwards", k);
    if (same)
      fail_unless (ar_runs && memcmp (&g_array_index (ar.data, float,
                  g_array_index (ar_runs, guint64, 3 * k)), s->data,
              r[2] * sizeof (float)) == 0, "passthrough differs");
    g_array_unref (s);
    trace_clear (&fwd);
  }
  g_array_unref (runs);
  if (ar_runs) {
    g_array_unref (ar_runs);
    trace_clear (&ar);
  }
  trace_clear (&t);
}

GST_END_TEST;

static Suite *
dropin_suite (void)
{
  Suite *s = suite_create ("dropin");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rate_switch_contiguous);
  tcase_add_test (tc, test_rate_switch_many);
  tcase_add_test (tc, test_stamps_rounded);
  tcase_add_loop_test (tc, test_gap_after_audio, 0, G_N_ELEMENTS (gap_cases));
  tcase_add_loop_test (tc, test_gap_before_and_only, 0,
      G_N_ELEMENTS (gap_cases));
  tcase_add_loop_test (tc, test_drain_flow_returned, 0,
      G_N_ELEMENTS (gap_cases));
  tcase_add_loop_test (tc, test_latency_query_from_other_thread, 0,
      G_N_ELEMENTS (gap_cases));
  tcase_add_loop_test (tc, test_segment_loop, 0,
      G_N_ELEMENTS (loop_elements));
  tcase_add_loop_test (tc, test_equal_caps, 0, G_N_ELEMENTS (loop_elements));
  tcase_add_test (tc, test_passthrough_clipped);
  tcase_add_loop_test (tc, test_reverse, 0, G_N_ELEMENTS (reverse_cases));
  return s;
}

GST_CHECK_MAIN (dropin);
