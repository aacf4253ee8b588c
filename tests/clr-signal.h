/* clresample tests: test signals and their analysis, in double precision. */
#ifndef __CLR_SIGNAL_H__
#define __CLR_SIGNAL_H__

#include <stddef.h>
#include <stdint.h>

/* Uniform noise in [-amp, amp), reproducible from seed. */
void clr_signal_noise (float *out, size_t n, double amp, uint64_t seed);

/* amp * sin(2 pi f n / rate + phase) for n = 0..frames-1 on each of the
 * channels; f in integer Hz so the phase is reduced exactly. */
void clr_signal_sine (float *out, size_t frames, unsigned channels,
    unsigned f, unsigned rate, double amp, double phase);

typedef struct {
  double amplitude;
  double phase;                 /* of sin(), at sample 0 of the signal */
  double dc;
  double residual_rms;          /* what the fitted sine does not explain */
} ClrSineFit;

/* Least-squares fit of a sine of known frequency f (Hz) to samples
 * [start, start + n) of channel `channel`; the phase is referred to
 * sample 0. */
void clr_sine_fit (const float *x, size_t start, size_t n, unsigned channels,
    unsigned channel, double f, double rate, ClrSineFit * fit);

/* THD+N in dB: residual RMS over fundamental RMS. */
double clr_sine_fit_thdn_db (const ClrSineFit * fit);

#endif
