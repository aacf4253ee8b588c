/* clresample: helpers the plugin's elements share. See gstclrcommon.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclrcommon.h"
#include "gstclredge.h"
#include "clr-log.h"
#include "device/clr-tuning.h"

/* the core's own log (gst/core: devices, caches, designs, the engines),
 * whichever element the process runs */
GST_DEBUG_CATEGORY_STATIC (clr_core_debug);

static void
core_log (ClrLogLevel level, const char *message)
{
  GST_CAT_LEVEL_LOG (clr_core_debug, (GstDebugLevel) level, NULL, "%s",
      message);
}

void
gst_clr_core_log_init (void)
{
  GST_DEBUG_CATEGORY_INIT (clr_core_debug, "clresample-engine", 0,
      "the OpenCL devices, caches, filter design and engines of clresample, "
      "clfirfilter and clcrossover");
  clr_log_set_func (core_log);
}

gboolean
gst_clr_host_serves_conv (void)
{
  return clr_knob_or (clr_tuning_get ()->conv_host, 1) != 0;
}

gboolean
gst_clr_host_serves_resample (void)
{
  return clr_tuning_resample_host (clr_tuning_get ());
}

ClrDevice *
gst_clr_acquire_device (GstElement * element, const gchar * spec,
    gboolean host_serves)
{
  GError *err = NULL;
  ClrDevice *dev = host_serves ? clr_device_acquire_host (spec, &err) :
      clr_device_acquire (spec, &err);
  GstElementFactory *factory = gst_element_get_factory (element);

  if (dev) {
    GST_INFO_OBJECT (element, "using OpenCL device '%s'",
        clr_device_get_name (dev));
    return dev;
  }
  GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
      ("No usable OpenCL device for %s (device='%s')", factory ?
          GST_OBJECT_NAME (factory) : G_OBJECT_TYPE_NAME (element), spec),
      ("%s", err->message));
  g_error_free (err);
  return NULL;
}

/* the device the element's `device` names now, opened ahead */
static void
prefetch_named_device (GstElement * element, gboolean host_serves)
{
  gchar *spec = NULL;

  g_object_get (element, "device", &spec, NULL);
  if (host_serves)
    clr_device_prefetch_host (spec);
  else
    clr_device_prefetch (spec);
  g_free (spec);
}

void
gst_clr_set_bus_prefetching (GstElementClass * parent_class,
    GstElement * element, GstBus * bus, gboolean host_serves)
{
  parent_class->set_bus (element, bus);
  if (!bus) {
    /* taken out of its bin (the pipeline freed): the process may exit
     * next, and must not while a prefetch loads a driver (see
     * gst_clr_close_device ()) */
    clr_device_prefetch_wait ();
    return;
  }
  prefetch_named_device (element, host_serves);
}

void
gst_clr_prefetch_renamed (GstElement * element, gboolean host_serves)
{
  GstBus *bus = gst_element_get_bus (element);
  gboolean idle;

  if (!bus)
    return;
  gst_object_unref (bus);
  GST_OBJECT_LOCK (element);
  idle = GST_STATE (element) == GST_STATE_NULL &&
      GST_STATE_PENDING (element) == GST_STATE_VOID_PENDING;
  GST_OBJECT_UNLOCK (element);
  /* a started element opens it itself, at once */
  if (!idle)
    return;
  prefetch_named_device (element, host_serves);
}

gboolean
gst_clr_open_device (GstElement * element, gchar ** spec, ClrDevice ** device,
    gchar ** spec_used, gboolean host_serves)
{
  ClrDevice *dev;
  gchar *copy;

  GST_OBJECT_LOCK (element);
  copy = g_strdup (*spec);
  GST_OBJECT_UNLOCK (element);
  dev = gst_clr_acquire_device (element, copy, host_serves);
  if (dev) {
    GST_OBJECT_LOCK (element);
    *device = dev;
    GST_OBJECT_UNLOCK (element);
    g_object_notify (G_OBJECT (element), "device-name");
  }
  if (dev && spec_used) {
    g_free (*spec_used);
    *spec_used = copy;
  } else {
    g_free (copy);
  }
  return dev != NULL;
}

void
gst_clr_close_device (GstElement * element, ClrDevice ** device)
{
  ClrDevice *dev;

  GST_OBJECT_LOCK (element);
  dev = *device;
  *device = NULL;
  GST_OBJECT_UNLOCK (element);
  if (dev)
    clr_device_unref (dev);
  /* a stop (PAUSED -> READY) may be the process's last step: one that
   * exits while a prefetch thread is inside the ICD loader's first
   * clGetPlatformIDs () runs the drivers' exit handlers under its
   * dlopen (): on the H100 machine a live stream's process, stopped at
   * its first buffer 3-9 ms after PLAYING while NVIDIA's and PoCL's
   * drivers loaded, died in 14 of 22 runs (AddressSanitizer: LLVM's
   * static data used after exit () freed it). Waiting in finalize alone
   * did not cover it: nothing waits for a prefetch but this, set_bus
   * (NULL) and finalize, and an application may exit after setting its
   * pipeline to NULL without freeing it. A no-op once the drivers are
   * loaded. */
  clr_device_prefetch_wait ();
}

GstFlowReturn
gst_clr_not_negotiated (GstElement * element)
{
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION, (NULL),
      ("received a buffer before caps were negotiated"));
  return GST_FLOW_NOT_NEGOTIATED;
}

GstFlowReturn
gst_clr_map_failed (GstElement * element)
{
  GST_ELEMENT_ERROR (element, STREAM, FAILED, (NULL),
      ("could not map an audio buffer (size not a multiple of the frame "
          "size, or a bad audio meta?)"));
  return GST_FLOW_ERROR;
}

GstCaps *
gst_clr_caps_for_device (GstCaps * caps, ClrDevice * dev)
{
  GstCaps *allowed, *res;
  GValue formats = G_VALUE_INIT, v = G_VALUE_INIT;
  const GstAudioFormat *all;
  guint i, n;

  if (!dev || clr_device_has_fp64 (dev))
    return caps;
  g_value_init (&formats, GST_TYPE_LIST);
  g_value_init (&v, G_TYPE_STRING);
  /* every format but those the engines carry as F64 (F64LE, F64BE) */
  all = gst_audio_formats_raw (&n);
  for (i = 0; i < n; i++) {
    if (gst_clr_edge_work_format (all[i]) == GST_AUDIO_FORMAT_F64)
      continue;
    g_value_set_static_string (&v, gst_audio_format_to_string (all[i]));
    gst_value_list_append_value (&formats, &v);
  }
  g_value_unset (&v);
  allowed = gst_caps_new_empty_simple ("audio/x-raw");
  gst_caps_set_value (allowed, "format", &formats);
  g_value_unset (&formats);
  res = gst_caps_intersect (caps, allowed);
  gst_caps_unref (allowed);
  gst_caps_unref (caps);
  return res;
}

GstBuffer *
gst_clr_alloc_output (GstBaseTransform * trans, const GstAudioInfo * info,
    gsize n)
{
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstBuffer *buf;

  /* the allocator negotiated for transform()'s buffers */
  gst_base_transform_get_allocator (trans, &allocator, &params);
  buf = gst_buffer_new_allocate (allocator, n * GST_AUDIO_INFO_BPF (info),
      &params);
  if (allocator)
    gst_object_unref (allocator);

  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED)
    gst_buffer_add_audio_meta (buf, info, n, NULL);
  return buf;
}

void
gst_clr_resize_output (GstBuffer * outbuf, const GstAudioInfo * info, gsize n)
{
  gst_buffer_resize (outbuf, 0, n * GST_AUDIO_INFO_BPF (info));
  if (n > 0 && GST_AUDIO_INFO_LAYOUT (info) ==
      GST_AUDIO_LAYOUT_NON_INTERLEAVED) {
    GstAudioMeta *meta = gst_buffer_get_audio_meta (outbuf);
    if (meta)
      gst_buffer_remove_meta (outbuf, (GstMeta *) meta);
    gst_buffer_add_audio_meta (outbuf, info, n, NULL);
  }
}

void
gst_clr_stamp (GstBuffer * buf, GstClockTime t0, guint64 offset0, gint rate,
    guint64 first, guint64 n, gboolean * need_discont)
{
  if (GST_CLOCK_TIME_IS_VALID (t0)) {
    /* rounded to the nearest nanosecond, as GST_FRAMES_TO_CLOCK_TIME */
    GstClockTime a = t0 + gst_util_uint64_scale_int_round (first, GST_SECOND,
        rate);
    GstClockTime b = t0 + gst_util_uint64_scale_int_round (first + n,
        GST_SECOND, rate);
    GST_BUFFER_PTS (buf) = a;
    GST_BUFFER_DURATION (buf) = b - a;
    GST_BUFFER_OFFSET (buf) = offset0 + first;
    GST_BUFFER_OFFSET_END (buf) = offset0 + first + n;
  } else {
    GST_BUFFER_PTS (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
    GST_BUFFER_OFFSET (buf) = GST_BUFFER_OFFSET_NONE;
    GST_BUFFER_OFFSET_END (buf) = GST_BUFFER_OFFSET_NONE;
  }
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  if (*need_discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    *need_discont = FALSE;
  } else {
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  }
}

gboolean
gst_clr_latency_publish (GstObject * element, GstClrLatency * l,
    guint64 frames, gint rate)
{
  gboolean changed;

  GST_OBJECT_LOCK (element);
  changed = frames != l->frames || rate != l->rate;
  l->frames = frames;
  l->rate = rate;
  GST_OBJECT_UNLOCK (element);
  return changed;
}

gboolean
gst_clr_query_latency (GstBaseTransform * trans, GstQuery * query,
    const GstClrLatency * l, gboolean * res)
{
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (trans);
  GstClockTime min, max, ours;
  gboolean live;
  guint64 frames;
  gint rate;

  GST_OBJECT_LOCK (trans);
  frames = l->frames;
  rate = l->rate;
  GST_OBJECT_UNLOCK (trans);
  if (rate <= 0)
    return FALSE;
  *res = gst_pad_peer_query (sinkpad, query);
  if (!*res)
    return TRUE;
  gst_query_parse_latency (query, &live, &min, &max);
  ours = gst_util_uint64_scale_int_round (frames, GST_SECOND, rate);
  GST_DEBUG_OBJECT (trans, "our latency: %" GST_TIME_FORMAT,
      GST_TIME_ARGS (ours));
  min += ours;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += ours;
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

GstBuffer *
gst_clr_clip_input (GstBaseTransform * trans, const GstAudioInfo * info,
    GstBuffer * input)
{
  /* in passthrough too: samples outside the segment are not to be played,
   * whatever the element does to the others (audioresample clips there
   * as well) */
  if (GST_AUDIO_INFO_IS_VALID (info)
      && trans->segment.format == GST_FORMAT_TIME
      && GST_BUFFER_PTS_IS_VALID (input))
    input = gst_audio_buffer_clip (input, &trans->segment,
        GST_AUDIO_INFO_RATE (info), GST_AUDIO_INFO_BPF (info));
  return input;
}

gboolean
gst_clr_is_discont (GstElement * element, GstBuffer * buf, GstClockTime t0,
    guint64 frames_in, gint rate)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);
  gboolean jump = FALSE;

  /* Reverse playback: the buffers come in reverse order, each forwards
   * inside (as decoders give them), so no buffer continues the one before
   * and each is a run of its own, whatever its timestamp says (10 ms
   * buffers step back by 20 ms, within the jitter absorbed below).
   * audioresample and audiofirfilter restart at each too, from their
   * timestamp checks. */
  if (GST_IS_BASE_TRANSFORM (element)
      && GST_BASE_TRANSFORM (element)->segment.rate < 0.0) {
    GST_LOG_OBJECT (element, "reverse playback: a run a buffer");
    return TRUE;
  }

  if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (t0)) {
    GstClockTime expected = t0 + gst_util_uint64_scale_int (frames_in,
        GST_SECOND, rate);
    GstClockTimeDiff d = GST_CLOCK_DIFF (expected, pts);

    jump = ABS (d) > GST_CLR_DISCONT_THRESHOLD;
    if (jump)
      GST_INFO_OBJECT (element, "timestamp jump of %" GST_STIME_FORMAT
          ": draining and restarting", GST_STIME_ARGS (d));
  }
  if (jump || GST_BUFFER_IS_DISCONT (buf)) {
    GST_DEBUG_OBJECT (element, "discontinuity at %" GST_TIME_FORMAT,
        GST_TIME_ARGS (pts));
    return TRUE;
  }
  return FALSE;
}

GstFlowReturn
gst_clr_generate_output (GstBaseTransformClass * parent_class,
    GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstFlowReturn ret = parent_class->generate_output (trans, outbuf);

  if (ret == GST_BASE_TRANSFORM_FLOW_DROPPED) {
    gst_clear_buffer (outbuf);
    ret = GST_FLOW_OK;
  }
  return ret;
}

void
gst_clr_run_reset (GstClrRun * run)
{
  run->t0 = GST_CLOCK_TIME_NONE;
  run->started = FALSE;
  run->need_discont = TRUE;
}

void
gst_clr_run_begin (GstClrRun * run, GstBuffer * buf, gint out_rate)
{
  GstClockTime pts = GST_BUFFER_PTS (buf);

  if (run->started)
    return;
  run->t0 = pts;
  run->offset0 = GST_CLOCK_TIME_IS_VALID (pts) ?
      gst_util_uint64_scale_int_round (pts, out_rate, GST_SECOND) : 0;
  run->started = TRUE;
}

void
gst_clr_run_stamp (GstClrRun * run, GstBuffer * buf, gint rate,
    guint64 first, guint64 n)
{
  gst_clr_stamp (buf, run->t0, run->offset0, rate, first, n,
      &run->need_discont);
}

GstFlowReturn
gst_clr_run_note_flow (GstClrRun * run, GstObject * element,
    GstFlowReturn ret)
{
  if (ret != GST_FLOW_OK && run->pending_flow == GST_FLOW_OK) {
    GST_DEBUG_OBJECT (element, "push of held or drained output: %s",
        gst_flow_get_name (ret));
    run->pending_flow = ret;
  }
  return ret;
}

GstFlowReturn
gst_clr_run_take_flow (GstClrRun * run)
{
  GstFlowReturn ret = run->pending_flow;

  run->pending_flow = GST_FLOW_OK;
  return ret;
}

GstClock *
gst_clr_buffer_deadline (GstBaseTransform * trans, GstBuffer * buf,
    GstClockTime * running)
{
  *running = GST_CLOCK_TIME_NONE;
  if (GST_BUFFER_PTS_IS_VALID (buf)
      && trans->segment.format == GST_FORMAT_TIME)
    *running = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
  return GST_CLOCK_TIME_IS_VALID (*running) ?
      gst_element_get_clock (GST_ELEMENT (trans)) : NULL;
}

gboolean
gst_clr_clock_reached (GstElement * element, GstClock * clock,
    GstClockTime running, GstClockTime margin)
{
  GstClockTime now, base;

  if (!clock || GST_STATE (element) != GST_STATE_PLAYING)
    return FALSE;
  /* the clock is read without the object lock (the base time takes it) */
  now = gst_clock_get_time (clock);
  base = gst_element_get_base_time (element);
  return now >= base && now - base + margin > running;
}

gboolean
gst_clr_event_ends_run (GstBaseTransform * trans, GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps, *current;
      gboolean same;

      /* the same caps again change nothing: basetransform skips them */
      gst_event_parse_caps (event, &caps);
      current = gst_pad_get_current_caps (GST_BASE_TRANSFORM_SINK_PAD (trans));
      same = current && gst_caps_is_equal (caps, current);
      if (current)
        gst_caps_unref (current);
      return !same;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *segment;

      /* the same segment again (sent anew, say after a reconfiguration)
       * is no new run */
      gst_event_parse_segment (event, &segment);
      return !gst_segment_is_equal (segment, &trans->segment);
    }
    case GST_EVENT_STREAM_START:
    case GST_EVENT_EOS:
      return TRUE;
    default:
      return FALSE;
  }
}
