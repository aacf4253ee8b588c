/* clresample: the sample formats the engines take, GStreamer-free. */
#ifndef __CLR_FORMAT_H__
#define __CLR_FORMAT_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

/* The most channels a stream may have: what the engines' per-channel
 * arrays on the stack hold. */
#define CLR_CHANNELS_MAX 1024u

typedef enum {
  CLR_FORMAT_F32,
  CLR_FORMAT_F64,               /* needs cl_khr_fp64; runs double kernels */
  CLR_FORMAT_S16,
  CLR_FORMAT_S32,
  CLR_FORMAT_S24_32,            /* 24-bit samples in the low bits of 32 */
} ClrFormat;

/* Bytes per sample of a format. */
size_t clr_format_size (ClrFormat format);

/* n frames of ch interleaved samples of ss bytes into ch planes. */
void clr_deinterleave (char *const *planes, const void *src, size_t n,
    size_t ch, size_t ss);

G_END_DECLS
#endif
