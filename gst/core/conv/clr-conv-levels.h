/* clresample: non-uniform partitions for long filters, GStreamer-free.
 *
 * A filter of P partitions of B taps costs every block P spectra
 * multiplied and added: a million taps at B = 1024 are 1024 of them a
 * block. With levels (Gardner 1995), the head of the filter is cut in
 * blocks of the latency asked for and each later segment in longer
 * blocks, which are summed once per their own, longer, block: level i, of
 * blocks B_i, covers taps [start_i, start_i+1) and its output is wanted
 * delay_i = B_0 + start_i - B_i frames after it comes, so start_i >= B_i -
 * B_0. clr-conv.c runs each level as a uniformly partitioned convolution
 * of its own, fed the same input, and adds their outputs, each through a
 * delay line (ClrConvDelay), to the head's.
 */
#ifndef __CLR_CONV_LEVELS_H__
#define __CLR_CONV_LEVELS_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>

G_BEGIN_DECLS

#define CLR_CONV_LEVELS_MAX 8u

typedef struct {
  unsigned n;                   /* levels, 1: uniform */
  uint32_t block[CLR_CONV_LEVELS_MAX];
  size_t start[CLR_CONV_LEVELS_MAX];    /* start[0] = 0 */
  size_t taps[CLR_CONV_LEVELS_MAX];
  double cost;                  /* the model's ns a frame */
} ClrConvLevelPlan;

/* What a level costs on a device class: fft_ns its two transforms and
 * mac_ns each of its partitions' multiply-add, in ns a frame and channel;
 * call_ns what running one of its blocks costs whatever its size and
 * channels (launches, the wait for them). fft_by_log2, where given, holds
 * the transforms' cost for blocks of 2^k frames at [k] (k <= 14), in
 * place of the one fft_ns: on the host, whose caches a long transform
 * outgrows, it grows with the block. */
typedef struct {
  double fft_ns, mac_ns, call_ns;
  const double *fft_by_log2;
} ClrConvCosts;

/* The cheapest plan by `costs` for `taps` taps whose head runs in blocks
 * of `block` (a power of two), its levels' blocks powers of two up to
 * max_block, for `planes` channels (or outputs): uniform (n = 1) where no
 * split is cheaper. With slack, each level starts two blocks of its own
 * later than it must (start_i >= 3 B_i - B_0), so that run apart
 * (clr-conv-async.h) it has that long before its output is due: one
 * block was enough for a stream that comes a block at a time, but a call
 * of a whole buffer (wavparse's 1920 frames) then waited for the block it
 * had just completed (whole processes, 65536 taps at B = 256: 0.58 s with
 * one block, 0.46-0.49 with two, 0.41-0.49 with three). */
void clr_conv_levels_plan (size_t taps, uint32_t block, uint32_t max_block,
    unsigned planes, gboolean slack, const ClrConvCosts * costs,
    ClrConvLevelPlan * plan);

/* The plan whose levels' blocks grow by `factor` (a power of two; 1:
 * uniform), whatever it costs: for tests. */
void clr_conv_levels_plan_factor (size_t taps, uint32_t block,
    uint32_t max_block, unsigned planes, unsigned factor, gboolean slack,
    const ClrConvCosts * costs, ClrConvLevelPlan * plan);

/* A level's delay line: planes of samples (ssize bytes each) in rings,
 * which start with `delay` frames of silence. */
typedef struct {
  char *data;
  size_t planes, cap, ssize, delay;
  size_t start, len;
} ClrConvDelay;

/* FALSE when out of host memory; room for `delay` + `most` frames. */
gboolean clr_conv_delay_init (ClrConvDelay * d, size_t planes, size_t ssize,
    size_t delay, size_t most);
void clr_conv_delay_clear (ClrConvDelay * d);
/* Back to `delay` frames of silence. */
void clr_conv_delay_reset (ClrConvDelay * d);
/* Appends n frames, plane k's frame i at base + k pitch + i step
 * samples (base NULL: silence). */
void clr_conv_delay_push (ClrConvDelay * d, const void *base, size_t pitch,
    size_t step, size_t n);
/* n samples of ss bytes, the i-th at src + i sstep samples, to dst + i
 * dstep samples: one copy where both are contiguous, typed loops for
 * float and double (a memcpy a sample cost the levels' queues 4 % of a
 * stereo stream's time). */
void clr_conv_copy_samples (void *dst, size_t dstep, const void *src,
    size_t sstep, size_t n, size_t ss);
/* Takes the n oldest frames into planes, plane k's frame i at planes +
 * k pitch + i samples. */
void clr_conv_delay_take (ClrConvDelay * d, void *planes, size_t pitch,
    size_t n);
/* Takes the n oldest frames, adding them (float or double: f64) to planes
 * of doubles, plane k's frame i at sums + k pitch + i. */
void clr_conv_delay_add_to_double (ClrConvDelay * d, gboolean f64,
    double *sums, size_t pitch, size_t n);

G_END_DECLS
#endif
