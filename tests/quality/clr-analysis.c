/* clresample quality harness: double-precision signal analysis.
 * See clr-analysis.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clr-analysis.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef __int128 i128;

static int64_t
gcd64 (int64_t a, int64_t b)
{
  if (a < 0)
    a = -a;
  if (b < 0)
    b = -b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static ClrFreq
freq_reduce (int64_t num, int64_t den)
{
  ClrFreq f;
  int64_t g;

  if (den < 0) {
    den = -den;
    num = -num;
  }
  g = gcd64 (num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  f.num = num;
  f.den = den ? den : 1;
  return f;
}

ClrFreq
clr_freq_hz (int64_t hz)
{
  ClrFreq f = { hz, 1 };
  return f;
}

ClrFreq
clr_freq_from_double (double hz)
{
  return freq_reduce ((int64_t) llround (hz * 1e6), 1000000);
}

double
clr_freq_to_double (ClrFreq f)
{
  return (double) f.num / (double) f.den;
}

double
clr_phase_cycles (ClrFreq f, int64_t fs, int64_t n)
{
  i128 m = (i128) f.den * fs;
  i128 a = (i128) f.num % m, b = (i128) n % m, r;

  if (a < 0)
    a += m;
  if (b < 0)
    b += m;
  r = (a * b) % m;
  if (2 * r >= m)
    r -= m;
  return (double) r / (double) m;
}

void
clr_tone_add (double *x, size_t n, size_t stride, int64_t fs, ClrFreq f,
    double amp, double phi, int64_t n0)
{
  size_t i;

  for (i = 0; i < n; i++)
    x[i * stride] += amp * sin (2.0 * M_PI * clr_phase_cycles (f, fs,
            n0 + (int64_t) i) + phi);
}

void
clr_tone_add_ld (double *x, size_t n, size_t stride, double fs,
    long double f_hz, double amp, double phi)
{
  size_t i;

  for (i = 0; i < n; i++) {
    long double c = f_hz * (long double) i / (long double) fs;
    c -= floorl (c);
    if (c >= 0.5L)
      c -= 1.0L;
    x[i * stride] += amp * sin (2.0 * M_PI * (double) c + phi);
  }
}

void
clr_log_sweep_add (double *x, size_t n, size_t stride, double fs,
    double f1, double f2, double amp)
{
  long double T = (long double) n / fs, L = logl ((long double) f2 / f1);
  long double k = (long double) f1 * T / L;
  size_t i;

  for (i = 0; i < n; i++) {
    long double t = (long double) i / fs;
    long double c = k * expm1l (t * L / T);
    c -= floorl (c);
    if (c >= 0.5L)
      c -= 1.0L;
    x[i * stride] += amp * sin (2.0 * M_PI * (double) c);
  }
}

int
clr_steady_range (size_t n, int64_t fs, double skip_s, size_t * start,
    size_t * len)
{
  size_t skip = (size_t) ceil (skip_s * (double) fs);

  if (n < 2 * skip + 16)
    return -1;
  *start = skip;
  *len = n - 2 * skip;
  return 0;
}

/* Solves the symmetric system g (p x p, row-major) y = r by Gaussian
 * elimination with partial pivoting on a copy. Returns -1 when singular. */
static int
solve (const long double *g, const long double *r, int p, double *y)
{
  long double *a = malloc (sizeof (long double) * p * (p + 1));
  int i, j, k, ret = 0;

  for (i = 0; i < p; i++) {
    for (j = 0; j < p; j++)
      a[i * (p + 1) + j] = g[i * p + j];
    a[i * (p + 1) + p] = r[i];
  }
  for (k = 0; k < p; k++) {
    int piv = k;
    long double best = fabsl (a[k * (p + 1) + k]);
    for (i = k + 1; i < p; i++)
      if (fabsl (a[i * (p + 1) + k]) > best) {
        best = fabsl (a[i * (p + 1) + k]);
        piv = i;
      }
    if (best < 1e-12L * fabsl (g[0])) {
      ret = -1;
      goto done;
    }
    if (piv != k)
      for (j = 0; j <= p; j++) {
        long double t = a[k * (p + 1) + j];
        a[k * (p + 1) + j] = a[piv * (p + 1) + j];
        a[piv * (p + 1) + j] = t;
      }
    for (i = k + 1; i < p; i++) {
      long double m = a[i * (p + 1) + k] / a[k * (p + 1) + k];
      if (m == 0.0L)
        continue;
      for (j = k; j <= p; j++)
        a[i * (p + 1) + j] -= m * a[k * (p + 1) + j];
    }
  }
  for (i = p - 1; i >= 0; i--) {
    long double s = a[i * (p + 1) + p];
    for (j = i + 1; j < p; j++)
      s -= a[i * (p + 1) + j] * y[j];
    y[i] = (double) (s / a[i * (p + 1) + i]);
  }
done:
  free (a);
  return ret;
}

/* Basis vector at absolute frame n: 1, cos th_0, sin th_0, cos th_1, ... */
static void
basis_at (double *v, int64_t fs, const ClrFreq * f, int nf, int64_t n)
{
  int k;

  v[0] = 1.0;
  for (k = 0; k < nf; k++) {
    double th = 2.0 * M_PI * clr_phase_cycles (f[k], fs, n);
    v[1 + 2 * k] = cos (th);
    v[2 + 2 * k] = sin (th);
  }
}

int
clr_fit_tones (const double *x, size_t stride, size_t start, size_t len,
    int64_t fs, const ClrFreq * f, int nf, ClrToneFit * fit, double *dc,
    double *resid_rms)
{
  int p = 2 * nf + 1, i, j, k, pass;
  long double *g = calloc ((size_t) p * p, sizeof (long double));
  long double *r = calloc (p, sizeof (long double));
  double *v = malloc (sizeof (double) * p);
  double *coef = calloc (p, sizeof (double));
  double *dcoef = malloc (sizeof (double) * p);
  long double ss;
  size_t m;
  int ret = 0;

  for (m = start; m < start + len; m++) {
    basis_at (v, fs, f, nf, (int64_t) m);
    for (i = 0; i < p; i++)
      for (j = i; j < p; j++)
        g[i * p + j] += (long double) v[i] * v[j];
  }
  for (i = 0; i < p; i++)
    for (j = 0; j < i; j++)
      g[i * p + j] = g[j * p + i];

  /* pass 0 fits x; pass 1 fits the residual of pass 0 and adds the
   * correction (iterative refinement) */
  for (pass = 0; pass < 2; pass++) {
    memset (r, 0, sizeof (long double) * p);
    for (m = start; m < start + len; m++) {
      double e = x[m * stride];
      basis_at (v, fs, f, nf, (int64_t) m);
      for (i = 0; i < p; i++)
        e -= coef[i] * v[i];
      for (i = 0; i < p; i++)
        r[i] += (long double) e * v[i];
    }
    if (solve (g, r, p, dcoef) < 0) {
      ret = -1;
      goto done;
    }
    for (i = 0; i < p; i++)
      coef[i] += dcoef[i];
  }

  ss = 0.0L;
  for (m = start; m < start + len; m++) {
    double e = x[m * stride];
    basis_at (v, fs, f, nf, (int64_t) m);
    for (i = 0; i < p; i++)
      e -= coef[i] * v[i];
    ss += (long double) e * e;
  }
  for (k = 0; k < nf; k++) {
    fit[k].a = coef[1 + 2 * k];
    fit[k].b = coef[2 + 2 * k];
    fit[k].amp = hypot (fit[k].a, fit[k].b);
    fit[k].phase = atan2 (fit[k].a, fit[k].b);
  }
  if (dc)
    *dc = coef[0];
  if (resid_rms)
    *resid_rms = sqrt ((double) (ss / (long double) len));
done:
  free (g);
  free (r);
  free (v);
  free (coef);
  free (dcoef);
  return ret;
}

double
clr_rms (const double *x, size_t stride, size_t start, size_t len)
{
  long double ss = 0.0L;
  size_t m;

  if (len == 0)
    return 0.0;
  for (m = start; m < start + len; m++)
    ss += (long double) x[m * stride] * x[m * stride];
  return sqrt ((double) (ss / (long double) len));
}

double
clr_db (double x)
{
  return x > 0.0 ? 20.0 * log10 (x) : -999.0;
}

double
clr_thdn_db (const double *x, size_t stride, size_t start, size_t len,
    int64_t fs, ClrFreq f, double *amp)
{
  ClrToneFit fit;
  double resid;

  if (clr_fit_tones (x, stride, start, len, fs, &f, 1, &fit, NULL,
          &resid) < 0)
    return NAN;
  if (amp)
    *amp = fit.amp;
  if (fit.amp <= 0.0)
    return NAN;
  return clr_db (resid / (fit.amp / sqrt (2.0)));
}

double
clr_time_offset (const double *y, size_t stride, size_t start, size_t len,
    int64_t fs_out, ClrFreq f, double phi_in, double *amp)
{
  ClrToneFit fit;
  double d;

  if (clr_fit_tones (y, stride, start, len, fs_out, &f, 1, &fit, NULL,
          NULL) < 0)
    return NAN;
  if (amp)
    *amp = fit.amp;
  d = remainder (phi_in - fit.phase, 2.0 * M_PI);
  return d / (2.0 * M_PI * clr_freq_to_double (f)) * (double) fs_out;
}

int
clr_fft (double *re, double *im, size_t n, int inverse)
{
  size_t i, j, len, half;
  double *wc, *ws;

  if (n == 0 || (n & (n - 1)))
    return -1;
  if (n == 1)
    return 0;
  /* bit reversal */
  for (i = 1, j = 0; i < n; i++) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
  /* twiddles e^{-2 pi i k / n}, each evaluated directly, using the octant
   * symmetry so that every value comes from an argument <= pi / 4 */
  half = n / 2;
  wc = malloc (sizeof (double) * half);
  ws = malloc (sizeof (double) * half);
  for (i = 0; i < half; i++) {
    /* angle = 2 pi i / n in [0, pi) */
    size_t q = n / 8;
    double c, s;
    if (n >= 8 && i <= q) {
      double a = 2.0 * M_PI * (double) i / (double) n;
      c = cos (a);
      s = sin (a);
    } else if (n >= 8 && i <= 2 * q) {
      double a = 2.0 * M_PI * (double) (2 * q - i) / (double) n;
      c = sin (a);
      s = cos (a);
    } else if (n >= 8 && i <= 3 * q) {
      double a = 2.0 * M_PI * (double) (i - 2 * q) / (double) n;
      c = -sin (a);
      s = cos (a);
    } else if (n >= 8) {
      double a = 2.0 * M_PI * (double) (4 * q - i) / (double) n;
      c = -cos (a);
      s = sin (a);
    } else {
      double a = 2.0 * M_PI * (double) i / (double) n;
      c = cos (a);
      s = sin (a);
    }
    wc[i] = c;
    ws[i] = inverse ? s : -s;
  }
  for (len = 2; len <= n; len <<= 1) {
    size_t h = len / 2, step = n / len, k;
    for (i = 0; i < n; i += len) {
      for (k = 0; k < h; k++) {
        double c = wc[k * step], s = ws[k * step];
        double xr = re[i + k + h], xi = im[i + k + h];
        double tr = xr * c - xi * s, ti = xr * s + xi * c;
        re[i + k + h] = re[i + k] - tr;
        im[i + k + h] = im[i + k] - ti;
        re[i + k] += tr;
        im[i + k] += ti;
      }
    }
  }
  free (wc);
  free (ws);
  return 0;
}

double
clr_bessel_i0_d (double x)
{
  double sum = 1.0, term = 1.0, q = x * x / 4.0;
  int k;

  for (k = 1; k < 1000; k++) {
    term *= q / ((double) k * (double) k);
    sum += term;
    if (term < sum * 1e-19)
      break;
  }
  return sum;
}

void
clr_window_kaiser (double *w, size_t n, double beta)
{
  double norm = clr_bessel_i0_d (beta);
  size_t i;

  if (n == 1) {
    w[0] = 1.0;
    return;
  }
  for (i = 0; i < n; i++) {
    /* symmetric about the middle; evaluated from the distance to it */
    double x = (2.0 * (double) i - (double) (n - 1)) / (double) (n - 1);
    double r = (1.0 - x) * (1.0 + x);
    w[i] = clr_bessel_i0_d (beta * sqrt (r > 0.0 ? r : 0.0)) / norm;
  }
}

size_t
clr_pow2_floor (size_t n)
{
  size_t p = 1;

  if (n == 0)
    return 0;
  while (p <= n / 2)
    p <<= 1;
  return p;
}

double *
clr_power_spectrum (const double *x, size_t stride, size_t start, size_t n,
    double beta)
{
  double *re, *im, *w, *ps;
  long double sw2 = 0.0L;
  double scale;
  size_t i;

  if (n < 2 || (n & (n - 1)))
    return NULL;
  re = malloc (sizeof (double) * n);
  im = calloc (n, sizeof (double));
  w = malloc (sizeof (double) * n);
  ps = malloc (sizeof (double) * (n / 2 + 1));
  clr_window_kaiser (w, n, beta);
  for (i = 0; i < n; i++) {
    re[i] = w[i] * x[(start + i) * stride];
    sw2 += (long double) w[i] * w[i];
  }
  clr_fft (re, im, n, 0);
  scale = 1.0 / ((double) n * (double) sw2);
  for (i = 0; i <= n / 2; i++) {
    double p = (re[i] * re[i] + im[i] * im[i]) * scale;
    ps[i] = (i == 0 || i == n / 2) ? p : 2.0 * p;
  }
  free (re);
  free (im);
  free (w);
  return ps;
}

double
clr_band_power (const double *ps, size_t n, double fs, double f_lo,
    double f_hi)
{
  double lo = ceil (f_lo * (double) n / fs);
  double hi = floor (f_hi * (double) n / fs);
  long double s = 0.0L;
  size_t k, k0, k1;

  if (lo < 0.0)
    lo = 0.0;
  if (hi > (double) (n / 2))
    hi = (double) (n / 2);
  if (hi < lo)
    return 0.0;
  k0 = (size_t) lo;
  k1 = (size_t) hi;
  for (k = k0; k <= k1; k++)
    s += ps[k];
  return (double) s;
}

double
clr_db_fs_power (double power)
{
  return power > 0.0 ? 10.0 * log10 (power / 0.5) : -999.0;
}

/* Table of cos and sin of 2 pi k / fs, k in [0, fs), each from an argument
 * reduced to [-pi, pi]; NULL when fs is too large for a table. */
static double *
unit_circle_table (int64_t fs)
{
  double *t;
  int64_t k;

  if (fs <= 0 || fs > (1 << 24))
    return NULL;
  t = malloc (sizeof (double) * 2 * (size_t) fs);
  for (k = 0; k < fs; k++) {
    int64_t r = 2 * k >= fs ? k - fs : k;
    double th = 2.0 * M_PI * (double) r / (double) fs;
    t[2 * k] = cos (th);
    t[2 * k + 1] = sin (th);
  }
  return t;
}

void
clr_tones_add_int (double *x, size_t n, size_t stride, int64_t fs,
    const int64_t * hz, const double *amp, const double *phi, int nf,
    int64_t n0)
{
  double *t = unit_circle_table (fs);
  int k;

  for (k = 0; k < nf; k++) {
    double cp = cos (phi[k]), sp = sin (phi[k]);
    int64_t f = hz[k] % fs, r;
    size_t i;

    if (!t) {
      clr_tone_add (x, n, stride, fs, clr_freq_hz (hz[k]), amp[k], phi[k],
          n0);
      continue;
    }
    if (f < 0)
      f += fs;
    /* r = (f * n) mod fs, stepped exactly */
    r = (int64_t) (((__int128) f * (n0 % fs + fs)) % fs);
    for (i = 0; i < n; i++) {
      /* sin (th + phi) = sin th cos phi + cos th sin phi */
      x[i * stride] += amp[k] * (t[2 * r + 1] * cp + t[2 * r] * sp);
      r += f;
      if (r >= fs)
        r -= fs;
    }
  }
  free (t);
}

void
clr_tone_correlate (const double *x, size_t stride, size_t start,
    size_t len, int64_t fs, const ClrFreq * f, int nf, double *amp,
    double *phase)
{
  double *t = NULL;
  int k;

  for (k = 0; k < nf && f[k].den == 1; k++);
  if (k == nf)
    t = unit_circle_table (fs);
  for (k = 0; k < nf; k++) {
    long double sc = 0.0L, ss = 0.0L;
    double a, b;
    size_t m;
    if (t) {
      int64_t fk = f[k].num % fs, r;
      if (fk < 0)
        fk += fs;
      r = (int64_t) (((__int128) fk * (int64_t) start) % fs);
      for (m = start; m < start + len; m++) {
        sc += (long double) x[m * stride] * t[2 * r];
        ss += (long double) x[m * stride] * t[2 * r + 1];
        r += fk;
        if (r >= fs)
          r -= fs;
      }
    } else {
      for (m = start; m < start + len; m++) {
        double th = 2.0 * M_PI * clr_phase_cycles (f[k], fs, (int64_t) m);
        sc += (long double) x[m * stride] * cos (th);
        ss += (long double) x[m * stride] * sin (th);
      }
    }
    a = (double) (2.0L * sc / (long double) len);
    b = (double) (2.0L * ss / (long double) len);
    amp[k] = hypot (a, b);
    if (phase)
      phase[k] = atan2 (a, b);
  }
  free (t);
}

double
clr_rng_uniform01 (uint64_t * state)
{
  uint64_t s = *state;

  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  *state = s;
  return ((s * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

double
clr_peak_power (const double *ps, size_t n, double fs, double f_lo,
    double f_hi, size_t guard, size_t * peak_bin)
{
  double lo = ceil (f_lo * (double) n / fs);
  double hi = floor (f_hi * (double) n / fs);
  long double s = 0.0L;
  size_t k, kp, k0, k1;

  if (lo < 0.0)
    lo = 0.0;
  if (hi > (double) (n / 2))
    hi = (double) (n / 2);
  if (hi < lo)
    return -1.0;
  kp = (size_t) lo;
  for (k = (size_t) lo; k <= (size_t) hi; k++)
    if (ps[k] > ps[kp])
      kp = k;
  k0 = kp > guard ? kp - guard : 0;
  k1 = kp + guard < n / 2 ? kp + guard : n / 2;
  for (k = k0; k <= k1; k++)
    s += ps[k];
  if (peak_bin)
    *peak_bin = kp;
  return (double) s;
}

double
clr_window_thdn (const double *x, size_t stride, size_t start, size_t n,
    double fs, double f_lo, double f_hi, size_t guard, double beta,
    double *fund_hz)
{
  double *ps = clr_power_spectrum (x, stride, start, n, beta);
  long double total = 0.0L;
  double fund;
  size_t k, kp = 0;

  if (!ps)
    return -1.0;
  fund = clr_peak_power (ps, n, fs, f_lo, f_hi, guard, &kp);
  /* summed apart, not total - fund, so that a rest 10^-20 of the
   * fundamental does not drown in the rounding of the difference */
  for (k = 0; k <= n / 2; k++)
    if (k + guard < kp || k > kp + guard)
      total += ps[k];
  free (ps);
  if (fund <= 0.0)
    return -1.0;
  if (fund_hz)
    *fund_hz = kp * fs / (double) n;
  return (double) (total / fund);
}
