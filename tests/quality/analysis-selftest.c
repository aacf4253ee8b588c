/* clresample quality harness: tests of clr-analysis on synthetic signals
 * whose answers are known. Prints one PASS/FAIL line per check and ends with
 * "N passed, M failed"; exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clr-analysis.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int n_pass, n_fail;

static void
check (int ok, const char *what, double value, double target)
{
  printf ("%s  %-62s %.9g (want %.9g)\n", ok ? "PASS" : "FAIL", what, value,
      target);
  if (ok)
    n_pass++;
  else
    n_fail++;
}

/* deterministic Gaussian noise (xorshift64* + Box-Muller) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double
uniform01 (void)
{
  return clr_rng_uniform01 (&rng_state);
}

static double
gauss (void)
{
  double u1 = uniform01 (), u2 = uniform01 ();
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2);
}

static void
test_phase_exact (void)
{
  ClrFreq f = clr_freq_hz (997);
  ClrFreq g = clr_freq_from_double (64.59);
  double a = clr_phase_cycles (f, 44100, 123);
  double b = clr_phase_cycles (f, 44100, 123 + 44100ll * 1000003ll);
  double c = clr_phase_cycles (g, 44100, 7);
  double want_c = remainder (64.59 * 7.0 / 44100.0, 1.0);
  double x[2] = { 0.0, 0.0 };

  check (a == b, "integer phase identical one hour+ later (bit exact)", b, a);
  check (g.num == 6459 && g.den == 100, "64.59 Hz is 6459/100 exactly",
      (double) g.num / g.den, 64.59);
  check (fabs (c - want_c) < 1e-15, "rational phase of 64.59 Hz", c, want_c);
  /* a tone 10^12 frames in: sin of the reduced phase equals the small-n one */
  clr_tone_add (x, 1, 1, 48000, clr_freq_hz (1000), 1.0, 0.3, 0);
  clr_tone_add (x + 1, 1, 1, 48000, clr_freq_hz (1000), 1.0, 0.3,
      48000ll * 1000000000ll);
  check (x[0] == x[1], "tone at frame 4.8e13 equals frame 0", x[1], x[0]);
}

static void
test_fit_and_thdn (void)
{
  const int64_t fs = 48000;
  const size_t n = 48000;
  double *x = calloc (n, sizeof (double));
  double *noise = calloc (n, sizeof (double));
  ClrFreq f1 = clr_freq_hz (1000), f3 = clr_freq_hz (3000);
  ClrFreq two[2] = { clr_freq_from_double (64.59), clr_freq_hz (6998) };
  ClrToneFit fit[2];
  double amp = 0.891, thd, nrms, resid;
  size_t i;

  /* pure tone + a harmonic at -120 dB relative */
  clr_tone_add (x, n, 1, fs, f1, amp, 0.7, 0);
  clr_tone_add (x, n, 1, fs, f3, amp * 1e-6, 0.1, 0);
  thd = clr_thdn_db (x, 1, 4800, n - 9600, fs, f1, NULL);
  check (fabs (thd + 120.0) < 0.5, "THD+N of tone + -120 dB harmonic (dB)",
      thd, -120.0);

  /* pure tone + white noise at -120 dB relative to the tone's RMS */
  memset (x, 0, n * sizeof (double));
  for (i = 0; i < n; i++)
    noise[i] = gauss ();
  nrms = clr_rms (noise, 1, 4800, n - 9600);
  for (i = 0; i < n; i++)
    x[i] = noise[i] * (amp / sqrt (2.0) * 1e-6 / nrms);
  clr_tone_add (x, n, 1, fs, f1, amp, -2.0, 0);
  thd = clr_thdn_db (x, 1, 4800, n - 9600, fs, f1, NULL);
  check (fabs (thd + 120.0) < 0.5, "THD+N of tone + -120 dB noise (dB)", thd,
      -120.0);

  /* a clean tone: the residual is rounding only */
  memset (x, 0, n * sizeof (double));
  clr_tone_add (x, n, 1, fs, f1, amp, 1.0, 0);
  thd = clr_thdn_db (x, 1, 4800, n - 9600, fs, f1, NULL);
  check (thd < -280.0, "THD+N of an exact tone below -280 dB", thd, -280.0);

  /* two-tone fit recovers amplitudes and phases; residual is rounding */
  memset (x, 0, n * sizeof (double));
  clr_tone_add (x, n, 1, fs, two[0], 0.5, 0.25, 0);
  clr_tone_add (x, n, 1, fs, two[1], 0.125, -1.5, 0);
  for (i = 0; i < n; i++)
    x[i] += 0.01;
  clr_fit_tones (x, 1, 4800, n - 9600, fs, two, 2, fit, NULL, &resid);
  check (fabs (fit[0].amp - 0.5) < 1e-12 && fabs (fit[0].phase - 0.25) < 1e-11,
      "two-tone fit: 64.59 Hz amplitude", fit[0].amp, 0.5);
  check (fabs (fit[1].amp - 0.125) < 1e-12
      && fabs (fit[1].phase + 1.5) < 1e-11, "two-tone fit: 6998 Hz amplitude",
      fit[1].amp, 0.125);
  check (clr_db (resid / sqrt (0.5)) < -270.0,
      "two-tone fit residual below -270 dBFS", clr_db (resid / sqrt (0.5)),
      -270.0);
  free (x);
  free (noise);
}

static void
test_time_offset (void)
{
  const size_t n = 48000;
  double *y = calloc (n, sizeof (double));
  ClrFreq f = clr_freq_hz (1000);
  double phi = 0.4, d;
  size_t m;

  /* the "output" of a 44.1 -> 48 kHz resampler that is 0.25 output samples
   * late: y[m] = sin (2 pi f (m - 0.25) / 48000 + phi) */
  for (m = 0; m < n; m++)
    y[m] = 0.9 * sin (2.0 * M_PI * 1000.0 * ((double) m - 0.25) / 48000.0
        + phi);
  d = clr_time_offset (y, 1, 4800, n - 9600, 48000, f, phi, NULL);
  check (fabs (d - 0.25) < 1e-6, "time offset of a 0.25-sample delay", d,
      0.25);
  memset (y, 0, n * sizeof (double));
  for (m = 0; m < n; m++)
    y[m] = 0.9 * sin (2.0 * M_PI * 1000.0 * ((double) m + 1.75) / 48000.0
        + phi);
  d = clr_time_offset (y, 1, 4800, n - 9600, 48000, f, phi, NULL);
  check (fabs (d + 1.75) < 1e-6, "time offset of a 1.75-sample advance", d,
      -1.75);
  free (y);
}

static void
test_fft (void)
{
  const size_t n = 65536;
  const double fs = 65536.0;
  double *x = calloc (n, sizeof (double));
  double *ps, peak = 0.0, far = 0.0, tone, band;
  double re[64], im[64], dre[64], dim[64], maxerr = 0.0;
  size_t k, kpeak = 0, i;
  /* a tone between bins: 5000.37 bins */
  const long double f = 5000.37L;

  /* FFT against a direct DFT */
  for (i = 0; i < 64; i++) {
    re[i] = sin (0.37 * i) + 0.1 * i;
    im[i] = cos (1.3 * i * i);
  }
  for (k = 0; k < 64; k++) {
    long double sr = 0.0L, si = 0.0L;
    for (i = 0; i < 64; i++) {
      long double a = -2.0L * M_PI * (long double) ((k * i) % 64) / 64.0L;
      sr += re[i] * cosl (a) - im[i] * sinl (a);
      si += re[i] * sinl (a) + im[i] * cosl (a);
    }
    dre[k] = (double) sr;
    dim[k] = (double) si;
  }
  clr_fft (re, im, 64, 0);
  for (k = 0; k < 64; k++) {
    double e = hypot (re[k] - dre[k], im[k] - dim[k]);
    if (e > maxerr)
      maxerr = e;
  }
  check (maxerr < 1e-12, "FFT(64) matches the direct DFT", maxerr, 0.0);

  clr_tone_add_ld (x, n, 1, fs, f, 0.891, 0.3);
  ps = clr_power_spectrum (x, 1, 0, n, CLR_SPECTRUM_BETA);
  for (k = 0; k <= n / 2; k++)
    if (ps[k] > peak) {
      peak = ps[k];
      kpeak = k;
    }
  for (k = 0; k <= n / 2; k++)
    if ((k + CLR_SPECTRUM_GUARD_BINS <= kpeak
            || k >= kpeak + CLR_SPECTRUM_GUARD_BINS) && ps[k] > far)
      far = ps[k];
  check (kpeak == 5000, "FFT peak bin of a 5000.37-bin tone", (double) kpeak,
      5000.0);
  check (10.0 * log10 (far / peak) < -200.0,
      "window leakage 20+ bins from the tone below -200 dB",
      10.0 * log10 (far / peak), -200.0);
  tone = clr_band_power (ps, n, fs, 4900.0, 5100.0);
  check (fabs (clr_db_fs_power (tone) - clr_db (0.891)) < 0.001,
      "band power of a -1 dBFS tone (dBFS)", clr_db_fs_power (tone),
      clr_db (0.891));
  band = clr_band_power (ps, n, fs, 5100.0, fs / 2);
  check (clr_db_fs_power (band) < -200.0,
      "band power far above the tone below -200 dBFS",
      clr_db_fs_power (band), -200.0);
  free (ps);

  /* a -150 dBFS tone next to a 0 dBFS one is measured right */
  clr_tone_add_ld (x, n, 1, fs, 20000.5L,
      pow (10.0, -150.0 / 20.0), 0.0);
  ps = clr_power_spectrum (x, 1, 0, n, CLR_SPECTRUM_BETA);
  band = clr_band_power (ps, n, fs, 19000.0, 21000.0);
  check (fabs (clr_db_fs_power (band) + 150.0) < 0.01,
      "-150 dBFS tone beside a -1 dBFS one (dBFS)", clr_db_fs_power (band),
      -150.0);
  free (ps);
  free (x);
}

static void
test_correlate (void)
{
  const size_t n = 3 * 44100;
  double *x = calloc (n, sizeof (double));
  ClrFreq f[3] = { clr_freq_hz (100), clr_freq_hz (101), clr_freq_hz (20000) };
  double amp[3];

  {
    /* the table-driven multi-tone generator matches the exact one */
    int64_t hz[3] = { 100, 101, 20000 };
    double am[3] = { 0.5, 0.25, 0.125 }, ph[3] = { 0.1, -2.0, 3.0 };
    double *y = calloc (n, sizeof (double)), *z = calloc (n, sizeof (double));
    double e = 0.0, ta[2], ga[2], tp[2], gp[2];
    ClrFreq same[2] = { {1000, 1}, {20000, 1} }, rat[2] = { {2000, 2},
    {40000, 2}
    };
    size_t i;
    int k;
    clr_tones_add_int (y, n, 1, 44100, hz, am, ph, 3, 12345);
    for (k = 0; k < 3; k++)
      clr_tone_add (z, n, 1, 44100, clr_freq_hz (hz[k]), am[k], ph[k], 12345);
    for (i = 0; i < n; i++)
      e = fmax (e, fabs (y[i] - z[i]));
    check (e < 1e-14, "table multi-tone generator vs exact one (max err)", e,
        0.0);
    /* table and generic correlation paths agree */
    memset (y, 0, n * sizeof (double));
    clr_tone_add (y, n, 1, 44100, same[0], 0.3, 0.2, 0);
    clr_tone_add (y, n, 1, 44100, same[1], 1e-8, -0.2, 0);
    clr_tone_correlate (y, 1, 1000, 44100, 44100, same, 2, ta, tp);
    clr_tone_correlate (y, 1, 1000, 44100, 44100, rat, 2, ga, gp);
    check (fabs (ta[0] - 0.3) < 1e-14 && fabs (ta[1] - ga[1]) < 1e-16
        && fabs (tp[0] - gp[0]) < 1e-12 && fabs (tp[0] - 0.2) < 1e-12,
        "correlation: table path equals generic path", ta[1], ga[1]);
    free (y);
    free (z);
  }
  clr_tone_add (x, n, 1, 44100, f[0], 0.5, 0.1, 0);
  clr_tone_add (x, n, 1, 44100, f[1], 1e-9, 0.2, 0);
  clr_tone_add (x, n, 1, 44100, f[2], 0.25, 0.3, 0);
  /* one second window, integer Hz: exactly orthogonal */
  clr_tone_correlate (x, 1, 44100, 44100, 44100, f, 3, amp, NULL);
  check (fabs (clr_db (amp[1] / 1e-9)) < 1e-3,
      "exact-bin correlation: -180 dB tone 1 Hz from a 0.5 one (dB err)",
      clr_db (amp[1] / 1e-9), 0.0);
  check (fabs (amp[0] - 0.5) < 1e-13 && fabs (amp[2] - 0.25) < 1e-13,
      "exact-bin correlation: strong tones", amp[0], 0.5);
  free (x);
}

static void
test_sweep (void)
{
  const size_t n = 96000;
  double *x = calloc (n, sizeof (double));
  double *ps;
  size_t start = 0;

  /* the 20 Hz - 48 kHz sweep: its instantaneous frequency at the middle
   * frame is f1 (f2/f1)^(1/2); check via a short FFT there */
  clr_log_sweep_add (x, n, 1, 96000.0, 20.0, 48000.0, 0.891);
  start = n / 2 - 512;
  ps = clr_power_spectrum (x, 1, start, 1024, 20.0);
  {
    size_t k, kp = 0;
    double want = 20.0 * sqrt (48000.0 / 20.0), fpk;
    for (k = 0; k <= 512; k++)
      if (ps[k] > ps[kp])
        kp = k;
    fpk = kp * 96000.0 / 1024.0;
    check (fabs (fpk - want) < 2 * 93.75,
        "log sweep: frequency at the midpoint (Hz)", fpk, want);
  }
  free (ps);
  free (x);
}

/* clr-drift-quality's ramp (drift_d () there): the adjust a = 1 + d(t), d
 * a triangle of 500 ppm/s (10 s period, +-1250 ppm) whose corners turn
 * over 0.5 s along a raised cosine, on 44.1 -> 48 kHz, so an ideal
 * resampler's 1 kHz tone leaves at 1000 / a(t) Hz of the output's nominal
 * rate. That ideal chirp, phase integrated in long double, must read far
 * below every resampler on the harness's windows (8192 frames, Kaiser 38,
 * +-48 bins): the method's own floor. (With sharp corners it reads
 * -144 dB on the windows that hold one: the jump in the sweep rate is
 * there in the signal, so the ramp's corners are rounded.) */
static double
ramp_d (double t)
{
  const double p = 10.0, s = 500e-6, tau = 0.5;
  double u = fmod (t, p), lin = s * (p / 4.0 - tau / 2.0);

  if (u < p / 4.0 - tau / 2.0)
    return s * u;
  if (u < p / 4.0 + tau / 2.0)
    return lin + s * tau / M_PI * sin (M_PI / tau * (u - p / 4.0 + tau / 2.0));
  if (u < 3.0 * p / 4.0 - tau / 2.0)
    return lin - s * (u - p / 4.0 - tau / 2.0);
  if (u < 3.0 * p / 4.0 + tau / 2.0)
    return -lin - s * tau / M_PI *
        sin (M_PI / tau * (u - 3.0 * p / 4.0 + tau / 2.0));
  return -lin + s * (u - 3.0 * p / 4.0 - tau / 2.0);
}

static void
test_chirp_window (void)
{
  const double fs = 48000.0, f0 = 1000.0;
  const size_t n = (size_t) (fs * 10.5), win = 8192;
  double *x = malloc (sizeof (double) * n), worst = 0.0;
  long double ph = 0.0L;
  size_t i, start;

  for (i = 0; i < n; i++) {
    x[i] = 0.891 * sin (2.0 * M_PI * (double) ph);
    /* midpoint rule: the frequency half a frame on */
    ph += (long double) f0 / (1.0L + ramp_d ((i + 0.5) / fs)) / fs;
    ph -= floorl (ph);
  }
  for (start = 0; start + win <= n; start += win / 2) {
    double r = clr_window_thdn (x, 1, start, win, fs, f0 * 0.99, f0 * 1.01,
        48, CLR_SPECTRUM_BETA, NULL);
    if (r > worst)
      worst = r;
  }
  check (10.0 * log10 (worst) < -150.0,
      "ideal chirp (500 ppm/s): worst window THD+N (dB)",
      10.0 * log10 (worst), -150.0);
  free (x);
}

int
main (void)
{
  test_phase_exact ();
  test_fit_and_thdn ();
  test_time_offset ();
  test_fft ();
  test_correlate ();
  test_sweep ();
  test_chirp_window ();
  printf ("%d passed, %d failed\n", n_pass, n_fail);
  return n_fail ? 1 : 0;
}
