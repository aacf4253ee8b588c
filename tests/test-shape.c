/* clresample: the filter's shape, chosen by the user: `cutoff` (where the
 * passband ends) and `phase` (linear, minimum or intermediate). Real pipelines on the
 * real OpenCL device, each against the float64 reference of the filter
 * designed with those settings (clr-filter.h, clr-phase.h), and tones and
 * latencies measured through them. Kept out of test-element: the minimum-
 * phase designs take a second or two each on two cores, which the
 * sanitizer passes would pay twice. */
#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include "design/clr-filter.h"
#include "design/clr-rate.h"
#include "clr-signal.h"

#include "clr-harness.h"

static void
check_reference_cut (const char *launch, guint taps, double cutoff,
    int in_rate, int out_rate, int channels)
{
  clr_check_reference (launch, taps, cutoff, 0.0, in_rate, out_rate,
      channels);
}

/* A tone's amplitude through `launch`, 44.1 -> 48 kHz, over the middle
 * half second: in dB against the input's. */
static double
tone_gain_db (const char *launch, double freq)
{
  const size_t frames = 44100;
  float *in = g_new (float, frames);
  ClrSineFit fit;
  Collected c;

  clr_signal_sine (in, frames, 1, freq, 44100, 0.5, 0.0);
  clr_run_stream (launch, 44100, 48000, 1, in, frames, NULL, 0, &c);
  fail_unless_equals_uint64 (c.frames, 48000);
  clr_sine_fit (c.data, 12000, 24000, 1, 0, freq, 48000.0, &fit);
  g_free (in);
  clr_collected_free (&c);
  return 20.0 * log10 (MAX (fit.amplitude, 1e-30) / 0.5);
}

/* cutoff moves the passband's end: the output is the float64 reference
 * of the filter designed with it, and a tone between the quality's edge
 * and the new one passes, where the quality's own filter cuts it; a
 * lower cutoff puts a tone that passed before into the stopband. */
GST_START_TEST (test_cutoff)
{
  double q4, cut, low, low_ref;

  check_reference_cut ("clresample cutoff=0.97", 0, 0.97, 44100, 48000, 2);
  check_reference_cut ("clresample cutoff=0.8", 0, 0.8, 48000, 44100, 2);
  /* and on the FFT path */
  check_reference_cut ("clresample taps=8192 cutoff=0.99", 8192, 0.99, 44100,
      88200, 2);
  /* 21 kHz: 0.952 of the input's Nyquist, past quality 4's 0.90 */
  q4 = tone_gain_db ("clresample", 21000.0);
  cut = tone_gain_db ("clresample cutoff=0.97", 21000.0);
  /* 19 kHz: inside quality 4's passband; with cutoff 0.8 the stopband
   * starts at 0.8 + 0.1 of 22050 Hz = 19845 Hz: 19.9 kHz is in it */
  low_ref = tone_gain_db ("clresample", 19000.0);
  low = tone_gain_db ("clresample cutoff=0.8", 19900.0);
  g_printerr ("21 kHz: quality 4 %.3f dB, cutoff=0.97 %.6f dB; 19 kHz "
      "quality 4 %.6f dB; 19.9 kHz cutoff=0.8 %.1f dB\n", q4, cut, low_ref,
      low);
  fail_unless (q4 < -3.0, "21 kHz through quality 4: %.3f dB", q4);
  fail_unless (fabs (cut) < 1e-4, "21 kHz with cutoff=0.97: %.6f dB", cut);
  fail_unless (fabs (low_ref) < 1e-4, "19 kHz, quality 4: %.6f dB", low_ref);
  fail_unless (low < -100.0, "19.9 kHz with cutoff=0.8: %.1f dB", low);
}

GST_END_TEST;

/* phase: the output is the float64 reference of the kernel designed with
 * that phase (clr-phase.h), on the direct kernels, an interpolated bank
 * and the FFT path; exact lengths; a low tone comes out where it went in;
 * the latency is the kernel's reach ahead. */
GST_START_TEST (test_phase)
{
  GstHarness *h;
  ClrRatio r;
  ClrFilter f;
  double d;

  clr_check_reference ("clresample phase=minimum", 0, 0.0, 1.0, 44100,
      48000, 2);
  clr_check_reference ("clresample phase=minimum", 0, 0.0, 1.0,
      48000, 44100, 2);
  clr_check_reference ("clresample phase=minimum", 0, 0.0, 1.0, 44100,
      44101, 1);
  clr_check_reference ("clresample taps=8192 phase=minimum", 8192, 0.0,
      1.0, 44100, 88200, 2);
  clr_check_reference ("clresample phase=intermediate", 0, 0.0, 0.5, 44100,
      48000, 2);
  clr_check_reference ("clresample taps=8192 phase=intermediate", 8192, 0.0,
      0.5, 44100, 88200, 2);
  d = clr_time_offset ("clresample phase=minimum quality=10", 44100,
      48000);
  fail_unless (fabs (d) <= 0.05, "minimum phase, 997 Hz: %g samples", d);
  d = clr_time_offset ("clresample phase=minimum", 48000, 44100);
  fail_unless (fabs (d) <= 0.05, "minimum phase down, 997 Hz: %g samples",
      d);
  d = clr_time_offset ("clresample phase=intermediate quality=10", 44100,
      48000);
  fail_unless (fabs (d) <= 0.05, "intermediate phase, 997 Hz: %g samples",
      d);
  /* chunk invariance: the same samples however the input is cut */
  {
    static const size_t pieces[] = { 37, 1000, 4096, 1 };
    const size_t frames = 20000;
    float *in = g_new (float, frames * 2);
    Collected whole, cut;

    clr_signal_noise (in, frames * 2, 0.5, 12);
    clr_run_stream ("clresample phase=minimum", 44100, 48000, 2, in, frames,
        NULL, 0, &whole);
    clr_run_stream ("clresample phase=minimum", 44100, 48000, 2, in, frames,
        pieces, G_N_ELEMENTS (pieces), &cut);
    fail_unless_equals_uint64 (whole.frames, cut.frames);
    fail_unless (memcmp (whole.data, cut.data, whole.frames * 2 *
            sizeof (float)) == 0);
    clr_collected_free (&whole);
    clr_collected_free (&cut);
    g_free (in);
  }
  /* the latency: the kernel's reach ahead, a few samples */
  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, 10, 0);
  fail_unless (clr_filter_set_phase (&f, &r, 1.0));
  h = clr_make_harness ("clresample phase=minimum quality=10", 44100, 48000,
      2);
  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      gst_util_uint64_scale_int_round (f.lead, GST_SECOND, 44100));
  g_printerr ("minimum phase, quality 10, 44.1 -> 48 kHz: latency %u input "
      "samples (%.3f ms), linear %u\n", f.lead, f.lead * 1000.0 / 44100,
      f.taps / 2);
  fail_unless (f.lead * 1000.0 / 44100 <= 1.0);
  gst_harness_teardown (h);
  /* intermediate: a little over half the linear filter's */
  clr_filter_design (&f, &r, 10, 0);
  fail_unless (clr_filter_set_phase (&f, &r, 0.5));
  h = clr_make_harness ("clresample phase=intermediate quality=10", 44100,
      48000, 2);
  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      gst_util_uint64_scale_int_round (f.lead, GST_SECOND, 44100));
  fail_unless (f.lead <= 0.6 * f.taps / 2, "intermediate reaches %u ahead",
      f.lead);
  gst_harness_teardown (h);
  /* on the FFT path a low-latency filter gets a block of 1024 frames at
   * most, so the block does not undo the phase (32768 taps a phase would
   * get 2048 at linear phase) */
  clr_ratio_init (&r, 44100, 88200);
  clr_filter_design (&f, &r, CLR_QUALITY_DEFAULT, 32768);
  fail_unless (clr_filter_set_phase (&f, &r, 1.0));
  h = clr_make_harness ("clresample taps=32768 phase=minimum", 44100, 88200,
      2);
  gst_harness_set_upstream_latency (h, 0);
  fail_unless_equals_clocktime (gst_harness_query_latency (h),
      gst_util_uint64_scale_int_round (f.lead + 1024, GST_SECOND, 44100));
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
shape_suite (void)
{
  Suite *s = suite_create ("shape");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cutoff);
  tcase_add_test (tc, test_phase);
  return s;
}

GST_CHECK_MAIN (shape);
