#include <stdio.h>
#include "clr-log.h"

static ClrLogFunc log_func;

void
clr_log_set_func (ClrLogFunc func)
{
  g_atomic_pointer_set (&log_func, func);
}

void
clr_log (ClrLogLevel level, const char *format, ...)
{
  ClrLogFunc func = g_atomic_pointer_get (&log_func);
  va_list args;
  char *msg;

  if (!func && level > CLR_LOG_WARNING)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (func)
    func (level, msg);
  else
    fprintf (stderr, "clresample: %s\n", msg);
  g_free (msg);
}
