/* clresample tests: a float64 reference resampler.
 *
 * Direct evaluation of the resampling sum in double precision, with the
 * prototype h(t) evaluated exactly for every tap of each output phase (no
 * interpolated tables, no OpenCL; a phase's taps are reused by its later
 * outputs where the ratio has at most 4096 phases):
 *   y[m][c] = sum_j x[j][c] * h(m*D/I - j),  x = 0 outside [0, n_in),
 * for m = 0 .. ceil(n_in * I / D) - 1. Only the tests use it.
 */
#ifndef __CLR_REFERENCE_H__
#define __CLR_REFERENCE_H__

#include <stddef.h>
#include "design/clr-filter.h"
#include "design/clr-rate.h"

/* Returns a newly allocated array of *n_out * channels doubles. */
double *clr_reference_resample (const ClrRatio * r, const ClrFilter * f,
    const float *in, size_t n_in, unsigned channels, size_t * n_out);

/* The same sum at given positions: output m at n[m] + p[m] / I (a
 * variable ratio's, I = 2^32), total of them. */
double *clr_reference_resample_at (const ClrFilter * f, uint64_t I,
    const int64_t * n, const uint64_t * p, size_t total, const float *in,
    size_t n_in, unsigned channels);

#endif
