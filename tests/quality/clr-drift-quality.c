/* clr-drift-quality: variable-ratio resampling (issue 48, item 3) measured
 * side by side on the same input:
 *   clresample   appsrc ! clresample quality=Q rate-adjust=A ! capsfilter !
 *                appsink, F32 and F64, the adjust set on each pushed buffer
 *                (a pad probe on the element's sink pad, so it lands before
 *                that buffer whatever the threads do)
 *   soxr         libsoxr's variable-rate mode (SOXR_VR), soxr_set_io_ratio
 *                per block, slewed over the block's output as its own
 *                example does
 *   speex        speexdsp, speex_resampler_set_rate_frac per block with a
 *                fine fraction (denominator 65535, the finest it takes)
 *   zita         zita-resampler's VResampler, set_rratio per block
 *   ideal        the analytic output of an ideal resampler following the
 *                same adjust: "smooth" the continuous trajectory, "step" the
 *                per-block commands taken instantly (the floor of a
 *                resampler that steps its ratio at each block)
 * The incumbents run with float32 samples (speex and zita have no other;
 * soxr as a GStreamer pipeline would use it).
 *
 * Modes: fixed (adjust exactly 1.0: clresample's exact rational path,
 * today's figures and the baseline of the targets), steady (1.0001 from
 * the start) and ramp (1 + d(t): a triangle of 500 ppm/s, +-1250 ppm over
 * a 10 s period, its corners turned over 0.5 s along a raised cosine, the
 * adjust commanded per block of 10 ms of input).
 *
 * Metrics, each on windows of ~0.17 s of output (a power of two of frames,
 * Kaiser beta 38, half overlapping, 0.25 s left out at each end), the
 * table giving the worst window and the JSON the mean too:
 *   thdn   1 kHz at -1 dBFS, 44.1 -> 48 kHz: everything but the +-48 bins
 *          (+-281 Hz) around the tone's peak, over those bins;
 *   alias  a sweep of 48 tones from 24.1 to 47.5 kHz, 96 -> 44.1 kHz, in
 *          sets of up to 5 together at -15 dBFS each (alias_sets): the
 *          power within +-48 bins of each tone's fold frequency (all in
 *          0.9 - 20 kHz) over that tone's input power, worst tone;
 *   image  15 kHz at -1 dBFS, 44.1 -> 192 kHz: everything from 22.05 kHz to
 *          96 kHz over the tone.
 * Why this is fair to all: nothing is fitted to a contestant's own timing
 * (latency, where and how it applies a new ratio), which differs between
 * them; the window's spectrum needs neither. Within one window the ramp
 * moves the tone by 85 ppm (0.085 Hz at 1 kHz), far less than a bin, so
 * the tone stays inside its main lobe (+-12.2 bins) and +-48 bins hold it
 * with a wide margin; the ideal chirp on the same trajectory reads near
 * -250 dB (analysis-selftest, and the "ideal smooth" column here, which
 * --check holds below -150 dB). The +-281 Hz left out also hold the
 * sidebands that commanding the ramp in 10 ms steps puts at 100 and 200 Hz
 * from the tone (the "ideal step" column shows what is left beyond them:
 * the harmonics from 300 Hz on); the noise the band hides is 2.3 % of
 * 0 - 24 kHz, 0.1 dB. The same windows and bands serve every contestant
 * and the fixed and steady modes too, so the comparisons of --check
 * are like for like.
 *
 * Latency: input frames of group delay as each reports it: clresample's
 * latency query on its source pad, soxr_delay () (output frames, divided
 * by the ratio) mid-stream, speex_resampler_get_input_latency (), zita's
 * inpsize () / 2.
 *
 * --check asserts issue 48's targets for every clresample column that ran:
 * steady within 6 dB of the same column's fixed figure, ramp within
 * 10 dB; and better than each incumbent of equal or higher latency, steady
 * and ramp. A plugin without rate-adjust gives "n/a (no rate-adjust)"
 * for clresample's steady and ramp cells (fixed still runs) and no
 * clresample checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/audio/audio.h>
#include <soxr.h>
#include <speex/speex_resampler.h>

#include "clr-analysis.h"
#include "clr-zita-vr.h"

#define SKIP_S 0.25
#define STEADY_S 3.0
#define STEADY_ADJUST 1.0001
#define RAMP_SLOPE 500e-6       /* per second */
#define RAMP_CORNER_S 0.5
#define GUARD_BINS 48
#define RUN_TIMEOUT_S 600
#define NO_ADJUST "n/a (no rate-adjust)"

typedef enum
{
  MET_THDN,
  MET_ALIAS,
  MET_IMAGE,
  N_METRICS
} Metric;

typedef enum
{
  MODE_FIXED,
  MODE_STEADY,
  MODE_RAMP,
  N_MODES
} Mode;

static const char *metric_names[N_METRICS] = { "thdn", "alias", "image" };
static const char *metric_titles[N_METRICS] = {
  "THD+N 1 kHz, 44.1->48k",
  "worst alias, 96->44.1k",
  "images >22.05k, 44.1->192k"
};
static const char *mode_names[N_MODES] = { "fixed", "steady", "ramp" };

static const struct
{
  gint in_rate, out_rate;
} rates[N_METRICS] = {
  {44100, 48000}, {96000, 44100}, {44100, 192000}
};

/* The alias tones: a sweep of what folds into 0 - 20 kHz, every 100 Hz
 * over 24.1 - 26.1 kHz (folds 20 - 18 kHz: the band's highest sidelobes)
 * and every 700 Hz from 26.8 to 42.9 kHz, with 45, 46.5 and 47.5 kHz
 * (folds 0.9 - 3.4 kHz), run in sets of up to 5 tones whose folds lie
 * 700 Hz or more apart; the worst of them all. A design's response moves
 * by 20 dB and more within one sidelobe (267 Hz at 96 kHz for quality 4's
 * 360 taps), so a few tones read a filter at chance: 25, 30, 40 and
 * 47 kHz read quality 4's fixed ratio at -151.4 dB and its variable one
 * at -137.0. Tones between 22.05 and 24.1 kHz fold above 20 kHz, where
 * libsoxr lets them through on purpose (-13 dB at 22.1 kHz). */
#define ALIAS_SETS 10
#define N_ALIAS 5
#define ALIAS_AMP 0.177827941003892     /* -15 dBFS: five peak below 0.9 */
static const double alias_sets[ALIAS_SETS][N_ALIAS] = {
  {24100, 24800, 25500, 26800, 27500},
  {24200, 24900, 25600, 28200, 28900},
  {24300, 25000, 25700, 29600, 30300},
  {24400, 25100, 25800, 31000, 31700},
  {24500, 25200, 25900, 32400, 33100},
  {24600, 25300, 26000, 33800, 34500},
  {24700, 25400, 26100, 35200, 35900},
  {36600, 37300, 38000, 38700, 39400},
  {40100, 40800, 41500, 42200, 42900},
  {45000, 46500, 47500},
};
/* tone i of alias set `set`; 0: none */
static double
alias_hz (guint set, guint i)
{
  return alias_sets[set][i];
}

#define TONE_AMP 0.891250938133746      /* -1 dBFS */

typedef enum
{
  K_CLR,
  K_SOXR,
  K_SPEEX,
  K_ZITA,
  K_IDEAL
} Kind;

typedef struct
{
  Kind kind;
  gchar *name;
  gint quality;                 /* clresample, speex */
  GstAudioFormat format;        /* clresample */
  unsigned long recipe;         /* soxr */
  guint hlen;                   /* zita */
  gboolean step;                /* ideal: per-block steps */

  gboolean ran[N_METRICS][N_MODES];
  gchar *note[N_METRICS][N_MODES];
  double worst[N_METRICS][N_MODES];     /* dB */
  double mean[N_METRICS][N_MODES];      /* dB */
  double band[N_METRICS][N_MODES];      /* alias: all of 0 - 20 kHz, dB */
  double latency[N_METRICS][N_MODES];   /* input frames */
  double seconds[N_METRICS][N_MODES];
  gsize frames_out[N_METRICS][N_MODES];
} Con;

typedef struct
{
  double ramp_s;
  double block_ms;
  guint alias_sets;             /* of alias_sets, the first ones run */
  gchar *device;
  gchar *dump_dir;
  gboolean verbose;
  GPtrArray *cons;
} Ctx;

/* ------------------------------------------------------------------------ */
/* the adjust                                                               */

/* d(t) of the ramp: 500 ppm/s up from 0 to near +1250 ppm, down to near
 * -1250 and back, period p. The slope turns over RAMP_CORNER_S along a
 * raised cosine: a sharp corner is a jump in the sweep rate, there in the
 * ideal output too, that reads -144 dB on the windows holding one. */
static double
ramp_d (double t, double p)
{
  const double s = RAMP_SLOPE, tau = RAMP_CORNER_S;
  double u = fmod (t, p), lin = s * (p / 4.0 - tau / 2.0);

  if (u < p / 4.0 - tau / 2.0)
    return s * u;
  if (u < p / 4.0 + tau / 2.0)
    return lin + s * tau / G_PI * sin (G_PI / tau * (u - p / 4.0 + tau / 2.0));
  if (u < 3.0 * p / 4.0 - tau / 2.0)
    return lin - s * (u - p / 4.0 - tau / 2.0);
  if (u < 3.0 * p / 4.0 + tau / 2.0)
    return -lin - s * tau / G_PI *
        sin (G_PI / tau * (u - 3.0 * p / 4.0 + tau / 2.0));
  return -lin + s * (u - 3.0 * p / 4.0 - tau / 2.0);
}

/* The adjust at input time t (seconds). */
static double
adjust_at (const Ctx * ctx, Mode mode, double t)
{
  switch (mode) {
    case MODE_FIXED:
      return 1.0;
    case MODE_STEADY:
      return STEADY_ADJUST;
    default:
      return 1.0 + ramp_d (t, ctx->ramp_s);
  }
}

static gsize
block_frames (const Ctx * ctx, gint in_rate)
{
  return (gsize) MAX (1, lround (in_rate * ctx->block_ms / 1000.0));
}

/* The adjust commanded for the block starting at input frame off. */
static double
block_adjust (const Ctx * ctx, Mode mode, gint in_rate, gsize off)
{
  return adjust_at (ctx, mode, (double) off / in_rate);
}

static double
signal_seconds (const Ctx * ctx, Mode mode)
{
  return mode == MODE_RAMP ? ctx->ramp_s + 2.0 * SKIP_S : STEADY_S;
}

/* The input of metric m: mono doubles, n frames. */
static double *
make_input (Metric m, guint set, gsize n)
{
  double *x = g_new0 (double, n);
  gint fs = rates[m].in_rate;
  guint i;

  switch (m) {
    case MET_THDN:
      clr_tone_add (x, n, 1, fs, clr_freq_hz (1000), TONE_AMP, 0.0, 0);
      break;
    case MET_ALIAS:
      for (i = 0; i < N_ALIAS && alias_hz (set, i) > 0.0; i++)
        clr_tone_add (x, n, 1, fs, clr_freq_hz ((gint64) alias_hz (set, i)),
            ALIAS_AMP, 0.0, 0);
      break;
    default:
      clr_tone_add (x, n, 1, fs, clr_freq_hz (15000), TONE_AMP, 0.0, 0);
      break;
  }
  return x;
}

typedef struct
{
  double *data;
  gsize frames;
  double latency;               /* input frames, NAN if unknown */
  double seconds;
} Out;

/* ------------------------------------------------------------------------ */
/* clresample                                                               */

typedef struct
{
  const Ctx *ctx;
  Mode mode;
  gint in_rate;
  GstElement *rs;
} ProbeData;

/* Runs in the streaming thread just before clresample's chain function
 * sees the buffer: the ramp's adjust for the block it starts. */
static GstPadProbeReturn
adjust_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  ProbeData *pd = user;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);

  if (GST_BUFFER_OFFSET_IS_VALID (b))
    g_object_set (pd->rs, "rate-adjust", block_adjust (pd->ctx, pd->mode,
            pd->in_rate, GST_BUFFER_OFFSET (b)), NULL);
  return GST_PAD_PROBE_OK;
}

static gboolean
clr_has_rate_adjust (void)
{
  GstElementFactory *f = gst_element_factory_find ("clresample");
  GstElement *e;
  gboolean has;

  if (!f)
    return FALSE;
  e = gst_element_factory_create (f, NULL);
  gst_object_unref (f);
  if (!e)
    return FALSE;
  has = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "rate-adjust") != NULL;
  gst_object_unref (e);
  return has;
}

static GstBuffer *
make_buffer (GstAudioFormat fmt, const double *in, gsize off, gsize n,
    gint rate)
{
  gint bps = fmt == GST_AUDIO_FORMAT_F32LE ? 4 : 8;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * bps, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < n; i++) {
    if (bps == 4)
      GST_WRITE_FLOAT_LE (map.data + i * 4, (float) in[off + i]);
    else
      GST_WRITE_DOUBLE_LE (map.data + i * 8, in[off + i]);
  }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (off, GST_SECOND, rate);
  GST_BUFFER_DURATION (buf) =
      gst_util_uint64_scale_int (off + n, GST_SECOND, rate) -
      GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = off;
  GST_BUFFER_OFFSET_END (buf) = off + n;
  if (off == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

static gboolean
run_clr (const Ctx * ctx, Con * c, Metric m, Mode mode, const double *in,
    gsize frames, Out * o, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  GstAudioInfo iinfo, oinfo;
  GstElement *pipeline, *src, *rs, *cf, *sink;
  GstCaps *icaps, *ocaps;
  GstBus *bus;
  GstPad *pad;
  GPtrArray *samples;
  ProbeData pd;
  gsize off, bf = block_frames (ctx, in_rate), total = 0, pos = 0;
  gint64 t0, deadline;
  gboolean ok = FALSE;
  guint i;

  rs = gst_element_factory_make ("clresample", NULL);
  if (!rs) {
    *err = g_strdup ("no element clresample (GST_PLUGIN_PATH?)");
    return FALSE;
  }
  g_object_set (rs, "quality", c->quality, NULL);
  if (ctx->device)
    g_object_set (rs, "device", ctx->device, NULL);
  /* fixed: never touched, so the exact rational path runs */
  if (mode == MODE_STEADY)
    g_object_set (rs, "rate-adjust", STEADY_ADJUST, NULL);

  gst_audio_info_set_format (&iinfo, c->format, in_rate, 1, NULL);
  gst_audio_info_set_format (&oinfo, c->format, out_rate, 1, NULL);
  pipeline = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("appsrc", NULL);
  cf = gst_element_factory_make ("capsfilter", NULL);
  sink = gst_element_factory_make ("appsink", NULL);
  icaps = gst_audio_info_to_caps (&iinfo);
  ocaps = gst_audio_info_to_caps (&oinfo);
  g_object_set (src, "caps", icaps, "format", GST_FORMAT_TIME, "is-live",
      FALSE, "max-bytes", (guint64) 0, "block", FALSE, NULL);
  g_object_set (cf, "caps", ocaps, NULL);
  g_object_set (sink, "sync", FALSE, "max-buffers", 0, "enable-last-sample",
      FALSE, NULL);
  gst_caps_unref (icaps);
  gst_caps_unref (ocaps);
  gst_bin_add_many (GST_BIN (pipeline), src, rs, cf, sink, NULL);
  if (!gst_element_link_many (src, rs, cf, sink, NULL)) {
    *err = g_strdup ("could not link");
    gst_object_unref (pipeline);
    return FALSE;
  }
  pd.ctx = ctx;
  pd.mode = mode;
  pd.in_rate = in_rate;
  pd.rs = rs;
  if (mode == MODE_RAMP) {
    pad = gst_element_get_static_pad (rs, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, adjust_probe, &pd,
        NULL);
    gst_object_unref (pad);
  }
  samples = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_sample_unref);
  bus = gst_element_get_bus (pipeline);
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *err = g_strdup ("could not start the pipeline");
    goto done;
  }
  t0 = g_get_monotonic_time ();
  for (off = 0; off < frames; off += bf)
    gst_app_src_push_buffer (GST_APP_SRC (src), make_buffer (c->format, in,
            off, MIN (bf, frames - off), in_rate));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  deadline = t0 + (gint64) RUN_TIMEOUT_S * G_USEC_PER_SEC;
  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_MSECOND);
    GstMessage *msg;

    if (s) {
      g_ptr_array_add (samples, s);
      continue;
    }
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      *err = g_strdup (e->message);
      g_error_free (e);
      gst_message_unref (msg);
      goto done;
    }
    if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
      break;
    if (g_get_monotonic_time () > deadline) {
      *err = g_strdup ("timed out");
      goto done;
    }
  }
  o->seconds = (g_get_monotonic_time () - t0) / 1e6;
  {
    GstQuery *q = gst_query_new_latency ();
    GstClockTime min = 0;

    pad = gst_element_get_static_pad (rs, "src");
    o->latency = NAN;
    if (gst_pad_query (pad, q)) {
      gst_query_parse_latency (q, NULL, &min, NULL);
      o->latency = min / 1e9 * in_rate;
    }
    gst_query_unref (q);
    gst_object_unref (pad);
  }
  for (i = 0; i < samples->len; i++)
    total += gst_buffer_get_size (gst_sample_get_buffer (g_ptr_array_index
            (samples, i)));
  total /= GST_AUDIO_INFO_BPF (&oinfo);
  o->data = g_new (double, total + 1);
  for (i = 0; i < samples->len; i++) {
    GstBuffer *b = gst_sample_get_buffer (g_ptr_array_index (samples, i));
    GstMapInfo map;
    gsize j, n;

    gst_buffer_map (b, &map, GST_MAP_READ);
    n = map.size / GST_AUDIO_INFO_BPF (&oinfo);
    for (j = 0; j < n; j++)
      o->data[pos + j] = c->format == GST_AUDIO_FORMAT_F32LE ?
          GST_READ_FLOAT_LE (map.data + j * 4) :
          GST_READ_DOUBLE_LE (map.data + j * 8);
    pos += n;
    gst_buffer_unmap (b, &map);
  }
  o->frames = pos;
  ok = TRUE;

done:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_ptr_array_free (samples, TRUE);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* the incumbents: float32 in, float32 out, fed block by block              */

typedef struct
{
  float *buf;
  gsize len, cap;
} FBuf;

static float *
fbuf_room (FBuf * f, gsize n)
{
  if (f->len + n > f->cap) {
    f->cap = MAX (f->cap * 2, f->len + n);
    f->buf = g_renew (float, f->buf, f->cap);
  }
  return f->buf + f->len;
}

static void
fbuf_to_out (FBuf * f, Out * o)
{
  gsize i;

  o->data = g_new (double, f->len + 1);
  for (i = 0; i < f->len; i++)
    o->data[i] = f->buf[i];
  o->frames = f->len;
  g_free (f->buf);
}

static float *
to_float (const double *in, gsize n)
{
  float *f = g_new (float, n);
  gsize i;

  for (i = 0; i < n; i++)
    f[i] = (float) in[i];
  return f;
}

static gboolean
run_soxr (const Ctx * ctx, Con * c, Metric m, Mode mode, const double *in,
    gsize frames, Out * o, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  double io = (double) in_rate / out_rate;
  soxr_io_spec_t ios = soxr_io_spec (SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  soxr_quality_spec_t q = soxr_quality_spec (c->recipe, SOXR_VR);
  soxr_runtime_spec_t rt = soxr_runtime_spec (1);
  soxr_error_t e = NULL;
  soxr_t s;
  float *fin = to_float (in, frames);
  FBuf ob = { 0 };
  gsize off, bf = block_frames (ctx, in_rate);
  gint64 t0 = g_get_monotonic_time ();

  o->latency = NAN;
  /* in variable-rate mode the rates given say the largest I/O ratio to
   * come: the adjust never goes below 0.99 here */
  s = soxr_create (io / 0.99, 1.0, 1, &e, &ios, &q, &rt);
  if (!s || e) {
    *err = g_strdup_printf ("soxr_create: %s", e ? e : "failed");
    g_free (fin);
    return FALSE;
  }
  e = soxr_set_io_ratio (s, io / block_adjust (ctx, mode, in_rate, 0), 0);
  for (off = 0; !e && off < frames; off += bf) {
    gsize n = MIN (bf, frames - off), used = 0;
    double a = block_adjust (ctx, mode, in_rate, off);

    /* the new ratio reached linearly over this block's output, as libsoxr's
     * own variable-rate example does */
    if (off > 0 && mode == MODE_RAMP)
      e = soxr_set_io_ratio (s, io / a, (size_t) lround (n / io / a));
    while (!e && used < n) {
      size_t idone = 0, odone = 0;
      float *dst = fbuf_room (&ob, 8 * n + 4096);
      e = soxr_process (s, fin + off + used, n - used, &idone, dst,
          8 * n + 4096, &odone);
      used += idone;
      ob.len += odone;
    }
    /* output frames in flight, as input frames */
    if (isnan (o->latency) && off >= (gsize) in_rate)
      o->latency = soxr_delay (s) * io / a;
  }
  while (!e) {
    size_t odone = 0;
    float *dst = fbuf_room (&ob, 65536);
    e = soxr_process (s, NULL, 0, NULL, dst, 65536, &odone);
    ob.len += odone;
    if (odone == 0)
      break;
  }
  soxr_delete (s);
  g_free (fin);
  o->seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (e) {
    *err = g_strdup_printf ("soxr: %s", e);
    g_free (ob.buf);
    return FALSE;
  }
  fbuf_to_out (&ob, o);
  return TRUE;
}

/* num / den = input per output = in / (out a), den fixed at 65535. On a
 * change of den speexdsp rescales its phase (floored, and refused as an
 * overflow unless samp_frac_num * den fits 32 bits, so den < 2^16); with
 * den fixed the phase carries over exactly and the ratio moves in steps
 * of 1 / 65535 (~15 ppm; steady's 1.0001 is met to within 8 ppm): it
 * measured 15 - 20 dB better during the ramp than the best fraction with a
 * new den at each block. */
#define SPEEX_DEN 65535
static void
speex_frac (gint in_rate, gint out_rate, double a, spx_uint32_t * num,
    spx_uint32_t * den)
{
  *den = SPEEX_DEN;
  *num = (spx_uint32_t) llround ((double) in_rate / out_rate / a * SPEEX_DEN);
}

static gboolean
run_speex (const Ctx * ctx, Con * c, Metric m, Mode mode, const double *in,
    gsize frames, Out * o, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  float *fin = to_float (in, frames);
  FBuf ob = { 0 };
  gsize off, bf = block_frames (ctx, in_rate);
  spx_uint32_t num, den;
  SpeexResamplerState *st;
  int e = 0;
  gint64 t0 = g_get_monotonic_time ();

  /* fixed: the exact rates, as speexdsp is used at a fixed ratio */
  if (mode == MODE_FIXED) {
    num = in_rate;
    den = out_rate;
  } else
    speex_frac (in_rate, out_rate, block_adjust (ctx, mode, in_rate, 0),
        &num, &den);
  st = speex_resampler_init_frac (1, num, den, in_rate, out_rate, c->quality,
      &e);
  if (!st) {
    *err = g_strdup_printf ("speex_resampler_init_frac: %s",
        speex_resampler_strerror (e));
    g_free (fin);
    return FALSE;
  }
  o->latency = speex_resampler_get_input_latency (st);
  for (off = 0; !e && off < frames; off += bf) {
    gsize n = MIN (bf, frames - off), used = 0;

    if (off > 0 && mode == MODE_RAMP) {
      speex_frac (in_rate, out_rate, block_adjust (ctx, mode, in_rate, off),
          &num, &den);
      e = speex_resampler_set_rate_frac (st, num, den, in_rate, out_rate);
    }
    while (!e && used < n) {
      spx_uint32_t ilen = n - used, olen = 8 * n + 4096;
      float *dst = fbuf_room (&ob, olen);
      e = speex_resampler_process_float (st, 0, fin + off + used, &ilen, dst,
          &olen);
      used += ilen;
      ob.len += olen;
    }
  }
  speex_resampler_destroy (st);
  g_free (fin);
  o->seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (e) {
    *err = g_strdup_printf ("speex: %s", speex_resampler_strerror (e));
    g_free (ob.buf);
    return FALSE;
  }
  fbuf_to_out (&ob, o);
  return TRUE;
}

static gboolean
run_zita (const Ctx * ctx, Con * c, Metric m, Mode mode, const double *in,
    gsize frames, Out * o, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  float *fin = to_float (in, frames);
  FBuf ob = { 0 };
  gsize off, bf = block_frames (ctx, in_rate);
  ClrZitaVr *z;
  gint64 t0 = g_get_monotonic_time ();

  z = clr_zita_vr_new ((double) out_rate / in_rate, 1, c->hlen);
  if (!z) {
    *err = g_strdup ("VResampler::setup refused");
    g_free (fin);
    return FALSE;
  }
  o->latency = clr_zita_vr_latency (z);
  for (off = 0; off < frames; off += bf) {
    gsize n = MIN (bf, frames - off);
    unsigned left = n;

    if (off == 0 || mode == MODE_RAMP)
      clr_zita_vr_set_rratio (z, block_adjust (ctx, mode, in_rate, off));
    while (left > 0) {
      unsigned olen = 8 * n + 4096, oleft = olen;
      float *dst = fbuf_room (&ob, olen);
      clr_zita_vr_process (z, fin + off + (n - left), &left, dst, &oleft);
      ob.len += olen - oleft;
    }
  }
  clr_zita_vr_free (z);
  g_free (fin);
  o->seconds = (g_get_monotonic_time () - t0) / 1e6;
  fbuf_to_out (&ob, o);
  return TRUE;
}

/* An ideal resampler: output frame k holds the input's tones at the
 * input time t_k of that frame, t_0 = 0 and t_{k+1} = t_k + 1 / (out_rate
 * a), a taken half a frame on (smooth) or from the block t_k lies in
 * (step). Metric m's tones, phases in long double. */
static gboolean
run_ideal (const Ctx * ctx, Con * c, Metric m, Mode mode, gsize frames,
    Out * o, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  gsize bf = block_frames (ctx, in_rate), cap, k;
  long double t = 0.0L, end = (long double) frames / in_rate;
  double hz = m == MET_THDN ? 1000.0 : 15000.0;
  gint64 t0 = g_get_monotonic_time ();

  if (m == MET_ALIAS) {
    /* the ideal output of tones above the output's Nyquist is silence */
    *err = g_strdup ("-");
    return FALSE;
  }
  cap = (gsize) ((double) frames * out_rate / in_rate * 1.01) + 16;
  o->data = g_new (double, cap);
  for (k = 0; k < cap && t < end; k++) {
    long double ph = fmodl (hz * t, 1.0L);
    double a;

    o->data[k] = TONE_AMP * sin (2.0 * G_PI * (double) ph);
    if (c->step)
      a = block_adjust (ctx, mode, in_rate,
          (gsize) floorl (t * in_rate / bf) * bf);
    else
      a = adjust_at (ctx, mode, (double) (t + 0.5L / out_rate));
    t += 1.0L / (out_rate * (long double) a);
  }
  o->frames = k;
  o->latency = 0.0;
  o->seconds = (g_get_monotonic_time () - t0) / 1e6;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* analysis                                                                 */

/* Worst and mean (power) of metric m over the windows of y; band: the
 * alias metric's whole 0 - 20 kHz. */
static gboolean
analyse (const Ctx * ctx, Metric m, guint set, Mode mode, const Out * o,
    double *worst, double *mean, double *band, gchar ** err)
{
  gint in_rate = rates[m].in_rate, out_rate = rates[m].out_rate;
  gsize n = clr_pow2_floor ((gsize) out_rate / 5), skip, s, nw = 0;
  double w = 0.0, wb = 0.0, sum = 0.0, bin = (double) out_rate / n;
  guint i;

  skip = (gsize) (SKIP_S * out_rate);
  if (o->frames < 2 * skip + n) {
    *err = g_strdup_printf ("%" G_GSIZE_FORMAT " frames out: too short",
        o->frames);
    return FALSE;
  }
  for (s = skip; s + n + skip <= o->frames; s += n / 2) {
    /* the adjust in force around the window's centre; the search for the
     * peak makes the figure insensitive to the contestants' latencies */
    double a = adjust_at (ctx, mode, (s + n / 2.0) / out_rate), r = 0.0, rb;
    double *ps;

    switch (m) {
      case MET_THDN:
        r = clr_window_thdn (o->data, 1, s, n, out_rate, 1000.0 / a * 0.995,
            1000.0 / a * 1.005, GUARD_BINS, CLR_SPECTRUM_BETA, NULL);
        break;
      case MET_IMAGE:
        ps = clr_power_spectrum (o->data, 1, s, n, CLR_SPECTRUM_BETA);
        r = clr_band_power (ps, n, out_rate, 0.5 * in_rate, 0.5 * out_rate) /
            clr_peak_power (ps, n, out_rate, 15000.0 / a * 0.995,
            15000.0 / a * 1.005, GUARD_BINS, NULL);
        free (ps);
        break;
      case MET_ALIAS:
        ps = clr_power_spectrum (o->data, 1, s, n, CLR_SPECTRUM_BETA);
        for (i = 0; i < N_ALIAS && alias_hz (set, i) > 0.0; i++) {
          /* the output sees the tone at alias_hz () / a Hz of its nominal
           * rate; folded into [0, out_rate / 2] */
          double f = alias_hz (set, i) / a, fa;
          fa = fabs (f - out_rate * nearbyint (f / out_rate));
          r = MAX (r, clr_peak_power (ps, n, out_rate, fa - 8 * bin,
                  fa + 8 * bin, GUARD_BINS, NULL) /
              (ALIAS_AMP * ALIAS_AMP / 2.0));
        }
        rb = clr_band_power (ps, n, out_rate, 0.0, 20000.0) /
            (ALIAS_AMP * ALIAS_AMP / 2.0);
        wb = MAX (wb, rb);
        free (ps);
        break;
      default:
        break;
    }
    if (r < 0.0) {
      *err = g_strdup ("no tone found");
      return FALSE;
    }
    w = MAX (w, r);
    sum += r;
    nw++;
  }
  *worst = 10.0 * log10 (w);
  *mean = 10.0 * log10 (sum / nw);
  *band = m == MET_ALIAS ? 10.0 * log10 (wb) : NAN;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* contestants                                                              */

static Con *
con_new (Kind k, const char *name)
{
  Con *c = g_new0 (Con, 1);
  int m, d;

  c->kind = k;
  c->name = g_strdup (name);
  for (m = 0; m < N_METRICS; m++)
    for (d = 0; d < N_MODES; d++)
      c->worst[m][d] = c->mean[m][d] = c->band[m][d] = c->latency[m][d] =
          NAN;
  return c;
}

static void
add_default_contestants (Ctx * ctx, const char *only)
{
  static const struct
  {
    Kind k;
    const char *name;
    gint q;
    GstAudioFormat fmt;
    unsigned long recipe;
    guint hlen;
    gboolean step;
  } list[] = {
    {K_CLR, "clr-q4-F32", 4, GST_AUDIO_FORMAT_F32LE},
    {K_CLR, "clr-q10-F32", 10, GST_AUDIO_FORMAT_F32LE},
    {K_CLR, "clr-q4-F64", 4, GST_AUDIO_FORMAT_F64LE},
    {K_CLR, "clr-q10-F64", 10, GST_AUDIO_FORMAT_F64LE},
    /* SOXR_VHQ with SOXR_VR measured the same to 0.1 dB: one engine */
    {K_SOXR, "soxr-hq", 0, 0, SOXR_HQ},
    {K_SPEEX, "speex-q4", 4},
    {K_SPEEX, "speex-q10", 10},
    {K_ZITA, "zita-h32", 0, 0, 0, 32},
    {K_ZITA, "zita-h96", 0, 0, 0, 96},
    {K_IDEAL, "ideal-smooth"},
    {K_IDEAL, "ideal-step", 0, 0, 0, 0, TRUE},
  };
  gchar **sel = only ? g_strsplit (only, ",", -1) : NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (list); i++) {
    Con *c;
    if (sel && !g_strv_contains ((const gchar * const *) sel, list[i].name))
      continue;
    c = con_new (list[i].k, list[i].name);
    c->quality = list[i].q;
    c->format = list[i].fmt;
    c->recipe = list[i].recipe;
    c->hlen = list[i].hlen;
    c->step = list[i].step;
    g_ptr_array_add (ctx->cons, c);
  }
  g_strfreev (sel);
}

static void
run_all (Ctx * ctx)
{
  gboolean have_adjust = FALSE;
  int m, d;
  guint i, set;

  /* only where a clresample column asks: no element, no OpenCL, else */
  for (i = 0; i < ctx->cons->len; i++)
    if (((Con *) g_ptr_array_index (ctx->cons, i))->kind == K_CLR) {
      have_adjust = clr_has_rate_adjust ();
      break;
    }

  for (m = 0; m < N_METRICS; m++)
    for (d = 0; d < N_MODES; d++)
      for (set = 0; set < (m == MET_ALIAS ? ctx->alias_sets : 1); set++) {
        gsize frames = (gsize) (signal_seconds (ctx, d) * rates[m].in_rate);
        double *in = make_input (m, set, frames);

        for (i = 0; i < ctx->cons->len; i++) {
          Con *c = g_ptr_array_index (ctx->cons, i);
          Out o = { NULL, 0, NAN, 0.0 };
          gchar *err = NULL;
          gboolean ok = FALSE;
          double worst = NAN, mean = NAN, band = NAN;

          /* a later alias set after one that failed: the cell stays failed */
          if (set > 0 && !c->ran[m][d])
            continue;

          switch (c->kind) {
            case K_CLR:
              /* fixed needs no rate-adjust: today's figures on any plugin */
              if (!have_adjust && d != MODE_FIXED)
                err = g_strdup (NO_ADJUST);
              else
                ok = run_clr (ctx, c, m, d, in, frames, &o, &err);
              break;
            case K_SOXR:
              ok = run_soxr (ctx, c, m, d, in, frames, &o, &err);
              break;
            case K_SPEEX:
              ok = run_speex (ctx, c, m, d, in, frames, &o, &err);
              break;
            case K_ZITA:
              ok = run_zita (ctx, c, m, d, in, frames, &o, &err);
              break;
            case K_IDEAL:
              ok = run_ideal (ctx, c, m, d, frames, &o, &err);
              break;
          }
          if (ok && ctx->dump_dir && set == 0) {
            /* DIR/<contestant>-<metric>-<mode>.f64: the output, float64
             * native-endian mono at the metric's output rate */
            gchar *fn = g_strdup_printf ("%s/%s-%s-%s.f64", ctx->dump_dir,
                c->name, metric_names[m], mode_names[d]);
            g_mkdir_with_parents (ctx->dump_dir, 0755);
            if (!g_file_set_contents (fn, (const gchar *) o.data,
                    o.frames * sizeof (double), NULL))
              g_printerr ("could not write %s\n", fn);
            g_free (fn);
          }
          if (ok && !analyse (ctx, m, set, d, &o, &worst, &mean, &band, &err))
            ok = FALSE;
          if (set == 0) {
            c->worst[m][d] = worst;
            c->mean[m][d] = mean;
            c->band[m][d] = band;
            c->latency[m][d] = o.latency;
            c->seconds[m][d] = o.seconds;
            c->frames_out[m][d] = o.frames;
          } else {
            /* the sets together: the worst of all, the mean of the means
             * (powers), the time of all */
            c->worst[m][d] = MAX (c->worst[m][d], worst);
            c->mean[m][d] = 10.0 * log10 ((pow (10.0, c->mean[m][d] /
                        10.0) * set + pow (10.0, mean / 10.0)) / (set + 1));
            c->band[m][d] = MAX (c->band[m][d], band);
            c->seconds[m][d] += o.seconds;
          }
          c->ran[m][d] = ok;
          g_free (c->note[m][d]);
          c->note[m][d] = err;
          if (ctx->verbose)
            g_printerr ("%-13s %-6s %-6s %8" G_GSIZE_FORMAT " -> %8"
                G_GSIZE_FORMAT " frames  %7.2f s  worst %8.1f dB  mean %8.1f "
                "dB  latency %.1f%s%s\n", c->name, metric_names[m],
                mode_names[d], frames, o.frames, o.seconds, worst, mean,
                o.latency, err ? "  " : "", err ? err : "");
          g_free (o.data);
        }
        g_free (in);
      }
}

/* ------------------------------------------------------------------------ */
/* output                                                                   */

static void
print_table (const Ctx * ctx)
{
  int m, d;
  guint i;

  printf ("%-34s", "figure (dB; worst window)");
  for (i = 0; i < ctx->cons->len; i++)
    printf (" %13s", ((Con *) g_ptr_array_index (ctx->cons, i))->name);
  printf ("\n");
  for (m = 0; m < N_METRICS; m++) {
    printf ("%-26s latency", metric_titles[m]);
    for (i = 0; i < ctx->cons->len; i++) {
      Con *c = g_ptr_array_index (ctx->cons, i);
      /* the variable-ratio path's, else the fixed one's */
      double l = c->latency[m][MODE_STEADY];
      if (isnan (l))
        l = c->latency[m][MODE_FIXED];
      if (isnan (l))
        printf (" %13s", "-");
      else
        printf (" %10.1f fr", l);
    }
    printf ("\n");
    for (d = 0; d < N_MODES; d++) {
      gchar *label = g_strdup_printf ("  %s %s", metric_names[m],
          mode_names[d]);
      printf ("%-34s", label);
      g_free (label);
      for (i = 0; i < ctx->cons->len; i++) {
        Con *c = g_ptr_array_index (ctx->cons, i);
        if (c->ran[m][d])
          printf (" %13.1f", c->worst[m][d]);
        else if (c->note[m][d] && !strcmp (c->note[m][d], "-"))
          printf (" %13s", "-");
        else
          printf (" %13s", "n/a");
      }
      printf ("\n");
    }
  }
  printf ("\nmodes: fixed = adjust 1.0; steady = %.4f; ramp = triangle "
      "%.0f ppm/s, %.1f s period, adjust set every %.1f ms of input\n",
      STEADY_ADJUST, RAMP_SLOPE * 1e6, ctx->ramp_s, ctx->block_ms);
  /* why a cell says n/a: each contestant's first reason */
  for (i = 0; i < ctx->cons->len; i++) {
    Con *c = g_ptr_array_index (ctx->cons, i);
    gboolean said = FALSE;
    for (m = 0; m < N_METRICS && !said; m++)
      for (d = 0; d < N_MODES && !said; d++)
        if (!c->ran[m][d] && c->note[m][d] && strcmp (c->note[m][d], "-")) {
          printf ("%s: %s\n", c->name, c->note[m][d]);
          said = TRUE;
        }
  }
}

static void
json_num (FILE * f, double v)
{
  if (isnan (v) || isinf (v))
    fprintf (f, "null");
  else
    fprintf (f, "%.6g", v);
}

static gboolean
write_json (const Ctx * ctx, const char *path)
{
  FILE *f = fopen (path, "w");
  int m, d;
  guint i;

  if (!f)
    return FALSE;
  fprintf (f, "{\n  \"ramp_seconds\": %g,\n  \"block_ms\": %g,\n"
      "  \"steady_adjust\": %.6f,\n  \"ramp_ppm_per_s\": %g,\n"
      "  \"guard_bins\": %d,\n  \"contestants\": [\n", ctx->ramp_s,
      ctx->block_ms, STEADY_ADJUST, RAMP_SLOPE * 1e6, GUARD_BINS);
  for (i = 0; i < ctx->cons->len; i++) {
    Con *c = g_ptr_array_index (ctx->cons, i);
    fprintf (f, "    {\"name\": \"%s\", \"results\": [\n", c->name);
    for (m = 0; m < N_METRICS; m++)
      for (d = 0; d < N_MODES; d++) {
        fprintf (f, "      {\"metric\": \"%s\", \"mode\": \"%s\", "
            "\"in_rate\": %d, \"out_rate\": %d, \"ran\": %s, \"worst_db\": ",
            metric_names[m], mode_names[d], rates[m].in_rate,
            rates[m].out_rate, c->ran[m][d] ? "true" : "false");
        json_num (f, c->worst[m][d]);
        fprintf (f, ", \"mean_db\": ");
        json_num (f, c->mean[m][d]);
        fprintf (f, ", \"band_0_20k_db\": ");
        json_num (f, c->band[m][d]);
        fprintf (f, ", \"latency_in_frames\": ");
        json_num (f, c->latency[m][d]);
        fprintf (f, ", \"seconds\": ");
        json_num (f, c->seconds[m][d]);
        fprintf (f, ", \"frames_out\": %" G_GSIZE_FORMAT, c->frames_out[m][d]);
        if (c->note[m][d]) {
          gchar *e = g_strescape (c->note[m][d], NULL);
          fprintf (f, ", \"note\": \"%s\"", e);
          g_free (e);
        }
        fprintf (f, "}%s\n", m == N_METRICS - 1 && d == N_MODES - 1 ?
            "" : ",");
      }
    fprintf (f, "    ]}%s\n", i + 1 < ctx->cons->len ? "," : "");
  }
  fprintf (f, "  ]\n}\n");
  fclose (f);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* --check                                                                  */

static int n_pass, n_fail;

static void
verdict (gboolean ok, const char *fmt, ...)
{
  va_list ap;
  gchar *s;

  va_start (ap, fmt);
  s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  printf ("%s  %s\n", ok ? "PASS" : "FAIL", s);
  g_free (s);
  if (ok)
    n_pass++;
  else
    n_fail++;
}

static void
check_all (const Ctx * ctx)
{
  int m, d;
  guint i, j;

  printf ("\n");
  for (i = 0; i < ctx->cons->len; i++) {
    Con *c = g_ptr_array_index (ctx->cons, i);

    /* the method's own floor */
    if (c->kind == K_IDEAL && !c->step)
      for (m = 0; m < N_METRICS; m++)
        for (d = 0; d < N_MODES; d++)
          if (m != MET_ALIAS)
            verdict (c->ran[m][d] && c->worst[m][d] < -150.0,
                "%s %s %s: %.1f dB < -150 dB (the analysis' floor)",
                c->name, metric_names[m], mode_names[d], c->worst[m][d]);
    if (c->kind != K_CLR)
      continue;
    for (m = 0; m < N_METRICS; m++) {
      /* only where the clresample column ran */
      if (!c->ran[m][MODE_FIXED])
        continue;
      for (d = MODE_STEADY; d <= MODE_RAMP; d++) {
        double margin = d == MODE_STEADY ? 6.0 : 10.0;
        if (!c->ran[m][d] && !g_strcmp0 (c->note[m][d], NO_ADJUST)) {
          printf ("skip  %s %s %s: %s\n", c->name, metric_names[m],
              mode_names[d], NO_ADJUST);
          continue;
        }
        if (!c->ran[m][d]) {
          verdict (FALSE, "%s %s %s: did not run (%s)", c->name,
              metric_names[m], mode_names[d], c->note[m][d]);
          continue;
        }
        verdict (c->worst[m][d] <= c->worst[m][MODE_FIXED] + margin,
            "%s %s %s: %.1f dB within %.0f dB of fixed %.1f dB", c->name,
            metric_names[m], mode_names[d], c->worst[m][d], margin,
            c->worst[m][MODE_FIXED]);
        for (j = 0; j < ctx->cons->len; j++) {
          Con *x = g_ptr_array_index (ctx->cons, j);
          if (x->kind == K_CLR || x->kind == K_IDEAL || !x->ran[m][d])
            continue;
          if (x->latency[m][d] < c->latency[m][d]) {
            printf ("skip  %s %s %s: %s has less latency (%.1f < %.1f "
                "input frames)\n", c->name, metric_names[m],
                mode_names[d], x->name, x->latency[m][d], c->latency[m][d]);
            continue;
          }
          verdict (c->worst[m][d] < x->worst[m][d],
              "%s %s %s: %.1f dB better than %s %.1f dB (latency %.1f <= "
              "%.1f input frames)", c->name, metric_names[m], mode_names[d],
              c->worst[m][d], x->name, x->worst[m][d], c->latency[m][d],
              x->latency[m][d]);
        }
      }
    }
  }
  printf ("%d passed, %d failed\n", n_pass, n_fail);
}

int
main (int argc, char **argv)
{
  Ctx ctx = { 10.0, 10.0, ALIAS_SETS, NULL, NULL, FALSE, NULL };
  gchar *json = NULL, *only = NULL;
  gboolean check = FALSE;
  GError *err = NULL;
  GOptionContext *oc;
  gint64 t0 = g_get_monotonic_time ();
  GOptionEntry entries[] = {
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &json, "Write every figure here",
        "FILE"},
    {"check", 0, 0, G_OPTION_ARG_NONE, &check,
        "Assert issue 48's targets; exit 1 on a failure", NULL},
    {"contestants", 'c', 0, G_OPTION_ARG_STRING, &only,
        "Only these (comma-separated names from the table)", "LIST"},
    {"ramp-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &ctx.ramp_s,
        "The ramp's period (one whole triangle; default 10)", "S"},
    {"alias-sets", 0, 0, G_OPTION_ARG_INT, &ctx.alias_sets,
        "Of the alias sweep's 10 sets of tones, the first N only (a quick "
        "run, not the worst alias)", "N"},
    {"block-ms", 0, 0, G_OPTION_ARG_DOUBLE, &ctx.block_ms,
        "Input per pushed block, each with its own adjust (default 10)",
        "MS"},
    {"device", 0, 0, G_OPTION_ARG_STRING, &ctx.device,
        "clresample's device property", "SPEC"},
    {"dump", 0, 0, G_OPTION_ARG_FILENAME, &ctx.dump_dir,
        "Write every output to DIR/<contestant>-<metric>-<mode>.f64",
        "DIR"},
    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &ctx.verbose, "Every run", NULL},
    {NULL}
  };

  oc = g_option_context_new ("- clresample's variable ratio against "
      "libsoxr, speexdsp and zita-resampler (issue 48)");
  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_add_group (oc, gst_init_get_option_group ());
  if (!g_option_context_parse (oc, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (oc);
  gst_init (&argc, &argv);
  if (ctx.ramp_s < 2.0 || ctx.block_ms <= 0.0 || ctx.alias_sets < 1
      || ctx.alias_sets > ALIAS_SETS) {
    g_printerr ("--ramp-seconds must be >= 2, --block-ms > 0 and "
        "--alias-sets 1 to %d\n", ALIAS_SETS);
    return 2;
  }
  ctx.cons = g_ptr_array_new ();
  add_default_contestants (&ctx, only);
  run_all (&ctx);
  print_table (&ctx);
  printf ("(%.1f s)\n", (g_get_monotonic_time () - t0) / 1e6);
  if (json && !write_json (&ctx, json)) {
    g_printerr ("could not write %s\n", json);
    return 2;
  }
  if (check) {
    check_all (&ctx);
    return n_fail ? 1 : 0;
  }
  return 0;
}
