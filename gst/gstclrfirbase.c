/* clresample: the base class of the convolution elements. See
 * gstclrfirbase.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclrfirbase.h"
#include "gstclrcommon.h"

GST_DEBUG_CATEGORY_STATIC (clr_fir_base_debug);
#define GST_CAT_DEFAULT clr_fir_base_debug

#define gst_clr_fir_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_CODE (GstClrFirBase, gst_clr_fir_base,
    GST_TYPE_AUDIO_FILTER, GST_DEBUG_CATEGORY_INIT (clr_fir_base_debug,
        "clrfirbase", 0, "clfirfilter and clcrossover's stream"));

static void gst_clr_fir_base_finalize (GObject * object);
static gboolean gst_clr_fir_base_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static GstFlowReturn gst_clr_fir_base_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_clr_fir_base_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static gboolean gst_clr_fir_base_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_clr_fir_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);

static void
gst_clr_fir_base_set_bus (GstElement * element, GstBus * bus)
{
  gst_clr_set_bus_prefetching (GST_ELEMENT_CLASS
      (gst_clr_fir_base_parent_class), element, bus,
      gst_clr_host_serves_conv ());
}

static void
gst_clr_fir_base_class_init (GstClrFirBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_clr_fir_base_finalize;
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_clr_fir_base_transform_size);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_clr_fir_base_transform);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_clr_fir_base_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_clr_fir_base_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_clr_fir_base_query);
  GST_ELEMENT_CLASS (klass)->set_bus =
      GST_DEBUG_FUNCPTR (gst_clr_fir_base_set_bus);
}

static void
gst_clr_fir_base_init (GstClrFirBase * self)
{
  self->stream.owner = GST_OBJECT (self);
  gst_clr_run_reset (&self->stream.run);
  gst_audio_info_init (&self->stream.in_info);
  gst_audio_info_init (&self->stream.out_info);
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_clr_fir_base_finalize (GObject * object)
{
  gst_clr_fir_stream_clear (&GST_CLR_FIR_BASE (object)->stream);
  /* the process may exit next (gst_clr_set_bus_prefetching ()) */
  clr_device_prefetch_wait ();
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
reset_run (GstClrFirBase * self)
{
  GST_CLR_FIR_BASE_GET_CLASS (self)->reset_run (self);
}

GstFlowReturn
gst_clr_fir_base_drain (GstClrFirBase * self)
{
  GstClrFirStream *s = &self->stream;
  GstBuffer *buf = NULL;
  GstFlowReturn ret;

  if (!s->conv || !s->run.started)
    return GST_FLOW_OK;
  ret = gst_clr_fir_stream_drain (GST_BASE_TRANSFORM (self), s, &buf);
  reset_run (self);
  if (buf)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
  return gst_clr_run_note_flow (&s->run, GST_OBJECT (self), ret);
}

static gboolean
gst_clr_fir_base_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize)
{
  return gst_clr_fir_stream_transform_size (&GST_CLR_FIR_BASE (trans)->stream,
      direction, caps, size, othercaps, othersize);
}

static GstFlowReturn
gst_clr_fir_base_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return gst_clr_fir_stream_transform (trans,
      &GST_CLR_FIR_BASE (trans)->stream, inbuf, outbuf);
}

/* Input that completes no output frame yet (the first B + latency) is no
 * loss (gst_clr_generate_output ()). */
static GstFlowReturn
gst_clr_fir_base_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  return gst_clr_generate_output (GST_BASE_TRANSFORM_CLASS (parent_class),
      trans, outbuf);
}

/* An event that ends the run (EOS, new caps or segment, a new stream:
 * gst_clr_event_ends_run ()) drains first, so that the tail goes out with
 * the old run's timestamps before it; FLUSH_STOP resets. */
static gboolean
gst_clr_fir_base_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClrFirBase *self = GST_CLR_FIR_BASE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
    case GST_EVENT_SEGMENT:
    case GST_EVENT_STREAM_START:
      if (gst_clr_event_ends_run (trans, event))
        gst_clr_fir_base_drain (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      reset_run (self);
      self->stream.run.pending_flow = GST_FLOW_OK;
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The latency, D = B + the compensated delay: what output frame t waits
 * for (input up to frame t + the compensated delay, then a whole block).
 * From any thread: what the streaming thread published. */
static gboolean
gst_clr_fir_base_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  gboolean res;

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY
      && gst_clr_query_latency (trans, query,
          &GST_CLR_FIR_BASE (trans)->stream.latency, &res))
    return res;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}
