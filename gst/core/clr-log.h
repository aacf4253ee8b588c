/* clresample: logging hook, so the GStreamer-free core can report into
 * whatever debug system its user has (the element routes it to GST_DEBUG). */
#ifndef __CLR_LOG_H__
#define __CLR_LOG_H__

#include <glib.h>

typedef enum {
  CLR_LOG_ERROR = 1,
  CLR_LOG_WARNING = 2,
  CLR_LOG_INFO = 4,
  CLR_LOG_DEBUG = 5,
} ClrLogLevel;

typedef void (*ClrLogFunc) (ClrLogLevel level, const char *message);

/* NULL restores the default, which prints errors and warnings to stderr. */
void clr_log_set_func (ClrLogFunc func);
void clr_log (ClrLogLevel level, const char *format, ...) G_GNUC_PRINTF (2, 3);

#endif
