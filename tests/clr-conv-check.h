/* clresample tests: what the convolution engines' tests (test-conv,
 * test-conv-offline) check against: reproducible noise and filters, and
 * the float64 direct convolution. No OpenCL here.
 */
#ifndef __CLR_CONV_CHECK_H__
#define __CLR_CONV_CHECK_H__

#include <stddef.h>
#include <glib.h>

/* Uniform in [-1, 1) from a 64-bit LCG: the same numbers everywhere. */
double clr_check_uniform (guint64 * state);

/* n_filters filters of `taps` taps: noise decaying by 60 dB over the
 * filter, like a room response; filter f differs from the others by its
 * seed. Free with clr_check_free_planes (). */
double **clr_check_filters (unsigned n_filters, size_t taps);

/* Frees n planes and the array that holds them. */
void clr_check_free_planes (void *planes, unsigned n);

/* y[t] = sum over k of h[k] x[t - k] (x of `frames` samples, zero
 * outside), in double. */
double clr_check_direct (const double *h, size_t taps, const double *x,
    size_t frames, size_t t);
/* y[0 .. n) = clr_check_direct () at t0 .. t0 + n, each sum bit for bit
 * the same (its terms added in the same order); quicker for a run of
 * outputs, whose sums then go side by side rather than one after another
 * (a single sum's additions wait for each other). */
void clr_check_direct_block (const double *h, size_t taps, const double *x,
    size_t frames, size_t t0, size_t n, double *restrict y);

/* clr_check_direct () where a check reads it, frame by frame: a run of
 * consecutive frames a block at a time (clr_check_direct_block (), the
 * same sums), frames read apart one by one. Start with a zeroed run. */
#define CLR_CHECK_RUN_BLOCK 256
typedef struct {
  const double *h, *x;
  size_t t0, n, last;
  double y[CLR_CHECK_RUN_BLOCK];
} ClrCheckRun;

double clr_check_direct_at (ClrCheckRun * r, const double *h, size_t taps,
    const double *x, size_t frames, size_t t);

#endif
