/* clresample: clcrossover element tests with GstHarness, on the real OpenCL
 * device (PoCL in CI): the bands summed back to the input, the separation
 * of the bands and their -6 dB crossings measured by sine fits through
 * the element, every band against a float64 direct convolution of the
 * designed filters, chunk invariance, every format and layout, designs
 * changed while playing (sample by sample, and from another thread), GAP,
 * discontinuities, latency, caps and the errors. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include "clr-audio-check.h"
#include "design/clr-crossover-design.h"
#include "conv/clr-conv.h"

/* CLRESAMPLE_NO_FP64: F32 in float throughout (docs/convolution.md), F64
 * refused */
static gboolean no_fp64;
#define F32_LIMIT (no_fp64 ? 3e-6 : 1e-6)

static const double default_freqs[] = { 250, 2000, 8000 };

static GstElement *
make_xo (const gchar * freqs, guint taps, guint block)
{
  GstElement *e = gst_element_factory_make ("clcrossover", NULL);

  fail_unless (e != NULL);
  g_object_set (e, "frequencies", freqs, "taps", taps, "block-size", block,
      NULL);
  return e;
}

/* the band filters as the element designs them (delays in frames) */
static double **
design (const double *freqs, guint n, guint taps, const double *gains,
    const gsize * delays, gsize * len)
{
  ClrXoSpec spec = { RATE, freqs, n, taps, 120.0, gains, delays };
  GError *err = NULL;
  double **h = clr_xo_design (&spec, len, &err);

  fail_unless (h != NULL, "design: %s", err ? err->message : "?");
  return h;
}

static double
db (double v)
{
  return 20.0 * log10 (MAX (v, 1e-300));
}

/* x (in's channels) through e into o (bands x in's channels) */
static void
run_xo (GstElement * e, const Fmt * in, guint bands, const double *x,
    gsize frames, const gsize * pieces, gsize n_pieces, Out * o)
{
  Fmt out = { in->format, in->planar, in->channels * bands };

  run_stream_io (e, in, &out, x, frames, pieces, n_pieces, o);
  fail_unless_equals_uint64 (o->frames, frames);
  check_stamps (o, 0);
}

/* ---- the bands sum to the input ----------------------------------------- */

/* max |sum of the bands - input| over the input's RMS, in dB */
static double
reconstruction_db (const Out * o, const double *x, gsize frames, guint ch,
    guint bands)
{
  double worst = 0.0, ss = 0.0;
  gsize t;
  guint c, k;

  for (t = 0; t < frames; t++)
    for (c = 0; c < ch; c++) {
      double s = 0.0;
      for (k = 0; k < bands; k++)
        s += o->data[t * ch * bands + k * ch + c];
      worst = MAX (worst, fabs (s - x[t * ch + c]));
      ss += x[t * ch + c] * x[t * ch + c];
    }
  return db (worst / sqrt (ss / (frames * ch)));
}

/* White noise, stereo, 4 bands of 8191 taps: the sum of the bands is the
 * input (whose delay of (taps - 1) / 2 the element compensates) within
 * -120 dB of its RMS in F32 and -200 dB in F64, in 256-frame blocks and in
 * 20480-frame ones (no power of two: the filters in one 32768-point
 * transform) */
GST_START_TEST (test_reconstruction)
{
  gsize frames = 48000, *pieces = random_pieces (64, 3000, 1);
  static const guint blocks[] = { 256, 20480 };
  ClrDevice *dev = clr_device_acquire ("auto", NULL);
  const guint max_block = dev ? clr_conv_max_block (dev) * 2 : 0;
  guint i;

  fail_unless (dev != NULL);
  clr_device_unref (dev);

  for (i = 0; i < 4; i++) {
    Fmt f = { i % 2 ? GST_AUDIO_FORMAT_F64 : GST_AUDIO_FORMAT_F32, FALSE,
      2
    };
    /* the top band is the input less the others (clr-crossover-mix.h):
     * the sum holds without fp64 too, whatever the transforms' precision */
    double *x, err, limit = i % 2 ? -200.0 : -120.0;
    Out o = { 0 };

    if (i % 2 && no_fp64)
      continue;
    /* 20480 frames and 8191 taps need 32768-point transforms, which GPUs'
     * local memory does not hold (clr_conv_max_block: 2048 on an H100) */
    if (blocks[i / 2] > max_block) {
      g_print ("# block %u skipped: the device's largest block is %u\n",
          blocks[i / 2], max_block);
      continue;
    }
    x = make_input (&f, frames, 0.5, 3 + i);
    run_xo (make_xo ("250,2000,8000", 8191, blocks[i / 2]), &f, 4, x, frames,
        pieces, 64, &o);
    err = reconstruction_db (&o, x, frames, 2, 4);
    g_print ("# reconstruction, %s, 4 bands x 8191 taps, block %u, stereo "
        "noise: max |sum - input| %.1f dB re RMS\n", i % 2 ? "F64" : "F32",
        blocks[i / 2], err);
    fail_unless (err <= limit, "%.1f dB > %.1f dB", err, limit);
    g_free (x);
    out_clear (&o);
  }
  g_free (pieces);
}

GST_END_TEST;

/* ---- tones --------------------------------------------------------------- */

/* The amplitude of frequency f in y (stride apart) over n frames from
 * `from`, by least squares on sin and cos */
static double
tone_amplitude (const double *y, gsize stride, gsize from, gsize n, double f)
{
  double ss = 0, cc = 0, sc = 0, ys = 0, yc = 0, a, b, det;
  gsize t;

  for (t = from; t < from + n; t++) {
    double s = sin (2 * G_PI * f * t / RATE), c = cos (2 * G_PI * f * t /
        RATE), v = y[t * stride];
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += v * s;
    yc += v * c;
  }
  det = ss * cc - sc * sc;
  a = (ys * cc - yc * sc) / det;
  b = (yc * ss - ys * sc) / det;
  return sqrt (a * a + b * b);
}

/* A mono tone of amplitude 0.5 at f through the default crossover (4
 * bands, 8191 taps, 120 dB): each band's level in dB re the tone,
 * measured away from the stream's ends */
static void
tone_levels (GstAudioFormat format, double f, double *level)
{
  const gsize taps = 8191, frames = 2 * taps + 24000, one = frames;
  Fmt in = { format, FALSE, 1 };
  double *x = g_new (double, frames);
  Out o = { 0 };
  gsize t;
  guint k;

  for (t = 0; t < frames; t++)
    x[t] = 0.5 * sin (2 * G_PI * f * t / RATE);
  if (format == GST_AUDIO_FORMAT_F32)
    for (t = 0; t < frames; t++)
      x[t] = (float) x[t];
  run_xo (make_xo ("250,2000,8000", taps, 256), &in, 4, x, frames, &one, 1,
      &o);
  for (k = 0; k < 4; k++)
    level[k] = db (tone_amplitude (o.data + k, 4, taps, frames - 2 * taps,
            f) / 0.5);
  g_free (x);
  out_clear (&o);
}

/* A tone in the middle of each band (geometrically; 125 Hz and 16 kHz at
 * the ends): in its band within 0.01 dB, in the bands two or more away at
 * most -114 dB (the 120 dB stopband, less the 6 dB of a difference of two
 * lowpasses' ripples) */
GST_START_TEST (test_separation)
{
  static const double mids[] = { 125, 707.1, 4000, 16000 };
  double level[4];
  guint k, j;

  for (k = 0; k < 4; k++) {
    tone_levels (GST_AUDIO_FORMAT_F32, mids[k], level);
    g_print ("# tone %7.1f Hz (band %u): bands %.2f, %.2f, %.2f, %.2f dB\n",
        mids[k], k, level[0], level[1], level[2], level[3]);
    for (j = 0; j < 4; j++) {
      if (j == k)
        fail_unless (fabs (level[j]) <= 0.01, "band %u: %.3f dB", j,
            level[j]);
      else if (j + 2 <= k || k + 2 <= j)
        fail_unless (level[j] <= -114.0, "tone in band %u, band %u: %.1f "
            "dB", k, j, level[j]);
    }
  }
}

GST_END_TEST;

/* Each pair of bands crosses at -6.02 dB at its frequency (each within
 * 0.05 dB there), and 1 % below it the lower band is the louder, 1 % above
 * the upper one: the crossing lies within 1 % */
GST_START_TEST (test_crossings)
{
  double level[4], lo[4], hi[4];
  guint k;

  for (k = 0; k < 3; k++) {
    const double f = default_freqs[k];

    tone_levels (GST_AUDIO_FORMAT_F32, f, level);
    tone_levels (GST_AUDIO_FORMAT_F32, f * 0.99, lo);
    tone_levels (GST_AUDIO_FORMAT_F32, f * 1.01, hi);
    g_print ("# crossover %.0f Hz: bands %u/%u at %.4f / %.4f dB; at -1 %%: "
        "%.3f / %.3f dB, at +1 %%: %.3f / %.3f dB\n", f, k, k + 1, level[k],
        level[k + 1], lo[k], lo[k + 1], hi[k], hi[k + 1]);
    fail_unless (fabs (level[k] + 6.0206) <= 0.05, "%.4f dB", level[k]);
    fail_unless (fabs (level[k + 1] + 6.0206) <= 0.05, "%.4f dB",
        level[k + 1]);
    fail_unless (lo[k] > lo[k + 1]);
    fail_unless (hi[k] < hi[k + 1]);
  }
}

GST_END_TEST;

/* ---- against the float64 reference -------------------------------------- */

/* max |error| over the output's RMS of every band and channel against a
 * direct convolution of the designed filters (at t + (taps - 1) / 2) */
static double
reference_error (const Out * o, double **h, gsize len, guint bands,
    const double *x, gsize frames, guint ch, guint taps, guint step)
{
  double worst = 0.0, ss = 0.0;
  gsize t, count = 0;
  guint k, c;

  for (t = 0; t < frames; t += (t < 2 * taps || t + 2 * taps > frames) ?
      1 : step)
    for (k = 0; k < bands; k++)
      for (c = 0; c < ch; c++) {
        double r = direct (h[k], len, x, frames, ch, c, t + (taps - 1) / 2);
        worst = MAX (worst, fabs (o->data[(t * bands + k) * ch + c] - r));
        ss += r * r;
        count++;
      }
  return worst / sqrt (ss / count);
}

/* 3 bands of 1023 taps with gains (-3, 0, 2.5 dB) and delays (0, 5,
 * 2.5 ms: 0, 240, 120 frames, more than a block: the frames the latency
 * drops are skipped by the engine only as far as no delayed band reads
 * them), stereo, F32 and F64, random buffers; F32 again in blocks of 1040
 * frames (no power of two) */
GST_START_TEST (test_reference)
{
  static const double freqs[] = { 300, 3000 }, gains[] = { -3, 0, 2.5 };
  static const gsize delays[] = { 0, 240, 120 };
  const guint taps = 1023;
  gsize frames = 20000, len, *pieces = random_pieces (40, 3000, 2);
  double **h = design (freqs, 2, taps, gains, delays, &len);
  guint i;

  fail_unless_equals_uint64 (len, taps + 240);
  for (i = 0; i < 3; i++) {
    Fmt f = { i == 1 ? GST_AUDIO_FORMAT_F64 : GST_AUDIO_FORMAT_F32, FALSE,
      2
    };
    double *x, err;
    GstElement *e;
    Out o = { 0 };

    if (i == 1 && no_fp64)
      continue;
    x = make_input (&f, frames, 0.5, 5);
    e = make_xo ("300,3000", taps, i == 2 ? 1040 : 128);

    g_object_set (e, "gains", "-3,0,2.5", "delays", "0, 5, 2.5", NULL);
    run_xo (e, &f, 3, x, frames, pieces, 40, &o);
    err = reference_error (&o, h, len, 3, x, frames, 2, taps, 7);
    g_print ("# %s 3 bands x 1023 taps, gains and delays, block %u: max "
        "err / RMS %.2e (%.1f dB)\n", i == 1 ? "F64" : "F32",
        i == 2 ? 1040 : 128, err, db (err));
    fail_unless (err <= (i == 1 ? 1e-12 : F32_LIMIT), "error %g", err);
    g_free (x);
    out_clear (&o);
  }
  clr_xo_free (h, 3);
  g_free (pieces);
}

GST_END_TEST;

/* slopes: Linkwitz-Riley points in a real pipeline, each band against
 * the float64 reference of the LR design (clr-crossover-design.h), the
 * bands summing back to the input; a bad list refused with its reason. */
GST_START_TEST (test_slopes)
{
  static const double f3[] = { 250, 2000, 8000 };
  static const guint orders[] = { 4, 8, 8 };
  const guint taps = 2047;
  ClrXoSpec spec = { RATE, f3, 3, taps, 120.0, NULL, NULL, orders };
  gsize frames = 12000, len, *pieces = random_pieces (40, 3000, 5);
  Fmt f = { GST_AUDIO_FORMAT_F64, FALSE, 2 };
  double *x = make_input (&f, frames, 0.5, 31), err;
  GError *e_err = NULL;
  double **h = clr_xo_design (&spec, &len, &e_err);
  GstElement *e = make_xo ("250,2000,8000", taps, 128);
  Out o = { 0 };

  fail_unless (h != NULL);
  g_object_set (e, "slopes", "LR4,48,LR8", NULL);
  /* run_xo () takes e; read after it */
  gst_object_ref_sink (e);
  gst_object_ref (e);
  run_xo (e, &f, 4, x, frames, pieces, 40, &o);
  err = reference_error (&o, h, len, 4, x, frames, 2, taps, 5);
  g_print ("# F64 4 bands x %u taps, LR4/LR8/LR8 slopes, block 128: max "
      "err / RMS %.2e (%.1f dB)\n", taps, err, db (err));
  fail_unless (err <= 1e-12, "error %g", err);
  /* the taps each point needs, reported */
  {
    gchar *need = NULL, *want;

    g_object_get (e, "slope-taps", &need, NULL);
    want = g_strdup_printf ("%" G_GSIZE_FORMAT ",%" G_GSIZE_FORMAT ",%"
        G_GSIZE_FORMAT, clr_xo_lr_taps (RATE, 250, 4, 120),
        clr_xo_lr_taps (RATE, 2000, 8, 120), clr_xo_lr_taps (RATE, 8000, 8,
            120));
    g_print ("# slope-taps \"%s\"\n", need);
    fail_unless_equals_string (need, want);
    g_free (need);
    g_free (want);
  }
  gst_object_unref (e);
  out_clear (&o);
  clr_xo_free (h, 4);
  g_free (x);
  g_free (pieces);
}

GST_END_TEST;

/* 2, 3, 4 and 5 bands with gains and no delays, stereo F32: each band
 * against the float64 reference (the mix then takes its fast path, with
 * the band count known to the compiler for each of these) */
GST_START_TEST (test_reference_bands)
{
  static const struct {
    const char *freqs, *gains;
    double f[4], g[5];
    guint bands;
  } cases[] = {
    {"1000", "-2,1", {1000}, {-2, 1}, 2},
    {"300,3000", "-3,0,2.5", {300, 3000}, {-3, 0, 2.5}, 3},
    {"250,2000,8000", "0,-1,-2,-3", {250, 2000, 8000}, {0, -1, -2, -3}, 4},
    {"100,500,2000,8000", "1,0,-1,-6,2", {100, 500, 2000, 8000},
        {1, 0, -1, -6, 2}, 5},
  };
  const guint taps = 1023;
  gsize frames = 12000, len, *pieces = random_pieces (40, 3000, 4);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
    double **h = design (cases[i].f, cases[i].bands - 1, taps, cases[i].g,
        NULL, &len);
    double *x = make_input (&f, frames, 0.5, 11 + i), err;
    GstElement *e = make_xo (cases[i].freqs, taps, 128);
    Out o = { 0 };

    g_object_set (e, "gains", cases[i].gains, NULL);
    run_xo (e, &f, cases[i].bands, x, frames, pieces, 40, &o);
    err = reference_error (&o, h, len, cases[i].bands, x, frames, 2, taps,
        5);
    g_print ("# F32 %u bands x 1023 taps, gains, no delays, block 128: max "
        "err / RMS %.2e (%.1f dB)\n", cases[i].bands, err, db (err));
    fail_unless (err <= F32_LIMIT, "%u bands: error %g", cases[i].bands,
        err);
    g_free (x);
    out_clear (&o);
    clr_xo_free (h, cases[i].bands);
  }
  g_free (pieces);
}

GST_END_TEST;

/* 1 … 3000-frame buffers give the same samples, bit for bit, as one
 * buffer, at block-size 256, 0 and 1040 (no power of two); so do 1-frame
 * buffers */
GST_START_TEST (test_chunk_invariance)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
  gsize frames = 20000, one = frames, single = 1, *pieces;
  double *x = make_input (&f, frames, 0.9, 8);
  guint bs[] = { 256, 0, 1040 }, i;

  pieces = random_pieces (100, 3000, 9);
  for (i = 0; i < G_N_ELEMENTS (bs); i++) {
    Out a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };

    run_xo (make_xo ("500,5000", 1023, bs[i]), &f, 3, x, frames, &one, 1,
        &a);
    run_xo (make_xo ("500,5000", 1023, bs[i]), &f, 3, x, frames, pieces, 100,
        &b);
    fail_unless (memcmp (a.data, b.data, frames * 6 * sizeof (double)) == 0);
    run_xo (make_xo ("500,5000", 1023, bs[i]), &f, 3, x, 2000, &single, 1,
        &c);
    run_xo (make_xo ("500,5000", 1023, bs[i]), &f, 3, x, 2000, &one, 1, &d);
    fail_unless (memcmp (c.data, d.data, 2000 * 6 * sizeof (double)) == 0);
    out_clear (&a);
    out_clear (&b);
    out_clear (&c);
    out_clear (&d);
  }
  g_free (pieces);
  g_free (x);
}

GST_END_TEST;

/* Every format and layout against the reference: float formats within
 * their precision, integers within 1 LSB of the rounded reference */
GST_START_TEST (test_formats)
{
  static const GstAudioFormat formats[] = { GST_AUDIO_FORMAT_F32,
    GST_AUDIO_FORMAT_F64, GST_AUDIO_FORMAT_S16, GST_AUDIO_FORMAT_S32,
    GST_AUDIO_FORMAT_S24_32
  };
  static const double freqs[] = { 1000, 6000 };
  const guint taps = 255;
  gsize frames = 6000, len, t, *pieces = random_pieces (50, 700, 3);
  double **h = design (freqs, 2, taps, NULL, NULL, &len);
  guint i, p, c, k;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (p = 0; p < 2 && !(no_fp64 && formats[i] ==
            GST_AUDIO_FORMAT_F64); p++) {
      Fmt f = { formats[i], p, 2 };
      double *x = make_input (&f, frames, 0.3, i * 2 + p), worst = 0.0, lsb;
      Out o = { 0 };

      run_xo (make_xo ("1000,6000", taps, 64), &f, 3, x, frames, pieces, 50,
          &o);
      for (t = 0; t < frames; t++)
        for (k = 0; k < 3; k++)
          for (c = 0; c < 2; c++)
            worst = MAX (worst, fabs (o.data[(t * 3 + k) * 2 + c] -
                    direct (h[k], len, x, frames, 2, c, t + (taps - 1) / 2)));
      switch (formats[i]) {
        case GST_AUDIO_FORMAT_F32:
          lsb = F32_LIMIT;
          break;
        case GST_AUDIO_FORMAT_F64:
          lsb = 1e-12;
          break;
        case GST_AUDIO_FORMAT_S16:
          lsb = 1.0 / 32768;
          break;
        case GST_AUDIO_FORMAT_S24_32:
          /* float transforms without fp64: up to 1.4 LSB measured */
          lsb = (no_fp64 ? 2.0 : 1.0) / 8388608;
          break;
        default:
          lsb = no_fp64 ? F32_LIMIT : 1.0 / 2147483648.0;
          break;
      }
      GST_INFO ("%s %s: max err %g (limit %g)",
          gst_audio_format_to_string (formats[i]), p ? "planar" :
          "interleaved", worst, lsb);
      fail_unless (worst <= lsb, "%s %s: error %g > %g",
          gst_audio_format_to_string (formats[i]), p ? "planar" :
          "interleaved", worst, lsb);
      g_free (x);
      out_clear (&o);
    }
  clr_xo_free (h, 3);
  g_free (pieces);
}

GST_END_TEST;

/* ---- designs changed while playing --------------------------------------- */

/* F64 stereo, 511 taps, B 256 (D = 256 + 255): frequencies, gains and
 * delays (the top band's too: 12, 0 and 24 frames) changed after input
 * frame 4800 (480-frame buffers) take over there:
 * output frame t is the old design's before 4800 - D, over the next B
 * frames (1 - w) old + w new with w = k / B, then the new design's; the
 * same again at 9600 with a bad list in between (a warning, no change) */
GST_START_TEST (test_redesign)
{
  static const double fa[] = { 500, 4000 }, fb[] = { 800, 5000 };
  static const double gb[] = { -6, 0, 3 };
  static const gsize db[] = { 12, 0, 24 };
  Fmt f = { GST_AUDIO_FORMAT_F64, FALSE, 2 }, fo = { f.format, FALSE, 6 };
  const guint taps = 511, B = 256;
  const gsize frames = 14400, D = B + (taps - 1) / 2, at[] = { 4800, 9600 };
  gsize len[3], t, piece = 0, p480 = 480;
  double *x = make_input (&f, frames, 0.5, 12), worst = 0.0, ss = 0.0;
  double **h[3];
  GstElement *e = make_xo ("500,4000", taps, B);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstHarness *hn;
  Out o = { 0 };
  guint c, k, seg;

  if (no_fp64)
    return;
  h[0] = design (fa, 2, taps, NULL, NULL, &len[0]);
  h[1] = design (fb, 2, taps, gb, db, &len[1]);
  h[2] = design (fa, 2, taps, NULL, NULL, &len[2]);
  gst_element_set_bus (e, bus);
  hn = make_harness_io (e, &f, &fo);
  push_range (hn, &f, x, 0, at[0], &p480, 1, &piece);
  g_object_set (e, "frequencies", "800,5000", "gains", "-6,0,3", "delays",
      "0.25,0,0.5", NULL);
  push_range (hn, &f, x, at[0], 2400, &p480, 1, &piece);
  /* refused while playing: a warning, the design goes on */
  g_object_set (e, "frequencies", "5000,800", NULL);
  push_range (hn, &f, x, at[0] + 2400, 2400, &p480, 1, &piece);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  GST_INFO ("warning: %s", err->message);
  fail_unless (strstr (err->message, "ascending") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  g_object_set (e, "frequencies", "500,4000", "gains", "", "delays", "",
      NULL);
  push_range (hn, &f, x, at[1], frames - at[1], &p480, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &fo, &o);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);
  for (t = 0; t < frames; t++) {
    seg = t >= at[1] - D ? 2 : t >= at[0] - D ? 1 : 0;
    for (k = 0; k < 3; k++)
      for (c = 0; c < 2; c++) {
        double r = direct (h[seg][k], len[seg], x, frames, 2, c, t +
            (taps - 1) / 2);
        gsize i = seg ? t - (at[seg - 1] - D) : B;
        if (i < B) {
          double w = (double) i / B, old = direct (h[seg - 1][k],
              len[seg - 1], x, frames, 2, c, t + (taps - 1) / 2);
          r = (1 - w) * old + w * r;
        }
        worst = MAX (worst, fabs (o.data[(t * 3 + k) * 2 + c] - r));
        ss += r * r;
      }
  }
  worst /= sqrt (ss / (frames * 6));
  g_print ("# redesigns (B 256, F64): max err / RMS across the crossfades "
      "%.2e\n", worst);
  fail_unless (worst <= 1e-12, "error %g", worst);
  gst_harness_teardown (hn);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  for (k = 0; k < 3; k++)
    clr_xo_free (h[k], 3);
  g_free (x);
  out_clear (&o);
}

GST_END_TEST;

typedef struct
{
  GstElement *e;
  gint stop;
  gint changes;
} Hammer;

static gpointer
hammer_thread (gpointer data)
{
  static const gchar *sets[] = { "250,2000,8000", "300,2500,9000" };
  Hammer *hm = data;
  GRand *rand = g_rand_new_with_seed (7);

  while (!g_atomic_int_get (&hm->stop)) {
    g_object_set (hm->e, "frequencies", sets[g_atomic_int_get (&hm->changes)
            % 2], NULL);
    g_atomic_int_inc (&hm->changes);
    /* 2 to 8 ms apart, not a steady 5: a design that takes about as long
     * as the period (5.5 ms on the host's convolution) would otherwise
     * lock on to it, every push seeing designs of one parity */
    g_usleep (g_rand_int_range (rand, 2000, 8000));
  }
  g_rand_free (rand);
  return NULL;
}

/* The frequencies set from another thread every 2-8 ms (200 times a second)
 * while 2 s of stereo noise flow, 4 bands x 8191 taps: every frame comes
 * out, stamped from the counters, and the bands still sum to the input
 * within -120 dB through every crossfade (both designs do): no glitch. The
 * designs did change: band 0 is not that of the first design alone. */
GST_START_TEST (test_redesign_hammer)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 }, fo = { f.format, FALSE, 8 };
  gsize frames = 96000, p480 = 480, piece = 0, t, differ = 0;
  double *x = make_input (&f, frames, 0.5, 31), err;
  Hammer hm = { make_xo ("250,2000,8000", 8191, 256), 0, 0 };
  GstHarness *hn;
  GThread *th;
  Out o = { 0 }, fixed = { 0 };

  hn = make_harness_io (hm.e, &f, &fo);
  th = g_thread_new ("hammer", hammer_thread, &hm);
  /* A fast device streams 2 s in a few ms, before the hammer has made a
   * change: each 3200 frames wait for the next one, so at least 30 fall
   * inside the stream whatever the device's speed. */
  for (t = 0; t < frames; t += 3200) {
    gint seen = g_atomic_int_get (&hm.changes);

    push_range (hn, &f, x, t, MIN (3200, frames - t), &p480, 1, &piece);
    while (g_atomic_int_get (&hm.changes) == seen)
      g_usleep (500);
  }
  g_atomic_int_set (&hm.stop, 1);
  g_thread_join (th);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &fo, &o);
  gst_harness_teardown (hn);
  GST_INFO ("%d changes", hm.changes);
  fail_unless (hm.changes >= 30, "%d changes", hm.changes);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);
  err = reconstruction_db (&o, x, frames, 2, 4);
  g_print ("# %d frequency changes from another thread: max |sum - input| "
      "%.1f dB re RMS\n", hm.changes, err);
  fail_unless (err <= -120.0, "%.1f dB", err);
  run_xo (make_xo ("250,2000,8000", 8191, 256), &f, 4, x, frames, &p480, 1,
      &fixed);
  for (t = 0; t < frames; t++)
    differ += fabs (o.data[t * 8] - fixed.data[t * 8]) > 1e-3;
  /* the second design plays about half the time; a loaded machine (the
   * test command runs two tests at once) applies fewer of the changes:
   * 23213 of 96000 frames differed once, 24 % */
  fail_unless (differ > frames / 10, "only %" G_GSIZE_FORMAT " frames differ",
      differ);
  g_free (x);
  out_clear (&o);
  out_clear (&fixed);
}

GST_END_TEST;

/* ---- the stream ------------------------------------------------------- */

/* The output caps: channels x bands, unpositioned; 6 channels for a stereo
 * input and 4 bands cannot be negotiated; the latency query says
 * B + (taps - 1) / 2 frames; a timestamp jump drains the run (N in, N out)
 * and starts a new one at the new time, DISCONT */
GST_START_TEST (test_caps_latency_discont)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 }, fo = { f.format, FALSE, 8 };
  Fmt f6 = { f.format, FALSE, 6 };
  GstElement *e = make_xo ("250,2000,8000", 1023, 512);
  GstHarness *hn = make_harness_io (e, &f, &fo);
  double *x = make_input (&f, 10000, 0.5, 40);
  GstClockTime jump = 10 * GST_SECOND;
  GstCaps *caps;
  GstStructure *st;
  GstBuffer *b;
  Out o = { 0 };
  guint64 mask = 1, run1 = 0;
  gint ch = 0;
  gsize i;

  for (i = 0; i < 5000; i += 1000)
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (&f, x, i, 1000,
                0)), GST_FLOW_OK);
  caps = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SRC_PAD (e));
  st = gst_caps_get_structure (caps, 0);
  fail_unless (gst_structure_get_int (st, "channels", &ch));
  fail_unless_equals_int (ch, 8);
  fail_unless (gst_structure_get (st, "channel-mask", GST_TYPE_BITMASK,
          &mask, NULL));
  fail_unless_equals_uint64 (mask, 0);
  gst_caps_unref (caps);
  fail_unless_equals_uint64 (gst_harness_query_latency (hn),
      gst_util_uint64_scale_int_round (512 + 511, GST_SECOND, RATE));
  for (i = 5000; i < 10000; i += 1000) {
    b = make_buffer (&f, x, i, 1000, 0);
    GST_BUFFER_PTS (b) = jump + gst_util_uint64_scale_int (i - 5000,
        GST_SECOND, RATE);
    fail_unless_equals_int (gst_harness_push (hn, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &fo, &o);
  fail_unless_equals_uint64 (o.frames, 10000);
  for (i = 0; i < o.buffers->len; i++) {
    b = g_ptr_array_index (o.buffers, i);
    if (GST_BUFFER_PTS (b) >= jump)
      break;
    run1 += GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);
  }
  fail_unless_equals_uint64 (run1, 5000);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), jump);
  fail_unless (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT));
  gst_harness_teardown (hn);
  out_clear (&o);

  /* a block of 1040 frames (no power of two): the latency is that block
   * and the compensated delay */
  hn = make_harness_io (make_xo ("250,2000,8000", 1023, 1040), &f, &fo);
  fail_unless_equals_int (gst_harness_push (hn, make_buffer (&f, x, 0, 1000,
              0)), GST_FLOW_OK);
  fail_unless_equals_uint64 (gst_harness_query_latency (hn),
      gst_util_uint64_scale_int_round (1040 + 511, GST_SECOND, RATE));
  gst_harness_teardown (hn);

  /* downstream wants 6 channels: no caps fit */
  hn = make_harness_io (make_xo ("250,2000,8000", 255, 256), &f, &f6);
  fail_unless (gst_harness_push (hn, make_buffer (&f, x, 0, 1000, 0)) ==
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (hn);
  g_free (x);
}

GST_END_TEST;

/* GAP buffers: silence through the filters, GAP flags on the output once
 * they hold nothing else (B + taps - 1 = 1278 frames, 1302 with delays of
 * up to 24 frames: 37 of the 40 GAP buffers), exact samples after; with
 * and without band delays (the top band's past outputs and input, kept on
 * the host, go through the silence too) */
GST_START_TEST (test_gap)
{
  static const double freqs[] = { 250, 2000, 8000 };
  static const gsize delays[] = { 0, 24, 0, 12 };
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 }, fo = { f.format, FALSE, 4 };
  const guint taps = 1023;
  gsize frames = 4800 + 19200 + 4800, t, len;
  guint run;

  for (run = 0; run < 2; run++) {
    double *x = make_input (&f, frames, 0.5, 4), worst = 0.0;
    double **h = design (freqs, 3, taps, NULL, run ? delays : NULL, &len);
    GstElement *e = make_xo ("250,2000,8000", taps, 256);
    GstHarness *hn;
    gsize piece = 0, p480 = 480;
    Out o = { 0 };
    guint k;

    if (run)
      g_object_set (e, "delays", "0,0.5,0,0.25", NULL);
    hn = make_harness_io (e, &f, &fo);
    for (t = 4800; t < 24000; t++)
      x[t] = 0.0;
    push_range (hn, &f, x, 0, 4800, &p480, 1, &piece);
    push_range (hn, &f, NULL, 4800, 19200, &p480, 1, &piece);
    push_range (hn, &f, x, 24000, 4800, &p480, 1, &piece);
    fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
    collect (hn, &fo, &o);
    fail_unless_equals_uint64 (o.frames, frames);
    check_stamps (&o, 0);
    for (t = 0; t < frames; t++)
      for (k = 0; k < 4; k++)
        worst = MAX (worst, fabs (o.data[t * 4 + k] - direct (h[k], len, x,
                    frames, 1, 0, t + (taps - 1) / 2)));
    fail_unless (worst <= F32_LIMIT, "error %g", worst);
    /* the first GAP buffer's tail split off as audio, its rest GAP */
    fail_unless_equals_int (check_gap_buffers (&o, 4), 38);
    gst_harness_teardown (hn);
    clr_xo_free (h, 4);
    g_free (x);
    out_clear (&o);
  }
}

GST_END_TEST;

/* ---- errors ----------------------------------------------------------- */

typedef struct
{
  const gchar *name, *value;
} PropArg;

static void
setup_prop (GstElement * e, gpointer data)
{
  const PropArg *p = data;

  gst_util_set_object_arg (G_OBJECT (e), p->name, p->value);
}

GST_START_TEST (test_errors)
{
  static const PropArg cases[][2] = {
    {{"frequencies", "2000,250"}, {"ascending", NULL}},
    {{"frequencies", "250,30000"}, {"out of range", NULL}},
    {{"frequencies", "250,abc"}, {"'abc' is not a number", NULL}},
    {{"frequencies", ""}, {"no crossover", NULL}},
    {{"taps", "8190"}, {"odd number of taps", NULL}},
    {{"gains", "0,-3"}, {"gives 2 values for 4 bands", NULL}},
    {{"gains", "0,0,0,80"}, {"out of range", NULL}},
    {{"delays", "0,0,0,2000"}, {"out of range", NULL}},
    {{"slopes", "LR4,LR8"}, {"gives 2 slopes for 3 crossover points", NULL}},
    {{"slopes", "LR4,LR5,24"}, {"order 5", NULL}},
    {{"slopes", "LR4,25,24"}, {"'25' is neither", NULL}},
  };
  gchar *many = g_strdup ("100"), *tmp;
  PropArg lots = { "frequencies", NULL }, fine = { "gains", "0,-3,0,1" };
  /* a block no transform of the bands' filters holds whole: the nearest
   * that serves, not a refusal */
  PropArg odd_block = { "block-size", "1000" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    expect_error (run_for_error ("clcrossover", setup_prop,
            (gpointer) & cases[i][0], 2), cases[i][1].name);
  for (i = 2; i <= 40; i++) {
    tmp = g_strdup_printf ("%s,%u", many, i * 100);
    g_free (many);
    many = tmp;
  }
  lots.value = many;
  expect_error (run_for_error ("clcrossover", setup_prop, &lots, 2),
      "at most 32 bands");
  fail_unless (run_for_error ("clcrossover", setup_prop, &fine, 2) == NULL);
  fail_unless (run_for_error ("clcrossover", setup_prop, &odd_block, 2) ==
      NULL);
  g_free (many);
}

GST_END_TEST;

/* Without doubles, F64 is refused in negotiation, not filtered in float */
GST_START_TEST (test_no_f64_caps)
{
  GstElement *e = gst_object_ref_sink (make_xo ("1000", 255, 256));
  GstHarness *hn = gst_harness_new_with_element (e, "sink", "src");
  GstCaps *caps, *f64 = gst_caps_from_string ("audio/x-raw,format=F64LE");
  GstPad *sink = gst_element_get_static_pad (e, "sink");

  caps = gst_pad_query_caps (sink, NULL);
  fail_unless (gst_caps_can_intersect (caps, f64) == !no_fp64);
  gst_caps_unref (caps);
  gst_caps_unref (f64);
  gst_object_unref (sink);
  gst_harness_teardown (hn);
  gst_object_unref (e);
}

GST_END_TEST;

/* Run alone with a device-memory budget (CLRESAMPLE_DEVICE_MEMORY): bands
 * whose spectra do not fit are refused, naming the memory */
GST_START_TEST (test_too_large)
{
  PropArg big = { "taps", "262143" };

  expect_error (run_for_error ("clcrossover", setup_prop, &big, 2),
      "memory");
}

GST_END_TEST;

static Suite *
crossover_suite (void)
{
  Suite *s = suite_create ("clcrossover");
  TCase *tc = tcase_create ("general");

  no_fp64 = g_getenv ("CLRESAMPLE_NO_FP64") != NULL;
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  if (g_getenv ("CLRESAMPLE_DEVICE_MEMORY")) {
    tcase_add_test (tc, test_too_large);
    return s;
  }
  tcase_add_test (tc, test_no_f64_caps);
  tcase_add_test (tc, test_reconstruction);
  tcase_add_test (tc, test_formats);
  if (no_fp64)
    return s;
  tcase_add_test (tc, test_separation);
  tcase_add_test (tc, test_crossings);
  tcase_add_test (tc, test_reference);
  tcase_add_test (tc, test_reference_bands);
  tcase_add_test (tc, test_slopes);
  tcase_add_test (tc, test_chunk_invariance);
  tcase_add_test (tc, test_redesign);
  tcase_add_test (tc, test_redesign_hammer);
  tcase_add_test (tc, test_caps_latency_discont);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_errors);
  return s;
}

GST_CHECK_MAIN (crossover);
