/* clresample: following a source's clock (gstclrdrift.h). */
#include "gstclrdrift.h"

GST_DEBUG_CATEGORY_STATIC (clr_drift_debug);
#define GST_CAT_DEFAULT clr_drift_debug

void
gst_clr_drift_init (GstClrDrift * d, GstClockTime delay, gdouble notify_ppm)
{
  static gsize once;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (clr_drift_debug, "clresample-drift", 0,
        "clresample's drift-following loop");
    g_once_init_leave (&once, 1);
  }
  clr_drift_loop_init (&d->loop, (gdouble) delay / GST_SECOND);
  d->delay = delay;
  d->notify_ppm = notify_ppm;
  d->posted = FALSE;
  d->posted_ppm = 0.0;
  d->posted_locked = FALSE;
  d->drift_ppm = 0.0;
  gst_clr_drift_restart (d);
}

void
gst_clr_drift_restart (GstClrDrift * d)
{
  clr_drift_loop_restart (&d->loop);
  d->last_pts = GST_CLOCK_TIME_NONE;
  d->last_frames = 0;
}

void
gst_clr_drift_note (GstClrDrift * d, GstBuffer * buf, guint64 frames)
{
  d->last_pts = GST_BUFFER_PTS (buf);
  d->last_frames = frames;
}

static void
post_drift (GstClrDrift * d, GstElement * element, gdouble ppm,
    gboolean locked)
{
  GstStructure *s;

  d->posted = TRUE;
  d->posted_ppm = ppm;
  d->posted_locked = locked;
  s = gst_structure_new ("clresample-drift",
      "drift", G_TYPE_DOUBLE, ppm,
      "locked", G_TYPE_BOOLEAN, locked,
      "error", G_TYPE_INT64,
      (gint64) (clr_drift_loop_get_error (&d->loop) * GST_SECOND),
      "factor", G_TYPE_DOUBLE, clr_drift_loop_get_factor (&d->loop), NULL);
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
}

gdouble
gst_clr_drift_measure (GstClrDrift * d, GstElement * element,
    GstBuffer * buf, GstClockTime out_time, gdouble lag_frames, gint in_rate)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gdouble e, dt, in_time, ppm;
  gboolean locked;

  if (!GST_CLOCK_TIME_IS_VALID (pts) || !GST_CLOCK_TIME_IS_VALID (out_time))
    return clr_drift_loop_get_factor (&d->loop);
  /* the input's time of the output's next frame: buf's timestamp, less
   * the frames between, at the source's rate as measured (a nominal rate
   * here would make the delay depend on how much input is held) */
  in_time = (gdouble) pts / GST_SECOND - lag_frames / (in_rate *
      (1.0 + clr_drift_loop_get_drift_ppm (&d->loop) * 1e-6));
  e = (gdouble) out_time / GST_SECOND - in_time;
  dt = d->loop.started && GST_CLOCK_TIME_IS_VALID (d->last_pts) ?
      (gdouble) GST_CLOCK_DIFF (d->last_pts, pts) / GST_SECOND : 0.0;
  clr_drift_loop_update (&d->loop, e, MAX (dt, 0.0));
  ppm = clr_drift_loop_get_drift_ppm (&d->loop);
  locked = clr_drift_loop_is_locked (&d->loop);
  GST_LOG_OBJECT (element, "delay %.1f us, drift %+.3f ppm, factor %.9f%s",
      e * 1e6, ppm, clr_drift_loop_get_factor (&d->loop),
      locked ? " (locked)" : "");
  GST_OBJECT_LOCK (element);
  d->drift_ppm = ppm;
  GST_OBJECT_UNLOCK (element);
  if (!d->posted || locked != d->posted_locked
      || ABS (ppm - d->posted_ppm) >= d->notify_ppm)
    post_drift (d, element, ppm, locked);
  return clr_drift_loop_get_factor (&d->loop);
}

gdouble
gst_clr_drift_get_factor (GstClrDrift * d)
{
  return clr_drift_loop_get_factor (&d->loop);
}
