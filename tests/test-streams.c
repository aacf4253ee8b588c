/* clresample: many instances at once in one process. Real pipelines
 * (appsrc ! clresample ! appsink, audiotestsrc ! clresample ! fakesink) on
 * the real OpenCL device, each stream against the same stream converted
 * alone: the same samples bit for bit, the exact total, timestamps and
 * offsets contiguous on the output rate's frame counter. These pin down
 * what must hold however the instances share the device: a stalled
 * instance holds up no other, flushes and state changes of one leave the
 * others' output untouched, and instances come and go on many threads. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/audio/audio.h>
#include "design/clr-rate.h"
#include "clr-gate.h"
#include "clr-signal.h"

/* How long a stream may take to reach EOS before the test calls it hung:
 * far above what any stream here needs (well under a second alone), far
 * below the test case's timeout, so a hang fails with a message. */
#define STREAM_DEADLINE (60 * G_TIME_SPAN_SECOND)

typedef struct
{
  const char *format;           /* F32LE, F64LE, S16LE or S32LE */
  gboolean planar;              /* non-interleaved buffers */
  int in_rate, out_rate, channels, quality;
  size_t piece;                 /* frames a buffer (the last one shorter) */
  size_t frames;                /* the whole stream */
  guint64 seed;                 /* of its noise: each stream its own */
} StreamCfg;

/* Every ratio, quality, format, channel count and layout here in one mix;
 * quality 10 only where it is cheap. Two seconds each: past the first
 * second of a stream that runs ahead of the clock the element holds input
 * back and converts it in batches (test-batching.c), so the output
 * buffers need not end where they do alone. Lengths no multiple of the
 * pieces: a short last buffer. */
static const StreamCfg mix[] = {
  {"F32LE", FALSE, 44100, 48000, 2, 4, 441, 2 * 44100 + 37, 1},
  {"S16LE", FALSE, 48000, 44100, 1, 0, 480, 2 * 48000 + 11, 2},
  {"F64LE", TRUE, 44100, 96000, 6, 4, 1000, 2 * 44100 + 3, 3},
  {"S32LE", TRUE, 8000, 16000, 1, 10, 64, 2 * 8000 + 5, 4},
  {"F32LE", FALSE, 96000, 44100, 6, 0, 1000, 2 * 96000 + 999, 5},
  {"F32LE", TRUE, 48000, 44100, 2, 10, 480, 2 * 48000 + 1, 6},
  {"S16LE", TRUE, 44100, 48000, 6, 4, 64, 2 * 44100 + 63, 7},
  {"F64LE", FALSE, 8000, 16000, 2, 0, 441, 2 * 8000 + 17, 8},
};

/* One output buffer's stamps, as the sink got them. */
typedef struct
{
  GstClockTime pts, duration;
  guint64 offset, offset_end, frames;
  gboolean discont, gap;
} OutBuf;

typedef struct
{
  const StreamCfg *cfg;
  guint8 *in;                   /* the whole input, interleaved */
  GstAudioInfo info;            /* of the input */
  GstElement *pipe, *src, *sink;
  GByteArray *out;              /* every output sample, interleaved */
  GArray *bufs;                 /* OutBuf, in order */
  gint done;                    /* atomic: reached EOS */
} Stream;


/* Noise quantised to the format's integers where it has them, at half
 * scale so that no output sample clips. */
static guint8 *
make_input (const StreamCfg * cfg, GstAudioFormat format)
{
  size_t n = cfg->frames * cfg->channels, i;
  float *x = g_new (float, n);
  guint8 *bytes = NULL;

  clr_signal_noise (x, n, 0.5, cfg->seed);
  switch (format) {
    case GST_AUDIO_FORMAT_F32LE:
      bytes = (guint8 *) g_memdup2 (x, n * sizeof (float));
      break;
    case GST_AUDIO_FORMAT_F64LE:{
      double *d = g_new (double, n);
      for (i = 0; i < n; i++)
        d[i] = x[i];
      bytes = (guint8 *) d;
      break;
    }
    case GST_AUDIO_FORMAT_S16LE:{
      gint16 *s = g_new (gint16, n);
      for (i = 0; i < n; i++)
        s[i] = (gint16) lrintf (x[i] * 32768.0f);
      bytes = (guint8 *) s;
      break;
    }
    case GST_AUDIO_FORMAT_S32LE:{
      gint32 *s = g_new (gint32, n);
      for (i = 0; i < n; i++)
        s[i] = (gint32) llrint (x[i] * 2147483648.0);
      bytes = (guint8 *) s;
      break;
    }
    default:
      g_assert_not_reached ();
  }
  g_free (x);
  return bytes;
}

/* appsrc ! clresample ! appsink for the stream, in NULL. */
static void
stream_init (Stream * s, const StreamCfg * cfg)
{
  const char *layout = cfg->planar ? "non-interleaved" : "interleaved";
  gchar *in_caps = g_strdup_printf ("audio/x-raw,format=%s,layout=%s,"
      "rate=%d,channels=%d,channel-mask=(bitmask)0", cfg->format, layout,
      cfg->in_rate, cfg->channels);
  gchar *launch = g_strdup_printf ("appsrc name=src format=time caps=%s ! "
      "clresample name=resampler quality=%d ! audio/x-raw,format=%s,"
      "layout=%s,rate=%d ! appsink name=sink sync=false", in_caps,
      cfg->quality, cfg->format, layout, cfg->out_rate);
  GstCaps *caps = gst_caps_from_string (in_caps);
  GError *err = NULL;

  memset (s, 0, sizeof (*s));
  s->cfg = cfg;
  /* from the caps themselves: the audio meta of planar input must carry
   * the very info the element maps with (unpositioned channels) */
  fail_unless (gst_audio_info_from_caps (&s->info, caps));
  gst_caps_unref (caps);
  s->in = make_input (cfg, GST_AUDIO_INFO_FORMAT (&s->info));
  s->pipe = gst_parse_launch (launch, &err);
  fail_unless (s->pipe != NULL && err == NULL, "%s", launch);
  s->src = gst_bin_get_by_name (GST_BIN (s->pipe), "src");
  s->sink = gst_bin_get_by_name (GST_BIN (s->pipe), "sink");
  s->out = g_byte_array_new ();
  s->bufs = g_array_new (FALSE, FALSE, sizeof (OutBuf));
  g_free (launch);
  g_free (in_caps);
}

static void
stream_clear (Stream * s)
{
  gst_element_set_state (s->pipe, GST_STATE_NULL);
  gst_object_unref (s->src);
  gst_object_unref (s->sink);
  gst_object_unref (s->pipe);
  g_byte_array_unref (s->out);
  g_array_unref (s->bufs);
  g_free (s->in);
}

/* Forgets what came out so far. */
static void
stream_forget_output (Stream * s)
{
  g_byte_array_set_size (s->out, 0);
  g_array_set_size (s->bufs, 0);
  g_atomic_int_set (&s->done, FALSE);
}

static void
stream_play (Stream * s)
{
  fail_unless (gst_element_set_state (s->pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
}

static size_t
stream_pieces (const Stream * s)
{
  return (s->cfg->frames + s->cfg->piece - 1) / s->cfg->piece;
}

/* Input piece k, timestamped on the input frame counter from 0; planes
 * with their audio meta for non-interleaved streams. */
static GstBuffer *
make_piece (const Stream * s, size_t k)
{
  const size_t bps = GST_AUDIO_INFO_BPS (&s->info);
  const size_t bpf = GST_AUDIO_INFO_BPF (&s->info);
  const size_t pos = k * s->cfg->piece;
  const size_t len = MIN (s->cfg->piece, s->cfg->frames - pos);
  const guint8 *from = s->in + pos * bpf;
  GstBuffer *buf;

  if (s->cfg->planar) {
    guint8 *planes = g_malloc (len * bpf);
    size_t i, c;

    for (c = 0; c < (size_t) s->cfg->channels; c++)
      for (i = 0; i < len; i++)
        memcpy (planes + (c * len + i) * bps, from + i * bpf + c * bps, bps);
    buf = gst_buffer_new_wrapped (planes, len * bpf);
    gst_buffer_add_audio_meta (buf, &s->info, len, NULL);
  } else {
    buf = gst_buffer_new_memdup (from, len * bpf);
  }
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (pos, GST_SECOND,
      s->cfg->in_rate);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (pos + len,
      GST_SECOND, s->cfg->in_rate) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = pos;
  GST_BUFFER_OFFSET_END (buf) = pos + len;
  return buf;
}

/* Pushes pieces [from, to). */
static void
stream_push (Stream * s, size_t from, size_t to)
{
  GstFlowReturn ret;
  size_t k;

  for (k = from; k < to; k++) {
    GstBuffer *buf = make_piece (s, k);

    /* the signal takes a reference of its own */
    g_signal_emit_by_name (s->src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
}

static void
fail_on_error (Stream * s)
{
  GstBus *bus = gst_element_get_bus (s->pipe);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  gst_object_unref (bus);
  if (msg) {
    GError *err;
    gchar *debug;

    gst_message_parse_error (msg, &err, &debug);
    fail ("%s -> %d Hz: %s (%s)", s->cfg->format, s->cfg->out_rate,
        err->message, debug);
  }
}

/* Takes one output buffer into s->out (interleaved) and s->bufs; FALSE at
 * EOS. An error, or no EOS by the deadline, fails the test rather than
 * leaving it waiting forever. */
static gboolean
stream_pull (Stream * s, gint64 deadline)
{
  GstSample *sample = NULL;
  GstBuffer *buf;
  GstAudioInfo info;
  GstAudioBuffer ab;
  OutBuf ob;
  size_t bps, i, c;
  gboolean eos;

  while (!sample) {
    g_signal_emit_by_name (s->sink, "try-pull-sample", 50 * GST_MSECOND,
        &sample);
    if (sample)
      break;
    g_object_get (s->sink, "eos", &eos, NULL);
    if (eos) {
      /* appsrc ends the stream after an error too */
      fail_on_error (s);
      g_atomic_int_set (&s->done, TRUE);
      return FALSE;
    }
    fail_on_error (s);
    fail_unless (g_get_monotonic_time () < deadline, "%s %d -> %d Hz: no EOS",
        s->cfg->format, s->cfg->in_rate, s->cfg->out_rate);
  }
  buf = gst_sample_get_buffer (sample);
  fail_unless (gst_audio_info_from_caps (&info, gst_sample_get_caps (sample)));
  fail_unless_equals_int (GST_AUDIO_INFO_RATE (&info), s->cfg->out_rate);
  fail_unless (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ));
  bps = GST_AUDIO_INFO_BPS (&info);
  for (i = 0; i < ab.n_samples; i++)
    for (c = 0; c < (size_t) s->cfg->channels; c++)
      g_byte_array_append (s->out, s->cfg->planar ?
          (guint8 *) ab.planes[c] + i * bps :
          (guint8 *) ab.planes[0] + (i * s->cfg->channels + c) * bps, bps);
  ob.frames = ab.n_samples;
  gst_audio_buffer_unmap (&ab);
  ob.pts = GST_BUFFER_PTS (buf);
  ob.duration = GST_BUFFER_DURATION (buf);
  ob.offset = GST_BUFFER_OFFSET (buf);
  ob.offset_end = GST_BUFFER_OFFSET_END (buf);
  ob.discont = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT);
  ob.gap = GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP);
  g_array_append_val (s->bufs, ob);
  gst_sample_unref (sample);
  return TRUE;
}

/* EOS after what was pushed; takes everything up to it. */
static void
stream_finish (Stream * s)
{
  gint64 deadline = g_get_monotonic_time () + STREAM_DEADLINE;
  GstFlowReturn ret;

  g_signal_emit_by_name (s->src, "end-of-stream", &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  while (stream_pull (s, deadline));
}

/* The whole stream from NULL to EOS and back to NULL. */
static void
stream_run (Stream * s)
{
  stream_play (s);
  stream_push (s, 0, stream_pieces (s));
  stream_finish (s);
  fail_unless (gst_element_set_state (s->pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
}

/* The whole stream came out: exactly ceil (frames * out / in) frames, in
 * buffers that run on from one another, their timestamps and offsets on
 * the output frame counter from 0 (the stamps the element gives:
 * gst_util_uint64_scale_int, truncating), DISCONT only on the first and
 * no GAP (there was none in). Where the buffers end is the element's
 * business: held input (test-batching.c) or a shared launch may cut the
 * output elsewhere. */
static void
check_output (const Stream * s)
{
  const StreamCfg *cfg = s->cfg;
  guint64 total = 0;
  ClrRatio r;
  guint i;

  for (i = 0; i < s->bufs->len; i++) {
    const OutBuf *b = &g_array_index (s->bufs, OutBuf, i);

    fail_unless (b->frames > 0);
    fail_unless_equals_uint64 (b->offset, total);
    fail_unless_equals_uint64 (b->offset_end, total + b->frames);
    fail_unless_equals_clocktime (b->pts, gst_util_uint64_scale_int_round (total,
            GST_SECOND, cfg->out_rate));
    fail_unless_equals_clocktime (b->pts + b->duration,
        gst_util_uint64_scale_int_round (total + b->frames, GST_SECOND,
            cfg->out_rate));
    fail_unless_equals_int (b->discont, i == 0);
    fail_if (b->gap);
    total += b->frames;
  }
  clr_ratio_init (&r, cfg->in_rate, cfg->out_rate);
  fail_unless_equals_uint64 (total, clr_ratio_out_total (&r, cfg->frames));
  fail_unless_equals_uint64 (s->out->len, total * GST_AUDIO_INFO_BPF
      (&s->info));
}

/* The same samples, bit for bit, as the stream converted alone. */
static void
check_same (const Stream * got, const Stream * alone)
{
  const StreamCfg *cfg = got->cfg;

  fail_unless_equals_uint64 (got->out->len, alone->out->len);
  fail_unless (memcmp (got->out->data, alone->out->data,
          got->out->len) == 0, "%s %s %d ch %d -> %d Hz q%d: other samples "
      "than alone", cfg->format, cfg->planar ? "planar" : "interleaved",
      cfg->channels, cfg->in_rate, cfg->out_rate, cfg->quality);
}

/* Each config converted alone, one after the other: the references. */
static Stream *
run_alone (const StreamCfg * cfgs, guint n)
{
  Stream *alone = g_new (Stream, n);
  guint i;

  for (i = 0; i < n; i++) {
    stream_init (&alone[i], &cfgs[i]);
    stream_run (&alone[i]);
    check_output (&alone[i]);
  }
  return alone;
}

static void
free_streams (Stream * streams, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    stream_clear (&streams[i]);
  g_free (streams);
}

/* A stream on its own thread: playing, then held at `start` until every
 * stream is, so that they all push at once. */
typedef struct
{
  Stream *stream;
  Gate *start;                  /* NULL: go at once */
  Gate *finished;               /* NULL: nobody waits */
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;

  stream_play (j->stream);
  if (j->start)
    gate_pass (j->start);
  stream_push (j->stream, 0, stream_pieces (j->stream));
  stream_finish (j->stream);
  fail_unless (gst_element_set_state (j->stream->pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  if (j->finished)
    gate_arrive (j->finished);
  return NULL;
}

/* Every stream of the mix at once, each pushed from its own thread, gives
 * what it gives alone. */
GST_START_TEST (test_concurrent_identical_to_alone)
{
  const guint n = G_N_ELEMENTS (mix);
  Stream *alone = run_alone (mix, n), *together = g_new (Stream, n);
  GThread **threads = g_new (GThread *, n);
  Job *jobs = g_new (Job, n);
  Gate start;
  guint i;

  gate_init (&start);
  for (i = 0; i < n; i++) {
    stream_init (&together[i], &mix[i]);
    jobs[i].stream = &together[i];
    jobs[i].start = &start;
    jobs[i].finished = NULL;
    threads[i] = g_thread_new ("stream", run_job, &jobs[i]);
  }
  fail_unless (gate_wait_count (&start, n, g_get_monotonic_time () +
          STREAM_DEADLINE));
  gate_open (&start);
  for (i = 0; i < n; i++)
    g_thread_join (threads[i]);
  for (i = 0; i < n; i++) {
    GST_INFO ("stream %u: %zu pieces in, %u buffers out alone, %u at once",
        i, stream_pieces (&alone[i]), alone[i].bufs->len,
        together[i].bufs->len);
    check_output (&together[i]);
    check_same (&together[i], &alone[i]);
  }
  gate_clear (&start);
  g_free (jobs);
  g_free (threads);
  free_streams (together, n);
  free_streams (alone, n);
}

GST_END_TEST;

/* How long the others may take while one stream is stalled: alone each
 * takes well under a second; an instance that waited for the stalled one
 * would wait for ever (the stall lasts until they are done). */
#define OTHERS_DEADLINE (20 * G_TIME_SPAN_SECOND)

/* Four streams at once; one of them stops `quarters` quarters into its
 * stream, its streaming thread shut in either before clresample (no more
 * input comes: the element waits with part of a stream in it, past the
 * first second of a fast stream some of it held back unconverted) or
 * after it (the element's push to the sink does not return). The three
 * others run to EOS, complete and the same as alone, while it stays
 * stalled; released, it completes too. */
static void
check_stall (gboolean in_output, guint quarters)
{
  static const guint which[] = { 0, 1, 4, 7 };
  const guint n = G_N_ELEMENTS (which);
  StreamCfg cfgs[G_N_ELEMENTS (which)];
  Stream *alone, *together = g_new (Stream, n);
  GThread *threads[G_N_ELEMENTS (which)];
  Job jobs[G_N_ELEMENTS (which)];
  Gate finished;
  Stall stall;
  GstElement *e;
  GstPad *pad;
  gint64 t0, took;
  guint i;

  for (i = 0; i < n; i++)
    cfgs[i] = mix[which[i]];
  alone = run_alone (cfgs, n);
  gate_init (&finished);
  gate_init (&stall.gate);
  for (i = 0; i < n; i++)
    stream_init (&together[i], &cfgs[i]);

  /* buffer offsets count frames, of the input before clresample and of
   * the output after it; 0 quarters: the second buffer (the first one
   * starts at 0) */
  if (in_output) {
    ClrRatio r;

    clr_ratio_init (&r, cfgs[0].in_rate, cfgs[0].out_rate);
    e = gst_object_ref (together[0].sink);
    stall.at = MAX (1, clr_ratio_out_total (&r, cfgs[0].frames) * quarters /
        4);
  } else {
    e = gst_bin_get_by_name (GST_BIN (together[0].pipe), "resampler");
    stall.at = MAX (1, cfgs[0].frames * quarters / 4);
  }
  pad = gst_element_get_static_pad (e, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stall_probe, &stall,
      NULL);
  gst_object_unref (pad);
  gst_object_unref (e);

  jobs[0].stream = &together[0];
  jobs[0].start = jobs[0].finished = NULL;
  threads[0] = g_thread_new ("stalled", run_job, &jobs[0]);
  fail_unless (gate_wait_count (&stall.gate, 1, g_get_monotonic_time () +
          STREAM_DEADLINE), "the stream to stall never got there");

  t0 = g_get_monotonic_time ();
  for (i = 1; i < n; i++) {
    jobs[i].stream = &together[i];
    jobs[i].start = NULL;
    jobs[i].finished = &finished;
    threads[i] = g_thread_new ("stream", run_job, &jobs[i]);
  }
  fail_unless (gate_wait_count (&finished, n - 1, t0 + OTHERS_DEADLINE),
      "%u of %u streams done %d s into another's stall", finished.count,
      n - 1, (int) (OTHERS_DEADLINE / G_TIME_SPAN_SECOND));
  took = g_get_monotonic_time () - t0;
  GST_INFO ("stall in %s at %u/4: the others done in %" G_GINT64_FORMAT
      " ms", in_output ? "output" : "input", quarters, took / 1000);
  /* still shut in, short of its EOS */
  fail_if (g_atomic_int_get (&together[0].done));
  for (i = 1; i < n; i++) {
    g_thread_join (threads[i]);
    check_output (&together[i]);
    check_same (&together[i], &alone[i]);
  }

  gate_open (&stall.gate);
  g_thread_join (threads[0]);
  check_output (&together[0]);
  check_same (&together[0], &alone[0]);

  gate_clear (&finished);
  gate_clear (&stall.gate);
  free_streams (together, n);
  free_streams (alone, n);
}

GST_START_TEST (test_stalled_stream_does_not_hold_others)
{
  check_stall (TRUE, 0);
  check_stall (TRUE, 3);
  check_stall (FALSE, 3);
}

GST_END_TEST;

/* Waits for the pipeline to reach PLAYING on the input pushed so far.
 * GStreamer (1.22) now and then leaves a pipeline that goes NULL ->
 * PLAYING right after a NULL with input in flight prerolled in PAUSED for
 * good, its sink waiting to play (seen under AddressSanitizer's slow
 * allocations, with the element before the device scheduler too, and with
 * no thread in the element): the state is asked for again, which is no
 * part of what the test checks. */
static void
settle_playing (Stream * s)
{
  GstState state = GST_STATE_VOID_PENDING;
  int tries;

  for (tries = 0; tries < 5; tries++) {
    if (gst_element_get_state (s->pipe, &state, NULL, 2 * GST_SECOND) ==
        GST_STATE_CHANGE_SUCCESS && state == GST_STATE_PLAYING)
      return;
    fail_if (state == GST_STATE_NULL);
    fail_unless (gst_element_set_state (s->pipe, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
  }
  fail ("the pipeline never reached PLAYING");
}

/* Cycles the abused stream goes through while the three others run. */
#define ABUSE_CYCLES 8

typedef struct
{
  Stream *stream;
  Gate *cycles;                 /* count: the abuser's cycles done */
} PacedJob;

/* One of the three: piece k goes in only once the abuser has done
 * k * ABUSE_CYCLES / pieces of its cycles, so that the cycles fall inside
 * the stream whatever the speed of the machine. */
static gpointer
run_paced (gpointer data)
{
  PacedJob *j = data;
  const size_t pieces = stream_pieces (j->stream);
  size_t k;

  stream_play (j->stream);
  for (k = 0; k < pieces; k++) {
    fail_unless (gate_wait_count (j->cycles, k * ABUSE_CYCLES / pieces,
            g_get_monotonic_time () + STREAM_DEADLINE));
    stream_push (j->stream, k, k + 1);
  }
  stream_finish (j->stream);
  fail_unless (gst_element_set_state (j->stream->pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  return NULL;
}

/* While three streams run, a fourth goes through NULL -> PLAYING -> NULL
 * cycles with a third or three quarters of its stream pushed (past the
 * first second of a fast stream the element holds input back): in every
 * other cycle it is flushed (flush-start and flush-stop from appsrc) and
 * then converts a whole stream, which must come out as the stream does
 * alone; in the rest it is set to NULL with input still on its way
 * through. The three others' output stays what it is alone. */
GST_START_TEST (test_flush_and_null_while_others_run)
{
  static const guint which[] = { 0, 2, 4, 1 };      /* the last: abused */
  const guint n = G_N_ELEMENTS (which), others = n - 1;
  StreamCfg cfgs[G_N_ELEMENTS (which)];
  Stream *alone, *together = g_new (Stream, n), *a = &together[others];
  GThread *threads[G_N_ELEMENTS (which)];
  PacedJob jobs[G_N_ELEMENTS (which)];
  Gate cycles;
  guint i, k;

  for (i = 0; i < n; i++)
    cfgs[i] = mix[which[i]];
  alone = run_alone (cfgs, n);
  gate_init (&cycles);
  for (i = 0; i < n; i++)
    stream_init (&together[i], &cfgs[i]);
  for (i = 0; i < others; i++) {
    jobs[i].stream = &together[i];
    jobs[i].cycles = &cycles;
    threads[i] = g_thread_new ("stream", run_paced, &jobs[i]);
  }

  for (k = 0; k < ABUSE_CYCLES; k++) {
    stream_forget_output (a);
    stream_play (a);
    stream_push (a, 0, k % 4 < 2 ? stream_pieces (a) / 3 :
        stream_pieces (a) * 3 / 4);
    settle_playing (a);
    /* with some output out, the element has a stream going; in cycle 1
     * it may not have started yet */
    if (k != 1)
      fail_unless (stream_pull (a, g_get_monotonic_time () +
              STREAM_DEADLINE));
    if (k % 2 == 0) {
      fail_unless (gst_element_send_event (a->src,
              gst_event_new_flush_start ()));
      fail_unless (gst_element_send_event (a->src,
              gst_event_new_flush_stop (TRUE)));
      stream_forget_output (a);
      stream_push (a, 0, stream_pieces (a));
      stream_finish (a);
      check_output (a);
      check_same (a, &alone[others]);
    }
    fail_unless (gst_element_set_state (a->pipe, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS);
    gate_arrive (&cycles);
  }

  for (i = 0; i < others; i++) {
    g_thread_join (threads[i]);
    check_output (&together[i]);
    check_same (&together[i], &alone[i]);
  }
  gate_clear (&cycles);
  free_streams (together, n);
  free_streams (alone, n);
}

GST_END_TEST;

/* Short streams from audiotestsrc, each config converted many times on
 * several threads at once: every run's output must be what the config
 * gives alone, bit for bit (a checksum), and as long as it must be. */
typedef struct
{
  const char *format;
  int in_rate, out_rate, channels, quality;
  int buffers, samples;         /* num-buffers, samplesperbuffer */
} ShortCfg;

static const ShortCfg shorts[] = {
  {"F32LE", 44100, 48000, 2, 4, 3, 441},
  {"S16LE", 48000, 44100, 1, 0, 4, 480},
  {"F64LE", 44100, 96000, 6, 0, 2, 1000},
  {"S32LE", 8000, 16000, 1, 10, 5, 64},
  {"F32LE", 96000, 44100, 6, 4, 3, 1000},
  {"S16LE", 44100, 48000, 2, 0, 6, 64},
  {"F32LE", 8000, 16000, 2, 4, 3, 441},
  {"F64LE", 48000, 44100, 1, 4, 2, 480},
};

#define CREATE_THREADS 8
#define CREATE_RUNS 10

/* What every run of a config must give: its checksum alone. */
static gchar *short_sum[G_N_ELEMENTS (shorts)];

typedef struct
{
  const ShortCfg *cfg;
  gsize bpf;
  guint64 frames;
  gboolean stamps_ok;           /* each buffer starts where the last ended */
  GChecksum *sum;
} ShortRun;

static GstPadProbeReturn
count_output (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  ShortRun *run = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;

  run->stamps_ok &= GST_BUFFER_OFFSET (buf) == run->frames &&
      GST_BUFFER_PTS (buf) == gst_util_uint64_scale_int_round (run->frames,
      GST_SECOND, run->cfg->out_rate);
  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_checksum_update (run->sum, map.data, map.size);
  run->frames += map.size / run->bpf;
  gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

/* One run of shorts[index]; alone, it sets the checksum the others must
 * give. */
static void
run_short (guint index, gboolean alone)
{
  const ShortCfg *cfg = &shorts[index];
  gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=%d "
      "samplesperbuffer=%d freq=%d ! audio/x-raw,format=%s,rate=%d,"
      "channels=%d,layout=interleaved ! clresample quality=%d ! "
      "audio/x-raw,rate=%d ! fakesink name=sink sync=false", cfg->buffers,
      cfg->samples, 200 + 100 * index, cfg->format, cfg->in_rate,
      cfg->channels, cfg->quality, cfg->out_rate);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (pipe);
  ShortRun run = { cfg, cfg->channels * GST_AUDIO_FORMAT_INFO_WIDTH
        (gst_audio_format_get_info (gst_audio_format_from_string
            (cfg->format))) / 8, 0, TRUE, g_checksum_new (G_CHECKSUM_SHA256)
  };
  GstMessage *msg;
  ClrRatio r;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_output, &run,
      NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, STREAM_DEADLINE * GST_USECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "%s: no EOS", launch);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err;

    gst_message_parse_error (msg, &err, NULL);
    fail ("%s: %s", launch, err->message);
  }
  gst_message_unref (msg);
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);

  clr_ratio_init (&r, cfg->in_rate, cfg->out_rate);
  fail_unless_equals_uint64 (run.frames, clr_ratio_out_total (&r,
          (guint64) cfg->buffers * cfg->samples));
  fail_unless (run.stamps_ok, "%s: stamps not contiguous", launch);
  if (alone)
    short_sum[index] = g_strdup (g_checksum_get_string (run.sum));
  else
    fail_unless_equals_string (g_checksum_get_string (run.sum),
        short_sum[index]);

  g_checksum_free (run.sum);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
}

static gpointer
create_destroy (gpointer data)
{
  guint t = GPOINTER_TO_UINT (data), k;

  /* each thread its own order through the configs (a step prime to
   * their number: every thread meets every config) */
  for (k = 0; k < CREATE_RUNS; k++)
    run_short ((t + k * (2 * t + 1)) % G_N_ELEMENTS (shorts), FALSE);
  return NULL;
}

/* CREATE_THREADS threads each create, run and destroy CREATE_RUNS short
 * pipelines, one after the other, with the configs in their own order. */
GST_START_TEST (test_create_destroy_many_threads)
{
  GThread *threads[CREATE_THREADS];
  guint t;

  for (t = 0; t < G_N_ELEMENTS (shorts); t++)
    run_short (t, TRUE);
  for (t = 0; t < CREATE_THREADS; t++)
    threads[t] = g_thread_new ("create", create_destroy, GUINT_TO_POINTER (t));
  for (t = 0; t < CREATE_THREADS; t++)
    g_thread_join (threads[t]);
  for (t = 0; t < G_N_ELEMENTS (shorts); t++)
    g_clear_pointer (&short_sum[t], g_free);
}

GST_END_TEST;

static Suite *
streams_suite (void)
{
  Suite *s = suite_create ("clresample-streams");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 180);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_concurrent_identical_to_alone);
  tcase_add_test (tc, test_stalled_stream_does_not_hold_others);
  tcase_add_test (tc, test_flush_and_null_while_others_run);
  tcase_add_test (tc, test_create_destroy_many_threads);
  return s;
}

GST_CHECK_MAIN (streams);
