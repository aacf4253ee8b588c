/* clresample: offline FIR convolution of whole signals on an OpenCL device,
 * GStreamer-free, on VkFFT's batched transforms.
 *
 * Unpartitioned overlap-save: one FFT size n for the whole filter, the
 * input cut into segments of n samples that overlap by taps - 1, every
 * segment of every channel transformed in one batch (VkFFT, complex
 * transforms of n / 2 points with the real split done beside the filter's
 * multiply), multiplied by its filter's spectrum, transformed back, and the
 * hop = n - taps + 1 valid samples of each kept. For signals that are on the device
 * already (or uploaded whole): the streaming engine (clr-conv.h) is the one
 * for buffers that arrive over time. docs/convolution.md, "Offline
 * convolution on VkFFT", has the design and the measurements.
 *
 * Output: y = x * h, the full linear convolution, y[t] = sum over k of
 * h[k] x[t - k] (x = 0 outside [0, frames)), frames + taps - 1 samples a
 * channel. A run writes its first out_frames (the _full calls; at most
 * frames + taps - 1) or its first `frames` (the others: as long as the
 * input, the tail cut off). Every call starts from silence: nothing is
 * kept from one call to the next.
 *
 * Samples are planar, float (F32) or double (F64). A ClrConvOffline is
 * used by one thread at a time; several share a device. Built only where
 * Meson finds vkFFT.h (HAVE_VKFFT in config.h).
 */
#ifndef __CLR_CONV_OFFLINE_H__
#define __CLR_CONV_OFFLINE_H__

#include <stdint.h>
#include <stddef.h>
#include "clr-conv.h"

G_BEGIN_DECLS

#define CLR_CONV_OFFLINE_CHANNELS_MAX 1024u
/* n at most: the kernels index a segment in 32 bits */
#define CLR_CONV_OFFLINE_FFT_MAX (1u << 28)

typedef enum {
  CLR_CONV_OFFLINE_AUTO = 0,
  CLR_CONV_OFFLINE_VKFFT,
  CLR_CONV_OFFLINE_FOURSTEP
} ClrConvOfflineTransforms;

typedef struct {
  uint32_t channels;
  ClrConvFormat format;
  /* n_filters filters of n_taps taps each: 1 (one filter for every
   * channel) or `channels` (filter c for channel c) */
  const double *const *taps;
  size_t n_taps;
  uint32_t n_filters;
  /* n >= n_taps, a multiple of 8 with no prime factor over 7 (VkFFT's
   * fast radices); 0: chosen (clr-conv-offline.c says how) */
  size_t fft_size;
  /* The most input frames a call takes (more are refused): sizes the work
   * buffers and clr_conv_offline_process ()'s device buffers. */
  size_t max_frames;
  /* Device memory for this object, bytes; 0: CLRESAMPLE_DEVICE_MEMORY
   * (none when unset). Work buffers are cut to fit it. */
  guint64 device_memory;
  /* F32: transforms in float arithmetic even where the device has doubles
   * (where it has, they compute in double by default, storing float: the
   * float ones' error reaches 1e-6 of the output RMS at 4096 points) */
  gboolean float_transforms;
  /* Whose transforms: the default picks (clr-conv-offline.c says how);
   * FOURSTEP asks for the object's own (powers of two from 2048 to 4M
   * points, on devices with doubles; anything else is refused), VKFFT for
   * VkFFT's. */
  ClrConvOfflineTransforms transforms;
} ClrConvOfflineConfig;

typedef struct _ClrConvOffline ClrConvOffline;

/* Fails with CLR_ERROR_INVALID for an invalid configuration (no channels,
 * no taps, a non-finite tap, a filter count other than 1 or channels, an
 * FFT size of other factors or shorter than the filter, no
 * max_frames, F64 on a device without doubles), CLR_ERROR_RESOURCES when
 * the filter spectra and one segment's buffers do not fit the memory, and
 * VkFFT's failures (clr-fft-vkfft.h). Builds the main transform plan. */
ClrConvOffline *clr_conv_offline_new (ClrDevice * dev,
    const ClrConvOfflineConfig * cfg, GError ** error);
void clr_conv_offline_free (ClrConvOffline * o);

/* Data on the device: channel c's input at in + c * frames samples, its
 * output y[0, frames) at out + c * frames. Enqueued on the device's queue;
 * the caller waits (clFinish). in and out must not overlap. */
gboolean clr_conv_offline_run (ClrConvOffline * o, cl_mem in, cl_mem out,
    size_t frames, GError ** error);

/* The same with pitches (samples from one channel to the next; in_pitch
 * >= frames, out_pitch >= out_frames) and y[0, out_frames), out_frames <=
 * frames + taps - 1: frames + taps - 1 gives the whole tail. */
gboolean clr_conv_offline_run_full (ClrConvOffline * o, cl_mem in,
    size_t in_pitch, cl_mem out, size_t out_pitch, size_t frames,
    size_t out_frames, GError ** error);

/* Host planes: uploads in (one plane a channel), runs, and reads y[0,
 * frames) back into out (one plane a channel), waiting for it all. */
gboolean clr_conv_offline_process (ClrConvOffline * o,
    const void *const *in, size_t frames, void *const *out, GError ** error);
/* ... and y[0, out_frames), out_frames <= frames + taps - 1. */
gboolean clr_conv_offline_process_full (ClrConvOffline * o,
    const void *const *in, size_t frames, void *const *out,
    size_t out_frames, GError ** error);

/* n, the FFT size in use. */
size_t clr_conv_offline_get_fft_size (ClrConvOffline * o);
/* Segments (channel and block pairs) a batch of transforms takes at most. */
size_t clr_conv_offline_get_batch (ClrConvOffline * o);
/* Seconds spent building VkFFT plans so far (creation's and any built by
 * a short last batch since). */
double clr_conv_offline_get_plan_seconds (ClrConvOffline * o);
/* Whether the object runs its own four-step transforms (not VkFFT's). */
gboolean clr_conv_offline_is_fourstep (ClrConvOffline * o);

G_END_DECLS
#endif
