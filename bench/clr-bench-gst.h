/* clresample benchmarks: the GStreamer helpers clr-fir-bench and
 * clr-crossover-bench share. */
#ifndef __CLR_BENCH_GST_H__
#define __CLR_BENCH_GST_H__

#include <gst/gst.h>
#include "clr-bench-util.h"

/* Interleaved float caps, unpositioned channels (valid for any count) */
static inline gchar *
clr_bench_caps_string (gboolean f64, int rate, guint channels)
{
  return g_strdup_printf ("audio/x-raw,format=%s,layout=interleaved,"
      "rate=%d,channels=%u,channel-mask=(bitmask)0", f64 ? "F64LE" : "F32LE",
      rate, channels);
}

/* The taps as the kernel property takes them, a GValueArray of doubles:
 * build it once for many elements, a million taps being 24 MB of
 * GValues. */
static inline GValueArray *
clr_bench_kernel_array (const double *h, size_t taps)
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
  G_GNUC_END_IGNORE_DEPRECATIONS;
  return va;
}

/* Sets a filter the way an application does: the `kernel` property, as
 * audiofirfilter (and clfirfilter) have it. */
static inline void
clr_bench_set_kernel (GstElement * el, const double *h, size_t taps)
{
  GValueArray *va = clr_bench_kernel_array (h, taps);

  g_object_set (el, "kernel", va, NULL);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  g_value_array_free (va);
  G_GNUC_END_IGNORE_DEPRECATIONS;
}

/* Per-block cost of an element inside a running pipeline: the time from
 * a buffer reaching its sink pad to its first output leaving its src pad
 * (one streaming thread runs both, so this is the element's own work for
 * the block, not the source's or the sink's). */
typedef struct
{
  GArray *us;                   /* doubles, in arrival order */
  gint64 t_in;                  /* monotonic us of the pending input; 0 */
} ClrBlockTimes;

static inline GstPadProbeReturn
clr_block_times_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((ClrBlockTimes *) data)->t_in = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

static inline GstPadProbeReturn
clr_block_times_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ClrBlockTimes *b = data;

  if (b->t_in) {
    double us = (double) (g_get_monotonic_time () - b->t_in);
    g_array_append_val (b->us, us);
    b->t_in = 0;
  }
  return GST_PAD_PROBE_OK;
}

static inline void
clr_block_times_attach (ClrBlockTimes * b, GstElement * el)
{
  GstPad *sink = gst_element_get_static_pad (el, "sink");
  GstPad *src = gst_element_get_static_pad (el, "src");

  b->us = g_array_new (FALSE, FALSE, sizeof (double));
  b->t_in = 0;
  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, clr_block_times_in, b,
      NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, clr_block_times_out, b,
      NULL);
  gst_object_unref (sink);
  gst_object_unref (src);
}

/* Median, 99th percentile and (mean != NULL) mean in us, the first block
 * (kernel builds, first allocations) left out; NAN without blocks. Frees
 * the times. */
static inline void
clr_block_times_finish (ClrBlockTimes * b, double *median, double *p99,
    double *mean)
{
  *median = *p99 = NAN;
  if (mean)
    *mean = NAN;
  if (b->us && b->us->len > 1) {
    double *v = (double *) b->us->data + 1, sum = 0.0;
    const guint n = b->us->len - 1;
    guint i;

    for (i = 0; i < n; i++)
      sum += v[i];
    if (mean)
      *mean = sum / n;

    qsort (v, n, sizeof (double), cmp_double);
    *median = percentile (v, n, 0.5);
    *p99 = percentile (v, n, 0.99);
  }
  if (b->us)
    g_array_unref (b->us);
  b->us = NULL;
}

#endif
