/* clresample: the base class of the elements built on the convolution
 * engine (clfirfilter, clcrossover), as GstAudioFXBaseFIRFilter is for
 * audiofirfilter. It owns the stream (gstclrfirstream.h: host conversion,
 * the engine's latency hidden, timestamps from counters, GAP, drain,
 * filter changes) and answers basetransform's buffer, size, event and
 * latency vfuncs with it; a subclass designs the filters, negotiates and
 * says what a new run is (reset_run). */
#ifndef __GST_CLR_FIR_BASE_H__
#define __GST_CLR_FIR_BASE_H__

#include <gst/gst.h>
#include <gst/audio/gstaudiofilter.h>
#include "gstclrfirstream.h"

G_BEGIN_DECLS

#define GST_TYPE_CLR_FIR_BASE (gst_clr_fir_base_get_type ())
#define GST_CLR_FIR_BASE(obj) \
  (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_CLR_FIR_BASE, GstClrFirBase))
#define GST_CLR_FIR_BASE_CLASS(klass) \
  (G_TYPE_CHECK_CLASS_CAST ((klass), GST_TYPE_CLR_FIR_BASE, \
      GstClrFirBaseClass))
#define GST_CLR_FIR_BASE_GET_CLASS(obj) \
  (G_TYPE_INSTANCE_GET_CLASS ((obj), GST_TYPE_CLR_FIR_BASE, \
      GstClrFirBaseClass))

typedef struct _GstClrFirBase GstClrFirBase;
typedef struct _GstClrFirBaseClass GstClrFirBaseClass;

struct _GstClrFirBase
{
  GstAudioFilter parent;

  /* the stream, only touched from the streaming thread (and start/stop);
   * the subclass sets its device, formats and block and hands it its
   * convolution (gst_clr_fir_stream_setup ()) */
  GstClrFirStream stream;
};

struct _GstClrFirBaseClass
{
  GstAudioFilterClass parent_class;

  /* A new run: gst_clr_fir_stream_reset () with the element's compensated
   * delay, and whatever else the element keeps a run. Called after a
   * drain, at FLUSH_STOP and whenever the subclass asks for one. */
  void (*reset_run) (GstClrFirBase * base);
};

GType gst_clr_fir_base_get_type (void);

/* Drains the run (when it started): the frames it still owes (N in, N
 * out) are pushed, after the run is reset with reset_run. A failed push
 * is returned upstream by the next buffer (it may come from an event,
 * which has no flow to return). */
GstFlowReturn gst_clr_fir_base_drain (GstClrFirBase * base);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GstClrFirBase, gst_object_unref)

G_END_DECLS
#endif
