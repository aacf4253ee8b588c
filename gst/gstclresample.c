/* clresample: GStreamer element resampling audio on OpenCL devices.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-clresample
 * @title: clresample
 *
 * clresample converts raw audio between sample rates with polyphase FIR
 * filters (Kaiser-windowed sinc, designed in double precision) that run as
 * OpenCL kernels: on a GPU when there is one, otherwise on the CPU through
 * PoCL.
 *
 * What it guarantees: output timestamps and offsets come from sample counters
 * (no drift); the filter delay is compensated, so the first output frame is
 * aligned with the first input frame and a sine comes out with the phase it
 * should have; at EOS the filter tail is drained so that N input frames give
 * exactly ceil(N * out_rate / in_rate) output frames; the output does not
 * depend on how the input is cut into buffers; equal rates pass through
 * untouched (clipped to the segment, as audioresample clips).
 *
 * A new SEGMENT (a loop's segment seek, say), a new stream, new caps and
 * EOS drain the filter's tail first, with the old run's timestamps, as
 * audioresample does; unlike audioresample, the very same SEGMENT sent
 * again drains nothing, and neither do caps equal to the current ones.
 *
 * Reverse playback (a segment of negative rate) works as in audioresample:
 * each buffer, forwards inside as decoders give them, is converted on its
 * own, its filter tail drained before the next one, and its output starts
 * with DISCONT at its timestamp; equal rates pass through. Unlike
 * audioresample, every buffer is a run of its own even when it is not
 * marked DISCONT and steps back by less than the timestamp jitter the
 * element absorbs (10 ms buffers).
 *
 * A live stream does not wait for a GPU driver: where the device asked for
 * is still being opened when the stream starts (a quarter second for
 * NVIDIA's), the stream plays from its first buffer on the CPU, on the
 * host, and moves to the GPU once it is open, each side of the switch bit
 * for bit that device's own output and the timestamps contiguous. A
 * stream that is not live waits for the device, and its output is the
 * same on every run.
 *
 * `rate-adjust` is a factor on the output rate for clock-drift correction
 * (1.0001: 100 ppm more output frames of each input frame; 0.95 to 1.05,
 * other values refused with a warning while the stream goes on). It may
 * change while playing: slewed smoothly, the frequency in a straight
 * line over 20 ms of output (at most 10000 ppm a second), the output's
 * position in the input never jumping. The output caps keep
 * their rate and the timestamps go on contiguously from the output's
 * frame count at that rate. At exactly 1.0, never changed, the stream
 * keeps the exact rational ratio; any other value moves it to a variable
 * ratio (phases of 2^-32 sample, coefficients interpolated from a fine
 * grid, docs/quality.md "Rate adjust") until new input caps or a
 * restart, also when set back to 1.0.
 *
 * `follow-drift` makes the element follow its source's clock: where the
 * input's samples run on one clock (a sound card's, an RTP sender's) and
 * its timestamps on the pipeline's, the output's timeline, counted in
 * samples, would leave the timestamps by their difference (100 ppm, 0.36 s
 * an hour) and a sink synced to the clock would drop or repeat. The
 * element measures, at each buffer, how far its output's timeline lags
 * the input's timestamps and steers the variable ratio with a loop (0.3
 * Hz, critically damped) that holds the lag at `drift-delay` (0 by
 * default: the output's timestamps are the input's): locked within 5 s
 * of the start and of a change of 500 ppm, then within microseconds. The
 * drift it measures is the `drift` property, in ppm, and is posted as a
 * "clresample-drift" element message (drift, locked, error, factor) at
 * the start, at lock and each `drift-notify` ppm of change. A jump of the
 * timestamps (40 ms off where the buffer before ended, or DISCONT) starts
 * a new run; the drift carries over. `rate-adjust` has no effect on a
 * stream that follows drift. Equal rates are resampled too (48 kHz to 48
 * kHz across two clocks).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -v audiotestsrc num-buffers=100 ! audio/x-raw,rate=44100 ! \
 *     clresample ! audio/x-raw,rate=192000 ! wavenc ! filesink location=tone.wav
 * ]| Resamples a test tone from 44.1 kHz to 192 kHz.
 * |[
 * gst-launch-1.0 filesrc location=song.wav ! wavparse ! audioconvert ! \
 *     clresample quality=10 ! audio/x-raw,rate=48000 ! audioconvert ! \
 *     autoaudiosink
 * ]| Plays a WAV file at 48 kHz through the highest-quality filter.
 * |[
 * gst-launch-1.0 playbin uri=file:///music/a.flac audio-filter=clresample
 * ]| Lets a player use clresample wherever it needs a rate change.
 * |[
 * gst-launch-1.0 filesrc location=song.wav ! wavparse ! audioconvert ! \
 *     clresample taps=63488 quality=10 ! audio/x-raw,rate=705600 ! \
 *     audioconvert ! autoaudiosink
 * ]| Oversamples 16 times through 1,015,808 taps (a brick-wall filter, flat
 * to 22.04 kHz); past a few thousand taps a phase, integer ratios run
 * through the FFT convolution engine, with a block more latency.
 * |[
 * gst-launch-1.0 filesrc location=song.wav ! wavparse ! audioconvert ! \
 *     clresample quality=10 cutoff=0.97 ! audio/x-raw,rate=48000 ! \
 *     audioconvert ! autoaudiosink
 * ]| Keeps the treble flat to 0.97 of 22.05 kHz (21.4 kHz) instead of the
 * quality's 0.93, at the price of less attenuation between 22.05 kHz and
 * the stopband's new start.
 * |[
 * gst-launch-1.0 pulsesrc ! audioconvert ! \
 *     clresample quality=10 phase=minimum ! audio/x-raw,rate=48000 ! \
 *     pulsesink
 * ]| Live monitoring: a minimum-phase filter answers in 6 input samples
 * (0.14 ms) instead of half the filter (188 samples, 4.3 ms), with no
 * ringing before a transient.
 * |[
 * gst-launch-1.0 udpsrc port=5004 \
 *     caps="application/x-rtp,media=audio,clock-rate=48000,encoding-name=L24,channels=2" ! \
 *     rtpjitterbuffer ! rtpL24depay ! audioconvert ! \
 *     clresample rate-adjust=1.0001 ! audio/x-raw,rate=48000 ! autoaudiosink
 * ]| Plays a sender whose clock runs 100 ppm fast against the sound card:
 * 100 ppm more output frames of each input frame, at the caps' 48 kHz; an
 * application following the drift sets rate-adjust as it goes.
 * |[
 * gst-launch-1.0 filesrc location=talk.wav ! wavparse ! audioconvert ! \
 *     clresample max-hold=0 ! audio/x-raw,rate=16000 ! appsink sync=false
 * ]| A stream that runs ahead of the clock (a file, a sink that does not
 * sync) is converted up to half a second at a time by default, one launch
 * instead of fifty; max-hold=0 converts each buffer as it comes, for the
 * least latency a buffer.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstclresample.h"
#include "gstclrpinnedallocator.h"
#include "gstclrcommon.h"
#include "core/clr-log.h"
#include "core/conv/clr-conv.h"

GST_DEBUG_CATEGORY_STATIC (cl_resample_debug);
#define GST_CAT_DEFAULT cl_resample_debug

/* Input held back for one launch: at most `max-hold` of it, half a second
 * by default (and at most CLR_HOLD_MAX_BYTES), and only while the input
 * runs CLR_HOLD_AHEAD or more ahead of the pipeline clock (see
 * gst_cl_resample_may_hold()). Measured on the 2-core CPU through PoCL,
 * 1024-frame buffers, 44.1 -> 48 kHz: 0.1 s batches run at 1.0x
 * audioresample quality=10's speed, 0.2 s at 1.35x, 0.5 s at 1.7-1.9x
 * (docs/performance.md). */
#define DEFAULT_MAX_HOLD (GST_SECOND / 2)
#define DEFAULT_DRIFT_NOTIFY 1.0
#define CLR_HOLD_MAX_BYTES (8u << 20)
/* On a GPU, that is shared out among the streams whose jobs share the
 * device's batches: a batch then holds `max-hold` of input of them all
 * together, and each stream holds down to 1/CLR_HOLD_SHARED_PER_SECOND
 * of a second. 256 streams on an H200, 30 s each: holding 40 ms ran
 * 2.03 / 1.86 s against 2.27 / 2.25 s for half a second, a batch taking
 * 0.7 ms instead of 2.5 (its half-second jobs made it heavy), and a
 * buffer's p99 in the element 11 ms instead of 55. Since jobs' threads
 * wait for their batches yielding their cores (clr-sched.c), 20 ms runs
 * as fast as 40 (4320 against 4351 stream-seconds a second, three
 * rounds; 0.93x in another lease) at a p99 of 3.4-4.5 ms against 8-10.
 * Not on CPU devices, where long jobs pay (each launch a hand-off to the
 * device's threads): 16 and 64 streams on 2 cores ran 0.89x and 0.91x
 * as fast with their holds shared out. */
#define CLR_HOLD_SHARED_PER_SECOND 50
/* ... from this lead over the clock on (and never more than half the
 * lead: gst_cl_resample_hold_target ()) */
#define CLR_HOLD_AHEAD (GST_SECOND / 2)
/* Input kept on the host for a successor filter: 80 Ki frames of stereo
 * F32 are 0.6 MiB; past 16 MiB (64 channels of F32 at 64 Ki frames) the
 * longest filters join a stream with less history than they read, the
 * oldest as silence. */
#define CLR_HISTORY_MAX_BYTES (16u << 20)
/* A variable ratio's filter serves factors down to this much below the
 * lower of 1.0 and the factor it was built for without aliasing
 * (ClrEngineConfig.adjust_low); a factor further down has a new filter
 * built off the streaming thread (gst_cl_resample_before_transform ()),
 * to which the stream switches seamlessly. 2000 ppm is ten times the
 * drift of consumer clocks, and costs the passband 0.2 % where the output
 * rate is the lower: 44 Hz at 44.1 kHz. */
#define CLR_ADJUST_GUARD 0.002

enum
{
  PROP_0,
  PROP_QUALITY,
  PROP_TAPS,
  PROP_CUTOFF,
  PROP_PHASE,
  PROP_MAX_HOLD,
  PROP_DEVICE,
  PROP_DEVICE_NAME,
  PROP_RATE_ADJUST,
  PROP_FOLLOW_DRIFT,
  PROP_DRIFT_DELAY,
  PROP_DRIFT_NOTIFY,
  PROP_DRIFT,
};

#define DEFAULT_DEVICE GST_CLR_DEFAULT_DEVICE

/* every format audioresample takes: the edges convert (gstclredge.h) */
#define CLR_CAPS \
  "audio/x-raw, format = (string) " GST_CLR_EDGE_FORMATS ", " \
  "rate = (int) [ 1, 16000000 ], channels = (int) [ 1, 1024 ], " \
  "layout = (string) { interleaved, non-interleaved }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CLR_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CLR_CAPS));

#define gst_cl_resample_parent_class parent_class
G_DEFINE_TYPE (GstClResample, gst_cl_resample, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (clresample, "clresample", GST_RANK_NONE,
    GST_TYPE_CL_RESAMPLE);

static void gst_cl_resample_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cl_resample_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cl_resample_finalize (GObject * object);
static gboolean gst_cl_resample_start (GstBaseTransform * trans);
static void gst_cl_resample_set_bus (GstElement * element, GstBus * bus);
static gboolean gst_cl_resample_stop (GstBaseTransform * trans);
static GstCaps *gst_cl_resample_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static GstCaps *gst_cl_resample_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps);
static gboolean gst_cl_resample_get_unit_size (GstBaseTransform * trans,
    GstCaps * caps, gsize * size);
static gboolean gst_cl_resample_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cl_resample_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);
static void gst_cl_resample_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_cl_resample_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static gboolean gst_cl_resample_decide_allocation (GstBaseTransform * trans,
    GstQuery * query);
static GstFlowReturn gst_cl_resample_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static GstFlowReturn gst_cl_resample_submit_input_buffer (GstBaseTransform *
    trans, gboolean is_discont, GstBuffer * input);
static gboolean gst_cl_resample_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cl_resample_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);

G_DEFINE_ENUM_TYPE (GstClResamplePhase, gst_cl_resample_phase,
    G_DEFINE_ENUM_VALUE (GST_CL_RESAMPLE_PHASE_LINEAR, "linear"),
    G_DEFINE_ENUM_VALUE (GST_CL_RESAMPLE_PHASE_MINIMUM, "minimum"),
    G_DEFINE_ENUM_VALUE (GST_CL_RESAMPLE_PHASE_INTERMEDIATE, "intermediate"));

/* the design each stands for (clr-phase.h) */
static double
phase_alpha (GstClResamplePhase phase)
{
  switch (phase) {
    case GST_CL_RESAMPLE_PHASE_MINIMUM:
      return 1.0;
    case GST_CL_RESAMPLE_PHASE_INTERMEDIATE:
      return 0.5;
    default:
      return 0.0;
  }
}

static void
gst_cl_resample_class_init (GstClResampleClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (cl_resample_debug, "clresample", 0,
      "clresample element");

  gobject_class->set_property = gst_cl_resample_set_property;
  gobject_class->get_property = gst_cl_resample_get_property;
  gobject_class->finalize = gst_cl_resample_finalize;

  g_object_class_install_property (gobject_class, PROP_QUALITY,
      g_param_spec_int ("quality", "Quality",
          "Filter quality: 0 (50 dB stopband, fastest) to 10 (195 dB, "
          "best); see docs/quality.md", CLR_QUALITY_MIN, CLR_QUALITY_MAX,
          CLR_QUALITY_DEFAULT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_TAPS,
      g_param_spec_uint ("taps", "Taps",
          "Filter taps per phase (rounded up to a multiple of 4); 0 takes "
          "the length from quality; more narrow the transition band towards "
          "Nyquist (long filters at integer ratios run as FFT convolutions)",
          0, CLR_TAPS_MAX, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:cutoff:
   *
   * Where the passband ends, a fraction of the lower of the two Nyquist
   * frequencies; the transition band (the quality's width, or the narrower
   * one of more `taps`) starts there. 0 keeps the quality's own edge
   * (0.80 at quality 0 to 0.93 at 10, the stopband starting at Nyquist).
   * Past the quality's edge it trades attenuation just above Nyquist
   * (aliasing or imaging there) for treble; below it, it buys a guard
   * band. Values between 0 and 0.05 are taken as 0.05. Changes while
   * playing are seamless, as for `taps`.
   */
  g_object_class_install_property (gobject_class, PROP_CUTOFF,
      g_param_spec_double ("cutoff", "Cutoff",
          "End of the passband, a fraction of the lower Nyquist frequency "
          "(0: the quality's own edge; up to 1)", 0.0, CLR_CUTOFF_MAX, 0.0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:phase:
   *
   * The filter's phase: `linear` (every frequency delayed alike, by half
   * the filter: ringing before and after a transient), `minimum` (the
   * same magnitude; no ringing before the transient, and a latency of a
   * few samples: 6 input samples at quality 10, against 188 linear) or
   * `intermediate` (between the two: 103 samples at quality 10, ringing
   * before a transient 28 dB weaker than linear's, the same or a deeper
   * stopband, a passband flat within 4e-6 at quality 10 and 5e-4 at
   * quality 4; docs/quality.md). Whatever the phase, the element
   * compensates the filter's delay at low frequencies, so a bass tone
   * comes out where it went in; higher frequencies keep the filter's own
   * phase. Named choices, as SoX's -L, -I and -M, rather than libsoxr's
   * 0-100 number: the three are different designs, not points on one
   * scale.
   */
  g_object_class_install_property (gobject_class, PROP_PHASE,
      g_param_spec_enum ("phase", "Phase",
          "Filter phase: linear (symmetric, half the filter's latency), "
          "minimum (no pre-ringing, a few samples of latency) or "
          "intermediate (a little over half the linear latency, weak "
          "pre-ringing)",
          gst_cl_resample_phase_get_type (),
          GST_CL_RESAMPLE_PHASE_LINEAR, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:max-hold:
   *
   * The most input a stream not fed live may gather while it runs ahead
   * of the pipeline clock, to convert it in one launch (file conversion,
   * a server's streams to sinks that do not sync). Never more than half
   * the stream's lead over the clock; on a GPU shared by many streams,
   * this divided among them, down to 20 ms. 0 converts every buffer as it
   * comes: the lowest latency a buffer, at the throughput of one launch a
   * buffer (256 streams on an H200: 1.0-1.1 ms p99 a buffer in the
   * element against 3.4-4.5 ms, 0.85x the stream-seconds a second). Live
   * streams never hold. A live stream's buffer may wait up to 1 ms, and a
   * tenth of its own length, for other streams' buffers to share its
   * launch; 0 keeps it from waiting at all.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_HOLD,
      g_param_spec_uint64 ("max-hold", "Max hold",
          "The most input (ns) a stream running ahead of the clock (not "
          "live) gathers to convert in one launch; 0: every buffer as it "
          "comes", 0, 10 * GST_SECOND, DEFAULT_MAX_HOLD, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:rate-adjust:
   *
   * A factor on the output rate, for clock-drift correction: 1.000125
   * makes 125 ppm more output frames of each input frame. The output caps
   * keep their rate; their buffers' timestamps go on from frame counts at
   * that rate, contiguous, so downstream sees the stream's timeline
   * stretched by the factor. Settable while playing (and controllable):
   * a change slews smoothly, the step growing by the same amount every
   * output frame over 20 ms of output (longer past 200 ppm: at most
   * 10000 ppm a second), so a ramp set buffer by buffer comes out as a
   * smooth sweep, not a staircase; the output's position in the input
   * never jumps, so there is no click. Factors between 0.95 and 1.05; another value is
   * refused with a warning on the bus and the stream goes on at the
   * previous one.
   *
   * A stream whose rate-adjust is exactly 1.0 and was never changed runs
   * the exact rational ratio of its caps (the same output as without the
   * property); any other value moves it to a variable ratio (phases of
   * 2^-32 input sample, coefficients interpolated from a fine grid, the
   * quality's filter), through the same seamless switch as a live change
   * of quality. It stays on the variable ratio until new input caps or
   * a restart, also when set back to 1.0. Where the output rate is the
   * lower, the filter's passband ends 0.2 % below the lower of 1.0 and
   * the factor's Nyquist frequency, so no factor aliases; a factor
   * further down has a new filter designed and switched to while playing.
   */
  /* The spec's range is every non-negative double, so that any value
   * reaches the element's own check, which warns on the bus (GLib's check
   * of a spec's range would only print a g_warning and drop it). */
  g_object_class_install_property (gobject_class, PROP_RATE_ADJUST,
      g_param_spec_double ("rate-adjust", "Rate adjust",
          "Factor on the output rate (clock-drift correction): 1.0001 makes "
          "100 ppm more output frames; 0.95 to 1.05, slewed over 20 ms (at "
          "most 10000 ppm/s) while playing; other values are refused with a warning",
          0.0, G_MAXDOUBLE, 1.0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:follow-drift:
   *
   * Follow the source's clock against the pipeline's (see the element's
   * description): the output's timeline is steered to the input's
   * timestamps, whatever the source's clock does, and its drift is
   * measured. Read when a stream's caps come; rate-adjust has no effect on
   * such a stream.
   */
  g_object_class_install_property (gobject_class, PROP_FOLLOW_DRIFT,
      g_param_spec_boolean ("follow-drift", "Follow drift",
          "Follow the source's clock: steer the ratio so that the output's "
          "timeline keeps to the input's timestamps (ASRC), measuring the "
          "drift; from the next stream's caps", FALSE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:drift-delay:
   *
   * With follow-drift: how far behind the input's timestamps the output's
   * are held, in nanoseconds (0: at them). A run's output starts that far
   * behind and the loop keeps it there. It shifts this stream against the
   * pipeline's others, as a sink's ts-offset would (lip-sync with a
   * display's delay, say); the latency the element reports does not
   * change. Read when a stream's caps come.
   */
  g_object_class_install_property (gobject_class, PROP_DRIFT_DELAY,
      g_param_spec_uint64 ("drift-delay", "Drift delay",
          "With follow-drift: how far behind the input's timestamps the "
          "output's are held (ns)", 0, GST_SECOND, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:drift-notify:
   *
   * With follow-drift: the change of the measured drift, in ppm, that
   * posts a "clresample-drift" element message (one also comes at a
   * stream's start and when the loop locks or loses lock).
   */
  g_object_class_install_property (gobject_class, PROP_DRIFT_NOTIFY,
      g_param_spec_double ("drift-notify", "Drift notify",
          "With follow-drift: the change of the drift (ppm) that posts a "
          "clresample-drift message", 0.001, 10000.0, DEFAULT_DRIFT_NOTIFY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  /**
   * GstClResample:drift:
   *
   * With follow-drift: the source's clock against the pipeline's as
   * measured, in ppm (+100: its samples come 100 ppm faster than its
   * nominal rate says).
   */
  g_object_class_install_property (gobject_class, PROP_DRIFT,
      g_param_spec_double ("drift", "Drift",
          "With follow-drift: the source's clock against the pipeline's, as "
          "measured (ppm; + is fast)", -G_MAXDOUBLE, G_MAXDOUBLE, 0.0,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          GST_CLR_DEVICE_BLURB,
          DEFAULT_DEVICE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DEVICE_NAME,
      g_param_spec_string ("device-name", "Device name",
          GST_CLR_DEVICE_NAME_BLURB,
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "OpenCL audio resampler", "Filter/Converter/Audio",
      "Resamples audio with polyphase FIR filters on OpenCL devices",
      "clresample developers");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cl_resample_start);
  GST_ELEMENT_CLASS (klass)->set_bus =
      GST_DEBUG_FUNCPTR (gst_cl_resample_set_bus);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cl_resample_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cl_resample_transform_caps);
  trans_class->fixate_caps = GST_DEBUG_FUNCPTR (gst_cl_resample_fixate_caps);
  trans_class->get_unit_size =
      GST_DEBUG_FUNCPTR (gst_cl_resample_get_unit_size);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cl_resample_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cl_resample_transform_size);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cl_resample_before_transform);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cl_resample_transform);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cl_resample_submit_input_buffer);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cl_resample_decide_allocation);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cl_resample_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cl_resample_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cl_resample_query);
  trans_class->passthrough_on_same_caps = TRUE;
}

static void gst_cl_resample_job_build (gpointer job);
static void gst_cl_resample_job_free (gpointer job);

static void
gst_cl_resample_init (GstClResample * self)
{
  self->quality = CLR_QUALITY_DEFAULT;
  self->taps = 0;
  self->cutoff = 0.0;
  self->phase = GST_CL_RESAMPLE_PHASE_LINEAR;
  self->max_hold = DEFAULT_MAX_HOLD;
  self->device_spec = g_strdup (DEFAULT_DEVICE);
  self->rate_adjust = 1.0;
  self->drift_notify = DEFAULT_DRIFT_NOTIFY;
  gst_clr_drift_init (&self->drift, 0, DEFAULT_DRIFT_NOTIFY);
  gst_clr_run_reset (&self->run);
  self->join_frame = G_MAXUINT64;
  gst_clr_builder_init (&self->builder, "clr-build",
      gst_cl_resample_job_build, gst_cl_resample_job_free);
  gst_base_transform_set_gap_aware (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_cl_resample_finalize (GObject * object)
{
  GstClResample *self = GST_CL_RESAMPLE (object);

  gst_clr_builder_clear (&self->builder);
  /* the process may exit next (gst_clr_set_bus_prefetching ()) */
  clr_device_prefetch_wait ();
  g_free (self->device_spec);
  g_free (self->device_spec_in_use);
  g_free (self->device_spec_failed);
  gst_clr_input_batch_free (&self->held);
  gst_clr_edge_clear (&self->in_edge);
  gst_clr_edge_clear (&self->out_edge);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* A factor outside CLR_ADJUST_MIN .. CLR_ADJUST_MAX is refused with a
 * warning the application sees on the bus, and the stream goes on at the
 * factor it had. Where the factor lands in the stream: see
 * gst_cl_resample_before_transform (). */
static void
gst_cl_resample_set_rate_adjust (GstClResample * self, gdouble adjust)
{
  gdouble was;

  if (!(adjust >= CLR_ADJUST_MIN && adjust <= CLR_ADJUST_MAX)) {
    GST_OBJECT_LOCK (self);
    was = self->rate_adjust;
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("rate-adjust %g is out of range: it must be between %g and %g "
            "(+-5 %%); the stream goes on at %.9g", adjust, CLR_ADJUST_MIN,
            CLR_ADJUST_MAX, was), ("refused rate-adjust=%.17g", adjust));
    return;
  }
  GST_OBJECT_LOCK (self);
  self->adjust_changed |= self->rate_adjust != adjust;
  self->rate_adjust = adjust;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cl_resample_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstClResample *self = GST_CL_RESAMPLE (object);

  if (prop_id == PROP_RATE_ADJUST) {
    gst_cl_resample_set_rate_adjust (self, g_value_get_double (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_QUALITY:
      self->props_changed |= self->quality != g_value_get_int (value);
      self->quality = g_value_get_int (value);
      break;
    case PROP_TAPS:
      self->props_changed |= self->taps != g_value_get_uint (value);
      self->taps = g_value_get_uint (value);
      break;
    case PROP_CUTOFF:
      self->props_changed |= self->cutoff != g_value_get_double (value);
      self->cutoff = g_value_get_double (value);
      break;
    case PROP_PHASE:
      self->props_changed |= (gint) self->phase != g_value_get_enum (value);
      self->phase = g_value_get_enum (value);
      break;
    case PROP_MAX_HOLD:
      self->max_hold = g_value_get_uint64 (value);
      break;
    case PROP_FOLLOW_DRIFT:
      self->follow_drift = g_value_get_boolean (value);
      break;
    case PROP_DRIFT_DELAY:
      self->drift_delay = g_value_get_uint64 (value);
      break;
    case PROP_DRIFT_NOTIFY:
      self->drift_notify = g_value_get_double (value);
      break;
    case PROP_DEVICE:
      g_free (self->device_spec);
      self->device_spec = g_value_dup_string (value);
      if (!self->device_spec)
        self->device_spec = g_strdup (DEFAULT_DEVICE);
      self->props_changed = TRUE;
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_DEVICE)
    gst_clr_prefetch_renamed (GST_ELEMENT (self),
        gst_clr_host_serves_resample ());
}

static void
gst_cl_resample_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstClResample *self = GST_CL_RESAMPLE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_QUALITY:
      g_value_set_int (value, self->quality);
      break;
    case PROP_TAPS:
      g_value_set_uint (value, self->taps);
      break;
    case PROP_CUTOFF:
      g_value_set_double (value, self->cutoff);
      break;
    case PROP_PHASE:
      g_value_set_enum (value, self->phase);
      break;
    case PROP_MAX_HOLD:
      g_value_set_uint64 (value, self->max_hold);
      break;
    case PROP_RATE_ADJUST:
      g_value_set_double (value, self->rate_adjust);
      break;
    case PROP_FOLLOW_DRIFT:
      g_value_set_boolean (value, self->follow_drift);
      break;
    case PROP_DRIFT_DELAY:
      g_value_set_uint64 (value, self->drift_delay);
      break;
    case PROP_DRIFT_NOTIFY:
      g_value_set_double (value, self->drift_notify);
      break;
    case PROP_DRIFT:
      g_value_set_double (value, self->drift.drift_ppm);
      break;
    case PROP_DEVICE:
      g_value_set_string (value, self->device_spec);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string (value, self->device ?
          clr_device_get_name (self->device) : NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* After every change of the engine: publishes its latency for queries
 * from other threads, then tells the application to ask again. */
static void
gst_cl_resample_publish_latency (GstClResample * self)
{
  if (gst_clr_latency_publish (GST_OBJECT (self), &self->latency,
          self->engine ? clr_engine_get_latency (self->engine) : 0,
          self->engine ? GST_AUDIO_INFO_RATE (&self->in_info) : 0)
      && self->engine)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_cl_resample_set_bus (GstElement * element, GstBus * bus)
{
  gst_clr_set_bus_prefetching (GST_ELEMENT_CLASS (parent_class), element,
      bus, gst_clr_host_serves_resample ());
}

/* dev (the element takes the reference) is the device in use from now
 * on; the one before is let go */
static void
gst_cl_resample_swap_device (GstClResample * self, ClrDevice * dev)
{
  ClrDevice *old_dev;

  GST_OBJECT_LOCK (self);
  old_dev = self->device;
  self->device = dev;
  GST_OBJECT_UNLOCK (self);
  if (old_dev)
    clr_device_unref (old_dev);
  g_object_notify (G_OBJECT (self), "device-name");
}

/* Whether upstream is live, as its latency query says; `unanswered`
 * where it gives no answer */
static gboolean
gst_cl_resample_upstream_live (GstClResample * self, gboolean unanswered)
{
  GstQuery *query = gst_query_new_latency ();
  gboolean live = unanswered;

  if (gst_pad_peer_query (GST_BASE_TRANSFORM_SINK_PAD (self), query))
    gst_query_parse_latency (query, &live, NULL, NULL);
  gst_query_unref (query);
  return live;
}

/* CLRESAMPLE_STAND_IN=0: a stream waits for the device it asked for,
 * live or not (a process's first live stream on a GPU machine then gives
 * that device's output from its first frame, as later ones do) */
static gboolean
gst_cl_resample_stand_in_allowed (void)
{
  const gchar *v = g_getenv ("CLRESAMPLE_STAND_IN");

  return !v || strcmp (v, "0") != 0;
}

/* The device for a new run: where the one `device` names is still being
 * opened (a GPU driver's 0.24-0.31 s), a CPU the host serves at once
 * stands in until the caps come (gst_cl_resample_settle_device ()) */
static gboolean
gst_cl_resample_open_device (GstClResample * self)
{
  ClrDevice *interim = NULL;
  gchar *spec;

  self->device_interim = FALSE;
  self->interim_move = self->move_pending = FALSE;
  if (gst_clr_host_serves_resample () && gst_cl_resample_stand_in_allowed ()) {
    GST_OBJECT_LOCK (self);
    spec = g_strdup (self->device_spec);
    GST_OBJECT_UNLOCK (self);
    interim = clr_device_acquire_interim (spec);
    if (interim) {
      GST_INFO_OBJECT (self, "device '%s' is being opened: OpenCL device "
          "'%s' (the host) stands in", spec, clr_device_get_name (interim));
      gst_cl_resample_swap_device (self, interim);
      g_free (self->device_spec_in_use);
      self->device_spec_in_use = spec;
      self->device_interim = TRUE;
      return TRUE;
    }
    g_free (spec);
  }
  return gst_clr_open_device (GST_ELEMENT (self), &self->device_spec,
      &self->device, &self->device_spec_in_use,
      gst_clr_host_serves_resample ());
}

/* At the first caps of a run begun on a stand-in CPU: a live stream
 * plays from its first buffer there and moves to the device asked for
 * once that is open, through the live device change (given to the
 * builder once no prefetch is loading a driver, move_pending; it
 * acquires the device, waiting for its open if need be, and the new
 * engine continues the stream: each side of the switch that device's own
 * output, no gap);
 * any other stream (a file converted ahead of the clock) waits for it
 * here, so that its output is the same on every run. FALSE where the
 * device could not be had (the error posted). */
static gboolean
gst_cl_resample_settle_device (GstClResample * self, gboolean * move_later)
{
  ClrDevice *dev;

  *move_later = FALSE;
  if (!self->device_interim)
    return TRUE;
  self->device_interim = FALSE;
  /* no answer: wait, as for a file */
  if (gst_cl_resample_upstream_live (self, FALSE)) {
    GST_INFO_OBJECT (self, "live: starting on '%s', moving to device '%s' "
        "once it is open", clr_device_get_name (self->device),
        self->device_spec_in_use);
    /* the builder's job sees a device to acquire */
    g_free (self->device_spec_in_use);
    self->device_spec_in_use =
        g_strdup (clr_device_get_where (self->device));
    *move_later = TRUE;
    return TRUE;
  }
  dev = gst_clr_acquire_device (GST_ELEMENT (self), self->device_spec_in_use,
      TRUE);
  if (!dev)
    return FALSE;
  gst_cl_resample_swap_device (self, dev);
  return TRUE;
}

static gboolean
gst_cl_resample_start (GstBaseTransform * trans)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);

  if (!gst_cl_resample_open_device (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  self->props_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_clr_run_reset (&self->run);
  self->run.pending_flow = GST_FLOW_OK;
  return TRUE;
}

static gboolean
gst_cl_resample_stop (GstBaseTransform * trans)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);

  /* a change still being built belongs to this run */
  gst_clr_builder_cancel (&self->builder);
  g_clear_pointer (&self->engine, clr_engine_free);
  /* the next start takes the exact ratio again where rate-adjust is 1.0 */
  self->variable = self->engine_variable = FALSE;
  gst_cl_resample_publish_latency (self);
  gst_clr_input_batch_clear (&self->held);
  gst_clr_close_device (GST_ELEMENT (self), &self->device);
  self->device_interim = FALSE;
  g_clear_pointer (&self->device_spec_in_use, g_free);
  g_clear_pointer (&self->device_spec_failed, g_free);
  gst_audio_info_init (&self->in_info);
  gst_audio_info_init (&self->out_info);
  gst_clr_edge_clear (&self->in_edge);
  gst_clr_edge_clear (&self->out_edge);
  return TRUE;
}

/* The other pad may take any rate this element can reach from a fixed one;
 * every other field stays. The unchanged structure comes first, so a peer
 * that accepts the same rate gets passthrough. */
static GstCaps *
gst_cl_resample_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *res = gst_caps_new_empty ();
  guint i, n = gst_caps_get_size (caps);

  for (i = 0; i < n; i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    const GValue *rate;
    gint lo = 1, hi = CLR_RATE_MAX;

    if (i > 0 && gst_caps_is_subset_structure_full (res, s, f))
      continue;
    rate = gst_structure_get_value (s, "rate");
    if (gst_caps_features_is_any (f) || (rate && G_VALUE_HOLDS_INT (rate)))
      gst_caps_append_structure_full (res, gst_structure_copy (s),
          gst_caps_features_copy (f));
    if (gst_caps_features_is_any (f))
      continue;
    if (rate && G_VALUE_HOLDS_INT (rate)) {
      gint64 r = g_value_get_int (rate);
      lo = (gint) MAX (1, (r + CLR_RATIO_MAX - 1) / CLR_RATIO_MAX);
      hi = (gint) MIN ((gint64) CLR_RATE_MAX, r * CLR_RATIO_MAX);
    }
    s = gst_structure_copy (s);
    if (lo < hi)
      gst_structure_set (s, "rate", GST_TYPE_INT_RANGE, lo, hi, NULL);
    else
      gst_structure_set (s, "rate", G_TYPE_INT, lo, NULL);
    gst_caps_append_structure_full (res, s, gst_caps_features_copy (f));
  }
  /* a device without double precision refuses F64 here, in negotiation,
   * rather than losing precision silently */
  GST_OBJECT_LOCK (trans);
  res = gst_clr_caps_for_device (res, GST_CL_RESAMPLE (trans)->device);
  GST_OBJECT_UNLOCK (trans);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, res,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = tmp;
  }
  GST_LOG_OBJECT (trans, "%s caps %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, res);
  return res;
}

/* Prefer the rate nearest to the one on the other side. */
static GstCaps *
gst_cl_resample_fixate_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * othercaps)
{
  GstStructure *s;
  gint rate;

  s = gst_caps_get_structure (caps, 0);
  if (G_UNLIKELY (!gst_structure_get_int (s, "rate", &rate)))
    return gst_caps_fixate (othercaps);

  othercaps = gst_caps_truncate (othercaps);
  othercaps = gst_caps_make_writable (othercaps);
  s = gst_caps_get_structure (othercaps, 0);
  gst_structure_fixate_field_nearest_int (s, "rate", rate);
  return gst_caps_fixate (othercaps);
}

static gboolean
gst_cl_resample_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstAudioInfo info;

  if (!gst_audio_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_AUDIO_INFO_BPF (&info);
  return TRUE;
}

static void
gst_cl_resample_reset_stream (GstClResample * self)
{
  if (self->engine)
    clr_engine_reset (self->engine);
  gst_clr_run_reset (&self->run);
  /* a change being built continues the run before: not this one */
  self->run_serial++;
  gst_clr_input_batch_clear (&self->held);
  self->may_hold = FALSE;
  self->join_frame = G_MAXUINT64;
  gst_clr_drift_restart (&self->drift);
}

static void
gst_cl_resample_stamp (GstClResample * self, GstBuffer * buf, guint64 first,
    guint64 n)
{
  gst_clr_run_stamp (&self->run, buf, GST_AUDIO_INFO_RATE (&self->out_info),
      first, n);
  if (G_UNLIKELY (first == self->join_frame)
      && GST_BUFFER_PTS_IS_VALID (buf)) {
    GstClockTime end = GST_BUFFER_PTS (buf) + GST_BUFFER_DURATION (buf);

    /* the sub-period step of a rate switch goes into this buffer's
     * duration: no hole between the two rates' buffers */
    GST_BUFFER_PTS (buf) = self->join_time;
    GST_BUFFER_DURATION (buf) = end - self->join_time;
  }
  if (first + n > self->join_frame)
    self->join_frame = G_MAXUINT64;
  /* held behind the input's timestamps by the set point
   * (gst_cl_resample_follow ()) */
  if (self->following && GST_BUFFER_PTS_IS_VALID (buf))
    GST_BUFFER_PTS (buf) += self->drift.delay;
}

static GstBuffer *
gst_cl_resample_alloc_output (GstClResample * self, gsize n)
{
  return gst_clr_alloc_output (GST_BASE_TRANSFORM (self), &self->out_info, n);
}

/* Frames the batch may grow to before it is converted: max_hold, on a GPU
 * shared out among the streams of the device's batches, and no more than
 * half the stream's lead over the clock (whatever waits downstream still
 * has the other half when the held input comes). Decided once a buffer,
 * in before_transform (): transform_size () and transform () must see the
 * same. */
static gsize
gst_cl_resample_hold_target (GstClResample * self, GstClockTime max_hold,
    GstClockTime lead)
{
  const gint rate = GST_AUDIO_INFO_RATE (&self->in_info);
  /* shared out on GPUs only (CLR_HOLD_SHARED_PER_SECOND) */
  guint company = clr_device_is_gpu (self->device) ?
      clr_engine_get_company (self->engine) : 1;
  gsize most = gst_util_uint64_scale_int (max_hold, rate, GST_SECOND);
  gsize by_time = MAX (most / company, MIN (most,
          (gsize) rate / CLR_HOLD_SHARED_PER_SECOND));
  gsize by_size = CLR_HOLD_MAX_BYTES / GST_AUDIO_INFO_BPF (&self->in_info);
  gsize by_lead = gst_util_uint64_scale_int (lead / 2, rate, GST_SECOND);

  return MAX (1, MIN (MIN (by_time, by_size), by_lead));
}

/* Whether the buffer in hand, of `frames` frames, joins the held batch
 * instead of being converted now. before_transform() decides whether this
 * buffer may be held at all; transform_size() and transform() both ask
 * this, so the size allocated is the size produced. */
static gboolean
gst_cl_resample_hold_this (GstClResample * self, gsize frames)
{
  return self->may_hold && self->held.frames + frames < self->hold_target;
}

/* A push of the element's own (held input, a drain) that failed: the next
 * transform () returns it upstream, so that FLUSHING, NOT_LINKED or an
 * error is not lost where the caller (an event, a property change) has no
 * flow to return. */
static GstFlowReturn
gst_cl_resample_note_flow (GstClResample * self, GstFlowReturn ret)
{
  return gst_clr_run_note_flow (&self->run, GST_OBJECT (self), ret);
}

/* The lowest factor a filter built for `adjust` serves (CLR_ADJUST_GUARD) */
static gdouble
adjust_low_for (gdouble adjust)
{
  return MAX (CLR_ADJUST_MIN, MIN (1.0, adjust) * (1.0 - CLR_ADJUST_GUARD));
}

/* The factor a new engine starts at, and the lowest its filter serves:
 * rate-adjust's (`adjust`), or on a stream that follows drift the loop's
 * now, its filter reaching the loop's lowest */
static gdouble
gst_cl_resample_start_factor (GstClResample * self, gdouble adjust,
    gdouble * low)
{
  if (!self->following) {
    *low = adjust_low_for (adjust);
    return adjust;
  }
  *low = adjust_low_for (1.0 - CLR_DRIFT_LOOP_LIMIT);
  return gst_clr_drift_get_factor (&self->drift);
}

/* The variable ratio's part of cfg: a fixed ratio unless `variable` */
static void
config_variable (ClrEngineConfig * cfg, gboolean variable, gdouble adjust,
    gdouble adjust_low)
{
  cfg->variable = variable;
  cfg->adjust = variable ? adjust : 0.0;
  cfg->adjust_low = variable ? adjust_low : 0.0;
}

static gboolean config_from_info (const GstAudioInfo * in,
    const GstAudioInfo * out, gint quality, guint taps, gdouble cutoff,
    GstClResamplePhase phase, ClrEngineConfig * cfg);

/* An engine for dev with the running engine's settings (not the
 * properties' now: a change of them goes through the builder, which
 * stays in step with the engine in use), continuing its stream */
static ClrEngine *
gst_cl_resample_engine_like (GstClResample * self, ClrDevice * dev,
    GError ** err)
{
  ClrEngineConfig cfg;
  ClrEngine *engine;

  if (!config_from_info (&self->in_info, &self->out_info,
          self->engine_quality, self->engine_taps, self->engine_cutoff,
          self->engine_phase, &cfg)) {
    g_set_error (err, CLR_ERROR, CLR_ERROR_INVALID, "unsupported format");
    return NULL;
  }
  /* the ratio and filter of the engine in use: its factor and slew carry
   * over through the continuation */
  config_variable (&cfg, clr_engine_is_variable (self->engine),
      clr_engine_get_adjust_target (self->engine), self->engine_adjust_low);
  engine = clr_engine_new (dev, &cfg, err);
  if (engine && !clr_engine_continue_from (engine, self->engine, err))
    g_clear_pointer (&engine, clr_engine_free);
  return engine;
}

/* The stream is on dev from now on, with engine (the element takes both) */
static void
gst_cl_resample_move_to (GstClResample * self, ClrDevice * dev,
    ClrEngine * engine)
{
  clr_engine_free (self->engine);
  self->engine = engine;
  gst_cl_resample_swap_device (self, dev);
  /* the allocation was decided for the old device (as at a change of the
   * device property: gst_cl_resample_apply_properties ()) */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static ClrEngine *gst_cl_resample_build_engine (GstClResample * self,
    ClrDevice * dev, ClrEngine * old, GError ** err);

/* The stream on a device other than `from`, with an engine built there:
 * like the running one and continuing its stream (`like`: after its work
 * failed), or for the caps (continuing `old` where there is one: a set-up
 * whose device was lost). TRUE once moved, with a warning "*err; the
 * stream `what` device P:D 'NAME'"; FALSE with *err the error to post,
 * the failure first, then why the stream cannot move. */
static gboolean
gst_cl_resample_move_elsewhere (GstClResample * self, ClrDevice * from,
    gboolean like, ClrEngine * old, const gchar * what, GError ** err)
{
  const gint64 t0 = g_get_monotonic_time ();
  ClrDevice *dev;
  ClrEngine *engine = NULL;
  GError *why = NULL;
  gchar *msg;

  dev = clr_device_acquire_other (from, &why);
  if (dev)
    engine = like ? gst_cl_resample_engine_like (self, dev, &why) :
        gst_cl_resample_build_engine (self, dev, old, &why);
  if (!engine)
    goto stuck;
  GST_ELEMENT_WARNING (self, RESOURCE, FAILED, ("%s; the stream %s device "
          "%s '%s'", (*err)->message, what, clr_device_get_where (dev),
          clr_device_get_name (dev)), ("moved in %.1f ms",
          (g_get_monotonic_time () - t0) / 1000.0));
  g_clear_error (err);
  gst_cl_resample_move_to (self, dev, engine);
  return TRUE;

stuck:
  msg = g_strdup_printf ("%s; the stream cannot move: %s", (*err)->message,
      why->message);
  g_clear_error (err);
  g_error_free (why);
  g_set_error_literal (err, CLR_ERROR, CLR_ERROR_LOST, msg);
  g_free (msg);
  if (dev)
    clr_device_unref (dev);
  return FALSE;
}

/* After the engine failed: where its work failed for good on its device
 * (clr_engine_device_failed ()), with device=auto the stream moves to
 * another device, its engine continued from the failed one's stream
 * (which the failure left where the failed work began), for the caller
 * to finish the call there. A device that no longer answers is lost
 * (clr_device_lose (), which makes *err say so): "auto" passes it by
 * from then on, and its other streams move as their own work fails. One
 * that still answers is not marked: this stream's failure, or a fault
 * that came twice by chance, moves this stream alone, and new streams
 * still go there. TRUE once it moved; FALSE with *err the error to post.
 * Nothing else is moved or stopped. */
static gboolean
gst_cl_resample_fail_over (GstClResample * self, GError ** err)
{
  ClrDevice *from = self->device;
  gboolean gone;
  gchar *msg;

  if (!self->engine || !clr_engine_device_failed (self->engine))
    return FALSE;
  gone = clr_device_lose (from, err);
  /* a device asked for by name or kind is the user's choice: an error */
  if (!clr_device_spec_is_auto (self->device_spec_in_use))
    return FALSE;
  if (!gone) {
    /* said as a lost device's error is: which device, then what */
    msg = g_strdup_printf ("OpenCL device %s '%s' failed this stream's "
        "work (it still answers): %s", clr_device_get_where (from),
        clr_device_get_name (from), (*err)->message);
    g_clear_error (err);
    g_set_error_literal (err, CLR_ERROR, CLR_ERROR_FAILED, msg);
    g_free (msg);
  }
  return gst_cl_resample_move_elsewhere (self, from, TRUE, NULL, "goes on on",
      err);
}

/* clr_engine_process () that, where the device is lost, goes on on
 * another (gst_cl_resample_fail_over ()) and finishes the call there from
 * the host's input: the same output, every frame once. */
static gboolean
gst_cl_resample_process (GstClResample * self, const void *const *in,
    gsize frames, void *const *out, gsize * got, GError ** err)
{
  const guint64 in0 = clr_engine_get_in_total (self->engine);
  const guint64 out0 = clr_engine_get_out_total (self->engine);

  if (clr_engine_process (self->engine, in, frames, out, got, err))
    return TRUE;
  while (gst_cl_resample_fail_over (self, err))
    if (clr_engine_process_rest (self->engine, in0, out0, in, frames, out,
            got, err))
      return TRUE;
  return FALSE;
}

/* ... and clr_engine_drain () */
static gboolean
gst_cl_resample_drain_engine (GstClResample * self, void *const *out,
    gsize * got, GError ** err)
{
  const guint64 out0 = clr_engine_get_out_total (self->engine);

  if (clr_engine_drain (self->engine, out, got, err))
    return TRUE;
  while (gst_cl_resample_fail_over (self, err))
    if (clr_engine_drain_rest (self->engine, out0, out, got, err))
      return TRUE;
  return FALSE;
}

/* The error of a failed conversion, naming the device and what failed
 * (the OpenCL call, where the scheduler ran the stream's job alone); a
 * lost device's also the call that fails on it now (clr_device_lose ()).
 * Takes err. */
static void
gst_cl_resample_post_failed (GstClResample * self, GError * err)
{
  if (g_error_matches (err, CLR_ERROR, CLR_ERROR_LOST))
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("%s", err->message), (NULL));
  else
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("OpenCL resampling failed on device %s '%s': %s",
            clr_device_get_where (self->device),
            clr_device_get_name (self->device), err->message), (NULL));
  g_error_free (err);
}

/* Converts the held batch, if any, and pushes its output. */
/* `frames` input frames (in NULL: silence) through the engine into a
 * buffer of their own, pushed (`what` says what for the log); no buffer
 * where they complete no output frame. */
static GstFlowReturn
gst_cl_resample_push_out (GstClResample * self, const void *const *in,
    gsize frames, const char *what)
{
  GError *err = NULL;
  GstBuffer *buf;
  GstAudioBuffer abuf;
  /* the engine reads a pointer a plane even when it writes no frame */
  void *no_planes[CLR_CHANNELS_MAX] = { NULL };
  guint64 first = clr_engine_get_out_total (self->engine);
  size_t n = clr_engine_out_frames (self->engine, frames), got = 0;
  gboolean ok;

  buf = gst_cl_resample_alloc_output (self, n);
  if (n > 0 && !gst_clr_edge_map (&self->out_edge, &abuf, buf,
          GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    return gst_clr_map_failed (GST_ELEMENT (self));
  }
  ok = gst_cl_resample_process (self, in, frames, n > 0 ? abuf.planes :
      no_planes, &got, &err);
  if (n > 0)
    gst_clr_edge_unmap (&self->out_edge, &abuf);
  if (!ok) {
    gst_buffer_unref (buf);
    gst_cl_resample_post_failed (self, err);
    return GST_FLOW_ERROR;
  }
  g_assert (got == n);
  if (n == 0) {
    gst_buffer_unref (buf);
    return GST_FLOW_OK;
  }
  gst_cl_resample_stamp (self, buf, first, n);
  GST_LOG_OBJECT (self, "%" G_GSIZE_FORMAT " frames of %s at %"
      GST_TIME_FORMAT, n, what, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  return gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);
}

static GstFlowReturn
gst_cl_resample_flush_held (GstClResample * self)
{
  void *in[CLR_CHANNELS_MAX];
  GstFlowReturn ret;

  if (!self->engine || self->held.frames == 0)
    return GST_FLOW_OK;
  gst_clr_input_batch_planes (&self->held, in);
  ret = gst_cl_resample_push_out (self, (const void *const *) in,
      self->held.frames, "held input");
  gst_clr_input_batch_clear (&self->held);
  return gst_cl_resample_note_flow (self, ret);
}

/* Pushes the filter tail of the current run and resets for a new one. */
static GstFlowReturn
gst_cl_resample_drain (GstClResample * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GError *err = NULL;
  GstBuffer *buf;
  GstAudioBuffer abuf;
  guint64 first;
  size_t n, got = 0;
  gboolean ok, silent;
  GstFlowReturn ret;

  if (!self->engine || !self->run.started)
    return GST_FLOW_OK;
  /* the held input comes before the tail */
  ret = gst_cl_resample_flush_held (self);
  if (ret != GST_FLOW_OK) {
    gst_cl_resample_reset_stream (self);
    return ret;
  }
  n = clr_engine_drain_frames (self->engine);
  if (n == 0) {
    gst_cl_resample_reset_stream (self);
    return GST_FLOW_OK;
  }
  first = clr_engine_get_out_total (self->engine);
  buf = gst_cl_resample_alloc_output (self, n);
  if (!gst_clr_edge_map (&self->out_edge, &abuf, buf, GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    gst_cl_resample_reset_stream (self);
    return gst_cl_resample_note_flow (self,
        gst_clr_map_failed (GST_ELEMENT (self)));
  }
  /* a stream that ended in silence drains silence: a GAP */
  silent = clr_engine_is_silent (self->engine);
  ok = gst_cl_resample_drain_engine (self, abuf.planes, &got, &err);
  gst_clr_edge_unmap (&self->out_edge, &abuf);
  if (!ok)
    goto failed;
  g_assert (got == n);
  gst_cl_resample_stamp (self, buf, first, n);
  if (silent)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  GST_LOG_OBJECT (self, "draining %" G_GSIZE_FORMAT " frames at %"
      GST_TIME_FORMAT, n, GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  gst_cl_resample_reset_stream (self);
  return gst_cl_resample_note_flow (self,
      gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), buf));

failed:
  gst_buffer_unref (buf);
  gst_cl_resample_post_failed (self, err);
  gst_cl_resample_reset_stream (self);
  return gst_cl_resample_note_flow (self, GST_FLOW_ERROR);
}

static gboolean
config_from_info (const GstAudioInfo * in, const GstAudioInfo * out,
    gint quality, guint taps, gdouble cutoff, GstClResamplePhase phase,
    ClrEngineConfig * cfg)
{
  /* a fixed ratio unless config_variable () says otherwise */
  config_variable (cfg, FALSE, 0.0, 0.0);
  cfg->phase = phase_alpha (phase);
  cfg->quality = quality;
  cfg->taps = taps;
  cfg->cutoff = cutoff > 0.0 ? MAX (cutoff, CLR_CUTOFF_MIN) : 0.0;
  cfg->in_rate = GST_AUDIO_INFO_RATE (in);
  cfg->out_rate = GST_AUDIO_INFO_RATE (out);
  cfg->channels = GST_AUDIO_INFO_CHANNELS (in);
  cfg->planar = GST_AUDIO_INFO_LAYOUT (in) == GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  if (GST_AUDIO_INFO_FORMAT (in) == GST_AUDIO_FORMAT_UNKNOWN)
    return FALSE;
  /* the native format the edges carry it in (gstclredge.h) */
  cfg->format = gst_clr_edge_clr_format (GST_AUDIO_INFO_FORMAT (in));
  /* keep the history the longest filter a live change of quality or taps
   * may bring needs (and a running FFT path's latency on top), so that the
   * new filter continues without a gap in its input: on the host, a copy of
   * the input (clr-history.h), at most CLR_HISTORY_MAX_BYTES of it */
  cfg->history = MIN (CLR_TAPS_MAX + CLR_CONV_BLOCK_MAX,
      CLR_HISTORY_MAX_BYTES / (clr_format_size (cfg->format) *
          cfg->channels));
  return TRUE;
}

/* Builds an engine for the negotiated caps and the current properties on
 * `dev`. With `old` running the same input, the new engine continues its
 * stream: same timeline, same history, no DISCONT. */
static ClrEngine *
gst_cl_resample_build_engine (GstClResample * self, ClrDevice * dev,
    ClrEngine * old, GError ** err)
{
  ClrEngineConfig cfg;
  ClrEngine *engine;
  gint quality;
  guint taps;
  gdouble cutoff;
  GstClResamplePhase phase;
  gdouble adjust, low;

  GST_OBJECT_LOCK (self);
  quality = self->quality;
  taps = self->taps;
  cutoff = self->cutoff;
  phase = self->phase;
  adjust = self->rate_adjust;
  self->adjust_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (!config_from_info (&self->in_info, &self->out_info, quality, taps,
          cutoff, phase, &cfg)) {
    g_set_error (err, CLR_ERROR, CLR_ERROR_INVALID, "unsupported format");
    return NULL;
  }
  adjust = gst_cl_resample_start_factor (self, adjust, &low);
  config_variable (&cfg, self->variable, adjust, low);
  engine = clr_engine_new (dev, &cfg, err);
  if (engine && old && !clr_engine_continue_from (engine, old, err))
    g_clear_pointer (&engine, clr_engine_free);
  if (engine) {
    /* a later change of the properties back to these builds nothing */
    self->engine_quality = quality;
    self->engine_taps = taps;
    self->engine_cutoff = cutoff;
    self->engine_phase = phase;
    self->engine_adjust_low = self->queued_adjust_low = cfg.adjust_low;
    self->engine_variable = cfg.variable;
  }
  return engine;
}

/* self->engine built on the device in use (continuing `old` where there is
 * one), or, where its build failed because the device is lost (it no
 * longer answers: clr_device_lose ()) and the device is "auto", on
 * another, as a running stream moves (gst_cl_resample_fail_over ()): a
 * device can be lost between the streams' set-ups as well as during
 * them. FALSE with *err the error to post. */
static gboolean
gst_cl_resample_start_engine (GstClResample * self, ClrEngine * old,
    GError ** err)
{
  self->engine = gst_cl_resample_build_engine (self, self->device, old, err);
  if (self->engine)
    return TRUE;
  if (!clr_device_lose (self->device, err)
      || !clr_device_spec_is_auto (self->device_spec_in_use))
    return FALSE;
  return gst_cl_resample_move_elsewhere (self, self->device, FALSE, old,
      "starts on", err);
}

/* A live change of quality, taps or device, for the builder's thread: all
 * it needs, none of the element's state. */
typedef struct
{
  gchar *spec;                  /* the device property */
  gboolean new_device;          /* spec is to be acquired */
  ClrDevice *current;           /* the device in use */
  gboolean filter_changed;      /* quality, taps or cutoff differ from the
                                 * engine's */
  gdouble cutoff;               /* the property's, for engine_cutoff */
  GstClResamplePhase phase;     /* and for engine_phase */
  gboolean build;               /* an engine to build (one is running) */
  ClrEngineConfig cfg;
  GstAudioInfo in_info, out_info;       /* the caps it was made for */
  /* the running stream when the change came (and which run it was): the
   * new engine continues it on the thread, so that only the input since
   * runs through a long filter at the switch (clr_engine_catch_up ()) */
  ClrEngineSnapshot *snap;
  guint run_serial;
  /* made on the thread */
  ClrDevice *dev;               /* the device acquired, or NULL */
  ClrEngine *engine;
  GError *error;
} GstClResampleJob;

static void
gst_cl_resample_job_free (gpointer data)
{
  GstClResampleJob *job = data;

  g_free (job->spec);
  clr_engine_snapshot_free (job->snap);
  if (job->engine)
    clr_engine_free (job->engine);
  if (job->dev)
    clr_device_unref (job->dev);
  if (job->current)
    clr_device_unref (job->current);
  g_clear_error (&job->error);
  g_free (job);
}

/* GstClrBuildFunc: the device, then the engine (filter design, kernels,
 * buffers: the part that takes long). */
static void
gst_cl_resample_job_build (gpointer data)
{
  GstClResampleJob *job = data;
  ClrDevice *dev = job->current;

  if (job->new_device) {
    job->dev = clr_device_acquire (job->spec, &job->error);
    if (!job->dev)
      return;
    dev = job->dev;
  }
  /* another name for the same device with the same filter: nothing to do */
  if (job->build && (job->filter_changed || dev != job->current))
    job->engine = clr_engine_new (dev, &job->cfg, &job->error);
  if (job->engine && job->snap
      && !clr_engine_continue_from_snapshot (job->engine, job->snap,
          &job->error))
    g_clear_pointer (&job->engine, clr_engine_free);
}

/* Hands the properties as they are now to the builder. Every change makes
 * a job, even one with nothing to build (a change back to the running
 * settings): it supersedes the jobs before it, whose results would be
 * settings no longer asked for. */
static void
gst_cl_resample_queue_rebuild (GstClResample * self)
{
  GstClResampleJob *job = g_new0 (GstClResampleJob, 1);
  gint quality;
  guint taps;
  gdouble cutoff;
  GstClResamplePhase phase;
  gdouble adjust, low;

  GST_OBJECT_LOCK (self);
  job->spec = g_strdup (self->device_spec);
  quality = self->quality;
  taps = self->taps;
  cutoff = job->cutoff = self->cutoff;
  phase = job->phase = self->phase;
  adjust = self->rate_adjust;
  self->props_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* a variable ratio's filter reaches at least as low as the running
   * one's: a new filter for a lower factor, never a narrower one */
  adjust = gst_cl_resample_start_factor (self, adjust, &low);
  low = self->variable ? MIN (low, self->engine_variable ?
      self->engine_adjust_low : 1.0) : 0.0;

  job->current = self->device ? clr_device_ref (self->device) : NULL;
  job->new_device = !job->current || (g_strcmp0 (job->spec,
          self->device_spec_in_use)
      && g_strcmp0 (job->spec, self->device_spec_failed));
  job->filter_changed = quality != self->engine_quality
      || taps != self->engine_taps || cutoff != self->engine_cutoff
      || phase != self->engine_phase || self->variable !=
      self->engine_variable || (self->variable
      && low != self->engine_adjust_low);
  job->in_info = self->in_info;
  job->out_info = self->out_info;
  job->build = self->engine && (job->filter_changed || job->new_device)
      && config_from_info (&self->in_info, &self->out_info, quality, taps,
      cutoff, phase, &job->cfg);
  config_variable (&job->cfg, self->variable, adjust, low);
  self->queued_adjust_low = job->build ? low : self->engine_adjust_low;
  if (job->build && self->run.started) {
    job->snap = clr_engine_snapshot (self->engine, NULL);
    job->run_serial = self->run_serial;
  }
  GST_DEBUG_OBJECT (self, "new settings: quality %d, taps %u, cutoff %g, "
      "device '%s'%s", quality, taps, cutoff, job->spec,
      job->build ? ", building a new engine" : "");
  /* a job carries the device asked for: the move off a stand-in with it */
  self->move_pending = FALSE;
  gst_clr_builder_submit (&self->builder, job);
}

static gboolean
gst_cl_resample_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);
  GstAudioInfo in, out;
  ClrEngineConfig cfg;
  ClrEngine *old = NULL;
  GError *err = NULL;
  gboolean resampling, continuing, variable;
  gint old_rate = 0;
  gdouble adjust, notify;
  gboolean follow, move_later = FALSE;
  GstClockTime delay;

  if (!gst_audio_info_from_caps (&in, incaps)
      || !gst_audio_info_from_caps (&out, outcaps))
    goto invalid_caps;
  if (GST_AUDIO_INFO_FORMAT (&in) != GST_AUDIO_INFO_FORMAT (&out)
      || GST_AUDIO_INFO_CHANNELS (&in) != GST_AUDIO_INFO_CHANNELS (&out)
      || GST_AUDIO_INFO_LAYOUT (&in) != GST_AUDIO_INFO_LAYOUT (&out)
      || !config_from_info (&in, &out, CLR_QUALITY_DEFAULT, 0, 0.0,
          GST_CL_RESAMPLE_PHASE_LINEAR, &cfg))
    goto invalid_caps;
  GST_OBJECT_LOCK (self);
  adjust = self->rate_adjust;
  follow = self->follow_drift;
  delay = self->drift_delay;
  notify = self->drift_notify;
  GST_OBJECT_UNLOCK (self);
  /* A new input takes the exact ratio of its caps where rate-adjust is
   * exactly 1.0 and it does not follow drift; a stream continued at a new
   * output rate keeps the variable ratio it had, and its loop. Equal rates
   * pass through only on the exact ratio. */
  continuing = self->engine && self->run.started
      && gst_audio_info_is_equal (&in, &self->in_info);
  follow = continuing ? self->following : follow;
  variable = adjust != 1.0 || follow || (continuing && self->variable);
  resampling = cfg.in_rate != cfg.out_rate || variable;
  if (resampling && !clr_engine_config_validate (&cfg, &err))
    goto refused;

  if (continuing && resampling) {
    /* Only the output rate changes (a RECONFIGURE from downstream): the new
     * filter picks up the running stream where the old one is, after what
     * came at the old rate. */
    gst_cl_resample_flush_held (self);
    old = self->engine;
    old_rate = GST_AUDIO_INFO_RATE (&self->out_info);
    self->engine = NULL;
  } else {
    /* A new input: the old run's tail belongs to the old caps and goes out
     * before them. */
    gst_cl_resample_drain (self);
    g_clear_pointer (&self->engine, clr_engine_free);
    gst_cl_resample_reset_stream (self);
    self->following = follow;
    GST_OBJECT_LOCK (self);
    gst_clr_drift_init (&self->drift, delay, notify);
    GST_OBJECT_UNLOCK (self);
  }
  self->in_info = in;
  self->out_info = out;
  gst_clr_edge_set (&self->in_edge, &in);
  gst_clr_edge_set (&self->out_edge, &out);
  /* held input is kept as the engine takes it */
  gst_clr_input_batch_configure (&self->held,
      GST_AUDIO_INFO_LAYOUT (&in) == GST_AUDIO_LAYOUT_NON_INTERLEAVED,
      GST_AUDIO_INFO_CHANNELS (&in), clr_format_size (cfg.format));
  self->variable = variable;
  if (!gst_cl_resample_settle_device (self, &move_later))
    goto no_device;

  self->interim_move = self->move_pending = move_later;
  if (!resampling) {
    GST_INFO_OBJECT (self, "equal rates (%u Hz): passthrough", cfg.in_rate);
    self->engine_variable = FALSE;
    gst_base_transform_set_passthrough (trans, TRUE);
    gst_cl_resample_publish_latency (self);
    return TRUE;
  }
  gst_base_transform_set_passthrough (trans, FALSE);
  gst_cl_resample_start_engine (self, old, &err);
  if (old) {
    /* where the old rate's last buffer ended (as it was stamped) */
    if (self->engine) {
      self->join_frame = clr_engine_get_out_total (self->engine);
      self->join_time = self->run.t0 +
          gst_util_uint64_scale_int_round (clr_engine_get_out_total (old),
          GST_SECOND, old_rate);
    }
    clr_engine_free (old);
    if (GST_CLOCK_TIME_IS_VALID (self->run.t0))
      self->run.offset0 = gst_util_uint64_scale_int_round (self->run.t0,
          cfg.out_rate, GST_SECOND);
  }
  gst_cl_resample_publish_latency (self);
  if (!self->engine)
    goto engine_failed;
  return TRUE;

invalid_caps:
  GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %"
      GST_PTR_FORMAT, incaps, outcaps);
  return FALSE;
refused:
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", err->message), (NULL));
  g_error_free (err);
  return FALSE;
no_device:
  gst_cl_resample_reset_stream (self);
  return FALSE;
engine_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Could not set up OpenCL resampling %u -> %u Hz on '%s': %s",
          cfg.in_rate, cfg.out_rate, clr_device_get_name (self->device),
          err->message), (NULL));
  g_error_free (err);
  gst_cl_resample_reset_stream (self);
  return FALSE;
}

/* Applies quality, taps and device changed while running once the builder
 * has made the new engine (or device), at the start of a buffer: the new
 * filter continues the stream seamlessly, same timeline, no DISCONT. Until
 * then the old one plays on. On failure the element warns and keeps going
 * with what it had. */
static void
gst_cl_resample_apply_properties (GstClResample * self, GstBuffer * buf)
{
  GstClResampleJob *job;
  GError *err = NULL;

  /* A change waits for its engine while the buffer's deadline allows, so
   * that it lands as early as it can. The move off a stand-in CPU does
   * not: the stream plays on there, and moves at the first buffer after
   * the new engine is built. */
  if (gst_clr_builder_busy (&self->builder) && !self->interim_move)
    gst_clr_builder_wait (&self->builder, GST_BASE_TRANSFORM (self), buf);
  job = gst_clr_builder_take (&self->builder);
  if (!job)
    return;
  self->interim_move = FALSE;
  if (!gst_audio_info_is_equal (&job->in_info, &self->in_info)
      || !gst_audio_info_is_equal (&job->out_info, &self->out_info)
      || (job->engine && !self->engine)
      || (!job->new_device && job->current != self->device)) {
    /* made for caps that changed since, or on a device the stream left
     * since (a lost one: gst_cl_resample_fail_over ()): again, for
     * these */
    gst_cl_resample_job_free (job);
    gst_cl_resample_queue_rebuild (self);
    return;
  }
  if (job->error)
    goto failed;

  if (job->engine) {
    /* the held input was given under the old settings */
    gst_cl_resample_flush_held (self);
    /* primed on the thread with the stream as it was: caught up with the
     * input since; a stream restarted since then starts afresh */
    if (job->snap && (!self->run.started
            || job->run_serial != self->run_serial))
      clr_engine_reset (job->engine);
    if (self->run.started && !(job->snap && job->run_serial ==
            self->run_serial ? clr_engine_catch_up :
            clr_engine_continue_from) (job->engine, self->engine, &err))
      goto failed;
    clr_engine_free (self->engine);
    self->engine = job->engine;
    job->engine = NULL;
    self->engine_quality = job->cfg.quality;
    self->engine_taps = job->cfg.taps;
    self->engine_cutoff = job->cutoff;
    self->engine_phase = job->phase;
    self->engine_variable = job->cfg.variable;
    self->engine_adjust_low = job->cfg.adjust_low;
    GST_DEBUG_OBJECT (self, "new filter: quality %d, taps %u%s",
        job->cfg.quality, job->cfg.taps, job->cfg.variable ?
        ", variable ratio" : "");
    gst_cl_resample_publish_latency (self);
  }
  if (job->new_device) {
    g_free (self->device_spec_in_use);
    self->device_spec_in_use = g_strdup (job->spec);
    g_clear_pointer (&self->device_spec_failed, g_free);
  }
  if (job->dev && job->dev != self->device) {
    gst_cl_resample_swap_device (self, job->dev);
    job->dev = NULL;
    GST_INFO_OBJECT (self, "now on OpenCL device '%s'",
        clr_device_get_name (self->device));
    /* The allocation was decided for the old device: its page-locked
     * allocator (decide_allocation ()) would go on serving this one, an
     * extra copy a buffer, and keep the old device's context alive. The
     * next buffer renegotiates (the same caps: the new engine was built
     * for them) and takes the new device's. */
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  }
  gst_cl_resample_job_free (job);
  return;

failed:
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
      ("Could not apply the new settings; going on with the old ones"),
      ("%s", err ? err->message : job->error->message));
  g_clear_error (&err);
  /* the device in use stays what the element reports; the one that failed
   * is not tried again at every later change */
  if (job->new_device && !job->dev) {
    g_free (self->device_spec_failed);
    self->device_spec_failed = g_strdup (job->spec);
  }
  gst_cl_resample_job_free (job);
}

static gboolean
gst_cl_resample_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);
  GstAudioInfo info, oinfo;
  guint64 frames, n;

  /* Every buffer's output: the stream's caps, parsed at set_caps (parsed
   * again here, they took GLib's quark lock, on which 256 streams'
   * threads queued for 8 % of their time on an H200) */
  if (direction == GST_PAD_SINK && self->engine) {
    frames = size / GST_AUDIO_INFO_BPF (&self->in_info);
    n = gst_cl_resample_hold_this (self, frames) ? 0 :
        clr_engine_out_frames (self->engine, self->held.frames + frames);
    *othersize = n * GST_AUDIO_INFO_BPF (&self->out_info);
    return TRUE;
  }
  /* an estimate for allocation queries */
  if (!gst_audio_info_from_caps (&info, caps)
      || !gst_audio_info_from_caps (&oinfo, othercaps))
    return FALSE;
  frames = size / GST_AUDIO_INFO_BPF (&info);
  n = gst_util_uint64_scale_int_ceil (frames, GST_AUDIO_INFO_RATE (&oinfo),
      GST_AUDIO_INFO_RATE (&info));
  *othersize = n * GST_AUDIO_INFO_BPF (&oinfo);
  return TRUE;
}

/* How far the buffer's running time is ahead of the pipeline clock's
 * (0: not ahead, or no clock to tell), into *lead; TRUE if that is
 * CLR_HOLD_AHEAD or more. A real-time producer's buffers never get that
 * far ahead, even when a stall (a first kernel build, a busy machine) let
 * many of them queue up and arrive at once; a file conversion soon does. */
static gboolean
gst_cl_resample_ahead_of_clock (GstClResample * self, GstBuffer * buf,
    GstClockTime * lead)
{
  GstElement *element = GST_ELEMENT (self);
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime pts = GST_BUFFER_PTS (buf), running, now, base;
  GstClock *clock;

  *lead = 0;
  if (!GST_CLOCK_TIME_IS_VALID (pts) || segment->format != GST_FORMAT_TIME
      || GST_STATE (element) != GST_STATE_PLAYING)
    return FALSE;
  running = gst_segment_to_running_time (segment, GST_FORMAT_TIME, pts);
  if (!GST_CLOCK_TIME_IS_VALID (running)
      || !(clock = gst_element_get_clock (element)))
    return FALSE;
  now = gst_clock_get_time (clock);
  base = gst_element_get_base_time (element);
  if (now >= base && running > now - base)
    *lead = running - (now - base);
  gst_object_unref (clock);
  return *lead >= CLR_HOLD_AHEAD;
}

/* Whether the buffer in hand may join the held batch (its lead over the
 * clock into *lead, for gst_cl_resample_hold_target ()). Holding pays only
 * where nobody waits on each buffer: never in a live pipeline (the added
 * delay would be latency), and only while the input is CLR_HOLD_AHEAD
 * ahead of the clock (file conversion, a sink that does not sync, a deep
 * queue before one that does). A player is paced by its sink, a real-time
 * appsrc by its producer: their buffers never run that far ahead, even
 * when a stall let many queue up and arrive at once, and they are
 * converted one by one, as they come.
 *
 * The lead alone decides, no test of the arrival speed besides: a stream
 * that has gained half a second on the clock has been faster than real
 * time. Asking its last 16 buffers to have come 4x faster than real time
 * as well held streams back under load, where a streaming thread runs in
 * bursts: 64 streams on 2 cores took up holding in waves seconds apart
 * (each wave slowed the streams still converting buffer by buffer), 256
 * streams on 16 cores between 1.3 and 3.7 s into the stream. */
static gboolean
gst_cl_resample_may_hold (GstClResample * self, GstBuffer * buf,
    GstClockTime * lead)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);

  if (!GST_AUDIO_INFO_IS_VALID (&self->in_info) || !self->engine)
    return FALSE;
  /* no answer: assume the worst */
  if (!self->run.started)
    self->upstream_live = gst_cl_resample_upstream_live (self, TRUE);
  /* in reverse playback each buffer is a run of its own: nothing to
   * gather */
  return !self->upstream_live && trans->segment.rate > 0.0
      && !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)
      && gst_cl_resample_ahead_of_clock (self, buf, lead);
}

/* Equal rates passed through until rate-adjust left 1.0: an engine of a
 * variable ratio from this buffer on, its run starting here. The filter
 * has no history of what passed through, so its first K/2 outputs fade in
 * from silence (a few ms); set rate-adjust before the stream starts to
 * have none of that. */
static void
gst_cl_resample_leave_passthrough (GstClResample * self)
{
  GError *err = NULL;

  if (!gst_cl_resample_start_engine (self, NULL, &err)) {
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("Could not apply rate-adjust; passing through at the caps' rate"),
        ("%s", err->message));
    g_clear_error (&err);
    self->variable = FALSE;
    return;
  }
  gst_cl_resample_reset_stream (self);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
  gst_cl_resample_publish_latency (self);
}

/* A stream that follows drift (follow-drift): whether buf starts a new run
 * (checked against the buffer before: gst_clr_drift_note ()); where it
 * continues the run, the loop is given the delay of the output's next
 * frame (the run's start, the set point and the output's frames so far)
 * behind the input it is made from (the engine's position, the input
 * given since and buf's timestamp). The factor for the output rate from
 * buf on. */
static gdouble
gst_cl_resample_follow (GstClResample * self, GstBuffer * buf,
    gboolean * discont)
{
  const gint in_rate = GST_AUDIO_INFO_RATE (&self->in_info);
  const gint out_rate = GST_AUDIO_INFO_RATE (&self->out_info);
  int64_t n;
  uint64_t phase, denom;
  gdouble lag;
  GstClockTime out_time;

  /* (the same check as the run's, from where the buffer before ended) */
  *discont = self->engine && self->run.started
      && gst_clr_is_discont (GST_ELEMENT (self), buf, self->drift.last_pts,
      self->drift.last_frames, in_rate);
  if (!self->engine || !self->run.started || *discont
      || !GST_CLOCK_TIME_IS_VALID (self->run.t0))
    return gst_clr_drift_get_factor (&self->drift);
  clr_engine_get_position (self->engine, &n, &phase, &denom);
  lag = (gdouble) (clr_engine_get_in_total (self->engine) +
      self->held.frames) - ((gdouble) n + (gdouble) phase / denom);
  out_time = self->run.t0 + self->drift.delay +
      gst_util_uint64_scale_int_round (clr_engine_get_out_total
      (self->engine), GST_SECOND, out_rate);
  return gst_clr_drift_measure (&self->drift, GST_ELEMENT (self), buf,
      out_time, lag, in_rate);
}

/* Runs before basetransform sizes the output buffer: a discontinuity drains
 * the old run here, so the new run's output size is what gets allocated. */
static void
gst_cl_resample_before_transform (GstBaseTransform * trans, GstBuffer * buf)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);
  gboolean held_before = self->may_hold, changed, adjust_changed;
  gboolean follow_discont = FALSE, discont;
  GstClockTime max_hold, lead = 0;
  gdouble adjust;

  GST_OBJECT_LOCK (self);
  max_hold = self->max_hold;
  changed = self->props_changed;
  adjust = self->rate_adjust;
  adjust_changed = self->adjust_changed;
  self->adjust_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  /* the loop's factor in place of rate-adjust's, and a short hold */
  if (self->following) {
    adjust = gst_cl_resample_follow (self, buf, &follow_discont);
    adjust_changed = FALSE;
    max_hold = MIN (max_hold, GST_CLR_DRIFT_MAX_HOLD);
  }
  /* The first factor other than 1.0 leaves the exact ratio for a variable
   * one: a new engine continues the stream, built off this thread as for a
   * change of quality, while the exact one plays on. A factor below what
   * the variable filter serves without aliasing has one built for it. */
  if (adjust_changed && adjust != 1.0 && !self->engine_variable
      && GST_AUDIO_INFO_IS_VALID (&self->in_info)) {
    /* (again after a switch that failed: each new value tries anew) */
    self->variable = TRUE;
    if (gst_base_transform_is_passthrough (trans))
      gst_cl_resample_leave_passthrough (self);
    else
      changed = TRUE;
  }
  if (self->engine_variable && adjust < MIN (self->engine_adjust_low,
          self->queued_adjust_low))
    changed = TRUE;
  /* asked even at max-hold 0: it learns whether upstream is live when a
   * run starts */
  self->may_hold = gst_cl_resample_may_hold (self, buf, &lead)
      && max_hold > 0;
  /* a live stream's buffers come at its audio's pace: its jobs may wait a
   * little for other streams' (the device's gathering window). Not a
   * stream that is not live: even below the hold's lead it may be
   * converting as fast as it can, catching up (on 2 cores, 16 such
   * streams' first 0.5 s of buffers, a third of their jobs, waited, and
   * they ran at 0.83-0.93x). max-hold=0 asks for no added delay at all. */
  if (self->engine)
    clr_engine_set_paced (self->engine, self->upstream_live && max_hold > 0);
  if (self->may_hold)
    self->hold_target = gst_cl_resample_hold_target (self, max_hold, lead);
  if (held_before != self->may_hold)
    GST_DEBUG_OBJECT (self, "%s at %" GST_TIME_FORMAT, self->may_hold ?
        "holding input" : "converting buffer by buffer",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)));
  /* the move off a stand-in CPU, once no driver is being loaded (the
   * builder acquires the device, open by then, and builds the engine) */
  if (self->move_pending && !clr_device_prefetching ())
    changed = TRUE;
  /* the new engine is built off this thread: no stall of the stream while
   * a long filter is designed */
  if (changed)
    gst_cl_resample_queue_rebuild (self);
  gst_cl_resample_apply_properties (self, buf);
  /* the factor from this buffer on, slewed (clr_engine_set_adjust ()):
   * here, so that transform_size () and transform () count the same. Input
   * held before it goes through first, at the factor it came with: else a
   * file's conversion applied each factor up to max-hold late, a ramp as
   * steps of half a second. */
  if (self->engine && self->engine_variable) {
    /* (the loop's factor is not the user's: held input takes it too) */
    if (!self->following
        && adjust != clr_engine_get_adjust_target (self->engine))
      gst_cl_resample_flush_held (self);
    clr_engine_set_adjust (self->engine, adjust);
  }

  if (self->engine && self->run.started) {
    /* a GAP buffer costs no device work, and goes out on its own */
    if (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
      gst_cl_resample_flush_held (self);
    /* a stream that follows drift leaves its sample count's timeline by
     * design: checked against the buffer before instead */
    discont = self->following ? follow_discont :
        gst_clr_is_discont (GST_ELEMENT (self), buf, self->run.t0,
        clr_engine_get_in_total (self->engine) + self->held.frames,
        GST_AUDIO_INFO_RATE (&self->in_info));
    if (discont)
      gst_cl_resample_drain (self);
  }
  if (self->following && GST_AUDIO_INFO_BPF (&self->in_info) > 0)
    gst_clr_drift_note (&self->drift, buf, gst_buffer_get_size (buf) /
        GST_AUDIO_INFO_BPF (&self->in_info));
}

static GstFlowReturn
gst_cl_resample_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);
  GstAudioBuffer in_ab, out_ab;
  GError *err = NULL;
  size_t in_frames, out_frames = 0, expected;
  guint64 first;
  gboolean gap, silent_out, ok;
  gsize out_bpf = GST_AUDIO_INFO_BPF (&self->out_info);
  /* the engine reads a pointer a plane even when it writes no frame */
  void *no_planes[CLR_CHANNELS_MAX] = { NULL };
  void *held_planes[CLR_CHANNELS_MAX];
  gpointer *in_planes;

  if (G_UNLIKELY (!self->engine))
    goto not_negotiated;
  if (G_UNLIKELY (self->run.pending_flow != GST_FLOW_OK))
    return gst_clr_run_take_flow (&self->run);
  gst_clr_run_begin (&self->run, inbuf, GST_AUDIO_INFO_RATE (&self->out_info));

  gap = GST_BUFFER_FLAG_IS_SET (inbuf, GST_BUFFER_FLAG_GAP);
  if (!gst_clr_edge_map (&self->in_edge, &in_ab, inbuf, GST_MAP_READ))
    goto map_failed;
  in_frames = in_ab.n_samples;
  in_planes = in_ab.planes;
  if (gst_cl_resample_hold_this (self, in_frames)) {
    gst_clr_input_batch_append (&self->held, in_ab.planes, in_frames);
    gst_clr_edge_unmap (&self->in_edge, &in_ab);
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  }
  if (gap && !clr_engine_is_silent (self->engine)) {
    guint64 need = clr_engine_silence_needed (self->engine);

    /* A GAP after audio: the silence the filter's tail needs goes
     * through it and out as a buffer of its own, real samples; the rest
     * of the GAP then comes out as a GAP buffer. As audioresample splits
     * it. */
    if (need > 0 && need < in_frames) {
      GstFlowReturn ret = gst_cl_resample_push_out (self, NULL, need,
          "the filter's tail into a GAP");

      if (ret != GST_FLOW_OK) {
        gst_clr_edge_unmap (&self->in_edge, &in_ab);
        return ret;
      }
      in_frames -= need;
    }
  }
  if (self->held.frames > 0) {
    /* this buffer completes the batch: all of it in one launch */
    gst_clr_input_batch_append (&self->held, in_ab.planes, in_frames);
    gst_clr_input_batch_planes (&self->held, held_planes);
    in_planes = held_planes;
    in_frames = self->held.frames;
  }
  expected = clr_engine_out_frames (self->engine, in_frames);
  if (G_UNLIKELY (gst_buffer_get_size (outbuf) < expected * out_bpf))
    goto too_small;
  gst_clr_resize_output (outbuf, &self->out_info, expected);
  if (expected > 0 && !gst_clr_edge_map (&self->out_edge, &out_ab, outbuf,
          GST_MAP_WRITE)) {
    gst_clr_edge_unmap (&self->in_edge, &in_ab);
    gst_clr_input_batch_clear (&self->held);
    goto map_failed;
  }

  silent_out = gap && clr_engine_is_silent (self->engine);
  first = clr_engine_get_out_total (self->engine);
  ok = gst_cl_resample_process (self, gap ? NULL :
      (const void *const *) in_planes, in_frames,
      expected > 0 ? out_ab.planes : no_planes, &out_frames, &err);
  if (expected > 0)
    gst_clr_edge_unmap (&self->out_edge, &out_ab);
  gst_clr_edge_unmap (&self->in_edge, &in_ab);
  gst_clr_input_batch_clear (&self->held);
  if (!ok)
    goto failed;
  g_assert (out_frames == expected);

  if (out_frames == 0)
    return GST_BASE_TRANSFORM_FLOW_DROPPED;
  gst_cl_resample_stamp (self, outbuf, first, out_frames);
  if (silent_out)
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_GAP);
  else
    GST_BUFFER_FLAG_UNSET (outbuf, GST_BUFFER_FLAG_GAP);
  return GST_FLOW_OK;

not_negotiated:
  return gst_clr_not_negotiated (GST_ELEMENT (self));
map_failed:
  return gst_clr_map_failed (GST_ELEMENT (self));
too_small:
  gst_clr_edge_unmap (&self->in_edge, &in_ab);
  gst_clr_input_batch_clear (&self->held);
  GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL),
      ("output buffer of %" G_GSIZE_FORMAT " bytes, need %" G_GSIZE_FORMAT,
          gst_buffer_get_size (outbuf), expected * out_bpf));
  return GST_FLOW_ERROR;
failed:
  gst_cl_resample_post_failed (self, err);
  return GST_FLOW_ERROR;
}

/* Input held back, or too short to complete an output frame, is no loss
 * (gst_clr_generate_output()). */
static GstFlowReturn
gst_cl_resample_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  return gst_clr_generate_output (GST_BASE_TRANSFORM_CLASS (parent_class),
      trans, outbuf);
}

/* Output buffers in page-locked memory when the engine stages through it
 * (GPUs): a large buffer's result then lands in them directly, not through
 * the scheduler's staging (clr_engine_run_job ()). Downstream's own pool,
 * if it offers one, wins. */
static gboolean
gst_cl_resample_decide_allocation (GstBaseTransform * trans, GstQuery * query)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);

  if (self->engine && clr_engine_get_pinned (self->engine)
      && gst_query_get_n_allocation_pools (query) == 0) {
    GstAllocator *allocator = gst_clr_pinned_allocator_new (self->device);
    GstAllocationParams params;

    gst_allocation_params_init (&params);
    if (gst_query_get_n_allocation_params (query) > 0) {
      gst_query_parse_nth_allocation_param (query, 0, NULL, &params);
      gst_query_set_nth_allocation_param (query, 0, allocator, &params);
    } else {
      gst_query_add_allocation_param (query, allocator, &params);
    }
    GST_DEBUG_OBJECT (self, "page-locked output buffers");
    gst_object_unref (allocator);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* Input outside the segment is clipped away before it reaches the filter,
 * so the output starts where the segment does (after a seek, say). */
static GstFlowReturn
gst_cl_resample_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);

  input = gst_clr_clip_input (trans, &self->in_info, input);
  if (!input)
    return GST_FLOW_OK;         /* wholly outside the segment */
  return GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
}

static gboolean
gst_cl_resample_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      gst_cl_resample_reset_stream (self);
      self->run.pending_flow = GST_FLOW_OK;
      break;
    default:
      /* The run's tail belongs before an event that ends it (EOS, new
       * caps, a loop's or a seek's new segment, a new stream), with the
       * old timestamps, as audioresample drains; equal caps or the same
       * segment again change nothing. */
      if (gst_clr_event_ends_run (trans, event))
        gst_cl_resample_drain (self);
      /* the output of held input comes before what followed it */
      else if (GST_EVENT_IS_SERIALIZED (event))
        gst_cl_resample_flush_held (self);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cl_resample_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstClResample *self = GST_CL_RESAMPLE (trans);
  gboolean res;

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY
      && !gst_base_transform_is_passthrough (trans)
      && gst_clr_query_latency (trans, query, &self->latency, &res))
    return res;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}
