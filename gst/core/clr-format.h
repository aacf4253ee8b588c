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
/* ... with stores that bypass the caches where the CPU has them: for
 * memory read much later, if at all */
void clr_deinterleave_stream (char *const *planes, const void *src,
    size_t n, size_t ch, size_t ss);

/* n samples of a format, `src_step` samples apart, into host engine
 * samples `dst_step` apart: float, or double (dbl). Integers are scaled
 * to [-1, 1) (full scale 2^15, 2^31; S24_32's low 24 bits, sign-extended,
 * 2^23), in double before a float engine rounds them. */
typedef void (*ClrSampleIn) (const void *src, size_t src_step, void *dst,
    size_t dst_step, size_t n);
/* n engine samples (float, or double) `src_step` apart into a format,
 * `dst_step` apart: integers rounded to nearest (even) and saturated,
 * NaN to 0, as clresample's kernels store. */
typedef void (*ClrSampleOut) (const void *src, size_t src_step, void *dst,
    size_t dst_step, size_t n);

/* The conversions for a format and an engine precision, chosen once (at a
 * stream's setup) rather than a switch a sample. */
ClrSampleIn clr_format_sample_in (ClrFormat format, gboolean dbl);
ClrSampleOut clr_format_sample_out (ClrFormat format, gboolean dbl);

G_END_DECLS
#endif
