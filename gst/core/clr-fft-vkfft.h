/* clresample: batched real FFTs on an OpenCL device through VkFFT.
 *
 * A thin wrapper around VkFFT's OpenCL backend (Debian libvkfft-dev,
 * header-only): one plan is a batched, in-place, 1-D real transform of n
 * points over `batch` rows of a buffer, forward (R2C) and inverse (C2R),
 * in float or double. Row r holds n reals at r * (n + 2) samples; the
 * forward transform leaves its n / 2 + 1 complex values (re, im pairs) in
 * the same place, the inverse takes them back to n reals, unnormalised
 * (n times the input of the forward transform).
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
#include "clr-device.h"

G_BEGIN_DECLS

typedef enum {
  CLR_FFT_F32,                  /* float in memory and arithmetic */
  CLR_FFT_F32_DOUBLE_MATH,      /* float in memory, double arithmetic */
  CLR_FFT_F64,                  /* double throughout */
} ClrFftPrecision;

typedef struct _ClrFftVkfft ClrFftVkfft;

/* Samples a row takes: n reals, or n / 2 + 1 complex values. */
static inline size_t
clr_fft_vkfft_row_stride (size_t n)
{
  return n + 2;
}

/* A plan for `batch` rows of n points (n even) in `buffer`, which holds
 * batch * (n + 2) samples at least; `temp` (the same size, or NULL: VkFFT
 * allocates its own where it needs one) is the scratch of transforms too
 * long for one pass. Fails with CLR_ERROR_INVALID for sizes VkFFT refuses,
 * CLR_ERROR_RESOURCES when it runs out of memory, CLR_ERROR_BUILD when its
 * kernels do not compile, CLR_ERROR_FAILED otherwise. */
ClrFftVkfft *clr_fft_vkfft_new (ClrDevice * dev, size_t n, size_t batch,
    ClrFftPrecision precision, cl_mem buffer, cl_mem temp, GError ** error);
void clr_fft_vkfft_free (ClrFftVkfft * p);

/* Appends the forward (R2C) or inverse (C2R) transform of every row of
 * buffer (the plan's, or another of the same size) to the queue. */
gboolean clr_fft_vkfft_forward (ClrFftVkfft * p, cl_mem buffer,
    GError ** error);
gboolean clr_fft_vkfft_inverse (ClrFftVkfft * p, cl_mem buffer,
    GError ** error);

/* Seconds clr_fft_vkfft_new () took to build the plan. */
double clr_fft_vkfft_build_seconds (ClrFftVkfft * p);

/* Plans for one device, one buffer and its scratch, by (n, batch,
 * precision): built on first use, freed with the cache. */
typedef struct _ClrFftVkfftCache ClrFftVkfftCache;

ClrFftVkfftCache *clr_fft_vkfft_cache_new (ClrDevice * dev);
void clr_fft_vkfft_cache_free (ClrFftVkfftCache * cache);
/* The cached plan, built now if there is none; it belongs to the cache. */
ClrFftVkfft *clr_fft_vkfft_cache_get (ClrFftVkfftCache * cache, size_t n,
    size_t batch, ClrFftPrecision precision, cl_mem buffer, cl_mem temp,
    GError ** error);
/* Seconds spent building the cache's plans so far. */
double clr_fft_vkfft_cache_build_seconds (ClrFftVkfftCache * cache);

G_END_DECLS
#endif
