/* clresample: clfirfilter element tests with GstHarness, on the real OpenCL
 * device (PoCL in CI). Every expectation is exact or measured: frame
 * counts, timestamps, samples against a float64 direct convolution,
 * audiofirfilter side by side, the crossfade of a filter change sample by
 * sample, the error messages. */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>
#include "clr-audio-check.h"

/* CLRESAMPLE_NO_FP64: the device looks as if it had no doubles: F32 with
 * float transforms and sums (docs/convolution.md: up to 1.7e-6 of the RMS
 * at 65536 taps, so 3e-6 as in test-conv), F64 refused */
static gboolean no_fp64;
#define F32_LIMIT (no_fp64 ? 3e-6 : 1e-6)

/* ---- signals and the reference ---------------------------------------- */

/* ---- buffers ------------------------------------------------------------ */

static GstElement *
make_fir (guint block_size, guint64 latency)
{
  GstElement *e = gst_element_factory_make ("clfirfilter", NULL);

  fail_unless (e != NULL);
  g_object_set (e, "block-size", block_size, "latency", latency, NULL);
  return e;
}

/* ---- accuracy against the float64 reference ----------------------------- */

typedef struct
{
  gsize taps;
  guint channels;
  guint n_filters;              /* 1: kernel property; more: a WAV file */
  guint block_size;
  guint64 latency;
  gsize frames;
  guint step;                   /* every step-th output frame checked */
} RefCase;

/* max |error| over the RMS of the reference at the frames checked */
static double
check_reference (const RefCase * rc, GstAudioFormat format)
{
  Fmt f = { format, FALSE, rc->channels };
  double **h = g_new (double *, rc->n_filters), *x, worst = 0.0, ss = 0.0;
  gsize *pieces = random_pieces (64, 3000, rc->taps), t, count = 0;
  GstElement *e = make_fir (rc->block_size, rc->latency);
  gchar *wav = NULL;
  Out o = { 0 };
  guint c, i;
  gint64 t0 = g_get_monotonic_time ();

  for (i = 0; i < rc->n_filters; i++)
    h[i] = make_filter (rc->taps, 17 + i + rc->taps);
  if (rc->n_filters == 1) {
    set_kernel (e, h[0], rc->taps);
  } else {
    wav = write_wav (h, rc->n_filters, rc->taps);
    g_object_set (e, "location", wav, NULL);
  }
  x = make_input (&f, rc->frames, 0.5, rc->taps * 3 + rc->channels);
  run_stream (e, &f, x, rc->frames, pieces, 64, &o);
  fail_unless_equals_uint64 (o.frames, rc->frames);
  check_stamps (&o, 0);
  for (t = 0; t < rc->frames; t++) {
    if (t % rc->step != 0 && t + 64 < rc->frames)
      continue;
    for (c = 0; c < rc->channels; c++) {
      double r = direct (h[rc->n_filters > 1 ? c : 0], rc->taps, x,
          rc->frames, rc->channels, c, t + rc->latency);
      worst = MAX (worst, fabs (o.data[t * rc->channels + c] - r));
      ss += r * r;
      count++;
    }
  }
  worst /= sqrt (ss / count);
  g_print ("# %s %8" G_GSIZE_FORMAT " taps %2u ch (%u filter%s) B %5u "
      "latency %7" G_GUINT64_FORMAT ": max err / RMS %.2e (%.1f dB) in "
      "%.1f s\n",
      gst_audio_format_to_string (format), rc->taps, rc->channels,
      rc->n_filters, rc->n_filters > 1 ? "s" : "", rc->block_size,
      rc->latency, worst, 20 * log10 (worst + 1e-300),
      (g_get_monotonic_time () - t0) / 1e6);
  if (wav) {
    g_unlink (wav);
    g_free (wav);
  }
  for (i = 0; i < rc->n_filters; i++)
    g_free (h[i]);
  g_free (h);
  g_free (x);
  g_free (pieces);
  out_clear (&o);
  return worst;
}

static const RefCase ref_cases[] = {
  /* taps, ch, filters, B, latency, frames, step */
  {1, 1, 1, 1024, 0, 12000, 1},
  {2, 2, 2, 1024, 0, 12000, 1},
  {127, 6, 1, 1024, 63, 12000, 1},
  {127, 64, 1, 256, 63, 4000, 3},
  /* every tap of the long filters is in some output frame checked */
  {8192, 2, 2, 1024, 4095, 20000, 7},
  {65536, 1, 1, 1024, 30000, 70000, 37},
  /* a block that is no power of two: the filter whole in one transform
   * (2048 points: GPUs' local memory holds it too) */
  {1001, 2, 2, 1040, 500, 20000, 1},
  /* one that cannot hold this filter in one transform: the nearest that
   * serves (1024), no refusal (issue 45's bad input) */
  {40000, 2, 1, 1040, 20000, 60000, 41},
  /* over a million taps in one block-size=0 run (B = 16384): a short
   * input, the latency puts the output over the filter's last 15000
   * taps, the partitions farthest back (test-conv covers the rest) */
  {1048576 + 1000, 1, 1, 0, 1048576 - 6000, 8000, 11},
};

GST_START_TEST (test_reference_f32)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ref_cases); i++) {
    double err = check_reference (&ref_cases[i], GST_AUDIO_FORMAT_F32);
    fail_unless (err <= F32_LIMIT, "case %u: F32 error %g over the RMS > "
        "%g", i, err, F32_LIMIT);
  }
}

GST_END_TEST;

GST_START_TEST (test_reference_f64)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (ref_cases); i++) {
    double err = check_reference (&ref_cases[i], GST_AUDIO_FORMAT_F64);
    fail_unless (err <= 1e-12, "case %u: F64 error %g over the RMS > 1e-12",
        i, err);
  }
}

GST_END_TEST;

/* ---- the stream ------------------------------------------------------- */

/* 1 … 3000-frame buffers give the same samples, bit for bit, as one buffer,
 * at block-size 256 and 0 */
GST_START_TEST (test_chunk_invariance)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
  gsize frames = 30000, one = frames, taps = 1500;
  gsize *pieces = random_pieces (200, 3000, 7), *ones;
  double *h = make_filter (taps, 5), *x = make_input (&f, frames, 0.9, 8);
  guint bs[] = { 256, 0 }, i;

  ones = g_new (gsize, 1);
  ones[0] = 1;
  for (i = 0; i < G_N_ELEMENTS (bs); i++) {
    Out a = { 0 }, b = { 0 }, c = { 0 };
    GstElement *e;

    e = make_fir (bs[i], 700);
    set_kernel (e, h, taps);
    run_stream (e, &f, x, frames, &one, 1, &a);
    e = make_fir (bs[i], 700);
    set_kernel (e, h, taps);
    run_stream (e, &f, x, frames, pieces, 200, &b);
    fail_unless_equals_uint64 (a.frames, frames);
    fail_unless_equals_uint64 (b.frames, frames);
    fail_unless (memcmp (a.data, b.data, frames * 2 * sizeof (double)) == 0);
    check_stamps (&b, 0);
    /* 1-frame buffers, a shorter stream (each buffer costs a launch) */
    e = make_fir (bs[i], 700);
    set_kernel (e, h, taps);
    run_stream (e, &f, x, 3000, ones, 1, &c);
    fail_unless_equals_uint64 (c.frames, 3000);
    {
      Out d = { 0 };
      e = make_fir (bs[i], 700);
      set_kernel (e, h, taps);
      run_stream (e, &f, x, 3000, &one, 1, &d);
      fail_unless (memcmp (c.data, d.data, 3000 * 2 * sizeof (double)) == 0);
      out_clear (&d);
    }
    out_clear (&a);
    out_clear (&b);
    out_clear (&c);
  }
  g_free (ones);
  g_free (pieces);
  g_free (h);
  g_free (x);
}

GST_END_TEST;

/* Every format and layout against the reference: float formats within
 * their precision, integers within 1 LSB of the rounded reference; and
 * saturation */
GST_START_TEST (test_formats)
{
  static const GstAudioFormat formats[] = { GST_AUDIO_FORMAT_F32,
    GST_AUDIO_FORMAT_F64, GST_AUDIO_FORMAT_S16, GST_AUDIO_FORMAT_S32,
    GST_AUDIO_FORMAT_S24_32
  };
  gsize frames = 6000, taps = 63, t, *pieces = random_pieces (50, 700, 3);
  double *h = make_filter (taps, 11);
  guint i, p, c;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (p = 0; p < 2 && !(no_fp64 && formats[i] ==
            GST_AUDIO_FORMAT_F64); p++) {
      Fmt f = { formats[i], p, 3 };
      double *x = make_input (&f, frames, 0.5, i * 2 + p), worst = 0.0, lsb;
      GstElement *e = make_fir (256, 31);
      Out o = { 0 };

      set_kernel (e, h, taps);
      run_stream (e, &f, x, frames, pieces, 50, &o);
      fail_unless_equals_uint64 (o.frames, frames);
      check_stamps (&o, 0);
      for (t = 0; t < frames; t++)
        for (c = 0; c < 3; c++)
          worst = MAX (worst, fabs (o.data[t * 3 + c] - direct (h, taps, x,
                      frames, 3, c, t + 31)));
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
          lsb = 1.0 / 8388608;
          break;
        default:
          /* in double where there is fp64 (PoCL); float otherwise */
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

  /* saturation: a gain of 2 on +-0.75 of full scale, S16 and S24_32 */
  for (i = 0; i < 2; i++) {
    Fmt f = { i ? GST_AUDIO_FORMAT_S24_32 : GST_AUDIO_FORMAT_S16, FALSE, 1 };
    double two = 2.0, x[4] = { 0.75, -0.75, 0.25, -0.25 };
    GstElement *e = make_fir (256, 0);
    gsize four = 4;
    Out o = { 0 };
    double top = i ? 8388607.0 / 8388608.0 : 32767.0 / 32768.0;

    set_kernel (e, &two, 1);
    run_stream (e, &f, x, 4, &four, 1, &o);
    fail_unless_equals_uint64 (o.frames, 4);
    fail_unless_equals_float (o.data[0], top);
    fail_unless_equals_float (o.data[1], -1.0);
    fail_unless_equals_float (o.data[2], 0.5);
    fail_unless_equals_float (o.data[3], -0.5);
    out_clear (&o);
  }
  g_free (pieces);
  g_free (h);
}

GST_END_TEST;

/* clfirfilter and audiofirfilter side by side, same kernel and latency:
 * the same frame count, first timestamp and end time, the same samples */
GST_START_TEST (test_audiofirfilter)
{
  /* 31 taps: audiofirfilter's time-domain path, 2 channels; 300: its FFT
   * path, 1 channel (with 2 or more, audiofirfilter 1.22's FFT path gets
   * the residue it pushes at EOS wrong: errors of the order of the signal
   * over its last ~120 frames, measured against numpy's convolution) */
  static const gsize taps_cases[] = { 31, 300 };
  static const guint ch_cases[] = { 2, 1 };
  gsize frames = 10000, *pieces = random_pieces (40, 3000, 21), t;
  guint i, fm;

  for (fm = 0; fm < 2; fm++)
    for (i = 0; i < G_N_ELEMENTS (taps_cases); i++) {
      Fmt f = { fm ? GST_AUDIO_FORMAT_F64 : GST_AUDIO_FORMAT_F32, FALSE,
        ch_cases[i]
      };
      gsize taps = taps_cases[i];
      guint64 latency = (taps - 1) / 2;
      double *h = make_filter (taps, taps), *x = make_input (&f, frames, 0.5,
          taps + 1), worst = 0.0, ss = 0.0;
      GstElement *ours = make_fir (256, latency);
      GstElement *theirs = gst_element_factory_make ("audiofirfilter", NULL);
      GstBuffer *a0, *a1, *b0, *b1;
      Out a = { 0 }, b = { 0 };

      fail_unless (theirs != NULL, "audiofirfilter (audiofx) not found");
      set_kernel (ours, h, taps);
      set_kernel (theirs, h, taps);
      g_object_set (theirs, "latency", latency, NULL);
      run_stream (ours, &f, x, frames, pieces, 40, &a);
      run_stream (theirs, &f, x, frames, pieces, 40, &b);
      GST_INFO ("%" G_GSIZE_FORMAT " taps: clfirfilter %" G_GSIZE_FORMAT
          " frames in %u buffers, audiofirfilter %" G_GSIZE_FORMAT " in %u",
          taps, a.frames, a.buffers->len, b.frames, b.buffers->len);
      fail_unless_equals_uint64 (a.frames, b.frames);
      fail_unless_equals_uint64 (a.frames, frames);
      a0 = g_ptr_array_index (a.buffers, 0);
      b0 = g_ptr_array_index (b.buffers, 0);
      a1 = g_ptr_array_index (a.buffers, a.buffers->len - 1);
      b1 = g_ptr_array_index (b.buffers, b.buffers->len - 1);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (a0), GST_BUFFER_PTS (b0));
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET (a0),
          GST_BUFFER_OFFSET (b0));
      /* the end of the stream, to the nanosecond (audiofirfilter adds
       * two rounded durations) */
      fail_unless (ABS (GST_CLOCK_DIFF (GST_BUFFER_PTS (a1) +
                  GST_BUFFER_DURATION (a1), GST_BUFFER_PTS (b1) +
                  GST_BUFFER_DURATION (b1))) <= 1);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (a1) +
          GST_BUFFER_DURATION (a1), gst_util_uint64_scale_int_round (frames,
              GST_SECOND, RATE));
      fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (a1),
          GST_BUFFER_OFFSET_END (b1));
      for (t = 0; t < frames * f.channels; t++) {
        worst = MAX (worst, fabs (a.data[t] - b.data[t]));
        ss += b.data[t] * b.data[t];
      }
      worst /= sqrt (ss / (frames * f.channels));
      g_print ("# vs audiofirfilter, %s %" G_GSIZE_FORMAT " taps latency %"
          G_GUINT64_FORMAT " %u ch: max difference / RMS %.2e\n",
          fm ? "F64" : "F32", taps, latency, f.channels, worst);
      fail_unless (worst <= (fm ? 1e-12 : 2e-6), "difference %g", worst);
      g_free (h);
      g_free (x);
      out_clear (&a);
      out_clear (&b);
    }
  g_free (pieces);
}

GST_END_TEST;

/* Filters changed while PLAYING: filter i + 1 is set after the input
 * frame asked[i] (480-frame buffers) and takes over at the input frame
 * applied[i]. Output frame t before that change's crossfade is the old
 * filter's, during the B frames from applied[i] - D on it is
 * (1 - w) old + w new with w = k / B, then the new filter's; no DISCONT,
 * no frame lost or repeated. The last change goes through `location`. */
static void
check_swaps (guint B, guint64 latency, const gsize * taps, guint n_k,
    const gsize * asked, const gsize * applied, gsize frames)
{
  Fmt f = { GST_AUDIO_FORMAT_F64, FALSE, 2 };
  const guint64 D = B + latency;
  gsize piece = 0, k, t, pos = 0, buf480 = 480;
  double **h = g_new (double *, n_k), *x = make_input (&f, frames, 0.5, 77),
      worst = 0.0, ss = 0.0;
  GstElement *e = make_fir (B, latency);
  gchar *wav = NULL;
  GstHarness *hn;
  Out o = { 0 };
  guint i, c, seg;

  for (i = 0; i < n_k; i++)
    h[i] = make_filter (taps[i], 100 + i);
  set_kernel (e, h[0], taps[0]);
  hn = make_harness (e, &f);
  for (i = 0; i + 1 < n_k; i++) {
    push_range (hn, &f, x, pos, asked[i] - pos, &buf480, 1, &piece);
    pos = asked[i];
    if (i + 2 < n_k) {
      set_kernel (e, h[i + 1], taps[i + 1]);
    } else {
      wav = write_wav (&h[i + 1], 1, taps[i + 1]);
      g_object_set (e, "location", wav, NULL);
    }
  }
  push_range (hn, &f, x, pos, frames - pos, &buf480, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);         /* DISCONT on the first buffer only */

  for (t = 0; t < frames; t++) {
    seg = 0;
    for (i = 0; i + 1 < n_k; i++)
      if (t >= applied[i] - D)
        seg = i + 1;
    for (c = 0; c < 2; c++) {
      double r = direct (h[seg], taps[seg], x, frames, 2, c, t + latency);
      k = seg > 0 ? t - (applied[seg - 1] - D) : B;
      if (k < B) {
        double w = (double) k / B;
        double old = direct (h[seg - 1], taps[seg - 1], x, frames, 2, c,
            t + latency);
        r = (1.0 - w) * old + w * r;
      }
      worst = MAX (worst, fabs (o.data[t * 2 + c] - r));
      ss += r * r;
    }
  }
  worst /= sqrt (ss / (frames * 2));
  g_print ("# filter changes (B %u, %u filters, F64): max err / RMS across "
      "the crossfades %.2e\n", B, n_k, worst);
  fail_unless (worst <= 1e-12, "error %g", worst);
  gst_harness_teardown (hn);
  g_unlink (wav);
  g_free (wav);
  for (i = 0; i < n_k; i++)
    g_free (h[i]);
  g_free (h);
  g_free (x);
  out_clear (&o);
}

/* Every 100 ms (4800 frames), B = 256: each change at once; to a longer
 * filter (2000 taps) too; the last from a WAV file */
GST_START_TEST (test_kernel_swap)
{
  static const gsize taps[] = { 300, 200, 2000, 64 };
  static const gsize at[] = { 4800, 9600, 14400 };

  check_swaps (256, 40, taps, 4, at, at, 4 * 4800 + 3000);
}

GST_END_TEST;

/* B = 1024 (21 ms at 48 kHz): a change asked for 480 frames into the
 * crossfade of the one before waits for its end: the crossfade ends in the
 * third buffer after 4800, the next change takes over at 4800 + 3 x 480 */
GST_START_TEST (test_kernel_swap_during_fade)
{
  static const gsize taps[] = { 500, 700, 100 };
  static const gsize asked[] = { 4800, 5280 }, applied[] = { 4800, 6240 };

  check_swaps (1024, 0, taps, 3, asked, applied, 12000);
}

GST_END_TEST;

/* GAP buffers: silence in the convolution, GAP flags on the output once
 * the filter holds nothing else (no device work), exact samples after */
GST_START_TEST (test_gap)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  gsize taps = 100, frames = 5000 + 9600 + 5000, t, piece = 0, p480 = 480;
  double *h = make_filter (taps, 3), *x = make_input (&f, frames, 0.5, 4),
      worst = 0.0;
  GstElement *e = make_fir (256, 10);
  GstHarness *hn;
  Out o = { 0 };

  for (t = 5000; t < 14600; t++)
    x[t] = 0.0;
  set_kernel (e, h, taps);
  hn = make_harness (e, &f);
  push_range (hn, &f, x, 0, 5000, &p480, 1, &piece);
  push_range (hn, &f, NULL, 5000, 9600, &p480, 1, &piece);
  push_range (hn, &f, x, 14600, 5000, &p480, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);
  for (t = 0; t < frames; t++)
    worst = MAX (worst, fabs (o.data[t] - direct (h, taps, x, frames, 1, 0,
                t + 10)));
  fail_unless (worst <= 1e-6, "error %g", worst);
  /* 9600 frames of GAP, of which the first B + taps - 1 = 355 still run
   * through the filter and go out as audio of their own, split off the
   * first GAP buffer: its other 125 frames and the 19 GAP buffers after it
   * go out as GAP, 20 buffers */
  fail_unless_equals_int (check_gap_buffers (&o, 1), 20);
  gst_harness_teardown (hn);
  g_free (h);
  g_free (x);
  out_clear (&o);
}

GST_END_TEST;

/* A longer filter set after a GAP long enough that the convolution was
 * left idle: the new filter is primed with the input before the GAP and
 * the GAP's silence, so its long tail still carries the audio from before
 * the GAP (3000 taps reach back past 2400 frames of GAP) */
GST_START_TEST (test_swap_after_gap)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 3000 + 2400 + 3000, tail = 3000;
  gsize t, piece = 0, p480 = 480;
  double *h0 = make_filter (100, 3), *h1 = make_filter (tail, 5),
      *x = make_input (&f, frames, 0.5, 4), worst = 0.0, ss = 0.0;
  GstElement *e = make_fir (256, 0);
  GstHarness *hn;
  Out o = { 0 };

  for (t = 3000; t < 5400; t++)
    x[t] = 0.0;
  set_kernel (e, h0, 100);
  hn = make_harness (e, &f);
  push_range (hn, &f, x, 0, 3000, &p480, 1, &piece);
  push_range (hn, &f, NULL, 3000, 2400, &p480, 1, &piece);
  set_kernel (e, h1, tail);
  push_range (hn, &f, x, 5400, 3000, &p480, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  fail_unless_equals_uint64 (o.frames, frames);
  /* from the change on (output frame 5400 - B), the new filter's: no
   * crossfade, the old filter's output there was silence */
  for (t = 5400 - 256; t < frames; t++) {
    double r = direct (h1, tail, x, frames, 1, 0, t);
    worst = MAX (worst, fabs (o.data[t] - r));
    ss += r * r;
  }
  worst /= sqrt (ss / (frames - 5400 + 256));
  fail_unless (worst <= 1e-6, "error %g of the RMS", worst);
  gst_harness_teardown (hn);
  g_free (h0);
  g_free (h1);
  g_free (x);
  out_clear (&o);
}

GST_END_TEST;

/* A timestamp jump drains the run (N in, N out) and starts a new one at the
 * new time, DISCONT; a flush forgets the stream; the latency query says
 * B + latency frames */
GST_START_TEST (test_discont_flush_latency)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
  gsize taps = 500, n = 5000, t, i;
  double *h = make_filter (taps, 9), *x = make_input (&f, 2 * n, 0.5, 10),
      worst = 0.0;
  GstElement *e = make_fir (512, 100);
  GstHarness *hn;
  Out o = { 0 }, o2 = { 0 };
  GstBuffer *b;
  guint64 run1 = 0;
  GstClockTime jump = 10 * GST_SECOND;

  set_kernel (e, h, taps);
  hn = make_harness (e, &f);
  fail_unless_equals_uint64 (gst_harness_query_latency (hn),
      gst_util_uint64_scale_int_round (612, GST_SECOND, RATE));
  for (i = 0; i < n; i += 1000)
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (&f, x, i, 1000,
                0)), GST_FLOW_OK);
  /* the second half 10 s later */
  for (i = n; i < 2 * n; i += 1000) {
    b = make_buffer (&f, x, i, 1000, 0);
    GST_BUFFER_PTS (b) = jump + gst_util_uint64_scale_int (i - n, GST_SECOND,
        RATE);
    fail_unless_equals_int (gst_harness_push (hn, b), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  fail_unless_equals_uint64 (o.frames, 2 * n);
  for (i = 0; i < o.buffers->len; i++) {
    b = g_ptr_array_index (o.buffers, i);
    if (GST_BUFFER_PTS (b) >= jump)
      break;
    run1 += GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);
  }
  fail_unless_equals_uint64 (run1, n);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (b), jump);
  fail_unless (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DISCONT));
  for (t = 0; t < n; t++)
    for (i = 0; i < 2; i++) {
      worst = MAX (worst, fabs (o.data[t * 2 + i] - direct (h, taps, x, n, 2,
                  i, t + 100)));
      worst = MAX (worst, fabs (o.data[(n + t) * 2 + i] - direct (h, taps,
                  x + 2 * n, n, 2, i, t + 100)));
    }
  fail_unless (worst <= 1e-6, "error %g", worst);

  /* a flush: what follows is a new stream, as from a fresh element (the
   * first flush only clears the EOS; the second drops a stream in flight) */
  for (i = 0; i < 2; i++) {
    GstSegment seg;

    fail_unless (gst_harness_push_event (hn, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (hn,
            gst_event_new_flush_stop (TRUE)));
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (hn, gst_event_new_segment (&seg)));
    if (i == 0)
      for (t = 0; t < n; t += 1000)
        fail_unless_equals_int (gst_harness_push (hn, make_buffer (&f,
                    x + 2 * n, t, 1000, 0)), GST_FLOW_OK);
  }
  while ((b = gst_harness_try_pull (hn)))
    gst_buffer_unref (b);
  for (i = 0; i < n; i += 1000)
    fail_unless_equals_int (gst_harness_push (hn, make_buffer (&f, x, i, 1000,
                0)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o2);
  fail_unless_equals_uint64 (o2.frames, n);
  check_stamps (&o2, 0);
  fail_unless (memcmp (o2.data, o.data, n * 2 * sizeof (double)) == 0);
  gst_harness_teardown (hn);

  /* block-size 0: one block, the power of two at least as long as the
   * filter (500 taps: 512) */
  e = make_fir (0, 7);
  set_kernel (e, h, taps);
  hn = make_harness (e, &f);
  fail_unless_equals_uint64 (gst_harness_query_latency (hn),
      gst_util_uint64_scale_int_round (512 + 7, GST_SECOND, RATE));
  gst_harness_teardown (hn);
  g_free (h);
  g_free (x);
  out_clear (&o);
  out_clear (&o2);
}

GST_END_TEST;

typedef struct
{
  GstElement *e;
  double *h[2];
  gsize taps[2];
  gint stop;
  gint changes;
} Hammer;

static gpointer
hammer_thread (gpointer data)
{
  Hammer *hm = data;

  while (!g_atomic_int_get (&hm->stop)) {
    guint i = (guint) g_atomic_int_add (&hm->changes, 1) % 2;
    set_kernel (hm->e, hm->h[i], hm->taps[i]);
    g_usleep (500);
  }
  return NULL;
}

/* Pushes the next `n` frames only once the hammer has changed the kernel
 * again since the last piece: on a loaded machine the pushes alone can
 * outrun a thread that sleeps between changes, and the test would then
 * check no race. A change that cannot land within 10 s while buffers
 * flow is a hang, and fails. */
static void
push_between_changes (Hammer * hm, GstHarness * hn, const Fmt * f,
    const double *x, gsize off, gsize n, gsize * p480, gsize * piece,
    gint * seen)
{
  const gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  while (g_atomic_int_get (&hm->changes) <= *seen) {
    fail_unless (g_get_monotonic_time () < deadline,
        "the kernel could not be changed for 10 s while buffers flowed");
    g_usleep (100);
  }
  *seen = g_atomic_int_get (&hm->changes);
  push_range (hn, f, x, off, n, p480, 1, piece);
}

/* The kernel set from another thread every half millisecond while
 * buffers flow (thread safety of the change; an equaliser redesigned far
 * faster than 10 times a second), at least once between each of 25 pieces
 * of 8 buffers: every frame comes out, stamped from the counters, DISCONT
 * on the first only, and finite and no larger than the larger of the two
 * filters' outputs allows */
GST_START_TEST (test_kernel_hammer)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
  gsize frames = 96000, p480 = 480, piece = 0, t;
  double *x = make_input (&f, frames, 0.5, 31), bound = 0.0;
  Hammer hm = { make_fir (256, 0), {NULL, NULL}, {100, 1000}, 0, 0 };
  GstHarness *hn;
  GThread *th;
  Out o = { 0 };
  guint i;
  gint seen = 0;

  for (i = 0; i < 2; i++) {
    double l1 = 0.0;
    hm.h[i] = make_filter (hm.taps[i], 40 + i);
    for (t = 0; t < hm.taps[i]; t++)
      l1 += fabs (hm.h[i][t]);
    bound = MAX (bound, 0.5 * l1);
  }
  set_kernel (hm.e, hm.h[0], hm.taps[0]);
  hn = make_harness (hm.e, &f);
  th = g_thread_new ("hammer", hammer_thread, &hm);
  for (t = 0; t < frames; t += frames / 25)
    push_between_changes (&hm, hn, &f, x, t, frames / 25, &p480, &piece,
        &seen);
  g_atomic_int_set (&hm.stop, 1);
  g_thread_join (th);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  GST_INFO ("%d kernel changes", hm.changes);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);
  for (t = 0; t < frames * 2; t++)
    fail_unless (isfinite (o.data[t]) && fabs (o.data[t]) <= bound * 1.001);
  gst_harness_teardown (hn);
  for (i = 0; i < 2; i++)
    g_free (hm.h[i]);
  g_free (x);
  out_clear (&o);
}

GST_END_TEST;

/* A RECONFIGURE from downstream renegotiates the same caps: the stream
 * goes on untouched */
GST_START_TEST (test_reconfigure)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 2 };
  gsize taps = 300, frames = 5000, p500 = 500, piece = 0;
  double *h = make_filter (taps, 12), *x = make_input (&f, frames, 0.5, 13);
  GstElement *e = make_fir (256, 20);
  GstHarness *hn;
  Out a = { 0 }, b = { 0 };

  set_kernel (e, h, taps);
  hn = make_harness (e, &f);
  push_range (hn, &f, x, 0, 2500, &p500, 1, &piece);
  fail_unless (gst_harness_push_upstream_event (hn,
          gst_event_new_reconfigure ()));
  push_range (hn, &f, x, 2500, 2500, &p500, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &a);
  gst_harness_teardown (hn);
  e = make_fir (256, 20);
  set_kernel (e, h, taps);
  run_stream (e, &f, x, frames, &p500, 1, &b);
  fail_unless_equals_uint64 (a.frames, frames);
  check_stamps (&a, 0);
  fail_unless (memcmp (a.data, b.data, frames * 2 * sizeof (double)) == 0);
  g_free (h);
  g_free (x);
  out_clear (&a);
  out_clear (&b);
}

GST_END_TEST;

/* ---- errors ----------------------------------------------------------- */

typedef struct
{
  const double *h;
  gsize taps;
} KernelArg;

static void
setup_kernel (GstElement * e, gpointer data)
{
  KernelArg *k = data;
  set_kernel (e, k->h, k->taps);
}

static void
setup_location (GstElement * e, gpointer data)
{
  g_object_set (e, "location", (const gchar *) data, NULL);
}

static void
setup_block (GstElement * e, gpointer data)
{
  g_object_set (e, "block-size", GPOINTER_TO_UINT (data), NULL);
}

GST_START_TEST (test_errors)
{
  double nan_k[3] = { 0.5, NAN, 0.5 }, inf_k[2] = { 1.0, INFINITY };
  double *h3[3], one = 1.0;
  KernelArg empty = { &one, 0 }, nan_a = { nan_k, 3 }, inf_a = { inf_k, 2 },
      fine = { &one, 1 };
  gchar *txt = NULL, *wav3;
  gint fd = g_file_open_tmp ("clfir-XXXXXX.wav", &txt, NULL);
  guint i;

  fail_unless (write (fd, "this is not audio\n", 18) == 18);
  close (fd);
  for (i = 0; i < 3; i++)
    h3[i] = make_filter (10, i);
  wav3 = write_wav (h3, 3, 10);

  expect_error (run_for_error ("clfirfilter", setup_kernel, &empty, 2), "is empty");
  expect_error (run_for_error ("clfirfilter", setup_kernel, &nan_a, 2), "tap 1");
  expect_error (run_for_error ("clfirfilter", setup_kernel, &nan_a, 2), "NaN");
  expect_error (run_for_error ("clfirfilter", setup_kernel, &inf_a, 2), "infinite");
  expect_error (run_for_error ("clfirfilter", setup_location, txt, 2), "is not audio");
  expect_error (run_for_error ("clfirfilter", setup_location, (gpointer)
          "/nonexistent/ir.wav", 2), "does not exist");
  expect_error (run_for_error ("clfirfilter", setup_location, wav3, 2), "3 channels");
  /* a block the filter cannot be cut in: the nearest that serves (992),
   * with a word in the debug log, not a refusal */
  fail_unless (run_for_error ("clfirfilter", setup_block,
          GUINT_TO_POINTER (1000), 2) == NULL);
  /* the same file on a 3-channel stream is fine */
  fail_unless (run_for_error ("clfirfilter", setup_location, wav3, 3) == NULL);
  fail_unless (run_for_error ("clfirfilter", setup_kernel, &fine, 2) == NULL);
  g_unlink (txt);
  g_unlink (wav3);
  g_free (txt);
  g_free (wav3);
  for (i = 0; i < 3; i++)
    g_free (h3[i]);
}

GST_END_TEST;

/* A bad kernel set while PLAYING: a warning that names the cause, and the
 * old filter goes on, exactly */
GST_START_TEST (test_runtime_bad_kernel)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  gsize taps = 50, frames = 6000, piece = 0, p500 = 500, t;
  double *h = make_filter (taps, 1), *x = make_input (&f, frames, 0.5, 2),
      nan_k[2] = { NAN, 1.0 }, worst = 0.0;
  GstElement *e = make_fir (256, 0);
  GstBus *bus = gst_bus_new ();
  GstHarness *hn;
  GstMessage *msg;
  Out o = { 0 };
  GError *err = NULL;

  set_kernel (e, h, taps);
  gst_element_set_bus (e, bus);
  hn = make_harness (e, &f);
  push_range (hn, &f, x, 0, 3000, &p500, 1, &piece);
  set_kernel (e, nan_k, 2);
  push_range (hn, &f, x, 3000, 3000, &p500, 1, &piece);
  fail_unless (gst_harness_push_event (hn, gst_event_new_eos ()));
  collect (hn, &f, &o);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  gst_message_parse_warning (msg, &err, NULL);
  GST_INFO ("warning: %s", err->message);
  fail_unless (strstr (err->message, "NaN") != NULL);
  g_error_free (err);
  gst_message_unref (msg);
  fail_unless_equals_uint64 (o.frames, frames);
  for (t = 0; t < frames; t++)
    worst = MAX (worst, fabs (o.data[t] - direct (h, taps, x, frames, 1, 0,
                t)));
  fail_unless (worst <= 1e-6, "error %g", worst);
  gst_harness_teardown (hn);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  g_free (h);
  g_free (x);
  out_clear (&o);
}

GST_END_TEST;

/* Without doubles, F64 is refused in negotiation, not filtered in float */
GST_START_TEST (test_no_f64_caps)
{
  GstElement *e = gst_object_ref_sink (make_fir (256, 0));
  GstHarness *hn = gst_harness_new_with_element (e, "sink", "src");
  GstCaps *caps, *f64 = gst_caps_from_string ("audio/x-raw,format=F64LE");
  GstPad *sink = gst_element_get_static_pad (e, "sink");

  caps = gst_pad_query_caps (sink, NULL);
  GST_INFO ("sink caps: %" GST_PTR_FORMAT, caps);
  fail_unless (gst_caps_can_intersect (caps, f64) == !no_fp64);
  gst_caps_unref (caps);
  gst_caps_unref (f64);
  gst_object_unref (sink);
  gst_harness_teardown (hn);
  gst_object_unref (e);
}

GST_END_TEST;

/* Run alone with a device-memory budget (CLRESAMPLE_DEVICE_MEMORY): a
 * filter whose spectra do not fit is refused, naming the memory. */
GST_START_TEST (test_too_large)
{
  gsize taps = 1 << 20;
  double *h = make_filter (taps, 1);
  KernelArg big = { h, taps };

  expect_error (run_for_error ("clfirfilter", setup_kernel, &big, 2), "memory");
  g_free (h);
}

GST_END_TEST;

static Suite *
firfilter_suite (void)
{
  Suite *s = suite_create ("clfirfilter");
  TCase *tc = tcase_create ("general");

  no_fp64 = g_getenv ("CLRESAMPLE_NO_FP64") != NULL;
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_f64_caps);
  tcase_add_test (tc, test_reference_f32);
  tcase_add_test (tc, test_formats);
  if (no_fp64)
    return s;
  tcase_add_test (tc, test_reference_f64);
  tcase_add_test (tc, test_chunk_invariance);
  tcase_add_test (tc, test_audiofirfilter);
  tcase_add_test (tc, test_kernel_swap);
  tcase_add_test (tc, test_kernel_swap_during_fade);
  tcase_add_test (tc, test_kernel_hammer);
  tcase_add_test (tc, test_gap);
  tcase_add_test (tc, test_swap_after_gap);
  tcase_add_test (tc, test_discont_flush_latency);
  tcase_add_test (tc, test_reconfigure);
  tcase_add_test (tc, test_errors);
  tcase_add_test (tc, test_runtime_bad_kernel);
  if (g_getenv ("CLRESAMPLE_DEVICE_MEMORY"))
    tcase_add_test (tc, test_too_large);
  return s;
}

GST_CHECK_MAIN (firfilter);
