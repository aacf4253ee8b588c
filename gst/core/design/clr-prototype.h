/* clresample: the linear-phase prototype, GStreamer-free.
 *
 * One continuous Kaiser-windowed sinc h(t), t in input samples, symmetric
 * about 0. Output frame m is sum_j x[j] * h(t(m) - j), so a symmetric h
 * makes every output the band-limited input evaluated exactly at t(m):
 * zero phase, no time offset. clr-filter.h designs it for a ratio and a
 * quality; clr-phase.h turns it into minimum and intermediate phase.
 */
#ifndef __CLR_PROTOTYPE_H__
#define __CLR_PROTOTYPE_H__

#include <stdint.h>

typedef struct {
  int quality;
  double stop_db;
  double pass_edge;             /* passband end, fraction of the lower Nyquist */
  /* where the stopband starts, the same way: 1 unless a cutoff moved it
   * (above 1: what lies between the lower Nyquist and it aliases or
   * images, attenuated less than stop_db) */
  double stop_edge;
  double cutoff;                /* what was asked: 0, or the passband's end */
  double fc;                    /* -6 dB cutoff, cycles per input sample */
  double beta;                  /* Kaiser window beta */
  double i0_beta;               /* I0 (beta), the window's scale */
  uint32_t taps;                /* K: taps per phase, a multiple of 4 */
  double half_width;            /* K / 2: support of h in input samples */
  /* The phase (clr-phase.h): 0 linear, 1 minimum, 0.5 intermediate. The
   * kernel the bank holds, g, reaches `lead` input samples ahead of the
   * output's time and K - lead behind it (K / 2 each way when linear):
   * the engine's latency. `delay` is the low-frequency delay of the
   * filter's own, which the engine compensates (K / 2 when linear). */
  double phase;
  uint32_t lead;
  double delay;
} ClrFilter;

/* The linear prototype h(t), t in input samples; 0 outside (-K/2, K/2). */
double clr_filter_eval (const ClrFilter * f, double t);

/* h(t) inside (-K/2, K/2), clr_filter_eval ()'s value; from the ends of
 * the support on, its smooth continuation instead of 0: the window's
 * I0 (beta sqrt (1 - x^2)) is a power series in x^2, which goes on past
 * |x| = 1 (as J0 (beta sqrt (x^2 - 1))). For the rows of an interpolated
 * bank that reach past the ends (clr_bank_row ()): interpolating across
 * h's jump there (1/I0 (beta) of the sinc) cost the phases near it their
 * accuracy. */
double clr_filter_eval_continued (const ClrFilter * f, double t);

/* Kaiser's window beta for a stopband of stop_db dB. */
double clr_filter_kaiser_beta (double stop_db);

/* Zeroth-order modified Bessel function of the first kind. */
double clr_bessel_i0 (double x);

#endif
