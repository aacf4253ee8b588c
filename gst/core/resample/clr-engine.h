/* clresample: the streaming resampler on an OpenCL device, GStreamer-free.
 *
 * Feed it interleaved float frames in buffers of any size; it returns every
 * output frame whose filter support is complete, keeping the per-channel
 * history on the device so consecutive buffers join seamlessly. The filter
 * delay is compensated: output frame 0 is aligned with input frame 0 (the
 * filter sees zeros before the stream), and clr_engine_drain() produces the
 * tail so that a stream of N input frames gives exactly ceil(N * out / in)
 * output frames.
 */
#ifndef __CLR_ENGINE_H__
#define __CLR_ENGINE_H__

#include <stdint.h>
#include <stddef.h>
#include "device/clr-device.h"
#include "design/clr-filter.h"
#include "clr-format.h"
#include "design/clr-rate.h"
#include "device/clr-tuning.h"

G_BEGIN_DECLS

/* Rates above this are refused: nothing real runs faster, and refusing keeps
 * every product in the rate arithmetic far from overflow. */
#define CLR_RATE_MAX 16000000u
/* A conversion may change the rate by at most this factor either way. */
#define CLR_RATIO_MAX 1024u

/* Variable ratio (rate adjust, issue 48). The output rate is out_rate
 * times a factor `adjust` that may change at any time: no I/D reduces such
 * a ratio, so a variable engine fixes the phase denominator at
 * CLR_VAR_I = 2^32 and steps D = round (2^32 * in_rate / (out_rate *
 * adjust)) input phases an output frame. Positions stay exact integer
 * math (an origin at the next output, moved on after every job, so no
 * error accumulates however long the stream); the rate is then exact to
 * 1/D (0.00025 ppm at 44.1 -> 48 kHz), and an output's time to 2^-32 of an
 * input sample. 2^32 keeps every product below 2^63: a job's positions
 * reach (its input frames, at most 2^24) * 2^32, and the kernels' p *
 * grid 2^42. The coefficients come from the interpolated grid
 * (clr_resample_interp), as for coprime fixed ratios. */
#define CLR_VAR_I (G_GUINT64_CONSTANT (1) << 32)
/* The factors a variable engine takes: +-5 % */
#define CLR_ADJUST_MIN 0.95
#define CLR_ADJUST_MAX 1.05
/* A change of the factor is slewed, the frequency smooth to its slope
 * (clr-slew.h): the slope of the step moves in a straight line to a peak
 * and back to 0 at the target, over CLR_ADJUST_SLEW_TIME seconds of
 * output, or longer where the mean would pass CLR_ADJUST_SLEW_PPM ppm a
 * second: +5 ppm takes 20 ms, +200 ppm too (10000 ppm/s on average), the
 * whole range 10 s. A new target restarts it from the step and the slope
 * of the next output; targets set every few ms (a ramp's, a drift
 * loop's) slew over halves of 10 to 80 ms fitted to their interval, so
 * that the step follows them in a curve without corners. Steps of the
 * factor (the slew in 1 ms cells of earlier versions) put sidebands
 * around every tone: -116 dB THD+N for a ramp of 500 ppm/s set every 10
 * ms, against -147 dB now at quality 4 (tests/quality/clr-drift-quality);
 * straight slews, each a corner of the frequency where the next began,
 * -166.7 dB at quality 10, F64, against -213.6 now and -216.1 at a fixed
 * ratio. */
#define CLR_ADJUST_SLEW_PPM 10000.0
#define CLR_ADJUST_SLEW_TIME 0.020

typedef struct {
  uint32_t in_rate;
  uint32_t out_rate;
  uint32_t channels;
  int quality;                  /* CLR_QUALITY_MIN .. CLR_QUALITY_MAX */
  uint32_t taps;                /* taps per phase; 0 = from quality */
  ClrFormat format;             /* native endianness */
  gboolean planar;              /* one plane per channel, else interleaved */
  uint32_t history;             /* input frames of history to keep at least,
                                 * so that a successor engine with a longer
                                 * filter can continue seamlessly; 0 = only
                                 * what this filter needs */
  double cutoff;                /* the passband's end, a fraction of the
                                 * lower Nyquist (CLR_CUTOFF_MIN ..
                                 * CLR_CUTOFF_MAX); 0 = from quality */
  double phase;                 /* 0 linear, 0.5 intermediate, 1 minimum
                                 * (clr-phase.h) */
  gboolean variable;            /* a variable ratio (CLR_VAR_I): the rate
                                 * adjust may change while running */
  double adjust;                /* variable: the factor on out_rate the
                                 * stream starts at (0: 1.0) */
  double adjust_low;            /* variable: the lowest factor the filter
                                 * serves without aliasing (0: 1.0): its
                                 * lower Nyquist is min (in_rate,
                                 * out_rate * adjust_low) / 2 */
} ClrEngineConfig;

typedef struct _ClrEngine ClrEngine;

/* Checks a configuration without a device: rates, ratio, channels. */
gboolean clr_engine_config_validate (const ClrEngineConfig * cfg,
    GError ** error);

ClrEngine *clr_engine_new (ClrDevice * dev, const ClrEngineConfig * cfg,
    GError ** error);
/* The same under the given overrides instead of the environment's
 * (clr_tuning_get()): for tests that try several within one process. */
ClrEngine *clr_engine_new_tuned (ClrDevice * dev,
    const ClrEngineConfig * cfg, const ClrTuning * tuning, GError ** error);
void clr_engine_free (ClrEngine * e);

const ClrFilter *clr_engine_get_filter (ClrEngine * e);
const ClrRatio *clr_engine_get_ratio (ClrEngine * e);
const ClrBankLayout *clr_engine_get_bank (ClrEngine * e);
/* The kernel of resample.cl the engine runs (clr-kernel-plan.h); NULL on
 * the FFT path. For tests and logs. */
const char *clr_engine_get_kernel (ClrEngine * e);

/* Whether the engine's sums run on the host (a CPU device's stream:
 * clr-resample-host.h), not in the device's kernels */
gboolean clr_engine_is_host (ClrEngine * e);

/* A call's output at least this large goes straight into the caller's
 * memory when that is page-locked (clr_host_alloc (), clr-hostmem.h): one
 * transfer of its own, against a copy from the scheduler's staging that
 * cost a 1.5 MB buffer 75 us (H200, W2). Smaller ones share their batch's
 * one download, which is what lets many streams share a batch. */
#define CLR_ENGINE_DIRECT_MIN_BYTES (256u * 1024u)

/* TRUE if the device takes its output through page-locked memory (GPUs),
 * so that outputs past CLR_ENGINE_DIRECT_MIN_BYTES may land in such
 * memory directly. */
gboolean clr_engine_get_pinned (ClrEngine * e);

/* Whether the stream's input comes at the pace of its audio (a live
 * source), not as fast as it can be converted: then each job may wait a
 * little on the device's scheduler for other streams' jobs to share its
 * launch (clr-sched.c's gathering window: at most a tenth of its audio
 * and a millisecond), where a throughput-bound stream's jobs never wait.
 * FALSE from the start. */
void clr_engine_set_paced (ClrEngine * e, gboolean paced);

/* Variable engines only: the factor on the output rate to slew to
 * (CLR_ADJUST_SLEW_TIME), from the next output frame on; the same target
 * again leaves a slew as it is. Where the
 * stream has not started (no input since the reset), it applies at once.
 * FALSE (and nothing changes) outside CLR_ADJUST_MIN .. CLR_ADJUST_MAX or
 * on a fixed-ratio engine. */
gboolean clr_engine_set_adjust (ClrEngine * e, double adjust);
/* The factor in effect now (1.0 on a fixed-ratio engine), and the one it
 * slews to. */
double clr_engine_get_adjust (ClrEngine * e);
double clr_engine_get_adjust_target (ClrEngine * e);
/* Whether the engine runs a variable ratio (ClrEngineConfig.variable) */
gboolean clr_engine_is_variable (ClrEngine * e);
/* The input position of the next output frame, as n + phase / denom (a
 * variable engine's denom is CLR_VAR_I; a fixed one's I): for tests. */
void clr_engine_get_position (ClrEngine * e, int64_t * n, uint64_t * phase,
    uint64_t * denom);

/* Input frames of delay the filter adds: output frame m needs input up to
 * t(m) + K/2. */
uint32_t clr_engine_get_latency (ClrEngine * e);

/* How many streams' jobs the device's batches hold lately (1 when this
 * stream has the device to itself). */
guint clr_engine_get_company (ClrEngine * e);

/* Output frames the next clr_engine_process() of in_frames frames returns. */
size_t clr_engine_out_frames (ClrEngine * e, size_t in_frames);

/* Output frames clr_engine_drain() returns now. */
size_t clr_engine_drain_frames (ClrEngine * e);

/* Pushes in_frames frames and writes the output frames that became complete.
 * Samples are in the configured format; `in` and `out` hold one pointer for
 * interleaved data, one per channel (plane) for planar data. in == NULL means
 * in_frames frames of silence, which cost no device work once the history is
 * silent too. out must have room for clr_engine_out_frames (e, in_frames)
 * frames; *out_frames gets the count. */
gboolean clr_engine_process (ClrEngine * e, const void *const *in,
    size_t in_frames, void *const *out, size_t * out_frames, GError ** error);

/* Ends the stream: writes the remaining clr_engine_drain_frames() frames.
 * The engine must be reset before further input. */
gboolean clr_engine_drain (ClrEngine * e, void *const *out,
    size_t * out_frames, GError ** error);

/* Whether the last clr_engine_process () or clr_engine_drain () failed
 * because of the device: a job the device's scheduler could not run, even
 * alone after its batch failed (clr-sched.c), or room for it on the
 * device. Such a failure leaves the stream where the work that failed
 * began: the input before it taken, every output frame written counted
 * (clr_engine_get_in_total (), clr_engine_get_out_total ()), so that an
 * engine on another device, continued from this one
 * (clr_engine_continue_from ()), finishes the call. */
gboolean clr_engine_device_failed (ClrEngine * e);

/* Finishes the clr_engine_process (failed, in, in_frames, out, ...) that
 * failed on its device, failed's input and output positions at in0 and
 * out0 before it: e, continued from failed, takes the input failed did
 * not and writes the output frames failed did not. *out_frames counts
 * both engines' frames of the call, as the call would have. */
gboolean clr_engine_process_rest (ClrEngine * e, uint64_t in0, uint64_t out0,
    const void *const *in, size_t in_frames, void *const *out,
    size_t * out_frames, GError ** error);
/* The same for a clr_engine_drain () that failed on its device. */
gboolean clr_engine_drain_rest (ClrEngine * e, uint64_t out0,
    void *const *out, size_t * out_frames, GError ** error);

/* TRUE when the history holds only silence, so silent input (GAP buffers)
 * gives silent output and costs no device work. */
gboolean clr_engine_is_silent (ClrEngine * e);

/* Input frames of silence after which clr_engine_is_silent () holds: the
 * filter's reach (0: it holds now). The output of that much silence is
 * the filter's tail, real samples; what comes after it is silence. */
uint64_t clr_engine_silence_needed (ClrEngine * e);

/* Makes `e`, fresh from clr_engine_new(), continue the stream `old` was
 * processing, as if it had processed it from the start: same input position
 * and history, its first output frame the first one at or after the time of
 * old's next output. Both must have the same input rate, channels, format
 * and layout; rates out, filter and device may differ. History older than
 * what `old` kept reads as silence. */
gboolean clr_engine_continue_from (ClrEngine * e, ClrEngine * old,
    GError ** error);

/* The same in two steps, so that the costly one runs off the streaming
 * thread: a snapshot of old's stream (its history copied: cheap) taken
 * where old runs; e continued from it anywhere (the FFT path runs the
 * history through its convolution here: 40-90 ms for a million taps on
 * two CPU cores); then, where old runs again, e caught up with what old
 * took since (only that runs through the convolution). Where it cannot
 * catch up (the direct kernels, whose continuation is a copy; a stream
 * restarted since), clr_engine_catch_up () continues afresh from old. In
 * all cases e then continues old's stream as clr_engine_continue_from ()
 * makes it, but for the FFT path's block grid, which starts at the
 * snapshot's history instead of at the catch-up's (the same output to
 * within the transforms' rounding). */
typedef struct _ClrEngineSnapshot ClrEngineSnapshot;
ClrEngineSnapshot *clr_engine_snapshot (ClrEngine * old, GError ** error);
void clr_engine_snapshot_free (ClrEngineSnapshot * s);
gboolean clr_engine_continue_from_snapshot (ClrEngine * e,
    const ClrEngineSnapshot * s, GError ** error);
gboolean clr_engine_catch_up (ClrEngine * e, ClrEngine * old,
    GError ** error);

/* Benchmarks the kernel alone, data already on the device: uploads in_frames
 * frames from `in` (layout and format as configured) once, then launches
 * the kernel over every output those frames complete, `iterations` times,
 * and returns the mean wall time of one launch (clFinish after the last;
 * one warm-up launch first). The outputs of the last launch are written to
 * `out` (room for clr_engine_out_frames (e, in_frames) frames), so they can
 * be checked. The engine is reset afterwards. */
gboolean clr_engine_bench_kernel (ClrEngine * e, const void *const *in,
    size_t in_frames, unsigned iterations, void *const *out,
    size_t * out_frames, double *seconds_per_launch, GError ** error);

/* Forgets history and counters: the next input starts a new stream. */
void clr_engine_reset (ClrEngine * e);

/* Frames pushed and produced since the last reset. */
uint64_t clr_engine_get_in_total (ClrEngine * e);
uint64_t clr_engine_get_out_total (ClrEngine * e);

G_END_DECLS
#endif
