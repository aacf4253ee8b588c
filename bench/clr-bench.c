/* clr-bench: the speed of clresample beside the stock audioresample and
 * libsoxr, each on the same input in the same run (issue #5).
 *
 *   W1 playback   stereo F32 44.1 -> 48 kHz, 1024-frame buffers
 *   W2 offline    stereo F32 44.1 -> 192 kHz, one-second buffers
 *   W3 channels   64 channels F32 48 -> 44.1 kHz, 0.1 s buffers
 *   W4 the 2010 thesis tables (../shared/SEEDS.md), through the engine API
 *      with host <-> device copies included
 *   W5 the kernel alone, data already on the device, and its error against
 *      a float64 evaluation of the same filter
 *
 * W1-W3 drive each element in-process through GstHarness: gst_harness_push()
 * runs the chain function in the calling thread, so the time one push takes
 * is the element's processing time for that buffer (the output is handed to
 * the harness's sink pad, which drops it). libsoxr (SOXR_VHQ, float32
 * interleaved, one thread) gets the same blocks through soxr_process().
 *
 * W1 and W2 run again in real pipelines, as a user runs them:
 * audiotestsrc wave=white-noise ! ELEMENT ! fakesink, timed two ways: in this
 * process (PLAYING to EOS, the element's setup already warm) and as a whole
 * gst-launch-1.0 process (start-up, OpenCL set-up and all), the contestants
 * alternating run by run. The source costs every contestant the same; a row
 * with identity instead of a resampler shows how much.
 *
 * Quality knobs mean different things in different resamplers, so every
 * contestant's configuration is also run on a tone signal (same rates,
 * channels, buffer size) and its measured quality printed beside its speed;
 * clresample runs at a list of qualities so that a reader can pick the row
 * whose measured quality equals or beats an incumbent's. The program prints
 * which is the cheapest.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <soxr.h>

#include "resample/clr-engine.h"
#include "clr-analysis.h"
#include "clr-bench-util.h"

#ifndef CLR_BENCH_PLUGIN_DIR
#define CLR_BENCH_PLUGIN_DIR ""
#endif

/* test tones sit at -1 dBFS, like the quality harness's */
#define TONE_DB (-1.0)
/* seconds left out at each end of a tone run's output before analysis:
 * switch-on and switch-off transients, far longer than any filter here */
#define SKIP_S 0.12
/* measured figures within this many dB count as equal when matching */
#define MATCH_TOL_DB 0.5
#define N_FIGS_MAX 2
#define TABLE_COLS_MAX 16
#define DEFAULT_QUALITIES "0,2,3,4,5,6,8,10"
#define QUICK_QUALITIES "0,4,10"

typedef struct
{
  gchar *device;                /* --device, NULL = auto */
  double seconds;               /* --seconds, 0 = each workload's default */
  double pipeline_seconds;      /* --pipeline-seconds, 0 = the default */
  gboolean no_pipelines;
  gboolean quick;
  int runs;                     /* timed repetitions; the best one counts */
  int qualities[CLR_QUALITY_MAX + 1];
  int n_qualities;
  FILE *csv;
  ClrDevice *dev;               /* the engine's device for W4 and W5 */
  gboolean dev_is_cpu;
} Bench;

/* Nearest-rank percentile of v[0..n), p in [0, 1], v unsorted. */
static double
percentile_of (const double *v, size_t n, double p)
{
  double *s, r;
  size_t k;

  if (n == 0)
    return NAN;
  s = g_memdup2 (v, n * sizeof (double));
  qsort (s, n, sizeof (double), cmp_double);
  k = (size_t) ceil (p * n);
  k = k == 0 ? 0 : MIN (k - 1, n - 1);
  r = s[k];
  g_free (s);
  return r;
}

static double
from_db (double db)
{
  return pow (10.0, db / 20.0);
}

/* deterministic noise, the same in every run and on every machine */
static guint64 rng_state = 0x9E3779B97F4A7C15ull;

static double
rng_uniform (void)
{
  return 2.0 * clr_rng_uniform01 (&rng_state) - 1.0;
}

/* n samples of uniform noise in [-amp, amp) */
static float *
make_noise (size_t n, double amp)
{
  float *x = g_new (float, MAX (n, 1));
  size_t i;

  for (i = 0; i < n; i++)
    x[i] = (float) (amp * rng_uniform ());
  return x;
}

/* ------------------------------------------------------------------------ */
/* tables: printed aligned on stdout, every cell also a CSV line             */

typedef struct
{
  gchar *id;
  int ncols;
  gchar *head[TABLE_COLS_MAX];
  GPtrArray *cells;             /* row-major */
} Table;

static Table *
table_new (const char *id, ...)
{
  Table *t = g_new0 (Table, 1);
  const char *h;
  va_list ap;

  t->id = g_strdup (id);
  va_start (ap, id);
  while ((h = va_arg (ap, const char *)) && t->ncols < TABLE_COLS_MAX)
    t->head[t->ncols++] = g_strdup (h);
  va_end (ap);
  t->cells = g_ptr_array_new_with_free_func (g_free);
  return t;
}

static void G_GNUC_PRINTF (2, 3)
table_add (Table * t, const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_ptr_array_add (t->cells, g_strdup_vprintf (fmt, ap));
  va_end (ap);
}

/* a number, or "n/a" when there is none */
static void
table_num (Table * t, const char *fmt, double v)
{
  if (isfinite (v))
    g_ptr_array_add (t->cells, g_strdup_printf (fmt, v));
  else
    g_ptr_array_add (t->cells, g_strdup ("n/a"));
}

static void
csv_field (FILE * f, const char *s)
{
  const char *p;

  if (!strpbrk (s, ",\"\n")) {
    fputs (s, f);
    return;
  }
  fputc ('"', f);
  for (p = s; *p; p++) {
    if (*p == '"')
      fputc ('"', f);
    fputc (*p, f);
  }
  fputc ('"', f);
}

static void
table_print (Bench * b, Table * t)
{
  size_t w[TABLE_COLS_MAX] = { 0 }, i, nrows;
  int c;

  nrows = t->cells->len / t->ncols;
  for (c = 0; c < t->ncols; c++)
    w[c] = g_utf8_strlen (t->head[c], -1);
  for (i = 0; i < t->cells->len; i++)
    w[i % t->ncols] = MAX (w[i % t->ncols],
        (size_t) g_utf8_strlen (g_ptr_array_index (t->cells, i), -1));

  /* first column left-aligned (labels), the others right-aligned */
  for (c = 0; c < t->ncols; c++)
    printf (c ? "  %*s" : "%-*s", (int) (w[c] + strlen (t->head[c]) -
            g_utf8_strlen (t->head[c], -1)), t->head[c]);
  printf ("\n");
  for (c = 0; c < t->ncols; c++) {
    size_t k;
    printf (c ? "  " : "");
    for (k = 0; k < w[c]; k++)
      putchar ('-');
  }
  printf ("\n");
  for (i = 0; i < nrows; i++) {
    for (c = 0; c < t->ncols; c++) {
      const char *s = g_ptr_array_index (t->cells, i * t->ncols + c);
      int pad = (int) (w[c] + strlen (s) - g_utf8_strlen (s, -1));
      printf (c ? "  %*s" : "%-*s", pad, s);
      if (b->csv && c > 0) {
        csv_field (b->csv, t->id);
        fputc (',', b->csv);
        csv_field (b->csv, g_ptr_array_index (t->cells, i * t->ncols));
        fputc (',', b->csv);
        csv_field (b->csv, t->head[c]);
        fputc (',', b->csv);
        csv_field (b->csv, s);
        fputc ('\n', b->csv);
      }
    }
    printf ("\n");
  }
  printf ("\n");
  fflush (stdout);

  g_ptr_array_unref (t->cells);
  for (c = 0; c < t->ncols; c++)
    g_free (t->head[c]);
  g_free (t->id);
  g_free (t);
}

static void
progress (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fflush (stderr);
}

/* ------------------------------------------------------------------------ */
/* W1-W3: workloads, contestants, runs                                       */

typedef enum
{
  FIG_THDN,                     /* THD+N of 1 kHz */
  FIG_IMAGES,                   /* energy above 24 kHz, 15 kHz tone */
  FIG_ALIAS,                    /* output level of a 23 kHz tone */
} FigKind;

static const struct
{
  const char *head;
  int hz;
} fig_info[] = {
  [FIG_THDN] = {"THD+N 1k dB", 1000},
  [FIG_IMAGES] = {"images>24k dB", 15000},
  [FIG_ALIAS] = {"alias 23k dB", 23000},
};

typedef struct
{
  const char *id;
  const char *title;
  int in_rate, out_rate, channels;
  size_t buffer_frames;
  double seconds, quick_seconds;        /* length of the timed run */
  double pipeline_seconds;      /* ... in a real pipeline; 0: none */
  double tone_seconds;          /* length of the quality run */
  /* channel c of the tone run carries the tone of figs[c % n_figs], so
   * one run measures every figure (and every channel) */
  int n_figs;
  FigKind figs[N_FIGS_MAX];
} Workload;

static const Workload workloads[] = {
  {"W1", "W1 playback: stereo F32 44.1 -> 48 kHz, 1024-frame buffers",
      44100, 48000, 2, 1024, 20.0, 3.0, 300.0, 1.5, 1, {FIG_THDN}},
  {"W2", "W2 offline: stereo F32 44.1 -> 192 kHz, 1 s buffers",
      44100, 192000, 2, 44100, 20.0, 3.0, 60.0, 3.0, 2, {FIG_THDN,
          FIG_IMAGES}},
  /* no pipeline rows: audioresample cannot take 64 channels (see
   * element_parts()) */
  {"W3", "W3 many channels: 64 channels F32 48 -> 44.1 kHz, 0.1 s buffers",
      48000, 44100, 64, 4800, 10.0, 2.0, 0.0, 1.5, 2, {FIG_THDN, FIG_ALIAS}},
};

typedef enum
{
  C_AR,                         /* the stock audioresample */
  C_SOXR,                       /* libsoxr VHQ, one thread */
  C_CLR,                        /* clresample */
} Kind;

typedef struct
{
  Kind kind;
  int quality;
  gchar *label;
  gchar *note;                  /* why it failed, NULL when it ran */
  double fig[N_FIGS_MAX];
  double rtf, med_us, p99_us, max_us;
  double pipe_s, process_s;     /* best real-pipeline times, NAN: none */
  uint32_t taps;                /* clresample's taps per phase */
} Contestant;

typedef struct
{
  double *times;                /* seconds per input buffer */
  size_t n_times;
  double total_s;               /* every push (or call), EOS drain included */
  float *out;                   /* collected output, interleaved */
  size_t out_frames, out_cap;
} Run;

static void
run_clear (Run * r)
{
  g_free (r->times);
  g_free (r->out);
  memset (r, 0, sizeof (*r));
}

static void
collect_append (Run * r, size_t ch, const float *d, size_t frames)
{
  if (r->out_frames + frames > r->out_cap) {
    r->out_cap = MAX (r->out_cap * 2, r->out_frames + frames);
    r->out = g_renew (float, r->out, r->out_cap * ch);
  }
  memcpy (r->out + r->out_frames * ch, d, frames * ch * sizeof (float));
  r->out_frames += frames;
}

static void
pull_all (GstHarness * h, size_t ch, Run * r)
{
  GstBuffer *buf;
  GstMapInfo map;

  while ((buf = gst_harness_try_pull (h))) {
    if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
      collect_append (r, ch, (const float *) map.data,
          map.size / (ch * sizeof (float)));
      gst_buffer_unmap (buf, &map);
    }
    gst_buffer_unref (buf);
  }
}

static gchar *
caps_string (int rate, int channels)
{
  /* unpositioned channels: valid for any count, and what the tests use */
  return g_strdup_printf ("audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=%d,channels=%d,channel-mask=(bitmask)0", rate, channels);
}

/* Makes the element of a contestant with its properties set before it
 * starts: clresample picks its device when it starts. */
static GstElement *
make_element (Bench * b, const Contestant * c)
{
  GstElement *el = gst_element_factory_make (c->kind == C_CLR ?
      "clresample" : "audioresample", NULL);

  if (!el)
    return NULL;
  g_object_set (el, "quality", c->quality, NULL);
  if (c->kind == C_CLR && b->device)
    g_object_set (el, "device", b->device, NULL);
  return el;
}

/* The input cut into timestamped buffers, made before any timing starts. */
static GstBuffer **
make_buffers (const Workload * w, const float *in, size_t ch, size_t frames,
    size_t * nb)
{
  size_t i, pos;
  GstBuffer **bufs;

  *nb = (frames + w->buffer_frames - 1) / w->buffer_frames;
  bufs = g_new (GstBuffer *, MAX (*nb, 1));
  for (i = 0, pos = 0; i < *nb; i++, pos += w->buffer_frames) {
    size_t n = MIN (w->buffer_frames, frames - pos);
    GstBuffer *buf = gst_buffer_new_memdup (in + pos * ch,
        n * ch * sizeof (float));
    GstClockTime t0 = gst_util_uint64_scale_int (pos, GST_SECOND,
        w->in_rate);

    GST_BUFFER_PTS (buf) = t0;
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int (pos + n,
        GST_SECOND, w->in_rate) - t0;
    GST_BUFFER_OFFSET (buf) = pos;
    GST_BUFFER_OFFSET_END (buf) = pos + n;
    if (i == 0)
      GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    bufs[i] = buf;
  }
  return bufs;
}

/* How many instances of the element a workload needs: the stock
 * audioresample goes through GstAudioConverter, whose channel mixer takes
 * fewer than 64 channels (at 64 it asserts, then hangs), so 64 channels run
 * as two instances of 32, the split done before timing and the time of both
 * pushes of a buffer counted together. */
static size_t
element_parts (const Contestant * c, const Workload * w)
{
  return c->kind == C_AR && w->channels > 63 ? 2 : 1;
}

static gboolean
run_element (Bench * b, const Contestant * c, const Workload * w,
    const float *in, size_t frames, gboolean collect, Run * r, gchar ** err)
{
  const size_t parts = element_parts (c, w), pch = w->channels / parts;
  GstHarness *h[2] = { NULL, NULL };
  GstBuffer **bufs[2] = { NULL, NULL };
  Run sub[2];
  GstFlowReturn flow = GST_FLOW_OK;
  size_t nb = 0, i, p, k, ch = w->channels;
  double t0;

  memset (r, 0, sizeof (*r));
  memset (sub, 0, sizeof (sub));
  for (p = 0; p < parts; p++) {
    GstElement *el = make_element (b, c);
    gchar *caps;

    if (!el) {
      *err = g_strdup_printf ("no element %s (GST_PLUGIN_PATH?)",
          c->kind == C_CLR ? "clresample" : "audioresample");
      goto done;
    }
    h[p] = gst_harness_new_with_element (el, "sink", "src");
    gst_object_unref (el);
    /* the caps event negotiates and builds the filter (and clresample's
     * engine) here, before the first buffer and outside the timing */
    caps = caps_string (w->out_rate, pch);
    gst_harness_set_sink_caps_str (h[p], caps);
    g_free (caps);
    caps = caps_string (w->in_rate, pch);
    gst_harness_set_src_caps_str (h[p], caps);
    g_free (caps);
    if (!collect)
      gst_harness_set_drop_buffers (h[p], TRUE);

    if (parts == 1) {
      bufs[p] = make_buffers (w, in, ch, frames, &nb);
    } else {
      float *part = g_new (float, MAX (frames * pch, 1));
      for (i = 0; i < frames; i++)
        memcpy (part + i * pch, in + i * ch + p * pch, pch * sizeof (float));
      bufs[p] = make_buffers (w, part, pch, frames, &nb);
      g_free (part);
    }
  }

  r->times = g_new0 (double, MAX (nb, 1));
  r->n_times = nb;
  for (i = 0; i < nb && flow == GST_FLOW_OK; i++) {
    for (p = 0; p < parts && flow == GST_FLOW_OK; p++) {
      t0 = now_s ();
      flow = gst_harness_push (h[p], bufs[p][i]);
      r->times[i] += now_s () - t0;
      bufs[p][i] = NULL;
      if (collect)
        pull_all (h[p], pch, &sub[p]);
    }
    r->total_s += r->times[i];
  }
  if (flow == GST_FLOW_OK) {
    /* the tail: an element that keeps frames back pays for them here */
    for (p = 0; p < parts; p++) {
      t0 = now_s ();
      gst_harness_push_event (h[p], gst_event_new_eos ());
      r->total_s += now_s () - t0;
      if (collect)
        pull_all (h[p], pch, &sub[p]);
    }
  } else {
    *err = g_strdup_printf ("push returned %s", gst_flow_get_name (flow));
  }
  if (collect && flow == GST_FLOW_OK) {
    /* the parts' outputs side by side again */
    size_t n = sub[0].out_frames;
    for (p = 1; p < parts; p++)
      n = MIN (n, sub[p].out_frames);
    r->out = g_new (float, MAX (n, 1) * ch);
    r->out_frames = r->out_cap = n;
    for (p = 0; p < parts; p++)
      for (k = 0; k < n; k++)
        memcpy (r->out + k * ch + p * pch, sub[p].out + k * pch,
            pch * sizeof (float));
  }

done:
  for (p = 0; p < parts; p++) {
    for (i = 0; bufs[p] && i < nb; i++)
      if (bufs[p][i])
        gst_buffer_unref (bufs[p][i]);
    g_free (bufs[p]);
    if (h[p])
      gst_harness_teardown (h[p]);
    run_clear (&sub[p]);
  }
  return flow == GST_FLOW_OK && !*err;
}

static gboolean
run_soxr (const Workload * w, const float *in, size_t frames,
    gboolean collect, Run * r, gchar ** err)
{
  soxr_io_spec_t io = soxr_io_spec (SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  soxr_quality_spec_t q = soxr_quality_spec (SOXR_VHQ, 0);
  soxr_runtime_spec_t rt = soxr_runtime_spec (1);
  soxr_error_t e = NULL;
  soxr_t s;
  size_t ch = w->channels, cap, nb, i, pos, idone, odone;
  float *obuf;
  double t0;

  memset (r, 0, sizeof (*r));
  s = soxr_create (w->in_rate, w->out_rate, ch, &e, &io, &q, &rt);
  if (!s || e) {
    *err = g_strdup_printf ("soxr_create: %s", e ? e : "failed");
    return FALSE;
  }
  /* room for twice a block's output, so each call takes its whole block */
  cap = (size_t) ceil ((double) w->buffer_frames * w->out_rate /
      w->in_rate) * 2 + 1024;
  obuf = g_new (float, cap * ch);
  nb = (frames + w->buffer_frames - 1) / w->buffer_frames;
  r->times = g_new (double, MAX (nb, 1));
  for (i = 0, pos = 0; i < nb && !e; i++) {
    size_t n = MIN (w->buffer_frames, frames - pos), used = 0;

    t0 = now_s ();
    while (used < n && !e) {
      e = soxr_process (s, in + (pos + used) * ch, n - used, &idone, obuf,
          cap, &odone);
      used += idone;
      if (collect)
        collect_append (r, ch, obuf, odone);
    }
    r->times[r->n_times++] = now_s () - t0;
    r->total_s += r->times[i];
    pos += n;
  }
  /* drain: NULL input marks the end of the stream */
  t0 = now_s ();
  do {
    if (!e)
      e = soxr_process (s, NULL, 0, NULL, obuf, cap, &odone);
    if (!e && collect)
      collect_append (r, ch, obuf, odone);
  } while (!e && odone > 0);
  r->total_s += now_s () - t0;
  soxr_delete (s);
  g_free (obuf);
  if (e) {
    *err = g_strdup_printf ("soxr_process: %s", e);
    return FALSE;
  }
  return TRUE;
}

static gboolean
run_contestant (Bench * b, const Contestant * c, const Workload * w,
    const float *in, size_t frames, gboolean collect, Run * r, gchar ** err)
{
  if (c->kind == C_SOXR)
    return run_soxr (w, in, frames, collect, r, err);
  return run_element (b, c, w, in, frames, collect, r, err);
}

/* The tone run's input: channel c carries the tone of figure c % n_figs at
 * -1 dBFS, its phase varied per channel so a channel mix-up shows. */
static float *
make_tone_input (const Workload * w, size_t * frames)
{
  size_t n = (size_t) (w->tone_seconds * w->in_rate), ch = w->channels, i;
  double *x = g_new0 (double, n * ch);
  float *f = g_new (float, n * ch);
  size_t c;

  for (c = 0; c < ch; c++)
    clr_tone_add (x + c, n, ch, w->in_rate,
        clr_freq_hz (fig_info[w->figs[c % w->n_figs]].hz),
        from_db (TONE_DB), 0.3 + 0.1 * c, 0);
  for (i = 0; i < n * ch; i++)
    f[i] = (float) x[i];
  g_free (x);
  *frames = n;
  return f;
}

/* Every figure of the workload from a tone run's output, the worst over
 * the channels that carry its tone. Lower is better for all of them. */
static void
measure_figures (const Workload * w, const Run * r, double *fig)
{
  size_t ch = w->channels, c, i, start, len;
  double amp = from_db (TONE_DB), *x;
  int f;

  for (f = 0; f < w->n_figs; f++)
    fig[f] = -INFINITY;
  if (clr_steady_range (r->out_frames, w->out_rate, SKIP_S, &start,
          &len) < 0) {
    for (f = 0; f < w->n_figs; f++)
      fig[f] = NAN;
    return;
  }
  x = g_new (double, r->out_frames);
  for (c = 0; c < ch; c++) {
    double v = NAN;

    f = c % w->n_figs;
    for (i = 0; i < r->out_frames; i++)
      x[i] = r->out[i * ch + c];
    switch (w->figs[f]) {
      case FIG_THDN:
        v = clr_thdn_db (x, 1, start, len, w->out_rate, clr_freq_hz (1000),
            NULL);
        break;
      case FIG_ALIAS:
        /* everything that comes out of a tone above the output's Nyquist
         * frequency is alias (or noise) */
        v = clr_db (clr_rms (x, 1, start, len) / (amp / G_SQRT2));
        break;
      case FIG_IMAGES:{
        /* Kaiser-windowed spectrum (sidelobes ~-290 dB), energy from 24 kHz
         * to Nyquist relative to the tone's, like tests/quality's row c */
        size_t n = clr_pow2_floor (len);
        double *ps = clr_power_spectrum (x, 1, start + (len - n) / 2, n,
            CLR_SPECTRUM_BETA);
        if (ps) {
          v = 10.0 * log10 (clr_band_power (ps, n, w->out_rate, 24000,
                  w->out_rate / 2.0) / (amp * amp / 2));
          free (ps);
        }
        break;
      }
    }
    if (isnan (v) || isnan (fig[f]))
      fig[f] = NAN;
    else
      fig[f] = MAX (fig[f], v);
  }
  g_free (x);
}

static void
contestant_free (gpointer p)
{
  Contestant *c = p;

  g_free (c->label);
  g_free (c->note);
  g_free (c);
}

static Contestant *
contestant_new (Kind kind, int quality, const Workload * w)
{
  Contestant *c = g_new0 (Contestant, 1);

  c->kind = kind;
  c->quality = quality;
  switch (kind) {
    case C_AR:
      c->label = g_strdup_printf (w->channels > 63 ?
          "audioresample q%d (2x32 ch)" : "audioresample q%d", quality);
      break;
    case C_SOXR:
      c->label = g_strdup ("soxr VHQ (1 thread)");
      break;
    case C_CLR:{
      ClrRatio r;
      ClrFilter f;

      c->label = g_strdup_printf ("clresample q%d", quality);
      clr_ratio_init (&r, w->in_rate, w->out_rate);
      clr_filter_design (&f, &r, quality, 0);
      c->taps = f.taps;
      break;
    }
  }
  return c;
}

/* The cheapest clresample row (lowest quality tried) whose every figure
 * equals (within MATCH_TOL_DB) or beats the incumbent's. */
static void
print_match (const Workload * w, GPtrArray * cs, const Contestant * inc)
{
  GString *s = g_string_new (NULL);
  guint i;
  int f;

  g_string_append_printf (s, "  %-22s (", inc->label);
  for (f = 0; f < w->n_figs; f++)
    g_string_append_printf (s, "%s%s %.1f", f ? ", " : "",
        fig_info[w->figs[f]].head, inc->fig[f]);
  g_string_append (s, "): ");
  if (inc->note) {
    g_string_append (s, "not measured\n");
    goto done;
  }
  for (i = 0; i < cs->len; i++) {
    const Contestant *c = g_ptr_array_index (cs, i);
    gboolean ok = c->kind == C_CLR && !c->note;

    for (f = 0; ok && f < w->n_figs; f++)
      ok = isfinite (c->fig[f]) && c->fig[f] <= inc->fig[f] + MATCH_TOL_DB;
    if (ok) {
      g_string_append_printf (s, "clresample q%d", c->quality);
      for (f = 0; f < w->n_figs; f++)
        g_string_append_printf (s, "%s%.1f", f ? ", " : " (", c->fig[f]);
      g_string_append_printf (s, " dB) at %.2fx its speed (%.0fx vs %.0fx "
          "real time)\n", c->rtf / inc->rtf, c->rtf, inc->rtf);
      goto done;
    }
  }
  g_string_append (s, "no clresample quality tried matches it\n");
done:
  printf ("%s", s->str);
  g_string_free (s, TRUE);
}

/* ------------------------------------------------------------------------ */
/* W1, W2 in real pipelines                                                  */

/* The launch line of a contestant (NULL: identity, the pipeline alone). */
static gchar *
pipeline_launch (Bench * b, const Contestant * c, const Workload * w,
    size_t buffers)
{
  gchar *element = !c ? g_strdup ("identity") : c->kind == C_CLR ?
      g_strdup_printf ("clresample quality=%d%s%s", c->quality,
      b->device ? " device=" : "", b->device ? b->device : "") :
      g_strdup_printf ("audioresample quality=%d", c->quality);
  gchar *launch = g_strdup_printf ("audiotestsrc wave=white-noise "
      "samplesperbuffer=%" G_GSIZE_FORMAT " num-buffers=%" G_GSIZE_FORMAT
      " ! audio/x-raw,format=F32LE,layout=interleaved,rate=%d,channels=%d "
      "! %s ! audio/x-raw,rate=%d ! fakesink", w->buffer_frames, buffers,
      w->in_rate, w->channels, element, c ? w->out_rate : w->in_rate);

  g_free (element);
  return launch;
}

/* Seconds from PLAYING to EOS in this process; NAN on failure. */
static double
time_pipeline_in_process (const gchar * launch, gchar ** err)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (launch, &error);
  GstMessage *msg;
  double t0, t = NAN;

  if (!pipe) {
    *err = g_strdup (error->message);
    g_error_free (error);
    return NAN;
  }
  t0 = now_s ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    t = now_s () - t0;
  } else {
    gst_message_parse_error (msg, &error, NULL);
    *err = g_strdup (error->message);
    g_error_free (error);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return t;
}

/* Seconds a whole `gst-launch-1.0 -q LAUNCH` process takes; NAN on
 * failure. */
static double
time_pipeline_process (const gchar * launch, gchar ** err)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", launch);
  gchar **argv = NULL, *errout = NULL;
  GError *error = NULL;
  gint status = 0;
  double t0, t = NAN;

  if (!g_shell_parse_argv (cmd, NULL, &argv, &error))
    goto failed;
  t0 = now_s ();
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &errout, &status,
          &error))
    goto failed;
  t = now_s () - t0;
  if (!g_spawn_check_wait_status (status, &error)) {
    t = NAN;
    *err = g_strdup_printf ("gst-launch-1.0: %s", errout);
  }
  goto done;

failed:
  *err = g_strdup (error->message);
done:
  g_clear_error (&error);
  g_strfreev (argv);
  g_free (errout);
  g_free (cmd);
  return t;
}

static void
run_pipelines (Bench * b, const Workload * w, GPtrArray * cs)
{
  double secs = b->pipeline_seconds > 0 ? b->pipeline_seconds :
      b->quick ? MIN (20.0, w->pipeline_seconds) : w->pipeline_seconds;
  size_t buffers = (size_t) ceil (secs * w->in_rate / w->buffer_frames);
  double real = (double) buffers * w->buffer_frames / w->in_rate;
  double base_pipe = NAN, base_process = NAN;
  const Contestant *best_ar = NULL;
  gchar *id;
  Table *t;
  guint i;
  int k;

  for (i = 0; i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);
    c->pipe_s = c->process_s = NAN;
  }
  /* run by run, every contestant in turn: a slow spell of the machine
   * falls on all of them */
  for (k = 0; k < b->runs; k++) {
    for (i = 0; i <= cs->len; i++) {
      Contestant *c = i < cs->len ? g_ptr_array_index (cs, i) : NULL;
      gchar *launch, *err = NULL;
      double tp, tw;

      if (c && (c->kind == C_SOXR || c->note))
        continue;
      launch = pipeline_launch (b, c, w, buffers);
      progress ("%s pipeline, run %d: %s ...", w->id, k + 1,
          c ? c->label : "identity");
      tp = time_pipeline_in_process (launch, &err);
      if (!err)
        tw = time_pipeline_process (launch, &err);
      if (err) {
        progress (" failed: %s\n", err);
        if (c)
          c->note = err;
        else
          g_free (err);
        g_free (launch);
        continue;
      }
      progress (" %.0fx, %.0fx\n", real / tp, real / tw);
      if (c) {
        c->pipe_s = isnan (c->pipe_s) ? tp : MIN (c->pipe_s, tp);
        c->process_s = isnan (c->process_s) ? tw : MIN (c->process_s, tw);
      } else {
        base_pipe = isnan (base_pipe) ? tp : MIN (base_pipe, tp);
        base_process = isnan (base_process) ? tw : MIN (base_process, tw);
      }
      g_free (launch);
    }
  }

  printf ("%s in a real pipeline: audiotestsrc wave=white-noise "
      "samplesperbuffer=%" G_GSIZE_FORMAT " ! ELEMENT ! fakesink, %.0f s of "
      "audio, best of %d alternating runs; quality from the harness's tone "
      "run above\n", w->id, w->buffer_frames, real, b->runs);
  id = g_strdup_printf ("%s-pipeline", w->id);
  t = table_new (id, "contestant",
      fig_info[w->figs[0]].head, "in-process x rt", "process x rt",
      "process s", "element s (process - identity)", NULL);
  table_add (t, "identity (source + sink)");
  table_add (t, "-");
  table_num (t, "%.0f", real / base_pipe);
  table_num (t, "%.0f", real / base_process);
  table_num (t, "%.3f", base_process);
  table_add (t, "-");
  for (i = 0; i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);

    if (c->kind == C_SOXR)
      continue;
    table_add (t, "%s", c->label);
    table_num (t, "%.1f", c->fig[0]);
    table_num (t, "%.0f", real / c->pipe_s);
    table_num (t, "%.0f", real / c->process_s);
    table_num (t, "%.3f", c->process_s);
    table_num (t, "%.3f", c->process_s - base_process);
    if (c->kind == C_AR && c->quality == 10)
      best_ar = c;
  }
  table_print (b, t);
  g_free (id);
  /* the cheapest clresample that measures at least as well as
   * audioresample's best, side by side in whole-process time */
  for (i = 0; best_ar && i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);

    if (c->kind != C_CLR || isnan (c->process_s)
        || !(c->fig[0] <= best_ar->fig[0] + MATCH_TOL_DB))
      continue;
    printf ("  clresample %s (%.1f dB) vs audioresample q10 (%.1f dB) in "
        "the real pipeline: %.2fx its speed as whole processes, %.2fx in "
        "process\n", c->label + strlen ("clresample "), c->fig[0],
        best_ar->fig[0], best_ar->process_s / c->process_s,
        best_ar->pipe_s / c->pipe_s);
    break;
  }
  printf ("\n");
  fflush (stdout);
}

static void
run_workload (Bench * b, const Workload * w)
{
  double secs = b->seconds > 0 ? b->seconds :
      (b->quick ? w->quick_seconds : w->seconds);
  size_t frames = (size_t) (secs * w->in_rate), tone_frames;
  float *noise = make_noise (frames * w->channels, 0.5);
  float *tone = make_tone_input (w, &tone_frames);
  GPtrArray *cs = g_ptr_array_new_with_free_func (contestant_free);
  Table *t;
  guint i;
  int f, k;

  g_ptr_array_add (cs, contestant_new (C_AR, 4, w));
  g_ptr_array_add (cs, contestant_new (C_AR, 10, w));
  g_ptr_array_add (cs, contestant_new (C_SOXR, 0, w));
  for (i = 0; i < (guint) b->n_qualities; i++)
    g_ptr_array_add (cs, contestant_new (C_CLR, b->qualities[i], w));

  for (i = 0; i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);
    Run r;

    progress ("%s: %s ...", w->id, c->label);
    c->rtf = c->med_us = c->p99_us = c->max_us = NAN;
    for (f = 0; f < N_FIGS_MAX; f++)
      c->fig[f] = NAN;
    if (c->kind == C_CLR && !b->dev) {
      c->note = g_strdup ("no OpenCL device");
      progress (" skipped\n");
      continue;
    }
    /* the tone run first: it also warms up (device, kernel variants,
     * caches, page faults) before the timed run */
    if (!run_contestant (b, c, w, tone, tone_frames, TRUE, &r, &c->note)) {
      run_clear (&r);
      progress (" failed: %s\n", c->note);
      continue;
    }
    measure_figures (w, &r, c->fig);
    run_clear (&r);
    /* the least disturbed of b->runs timed runs counts: other processes
     * only ever add time */
    for (k = 0; k < b->runs; k++) {
      if (!run_contestant (b, c, w, noise, frames, FALSE, &r, &c->note))
        break;
      if (!(secs / r.total_s <= c->rtf)) {
        c->rtf = secs / r.total_s;
        c->med_us = percentile_of (r.times, r.n_times, 0.5) * 1e6;
        c->p99_us = percentile_of (r.times, r.n_times, 0.99) * 1e6;
        c->max_us = percentile_of (r.times, r.n_times, 1.0) * 1e6;
      }
      progress (" %.0fx", secs / r.total_s);
      run_clear (&r);
    }
    run_clear (&r);
    if (c->note) {
      c->rtf = c->med_us = c->p99_us = c->max_us = NAN;
      progress (" failed: %s\n", c->note);
      continue;
    }
    progress (" real time\n");
  }

  printf ("%s, %.0f s of audio (%" G_GSIZE_FORMAT " buffers), best of %d "
      "runs; quality from a %.1f s tone run at -1 dBFS of the same "
      "configuration\n", w->title, secs,
      (frames + w->buffer_frames - 1) / w->buffer_frames, b->runs,
      w->tone_seconds);
  t = table_new (w->id, "contestant", "taps/phase",
      fig_info[w->figs[0]].head, w->n_figs > 1 ?
      fig_info[w->figs[1]].head : "x real time",
      w->n_figs > 1 ? "x real time" : "median us/buf",
      w->n_figs > 1 ? "median us/buf" : "p99 us/buf",
      w->n_figs > 1 ? "p99 us/buf" : "max us/buf",
      w->n_figs > 1 ? "max us/buf" : NULL, NULL);
  for (i = 0; i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);

    table_add (t, "%s", c->label);
    if (c->kind == C_CLR)
      table_add (t, "%u", c->taps);
    else
      table_add (t, "-");
    for (f = 0; f < w->n_figs; f++)
      table_num (t, "%.1f", c->fig[f]);
    table_num (t, "%.0f", c->rtf);
    table_num (t, "%.0f", c->med_us);
    table_num (t, "%.0f", c->p99_us);
    table_num (t, "%.0f", c->max_us);
  }
  table_print (b, t);
  for (i = 0; i < cs->len; i++) {
    Contestant *c = g_ptr_array_index (cs, i);
    if (c->note)
      printf ("  %s: %s\n", c->label, c->note);
  }
  if (w->channels > 63)
    printf ("  audioresample runs as two instances of 32 channels: its "
        "channel mixer takes fewer than 64 (at 64 it asserts, then hangs); "
        "the split is made before timing.\n");
  printf ("Cheapest clresample row (of those tried) that matches or beats, "
      "within %.1f dB on every figure:\n", MATCH_TOL_DB);
  for (i = 0; i < 3; i++)
    print_match (w, cs, g_ptr_array_index (cs, i));
  printf ("\n");
  fflush (stdout);
  if (w->pipeline_seconds > 0 && !b->no_pipelines)
    run_pipelines (b, w, cs);

  g_ptr_array_unref (cs);
  g_free (noise);
  g_free (tone);
}

/* ------------------------------------------------------------------------ */
/* W4: the thesis tables, ms per block through clr_engine_process()          */

typedef struct
{
  double median_ms, min_ms;
  size_t blocks;                /* timed blocks */
  size_t out_per_block;         /* output frames of the last block */
  uint32_t taps;                /* taps per phase after rounding */
  uint64_t I, D;
} BlockTiming;

/* A mono F32 stream cut into blocks of `block` frames; each block timed
 * from the call to the return of clr_engine_process() (upload, kernel,
 * history copy, download), the median over many blocks after warm-up. */
static gboolean
time_blocks (Bench * b, uint32_t in_rate, uint32_t out_rate, uint32_t taps,
    size_t block, BlockTiming * bt, GError ** error)
{
  ClrEngineConfig cfg = { in_rate, out_rate, 1, CLR_QUALITY_DEFAULT, taps,
    CLR_FORMAT_F32, FALSE, 0
  };
  ClrEngine *e;
  float *in, *out;
  const void *ip[1];
  void *op[1];
  size_t cap, n, count, max_blocks;
  double *t, start, t0, target = b->quick ? 0.05 : 0.15, med;
  int i, k, min_blocks = b->quick ? 5 : 20;
  gboolean ok = TRUE;

  memset (bt, 0, sizeof (*bt));
  e = clr_engine_new (b->dev, &cfg, error);
  if (!e)
    return FALSE;
  bt->taps = clr_engine_get_filter (e)->taps;
  bt->I = clr_engine_get_ratio (e)->I;
  bt->D = clr_engine_get_ratio (e)->D;
  in = make_noise (block, 0.5);
  cap = (size_t) ceil ((double) block * out_rate / in_rate) + 8;
  out = g_new (float, cap);
  ip[0] = in;
  op[0] = out;
  max_blocks = 20000;
  t = g_new (double, max_blocks);

  /* warm-up: the first blocks carry the filter latency and first-use costs */
  for (i = 0; i < 5 && ok; i++)
    ok = clr_engine_process (e, ip, block, op, &n, error);
  /* b->runs windows of blocks; the least disturbed window's median counts */
  bt->median_ms = bt->min_ms = INFINITY;
  for (k = 0; k < b->runs && ok; k++) {
    start = now_s ();
    count = 0;
    while (ok && count < max_blocks && (count < (size_t) min_blocks
            || now_s () - start < target)) {
      t0 = now_s ();
      ok = clr_engine_process (e, ip, block, op, &n, error);
      t[count++] = now_s () - t0;
      bt->out_per_block = n;
    }
    if (!ok)
      break;
    med = percentile_of (t, count, 0.5) * 1e3;
    if (med < bt->median_ms) {
      bt->median_ms = med;
      bt->blocks = count;
    }
    bt->min_ms = MIN (bt->min_ms, percentile_of (t, count, 0.0) * 1e3);
  }
  g_free (t);
  g_free (in);
  g_free (out);
  clr_engine_free (e);
  return ok;
}

/* the thesis's tables (SEEDS.md), ms per block; NAN: not given */
static const struct
{
  size_t frames;
  double gpu_up, cpu_up, gpu_down, cpu_down;
} thesis[] = {
  {64, NAN, NAN, NAN, NAN},
  {256, 0.265, 0.252, 0.332, 0.100},
  {1024, 0.304, 1.008, 0.307, 0.398},
  {4096, 0.524, 4.028, 0.335, 1.591},
  {32768, 2.453, 32.236, 0.773, 12.742},
};

static void
w4_factor4 (Bench * b, gboolean up)
{
  Table *t;
  guint i;
  BlockTiming bt;
  GError *err = NULL;

  printf ("W4 %s: mono F32 %s, %s; thesis (GTX 275 / Core 2 Duo): "
      "127-tap filter\n", up ? "interpolation by 4" : "decimation by 4",
      up ? "44.1 -> 176.4 kHz" : "176.4 -> 44.1 kHz", up ?
      "taps=32 per phase (128-tap prototype, 32 MACs per output)" :
      "taps=128 (128 MACs per output)");
  t = table_new (up ? "W4-up4" : "W4-down4", "input frames",
      "output frames", "ours ms", "ours min ms", "out Msamples/s",
      "GTX 275 ms", "Core 2 Duo ms", "x GTX 275", NULL);
  for (i = 0; i < G_N_ELEMENTS (thesis); i++) {
    double gpu = up ? thesis[i].gpu_up : thesis[i].gpu_down;
    double cpu = up ? thesis[i].cpu_up : thesis[i].cpu_down;

    progress ("W4: %s %" G_GSIZE_FORMAT " frames ...\n", up ? "up" : "down",
        thesis[i].frames);
    table_add (t, "%" G_GSIZE_FORMAT, thesis[i].frames);
    if (!time_blocks (b, up ? 44100 : 176400, up ? 176400 : 44100,
            up ? 32 : 128, thesis[i].frames, &bt, &err)) {
      table_add (t, "failed: %s", err->message);
      g_clear_error (&err);
      table_add (t, "-");
      table_add (t, "-");
      table_add (t, "-");
      table_num (t, "%.3f", gpu);
      table_num (t, "%.3f", cpu);
      table_add (t, "-");
      continue;
    }
    table_add (t, "%" G_GSIZE_FORMAT, bt.out_per_block);
    table_num (t, "%.3f", bt.median_ms);
    table_num (t, "%.3f", bt.min_ms);
    table_num (t, "%.1f", bt.out_per_block / (bt.median_ms * 1e3));
    table_num (t, "%.3f", gpu);
    table_num (t, "%.3f", cpu);
    table_num (t, "%.2f", gpu / bt.median_ms);
  }
  table_print (b, t);
}

static void
w4_sweep (Bench * b)
{
  static const size_t blocks[2] = { 4096, 64 };
  Table *t;
  uint32_t taps;
  GError *err = NULL;
  int k;

  printf ("W4 filter-length sweep: mono F32 44.1 -> 176.4 kHz (4x up), "
      "taps per phase 8..4096 (prototype 4x as long), blocks of 4096 and "
      "64 frames\n");
  t = table_new ("W4-sweep", "taps/phase", "prototype taps",
      "ms @4096", "GMAC/s @4096", "ms @64", "GMAC/s @64", NULL);
  for (taps = 8; taps <= 4096; taps *= 2) {
    table_add (t, "%u", taps);
    table_add (t, "%u", taps * 4);
    for (k = 0; k < 2; k++) {
      BlockTiming bt;

      progress ("W4: sweep %u taps, %" G_GSIZE_FORMAT " frames ...\n", taps,
          blocks[k]);
      if (!time_blocks (b, 44100, 176400, taps, blocks[k], &bt, &err)) {
        table_add (t, "failed");
        table_add (t, "-");
        progress ("  %s\n", err->message);
        g_clear_error (&err);
        continue;
      }
      table_num (t, "%.3f", bt.median_ms);
      table_num (t, "%.2f", (double) bt.out_per_block * bt.taps /
          (bt.median_ms * 1e6));
    }
  }
  table_print (b, t);
}

static void
w4_160_147 (Bench * b)
{
  static const size_t blocks[] = { 64, 256, 1024, 2048, 4096, 8192, 32768 };
  Table *t;
  BlockTiming bt;
  GError *err = NULL;
  guint i;
  uint32_t taps = 0;

  t = table_new ("W4-160/147", "input frames", "output frames", "ours ms",
      "ours min ms", "out Msamples/s", "thesis GPU ms", "thesis CPU ms",
      "x thesis GPU", NULL);
  for (i = 0; i < G_N_ELEMENTS (blocks); i++) {
    gboolean big = blocks[i] == 32768;

    progress ("W4: 160/147 %" G_GSIZE_FORMAT " frames ...\n", blocks[i]);
    table_add (t, "%" G_GSIZE_FORMAT, blocks[i]);
    if (!time_blocks (b, 44100, 48000, 10, blocks[i], &bt, &err)) {
      table_add (t, "failed: %s", err->message);
      g_clear_error (&err);
      table_add (t, "-");
      table_add (t, "-");
      table_add (t, "-");
      table_add (t, "-");
      table_add (t, "-");
      table_add (t, "-");
      continue;
    }
    taps = bt.taps;
    table_add (t, "%" G_GSIZE_FORMAT, bt.out_per_block);
    table_num (t, "%.3f", bt.median_ms);
    table_num (t, "%.3f", bt.min_ms);
    table_num (t, "%.1f", bt.out_per_block / (bt.median_ms * 1e3));
    table_num (t, "%.3f", big ? 0.436 : NAN);
    table_num (t, "%.3f", big ? 1.817 : NAN);
    table_num (t, "%.2f", big ? 0.436 / bt.median_ms : NAN);
  }
  printf ("W4 160/147: mono F32 44.1 -> 48 kHz, taps=10 per phase (rounded "
      "up to %u: a %u-tap prototype where the thesis had 1600); thesis at "
      "32768 frames: GPU 0.436 ms, CPU 1.817 ms\n", taps, taps * 160);
  table_print (b, t);
}

/* ------------------------------------------------------------------------ */
/* W5: the kernel alone, data on the device                                  */

/* Worst and RMS error of the kernel's output against
 * y[m][c] = sum_j x[j][c] h(m D / I - j) in double, h the engine's own
 * prototype (clr_filter_eval), x = 0 outside the input, over the first 256
 * output frames (where the zeros before the stream are read) and ~1800
 * frames spread over the rest, every channel. */
static void
w5_error (ClrEngine * e, const float *x, size_t in_frames, size_t ch,
    const float *y, gboolean planar, size_t n_out, double *max_db,
    double *rms_db, double *floor_db)
{
  const ClrFilter *f = clr_engine_get_filter (e);
  const ClrRatio *r = clr_engine_get_ratio (e);
  const int64_t half = f->taps / 2;
  double *acc = g_new (double, ch), *h = g_new (double, f->taps);
  double worst = 0.0, sum2 = 0.0, floor = 0.0;
  size_t count = 0, k, n_check, c;

  n_check = MIN (n_out, 2048);
  for (k = 0; k < n_check; k++) {
    uint64_t m = k < 256 ? k : 256 + (k - 256) * (n_out - 256) /
        MAX (n_check - 256, 1);
    uint64_t p;
    int64_t n, j, j0;
    uint32_t i;

    clr_ratio_position (r, m, &n, &p);
    j0 = n - half + 1;
    for (i = 0; i < f->taps; i++)
      h[i] = clr_filter_eval (f, (double) (n - (j0 + i)) +
          (double) p / (double) r->I);
    for (c = 0; c < ch; c++)
      acc[c] = 0.0;
    for (i = 0; i < f->taps; i++) {
      const float *xj;

      j = j0 + i;
      if (j < 0 || j >= (int64_t) in_frames)
        continue;
      xj = x + (size_t) j * ch;
      for (c = 0; c < ch; c++)
        acc[c] += h[i] * xj[c];
    }
    for (c = 0; c < ch; c++) {
      double got = planar ? y[c * n_out + m] : y[m * ch + c];
      double d = fabs (got - acc[c]);

      worst = MAX (worst, d);
      sum2 += d * d;
      /* what rounding the exact result to float32 alone costs */
      floor = MAX (floor, fabs ((double) (float) acc[c] - acc[c]));
      count++;
    }
  }
  *max_db = clr_db (worst);
  *rms_db = clr_db (sqrt (sum2 / MAX (count, 1)));
  *floor_db = clr_db (floor);
  g_free (acc);
  g_free (h);
}

static void
w5 (Bench * b)
{
  static const uint32_t outs[2] = { 48000, 192000 };
  static const int quals[2] = { 10, 4 };
  const size_t ch = 64;
  Table *t;
  int o, q, l;
  /* input seconds: >= 1e7 outputs, enough to fill a big GPU; a CPU needs
   * no such size to be busy, and a quarter keeps the run short */
  double scale = (b->quick ? 0.125 : 1.0) * (b->dev_is_cpu ? 0.25 : 1.0);

  printf ("W5 engine only, data on the device: 64 channels F32, uniform "
      "noise in [-1, 1), clr_engine_bench_kernel (mean of many launches); "
      "error against float64 evaluation of the same filter, dB re full "
      "scale (1.0)\n");
  t = table_new ("W5", "conversion", "quality", "taps/phase", "layout",
      "out frames", "us/launch", "G out samples/s", "GMAC/s", "GB/s",
      "max err dB", "rms err dB", "f32 floor dB", NULL);
  for (o = 0; o < 2; o++) {
    size_t in_frames = (size_t) ((o == 0 ? 4.0 : 1.0) * scale * 44100);
    float *x = make_noise (in_frames * ch, 1.0), *xp;
    size_t i, c;

    /* the same samples, one plane per channel */
    xp = g_new (float, in_frames * ch);
    for (i = 0; i < in_frames; i++)
      for (c = 0; c < ch; c++)
        xp[c * in_frames + i] = x[i * ch + c];

    for (q = 0; q < 2; q++) {
      for (l = 0; l < 2; l++) {
        ClrEngineConfig cfg = { 44100, outs[o], ch, quals[q], 0,
          CLR_FORMAT_F32, l == 1, 0
        };
        GError *err = NULL;
        ClrEngine *e;
        const void *ip[64];
        void *op[64];
        float *y = NULL;
        size_t n_out = 0, n2 = 0;
        double sec = 0, max_db, rms_db, floor_db;
        unsigned iters;

        progress ("W5: 44.1 -> %u kHz q%d %s ...\n", outs[o] / 1000,
            quals[q], l ? "planar" : "interleaved");
        table_add (t, "44.1 -> %g kHz", outs[o] / 1000.0);
        table_add (t, "%d", quals[q]);
        e = clr_engine_new (b->dev, &cfg, &err);
        if (e) {
          n_out = clr_engine_out_frames (e, in_frames);
          y = g_new (float, MAX (n_out, 1) * ch);
          for (c = 0; c < ch; c++) {
            ip[c] = l ? (const void *) (xp + c * in_frames) : x;
            op[c] = l ? (void *) (y + c * n_out) : y;
          }
          /* one launch to size the runs, then b->runs runs of about
           * 0.3 s of launches each; the fastest counts */
          if (clr_engine_bench_kernel (e, ip, in_frames, 1, op, &n2, &sec,
                  &err)) {
            double best = INFINITY;
            int k;

            iters = (unsigned) CLAMP ((b->quick ? 0.1 : 0.3) / MAX (sec,
                    1e-7), 2, 5000);
            for (k = 0; k < b->runs && e; k++) {
              if (!clr_engine_bench_kernel (e, ip, in_frames, iters, op,
                      &n2, &sec, &err))
                g_clear_pointer (&e, clr_engine_free);
              best = MIN (best, sec);
            }
            sec = best;
          } else {
            g_clear_pointer (&e, clr_engine_free);
          }
        }
        if (!e) {
          table_add (t, "failed: %s", err ? err->message : "?");
          g_clear_error (&err);
          for (i = 0; i < 9; i++)
            table_add (t, "-");
          g_free (y);
          continue;
        }
        w5_error (e, x, in_frames, ch, y, l == 1, n2, &max_db, &rms_db,
            &floor_db);
        table_add (t, "%u", clr_engine_get_filter (e)->taps);
        table_add (t, "%s", l ? "planar" : "interleaved");
        table_add (t, "%" G_GSIZE_FORMAT, n2);
        table_num (t, "%.0f", sec * 1e6);
        table_num (t, "%.3f", n2 * ch / sec / 1e9);
        table_num (t, "%.1f", (double) n2 * ch *
            clr_engine_get_filter (e)->taps / sec / 1e9);
        table_num (t, "%.1f", (in_frames + n2) * ch * sizeof (float) / sec /
            1e9);
        table_num (t, "%.1f", max_db);
        table_num (t, "%.1f", rms_db);
        table_num (t, "%.1f", floor_db);
        clr_engine_free (e);
        g_free (y);
      }
    }
    g_free (x);
    g_free (xp);
  }
  table_print (b, t);
  printf ("  GB/s counts each input and output sample once (the least "
      "traffic); GMAC/s counts taps/phase MACs per output sample;\n"
      "  f32 floor: the largest error of the exact result rounded to "
      "float32, what any float32 output must allow.\n"
      "  For comparison (DESIGN.md): torchaudio on an H100, TF32 off, "
      "~23 G out samples/s at 44.1 -> 48 kHz, 64 channels, -110 dB error; "
      "run bench/torchaudio_w5.py on the same GPU.\n\n");
}

/* ------------------------------------------------------------------------ */

static gchar *
cpu_model (void)
{
  gchar *text = NULL, *model = NULL, **lines;
  int i;

  if (!g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL))
    return g_strdup ("unknown CPU");
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !model; i++)
    if (g_str_has_prefix (lines[i], "model name")) {
      const char *p = strchr (lines[i], ':');
      model = g_strstrip (g_strdup (p ? p + 1 : lines[i]));
    }
  g_strfreev (lines);
  g_free (text);
  return model ? model : g_strdup ("unknown CPU");
}


/* The device the element itself reports, from a harness started once. */
static gchar *
element_device_name (Bench * b)
{
  Contestant c = { C_CLR, CLR_QUALITY_DEFAULT };
  GstElement *el;
  GstHarness *h;
  gchar *name = NULL;

  if (!gst_element_factory_find ("clresample"))
    return g_strdup ("(element clresample not found: set GST_PLUGIN_PATH)");
  el = make_element (b, &c);
  h = gst_harness_new_with_element (el, "sink", "src");
  g_object_get (el, "device-name", &name, NULL);
  gst_object_unref (el);
  gst_harness_teardown (h);
  return name ? name : g_strdup ("(none)");
}

static gboolean
parse_qualities (Bench * b, const char *list)
{
  gchar **parts = g_strsplit (list, ",", -1);
  gboolean seen[CLR_QUALITY_MAX + 1] = { FALSE };
  int i, q;

  for (i = 0; parts[i]; i++) {
    char *end;

    errno = 0;
    q = (int) strtol (parts[i], &end, 10);
    if (errno || end == parts[i] || *end || q < CLR_QUALITY_MIN
        || q > CLR_QUALITY_MAX) {
      g_strfreev (parts);
      return FALSE;
    }
    seen[q] = TRUE;
  }
  g_strfreev (parts);
  /* ascending, so the first match found is the cheapest */
  b->n_qualities = 0;
  for (q = CLR_QUALITY_MIN; q <= CLR_QUALITY_MAX; q++)
    if (seen[q])
      b->qualities[b->n_qualities++] = q;
  return b->n_qualities > 0;
}

int
main (int argc, char **argv)
{
  Bench b = { 0 };
  gchar *wl = NULL, *csv = NULL, *quals = NULL, *cpu, *el_dev;
  gboolean sel[5] = { FALSE }, have_dev;
  GOptionEntry entries[] = {
    {"workloads", 'w', 0, G_OPTION_ARG_STRING, &wl,
        "Comma-separated workloads W1..W5 (default: all)", "LIST"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &b.device,
        "OpenCL device for clresample: auto, gpu, cpu, N, P:D or a name "
          "substring", "SPEC"},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &b.seconds,
        "Seconds of audio per timed run in W1-W3 (default 20, 20, 10)", "S"},
    {"pipeline-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &b.pipeline_seconds,
        "Seconds of audio per real-pipeline run of W1 and W2 (default 300, "
          "60; --quick: 20)", "S"},
    {"no-pipelines", 0, 0, G_OPTION_ARG_NONE, &b.no_pipelines,
        "Leave out the real-pipeline rows", NULL},
    {"quick", 'q', 0, G_OPTION_ARG_NONE, &b.quick,
        "Short runs, for a smoke test", NULL},
    {"runs", 'r', 0, G_OPTION_ARG_INT, &b.runs,
        "Timed repetitions of each measurement, the best counting "
          "(default 3; --quick: 1)", "N"},
    {"qualities", 0, 0, G_OPTION_ARG_STRING, &quals,
        "clresample qualities to run in W1-W3 (default " DEFAULT_QUALITIES
          "; --quick: " QUICK_QUALITIES ")", "LIST"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
        "Also write every table cell to FILE (table,row,column,value)",
        "FILE"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  gchar **parts;
  int i;
  double t_start = now_s ();

  ctx = g_option_context_new ("- clresample beside audioresample and libsoxr");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (b.runs <= 0)
    b.runs = b.quick ? 1 : 3;

  if (!parse_qualities (&b, quals ? quals : b.quick ? QUICK_QUALITIES :
          DEFAULT_QUALITIES)) {
    g_printerr ("--qualities: a comma-separated list of 0..10\n");
    return 2;
  }
  if (wl) {
    parts = g_strsplit (wl, ",", -1);
    for (i = 0; parts[i]; i++) {
      const char *p = g_strstrip (parts[i]);
      int k = (p[0] == 'W' || p[0] == 'w') ? atoi (p + 1) : atoi (p);
      if (k < 1 || k > 5) {
        g_printerr ("--workloads: unknown workload '%s' (W1..W5)\n", p);
        return 2;
      }
      sel[k - 1] = TRUE;
    }
    g_strfreev (parts);
  } else {
    for (i = 0; i < 5; i++)
      sel[i] = TRUE;
  }
  if (csv) {
    b.csv = fopen (csv, "w");
    if (!b.csv) {
      g_printerr ("%s: %s\n", csv, g_strerror (errno));
      return 2;
    }
    fprintf (b.csv, "table,row,column,value\n");
  }

  /* run from the build tree without any setup */
  if (!g_getenv ("GST_PLUGIN_PATH_1_0") && !g_getenv ("GST_PLUGIN_PATH")
      && CLR_BENCH_PLUGIN_DIR[0])
    g_setenv ("GST_PLUGIN_PATH", CLR_BENCH_PLUGIN_DIR, TRUE);
  gst_init (NULL, NULL);

  b.dev = clr_device_acquire (b.device, &err);
  if (b.dev) {
    cl_device_type type = 0;
    clGetDeviceInfo (clr_device_get_id (b.dev), CL_DEVICE_TYPE,
        sizeof (type), &type, NULL);
    b.dev_is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  }

  cpu = cpu_model ();
  {
    GDateTime *now = g_date_time_new_now_local ();
    gchar *date;

    date = g_date_time_format (now, "%Y-%m-%d %H:%M");
    printf ("clr-bench %s%s\n", date, b.quick ? " (--quick: short runs, "
        "rough figures)" : "");
    printf ("CPU: %s, %d logical CPUs, load average %.2f at start\n", cpu,
        g_get_num_processors (), load_average ());
    printf ("OpenCL device (engine, W4/W5): %s\n", b.dev ?
        clr_device_get_name (b.dev) : err->message);
    g_free (date);
    g_date_time_unref (now);
  }
  if (b.dev) {
    el_dev = element_device_name (&b);
    printf ("OpenCL device (element, W1-W3): %s\n", el_dev);
    g_free (el_dev);
  }
  {
    gchar *ver = gst_version_string ();
    printf ("%s; %s (SOXR_VHQ, float32 I/O, one thread)\n", ver,
        soxr_version ());
    g_free (ver);
  }
  printf ("clresample qualities tried:");
  for (i = 0; i < b.n_qualities; i++)
    printf (" %d", b.qualities[i]);
  printf ("\n\n");
  fflush (stdout);
  g_clear_error (&err);
  g_free (cpu);

  for (i = 0; i < 3; i++)
    if (sel[i])
      run_workload (&b, &workloads[i]);
  if (sel[3] && b.dev) {
    w4_factor4 (&b, TRUE);
    w4_factor4 (&b, FALSE);
    printf ("  Thesis decimation column labelled 'input frames x4' in "
        "SEEDS.md; here both directions take the listed input frames per "
        "block.\n\n");
    w4_sweep (&b);
    w4_160_147 (&b);
  }
  if (sel[4] && b.dev)
    w5 (&b);
  if ((sel[3] || sel[4]) && !b.dev)
    printf ("W4/W5 skipped: no OpenCL device\n");

  printf ("total bench time %.0f s; load average %.2f at the end\n",
      now_s () - t_start, load_average ());
  if (b.csv)
    fclose (b.csv);
  have_dev = b.dev != NULL;
  if (b.dev)
    clr_device_unref (b.dev);
  clr_device_clear_cache ();
  if (!have_dev)
    g_printerr ("clr-bench: no OpenCL device for clresample; its rows "
        "were skipped\n");
  g_free (wl);
  g_free (csv);
  g_free (quals);
  g_free (b.device);
  /* the clresample rows are what this is for: no device is a failure */
  return have_dev ? 0 : 1;
}
