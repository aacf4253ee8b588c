/* clresample: GStreamer element resampling audio on OpenCL devices. */
#ifndef __GST_CL_RESAMPLE_H__
#define __GST_CL_RESAMPLE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/audio/audio.h>
#include "core/resample/clr-engine.h"
#include "gstclrinputbatch.h"
#include "gstclrdrift.h"
#include "gstclrbuilder.h"
#include "gstclredge.h"
#include "gstclrcommon.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_RESAMPLE (gst_cl_resample_get_type ())
/* The filter's phase (the `phase` property). */
typedef enum {
  GST_CL_RESAMPLE_PHASE_LINEAR,
  GST_CL_RESAMPLE_PHASE_MINIMUM,
  GST_CL_RESAMPLE_PHASE_INTERMEDIATE,
} GstClResamplePhase;

GType gst_cl_resample_phase_get_type (void);

G_DECLARE_FINAL_TYPE (GstClResample, gst_cl_resample, GST, CL_RESAMPLE,
    GstBaseTransform);

struct _GstClResample
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gint quality;
  guint taps;
  gdouble cutoff;
  GstClResamplePhase phase;
  GstClockTime max_hold;
  gchar *device_spec;
  gboolean props_changed;       /* applied at the next buffer */
  gdouble rate_adjust;          /* the factor on the output rate asked for */
  gboolean adjust_changed;      /* rate_adjust set while running */
  gboolean follow_drift;        /* follow-drift */
  GstClockTime drift_delay;     /* drift-delay */
  gdouble drift_notify;         /* drift-notify, ppm */

  /* streaming state, only touched from the streaming thread (and from
   * start/stop, which basetransform serialises with it) */
  ClrDevice *device;            /* swapped under the object lock */
  gchar *device_spec_in_use;
  /* device is a CPU serving while device_spec_in_use's is being opened
   * (clr_device_acquire_interim ()), until the first caps say whether
   * the stream is live (then it moves once that one is open) or not
   * (then it waits for it: gst_cl_resample_settle_device ()) */
  gboolean device_interim;
  /* the builder is moving the stream off that stand-in: no buffer waits
   * for it (gst_cl_resample_apply_properties ()) */
  gboolean interim_move;
  /* that move, not yet given to the builder: not while a prefetch may be
   * loading a driver, whose hold on the dynamic loader would stall this
   * thread in the builder's pthread_create ()
   * (gst_cl_resample_before_transform ()) */
  gboolean move_pending;
  /* a device that could not be had, not tried again until the property
   * names another one (a later quality or taps change still applies) */
  gchar *device_spec_failed;
  /* quality, taps, cutoff and phase the engine was built with (the cutoff
   * as the property said) */
  gint engine_quality;
  guint engine_taps;
  gdouble engine_cutoff;
  GstClResamplePhase engine_phase;
  /* the running stream's ratio is variable (rate-adjust): set from the
   * first rate-adjust other than exactly 1.0 until the next new input
   * caps or stop (gst_cl_resample_set_caps ()), so that a return to 1.0
   * slews back within the same engine instead of switching filters */
  gboolean variable;
  gboolean engine_variable;     /* the engine in use runs one */
  /* the stream follows its source's clock (follow-drift when its caps
   * came): the loop's factor, not rate-adjust, on the output rate */
  gboolean following;
  GstClrDrift drift;
  /* the lowest factor the running (and the queued) engine's filter serves
   * without aliasing (ClrEngineConfig.adjust_low) */
  gdouble engine_adjust_low, queued_adjust_low;
  /* live changes of quality, taps and device: the new engine (and device)
   * built on a thread of its own while the old one plays on */
  GstClrBuilder builder;
  ClrEngine *engine;
  /* the latency a query from any thread answers, published whenever the
   * engine changes (gstclrcommon.h) */
  GstClrLatency latency;
  GstAudioInfo in_info;
  GstAudioInfo out_info;
  /* the negotiated formats to and from the engine's (gstclredge.h) */
  GstClrEdge in_edge, out_edge;
  /* timestamps' origin, DISCONT, a failed push of held or drained
   * output for transform () to return (gstclrcommon.h) */
  GstClrRun run;
  guint run_serial;             /* runs since start: which one a job saw */
  /* After an output-rate switch the new filter's first frame, join_frame,
   * lies up to one new period after where the old output ended, at
   * join_time: that buffer starts there instead, so the timestamps run on
   * without a hole. G_MAXUINT64: no switch pending. */
  guint64 join_frame;
  GstClockTime join_time;

  /* small buffers held back while the stream runs far ahead of real time,
   * to be converted in one launch (gstclrinputbatch.h) */
  GstClrInputBatch held;
  gboolean upstream_live;       /* asked at the start of each run */
  gsize hold_target;            /* frames the held batch may grow to */
  gboolean may_hold;            /* the buffer in hand may join the batch */
};

GST_ELEMENT_REGISTER_DECLARE (clresample);

G_END_DECLS
#endif
