/* clresample: partitioned FFT convolution on the host, GStreamer-free.
 *
 * On CPU devices a block's kernels through PoCL cost their launches and
 * the hand-offs to its threads, about 40 us a block whatever its size, and
 * a stream's first buffer waits for their programs to be built (hundreds
 * of ms for the convolution's). clr-conv.c computes the same uniformly
 * partitioned convolution here instead, on the host's own transforms
 * (design/clr-fft-host.h), the transforms and the partition sums in double
 * as the device's are where it has double, the spectra kept in the
 * samples' precision: one channel's block at a time,
 * its spectrum into the channel's delay line, then each output's sum over
 * the partitions and its inverse transform.
 */
#ifndef __CLR_CONV_HOST_H__
#define __CLR_CONV_HOST_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _ClrConvHost ClrConvHost;

/* n_filters filters of n_taps taps (their spectra taken here) in `parts`
 * partitions of `block` (B) taps, or in one partition of up to 2B taps
 * where parts = 1, for `channels` input channels; NULL when out of host
 * memory. narrow: the filter's and the input's spectra kept in float (for
 * F32 samples, as the device keeps them), else in double; the transforms
 * and the sums run in double either way. */
ClrConvHost *clr_conv_host_new (const double *const *taps, size_t n_taps,
    uint32_t n_filters, uint32_t block, uint32_t parts, uint32_t channels,
    gboolean narrow);
void clr_conv_host_free (ClrConvHost * h);
/* Silence before the stream: every delay line cleared. */
void clr_conv_host_reset (ClrConvHost * h);
/* Host memory it holds, in bytes. */
size_t clr_conv_host_get_memory (ClrConvHost * h);

/* A call's block b of channel ch: its window of 2B frames, frame i at x +
 * i step samples (double with f64, else float), transformed into the
 * channel's delay line. Channels may run on threads of their own, each
 * its blocks in turn. */
void clr_conv_host_load (ClrConvHost * h, uint32_t ch, uint32_t b,
    gboolean f64, const void *x, size_t step);
/* Filter `filter` over channel ch's delay line as of block b: the block's
 * `hop` output frames (the window's last), frame j at y + j step
 * samples. */
void clr_conv_host_run (ClrConvHost * h, uint32_t ch, uint32_t b,
    uint32_t filter, gboolean f64, size_t hop, void *y, size_t step);
/* After every channel's n blocks: the next call's first block. */
void clr_conv_host_advance (ClrConvHost * h, uint32_t n);

G_END_DECLS
#endif
