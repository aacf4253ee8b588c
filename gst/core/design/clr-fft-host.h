/* clresample: the spectrum of a real signal on the host, in double.
 *
 * For filter spectra computed at set-up (the streaming and the offline
 * convolutions', a crossover's bands), the minimum-phase designs' cepstra
 * (clr-phase.c, forward and inverse) and the host's own streaming
 * convolution on CPUs (conv/clr-conv-host.h), where it runs every block:
 * a complex FFT of half the length (the real input's even and odd samples
 * as one complex signal) in Stockham's self-sorting order, radix 4 (one
 * radix-2 pass where log2 of its length is odd), on split real and
 * imaginary arrays so that the inner loops run in vectors. Every twiddle
 * is taken from cos/sin rather than a recurrence, so the error stays near
 * the double rounding of the inputs at millions of points.
 */
#ifndef __CLR_FFT_HOST_H__
#define __CLR_FFT_HOST_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* The hot loops of the host's transforms and sums built three times on
 * x86-64, for its baseline, for AVX2 with FMA (x86-64-v3) and for AVX-512
 * (x86-64-v4), chosen at load time: the baseline alone has 2 doubles a
 * vector, AVX-512 8 (on a 2-core EPYC the convolution of 65536 taps at
 * B = 256 took 10 % less CPU time than with AVX2, its output the same). Not under ThreadSanitizer:
 * GCC instruments the clones' resolver, which the loader runs before the
 * sanitizer's runtime is up, and a test program linked with these loops
 * crashed before main (). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) \
    && __GNUC__ >= 12 && defined(__linux__) && !defined(__SANITIZE_THREAD__)
#define CLR_HAVE_VECTOR_CLONES 1
#define CLR_VECTOR_CLONES \
  __attribute__ ((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", \
              "default")))
#else
#define CLR_VECTOR_CLONES
#endif

/* The n / 2 + 1 bins X[k] = sum_j x[j] e^(-2 pi i j k / n) of x (n_x <= n
 * samples) zero-padded to n points, n a power of two of 2 or more; out
 * holds n + 2 doubles (re, im pairs). */
/* Which of the CLR_VECTOR_CLONES this machine runs ("x86-v4": AVX-512;
 * "x86-v3": AVX2 and FMA; "x86"; "any"): they may round differently, so
 * what is kept of their results on disk names it */
const char *clr_fft_host_variant (void);

/* n doubles for a transform's arrays, NULL where out of memory (g_free ()
 * frees them). From 2 MiB up they are asked for in transparent huge pages
 * (madvise: Linux's THP mode by default in Debian gives them only on
 * request): a fresh process first touching the 60 MB of a 2^20-point
 * phase design page by page spent about 200 ms in page faults on a 2-core
 * VM (quality 10's minimum phase with the caches off: 520 -> 312 ms with
 * glibc's own switch for the same, glibc.malloc.hugetlb=1). */
double *clr_fft_host_alloc (size_t n);

/* Transforms of this many complex points and more (the phase designs',
 * 2^17 to 2^20; the streaming convolution's are at most 2^14) cut each
 * pass, and the loops around them, in parts on the process's workers
 * (clr-workers.h); the phase designs' own loops over their bins too
 * (clr-phase.c). Every point is computed as on one thread, so the result
 * is the same bit for bit whatever the parts. On the 2-core VM a cold
 * quality-10 design spent 40 % of its time in the kernel clearing fresh
 * pages and a third in the passes, both memory-bound on one core. */
#define CLR_FFT_HOST_PARALLEL ((size_t) 1 << 16)

void clr_fft_host_real (const double *x, size_t n_x, size_t n, double *out);

/* The same for many signals of one n (a long filter's partitions): the
 * twiddles are taken once. One plan serves one thread at a time. */
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

/* The streaming convolution's forms, on split arrays: run ()'s bins as
 * re[0..n/2] and im[0..n/2], of x read as doubles (x64) or floats, sample
 * t at x + t step. */
void clr_fft_host_real_split (ClrFftHostReal * plan, const void *x,
    gboolean x64, size_t step, size_t n_x, double *re, double *im);
/* inverse_run ()'s samples times n / 2 (the scale left to the caller, who
 * can fold it into a filter's spectrum), from split bins. */
void clr_fft_host_real_inverse_split (ClrFftHostReal * plan,
    const double *re, const double *im, double *x);

G_END_DECLS
#endif
