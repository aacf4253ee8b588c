/* clresample: the crossover filter design (clr-crossover-design.h) alone,
 * in double: the bands sum to a delayed impulse, each pair crosses at
 * -6.02 dB at its frequency, a band's response two bands away is under the
 * stopband, gains and delays, refusals. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "design/clr-crossover-design.h"

#define RATE 48000.0

static double
db (double v)
{
  return 20.0 * log10 (MAX (v, 1e-300));
}

static double **
design (const double *freqs, unsigned n, size_t taps, double stop,
    const double *gains, const size_t *delays, size_t *len)
{
  ClrXoSpec s = { RATE, freqs, n, taps, stop, gains, delays };
  GError *err = NULL;
  double **h = clr_xo_design (&s, len, &err);

  g_assert_no_error (err);
  g_assert_nonnull (h);
  return h;
}

/* sum over the bands, tap by tap, against the impulse at `at` */
static double
sum_error (double **h, unsigned bands, size_t len, size_t at)
{
  double worst = 0.0;
  size_t k;
  unsigned b;

  for (k = 0; k < len; k++) {
    double s = 0.0;
    for (b = 0; b < bands; b++)
      s += h[b][k];
    worst = MAX (worst, fabs (s - (k == at ? 1.0 : 0.0)));
  }
  return worst;
}

static void
test_sum (void)
{
  static const double f3[] = { 250, 2000, 8000 }, f1[] = { 1000 };
  static const size_t taps[] = { 3, 101, 8191, 65535 };
  size_t len, i;
  double **h;

  for (i = 0; i < G_N_ELEMENTS (taps); i++) {
    h = design (f3, 3, taps[i], 120, NULL, NULL, &len);
    g_assert_cmpuint (len, ==, taps[i]);
    g_test_message ("%" G_GSIZE_FORMAT " taps: |sum - delta| <= %.2g",
        taps[i], sum_error (h, 4, len, (taps[i] - 1) / 2));
    g_assert_cmpfloat (sum_error (h, 4, len, (taps[i] - 1) / 2), <=, 1e-15);
    clr_xo_free (h, 4);
  }
  h = design (f1, 1, 255, 80, NULL, NULL, &len);
  g_assert_cmpfloat (sum_error (h, 2, len, 127), <=, 1e-15);
  clr_xo_free (h, 2);
}

/* linear phase: every band symmetric about the centre tap */
static void
test_symmetric (void)
{
  static const double f[] = { 300, 3000 };
  size_t len, k;
  double **h = design (f, 2, 1023, 100, NULL, NULL, &len);
  unsigned b;

  for (b = 0; b < 3; b++)
    for (k = 0; k < len; k++)
      g_assert_cmpfloat (h[b][k], ==, h[b][len - 1 - k]);
  clr_xo_free (h, 3);
}

/* the frequency in [lo, hi] where |A| = |B|, by bisection */
static double
crossing (const double *a, const double *b, size_t n, double lo, double hi)
{
  int i;

  for (i = 0; i < 60; i++) {
    double m = 0.5 * (lo + hi);
    if (clr_xo_magnitude (a, n, RATE, m) > clr_xo_magnitude (b, n, RATE, m))
      lo = m;
    else
      hi = m;
  }
  return 0.5 * (lo + hi);
}

/* The default design (8191 taps, 120 dB) at 250, 2000, 8000 Hz: the
 * lowpass gives 1/2 at its frequency, each pair crosses at -6.02 dB within
 * 1 % of it; a tone in the middle of band k (geometric; 125 Hz and 16 kHz
 * at the ends) is in bands two away at most -114 dB (the stopband, twice
 * its ripple in the difference), and the band itself within 0.001 dB */
static void
test_response (void)
{
  static const double f[] = { 250, 2000, 8000 };
  static const double mids[] = { 125, 707.1, 4000, 16000 };
  const double stop = 120;
  size_t len;
  double **h = design (f, 3, 8191, stop, NULL, NULL, &len);
  unsigned k, j;

  g_test_message ("transition width %.1f Hz", clr_xo_transition_hz (RATE,
          8191, stop));
  for (k = 0; k < 3; k++) {
    double at = crossing (h[k], h[k + 1], len, f[k] * 0.8, f[k] * 1.2);
    double ga = db (clr_xo_magnitude (h[k], len, RATE, f[k]));
    double gb = db (clr_xo_magnitude (h[k + 1], len, RATE, f[k]));

    g_test_message ("crossover %u: %.3f Hz (%.4f %%), gains %.4f / %.4f dB",
        k, at, 100 * (at / f[k] - 1), ga, gb);
    g_assert_cmpfloat (fabs (at / f[k] - 1), <=, 0.01);
    g_assert_cmpfloat (fabs (ga + 6.0206), <=, 0.01);
    g_assert_cmpfloat (fabs (gb + 6.0206), <=, 0.01);
  }
  for (k = 0; k < 4; k++)
    for (j = 0; j < 4; j++) {
      double g = db (clr_xo_magnitude (h[j], len, RATE, mids[k]));
      if (j == k)
        g_assert_cmpfloat (fabs (g), <=, 0.001);
      else if (j + 2 <= k || k + 2 <= j) {
        g_test_message ("tone in band %u, band %u: %.1f dB", k, j, g);
        g_assert_cmpfloat (g, <=, -(stop - 6.03));
      }
    }
  clr_xo_free (h, 4);
}

/* gains scale a band; delays shift it and lengthen every filter by the
 * largest; equal delays keep the sum an impulse */
static void
test_gains_delays (void)
{
  static const double f[] = { 500, 5000 }, gains[] = { -6, 0, 3.5 };
  static const size_t delays[] = { 10, 0, 3 }, same[] = { 7, 7, 7 };
  size_t len0, len, k;
  double **h0 = design (f, 2, 511, 100, NULL, NULL, &len0);
  double **h = design (f, 2, 511, 100, gains, delays, &len);
  unsigned b;

  g_assert_cmpuint (len, ==, 521);
  for (b = 0; b < 3; b++) {
    double g = pow (10.0, gains[b] / 20);
    for (k = 0; k < len; k++) {
      double want = k >= delays[b] && k < delays[b] + 511 ?
          g * h0[b][k - delays[b]] : 0.0;
      g_assert_cmpfloat (h[b][k], ==, want);
    }
  }
  clr_xo_free (h, 3);
  h = design (f, 2, 511, 100, NULL, same, &len);
  g_assert_cmpuint (len, ==, 518);
  g_assert_cmpfloat (sum_error (h, 3, len, 255 + 7), <=, 1e-15);
  clr_xo_free (h, 3);
  clr_xo_free (h0, 3);
}

static void
expect_refused (const double *freqs, unsigned n, size_t taps, double stop,
    const double *gains, const char *what)
{
  ClrXoSpec s = { RATE, freqs, n, taps, stop, gains, NULL };
  GError *err = NULL;
  size_t len;

  g_assert_null (clr_xo_design (&s, &len, &err));
  g_assert_nonnull (err);
  g_test_message ("refused: %s", err->message);
  g_assert_nonnull (strstr (err->message, what));
  g_error_free (err);
}

/* The taps of h whose magnitude is within `db` of its peak: first and last
 * (the span a transient rings over). */
static double
ring_ms (const double *h, size_t len, double below_db)
{
  double peak = 0.0, floor_v;
  size_t k, first = len, last = 0;

  for (k = 0; k < len; k++)
    peak = MAX (peak, fabs (h[k]));
  floor_v = peak * pow (10.0, -below_db / 20.0);
  for (k = 0; k < len; k++)
    if (fabs (h[k]) >= floor_v) {
      first = MIN (first, k);
      last = k;
    }
  return (double) (last - first) * 1000.0 / RATE;
}

/* Linkwitz-Riley slopes a point: each band within 0.1 dB of the analogue
 * LR tree's magnitude wherever that is above -3 dB, the bands still
 * summing to the impulse, linear phase, and the 8 kHz point ringing for
 * a fraction of what the brick-wall point of the same taps rings. */
static void
test_slopes (void)
{
  static const double f3[] = { 250, 2000, 8000 };
  static const unsigned orders[] = { 4, 8, 8 };
  const size_t taps = 8191, mid = (taps - 1) / 2;
  ClrXoSpec s = { RATE, f3, 3, taps, 120, NULL, NULL, orders };
  GError *err = NULL;
  size_t len, k, blen;
  double **h = clr_xo_design (&s, &len, &err), **brick, f, ring, ring_brick;
  unsigned b;

  g_assert_no_error (err);
  g_assert_cmpuint (len, ==, taps);
  g_assert_cmpfloat (sum_error (h, 4, len, mid), <=, 1e-15);
  for (b = 0; b < 4; b++) {
    double worst = 0.0;

    for (k = 0; k < mid; k++)
      g_assert_cmpfloat (fabs (h[b][k] - h[b][taps - 1 - k]), <=, 1e-15);
    for (f = 20.0; f <= 20000.0; f *= 1.01) {
      const double want = clr_xo_lr_target (&s, b, f);

      if (want < pow (10.0, -3.0 / 20.0))
        continue;
      worst = MAX (worst, fabs (db (clr_xo_magnitude (h[b], len, RATE, f)) -
              db (want)));
    }
    g_test_message ("LR band %u: within %.4f dB of the analogue target "
        "where that is above -3 dB", b, worst);
    g_assert_cmpfloat (worst, <=, 0.1);
  }
  /* the same point as a brick wall: its transition, 46 Hz wide at 8 kHz,
   * rings for most of the filter */
  brick = design (f3, 3, taps, 120, NULL, NULL, &blen);
  ring = ring_ms (h[3], len, 60.0);
  ring_brick = ring_ms (brick[3], blen, 60.0);
  g_test_message ("8 kHz point, the top band rings (within 60 dB of its "
      "peak) for %.2f ms as LR8, %.2f ms as a brick wall", ring, ring_brick);
  g_assert_cmpfloat (ring * 10.0, <, ring_brick);
  clr_xo_free (h, 4);
  clr_xo_free (brick, 4);
  /* the taps each point needs: a 2-way crossover at that point, designed
   * with that many taps, meets the analogue target to 0.1 dB */
  for (b = 0; b < 3; b++) {
    const size_t need = clr_xo_lr_taps (RATE, f3[b], orders[b], 120);
    ClrXoSpec one = { RATE, f3 + b, 1, need, 120, NULL, NULL, orders + b };
    double **h2 = clr_xo_design (&one, &len, &err), worst = 0.0;
    unsigned band;

    g_assert_no_error (err);
    g_assert_cmpuint (need % 2, ==, 1);
    for (band = 0; band < 2; band++)
      for (f = 20.0; f <= 20000.0; f *= 1.01) {
        const double want = clr_xo_lr_target (&one, band, f);
        if (want >= pow (10.0, -3.0 / 20.0))
          worst = MAX (worst, fabs (db (clr_xo_magnitude (h2[band], len,
                          RATE, f)) - db (want)));
      }
    g_test_message ("LR%u at %.0f Hz needs %" G_GSIZE_FORMAT " taps: "
        "within %.4f dB of the target with them", orders[b], f3[b], need,
        worst);
    g_assert_cmpfloat (worst, <=, 0.1);
    if (b > 0)
      g_assert_cmpuint (need, <, clr_xo_lr_taps (RATE, f3[b - 1],
              orders[b - 1], 120));
    clr_xo_free (h2, 2);
  }
  /* an odd order, or past LR16: refused */
  {
    static const unsigned odd[] = { 4, 5, 8 }, high[] = { 4, 8, 18 };
    ClrXoSpec bad = s;
    gchar *why;

    bad.orders = odd;
    why = clr_xo_check (&bad);
    g_assert_nonnull (strstr (why, "order 5"));
    g_free (why);
    bad.orders = high;
    why = clr_xo_check (&bad);
    g_assert_nonnull (strstr (why, "order 18"));
    g_free (why);
  }
}

static void
test_errors (void)
{
  static const double unsorted[] = { 2000, 250 }, equal[] = { 250, 250 };
  static const double high[] = { 250, 24000 }, neg[] = { -5 };
  static const double ok[] = { 1000 }, bad_gain[] = { 0, 50 };
  static const double nan_f[] = { NAN };
  double many[40];
  unsigned i;

  for (i = 0; i < 40; i++)
    many[i] = 100 + 100 * i;
  expect_refused (unsorted, 2, 101, 100, NULL, "ascending");
  expect_refused (equal, 2, 101, 100, NULL, "ascending");
  expect_refused (high, 2, 101, 100, NULL, "out of range");
  expect_refused (neg, 1, 101, 100, NULL, "out of range");
  expect_refused (nan_f, 1, 101, 100, NULL, "out of range");
  expect_refused (ok, 0, 101, 100, NULL, "no crossover");
  expect_refused (many, 40, 101, 100, NULL, "at most 32 bands");
  expect_refused (ok, 1, 100, 100, NULL, "odd number of taps");
  expect_refused (ok, 1, 1, 100, NULL, "odd number of taps");
  expect_refused (ok, 1, 101, 5, NULL, "stopband");
  expect_refused (ok, 1, 101, 100, bad_gain, "gain of band 1");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/crossover-design/sum", test_sum);
  g_test_add_func ("/crossover-design/symmetric", test_symmetric);
  g_test_add_func ("/crossover-design/response", test_response);
  g_test_add_func ("/crossover-design/gains-delays", test_gains_delays);
  g_test_add_func ("/crossover-design/errors", test_errors);
  g_test_add_func ("/crossover-design/slopes", test_slopes);
  return g_test_run ();
}
