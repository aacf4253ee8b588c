/* clresample: linear-phase multi-band FIR crossover design, in double,
 * GStreamer-free (clcrossover's filters; docs/crossover.md).
 *
 * n crossover frequencies f_0 < ... < f_{n-1} make n + 1 bands. LP(f) is a
 * Kaiser-windowed sinc lowpass of `taps` taps (odd), cut off at f (its
 * gain there is 1/2, -6.02 dB), normalised to a DC gain of exactly 1; its
 * window's beta follows the stopband depth asked for. Band 0 is LP(f_0),
 * band k is LP(f_k) - LP(f_{k-1}), the top band is delta - LP(f_{n-1})
 * with delta the unit impulse at the centre tap (taps - 1) / 2. The bands
 * therefore sum to that delayed impulse, exactly up to rounding, and each
 * adjacent pair crosses at -6.02 dB at its crossover frequency.
 *
 * With slopes (`orders`), each crossover point k is a Linkwitz-Riley
 * point of its own order n_k (LR2, LR4, LR8: 12, 24, 48 dB an octave):
 * the bands are those of the analogue LR tree in magnitude, linear phase,
 * band k = H_0 ... H_{k-1} L_k with L = 1 / (1 + (f / f_k)^n_k) and
 * H = 1 - L, designed by sampling that magnitude finely, taking `taps`
 * of its zero-phase impulse response under the Kaiser window and the top
 * band as delta less the others: the same exact sum. The transition then
 * grows with the frequency (an octave's width sets the slope), instead of
 * the same width in Hz at every point.
 *
 * Per band a gain (dB) scales the band and a delay (whole frames) shifts
 * it: every filter is then taps + max delay long (the others padded with
 * zeros at the end), and with equal gains of 0 dB and equal delays d the
 * bands sum to the impulse at (taps - 1) / 2 + d.
 */
#ifndef __CLR_CROSSOVER_DESIGN_H__
#define __CLR_CROSSOVER_DESIGN_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

#define CLR_XO_BANDS_MAX 32u
#define CLR_XO_STOPBAND_MIN 20.0
#define CLR_XO_STOPBAND_MAX 250.0
#define CLR_XO_GAIN_MIN_DB -200.0
#define CLR_XO_GAIN_MAX_DB 40.0

typedef struct {
  double rate;                  /* Hz */
  const double *freqs;          /* crossover points, Hz, ascending */
  unsigned n_freqs;             /* bands: n_freqs + 1 */
  size_t taps;                  /* odd, at least 3 */
  double stopband_db;           /* depth of LP's stopband, dB (> 0) */
  const double *gains_db;       /* n_freqs + 1 gains, or NULL: 0 dB */
  const size_t *delays;         /* n_freqs + 1 delays in frames, or NULL */
  /* n_freqs Linkwitz-Riley orders (even, CLR_XO_ORDER_MIN ..
   * CLR_XO_ORDER_MAX), or NULL: brick-wall Kaiser lowpasses */
  const unsigned *orders;
} ClrXoSpec;

#define CLR_XO_ORDER_MIN 2u
#define CLR_XO_ORDER_MAX 16u

/* Why `spec` cannot be designed (a message naming the value), or NULL. */
gchar *clr_xo_check (const ClrXoSpec * spec);

/* The n_freqs + 1 band filters, each *n_taps long (taps + the largest
 * delay), g_free() each and the array; NULL with *error set when
 * clr_xo_check() refuses the spec. */
double **clr_xo_design (const ClrXoSpec * spec, size_t *n_taps,
    GError ** error);
void clr_xo_free (double **bands, unsigned n_bands);

/* The width (Hz) of LP's transition band, from Kaiser's formula:
 * (A - 7.95) rate / (14.36 (taps - 1)): the stopband is reached half of
 * it away from each crossover frequency. */
double clr_xo_transition_hz (double rate, size_t taps, double stopband_db);

/* The analogue target of band `band` of a spec with orders, at f Hz: the
 * LR tree's magnitude (see above). */
double clr_xo_lr_target (const ClrXoSpec * spec, unsigned band, double f);

/* The taps an LR point of `order` at f Hz needs: the fewest (odd) with
 * which both bands of a 2-way crossover there, under the window of
 * stopband_db, keep within CLR_XO_LR_TOLERANCE_DB of their analogue
 * targets wherever those are above -3 dB, from 20 Hz to 20 kHz (or the
 * Nyquist frequency); CLR_XO_LR_TAPS_MAX where even that many do not. */
#define CLR_XO_LR_TOLERANCE_DB 0.1
#define CLR_XO_LR_TAPS_MAX 1048575u
size_t clr_xo_lr_taps (double rate, double f, unsigned order,
    double stopband_db);

/* |H(f)| of a filter of n taps at f Hz (the DTFT, in double). */
double clr_xo_magnitude (const double *h, size_t n, double rate, double f);

G_END_DECLS
#endif
