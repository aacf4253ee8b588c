/* clresample: filter design in double precision, GStreamer-free.
 *
 * The prototype is one continuous Kaiser-windowed sinc h(t), t in input
 * samples, symmetric about 0. Output frame m is sum_j x[j] * h(t(m) - j), so a
 * symmetric h makes every output the band-limited input evaluated exactly at
 * t(m): zero phase, no time offset. The bank holds h sampled for each phase
 * (or, when I is too large for that, on a fine grid to interpolate from).
 */
#ifndef __CLR_FILTER_H__
#define __CLR_FILTER_H__

#include <stddef.h>
#include <stdint.h>
#include "clr-rate.h"

#define CLR_QUALITY_MIN 0
#define CLR_QUALITY_MAX 10
#define CLR_QUALITY_DEFAULT 4
#define CLR_TAPS_MAX 65536
/* The passband's end a user may ask for (clr_filter_design_cut ()), a
 * fraction of the lower Nyquist frequency; 0 asks for the quality's. */
#define CLR_CUTOFF_MIN 0.05
#define CLR_CUTOFF_MAX 1.0

/* Coefficient tables larger than this are not allocated: the bank switches to
 * an interpolated grid (libsoxr and libsamplerate do the same). */
#define CLR_BANK_CAP_BYTES (16u * 1024u * 1024u)
#define CLR_BANK_GRID_MAX 4096u

typedef struct {
  double stop_db;               /* stopband attenuation */
  double pass_edge;             /* passband edge, fraction of the lower Nyquist */
} ClrQualitySpec;

const ClrQualitySpec *clr_quality_spec (int quality);

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

/* Designs the filter for ratio r. taps = 0 takes the length from quality;
 * otherwise taps is rounded up to a multiple of 4 and raised to the minimum a
 * decimation by D/I needs to see every input sample. Taps past the
 * quality's own length narrow the transition band towards the lower
 * Nyquist frequency at the quality's attenuation: the passband edge moves
 * up (pass_edge says where), the stopband still starts at Nyquist. */
void clr_filter_design (ClrFilter * f, const ClrRatio * r, int quality,
    uint32_t taps);
/* The same with the passband ending at `cutoff` (CLR_CUTOFF_MIN ..
 * CLR_CUTOFF_MAX; 0: the quality's own, as clr_filter_design ()), a fraction
 * of the lower Nyquist frequency: the transition band the quality (or
 * `taps`) gives starts there, so a cutoff past the quality's edge trades
 * attenuation just above the lower Nyquist (aliasing or imaging there) for
 * treble, one below it buys a guard band, as libsoxr's passband_end and
 * r8brain's transition band do. */
void clr_filter_design_cut (ClrFilter * f, const ClrRatio * r, int quality,
    uint32_t taps, double cutoff);

/* Gives a designed (linear) filter the phase `phase` (0 linear, 0.5
 * intermediate, 1 minimum; clr-phase.h), for ratio r: the same magnitude,
 * lead and delay set. 0 where its prototype could not be made (out of
 * memory, or more than CLR_PHASE_FFT_MAX / 4 points). */
int clr_filter_set_phase (ClrFilter * f, const ClrRatio * r, double phase);

/* The gain of the filter's kernel (its phase's, as the bank holds it) at
 * freq cycles an input sample, from the kernel's samples at I points an
 * input sample, in double: for tests and design reports. NAN where a
 * phase's prototype could not be made. */
double clr_filter_kernel_gain (const ClrFilter * f, const ClrRatio * r,
    double freq);

/* The linear prototype h(t), t in input samples; 0 outside (-K/2, K/2). */
double clr_filter_eval (const ClrFilter * f, double t);

/* Kaiser's window beta for a stopband of stop_db dB. */
double clr_filter_kaiser_beta (double stop_db);

/* Zeroth-order modified Bessel function of the first kind. */
double clr_bessel_i0 (double x);

typedef struct {
  int interpolated;             /* 0: one row per phase; 1: rows on a grid */
  uint32_t rows;                /* I, or grid + 3 */
  uint32_t taps;
  uint32_t grid;                /* grid points per input sample when interpolated */
} ClrBankLayout;

/* 1 if one row per phase, I rows of `taps` coefficients of coef_size
 * bytes, fits under CLR_BANK_CAP_BYTES; 0 when the bank must be a grid. */
int clr_bank_table_fits (uint64_t I, uint32_t taps, size_t coef_size);

/* Chooses the bank layout for coefficients of coef_size bytes. */
void clr_bank_layout (ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r, size_t coef_size);

/* Fills row `row` of the bank: taps values of the kernel g (h when linear;
 * clr-phase.h otherwise), P = K - lead the taps behind the output's time.
 * Table rows: row p holds g(p/I + P - 1 - k), k = 0..K-1.
 * Grid rows:  row q holds g((q-1)/grid + P - 1 - k), q = 0..grid+2, so that
 * cubic Lagrange interpolation between rows q0..q0+3 gives the phase u in
 * [q0/grid, (q0+1)/grid). 0 where a phase's prototype could not be made
 * (out of memory). */
int clr_bank_row (const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r, uint32_t row, double *out);

#endif
