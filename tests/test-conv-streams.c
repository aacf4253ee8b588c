/* clresample: many streaming convolutions (clr-conv.h) at once in one
 * process, on the real OpenCL device, under the tuning that runs them
 * through the device's shared scheduler (ClrTuning.conv_shared: every
 * stream's blocks in batches with the others', streams of the same
 * configuration and filter in one launch, device state pooled). However
 * the streams are batched, each must come out as it does alone, bit for
 * bit, and exactly as long as it must be: a mix of configurations on
 * threads of their own, among them three of one configuration and filter
 * and a fourth of that configuration with another filter; a stream reset,
 * or freed and created anew, while others of its configuration run; input
 * histories read back while others run; real clfirfilter and clcrossover
 * pipelines side by side, and with one of them stalled. Each stream is
 * also checked against a float64 direct convolution, so that streams that
 * agree with themselves alone but are wrong fail too. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>
#include "clr-audio-check.h"
#include "clr-conv-check.h"
#include "clr-gate.h"
#include "conv/clr-conv.h"

/* How long a stream may take before the test calls it hung: far above
 * what any stream here needs (a few seconds on 2 CPU cores), far below
 * the test's timeout, so that a hang fails with a message. */
#define DEADLINE (60 * G_TIME_SPAN_SECOND)

/* Relative RMS error against the float64 reference: F32 is measured at
 * 3e-7 of the RMS at worst and F64 at 1e-13 (test-conv,
 * docs/convolution.md); a stream given another's block or filter is off
 * by about 1. */
#define F32_RMS_MAX 1e-5
#define F64_RMS_MAX 1e-10

/* A stream's calls cycle through this many sizes. */
#define N_PIECES 32

/* Output planes are allocated this many frames past their end, as NaN:
 * a write past the frames the stream must give shows there. */
#define GUARD 64

static ClrDevice *device;
/* the environment's tuning with conv_shared on (and the device's kernels,
 * not the host's transforms, which CPU devices run by default) */
static ClrTuning tuning;

/* ---- convolution streams ------------------------------------------------ */

typedef enum
{
  VIA_PROCESS,                  /* clr_conv_process (): planes both ways */
  VIA_SINK,                     /* clr_conv_process_to (): the output
                                 * handed to a sink */
  VIA_SOURCE,                   /* clr_conv_process_with (): the input from
                                 * a source too */
} Via;

typedef struct
{
  const char *name;
  unsigned channels, block;
  gboolean f64;                 /* F64 where the device has doubles */
  size_t taps;
  gboolean per_channel;         /* a filter a channel (in each band) */
  unsigned outputs;             /* bands: outputs a channel (0: one) */
  gboolean interleaved, planar_outputs;
  size_t history;               /* input frames kept to be read back */
  unsigned filter;              /* the first of clr_check_filters ()'s
                                 * filters it takes: streams of the same
                                 * filter and taps have the same filter */
  size_t frames;
  guint64 seed;                 /* of its noise and of its calls' sizes */
  Via via;
} StreamCase;

/* Blocks of 64, 256 and 1024; 100 taps (less than a block) to 5000 (20
 * partitions); 1, 2 and 6 channels; F32 and F64; planes and interleaved;
 * one filter for all channels, one a channel, three bands. The first
 * three share their configuration and filter (one launch for the three),
 * the fourth and fifth have that configuration but another filter or an
 * input history. Lengths no multiple of the block. */
static const StreamCase mix[] = {
  /* name, ch, B, f64, taps, each, outputs, interleaved, planar outputs,
   * history, filter, frames, seed, via */
  {"64-1000taps-2ch-a", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE, 0, 0,
      20000 + 13, 1, VIA_PROCESS},
  {"64-1000taps-2ch-b", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE, 0, 0,
      20000 + 51, 2, VIA_SINK},
  {"64-1000taps-2ch-c", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE, 0, 0,
      16000 + 7, 3, VIA_SOURCE},
  {"64-1000taps-2ch-other-filter", 2, 64, FALSE, 1000, FALSE, 0, FALSE,
      FALSE, 0, 1, 20000 + 13, 4, VIA_PROCESS},
  {"64-1000taps-2ch-history", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE,
      3000, 0, 18000 + 1, 5, VIA_PROCESS},
  {"256-5000taps-6ch-each-f64-interleaved", 6, 256, TRUE, 5000, TRUE, 0,
      TRUE, FALSE, 0, 0, 15000 + 3, 6, VIA_SINK},
  {"256-100taps-1ch", 1, 256, FALSE, 100, FALSE, 0, FALSE, FALSE, 0, 0,
      20000 + 9, 7, VIA_PROCESS},
  /* as clcrossover runs: bands of one input, interleaved, the bands in
   * planes */
  {"256-2000taps-2ch-3-bands-interleaved", 2, 256, FALSE, 2000, FALSE, 3,
      TRUE, TRUE, 0, 0, 20000 + 1, 8, VIA_SOURCE},
  {"1024-4000taps-2ch-each-interleaved", 2, 1024, FALSE, 4000, TRUE, 0, TRUE,
      FALSE, 0, 0, 30000 + 1, 9, VIA_PROCESS},
  {"128-300taps-6ch-f64", 6, 128, TRUE, 300, FALSE, 0, FALSE, FALSE, 0, 2,
      12000 + 5, 10, VIA_SINK},
};

/* A stream set up: its filters and input, and the sizes of its calls. */
typedef struct
{
  const StreamCase *sc;
  ClrConvFormat format;
  size_t ss;                    /* bytes a sample */
  unsigned n_filters, n_out;
  double **filters;             /* sc->filter + n_filters of them */
  double **x;                   /* the input as the engine sees it */
  void **in;                    /* the same in the engine's format */
  size_t pieces[N_PIECES];
  size_t total;                 /* output frames: frames + drain */
} Stream;

static void
stream_init (Stream * s, const StreamCase * sc)
{
  GRand *r = g_rand_new_with_seed (sc->seed);
  unsigned ch, i;
  size_t n;

  s->sc = sc;
  s->format = sc->f64 && clr_device_has_fp64 (device) ? CLR_CONV_F64 :
      CLR_CONV_F32;
  s->ss = s->format == CLR_CONV_F64 ? 8 : 4;
  s->n_filters = (sc->per_channel ? sc->channels : 1) * MAX (sc->outputs, 1);
  s->n_out = sc->channels * MAX (sc->outputs, 1);
  s->filters = clr_check_filters (sc->filter + s->n_filters, sc->taps);
  s->x = g_new (double *, sc->channels);
  s->in = g_new (void *, sc->channels);
  for (ch = 0; ch < sc->channels; ch++) {
    guint64 state = sc->seed * 1000 + ch;

    s->x[ch] = g_new (double, sc->frames);
    s->in[ch] = g_malloc (sc->frames * s->ss);
    for (n = 0; n < sc->frames; n++) {
      double v = 0.5 * clr_check_uniform (&state);

      if (s->format == CLR_CONV_F64) {
        ((double *) s->in[ch])[n] = v;
      } else {
        ((float *) s->in[ch])[n] = (float) v;
        v = (float) v;
      }
      s->x[ch][n] = v;
    }
  }
  /* calls of less than a block and of several blocks, in turn: blocks
   * completed in one call and across calls, and calls that complete none */
  for (i = 0; i < N_PIECES; i++)
    s->pieces[i] = i % 2 ? g_rand_int_range (r, sc->block, 5 * sc->block) :
        g_rand_int_range (r, 1, sc->block);
  g_rand_free (r);
  s->total = sc->frames + sc->block + sc->taps - 1;
}

static void
stream_clear (Stream * s)
{
  clr_check_free_planes (s->filters, s->sc->filter + s->n_filters);
  clr_check_free_planes (s->x, s->sc->channels);
  clr_check_free_planes (s->in, s->sc->channels);
}

static const double *
stream_filter_of (const Stream * s, unsigned o)
{
  /* output plane o: band o / channels of channel o % channels */
  return s->filters[s->sc->filter + (s->sc->per_channel ? o :
          o / s->sc->channels)];
}

/* A new engine for the stream, under the shared tuning. */
static ClrConv *
stream_conv (const Stream * s)
{
  const StreamCase *sc = s->sc;
  ClrConvConfig cfg = { 0, };
  GError *err = NULL;
  ClrConv *c;

  cfg.channels = sc->channels;
  cfg.block = sc->block;
  cfg.format = s->format;
  cfg.taps = (const double *const *) s->filters + sc->filter;
  cfg.n_taps = sc->taps;
  cfg.n_filters = s->n_filters;
  cfg.outputs = sc->outputs;
  cfg.history = sc->history;
  cfg.interleaved = sc->interleaved;
  cfg.planar_outputs = sc->planar_outputs;
  c = clr_conv_new_tuned (device, &cfg, &tuning, &err);
  g_assert_no_error (err);
  g_assert_nonnull (c);
  g_assert_cmpuint (clr_conv_get_latency (c), ==, sc->block);
  g_assert_cmpuint (clr_conv_get_drain_frames (c), ==,
      sc->block + sc->taps - 1);
  g_assert_cmpuint (clr_conv_get_outputs (c), ==, s->n_out);
  return c;
}

/* Output planes of s->total frames and GUARD more, every byte 0xff: NaN
 * in either format, which no output sample is. */
static char **
output_new (const Stream * s)
{
  char **out = g_new (char *, s->n_out);
  unsigned o;

  for (o = 0; o < s->n_out; o++) {
    out[o] = g_malloc ((s->total + GUARD) * s->ss);
    memset (out[o], 0xff, (s->total + GUARD) * s->ss);
  }
  return out;
}

static void
output_free (const Stream * s, char **out)
{
  clr_check_free_planes (out, s->n_out);
}

static gboolean
is_nan_at (const Stream * s, const char *plane, size_t t)
{
  return s->format == CLR_CONV_F64 ? isnan (((const double *) plane)[t]) :
      isnan (((const float *) plane)[t]);
}

/* Exactly s->total frames were written: every one of them, and not one
 * past them. */
static void
output_check_exact (const Stream * s, char **out)
{
  unsigned o;
  size_t t;

  for (o = 0; o < s->n_out; o++) {
    for (t = 0; t < s->total; t++)
      if (is_nan_at (s, out[o], t))
        break;
    g_assert_cmpuint (t, ==, s->total);
    for (t = s->total * s->ss; t < (s->total + GUARD) * s->ss; t++)
      g_assert_cmpuint ((guint8) out[o][t], ==, 0xff);
  }
}

/* clr_conv_process_to ()'s sink: output k's frames into plane k from
 * frame `at` on. */
typedef struct
{
  const Stream *s;
  char *const *out;
  size_t at;
} SinkPos;

static void
to_planes (gpointer user, const void *base, size_t pitch, size_t step,
    size_t n)
{
  SinkPos *p = user;
  const size_t ss = p->s->ss;
  unsigned k;
  size_t i;

  for (k = 0; k < p->s->n_out; k++)
    for (i = 0; i < n; i++)
      memcpy (p->out[k] + (p->at + i) * ss,
          (const char *) base + (k * pitch + i * step) * ss, ss);
  p->at += n;
}

/* clr_conv_process_with ()'s source: the call's frames from the input
 * planes, asked for in order. */
typedef struct
{
  const Stream *s;
  const void *const *in;
  size_t next;
} SourcePos;

static void
from_planes (gpointer user, void *base, size_t pitch, size_t step,
    size_t from, size_t n)
{
  SourcePos *p = user;
  const size_t ss = p->s->ss;
  unsigned c;
  size_t i;

  g_assert_cmpuint (from, ==, p->next);
  for (c = 0; c < p->s->sc->channels; c++)
    for (i = 0; i < n; i++)
      memcpy ((char *) base + (c * pitch + i * step) * ss,
          (const char *) p->in[c] + (from + i) * ss, ss);
  p->next = from + n;
}

/* One call of len frames, by the stream's way in. */
static void
process (const Stream * s, ClrConv * c, const void *const *in, size_t len,
    void *const *out)
{
  SinkPos sink = { s, (char *const *) out, 0 };
  SourcePos source = { s, in, 0 };
  GError *err = NULL;

  switch (s->sc->via) {
    case VIA_PROCESS:
      g_assert_true (clr_conv_process (c, in, len, out, &err));
      g_assert_no_error (err);
      break;
    case VIA_SINK:
      g_assert_true (clr_conv_process_to (c, in, len, to_planes, &sink,
              &err));
      g_assert_no_error (err);
      g_assert_cmpuint (sink.at, ==, len);
      break;
    case VIA_SOURCE:
      g_assert_true (clr_conv_process_with (c, from_planes, &source, len,
              to_planes, &sink, &err));
      g_assert_no_error (err);
      g_assert_cmpuint (source.next, ==, len);
      g_assert_cmpuint (sink.at, ==, len);
      break;
  }
}

/* The history holds the last MIN (pos, history) frames fed, bit for bit:
 * all of it, and a piece of its middle. */
static void
check_history (const Stream * s, ClrConv * c, size_t pos, void **got)
{
  const size_t len = MIN (pos, s->sc->history);
  GError *err = NULL;
  unsigned k, ch;

  g_assert_cmpuint (clr_conv_get_history_len (c), ==, len);
  for (k = 0; k < 2; k++) {
    size_t back = len - k * len / 3, n = k ? back / 2 : back;

    if (n == 0)
      continue;
    g_assert_true (clr_conv_read_history (c, back, n, got, &err));
    g_assert_no_error (err);
    for (ch = 0; ch < s->sc->channels; ch++)
      g_assert_true (memcmp (got[ch], (const char *) s->in[ch] +
              (pos - back) * s->ss, n * s->ss) == 0);
  }
}

/* Lockstep with another thread's `steps` cycles: a stream's call that
 * starts in step j of its input (cut in `steps` equal parts) waits until
 * `cycles` has counted j, and `reached` counts each step a stream has fed
 * whole; so each of the other thread's cycles runs while the streams are
 * fed. */
typedef struct
{
  Gate *cycles, *reached;
  guint steps;
} Pace;

/* Feeds input frames [0, frames) to c in the stream's calls, each call's
 * output to the same frames of out. With `pace`, in lockstep as it says;
 * with `history`, the history read back after every call. */
static void
feed (const Stream * s, ClrConv * c, size_t frames, char **out,
    const Pace * pace, gboolean history)
{
  const void *ip[CLR_CONV_CHANNELS_MAX];
  void *op[CLR_CONV_OUTPUTS_MAX];
  void **got = NULL;
  size_t pos = 0, len;
  guint i = 0, step, stepped = 0;
  unsigned ch;

  if (history && s->sc->history) {
    got = g_new (void *, s->sc->channels);
    for (ch = 0; ch < s->sc->channels; ch++)
      got[ch] = g_malloc (s->sc->history * s->ss);
  }
  while (pos < frames) {
    if (pace) {
      step = pos * pace->steps / frames;
      for (; stepped < step; stepped++)
        gate_arrive (pace->reached);
      g_assert_true (gate_wait_count (pace->cycles, step,
              g_get_monotonic_time () + DEADLINE));
    }
    len = MIN (s->pieces[i % N_PIECES], frames - pos);
    i++;
    for (ch = 0; ch < s->sc->channels; ch++)
      ip[ch] = (const char *) s->in[ch] + pos * s->ss;
    for (ch = 0; ch < s->n_out; ch++)
      op[ch] = out[ch] + pos * s->ss;
    process (s, c, ip, len, op);
    pos += len;
    if (got)
      check_history (s, c, pos, got);
  }
  if (got)
    clr_check_free_planes (got, s->sc->channels);
}

/* The whole stream through c, then the drain: its s->total frames. */
static char **
run_whole (const Stream * s, ClrConv * c, const Pace * pace,
    gboolean history)
{
  char **out = output_new (s);
  void *op[CLR_CONV_OUTPUTS_MAX];
  GError *err = NULL;
  unsigned o;

  feed (s, c, s->sc->frames, out, pace, history);
  for (o = 0; o < s->n_out; o++)
    op[o] = out[o] + s->sc->frames * s->ss;
  g_assert_true (clr_conv_drain (c, op, &err));
  g_assert_no_error (err);
  output_check_exact (s, out);
  return out;
}

/* The stream through an engine of its own, with nothing else running. */
static char **
run_alone (const Stream * s)
{
  ClrConv *c = stream_conv (s);
  char **out = run_whole (s, c, NULL, FALSE);

  clr_conv_free (c);
  return out;
}

/* The same samples, bit for bit, as alone. */
static void
check_same (const Stream * s, char **got, char **alone)
{
  unsigned o;
  size_t t;

  for (o = 0; o < s->n_out; o++) {
    if (memcmp (got[o], alone[o], s->total * s->ss) == 0)
      continue;
    for (t = 0; memcmp (got[o] + t * s->ss, alone[o] + t * s->ss, s->ss) == 0;
        t++);
    g_test_message ("%s: output %u differs from alone's from frame %"
        G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT, s->sc->name, o, t, s->total);
    g_assert_cmpuint (t, ==, s->total);
  }
}

/* Against the float64 direct convolution: output frame t is y[t - L], the
 * first L frames exact zeros; every frame of both ends and every
 * stride-th in between (about 2e7 multiply-adds a stream). */
static void
check_reference (const Stream * s, char **out)
{
  const StreamCase *sc = s->sc;
  const size_t L = sc->block;
  const size_t stride = MAX (1, (guint64) s->total * sc->taps * s->n_out /
      20000000) | 1;
  double err_sq = 0.0, sum_sq = 0.0, rel;
  ClrCheckRun ref = { NULL, };
  unsigned o;
  size_t t;

  for (o = 0; o < s->n_out; o++) {
    const double *h = stream_filter_of (s, o);
    const double *x = s->x[o % sc->channels];

    for (t = 0; t < s->total; t += t < 2 * L || t + 2 * L > s->total ? 1 :
        stride) {
      double got = s->format == CLR_CONV_F64 ? ((double *) out[o])[t] :
          ((float *) out[o])[t], want;

      if (t < L) {
        g_assert_cmpfloat (got, ==, 0.0);
        continue;
      }
      want = clr_check_direct_at (&ref, h, sc->taps, x, sc->frames, t - L);
      err_sq += (got - want) * (got - want);
      sum_sq += want * want;
    }
  }
  rel = sqrt (err_sq / sum_sq);
  g_test_message ("%s: RMS error %.3g of the output's RMS", sc->name, rel);
  g_assert_cmpfloat (rel, <=, s->format == CLR_CONV_F64 ? F64_RMS_MAX :
      F32_RMS_MAX);
}

/* A stream fed from a thread of its own: its engine created there, then
 * held at `start` until every stream's is, so that they all run at once. */
typedef struct
{
  const Stream *s;
  Gate *start;
  const Pace *pace;
  gboolean history;
  GThread *thread;
  char **out;
} Job;

static gpointer
run_job (gpointer data)
{
  Job *j = data;
  ClrConv *c = stream_conv (j->s);

  gate_pass (j->start);
  j->out = run_whole (j->s, c, j->pace, j->history);
  if (j->history) {
    clr_conv_reset (c);
    g_assert_cmpuint (clr_conv_get_history_len (c), ==, 0);
  }
  clr_conv_free (c);
  return NULL;
}

typedef struct
{
  Gate start;
  guint n;
  Job *jobs;
} Together;

/* Starts every stream on its thread; returns once all are being fed. */
static void
together_start (Together * t, const Stream * streams, guint n,
    const Pace * pace, gboolean history)
{
  guint i;

  gate_init (&t->start);
  t->n = n;
  t->jobs = g_new0 (Job, n);
  for (i = 0; i < n; i++) {
    t->jobs[i].s = &streams[i];
    t->jobs[i].start = &t->start;
    t->jobs[i].pace = pace;
    t->jobs[i].history = history;
    t->jobs[i].thread = g_thread_new (streams[i].sc->name, run_job,
        &t->jobs[i]);
  }
  g_assert_true (gate_wait_count (&t->start, n, g_get_monotonic_time () +
          DEADLINE));
  gate_open (&t->start);
}

static void
together_join (Together * t)
{
  guint i;

  for (i = 0; i < t->n; i++)
    g_thread_join (t->jobs[i].thread);
}

static void
together_clear (Together * t)
{
  guint i;

  for (i = 0; i < t->n; i++)
    output_free (t->jobs[i].s, t->jobs[i].out);
  g_free (t->jobs);
  gate_clear (&t->start);
}

static Stream *
streams_new (const StreamCase * cases, guint n)
{
  Stream *s = g_new (Stream, n);
  guint i;

  for (i = 0; i < n; i++)
    stream_init (&s[i], &cases[i]);
  return s;
}

static void
streams_free (Stream * s, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    stream_clear (&s[i]);
  g_free (s);
}

/* Every stream of `cfgs` at once, each fed from its own thread (reading
 * its history back as it goes where read_history), then each alone: the
 * same output bit for bit, and right. */
static void
check_together_equals_alone (const StreamCase * cfgs, guint n,
    gboolean read_history)
{
  Stream *s = streams_new (cfgs, n);
  Together t;
  guint i;

  together_start (&t, s, n, NULL, read_history);
  together_join (&t);
  for (i = 0; i < n; i++) {
    char **alone = run_alone (&s[i]);

    check_same (&s[i], t.jobs[i].out, alone);
    check_reference (&s[i], alone);
    output_free (&s[i], alone);
  }
  together_clear (&t);
  streams_free (s, n);
}

static void
test_batched_equals_alone (void)
{
  check_together_equals_alone (mix, G_N_ELEMENTS (mix), FALSE);
}

/* Cycles of the reused stream while the others run. */
#define CYCLES 4

/* While three streams run (one of them of the reused stream's
 * configuration and filter: they share launches), a stream is fed part of
 * one signal, then reset, or freed and an engine of the same
 * configuration created, and fed a second signal whole: the second's
 * output must be a fresh engine's, bit for bit, whatever of the first
 * signal the old state or the pool held; the others' output stays what it
 * is alone. The first signal's part ends within the first block, past a
 * few blocks and past many, mid-block or not. */
static void
test_reset_and_reuse (void)
{
  static const guint which[] = { 0, 5, 7 };
  const guint n = G_N_ELEMENTS (which);
  StreamCase cases[G_N_ELEMENTS (which)], first = mix[1], second = mix[1];
  const size_t B = first.block;
  /* past a whole batch's frames (CLR_CONV_BATCH_FRAMES, 16384) and the
   * filter: every block of a delay line that is a ring, of the device's
   * batch memory, of a pooled state holds the first signal */
  const size_t cuts[CYCLES] = { 3 * B + 17, 16384 + 1000 + 5 * B + 3, B - 1,
    5 * B
  };
  Stream *s, a1, a2;
  char **alone[G_N_ELEMENTS (which)], **fresh, **out;
  Gate cycles, reached;
  Pace pace = { &cycles, &reached, CYCLES };
  ClrConv *c = NULL;
  Together t;
  guint i, k;

  for (i = 0; i < n; i++)
    cases[i] = mix[which[i]];
  first.name = "reused-first-signal";
  first.seed = 101;
  second.name = "reused-second-signal";
  second.seed = 102;
  s = streams_new (cases, n);
  stream_init (&a1, &first);
  stream_init (&a2, &second);
  g_assert_cmpuint (cuts[CYCLES - 1], <, first.frames);
  for (i = 0; i < n; i++)
    alone[i] = run_alone (&s[i]);
  fresh = run_alone (&a2);
  check_reference (&a2, fresh);

  gate_init (&cycles);
  gate_init (&reached);
  together_start (&t, s, n, &pace, FALSE);
  for (k = 0; k < CYCLES; k++) {
    /* the others have fed their step k - 1 and go on with step k */
    g_assert_true (gate_wait_count (&reached, n * k,
            g_get_monotonic_time () + DEADLINE));
    if (c)
      clr_conv_reset (c);
    else
      c = stream_conv (&a1);
    out = output_new (&a1);
    feed (&a1, c, cuts[k], out, NULL, FALSE);
    output_free (&a1, out);
    if (k % 2) {
      clr_conv_free (c);
      c = stream_conv (&a2);
    } else {
      clr_conv_reset (c);
    }
    out = run_whole (&a2, c, NULL, FALSE);
    check_same (&a2, out, fresh);
    output_free (&a2, out);
    gate_arrive (&cycles);
  }
  clr_conv_free (c);
  together_join (&t);
  for (i = 0; i < n; i++) {
    check_same (&s[i], t.jobs[i].out, alone[i]);
    output_free (&s[i], alone[i]);
  }
  together_clear (&t);
  gate_clear (&cycles);
  gate_clear (&reached);
  output_free (&a2, fresh);
  stream_clear (&a1);
  stream_clear (&a2);
  streams_free (s, n);
}

/* Input histories read back after every call while other streams run:
 * two of one configuration and filter with different input, one in F64
 * and interleaved, one of a block that is no power of two, beside two
 * streams without. */
static const StreamCase history_mix[] = {
  {"64-1000taps-2ch-history-a", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE,
      3000, 0, 12000 + 13, 21, VIA_PROCESS},
  {"64-1000taps-2ch-history-b", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE,
      3000, 0, 12000 + 1, 22, VIA_SINK},
  {"256-2000taps-3ch-f64-interleaved-history", 3, 256, TRUE, 2000, FALSE, 0,
      TRUE, FALSE, 1000, 0, 12000 + 3, 23, VIA_SOURCE},
  {"80-100taps-1ch-history", 1, 80, FALSE, 100, FALSE, 0, FALSE, FALSE, 1000,
      0, 12000 + 7, 24, VIA_PROCESS},
  {"64-1000taps-2ch", 2, 64, FALSE, 1000, FALSE, 0, FALSE, FALSE, 0, 0,
      12000 + 5, 25, VIA_PROCESS},
  {"256-2000taps-2ch-3-bands-interleaved", 2, 256, FALSE, 2000, FALSE, 3,
      TRUE, TRUE, 0, 0, 12000 + 1, 26, VIA_SOURCE},
};

/* Each history is exactly the last frames its own stream was fed (read
 * back in run_job () through feed ()), and reading them leaves every
 * stream's output as it is alone. */
static void
test_history (void)
{
  check_together_equals_alone (history_mix, G_N_ELEMENTS (history_mix), TRUE);
}

/* ---- elements ----------------------------------------------------------- */

typedef struct
{
  const char *name;
  const char *element;          /* as gst-launch writes it */
  GstAudioFormat format;        /* F64: F32 on devices without doubles */
  gboolean planar;
  guint channels, bands;        /* the output: channels x bands */
  gsize taps;                   /* clfirfilter: its kernel's */
  gsize frames, max_piece;
  guint64 seed;                 /* of its noise and its buffers' sizes */
} PipeCase;

/* The first two share their configuration and kernel. */
static const PipeCase pipes[] = {
  {"fir-3000taps-2ch-a", "clfirfilter block-size=256", GST_AUDIO_FORMAT_F32,
      FALSE, 2, 1, 3000, 48000 + 17, 3000, 1},
  {"fir-3000taps-2ch-b", "clfirfilter block-size=256", GST_AUDIO_FORMAT_F32,
      FALSE, 2, 1, 3000, 40000 + 3, 700, 2},
  {"fir-500taps-6ch-f64-planar", "clfirfilter block-size=64 latency=249",
      GST_AUDIO_FORMAT_F64, TRUE, 6, 1, 500, 30000 + 1, 2000, 3},
  {"fir-100taps-1ch-s16", "clfirfilter block-size=1024",
      GST_AUDIO_FORMAT_S16, FALSE, 1, 1, 100, 48000, 5000, 4},
  {"crossover-3-bands-2ch", "clcrossover frequencies=300,3000 taps=1023 "
        "block-size=256", GST_AUDIO_FORMAT_F32, FALSE, 2, 3, 0, 48000, 3000,
      5},
  {"crossover-4-bands-1ch-planar", "clcrossover frequencies=250,2000,8000 "
        "taps=511 block-size=128", GST_AUDIO_FORMAT_F32, TRUE, 1, 4, 0,
      30000 + 11, 1000, 6},
};

/* appsrc ! element ! appsink, and what came out of it. */
typedef struct
{
  const PipeCase *pc;
  Fmt fmt;                      /* of the input */
  GstAudioInfo info;
  double *x;                    /* the input, interleaved */
  gsize *pieces;
  GstElement *pipe, *src, *e, *sink;
  GByteArray *out;              /* every output sample, interleaved */
  guint64 frames;
  gint done;                    /* atomic: reached EOS */
} Pipe;

static void
pipe_init (Pipe * p, const PipeCase * pc)
{
  gchar *caps = NULL, *launch;
  GstCaps *in_caps;
  GError *err = NULL;

  memset (p, 0, sizeof (*p));
  p->pc = pc;
  p->fmt.format = pc->format == GST_AUDIO_FORMAT_F64
      && !clr_device_has_fp64 (device) ? GST_AUDIO_FORMAT_F32 : pc->format;
  p->fmt.planar = pc->planar;
  p->fmt.channels = pc->channels;
  caps = caps_string (&p->fmt);
  in_caps = gst_caps_from_string (caps);
  g_assert_true (gst_audio_info_from_caps (&p->info, in_caps));
  gst_caps_unref (in_caps);
  launch = g_strdup_printf ("appsrc name=src format=time caps=%s ! %s name=e"
      " ! appsink name=sink sync=false", caps, pc->element);
  p->pipe = gst_parse_launch (launch, &err);
  g_assert_no_error (err);
  p->src = gst_bin_get_by_name (GST_BIN (p->pipe), "src");
  p->e = gst_bin_get_by_name (GST_BIN (p->pipe), "e");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipe), "sink");
  if (pc->taps) {
    /* the same seed for the same length: one kernel for both twins */
    double *h = make_filter (pc->taps, pc->taps);

    set_kernel (p->e, h, pc->taps);
    g_free (h);
  }
  p->x = make_input (&p->fmt, pc->frames, 0.5, pc->seed);
  p->pieces = random_pieces (N_PIECES, pc->max_piece, pc->seed);
  p->out = g_byte_array_new ();
  g_free (launch);
  g_free (caps);
}

static void
pipe_clear (Pipe * p)
{
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->src);
  gst_object_unref (p->e);
  gst_object_unref (p->sink);
  gst_object_unref (p->pipe);
  g_byte_array_unref (p->out);
  g_free (p->pieces);
  g_free (p->x);
}

/* Input frames [off, off + n) as a buffer stamped on the frame count. */
static GstBuffer *
pipe_buffer (const Pipe * p, gsize off, gsize n)
{
  const gsize bps = GST_AUDIO_INFO_BPS (&p->info);
  const guint ch = p->fmt.channels;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * ch * bps, NULL);
  GstMapInfo map;
  gsize i;
  guint c;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (i = 0; i < n; i++)
    for (c = 0; c < ch; c++)
      put (map.data, p->fmt.planar ? c * n + i : i * ch + c, p->fmt.format,
          p->x[(off + i) * ch + c]);
  gst_buffer_unmap (buf, &map);
  if (p->fmt.planar)
    gst_buffer_add_audio_meta (buf, &p->info, n, NULL);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (off, GST_SECOND, RATE);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (off + n, GST_SECOND,
      RATE) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = off;
  GST_BUFFER_OFFSET_END (buf) = off + n;
  return buf;
}

static void
pipe_push_all (Pipe * p)
{
  GstFlowReturn ret;
  gsize off = 0, n, i = 0;

  while (off < p->pc->frames) {
    GstBuffer *buf;

    n = MIN (p->pieces[i % N_PIECES], p->pc->frames - off);
    i++;
    buf = pipe_buffer (p, off, n);
    /* the signal takes a reference of its own */
    g_signal_emit_by_name (p->src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    g_assert_cmpint (ret, ==, GST_FLOW_OK);
    off += n;
  }
  g_signal_emit_by_name (p->src, "end-of-stream", &ret);
  g_assert_cmpint (ret, ==, GST_FLOW_OK);
}

static void
pipe_fail_on_error (Pipe * p)
{
  GstMessage *msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p->pipe),
      GST_MESSAGE_ERROR);

  if (msg) {
    GError *err;
    gchar *debug;

    gst_message_parse_error (msg, &err, &debug);
    g_error ("%s: %s (%s)", p->pc->name, err->message, debug);
  }
}

/* Takes one output buffer, stamped on from the last one; FALSE at EOS. */
static gboolean
pipe_pull (Pipe * p, gint64 deadline)
{
  const guint out_ch = p->fmt.channels * p->pc->bands;
  GstSample *sample = NULL;
  GstAudioInfo info;
  GstAudioBuffer ab;
  GstBuffer *buf;
  gboolean eos;
  gsize bps, i;
  guint c;

  for (;;) {
    g_signal_emit_by_name (p->sink, "try-pull-sample", 50 * GST_MSECOND,
        &sample);
    pipe_fail_on_error (p);
    if (sample)
      break;
    g_object_get (p->sink, "eos", &eos, NULL);
    if (eos) {
      g_atomic_int_set (&p->done, TRUE);
      return FALSE;
    }
    if (g_get_monotonic_time () > deadline)
      g_error ("%s: no EOS after %" G_GUINT64_FORMAT " frames", p->pc->name,
          p->frames);
  }
  buf = gst_sample_get_buffer (sample);
  g_assert_true (gst_audio_info_from_caps (&info,
          gst_sample_get_caps (sample)));
  g_assert_cmpint (GST_AUDIO_INFO_FORMAT (&info), ==, p->fmt.format);
  g_assert_cmpint (GST_AUDIO_INFO_CHANNELS (&info), ==, out_ch);
  g_assert_cmpint (GST_AUDIO_INFO_RATE (&info), ==, RATE);
  g_assert_cmpuint (GST_BUFFER_OFFSET (buf), ==, p->frames);
  g_assert_cmpuint (GST_BUFFER_PTS (buf), ==,
      gst_util_uint64_scale_int_round (p->frames, GST_SECOND, RATE));
  g_assert_true (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ));
  bps = GST_AUDIO_INFO_BPS (&info);
  for (i = 0; i < ab.n_samples; i++)
    for (c = 0; c < out_ch; c++)
      g_byte_array_append (p->out, GST_AUDIO_INFO_LAYOUT (&info) ==
          GST_AUDIO_LAYOUT_NON_INTERLEAVED ?
          (guint8 *) ab.planes[c] + i * bps :
          (guint8 *) ab.planes[0] + (i * out_ch + c) * bps, bps);
  p->frames += ab.n_samples;
  gst_audio_buffer_unmap (&ab);
  gst_sample_unref (sample);
  return TRUE;
}

/* NULL -> PLAYING, everything in, everything out, NULL: exactly as many
 * frames out as in (both elements compensate their delay). */
static void
pipe_run (Pipe * p, Gate * start)
{
  gint64 deadline;

  g_assert_cmpint (gst_element_set_state (p->pipe, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  if (start)
    gate_pass (start);
  deadline = g_get_monotonic_time () + DEADLINE;
  pipe_push_all (p);
  while (pipe_pull (p, deadline));
  g_assert_cmpint (gst_element_set_state (p->pipe, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  g_assert_cmpuint (p->frames, ==, p->pc->frames);
  g_assert_cmpuint (p->out->len, ==, p->frames * p->fmt.channels *
      p->pc->bands * GST_AUDIO_INFO_BPS (&p->info));
}

/* The same samples, bit for bit, as alone. */
static void
pipe_check_same (const Pipe * got, const Pipe * alone)
{
  gsize i;

  g_assert_cmpuint (got->out->len, ==, alone->out->len);
  if (memcmp (got->out->data, alone->out->data, got->out->len) == 0)
    return;
  for (i = 0; got->out->data[i] == alone->out->data[i]; i++);
  g_test_message ("%s: output differs from alone's from byte %" G_GSIZE_FORMAT
      " of %u on", got->pc->name, i, got->out->len);
  g_assert_cmpuint (i, ==, got->out->len);
}

/* What came out alone is right: clfirfilter's output against the float64
 * direct convolution (frame t is y[t + latency]), floats within their
 * precision and integers within one step of theirs; clcrossover's bands
 * summed back to the input. */
static void
pipe_check_reference (const Pipe * p)
{
  const PipeCase *pc = p->pc;
  const guint ch = p->fmt.channels, out_ch = ch * pc->bands;
  const GstAudioFormat format = p->fmt.format;
  double err_sq = 0.0, sum_sq = 0.0, err_max = 0.0;
  gsize t;
  guint c, k;

  if (pc->taps) {
    double *h = make_filter (pc->taps, pc->taps);
    guint64 latency;

    g_object_get (p->e, "latency", &latency, NULL);
    for (t = 0; t < pc->frames; t += t + 64 < pc->frames ? 7 : 1)
      for (c = 0; c < ch; c++) {
        double want = direct (h, pc->taps, p->x, pc->frames, ch, c,
            t + latency), got = get (p->out->data, t * ch + c, format);

        err_sq += (got - want) * (got - want);
        err_max = MAX (err_max, fabs (got - want));
        sum_sq += want * want;
      }
    g_free (h);
  } else {
    for (t = 0; t < pc->frames; t++)
      for (c = 0; c < ch; c++) {
        double want = p->x[t * ch + c], got = 0.0;

        for (k = 0; k < pc->bands; k++)
          got += get (p->out->data, t * out_ch + k * ch + c, format);
        err_sq += (got - want) * (got - want);
        err_max = MAX (err_max, fabs (got - want));
        sum_sq += want * want;
      }
  }
  g_test_message ("%s alone: RMS error %.3g of the %s's RMS, max %.3g",
      pc->name, sqrt (err_sq / sum_sq), pc->taps ? "output" : "input",
      err_max);
  if (format == GST_AUDIO_FORMAT_S16)
    g_assert_cmpfloat (err_max, <=, 1.0 / 32768);
  else
    g_assert_cmpfloat (sqrt (err_sq / sum_sq), <=, format ==
        GST_AUDIO_FORMAT_F64 ? F64_RMS_MAX : F32_RMS_MAX);
}

/* Each pipeline run alone, one after the other: the references, made
 * (and checked) on the first call. */
static Pipe *pipes_alone;

static const Pipe *
alone_of (guint i)
{
  guint k;

  if (!pipes_alone) {
    pipes_alone = g_new (Pipe, G_N_ELEMENTS (pipes));
    for (k = 0; k < G_N_ELEMENTS (pipes); k++) {
      pipe_init (&pipes_alone[k], &pipes[k]);
      pipe_run (&pipes_alone[k], NULL);
      pipe_check_reference (&pipes_alone[k]);
    }
  }
  return &pipes_alone[i];
}

typedef struct
{
  Pipe *p;
  Gate *start;                  /* NULL: go at once */
  Gate *finished;               /* NULL: nobody waits */
  GThread *thread;
} PipeJob;

static gpointer
run_pipe_job (gpointer data)
{
  PipeJob *j = data;

  pipe_run (j->p, j->start);
  if (j->finished)
    gate_arrive (j->finished);
  return NULL;
}

/* The element tests run under the environment's tuning: the variable
 * must be set before the first call reads it (meson test sets it). */
static gboolean
elements_shared (void)
{
  const ClrTuning *env = clr_tuning_get ();

  if (env->conv_shared.set && env->conv_shared.value == 1
      && env->conv_host.set && env->conv_host.value == 0)
    return TRUE;
  g_test_message ("CLRESAMPLE_CONV_SHARED=1 and CLRESAMPLE_CONV_HOST=0 must "
      "be set for the elements");
  g_test_fail ();
  return FALSE;
}

/* Every pipeline at once, each pushed and pulled from its own thread:
 * the same samples, bit for bit, and frames, as alone. */
static void
test_elements (void)
{
  const guint n = G_N_ELEMENTS (pipes);
  Pipe together[G_N_ELEMENTS (pipes)];
  PipeJob jobs[G_N_ELEMENTS (pipes)];
  Gate start;
  guint i;

  if (!elements_shared ())
    return;
  gate_init (&start);
  for (i = 0; i < n; i++) {
    alone_of (i);
    pipe_init (&together[i], &pipes[i]);
    jobs[i].p = &together[i];
    jobs[i].start = &start;
    jobs[i].finished = NULL;
    jobs[i].thread = g_thread_new (pipes[i].name, run_pipe_job, &jobs[i]);
  }
  g_assert_true (gate_wait_count (&start, n, g_get_monotonic_time () +
          DEADLINE));
  gate_open (&start);
  for (i = 0; i < n; i++) {
    g_thread_join (jobs[i].thread);
    pipe_check_same (&together[i], alone_of (i));
    pipe_clear (&together[i]);
  }
  gate_clear (&start);
}

/* How long the others may take while one pipeline is stalled: alone
 * they all take a few seconds; one that waited for the stalled one would
 * wait for ever (the stall lasts until they are done). */
#define OTHERS_DEADLINE (30 * G_TIME_SPAN_SECOND)

/* The first pipeline stops half-way, its streaming thread shut in either
 * before the filter (it waits with part of a block in it) or after it
 * (its push does not return); the others, its twin of the same kernel
 * among them, run to EOS, the same as alone, while it stays stalled;
 * released, it completes too. */
static void
check_stall (gboolean in_output)
{
  const guint n = G_N_ELEMENTS (pipes);
  Pipe together[G_N_ELEMENTS (pipes)];
  PipeJob jobs[G_N_ELEMENTS (pipes)];
  Gate finished;
  Stall stall;
  GstPad *pad;
  gint64 t0;
  guint i;

  gate_init (&finished);
  gate_init (&stall.gate);
  for (i = 0; i < n; i++) {
    alone_of (i);
    pipe_init (&together[i], &pipes[i]);
    jobs[i].p = &together[i];
    jobs[i].start = NULL;
    jobs[i].finished = i ? &finished : NULL;
  }
  /* buffer offsets count frames, of the input before the filter and of
   * the output after it: the same count */
  stall.at = pipes[0].frames / 2;
  pad = gst_element_get_static_pad (together[0].e, in_output ? "src" :
      "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, stall_probe, &stall,
      NULL);
  gst_object_unref (pad);

  jobs[0].thread = g_thread_new ("stalled", run_pipe_job, &jobs[0]);
  g_assert_true (gate_wait_count (&stall.gate, 1, g_get_monotonic_time () +
          DEADLINE));
  t0 = g_get_monotonic_time ();
  for (i = 1; i < n; i++)
    jobs[i].thread = g_thread_new (pipes[i].name, run_pipe_job, &jobs[i]);
  if (!gate_wait_count (&finished, n - 1, t0 + OTHERS_DEADLINE))
    g_error ("%u of %u pipelines done %d s into another's stall",
        gate_count (&finished), n - 1,
        (int) (OTHERS_DEADLINE / G_TIME_SPAN_SECOND));
  g_test_message ("stall in the %s: the others done in %" G_GINT64_FORMAT
      " ms", in_output ? "output" : "input",
      (g_get_monotonic_time () - t0) / 1000);
  /* still shut in, short of its EOS */
  g_assert_false (g_atomic_int_get (&together[0].done));
  for (i = 1; i < n; i++) {
    g_thread_join (jobs[i].thread);
    pipe_check_same (&together[i], alone_of (i));
  }
  gate_open (&stall.gate);
  g_thread_join (jobs[0].thread);
  pipe_check_same (&together[0], alone_of (0));
  for (i = 0; i < n; i++)
    pipe_clear (&together[i]);
  gate_clear (&finished);
  gate_clear (&stall.gate);
}

static void
test_stalled_element (void)
{
  if (!elements_shared ())
    return;
  check_stall (FALSE);
  check_stall (TRUE);
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  guint i;
  int ret;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  device = clr_device_acquire ("auto", &err);
  if (!device)
    g_error ("no OpenCL device for the tests: %s", err->message);
  tuning = *clr_tuning_get ();
  tuning.conv_shared.set = TRUE;
  tuning.conv_shared.value = 1;
  tuning.conv_host.set = TRUE;
  tuning.conv_host.value = 0;

  g_test_add_func ("/conv-streams/batched-equals-alone",
      test_batched_equals_alone);
  g_test_add_func ("/conv-streams/reset-and-reuse", test_reset_and_reuse);
  g_test_add_func ("/conv-streams/history", test_history);
  g_test_add_func ("/conv-streams/elements", test_elements);
  g_test_add_func ("/conv-streams/stalled-element", test_stalled_element);
  ret = g_test_run ();

  if (pipes_alone) {
    for (i = 0; i < G_N_ELEMENTS (pipes); i++)
      pipe_clear (&pipes_alone[i]);
    g_free (pipes_alone);
  }
  clr_device_unref (device);
  clr_device_clear_cache ();
  gst_deinit ();
  return ret;
}
