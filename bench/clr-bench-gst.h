/* clresample benchmarks: the GStreamer helpers clr-fir-bench and
 * clr-crossover-bench share. */
#ifndef __CLR_BENCH_GST_H__
#define __CLR_BENCH_GST_H__

#include <gst/gst.h>

/* Interleaved float caps, unpositioned channels (valid for any count) */
static inline gchar *
clr_bench_caps_string (gboolean f64, int rate, guint channels)
{
  return g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=%d,channels=%u,channel-mask=(bitmask)0", f64 ? "F64LE" : "F32LE",
      rate, channels);
}

/* Sets a filter the way an application does: the `kernel` property, a
 * GValueArray of doubles, as audiofirfilter (and clfirfilter) have it. */
static inline void
clr_bench_set_kernel (GstElement * el, const double *h, size_t taps)
{
  GValueArray *va;
  GValue v = G_VALUE_INIT;
  size_t i;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  va = g_value_array_new (taps);
  g_value_init (&v, G_TYPE_DOUBLE);
  for (i = 0; i < taps; i++) {
    g_value_set_double (&v, h[i]);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  g_object_set (el, "kernel", va, NULL);
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

#endif
