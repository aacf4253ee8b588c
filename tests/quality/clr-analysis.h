/* clresample quality harness: double-precision signal analysis.
 *
 * Nothing here knows about GStreamer: test-tone and sweep generation with
 * exactly reduced phases, least-squares sine fits at known frequencies,
 * THD+N, time offsets, and a radix-2 FFT with a Kaiser window whose
 * sidelobes lie far below -200 dB for band energies.
 *
 * Conventions used throughout:
 * - a frequency is a rational number of Hz (ClrFreq) so that phases can be
 *   reduced exactly in integer arithmetic however long the signal is;
 * - a tone of amplitude A and phase phi is A * sin (2 pi f n / fs + phi),
 *   n being the absolute frame index (frame 0 is time 0);
 * - arrays may be interleaved: `stride` is the distance between two frames
 *   of the channel being analysed (1 for mono), `start` and `len` count
 *   frames.
 */
#ifndef __CLR_ANALYSIS_H__
#define __CLR_ANALYSIS_H__

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t num;                  /* frequency in Hz is num / den */
  int64_t den;                  /* > 0 */
} ClrFreq;

/* An integer frequency in Hz. */
ClrFreq clr_freq_hz (int64_t hz);
/* Any frequency given in Hz, represented exactly to 1 micro-Hz
 * (64.59 -> 64590000 / 1000000, reduced). */
ClrFreq clr_freq_from_double (double hz);
double clr_freq_to_double (ClrFreq f);

/* Phase of frequency f at frame n of a stream at fs Hz, in cycles, reduced
 * exactly in integer arithmetic ((num * n) mod (den * fs)) to [-0.5, 0.5). */
double clr_phase_cycles (ClrFreq f, int64_t fs, int64_t n);

/* x[(i) * stride] += amp * sin (2 pi f (n0 + i) / fs + phi), i in [0, n),
 * with the exactly reduced phase. */
void clr_tone_add (double *x, size_t n, size_t stride, int64_t fs, ClrFreq f,
    double amp, double phi, int64_t n0);

/* Many integer-Hz tones at once: x[i * stride] += sum_k amp[k] *
 * sin (2 pi hz[k] (n0 + i) / fs + phi[k]); phases stepped exactly in integer
 * arithmetic and looked up in a table of 2 pi j / fs (fs <= 2^24, else it
 * falls back to clr_tone_add). */
void clr_tones_add_int (double *x, size_t n, size_t stride, int64_t fs,
    const int64_t * hz, const double *amp, const double *phi, int nf,
    int64_t n0);

/* The same for any frequency, phase computed in long double
 * (fmodl (f * n / fs, 1)); good to ~1e-19 * f * n / fs cycles. */
void clr_tone_add_ld (double *x, size_t n, size_t stride, double fs,
    long double f_hz, double amp, double phi);

/* Exponential (log) sweep from f1 to f2 Hz over n frames at fs Hz:
 * x += amp * sin (2 pi * f1 T / L * (exp (t L / T) - 1)), L = ln (f2 / f1),
 * T = n / fs, the phase computed in long double and reduced mod 1 cycle. */
void clr_log_sweep_add (double *x, size_t n, size_t stride, double fs,
    double f1, double f2, double amp);

/* Frames to analyse: the middle of an n-frame signal at fs Hz without
 * skip_s seconds at each end. Returns 0 and sets *start, *len, or -1 when
 * nothing (or fewer than 16 frames) would be left. */
int clr_steady_range (size_t n, int64_t fs, double skip_s, size_t * start,
    size_t * len);

typedef struct {
  double amp;                   /* sqrt (a^2 + b^2) */
  double phase;                 /* radians: x ~ amp * sin (theta + phase) */
  double a;                     /* cos coefficient */
  double b;                     /* sin coefficient */
} ClrToneFit;

/* Least-squares fit of dc + sum_k (a_k cos theta_k + b_k sin theta_k),
 * theta_k = 2 pi f_k n / fs, over frames [start, start + len) (absolute
 * indices, so phases refer to frame 0). One refinement pass is run on the
 * residual. fit[] gets nf entries; dc and resid_rms may be NULL.
 * Returns 0, or -1 when the system is singular (e.g. duplicate frequencies). */
int clr_fit_tones (const double *x, size_t stride, size_t start, size_t len,
    int64_t fs, const ClrFreq * f, int nf, ClrToneFit * fit, double *dc,
    double *resid_rms);

/* RMS of x over [start, start + len). */
double clr_rms (const double *x, size_t stride, size_t start, size_t len);

/* THD+N in dB: 20 log10 (residual RMS / fundamental RMS) after a
 * single-tone (plus dc) fit over [start, start + len). *amp (may be NULL)
 * gets the fitted amplitude. */
double clr_thdn_db (const double *x, size_t stride, size_t start, size_t len,
    int64_t fs, ClrFreq f, double *amp);

/* Time offset of a resampled tone, in output samples, positive when the
 * output is late: the input tone was amp * sin (2 pi f n_in / fs_in + phi_in)
 * with input frame 0 at t = 0, so ideally output frame m carries
 * sin (2 pi f m / fs_out + phi_in). The fitted output phase phi_out gives
 * delay = wrap (phi_in - phi_out) / (2 pi f) * fs_out (wrapped to half a
 * period). *amp (may be NULL) gets the fitted amplitude. */
double clr_time_offset (const double *y, size_t stride, size_t start,
    size_t len, int64_t fs_out, ClrFreq f, double phi_in, double *amp);

/* In-place complex radix-2 FFT (n a power of two), forward
 * (X_k = sum x_n e^{-2 pi i k n / n}) when inverse == 0, otherwise the
 * unscaled inverse. Twiddles are computed directly (no recurrence).
 * Returns 0, or -1 when n is not a power of two. */
int clr_fft (double *re, double *im, size_t n, int inverse);

/* Kaiser window, w[i] = I0 (beta sqrt (1 - (2i/(n-1) - 1)^2)) / I0 (beta). */
void clr_window_kaiser (double *w, size_t n, double beta);
double clr_bessel_i0_d (double x);

/* Default Kaiser beta for spectra: its sidelobes sit near -290 dB and
 * its main lobe is about +-12.2 bins wide. */
#define CLR_SPECTRUM_BETA 38.0
/* Bins to keep away from a tone so its window leakage stays below -200 dB. */
#define CLR_SPECTRUM_GUARD_BINS 20

/* One-sided power spectrum of x[start .. start + n) (n a power of two),
 * Kaiser-windowed with beta. Returns n / 2 + 1 values in malloc'd memory
 * (free with free ()) scaled so that summing the bins of a band gives
 * the mean-square value of the signal's component in that band (a sine of
 * amplitude A sums to A^2 / 2). NULL when n is not a power of two. */
double *clr_power_spectrum (const double *x, size_t stride, size_t start,
    size_t n, double beta);

/* Sum of ps[] over the bins whose frequency k fs / n lies in [f_lo, f_hi]. */
double clr_band_power (const double *ps, size_t n, double fs, double f_lo,
    double f_hi);

/* Decibels of a mean-square power relative to a full-scale sine (0.5). */
double clr_db_fs_power (double power);

/* Largest power of two <= n (0 for n == 0). */
size_t clr_pow2_floor (size_t n);

/* Exact correlation of x[start .. start + len) with e^{-i theta_k},
 * theta_k = 2 pi f_k n / fs (absolute n), giving amp[k] = 2 |sum| / len and
 * phase[k] (phase may be NULL) in the convention of ClrToneFit. When every
 * f_k * len / fs is an integer the tones are exactly orthogonal over the
 * window, so this equals the least-squares fit with no leakage at all
 * between tones. */
void clr_tone_correlate (const double *x, size_t stride, size_t start,
    size_t len, int64_t fs, const ClrFreq * f, int nf, double *amp,
    double *phase);

/* Power within +-guard bins of the largest bin whose frequency lies in
 * [f_lo, f_hi], from a spectrum ps of an n-point transform at fs (as
 * clr_power_spectrum gives). *peak_bin (may be NULL) gets that bin.
 * Returns -1 when the range holds no bin. */
double clr_peak_power (const double *ps, size_t n, double fs, double f_lo,
    double f_hi, size_t guard, size_t * peak_bin);

/* THD+N of one tone whose frequency moves, on one window: the Kaiser
 * (beta) power spectrum of x[start .. start + n) (n a power of two), the
 * fundamental taken as the +-guard bins around the largest bin in
 * [f_lo, f_hi], everything else (dc to fs / 2) as distortion and noise.
 * Returns the ratio rest / fundamental (a power ratio, not dB), or -1 when
 * n is not a power of two or the range holds no bin; *fund_hz (may be
 * NULL) gets the peak bin's frequency. A tone whose frequency moves by far
 * less than a bin within the window keeps its energy within the main lobe
 * (+-12.2 bins at beta 38), so the figure is the resampler's, not the
 * sweep's (analysis-selftest checks an ideal chirp). */
double clr_window_thdn (const double *x, size_t stride, size_t start,
    size_t n, double fs, double f_lo, double f_hi, size_t guard, double beta,
    double *fund_hz);

/* 20 log10 (x), with -999 for x <= 0. */
double clr_db (double x);

#ifdef __cplusplus
}
#endif
/* Deterministic noise (xorshift64*): the same sequence in every run and on
 * every machine, so runs can be compared. `state` must not start at 0. */
double clr_rng_uniform01 (uint64_t * state);

#endif
