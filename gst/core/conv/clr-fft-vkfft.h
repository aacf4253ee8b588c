/* clresample: batched real FFTs on an OpenCL device through VkFFT.
 *
 * A thin wrapper around VkFFT's OpenCL backend (Debian libvkfft-dev,
 * header-only): one plan is a batched, in-place, 1-D transform of n
 * points over `batch` rows of a buffer, forward and inverse, in float or
 * double, either real (R2C and C2R: row r holds n reals at r * (n + 2)
 * samples, and the forward transform leaves its n / 2 + 1 complex values,
 * re and im pairs, in the same place) or complex (row r holds n complex
 * values at r * 2n samples). The inverse is unnormalised: n times the
 * input of the forward transform.
 *
 * Transforms are appended to the device's in-order queue; the caller
 * waits. VkFFT generates and compiles a kernel per plan (about a second
 * on a GPU, more on PoCL), so plans are built once and kept in a cache.
 * Only this file's .c includes vkFFT.h (1.6 MB of C). Built only where
 * Meson finds vkFFT.h (HAVE_VKFFT).
 */
#ifndef __CLR_FFT_VKFFT_H__
#define __CLR_FFT_VKFFT_H__

#include <stddef.h>
#include "device/clr-device.h"

G_BEGIN_DECLS

typedef enum {
  CLR_FFT_F32,                  /* float in memory and arithmetic */
  CLR_FFT_F32_DOUBLE_MATH,      /* float in memory, double arithmetic */
  CLR_FFT_F64,                  /* double throughout */
} ClrFftPrecision;

typedef struct _ClrFftVkfft ClrFftVkfft;

/* Samples (reals) a row takes: n reals, or n / 2 + 1 complex values, for
 * a real transform; n complex values for a complex one. */
static inline size_t
clr_fft_vkfft_row_stride (size_t n, gboolean real)
{
  return real ? n + 2 : 2 * n;
}

/* A plan for `batch` rows of n points (real: n even) in `buffer`, which
 * holds batch rows at least; `temp` (the same size, or NULL: VkFFT
 * allocates its own where it needs one) is the scratch of transforms too
 * long for one pass. Fails with CLR_ERROR_INVALID for sizes VkFFT refuses,
 * CLR_ERROR_RESOURCES when it runs out of memory, CLR_ERROR_BUILD when its
 * kernels do not compile, CLR_ERROR_FAILED otherwise. */
ClrFftVkfft *clr_fft_vkfft_new (ClrDevice * dev, size_t n, size_t batch,
    ClrFftPrecision precision, gboolean real, cl_mem buffer, cl_mem temp,
    GError ** error);
void clr_fft_vkfft_free (ClrFftVkfft * p);

/* Appends the forward (R2C) or inverse (C2R, unnormalised) transform of
 * every row of buffer (the plan's, or another of the same size) to the queue. */
gboolean clr_fft_vkfft_forward (ClrFftVkfft * p, cl_mem buffer,
    GError ** error);
gboolean clr_fft_vkfft_inverse (ClrFftVkfft * p, cl_mem buffer,
    GError ** error);

/* Seconds clr_fft_vkfft_new () took to build the plan. */
double clr_fft_vkfft_build_seconds (ClrFftVkfft * p);

/* Plans for one device, one buffer and its scratch, by (n, batch,
 * precision, real): built on first use, freed with the cache. */
typedef struct _ClrFftVkfftCache ClrFftVkfftCache;

ClrFftVkfftCache *clr_fft_vkfft_cache_new (ClrDevice * dev);
void clr_fft_vkfft_cache_free (ClrFftVkfftCache * cache);
/* The cached plan, built now if there is none; it belongs to the cache. */
ClrFftVkfft *clr_fft_vkfft_cache_get (ClrFftVkfftCache * cache, size_t n,
    size_t batch, ClrFftPrecision precision, gboolean real, cl_mem buffer,
    cl_mem temp, GError ** error);
/* Seconds spent building the cache's plans so far. */
double clr_fft_vkfft_cache_build_seconds (ClrFftVkfftCache * cache);

G_END_DECLS
#endif
