/* clresample: filter design in double precision, GStreamer-free: a
 * quality's (or a cutoff's) prototype for a ratio (clr-prototype.h), its
 * phase (clr-phase.h), and the bank the kernels read. The bank holds the
 * kernel sampled for each phase (or, when I is too large for that, on a
 * fine grid to interpolate from).
 */
#ifndef __CLR_FILTER_H__
#define __CLR_FILTER_H__

#include <stddef.h>
#include <stdint.h>
#include "clr-rate.h"
#include "clr-prototype.h"

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
/* The grid's points per input sample: the fewest, a power of two from
 * CLR_BANK_GRID_MIN to CLR_BANK_GRID_MAX, whose cubic interpolation errs
 * CLR_BANK_GRID_MARGIN_DB below the filter's stopband (fewer still where
 * the cap asks; a minimum or intermediate phase's at least 512). The
 * cubic's error falls 24 dB a doubling: with the kernel continued past
 * its ends and phase 0 a row of its own (clr_bank_row ()), the worst
 * coefficient over the phases -177.6 dB of h's peak at 128 points, -201.5
 * at 256, -225.3 at 512, -249.2 at 1024, at every quality
 * (CLR_BANK_GRID_512_DB; test-core's /filter/bank-grid), and the mean
 * error power a white input's output takes from the rows a dB or so
 * below that. 44 dB keeps the grid's error out of every measured figure
 * (quality 4's 128 points read the same to 0.1 dB in
 * tests/quality/clr-drift-quality as 512 did) and its bank small: 0.17 MB
 * at quality 4, designed in 1.2 ms, where 512 points took 5.4 ms for 0.69
 * MB and a coprime stream started 2.3 ms after an ordinary one (now 0.9
 * ms before it). The grid was 4096 points once: worst coefficient -146
 * dB at q4 (phases near the kernel's ends, before it was continued) and
 * a bank of 5.5 MB whose design or read-back from the cache on disk took
 * 70-260 ms of a stream's start (docs/performance.md, "Coprime
 * ratios"). */
#define CLR_BANK_GRID_MIN 64u
#define CLR_BANK_GRID_MAX 1024u
#define CLR_BANK_GRID_512_DB (-225.0)
#define CLR_BANK_GRID_MARGIN_DB 44.0

typedef struct {
  double stop_db;               /* stopband attenuation */
  double pass_edge;             /* passband edge, fraction of the lower Nyquist */
} ClrQualitySpec;

const ClrQualitySpec *clr_quality_spec (int quality);

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

typedef struct {
  int interpolated;             /* 0: one row per phase; 1: rows on a grid */
  uint32_t rows;                /* I, or grid + 4 */
  uint32_t taps;
  uint32_t grid;                /* grid points per input sample when interpolated */
} ClrBankLayout;

/* 1 if one row per phase, I rows of `taps` coefficients of coef_size
 * bytes, fits under CLR_BANK_CAP_BYTES; 0 when the bank must be a grid. */
int clr_bank_table_fits (uint64_t I, uint32_t taps, size_t coef_size);

/* Chooses the bank layout for coefficients of coef_size bytes. */
void clr_bank_layout (ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r, size_t coef_size);

/* The row whose values, last tap first, are row `row`'s, where the kernel
 * is symmetric (linear phase) and the grid makes that exact: grid row q
 * holds h at (q-1)/grid + K/2-1-k, row grid+2-q at the negatives of
 * those, tap K-1-k for tap k, and every position is an exact binary
 * fraction (a power-of-two grid), so h's two values are the same double.
 * `row` itself where no other row mirrors it (table banks, other
 * phases, and row grid+3). Half the grid is then designed, half
 * copied. */
uint32_t clr_bank_mirror_row (const ClrBankLayout * b, const ClrFilter * f,
    uint32_t row);

/* Fills row `row` of the bank: taps values of the kernel g (h when linear;
 * clr-phase.h otherwise), P = K - lead the taps behind the output's time.
 * Table rows: row p holds g(p/I + P - 1 - k), k = 0..K-1.
 * Grid rows:  row q holds g((q-1)/grid + P - 1 - k), q = 0..grid+2, so that
 * cubic Lagrange interpolation between rows q0..q0+3 gives the phase u in
 * [q0/grid, (q0+1)/grid); past the kernel's ends, the linear kernel's
 * smooth continuation (clr_filter_eval_continued ()). Row grid+3 is phase
 * 0's table row, g(P - 1 - k): its last tap sits on h's jump at -K/2,
 * where the other rows hold the limit. 0 where a phase's prototype could
 * not be made (out of memory). */
int clr_bank_row (const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r, uint32_t row, double *out);

#endif
