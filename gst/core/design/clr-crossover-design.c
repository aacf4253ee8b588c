/* clresample: linear-phase multi-band FIR crossover design. See
 * clr-crossover-design.h. */
#include <math.h>
#include <string.h>
#include "clr-crossover-design.h"
#include "device/clr-device.h"
#include "clr-fft-host.h"
#include "clr-prototype.h"

/* the LR magnitudes are sampled on this many points per tap at least
 * (the windowed response's error from the sampling stays far below the
 * window's own) */
#define CLR_XO_LR_OVERSAMPLE 8u

double
clr_xo_transition_hz (double rate, size_t taps, double stopband_db)
{
  return taps > 1 ? MAX (stopband_db - 7.95, 0.0) * rate / (14.36 * (taps -
          1)) : rate / 2;
}

gchar *
clr_xo_check (const ClrXoSpec * s)
{
  const unsigned bands = s->n_freqs + 1;
  unsigned i;

  if (!(s->rate > 0.0))
    return g_strdup_printf ("the sample rate must be positive (got %g)",
        s->rate);
  if (s->n_freqs == 0 || !s->freqs)
    return g_strdup ("no crossover frequencies: give at least one (e.g. "
        "\"2000\" for 2 bands)");
  if (bands > CLR_XO_BANDS_MAX)
    return g_strdup_printf ("%u crossover frequencies make %u bands: at most "
        "%u bands", s->n_freqs, bands, CLR_XO_BANDS_MAX);
  for (i = 0; i < s->n_freqs; i++) {
    if (!isfinite (s->freqs[i]) || s->freqs[i] <= 0.0
        || s->freqs[i] >= s->rate / 2)
      return g_strdup_printf ("crossover frequency %u (%g Hz) is out of "
          "range: it must lie between 0 and half the sample rate (%g Hz)",
          i + 1, s->freqs[i], s->rate / 2);
    if (i > 0 && s->freqs[i] <= s->freqs[i - 1])
      return g_strdup_printf ("the crossover frequencies must be in "
          "ascending order: %g Hz follows %g Hz", s->freqs[i],
          s->freqs[i - 1]);
  }
  if (s->taps < 3 || s->taps % 2 == 0)
    return g_strdup_printf ("the filters need an odd number of taps, at "
        "least 3 (got %" G_GSIZE_FORMAT "): linear-phase bands that sum to a "
        "delayed impulse have a centre tap", s->taps);
  if (!(s->stopband_db >= CLR_XO_STOPBAND_MIN
          && s->stopband_db <= CLR_XO_STOPBAND_MAX))
    return g_strdup_printf ("the stopband must be %g to %g dB (got %g)",
        CLR_XO_STOPBAND_MIN, CLR_XO_STOPBAND_MAX, s->stopband_db);
  for (i = 0; s->orders && i < s->n_freqs; i++)
    if (s->orders[i] < CLR_XO_ORDER_MIN || s->orders[i] > CLR_XO_ORDER_MAX
        || s->orders[i] % 2)
      return g_strdup_printf ("the slope of crossover %u (order %u) is out "
          "of range: a Linkwitz-Riley order, even, %u to %u (LR2 .. LR%u: "
          "12 to %u dB an octave)", i + 1, s->orders[i], CLR_XO_ORDER_MIN,
          CLR_XO_ORDER_MAX, CLR_XO_ORDER_MAX, 6 * CLR_XO_ORDER_MAX);
  for (i = 0; s->gains_db && i < bands; i++)
    if (!(s->gains_db[i] >= CLR_XO_GAIN_MIN_DB
            && s->gains_db[i] <= CLR_XO_GAIN_MAX_DB))
      return g_strdup_printf ("the gain of band %u (%g dB) is out of range: "
          "%g to %g dB", i, s->gains_db[i], CLR_XO_GAIN_MIN_DB,
          CLR_XO_GAIN_MAX_DB);
  return NULL;
}

/* LP(fc) into h (n taps), on the shared window w: unit DC gain */
static void
lowpass (double *h, const double *w, size_t n, double fc_norm)
{
  const double m = (n - 1) / 2.0;
  double sum = 0.0;
  size_t k;

  for (k = 0; k < n; k++) {
    double t = k - m, v;

    v = t == 0.0 ? 2.0 * fc_norm : sin (2.0 * G_PI * fc_norm * t) /
        (G_PI * t);
    h[k] = v * w[k];
    sum += h[k];
  }
  for (k = 0; k < n; k++)
    h[k] /= sum;
}

/* H_0 ... H_{points-1} at f Hz: what the highpasses of an LR tree's first
 * `points` crossover points let through */
static double
lr_through (const ClrXoSpec * s, unsigned points, double f)
{
  double through = 1.0;
  unsigned j;

  for (j = 0; j < points && j < s->n_freqs; j++)
    through *= 1.0 - 1.0 / (1.0 + pow (fabs (f) / s->freqs[j],
            s->orders[j]));
  return through;
}

double
clr_xo_lr_target (const ClrXoSpec * s, unsigned band, double f)
{
  const double through = lr_through (s, band, f);

  if (band >= s->n_freqs)
    return through;
  return through / (1.0 + pow (fabs (f) / s->freqs[band], s->orders[band]));
}

/* The cumulative lowpass C_b = band 0 + ... + band b of an LR tree,
 * 1 - H_0 ... H_b, as n taps of its zero-phase response under the window
 * w, unit DC gain: sampled on `grid` points of a full period, transformed
 * (a real, even sequence: its transform is real) and centred. */
static void
lowpass_lr (double *h, const double *w, size_t n, const ClrXoSpec * s,
    unsigned b, size_t grid, double *mag, double *spec)
{
  const size_t mid = (n - 1) / 2;
  double sum = 0.0;
  size_t k;

  for (k = 0; k <= grid / 2; k++) {
    mag[k] = 1.0 - lr_through (s, b + 1, (double) k * s->rate / grid);
    if (k > 0 && k < grid / 2)
      mag[grid - k] = mag[k];
  }
  clr_fft_host_real (mag, grid, grid, spec);
  for (k = 0; k < n; k++) {
    const size_t t = k >= mid ? k - mid : mid - k;

    h[k] = spec[2 * t] / grid * w[k];
    sum += h[k];
  }
  for (k = 0; k < n; k++)
    h[k] /= sum;
}

/* Whether an LR point of `order` at f Hz, designed with n taps, keeps
 * within the tolerance of its analogue bands (clr_xo_lr_taps ()). */
static gboolean
lr_taps_enough (double rate, double f, unsigned order, double stopband_db,
    size_t n)
{
  const ClrXoSpec one = { rate, &f, 1, n, stopband_db, NULL, NULL, &order };
  const double top = MIN (20000.0, 0.49 * rate);
  const double db_floor = pow (10.0, -3.0 / 20.0);
  double **h, fr;
  gboolean ok = TRUE;
  size_t len;
  unsigned b;

  if (!(h = clr_xo_design (&one, &len, NULL)))
    return FALSE;
  for (b = 0; b < 2 && ok; b++)
    for (fr = 20.0; fr <= top && ok; fr *= 1.01) {
      const double want = clr_xo_lr_target (&one, b, fr);
      const double got = clr_xo_magnitude (h[b], len, rate, fr);

      if (want >= db_floor)
        ok = fabs (20.0 * log10 (MAX (got, 1e-300) / want)) <=
            CLR_XO_LR_TOLERANCE_DB;
    }
  clr_xo_free (h, 2);
  return ok;
}

size_t
clr_xo_lr_taps (double rate, double f, unsigned order, double stopband_db)
{
  size_t lo = 1, hi = 63;

  /* doubling to a length that is enough, then halving the gap */
  while (!lr_taps_enough (rate, f, order, stopband_db, hi)) {
    lo = hi;
    if (hi >= CLR_XO_LR_TAPS_MAX)
      return CLR_XO_LR_TAPS_MAX;
    hi = MIN (2 * hi + 1, (size_t) CLR_XO_LR_TAPS_MAX);
  }
  while (hi - lo > 2) {
    size_t mid = (lo + hi) / 2 | 1;

    if (lr_taps_enough (rate, f, order, stopband_db, mid))
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

double **
clr_xo_design (const ClrXoSpec * s, size_t *n_taps, GError ** error)
{
  const unsigned bands = s->n_freqs + 1;
  const size_t n = s->taps, mid = (n - 1) / 2;
  gchar *why = clr_xo_check (s);
  double **out, *w, *lp_prev, *lp, beta, i0b, *mag = NULL, *spec = NULL;
  size_t max_delay = 0, len, k, grid = 0;
  unsigned b;

  if (why) {
    g_set_error_literal (error, CLR_ERROR, CLR_ERROR_INVALID, why);
    g_free (why);
    return NULL;
  }
  for (b = 0; s->delays && b < bands; b++)
    max_delay = MAX (max_delay, s->delays[b]);
  len = n + max_delay;

  /* the Kaiser window, shared by every lowpass */
  beta = clr_filter_kaiser_beta (s->stopband_db);
  i0b = clr_bessel_i0 (beta);
  w = g_new (double, n);
  for (k = 0; k <= mid; k++) {
    double r = (double) ((gssize) k - (gssize) mid) / mid;
    w[k] = w[n - 1 - k] =
        clr_bessel_i0 (beta * sqrt (MAX (0.0, 1.0 - r * r))) / i0b;
  }

  out = g_new0 (double *, bands);
  lp_prev = g_new0 (double, n);
  lp = g_new (double, n);
  if (s->orders) {
    grid = 2;
    while (grid < CLR_XO_LR_OVERSAMPLE * n)
      grid *= 2;
    mag = g_new (double, grid);
    spec = g_new (double, grid + 2);
  }
  for (b = 0; b < bands; b++) {
    double gain = s->gains_db ? pow (10.0, s->gains_db[b] / 20.0) : 1.0;
    size_t d = s->delays ? s->delays[b] : 0;
    double *h = out[b] = g_new0 (double, len);

    if (b < s->n_freqs && s->orders) {
      lowpass_lr (lp, w, n, s, b, grid, mag, spec);
    } else if (b < s->n_freqs) {
      lowpass (lp, w, n, s->freqs[b] / s->rate);
    } else {
      memset (lp, 0, n * sizeof (double));
      lp[mid] = 1.0;
    }
    /* band b = LP(f_b) - LP(f_{b-1}): LP(f_{-1}) = 0, LP(f_n) = delta */
    for (k = 0; k < n; k++)
      h[d + k] = gain * (lp[k] - lp_prev[k]);
    memcpy (lp_prev, lp, n * sizeof (double));
  }
  g_free (lp);
  g_free (lp_prev);
  g_free (w);
  g_free (mag);
  g_free (spec);
  *n_taps = len;
  return out;
}

void
clr_xo_free (double **bands, unsigned n_bands)
{
  unsigned b;

  if (!bands)
    return;
  for (b = 0; b < n_bands; b++)
    g_free (bands[b]);
  g_free (bands);
}

double
clr_xo_magnitude (const double *h, size_t n, double rate, double f)
{
  const double wstep = 2.0 * G_PI * f / rate;
  double re = 0.0, im = 0.0;
  size_t k;

  for (k = 0; k < n; k++) {
    re += h[k] * cos (wstep * k);
    im -= h[k] * sin (wstep * k);
  }
  return sqrt (re * re + im * im);
}
