/* clresample: helpers the plugin's elements share (clresample,
 * clfirfilter): the OpenCL device by the `device` property, output buffers
 * stamped from sample counters, the latency query, segment clipping. */
#ifndef __GST_CLR_COMMON_H__
#define __GST_CLR_COMMON_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/audio/audio.h>
#include "core/device/clr-device.h"

G_BEGIN_DECLS

/* Input timestamps that stray less than this from the sample count are
 * jitter and are absorbed, as audiobasesink's alignment-threshold does;
 * larger jumps drain and restart the filter. */
#define GST_CLR_DISCONT_THRESHOLD (40 * GST_MSECOND)

#define GST_CLR_DEFAULT_DEVICE "auto"
#define GST_CLR_DEVICE_BLURB "OpenCL device: auto (the least used GPU if there is one), " \
  "gpu, cpu, an index N or P:D (platform:device), or part of the device name"
#define GST_CLR_DEVICE_NAME_BLURB "Name of the OpenCL device in use (NULL " \
  "until the element starts)"

/* The plugin's init: the core's log (clr-log.h) into the debug category
 * clresample-engine, for every element of the plugin */
void gst_clr_core_log_init (void);

/* Whether a CPU device's work runs on the host alone: the convolution
 * elements' (unless CLRESAMPLE_CONV_HOST=0), clresample's (unless
 * CLRESAMPLE_RESAMPLE_HOST=0 or a kernel switch: clr-tuning.h) */
gboolean gst_clr_host_serves_conv (void);
gboolean gst_clr_host_serves_resample (void);

/* The device `spec` names, or NULL after posting a RESOURCE/NOT_FOUND
 * error on `element` that says why. host_serves: the element's work on a
 * CPU device runs on the host alone (gst_clr_host_serves_conv () and
 * _resample ()), so that such a device may come described, not opened
 * (clr_device_acquire_host ()). */
ClrDevice *gst_clr_acquire_device (GstElement * element, const gchar * spec,
    gboolean host_serves);
/* The elements' set_bus (): once the element is put in a bin (a pipeline
 * that will run it; never for gst-inspect-1.0 or a registry scan), its
 * `device` starts opening on a thread of its own (clr_device_prefetch ()),
 * so that start () finds it open or partly opened; with host_serves, not
 * a device the host will serve (clr_device_prefetch_host ()). Chains up
 * to parent_class's. Taken out of its bin (bus NULL) the element waits
 * for the prefetches under way (clr_device_prefetch_wait ()), as it does
 * at every stop (gst_clr_close_device ()) and as it is freed: a process
 * must not exit while one is inside a driver. */
void gst_clr_set_bus_prefetching (GstElementClass * parent_class,
    GstElement * element, GstBus * bus, gboolean host_serves);

/* set_property () of `device`, after the object lock is let go: an
 * element already in a bin and not started opens the device now named
 * ahead too, as set_bus () opened the one named then (which goes on: a
 * driver's load cannot be stopped, so an application names the device
 * before it adds the element) */
void gst_clr_prefetch_renamed (GstElement * element, gboolean host_serves);

/* start(): the device `*spec` names (read under the object lock) into
 * *device (set under it); the spec it was opened with into *spec_used
 * when not NULL; host_serves as gst_clr_acquire_device (). FALSE after
 * posting an error. */
gboolean gst_clr_open_device (GstElement * element, gchar ** spec,
    ClrDevice ** device, gchar ** spec_used, gboolean host_serves);
/* stop(): lets go of *device (cleared under the object lock). */
void gst_clr_close_device (GstElement * element, ClrDevice ** device);

/* transform()'s failures every element words the same way; they post the
 * error and return the flow to return */
GstFlowReturn gst_clr_not_negotiated (GstElement * element);
GstFlowReturn gst_clr_map_failed (GstElement * element);

/* Removes F64 from `caps` when `dev` has no double precision (refused in
 * negotiation rather than losing precision silently). Takes `caps`. */
GstCaps *gst_clr_caps_for_device (GstCaps * caps, ClrDevice * dev);

/* A buffer of n frames from the allocator basetransform negotiated; planar
 * audio carries a GstAudioMeta saying where the planes are. */
GstBuffer *gst_clr_alloc_output (GstBaseTransform * trans,
    const GstAudioInfo * info, gsize n);

/* Sizes `outbuf` to n frames, replacing the audio meta of a planar one. */
void gst_clr_resize_output (GstBuffer * outbuf, const GstAudioInfo * info,
    gsize n);

/* A run of a stream, for clresample and the convolution elements alike:
 * what its output's timestamps and offsets count from, and the flow of a
 * push of the element's own (held or drained output) that failed, which
 * an event or a property change has no flow to return: the next
 * transform () returns it upstream. */
typedef struct
{
  GstClockTime t0;              /* time of input frame 0 of the run */
  guint64 offset0;              /* sample offset of output frame 0 */
  gboolean started;             /* t0 is set: a buffer arrived since */
  gboolean need_discont;        /* the next output starts a run */
  GstFlowReturn pending_flow;
} GstClrRun;

/* A new run: no time yet, its first output DISCONT (the pending flow
 * stays: it belongs to the pushes before). */
void gst_clr_run_reset (GstClrRun * run);
/* The run's first buffer, `buf`, sets its time and offset (at the output
 * rate); later ones change nothing. */
void gst_clr_run_begin (GstClrRun * run, GstBuffer * buf, gint out_rate);
/* gst_clr_stamp () for output frames first..first + n of the run. */
void gst_clr_run_stamp (GstClrRun * run, GstBuffer * buf, gint rate,
    guint64 first, guint64 n);
/* Keeps a failed push's flow (the first one) for gst_clr_run_take_flow ();
 * returns ret. */
GstFlowReturn gst_clr_run_note_flow (GstClrRun * run, GstObject * element,
    GstFlowReturn ret);
/* The flow kept, which it clears (GST_FLOW_OK: none). */
GstFlowReturn gst_clr_run_take_flow (GstClrRun * run);

/* Stamps output frames first..first + n of a run that started at t0 (and
 * sample offset offset0) from the counters; DISCONT when *need_discont,
 * which it clears. t0 NONE: no timestamps or offsets. */
void gst_clr_stamp (GstBuffer * buf, GstClockTime t0, guint64 offset0,
    gint rate, guint64 first, guint64 n, gboolean * need_discont);

/* The latency a query from any thread answers: `frames` at `rate` (rate 0:
 * none), published by the streaming thread under the element's object
 * lock whenever its filter changes, so that a query never reads a filter
 * that thread may be freeing. */
typedef struct
{
  guint64 frames;
  gint rate;
} GstClrLatency;

/* Publishes frames at rate (0: no latency to add); TRUE if the answer
 * changed. */
gboolean gst_clr_latency_publish (GstObject * element, GstClrLatency * l,
    guint64 frames, gint rate);

/* A LATENCY query: where a latency is published, upstream's answer plus
 * it, *res what the query gave, and TRUE; else FALSE, for the parent
 * class to answer. */
gboolean gst_clr_query_latency (GstBaseTransform * trans, GstQuery * query,
    const GstClrLatency * l, gboolean * res);

/* Input outside the segment clipped away (NULL: wholly outside), so the
 * output starts where the segment does (after a seek, say). Takes input. */
GstBuffer *gst_clr_clip_input (GstBaseTransform * trans,
    const GstAudioInfo * info, GstBuffer * input);

/* Whether `buf` breaks the stream: marked DISCONT, or timestamped more than
 * GST_CLR_DISCONT_THRESHOLD away from where frames_in frames of a run that
 * started at t0 end; in reverse playback (a segment of negative rate)
 * every buffer. */
gboolean gst_clr_is_discont (GstElement * element, GstBuffer * buf,
    GstClockTime t0, guint64 frames_in, gint rate);

/* Whether a serialized event ends the run, so that its tail goes out
 * before the event does, with the old timestamps, as audioresample drains:
 * EOS, STREAM_START, CAPS other than the current ones (equal caps change
 * nothing), a SEGMENT other than the current one (a loop's segment seek
 * starts the same stretch again, a seek somewhere else). */
gboolean gst_clr_event_ends_run (GstBaseTransform * trans, GstEvent * event);

/* Where a buffer is due in real time: the clock the buffer is waited on
 * against (a reference, NULL where it has no running time or the element
 * no clock) and its running time, for gst_clr_clock_reached (). */
GstClock *gst_clr_buffer_deadline (GstBaseTransform * trans, GstBuffer * buf,
    GstClockTime * running);
/* Whether the clock has come within `margin` of `running`: a live
 * source's buffer at once, a player's as far ahead as its sink buffers.
 * Never where no clock runs (not PLAYING, or no clock): a file conversion,
 * PAUSED, a test harness. */
gboolean gst_clr_clock_reached (GstElement * element, GstClock * clock,
    GstClockTime running, GstClockTime margin);

/* For generate_output: input that completes no output frame yet is no
 * loss, the stream goes on unbroken, so the next output must not be
 * marked DISCONT, as basetransform does after a dropped buffer. */
GstFlowReturn gst_clr_generate_output (GstBaseTransformClass * parent_class,
    GstBaseTransform * trans, GstBuffer ** outbuf);

G_END_DECLS
#endif
