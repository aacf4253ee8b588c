/* clresample: the spectrum of a real signal on the host, in double, at
 * lengths with factors 2, 3, 5 and 7.
 *
 * For the offline convolution's filter spectra (clr-conv-offline.c), whose
 * FFT sizes are not always powers of two (clr-fft-host.h takes only
 * those): a recursive mixed-radix FFT with every twiddle from one table of
 * cos/sin at the full length, so the error stays near the double rounding
 * of the inputs at millions of points. Not meant to be fast: about half a
 * second at 4 million points.
 */
#ifndef __CLR_FFT_SMOOTH_H__
#define __CLR_FFT_SMOOTH_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* TRUE when n >= 1 has no prime factor over 7. */
gboolean clr_fft_smooth_ok (size_t n);

/* The n / 2 + 1 bins X[k] = sum_j x[j] e^(-2 pi i j k / n) of x (n_x <= n
 * samples) zero-padded to n points, n even and clr_fft_smooth_ok (); out
 * holds n + 2 doubles (re, im pairs). */
void clr_fft_smooth_real (const double *x, size_t n_x, size_t n,
    double *out);

G_END_DECLS
#endif
