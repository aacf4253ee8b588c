/* clresample: the spectrum of a real signal on the host, in double.
 *
 * For filter spectra computed at set-up (the streaming and the offline
 * convolutions', a crossover's bands) and the minimum-phase designs'
 * cepstra (clr-phase.c, forward and inverse): a radix-2 FFT of half the
 * length (the real input's even and odd samples as one complex signal)
 * with every twiddle taken from cos/sin rather than a recurrence, so the
 * error stays near the double rounding of the inputs at millions of
 * points. A crossover's four 32768-
 * point spectra cost its set-up (and each live re-design) ~10 ms with a
 * full-length complex FFT.
 */
#ifndef __CLR_FFT_HOST_H__
#define __CLR_FFT_HOST_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* The n / 2 + 1 bins X[k] = sum_j x[j] e^(-2 pi i j k / n) of x (n_x <= n
 * samples) zero-padded to n points, n a power of two of 2 or more; out
 * holds n + 2 doubles (re, im pairs). */
void clr_fft_host_real (const double *x, size_t n_x, size_t n, double *out);

/* The same for many signals of one n (a long filter's partitions): the
 * twiddles, taken once, were most of a 1024-point transform's time. One
 * plan serves one thread at a time. */
typedef struct _ClrFftHostReal ClrFftHostReal;
ClrFftHostReal *clr_fft_host_real_new (size_t n);
void clr_fft_host_real_run (ClrFftHostReal * plan, const double *x,
    size_t n_x, double *out);
/* The inverse: x (n real samples) from its n / 2 + 1 bins (as run ()
 * gives them; the imaginary parts of bins 0 and n / 2 are taken as 0), with
 * the 1 / n scale: x[t] = 1/n sum_k X[k] e^(2 pi i t k / n) over the whole
 * Hermitian spectrum. */
void clr_fft_host_real_inverse_run (ClrFftHostReal * plan,
    const double *spec, double *x);
void clr_fft_host_real_free (ClrFftHostReal * plan);

G_END_DECLS
#endif
