/* clresample: following a source's clock (follow-drift, issue 48 item 2).
 *
 * The element's side of the drift-following loop (core/resample/
 * clr-drift-loop.h): per input buffer, the delay of the output's
 * sample-count timeline behind the input's timestamps, measured and
 * handed to the loop, whose factor then goes on the output rate; the
 * drift read for the `drift` property and the "clresample-drift" element
 * message; and the buffer before, against which a following stream's
 * discontinuities are checked rather than against the run's start (a
 * source 500 ppm fast is 40 ms off its sample count within 80 s, which
 * the check from the run's start would take for a jump). */
#ifndef __GST_CLR_DRIFT_H__
#define __GST_CLR_DRIFT_H__

#include <gst/gst.h>
#include "resample/clr-drift-loop.h"

G_BEGIN_DECLS

/* The most a following stream holds back (max-hold's cap): the loop sees
 * a factor act only once the input held is converted, so a hold delays
 * the loop by its length; half a second (max-hold's default) is 54
 * degrees at the loop's frequency, and put FM sidebands of -129 dB around
 * a tone whose fixed ratio gives -148 (tests/quality/clr-follow-quality);
 * 20 ms is 2 degrees */
#define GST_CLR_DRIFT_MAX_HOLD (20 * GST_MSECOND)

typedef struct
{
  ClrDriftLoop loop;
  GstClockTime delay;           /* the set point (drift-delay) */
  gdouble notify_ppm;           /* a message each change of this much */
  /* the buffer before in this run: NONE at a run's start */
  GstClockTime last_pts;
  guint64 last_frames;
  /* what the last message said */
  gboolean posted;
  gdouble posted_ppm;
  gboolean posted_locked;
  gdouble drift_ppm;            /* for the property: under the object lock */
} GstClrDrift;

/* A new stream: the loop at rest, holding output `delay` behind input */
void gst_clr_drift_init (GstClrDrift * d, GstClockTime delay,
    gdouble notify_ppm);
/* A new run (a seek, a discontinuity): the drift stays */
void gst_clr_drift_restart (GstClrDrift * d);
/* buf, of `frames` frames, is the buffer before the next: the run's
 * discontinuity check (gst_clr_is_discont ()) measures the next from
 * where it ended (last_pts, last_frames) */
void gst_clr_drift_note (GstClrDrift * d, GstBuffer * buf, guint64 frames);
/* Before buf is converted: the output's next frame is at out_time (the
 * run's start, the delay and its frames so far), made from the input
 * lag_frames before buf's first frame. Gives the loop the delay, posts
 * the message where the drift moved, and returns the factor for the
 * output rate from buf on. */
gdouble gst_clr_drift_measure (GstClrDrift * d, GstElement * element,
    GstBuffer * buf, GstClockTime out_time, gdouble lag_frames, gint in_rate);
/* the factor for a stream's start (the drift of the stream before) */
gdouble gst_clr_drift_get_factor (GstClrDrift * d);

G_END_DECLS
#endif
