/* clresample: the sample formats. See clr-format.h. */
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
