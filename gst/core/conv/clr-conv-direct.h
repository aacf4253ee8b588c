/* clresample: short filters in direct form, on the host, GStreamer-free.
 *
 * For a filter of a few dozen taps a block's two transforms and its
 * launches cost more than the sums themselves: clr-conv.c computes such
 * filters here instead (ClrConvConfig's block and latency unchanged), as
 * y[t] = sum_k h[k] x[t - k] in double, so that the output is exact where
 * the arithmetic is (a delay, a gain of a power of two) and within a
 * double's rounding of the float64 convolution elsewhere.
 */
#ifndef __CLR_CONV_DIRECT_H__
#define __CLR_CONV_DIRECT_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _ClrConvDirect ClrConvDirect;

/* n_filters filters of n_taps taps each (copied); NULL when out of host
 * memory. */
ClrConvDirect *clr_conv_direct_new (const double *const *taps, size_t n_taps,
    uint32_t n_filters);
void clr_conv_direct_free (ClrConvDirect * d);

/* Takes a channel's window of n_taps - 1 + n frames, frame i at x + i step
 * samples (double with f64, else float), for the outputs that follow. */
gboolean clr_conv_direct_load (ClrConvDirect * d, gboolean f64,
    const void *x, size_t step, size_t n);

/* Filter `filter` over the loaded window: its n output frames, y[j] for
 * the window's frame n_taps - 1 + j, frame j at y + j step samples. */
void clr_conv_direct_run (ClrConvDirect * d, uint32_t filter, gboolean f64,
    void *y, size_t step);

G_END_DECLS
#endif
