/* clresample: streaming long-FIR convolution on an OpenCL device,
 * GStreamer-free.
 *
 * Uniformly partitioned overlap-save (UPOLS): the filter is cut into P
 * partitions of B taps whose 2B-point spectra are computed once, in double,
 * at creation; every B input frames make one block, whose spectrum enters a
 * frequency-domain delay line, and the block's output is the inverse
 * transform of the sum over p of (spectrum of block - p) x (partition p).
 *
 * Output frame t of a stream is y[t - L], y = x * h the full linear
 * convolution (y[n] = sum over k of h[k] x[n - k]), L the block (= B, or a
 * hop of another length with the filter in one partition) the latency: each
 * call gives as many output frames as it takes input frames, the first L of
 * a stream are silence, and clr_conv_drain() gives the remaining L + taps - 1
 * frames. Output does not depend on how the input is cut into calls (bit for
 * bit): whole blocks are computed the same way whatever the batch.
 *
 * Samples are planar: one array per channel, float (F32) or double (F64).
 * A ClrConv is used by one thread at a time; several share a device.
 */
#ifndef __CLR_CONV_H__
#define __CLR_CONV_H__

#include <stdint.h>
#include <stddef.h>
#include "device/clr-device.h"
#include "device/clr-tuning.h"
#include "clr-conv-levels.h"

G_BEGIN_DECLS

#define CLR_CONV_BLOCK_MIN 16u
#define CLR_CONV_BLOCK_MAX 16384u
/* blocks that are no power of two: multiples of CLR_CONV_BLOCK_MIN up to */
#define CLR_CONV_HOP_MAX (2 * CLR_CONV_BLOCK_MAX - CLR_CONV_BLOCK_MIN)
#define CLR_CONV_CHANNELS_MAX 256u
/* channels x outputs at most */
#define CLR_CONV_OUTPUTS_MAX 1024u
/* keeps every index the kernels compute in 32 bits within range */
#define CLR_CONV_TAPS_MAX (1u << 30)
/* Frames added to the pitch of planes a reader walks frame by frame, one
 * sample from each plane in turn (the conv's output fifo, its callers'
 * work planes): a cache line of doubles, so that the planes do not sit a
 * multiple of 4 KiB apart, share one cache set and evict each other (32
 * planes 64 KiB apart made the FFT path's output 1.7x slower under perf). */
#define CLR_CONV_PLANE_PAD 16u

typedef enum {
  CLR_CONV_F32,                 /* float samples, float transforms */
  CLR_CONV_F64,                 /* double throughout; needs cl_khr_fp64 */
} ClrConvFormat;

typedef struct {
  uint32_t channels;
  /* Frames a block: the latency. A power of two (16 .. 16384) is also the
   * partition, B. Any other multiple of 16 (up to CLR_CONV_HOP_MAX) needs
   * the whole filter in one partition: the block and the filter's reach,
   * H + taps - 1 frames, within one transform of 2B <= 32768 points, B a
   * power of two (plain overlap-save). Such a block gets more output out
   * of each transform: 8191 taps in 32768-point transforms give up to
   * 24578 frames a block, against 16384 at B = 16384. */
  uint32_t block;
  ClrConvFormat format;
  /* n_filters filters of n_taps taps each: n_filters is 1 (one filter for
   * every channel) or `channels` (filter c for channel c) */
  const double *const *taps;
  size_t n_taps;
  uint32_t n_filters;
  /* Outputs a channel, K (0 or 1: one, as above). With K > 1 each input
   * channel is transformed once a block and filtered by K filters (the
   * bands of a crossover): the output has channels x K planes, band-major
   * (plane k channels + c: filter k on channel c), and n_filters is K (filter
   * k on every channel) or K x channels (filter k channels + c). */
  uint32_t outputs;
  /* Input frames the conv keeps (on the device, written by its forward
   * transform: no pass of the host's) for clr_conv_read_history(): what
   * a successor with another filter is primed with. 0: none. */
  size_t history;
  /* The layout of the samples sources and sinks see (and of the device's
   * buffers): FALSE, planes (one a channel or output); TRUE, interleaved
   * frames (every channel's sample in turn), which a caller with
   * interleaved buffers then copies whole. clr_conv_process()'s and
   * clr_conv_read_history()'s planes are planes either way. */
  gboolean interleaved;
  /* F32: transforms in float even where the device has doubles. About
   * 1.5x faster on CPUs, but the output's error grows from ~3e-7 to
   * ~8e-7 of its RMS (docs/convolution.md): for a caller whose result
   * does not hang on it (clcrossover's top band is taken by subtraction,
   * so its bands still sum to the input to within rounding). */
  gboolean float_transforms;
  /* With interleaved: the outputs in planes all the same (the input stays
   * interleaved), for a caller that rearranges them anyway. On CPUs each
   * output's transform then stores whole vectors into a plane of its own
   * instead of every n-th sample of rows the other outputs' transforms
   * write into too (clcrossover: a 20480-frame block's inverse transforms
   * 340-395 -> 260-300 us on PoCL). */
  gboolean planar_outputs;
} ClrConvConfig;

typedef struct _ClrConv ClrConv;

/* Fails with a CLR_ERROR when the configuration is invalid (empty filter,
 * non-finite taps, a block that is no power of two, ...), F64 is asked of a
 * device without doubles, B complex values do not fit the device's local
 * memory, or the buffers pass the device-memory budget
 * (CLRESAMPLE_DEVICE_MEMORY, bytes) or what the device can allocate. */
ClrConv *clr_conv_new (ClrDevice * dev, const ClrConvConfig * cfg,
    GError ** error);
/* The same under the given settings instead of the environment's
 * (clr_tuning_get()): for tests that try several within one process. */
ClrConv *clr_conv_new_tuned (ClrDevice * dev, const ClrConvConfig * cfg,
    const ClrTuning * tuning, GError ** error);
void clr_conv_free (ClrConv * c);

/* L, the block: output frame t is y[t - L]. */
uint32_t clr_conv_get_latency (ClrConv * c);

/* Frames clr_conv_drain() writes: L + taps - 1. */
size_t clr_conv_get_drain_frames (ClrConv * c);

/* How the filter is cut: one level of uniform partitions, or the levels
 * of non-uniform ones (clr-conv-levels.h), each level's block, first tap
 * and taps. */
const ClrConvLevelPlan *clr_conv_get_plan (ClrConv * c);

/* Device memory the conv holds, its levels' included: bytes counted
 * against CLRESAMPLE_DEVICE_MEMORY, one budget for all of them. */
guint64 clr_conv_get_device_memory (ClrConv * c);

/* Output planes: channels x outputs (clr_conv_get_outputs () planes). */
uint32_t clr_conv_get_outputs (ClrConv * c);

/* Takes `frames` frames from in (one plane a channel; in == NULL: silence)
 * and writes `frames` frames to out (one plane an output). After an error the stream is lost:
 * reset before further input. */
gboolean clr_conv_process (ClrConv * c, const void *const *in, size_t frames,
    void *const *out, GError ** error);

/* Where clr_conv_process_to() hands its output: n frames, output k's
 * frame i at base + k * pitch + i * step samples (of the conv's format;
 * step 1 for planes, the outputs when interleaved), valid until the call
 * returns. Called in order, n summing to the frames taken. */
typedef void (*ClrConvSink) (gpointer user, const void *base, size_t pitch,
    size_t step, size_t n);

/* clr_conv_process() that hands its output to sink in place instead of
 * copying it into planes: for a caller that rearranges it anyway. */
gboolean clr_conv_process_to (ClrConv * c, const void *const *in,
    size_t frames, ClrConvSink sink, gpointer user, GError ** error);

/* Where clr_conv_process_with() takes its input from: the call's frames
 * [from, from + n), written by the source into the conv's own buffer,
 * channel c's frame i (counted from `from`) at base + c * pitch + i * step
 * samples (of the conv's format). Called in order, n summing to the
 * call's frames. */
typedef void (*ClrConvSource) (gpointer user, void *base, size_t pitch,
    size_t step, size_t from, size_t n);

/* clr_conv_process_to() whose input the source writes in place (NULL:
 * silence): for a caller that converts or deinterleaves it anyway. */
gboolean clr_conv_process_with (ClrConv * c, ClrConvSource source,
    gpointer source_user, size_t frames, ClrConvSink sink, gpointer user,
    GError ** error);

/* Ends the stream: writes the clr_conv_get_drain_frames() frames that
 * complete y. Reset before further input. */
gboolean clr_conv_drain (ClrConv * c, void *const *out, GError ** error);

/* Forgets the stream: the next input starts a new one. Where the device
 * fails to clear the delay line, the next clr_conv_process () (and drain)
 * fails with that error instead of reading the old stream as this one's
 * past. */
void clr_conv_reset (ClrConv * c);

/* After a reset, before any input: the caller will drop the first
 * `frames` frames it is handed (a filter's compensated delay). Blocks
 * whose output lies wholly within them may be left uncomputed: on the
 * host their frames come out as zeros, their sums and inverse transforms
 * skipped, so that a stream's start and every seek come sooner. Every
 * frame after them is as without the call. */
void clr_conv_discard (ClrConv * c, uint64_t frames);

/* Input frames clr_conv_read_history() can give: those taken since the
 * reset, at most the configured history. */
size_t clr_conv_get_history_len (ClrConv * c);

/* Input frames [len - back, len - back + n) of the history (len:
 * clr_conv_get_history_len(), n <= back <= len) into host planes, one a
 * channel, in the conv's format. */
gboolean clr_conv_read_history (ClrConv * c, size_t back, size_t n,
    void *const *planes, GError ** error);

/* The block nearest `block` (at most it, where it can be) that
 * clr_conv_new () takes for n_taps taps on a device whose largest block is
 * max_block (clr_conv_max_block ()): block itself where it is valid;
 * else a multiple of CLR_CONV_BLOCK_MIN below it whose transform holds the
 * whole filter within max_block; else the largest power of two up to it
 * (CLR_CONV_BLOCK_MIN ... max_block). On an H100 (2048) clcrossover's
 * block-size=1000 with 8191 taps took 992, whose 8192-point half
 * transform its local memory cannot hold: now 512. */
uint32_t clr_conv_workable_block (uint32_t block, size_t n_taps,
    uint32_t max_block);

/* The largest block (a power of two, CLR_CONV_BLOCK_MIN ...
 * CLR_CONV_BLOCK_MAX) whose transforms fit the device's local memory:
 * clr_conv_new() refuses larger ones. */
uint32_t clr_conv_max_block (ClrDevice * dev);

G_END_DECLS
#endif
