/* clresample: the sample formats. See clr-format.h. */
#include <math.h>
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

void
clr_deinterleave (char *const *planes, const void *src, size_t n, size_t ch,
    size_t ss)
{
  size_t c, i;

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
