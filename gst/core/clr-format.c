/* clresample: the sample formats. See clr-format.h. */
#include <math.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "clr-format.h"

size_t
clr_format_size (ClrFormat format)
{
  switch (format) {
    case CLR_FORMAT_S16:
      return 2;
    case CLR_FORMAT_F64:
      return 8;
    default:
      return 4;
  }
}

/* Two channels of four-byte samples, nearly every stream's layout: four
 * frames a step where SSE2 is there. The sample-by-sample loop took 7 % of
 * a 256-stream process's CPU on an H200 machine (perf); this ran those
 * streams 1.04x as fast (three rounds: 3886 / 4133 / 3923 stream-seconds
 * a second against 3833 / 3964 / 3736). The shuffles move
 * bits; no arithmetic touches the samples. `stream`: non-temporal stores
 * (the destination is read much later, if ever: the input history), which
 * neither read the lines first nor push the other streams' data out of
 * the caches. */
static void
deinterleave_2x4 (guint32 * a, guint32 * b, const guint32 * src, size_t n,
    gboolean stream)
{
  size_t i = 0;

#ifdef __SSE2__
  /* both planes reach 16-byte alignment at the same frame, or neither */
  stream = stream && ((((uintptr_t) a ^ (uintptr_t) b) & 15) == 0);
  for (; stream && i < n && ((uintptr_t) (a + i) & 15); i++) {
    a[i] = src[2 * i];
    b[i] = src[2 * i + 1];
  }
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps ((const float *) src + 2 * i);
    const __m128 y = _mm_loadu_ps ((const float *) src + 2 * i + 4);
    const __m128 l = _mm_shuffle_ps (x, y, _MM_SHUFFLE (2, 0, 2, 0));
    const __m128 r = _mm_shuffle_ps (x, y, _MM_SHUFFLE (3, 1, 3, 1));

    if (stream) {
      _mm_stream_ps ((float *) (a + i), l);
      _mm_stream_ps ((float *) (b + i), r);
    } else {
      _mm_storeu_ps ((float *) (a + i), l);
      _mm_storeu_ps ((float *) (b + i), r);
    }
  }
  if (stream)
    _mm_sfence ();
#endif
  for (; i < n; i++) {
    a[i] = src[2 * i];
    b[i] = src[2 * i + 1];
  }
}

static void
deinterleave (char *const *planes, const void *src, size_t n, size_t ch,
    size_t ss, gboolean stream)
{
  size_t c, i;

  if (ch == 2 && ss == 4) {
    deinterleave_2x4 ((guint32 *) planes[0], (guint32 *) planes[1], src, n,
        stream);
    return;
  }
  switch (ss) {
    case 2:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint16 *) planes[c])[i] = ((const guint16 *) src)[i * ch + c];
      break;
    case 4:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint32 *) planes[c])[i] = ((const guint32 *) src)[i * ch + c];
      break;
    default:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint64 *) planes[c])[i] = ((const guint64 *) src)[i * ch + c];
      break;
  }
}

void
clr_deinterleave (char *const *planes, const void *src, size_t n, size_t ch,
    size_t ss)
{
  deinterleave (planes, src, n, ch, ss, FALSE);
}

void
clr_deinterleave_stream (char *const *planes, const void *src, size_t n,
    size_t ch, size_t ss)
{
  deinterleave (planes, src, n, ch, ss, TRUE);
}

/* ---- samples to and from the engines' floats -------------------------- */

/* A sample's value as the engine sees it, in double. */
#define IN_F32(v) ((double) (v))
#define IN_F64(v) (v)
#define IN_S16(v) ((v) * (1.0 / 32768.0))
#define IN_S32(v) ((v) * (1.0 / 2147483648.0))
/* the low 24 bits, whatever the top byte holds */
#define IN_S24_32(v) \
  ((gint32) ((guint32) (v) << 8) * (1.0 / 2147483648.0))

#define DEFINE_IN(name, type, conv) \
static void \
in_##name##_f (const void *src, size_t src_step, void *dst, \
    size_t dst_step, size_t n) \
{ \
  size_t i; \
  for (i = 0; i < n; i++) \
    ((float *) dst)[i * dst_step] = \
        (float) conv (((const type *) src)[i * src_step]); \
} \
static void \
in_##name##_d (const void *src, size_t src_step, void *dst, \
    size_t dst_step, size_t n) \
{ \
  size_t i; \
  for (i = 0; i < n; i++) \
    ((double *) dst)[i * dst_step] = \
        conv (((const type *) src)[i * src_step]); \
}

DEFINE_IN (f32, float, IN_F32)
DEFINE_IN (f64, double, IN_F64)
DEFINE_IN (s16, gint16, IN_S16)
DEFINE_IN (s32, gint32, IN_S32)
DEFINE_IN (s24_32, gint32, IN_S24_32)

/* rounded to nearest even, saturated to [lo, hi], NaN to 0 */
static inline double
to_int (double v, double scale, double lo, double hi)
{
  v = nearbyint (v * scale);
  if (isnan (v))
    return 0.0;
  return CLAMP (v, lo, hi);
}

#define OUT_F32(v) ((float) (v))
#define OUT_F64(v) (v)
#define OUT_S16(v) ((gint16) to_int ((v), 32768.0, -32768.0, 32767.0))
#define OUT_S32(v) \
  ((gint32) to_int ((v), 2147483648.0, -2147483648.0, 2147483647.0))
#define OUT_S24_32(v) \
  ((gint32) to_int ((v), 8388608.0, -8388608.0, 8388607.0))

#define DEFINE_OUT(name, type, conv) \
static void \
out_##name##_f (const void *src, size_t src_step, void *dst, \
    size_t dst_step, size_t n) \
{ \
  size_t i; \
  for (i = 0; i < n; i++) \
    ((type *) dst)[i * dst_step] = \
        conv ((double) ((const float *) src)[i * src_step]); \
} \
static void \
out_##name##_d (const void *src, size_t src_step, void *dst, \
    size_t dst_step, size_t n) \
{ \
  size_t i; \
  for (i = 0; i < n; i++) \
    ((type *) dst)[i * dst_step] = \
        conv (((const double *) src)[i * src_step]); \
}

DEFINE_OUT (f32, float, OUT_F32)
DEFINE_OUT (f64, double, OUT_F64)
DEFINE_OUT (s16, gint16, OUT_S16)
DEFINE_OUT (s32, gint32, OUT_S32)
DEFINE_OUT (s24_32, gint32, OUT_S24_32)

ClrSampleIn
clr_format_sample_in (ClrFormat format, gboolean dbl)
{
  switch (format) {
    case CLR_FORMAT_F32:
      return dbl ? in_f32_d : in_f32_f;
    case CLR_FORMAT_F64:
      return dbl ? in_f64_d : in_f64_f;
    case CLR_FORMAT_S16:
      return dbl ? in_s16_d : in_s16_f;
    case CLR_FORMAT_S32:
      return dbl ? in_s32_d : in_s32_f;
    default:
      return dbl ? in_s24_32_d : in_s24_32_f;
  }
}

ClrSampleOut
clr_format_sample_out (ClrFormat format, gboolean dbl)
{
  switch (format) {
    case CLR_FORMAT_F32:
      return dbl ? out_f32_d : out_f32_f;
    case CLR_FORMAT_F64:
      return dbl ? out_f64_d : out_f64_f;
    case CLR_FORMAT_S16:
      return dbl ? out_s16_d : out_s16_f;
    case CLR_FORMAT_S32:
      return dbl ? out_s32_d : out_s32_f;
    default:
      return dbl ? out_s24_32_d : out_s24_32_f;
  }
}
