/* clresample: the filter's shape in double precision, GStreamer-free and
 * device-free (clr-filter.h, clr-phase.h): the passband's end moved by a
 * cutoff, and minimum phase against the linear design it comes from; the
 * host's real transforms (clr-fft-host.h) that design works with. */
#include <math.h>
#include <glib.h>
#include "design/clr-fft-host.h"
#include "design/clr-filter.h"
#include "design/clr-phase.h"
#include "design/clr-rate.h"

/* A cutoff moves the quality's transition band to start there: the
 * passband flat to the cutoff, the quality's attenuation from the new
 * stop edge on, the same taps; with more taps the band narrows as
 * without a cutoff. */
static void
test_filter_cutoff (void)
{
  static const double cutoffs[] = { 0.8, 0.95, 0.97, 1.0 };
  ClrRatio r;
  ClrFilter f, q;
  guint i;

  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&q, &r, 4, 0);
  g_assert_cmpfloat (q.cutoff, ==, 0.0);
  g_assert_cmpfloat (q.stop_edge, ==, 1.0);
  for (i = 0; i < G_N_ELEMENTS (cutoffs); i++) {
    const double nyq = 0.5, c = cutoffs[i];
    double pass, stop, ripple = pow (10.0, -q.stop_db / 20.0);

    clr_filter_design_cut (&f, &r, 4, 0, c);
    g_assert_cmpuint (f.taps, ==, q.taps);
    g_assert_cmpfloat (fabs (f.pass_edge - c), <, 1e-12);
    g_assert_cmpfloat (fabs ((f.stop_edge - f.pass_edge) - (1.0 -
                q.pass_edge)), <, 1e-12);
    pass = clr_filter_kernel_gain (&f, &r, 0.999 * c * nyq);
    stop = clr_filter_kernel_gain (&f, &r, f.stop_edge * nyq * 1.001);
    g_test_message ("cutoff %.2f: %.2e off unity at 0.999 of it, %.1f dB at "
        "the stop edge (%.3f)", c, fabs (pass - 1.0), 20 * log10 (stop),
        f.stop_edge);
    /* Kaiser's design: the ripple of the passband is that of the
     * stopband; its length estimate leaves the first lobe within ~10 dB
     * of the target (clr-filter.c) */
    g_assert_cmpfloat (fabs (pass - 1.0), <, 2.0 * ripple);
    g_assert_cmpfloat (20 * log10 (stop), <, -q.stop_db + 12.0);
  }
  /* below the minimum: the minimum */
  clr_filter_design_cut (&f, &r, 4, 0, 0.01);
  g_assert_cmpfloat (f.pass_edge, ==, CLR_CUTOFF_MIN);
  /* more taps narrow the band that starts at the cutoff */
  clr_filter_design_cut (&f, &r, 4, 4 * q.taps, 0.97);
  g_assert_cmpfloat (fabs (f.pass_edge - 0.97), <, 1e-12);
  g_assert_cmpfloat (f.stop_edge - f.pass_edge, <, (1.0 - q.pass_edge) / 3.0);
  g_assert_cmpfloat (20 * log10 (
      clr_filter_kernel_gain (&f, &r, f.stop_edge * 0.5
              * 1.001)), <, -q.stop_db);
}

/* The largest distance from unity of f's kernel in its passband, and its
 * largest gain from the Nyquist frequency to four times it, for r up (the
 * lower Nyquist at 0.5 cycles an input sample). */
static double
passband_error (const ClrFilter * f, const ClrRatio * r)
{
  double freq, worst = 0.0;

  for (freq = 0.0; freq < 0.5 * f->pass_edge; freq += 0.013)
    worst = MAX (worst, fabs (clr_filter_kernel_gain (f, r, freq) - 1.0));
  return worst;
}

static double
stopband_peak (const ClrFilter * f, const ClrRatio * r)
{
  double freq, peak = 0.0;

  for (freq = 0.5 * 1.001; freq < 2.0; freq += 0.0371)
    peak = MAX (peak, clr_filter_kernel_gain (f, r, freq));
  return peak;
}

/* Minimum phase keeps the linear filter's magnitude: its passband within
 * 5e-6 of unity (the linear one's ripple is the stopband's) and, within
 * 1 dB, the same stopband; it reaches only a few samples ahead (its
 * latency: at most a millisecond at quality 10) and holds more of its
 * energy early than the linear filter. */
static void
test_filter_phase (void)
{
  static const int qualities[] = { 0, 4, 10 };
  ClrRatio r;
  guint qi;

  clr_ratio_init (&r, 44100, 48000);
  for (qi = 0; qi < G_N_ELEMENTS (qualities); qi++) {
    ClrFilter lin, min;
    ClrPhaseProto *pm;
    double stop_lin, stop_min, ripple, worst;
    double e_lin = 0, e_min = 0, tot_lin = 0, tot_min = 0;
    int64_t n, len;

    clr_filter_design (&lin, &r, qualities[qi], 0);
    min = lin;
    g_assert_true (clr_filter_set_phase (&min, &r, 1.0));
    pm = clr_phase_proto_get (&min, clr_phase_rate (r.I), 1.0);
    g_assert_nonnull (pm);
    ripple = pow (10.0, -lin.stop_db / 20.0);
    worst = passband_error (&min, &r);
    stop_lin = stopband_peak (&lin, &r);
    stop_min = stopband_peak (&min, &r);
    /* partial energies from the kernel's start on */
    len = (int64_t) lin.taps * r.I;
    for (n = 0; n < len; n++) {
      const double hl = clr_filter_eval (&lin, (double) n / r.I -
          lin.half_width), hm = pm->h[n];
      tot_lin += hl * hl;
      tot_min += hm * hm;
      if (n < len / 8) {
        e_lin += hl * hl;
        e_min += hm * hm;
      }
    }
    g_test_message ("quality %d: minimum phase reaches %u samples ahead "
        "(linear %u), delay %.3f; passband off by %.2e at most (linear "
        "ripple %.2e); stopband %.1f dB (linear %.1f); first eighth of the "
        "kernel holds %.1f dB of its energy (linear %.1f)", qualities[qi],
        min.lead, lin.lead, min.delay, worst, ripple, 20 * log10 (stop_min),
        20 * log10 (stop_lin), 10 * log10 (e_min / tot_min),
        10 * log10 (e_lin / tot_lin));
    g_assert_cmpfloat (worst, <, MAX (2.0 * ripple, 5e-6));
    g_assert_cmpfloat (fabs (20 * log10 (stop_min / stop_lin)), <, 1.0);
    g_assert_cmpuint (min.lead, <, lin.lead);
    g_assert_cmpfloat (min.lead / 44100.0, <=, 0.001);
    g_assert_cmpfloat (min.delay, <=, (double) min.lead);
    g_assert_cmpfloat (e_min / tot_min, >, 0.75);
    g_assert_cmpfloat (e_min / tot_min, >, e_lin / tot_lin);
    clr_phase_proto_unref (pm);
  }
}

/* Intermediate phase: a minimum-phase half and a linear-phase half, each
 * of half the attenuation and 10 dB (clr-phase.h). The stopband is the
 * linear filter's or deeper, the passband within the halves' two ripples
 * (from quality 4 on), and it reaches a little over half as far ahead as
 * the linear filter: the linear half's own reach. */
static void
test_filter_intermediate (void)
{
  static const int qualities[] = { 0, 4, 10 };
  ClrRatio r;
  guint qi;

  clr_ratio_init (&r, 44100, 48000);
  for (qi = 0; qi < G_N_ELEMENTS (qualities); qi++) {
    ClrFilter lin, mid;
    double stop_lin, stop_mid, worst, ripple;

    clr_filter_design (&lin, &r, qualities[qi], 0);
    mid = lin;
    g_assert_true (clr_filter_set_phase (&mid, &r, 0.5));
    /* the halves' ripples add: Kaiser's is a little over its stopband's,
     * and the cepstral design adds a few 1e-6 (minimum phase above) */
    ripple = 2.5 * pow (10.0, -(lin.stop_db / 2.0 + 10.0) / 20.0) + 5e-6;
    worst = passband_error (&mid, &r);
    stop_lin = stopband_peak (&lin, &r);
    stop_mid = stopband_peak (&mid, &r);
    g_test_message ("quality %d: intermediate phase reaches %u samples "
        "ahead (linear %u), delay %.3f; passband off by %.2e at most "
        "(bound %.2e); stopband %.1f dB (linear %.1f)", qualities[qi],
        mid.lead, lin.lead, mid.delay, worst, ripple,
        20 * log10 (stop_mid), 20 * log10 (stop_lin));
    /* Kaiser's ripple is its stopband's above 50 dB; quality 0's halves
     * (35 dB) ripple more: its passband sags 0.4 dB at its end */
    if (lin.stop_db / 2.0 + 10.0 > 50.0)
      g_assert_cmpfloat (worst, <, ripple);
    g_assert_cmpfloat (20 * log10 (stop_mid / stop_lin), <, 1.0);
    g_assert_cmpfloat (mid.lead, <=, 0.6 * lin.lead + 2);
    g_assert_cmpuint (mid.lead, >=, lin.lead / 3);
    g_assert_cmpfloat (mid.delay, <=, (double) mid.lead);
  }
}

/* The host's real transform and its inverse against the sums that define
 * them, in long double: x's n / 2 + 1 bins, and from a Hermitian half
 * spectrum (bins 0 and n / 2 given imaginary parts, which a real signal's
 * spectrum has not: the inverse leaves them out) the n samples; then
 * 2^20-point signals through both and back, as the minimum-phase design
 * runs them. */
static void
test_fft_host_real (void)
{
  static const size_t sizes[] = { 4, 8, 64, 512 };
  GRand *rand = g_rand_new_with_seed (25);
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    const size_t n = sizes[s], m = n / 2;
    ClrFftHostReal *fft = clr_fft_host_real_new (n);
    double *x = g_new (double, n), *spec = g_new (double, n + 2);
    double *back = g_new (double, n);
    double worst = 0.0;
    size_t k, t;

    for (t = 0; t < n; t++)
      x[t] = g_rand_double_range (rand, -1.0, 1.0);
    clr_fft_host_real_run (fft, x, n, spec);
    for (k = 0; k <= m; k++) {
      long double re = 0.0L, im = 0.0L;

      for (t = 0; t < n; t++) {
        const long double a = -2.0L * G_PI * (long double) ((t * k) % n) /
            (long double) n;
        re += x[t] * cosl (a);
        im += x[t] * sinl (a);
      }
      worst = MAX (worst, (double) fabsl (re - spec[2 * k]));
      worst = MAX (worst, (double) fabsl (im - spec[2 * k + 1]));
    }
    g_assert_cmpfloat (worst, <, 1e-13 * n);

    for (k = 0; k <= m; k++) {
      spec[2 * k] = g_rand_double_range (rand, -1.0, 1.0);
      spec[2 * k + 1] = g_rand_double_range (rand, -1.0, 1.0);
    }
    clr_fft_host_real_inverse_run (fft, spec, back);
    worst = 0.0;
    for (t = 0; t < n; t++) {
      /* the whole spectrum: X[0], X[m] real, X[n - k] = conj X[k] */
      long double v = spec[0] + spec[2 * m] * ((t % 2) ? -1.0L : 1.0L);

      for (k = 1; k < m; k++) {
        const long double a = 2.0L * G_PI * (long double) ((t * k) % n) /
            (long double) n;
        v += 2.0L * (spec[2 * k] * cosl (a) - spec[2 * k + 1] * sinl (a));
      }
      worst = MAX (worst, (double) fabsl (v / n - back[t]));
    }
    g_assert_cmpfloat (worst, <, 1e-15 * n);
    clr_fft_host_real_free (fft);
    g_free (x);
    g_free (spec);
    g_free (back);
  }

  {
    const size_t n = 1u << 20;
    ClrFftHostReal *fft = clr_fft_host_real_new (n);
    double *x = g_new (double, n), *spec = g_new (double, n + 2);
    double *back = g_new (double, n);
    double worst = 0.0;
    size_t t;

    for (t = 0; t < n; t++)
      x[t] = g_rand_double_range (rand, -1.0, 1.0);
    clr_fft_host_real_run (fft, x, n, spec);
    clr_fft_host_real_inverse_run (fft, spec, back);
    for (t = 0; t < n; t++)
      worst = MAX (worst, fabs (back[t] - x[t]));
    g_assert_cmpfloat (worst, <, 1e-13);
    clr_fft_host_real_free (fft);
    g_free (x);
    g_free (spec);
    g_free (back);
  }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fft/host-real", test_fft_host_real);
  g_test_add_func ("/filter/cutoff", test_filter_cutoff);
  g_test_add_func ("/filter/phase", test_filter_phase);
  g_test_add_func ("/filter/intermediate", test_filter_intermediate);
  return g_test_run ();
}
