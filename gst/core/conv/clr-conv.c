/* clresample: streaming UPOLS convolution. See clr-conv.h and
 * docs/convolution.md; the kernels are in kernels/conv.cl.
 *
 * A block is H frames (the hop; H = B, the partition, unless the filter
 * fits one transform: see clr-conv.h). Host-side bookkeeping, per channel:
 *   stage   [2B - H frames of history][pending input], what the next batch
 *           uploads: block b of the batch transforms stage frames
 *           [b H, b H + 2B)
 *   fifo    output computed but not yet handed out; a stream starts with H
 *           zeros in it (the latency), so that it always holds
 *           H - pending frames between calls
 * Whole blocks are processed in batches of up to max_batch blocks: one
 * upload, three kernel launches and one read-back a batch, so a large
 * buffer costs little more launch overhead than one block. On CPU devices
 * with shared virtual memory the stage and the fifo are the kernels' own
 * input and output: no upload or read-back, only the launches and a wait
 * (on PoCL each command is a hand-off to its threads; a 20480-frame
 * crossover block saved their two copies, 40 us, and about as much again
 * in hand-offs). With one partition there the two transforms are one
 * launch (clr_conv_block: host wall a 20480-frame crossover block
 * 517-574 -> 352-503 us).
 *
 * Short filters skip the transforms (direct form, clr-conv-direct.h);
 * long ones on CPUs are cut in levels, each a conv of its own
 * (clr-conv-levels.h), this one the head.
 */
#include <math.h>
#include <string.h>
#include "clr-conv.h"
#include "clr-conv-async.h"
#include "clr-conv-direct.h"
#include "clr-conv-host.h"
#include "clr-workers.h"
#include "clr-conv-levels.h"
#include "clr-conv-profile.h"
#include "clr-conv-shared.h"
#include "device/clr-budget.h"
#include "device/clr-hostmem.h"
#include "design/clr-fft-host.h"
#include "clr-kernel-sources.h"
#include "clr-log.h"

/* Frames a batch covers at most (or one block, if larger): bounds the
 * staging memory whatever the caller's buffer size. */
#define CLR_CONV_BATCH_FRAMES 16384u
/* work-items a transform: PoCL runs them as loops, GPUs as threads */
#define CLR_CONV_FFT_ITEMS 256u
/* the vector transforms (CLR_CONV_FFT_VEC): 8 x 8 blocks of values, so
 * B = N1 N2 with both at least 8 */
#define CLR_CONV_VEC_BLOCK_MIN 64u
/* the sum's work-items a group along the bins, 4 bins each: on CPUs as
 * many as the bins fill to within an eighth, up to CLR_CONV_MAC_ITEMS_CPU
 * (PoCL pays for every work-group: the 8 outputs' one-partition sum of
 * B = 16384 took 240 us in groups of 4, each already a vector), warps for
 * GPUs */
#define CLR_CONV_MAC_ITEMS_CPU 64u
#define CLR_CONV_MAC_ITEMS_GPU 64u
/* Partition slices on GPUs (CLR_CONV_SLICES in kernels/conv.cl): enough
 * work-items for a stream's single block to fill the device, each slice at
 * least CLR_CONV_SLICE_PARTS partitions long, at most CLR_CONV_SLICES_MAX
 * a work-group. */
#define CLR_CONV_SUM_ITEMS_GPU 131072u
/* Outputs a work-item of a one-block sum on GPUs with at least
 * CLR_CONV_OPW_OUTPUTS outputs: 64 channels x 262144 taps at B = 1024 on
 * an H100 summed in 67.5 us with 8 slices and 2 outputs a work-item,
 * against 114 us with 2 slices and 1 (docs/performance.md) */
#define CLR_CONV_OPW_GPU 2u
#define CLR_CONV_OPW_OUTPUTS 16u
#define CLR_CONV_SLICE_PARTS 8u
/* The delay-line spectra a one-block sum reads (outputs x partitions x
 * bins), from which on the sum runs ahead: it saves the sum's time where
 * the host's wait for the next input covers it, and costs a launch and a
 * flush of its own. H100, pipeline medians a block over three rounds,
 * ahead against not: 2 x 65536 taps at B = 256 (1 MiB) 49 against 48 us;
 * 2 x 1M (17 MiB) 61 against 74; 64 x 262144 at B = 1024 (134 MiB) 149
 * against 210 (docs/convolution.md) */
#define CLR_CONV_AHEAD_BYTES (8u << 20)
#define CLR_CONV_SLICES_MAX 256u
/* Filters of at most this many taps are summed in direct form on the host
 * (clr-conv-direct.h) rather than transformed (CLRESAMPLE_CONV_DIRECT):
 * see clr_conv_new_tuned () for the measured crossover. */
#define CLR_CONV_DIRECT_TAPS 64u
/* Calls of at least this many frames have their channels transformed
 * and summed side by side on the host's workers (clr-workers.h) */
#define CLR_CONV_THREADS_FRAMES 2048u
/* What a level of non-uniform partitions costs on CPU devices (PoCL 3.1,
 * the 2-core EPYC, F32, docs/convolution.md): the two transforms about
 * 6.3 ns a frame and channel at every block up to 4096, each partition's
 * multiply-add 0.53 ns, and a block's launches and wait 40 us. */
static const ClrConvCosts cpu_level_costs = { 6.3, 0.53, 40000.0 };
/* The same on the host's own transforms (clr-conv-host.h, one thread,
 * F32 with the spectra kept in float; clr-conv-bench offline, stereo,
 * one partition against 33): the two transforms 9.0 ns a frame and
 * channel at B = 256 up to 16.3 at 16384, each partition 0.4 ns, a
 * block's call 1 us. */
static const double host_fft_by_log2[15] = { 9.0, 9.0, 9.0, 9.0, 9.0, 9.0,
  9.0, 9.0, 9.0, 9.6, 10.6, 11.6, 13.2, 13.3, 16.3
};
static const ClrConvCosts host_level_costs = { 9.0, 0.4, 1000.0,
  host_fft_by_log2
};


struct _ClrConv {
  ClrDevice *dev;
  cl_command_queue queue;
  ClrBudget budget;

  uint32_t channels;            /* input channels */
  uint32_t n_out;               /* output planes: channels x outputs */
  uint32_t filter_div;          /* output o uses filter o / filter_div */
  uint32_t block;               /* B: half the transforms' length */
  uint32_t hop;                 /* H: frames a block (B, or P = 1) */
  size_t keep;                  /* 2B - H: history a block's window has */
  uint32_t parts;               /* P = ceil (taps / B), or 1 */
  uint32_t slots;               /* delay-line spectra: P + max_batch - 1 */
  uint32_t max_batch;           /* blocks a batch */
  uint32_t n_filters;
  size_t n_taps;
  size_t ssize;                 /* bytes a sample */
  size_t csize;                 /* bytes a complex value in memory */
  gboolean fft_double;          /* transforms in double (also for F32) */
  gboolean fft_vec;             /* a work-item a transform, in vectors */
  gboolean fused;               /* no sum: the inverse multiplies (P = 1) */
  /* fused, and both transforms in one launch (clr_conv_block) */
  gboolean one_launch;
  /* work-group transforms: the inverse adds partition 0's product, the
   * sum the others' (none with P = 1), so that after a one-block batch
   * the next block's sum can run ahead (sum_ahead), on spectra the device
   * already has, while the host goes for the next input; the sum is off
   * a real-time stream's path (docs/convolution.md) */
  gboolean newest_apart;
  gboolean sum_ahead;
  /* prod's first block holds block `blocks`' sum, run ahead (event: its
   * times, when profiling) */
  gboolean sum_ready;
  cl_event ahead_event;
  size_t fft_items;             /* work-group size of the transforms */
  size_t mac_items;             /* and of the sum, along the bins */
  size_t bin_stride;            /* B + 1 bins rounded up to 4 */
  uint32_t slices;              /* runs of partitions a sum is cut into */
  uint32_t opw;                 /* outputs a work-item of a one-block sum */
  uint32_t first_seats;         /* shared mode: a key's first group's seats
                                 * (0: as its pool holds) */
  size_t acc_size;              /* bytes of the sum's 4 bins, re or im */

  cl_kernel forward, mac, mac_wide, inverse, block_kernel;
  cl_mem twiddles;              /* B + 1 complex */
  cl_mem spectra;               /* [filter][partition][bin_stride] */
  cl_mem ring;                  /* [slot][channel][bin_stride] */
  cl_mem in;                    /* [channel][batch H + 2B - H] */
  cl_mem prod;                  /* [block][output][bin_stride] */
  cl_mem out;                   /* [output][batch H] */
  /* the input history: [channel][hist_cap] frames, stream frame f at
   * f % hist_cap; hist_cap is a multiple of H (0: no history), so that a
   * block's frames never wrap */
  cl_mem hist;
  size_t hist_cap, hist_keep;

  char *stage;                  /* stage_cap frames of every channel */
  size_t stage_cap;
  /* the layout of stage and fifo (and of the device's input and output
   * buffers): channel (output) k's frame f at k * pitch + f * step
   * samples; planar: pitch = the capacity, step = 1; interleaved (frames
   * of all channels in turn): pitch = 1, step = the channels */
  gboolean interleaved;
  gboolean out_interleaved;     /* the fifo's (and out's) own: see the config */
  size_t stage_pitch, stage_step, fifo_pitch, fifo_step;
  size_t pending;               /* input frames after the history */
  char *fifo;                   /* output planes of fifo_cap frames */
  gboolean pinned;              /* stage and fifo are page-locked */
  /* stage and fifo are shared virtual memory (CPU devices): the kernels
   * read the stage and write into the fifo, so a batch is two launches and
   * a wait, with no upload or read-back (in and out are not allocated) */
  gboolean svm;
  size_t fifo_cap, fifo_start, fifo_len;

  uint64_t blocks;              /* blocks processed since the reset */
  uint64_t discard_blocks;      /* of those, the first whose output the
                                 * caller drops (clr_conv_discard ()) */
  gboolean drained;
  /* the last reset's clearing of the delay line on the device failed:
   * stale spectra would read as this stream's past, so every call fails
   * until a reset succeeds */
  cl_int reset_status;

  /* shared mode (clr-conv-shared.h): the blocks run in the device
   * scheduler's batches with other streams', the device state is a seat
   * in a group's pools, and the stage and fifo are plain memory copied
   * into and out of the batch's staging; the input history is kept here,
   * hist_host: hist_cap frames in the stage's layout */
  gboolean shared;
  ClrConvSeat seat;
  char *hist_host;

  /* direct form (short filters): the blocks are summed on the host from
   * the stage, which keeps taps - 1 frames of history; no device state,
   * and the input history on the host as in shared mode */
  ClrConvDirect *direct;

  /* on the host's own transforms (CPU devices): the same partitions as on
   * the device, no device state, the input history on the host as in
   * direct form */
  ClrConvHost *host;
  gboolean host_threads;        /* its channels on the workers */

  /* non-uniform partitions (clr-conv-levels.h): this conv runs the head of
   * the filter, each level a later segment in longer blocks, fed the same
   * input, its output added to this one's through its delay line */
  unsigned n_levels;
  ClrConvAsync **levels;
  ClrConvLevelPlan plan;
  /* in levels: their outputs and the head's summed here in double, in
   * that order, rounded once for F32 (planes of max_batch H + H frames) */
  double *level_sums;

  /* CLRESAMPLE_PROFILE: the device's time in each stage of a batch
   * (upload, the three kernels, read-back), the host's wall time around
   * the batch, and the caller's source and sink callbacks' wall time,
   * summed in ns since the last reset */
  ClrConvProfile prof;
};

/* B for blocks of `hop` frames: the hop itself when it is a power of two
 * (partitions of B taps); else the filter in one partition, the shortest
 * 2B-point transform whose window holds a block and the filter's reach
 * (overlap-save: 2B >= H + taps - 1). */
static uint32_t
transform_half (uint32_t hop, size_t taps)
{
  guint64 half = CLR_CONV_BLOCK_MIN;

  if (!(hop & (hop - 1)))
    return hop;
  while (2 * half < (guint64) hop + taps - 1)
    half *= 2;
  return (uint32_t) MIN (half, G_MAXUINT32);
}

uint32_t
clr_conv_workable_block (uint32_t block, size_t n_taps, uint32_t max_block)
{
  const uint32_t top = CLAMP (max_block, CLR_CONV_BLOCK_MIN,
      CLR_CONV_BLOCK_MAX);
  uint32_t pow2 = CLR_CONV_BLOCK_MIN, m;

  /* the largest power of two up to the block asked for and the device's
   * largest: always workable */
  while (pow2 < top && 2 * pow2 <= block)
    pow2 *= 2;
  if (block <= CLR_CONV_BLOCK_MIN || block == pow2)
    return pow2;
  /* a multiple of 16 as near below, where the filter fits one transform
   * with it that the device takes (more frames a transform than the
   * power of two) */
  m = MIN (block, CLR_CONV_HOP_MAX) / CLR_CONV_BLOCK_MIN * CLR_CONV_BLOCK_MIN;
  if (m > pow2 && transform_half (m, n_taps) <= top)
    return m;
  return pow2;
}

static gboolean
config_validate (ClrDevice * dev, const ClrConvConfig * cfg, GError ** error)
{
  const uint32_t outputs = MAX (cfg->outputs, 1);
  size_t f, k;

  if (cfg->channels == 0 || cfg->channels > CLR_CONV_CHANNELS_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Channel count must be between 1 and %u (got %u)",
        CLR_CONV_CHANNELS_MAX, cfg->channels);
    return FALSE;
  }
  if (cfg->block < CLR_CONV_BLOCK_MIN || cfg->block > CLR_CONV_HOP_MAX
      || (cfg->block & (cfg->block - 1) && cfg->block % CLR_CONV_BLOCK_MIN)
      || (cfg->block > CLR_CONV_BLOCK_MAX
          && !(cfg->block & (cfg->block - 1)))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The block size must be a power of two from %u to %u frames, or a "
        "multiple of %u up to %u (got %u)", CLR_CONV_BLOCK_MIN,
        CLR_CONV_BLOCK_MAX, CLR_CONV_BLOCK_MIN, CLR_CONV_HOP_MAX, cfg->block);
    return FALSE;
  }
  if (cfg->format != CLR_CONV_F32 && cfg->format != CLR_CONV_F64) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Unknown sample format %d: F32 or F64", cfg->format);
    return FALSE;
  }
  if (cfg->format == CLR_CONV_F64 && !clr_device_has_fp64 (dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "'%s' has no double precision (cl_khr_fp64) for F64 convolution; "
        "use F32", clr_device_get_name (dev));
    return FALSE;
  }
  if (outputs == 1 && cfg->n_filters != 1
      && cfg->n_filters != cfg->channels) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Give one filter for all channels or one per channel (%u), not %u",
        cfg->channels, cfg->n_filters);
    return FALSE;
  }
  if (outputs > 1 && (guint64) cfg->channels * outputs >
      CLR_CONV_OUTPUTS_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%u channels x %u outputs are %u output planes: at most %u",
        cfg->channels, outputs, cfg->channels * outputs,
        CLR_CONV_OUTPUTS_MAX);
    return FALSE;
  }
  if (outputs > 1 && cfg->n_filters != outputs
      && cfg->n_filters != outputs * cfg->channels) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "With %u outputs a channel give one filter an output (%u) or one "
        "an output and channel (%u), not %u", outputs, outputs,
        outputs * cfg->channels, cfg->n_filters);
    return FALSE;
  }
  if (!cfg->taps || cfg->n_taps == 0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The filter is empty: it needs at least one tap");
    return FALSE;
  }
  if (cfg->block & (cfg->block - 1)
      && transform_half (cfg->block, cfg->n_taps) > CLR_CONV_BLOCK_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Blocks of %u frames (no power of two) need the filter within one "
        "transform of at most %u points: %" G_GSIZE_FORMAT " taps are too "
        "many (at most %u); use a power-of-two block", cfg->block,
        2 * CLR_CONV_BLOCK_MAX, cfg->n_taps,
        cfg->block < 2 * CLR_CONV_BLOCK_MAX ? 2 * CLR_CONV_BLOCK_MAX -
        cfg->block + 1 : 0);
    return FALSE;
  }
  if (cfg->n_taps > CLR_CONV_TAPS_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GSIZE_FORMAT " taps are too many: at most %u", cfg->n_taps,
        CLR_CONV_TAPS_MAX);
    return FALSE;
  }
  for (f = 0; f < cfg->n_filters; f++) {
    if (!cfg->taps[f]) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
          "Filter %" G_GSIZE_FORMAT " has no taps (NULL)", f);
      return FALSE;
    }
    for (k = 0; k < cfg->n_taps; k++)
      if (!isfinite (cfg->taps[f][k])) {
        g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
            "Tap %" G_GSIZE_FORMAT " of filter %" G_GSIZE_FORMAT " is not a "
            "finite number (%g)", k, f, cfg->taps[f][k]);
        return FALSE;
      }
  }
  return TRUE;
}

static void
put_complex (void *table, gboolean dbl, size_t i, double re, double im)
{
  if (dbl) {
    ((double *) table)[2 * i] = re;
    ((double *) table)[2 * i + 1] = im;
  } else {
    ((float *) table)[2 * i] = (float) re;
    ((float *) table)[2 * i + 1] = (float) im;
  }
}

/* Stores real value v as element i of a float or double table. */
static void
put_real (void *table, gboolean dbl, size_t i, double v)
{
  if (dbl)
    ((double *) table)[i] = v;
  else
    ((float *) table)[i] = (float) v;
}

/* The partitions' spectra, bins 0 .. B of each 2B-point transform, scaled
 * by 1 / B (the inverse transform's scale, see kernels/conv.cl). */
static gboolean
upload_spectra (ClrConv * c, const ClrConvConfig * cfg, gboolean dbl,
    GError ** error)
{
  const size_t B = c->block, bins = c->bin_stride;
  const size_t n = (size_t) c->n_filters * c->parts * bins;
  const size_t vsize = dbl ? 2 * sizeof (double) : 2 * sizeof (float);
  double *z = g_new (double, 2 * B + 2);
  char *host = g_try_malloc0 (n * vsize);
  ClrFftHostReal *fft;
  uint32_t f, p;
  size_t k;

  if (!host) {
    g_free (z);
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for %" G_GSIZE_FORMAT " filter spectrum bins", n);
    return FALSE;
  }
  fft = clr_fft_host_real_new (2 * B);
  for (f = 0; f < c->n_filters; f++)
    for (p = 0; p < c->parts; p++) {
      const size_t first = (size_t) p * B;
      /* one partition may be longer than B (clr-conv.h: blocks) */
      const size_t len = c->parts == 1 ? c->n_taps : MIN (B,
          c->n_taps - first);

      clr_fft_host_real_run (fft, cfg->taps[f] + first, len, z);
      for (k = 0; k <= B; k++)
        put_complex (host, dbl, ((size_t) f * c->parts + p) * bins + k,
            z[2 * k] / B, z[2 * k + 1] / B);
    }
  clr_fft_host_real_free (fft);
  c->spectra = clr_budget_alloc (&c->budget,
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * vsize, host,
      "filter spectra", error);
  g_free (host);
  g_free (z);
  return c->spectra != NULL;
}

/* bytes a complex value in the transforms */
static size_t
fft_csize (ClrConv * c)
{
  return c->fft_double ? 2 * sizeof (double) : 2 * sizeof (float);
}

/* N1 of the vector transforms' four-step split B = N1 N2 (kernels/conv.cl:
 * the same) */
static size_t
four_step_n1 (uint32_t block)
{
  return (size_t) 1 << (g_bit_nth_msf (block, -1) / 2);
}

/* exp (-i pi k / B), k = 0 .. B; the vector transforms add their
 * four-step table: exp (-2 pi i k1 n2 / B) at k1 N2 + n2, the real parts
 * and then the imaginary ones (kernels/conv.cl) */
static gboolean
upload_twiddles (ClrConv * c, GError ** error)
{
  const size_t B = c->block, cs = fft_csize (c);
  const size_t n1 = four_step_n1 (c->block);
  const size_t bytes = (B + 1) * cs + (c->fft_vec ? B * cs : 0);
  char *host = g_malloc (bytes);
  size_t k;

  for (k = 0; k <= B; k++)
    put_complex (host, c->fft_double, k, cos (-G_PI * k / B),
        sin (-G_PI * k / B));
  if (c->fft_vec) {
    char *four = host + (B + 1) * cs;

    for (k = 0; k < B; k++) {
      /* k1 n2 mod B, so that the angle stays exact */
      const double a = -2 * G_PI * (double) ((k / (B / n1)) *
          (k % (B / n1)) % B) / B;

      put_real (four, c->fft_double, k, cos (a));
      put_real (four, c->fft_double, B + k, sin (a));
    }
  }
  c->twiddles = clr_budget_alloc (&c->budget,
      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, host,
      "twiddle table", error);
  g_free (host);
  return c->twiddles != NULL;
}

/* The conv program's build options for c's shape (shared mode: the
 * streams' kernels, which sum every partition). */
static char *
program_options (ClrConv * c, gboolean f64, gboolean acc_double)
{
  return g_strdup_printf ("-DCLR_CONV_B=%u -DCLR_CONV_HOP=%u "
      "-DCLR_CONV_LOG2B=%d "
      "-DCLR_CONV_BIN_STRIDE=%" G_GSIZE_FORMAT " -DCLR_CONV_SLICES=%u "
      "-DCLR_CONV_OPW=%u -DCLR_CONV_REST=%d%s%s%s%s%s%s%s", c->block, c->hop,
      g_bit_nth_lsf (c->block, -1), c->bin_stride, c->slices, c->opw,
      c->parts > 1, c->fft_vec ? " -DCLR_CONV_FFT_VEC" : "",
      c->fused ? " -DCLR_CONV_FUSED_SUM" : "",
      c->newest_apart ? " -DCLR_CONV_NEWEST_APART" : "",
      c->shared ? " -DCLR_CONV_STREAMS" : "",
      f64 ? " -DCLR_CONV_F64" : "",
      acc_double ? " -DCLR_CONV_ACC_DOUBLE" : "",
      c->fft_double && !f64 ? " -DCLR_CONV_FFT_DOUBLE" : "");
}

static gboolean
build_kernels (ClrConv * c, gboolean f64, gboolean acc_double,
    GError ** error)
{
  const char *names[] = { "clr_conv_forward", "clr_conv_inverse",
    "clr_conv_mac", "clr_conv_mac_wide"
  };
  cl_kernel *kernels[] = { &c->forward, &c->inverse, &c->mac, &c->mac_wide };
  cl_device_id id = clr_device_get_id (c->dev);
  size_t wg_max = 0;
  cl_program program;
  cl_int status;
  char *options;
  guint i;

  options = program_options (c, f64, acc_double);
  program = clr_device_get_program (c->dev, clr_kernel_source_conv, options,
      error);
  g_free (options);
  if (!program)
    return FALSE;
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    *kernels[i] = clCreateKernel (program, names[i], &status);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, names[i]);
      return FALSE;
    }
  }
  if (c->one_launch) {
    c->block_kernel = clCreateKernel (program, "clr_conv_block", &status);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, "clr_conv_block");
      return FALSE;
    }
  }
  /* as many work-items as the device allows each kernel, the transforms
   * at most one a radix-4 butterfly; a sum's slices share one work-group */
  c->fft_items = c->fft_vec ? 1 : MIN (CLR_CONV_FFT_ITEMS, c->block / 4);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    size_t *items = i >= 2 ? &c->mac_items : &c->fft_items;
    if (clGetKernelWorkGroupInfo (*kernels[i], id, CL_KERNEL_WORK_GROUP_SIZE,
            sizeof (wg_max), &wg_max, NULL) == CL_SUCCESS && wg_max > 0) {
      if (i >= 2 && c->slices > wg_max)
        goto fewer_slices;
      while (*items > wg_max)
        *items /= 2;
    }
  }
  return TRUE;

fewer_slices:
  /* the sum's registers leave fewer work-items a group than the slices
   * asked for: build again with as many as fit */
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    clReleaseKernel (*kernels[i]);
    *kernels[i] = NULL;
  }
  c->slices = 1u << g_bit_nth_msf (wg_max, -1);
  return build_kernels (c, f64, acc_double, error);
}

/* How many runs the partition sum is cut into (a power of two): 1 on CPUs,
 * on GPUs what fills the device with a single block's sum. */
static uint32_t
choose_slices (ClrConv * c, const ClrTuning * tuning)
{
  const guint64 vectors = (guint64) c->bin_stride / 4 * c->n_out / c->opw;
  guint64 want;

  if (tuning->conv_slices.set)
    want = tuning->conv_slices.value;
  else if (!clr_device_is_gpu (c->dev))
    want = 1;
  else if (c->shared)
    /* one output a work-item (no OPW), and no sum run ahead to hide it:
     * twice the work-items, rounded up (64 channels x 262144 taps at
     * B = 1024 on an H200: 4 slices gave 482 us a block, against 119 for
     * a conv of its own, OPW 2, 8 slices and its sum run ahead) */
    want = MIN (g_bit_storage ((2 * CLR_CONV_SUM_ITEMS_GPU - 1) / vectors) <
        63 ? (guint64) 1 << g_bit_storage ((2 * CLR_CONV_SUM_ITEMS_GPU - 1) /
            vectors) : G_MAXUINT32, c->parts / CLR_CONV_SLICE_PARTS);
  else
    want = MIN (CLR_CONV_SUM_ITEMS_GPU / vectors,
        c->parts / CLR_CONV_SLICE_PARTS);
  /* the slices are the work-group's dimension 2, which many devices allow
   * fewer work-items than dimension 0 (NVIDIA: 64) */
  if (clr_device_get_max_items_z (c->dev) >= 1)
    want = MIN (want, clr_device_get_max_items_z (c->dev));
  want = CLAMP (want, 1, CLR_CONV_SLICES_MAX);
  return 1u << g_bit_nth_msf ((gulong) want, -1);
}

/* Whether a fused block's two transforms go in one launch: where its
 * channels alone keep every compute unit busy. The one launch runs a
 * channel's outputs one after another on the thread that transformed its
 * input; two launches spread the outputs over all threads, which pays
 * where there are more threads than channels (a mono crossover on 2
 * cores, a stereo one on 8) and one launch fewer does not. */
static gboolean
choose_one_launch (ClrConv * c, const ClrTuning * tuning)
{
  const cl_uint units = MAX (clr_device_get_compute_units (c->dev), 1);

  if (!c->fused)
    return FALSE;
  return clr_knob_or (tuning->conv_block, c->channels >= units) != 0;
}

/* Outputs a work-item of a one-block sum: a power of two that divides
 * the outputs (CLR_CONV_OPW_GPU on GPUs with many outputs, else 1). */
static uint32_t
choose_opw (ClrConv * c, const ClrTuning * tuning)
{
  guint64 want = clr_knob_or (tuning->conv_opw, clr_device_is_gpu (c->dev)
      && c->n_out >= CLR_CONV_OPW_OUTPUTS ? CLR_CONV_OPW_GPU : 1);
  uint32_t opw = 1;

  while (opw * 2 <= MIN (want, 16) && c->n_out % (opw * 2) == 0)
    opw *= 2;
  return opw;
}

static cl_ulong
local_memory (ClrDevice * dev)
{
  return clr_device_get_local_mem (dev);
}

/* The vector transforms on CPUs, where B allows their 8 x 8 blocks and
 * local memory their buffer and the scratch for two strips of 8 columns
 * (kernels/conv.cl): a work-group a transform gives PoCL's vectoriser
 * nothing that lines up (docs/convolution.md). */
static gboolean
choose_fft_vec (ClrConv * c, const ClrTuning * tuning)
{
  const cl_ulong n2 = c->block / four_step_n1 (c->block);

  if (c->block < CLR_CONV_VEC_BLOCK_MIN
      || ((cl_ulong) c->block + 2 * 8 * n2) * fft_csize (c) >
      local_memory (c->dev))
    return FALSE;
  return clr_knob_or (tuning->conv_vec, !clr_device_is_gpu (c->dev)) != 0;
}

/* B complex values of local memory a transform: the limit on B for now
 * (no multi-pass transform in global memory yet). */
static gboolean
check_local_memory (ClrConv * c, GError ** error)
{
  const cl_ulong local = local_memory (c->dev);
  const size_t csize = fft_csize (c);

  /* a failed query (a lost device) reads as none: no block would do */
  if (local < csize) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "'%s' reports no local memory for the convolution's transforms "
        "(the device may be lost, or its driver failed the query)",
        clr_device_get_name (c->dev));
    return FALSE;
  }
  if ((cl_ulong) c->block * csize > local && c->hop != c->block) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Blocks of %u frames with %" G_GSIZE_FORMAT " taps need %u-point "
        "transforms, %" G_GSIZE_FORMAT " bytes of local memory; '%s' has %"
        G_GUINT64_FORMAT ": use a power-of-two block of at most %"
        G_GUINT64_FORMAT " frames", c->hop, c->n_taps, 2 * c->block,
        (size_t) c->block * csize, clr_device_get_name (c->dev),
        (guint64) local, (guint64) (1ull << g_bit_nth_msf (local / csize,
                -1)));
    return FALSE;
  }
  if ((cl_ulong) c->block * csize > local) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Blocks of %u frames need %" G_GSIZE_FORMAT " bytes of local memory "
        "for the transforms; '%s' has %" G_GUINT64_FORMAT ": use blocks of "
        "at most %" G_GUINT64_FORMAT " frames", c->block,
        (size_t) c->block * csize, clr_device_get_name (c->dev),
        (guint64) local, (guint64) (1ull << g_bit_nth_msf (local / csize,
                -1)));
    return FALSE;
  }
  return TRUE;
}

/* Whether a batch has a partition sum of its own to run: not when the
 * inverse transform multiplies (one partition) */
static gboolean
runs_sum (ClrConv * c)
{
  return c->fft_vec ? !c->fused : c->parts > 1;
}

/* the host's buffers: the stage's and the fifo's planes */
static size_t
stage_bytes (ClrConv * c)
{
  return c->channels * c->stage_cap * c->ssize;
}

static size_t
fifo_bytes (ClrConv * c)
{
  return (size_t) c->n_out * c->fifo_cap * c->ssize;
}

ClrConv *
clr_conv_new (ClrDevice * dev, const ClrConvConfig * cfg, GError ** error)
{
  return clr_conv_new_tuned (dev, cfg, clr_tuning_get (), error);
}

/* in vectors of 4 bins: the spectra of one filter (0: all outputs share
 * one filter) */
static cl_uint
filter_stride (ClrConv * c)
{
  return c->n_filters > 1 ? c->parts * c->bin_stride / 4 : 0;
}

/* Whether a block's data is small enough for shared mode to pay: a
 * block of 64 channels at B = 1024 (512 KiB in, 256 KiB out) keeps an
 * H200 busy on its own, and ran 326-388 us a block shared (its copies into
 * and out of the batch, its sum no longer run ahead) against 124-155 us on
 * its own queue; stereo at B = 256 ran 39-49 against 37 us, and batched
 * 64 such streams 13x faster. */
#define CLR_CONV_SHARED_MAX_BYTES (256u * 1024u)

static gboolean
shared_pays (ClrConv * c, gboolean f64)
{
  const size_t ss = f64 ? sizeof (double) : sizeof (float);

  return ((size_t) c->channels * 2 * c->block + (size_t) c->n_out *
      c->hop) * ss <= CLR_CONV_SHARED_MAX_BYTES;
}

/* The device buffers of a conv of its own: the delay line, the batch's
 * input, products and output, the input history. */
static gboolean
alloc_buffers (ClrConv * c, GError ** error)
{
  const size_t bins = c->bin_stride, ch = c->channels, H = c->hop;

  if (!(c->ring = clr_budget_alloc (&c->budget, CL_MEM_READ_WRITE,
              (size_t) c->slots * ch * bins * c->csize,
              NULL, "frequency-domain delay line", error))
      || (!c->svm && !(c->in = clr_budget_alloc (&c->budget,
                  CL_MEM_READ_ONLY, ch * (c->max_batch * H + c->keep) *
                  c->ssize, NULL, "input buffer", error)))
      || (runs_sum (c) && !(c->prod = clr_budget_alloc (&c->budget,
                  CL_MEM_READ_WRITE, (size_t) c->max_batch * c->n_out * bins *
                  c->csize, NULL, "product spectra", error)))
      || (!c->svm && !(c->out = clr_budget_alloc (&c->budget,
                  CL_MEM_WRITE_ONLY, (size_t) c->n_out * c->max_batch * H *
                  c->ssize, NULL, "output buffer", error))))
    return FALSE;
  if (c->hist_cap && !(c->hist = clr_budget_alloc (&c->budget,
              CL_MEM_READ_WRITE, ch * c->hist_cap * c->ssize, NULL,
              "input history", error)))
    return FALSE;
  return TRUE;
}

typedef struct
{
  ClrConv *c;
  const ClrConvConfig *cfg;
  gboolean f64;
} TableMake;

/* A new group's twiddles and spectra: made as c's own, then handed over. */
static gboolean
make_group_tables (gpointer user, cl_mem * twiddles, cl_mem * spectra,
    GError ** error)
{
  TableMake *m = user;

  if (!upload_twiddles (m->c, error) || !upload_spectra (m->c, m->cfg,
          m->f64, error))
    return FALSE;
  *twiddles = m->c->twiddles;
  *spectra = m->c->spectra;
  m->c->twiddles = m->c->spectra = NULL;
  return TRUE;
}

/* The group's key: its program and shape, and a digest of the filter,
 * so that streams with the same filter share its spectra and launches. */
static char *
group_key (ClrConv * c, const ClrConvConfig * cfg, const char *options)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  char *key;
  uint32_t f;

  for (f = 0; f < cfg->n_filters; f++)
    g_checksum_update (sum, (const guchar *) cfg->taps[f],
        cfg->n_taps * sizeof (double));
  key = g_strdup_printf ("conv %s ch %u out %u div %u taps %" G_GSIZE_FORMAT
      " x %u filter %s", options, c->channels, c->n_out, c->filter_div,
      c->n_taps, c->n_filters, g_checksum_get_string (sum));
  g_checksum_free (sum);
  return key;
}

/* Shared mode: a seat in the group of c's shape and filter, its device
 * memory counted against c's budget as a conv of its own would be. */
static gboolean
take_seat (ClrConv * c, const ClrConvConfig * cfg, gboolean f64,
    gboolean acc_double, ClrStaging staging, GError ** error)
{
  TableMake tables = { c, cfg, f64 };
  char *options = program_options (c, f64, acc_double);
  char *key = group_key (c, cfg, options);
  const ClrConvShape shape = {
    c->channels, c->n_out, c->block, c->hop, c->parts, c->slots,
    c->max_batch, c->slices, c->filter_div, filter_stride (c),
    c->bin_stride, c->csize, c->acc_size,
    MIN (CLR_CONV_FFT_ITEMS, c->block / 4), c->mac_items, c->first_seats,
    options, make_group_tables, &tables
  };
  const size_t bytes = clr_conv_seat_bytes (&shape);
  gboolean ok = FALSE;

  if (clr_budget_check (&c->budget, bytes, "frequency-domain delay line",
          error)) {
    c->budget.used += bytes;
    ok = clr_conv_seat_take (c->dev, staging, key, &shape, &c->seat, error);
  }
  g_free (key);
  g_free (options);
  return ok;
}

/* Whether a filter of more than the direct form's taps runs on the host's
 * transforms (CPU devices; CLRESAMPLE_CONV_HOST) rather than the
 * device's kernels. */
static gboolean
runs_on_host (ClrDevice * dev, const ClrConvConfig * cfg, const ClrTuning * tuning)
{
  return clr_knob_or (tuning->conv_host, !clr_device_is_gpu (dev)) != 0;
}

/* Whether the levels after the head run on the process's workers
 * (clr-conv-async.h): on the host where there is another core
 * (CLRESAMPLE_CONV_THREADS=0 runs them inline). */
static gboolean
levels_apart (ClrDevice * dev, const ClrConvConfig * cfg,
    const ClrTuning * tuning)
{
  return runs_on_host (dev, cfg, tuning) && clr_knob_or (tuning->conv_threads,
      clr_workers_count () > 0) != 0;
}

/* Whether the filter goes in levels of non-uniform partitions, and how:
 * where the cost model finds a split cheaper than uniform partitions of
 * the block, on CPU devices (GPUs keep uniform ones, not measured yet;
 * CLRESAMPLE_CONV_LEVELS=1 splits there too, 0 nowhere). */
static gboolean
choose_levels (ClrDevice * dev, const ClrConvConfig * cfg,
    const ClrTuning * tuning, ClrConvLevelPlan * plan)
{
  const uint32_t H = cfg->block, max = MIN (clr_conv_max_block (dev),
      CLR_CONV_BLOCK_MAX);
  /* the channels, not the outputs: a band of a crossover is cut as a
   * filter of its own would be, and comes out bit for bit the same */
  const unsigned planes = cfg->channels;
  const guint64 knob = clr_knob_or (tuning->conv_levels,
      !clr_device_is_gpu (dev));
  const ClrConvCosts *costs = runs_on_host (dev, cfg, tuning) ?
      &host_level_costs : &cpu_level_costs;
  /* on the host with slack, whether the levels then run apart or not
   * (one core): the same plan, so the same output, on any machine */
  const gboolean slack = runs_on_host (dev, cfg, tuning);

  if (!knob || H & (H - 1) || cfg->n_taps <= H
      || cfg->n_taps <= clr_knob_or (tuning->conv_direct,
          CLR_CONV_DIRECT_TAPS))
    return FALSE;
  /* 2 and more: levels growing by that factor, whatever the model says */
  if (knob >= 2 && !(knob & (knob - 1)) && knob <= CLR_CONV_BLOCK_MAX)
    clr_conv_levels_plan_factor (cfg->n_taps, H, max, planes, (unsigned) knob,
        slack, costs, plan);
  else
    clr_conv_levels_plan (cfg->n_taps, H, max, planes, slack, costs, plan);
  return plan->n > 1;
}

/* The head as a conv of its own (which takes the history and sets the
 * stream's latency), then each level's. */
static ClrConv *
new_levels (ClrDevice * dev, const ClrConvConfig * cfg,
    const ClrTuning * tuning, const ClrConvLevelPlan * plan,
    GError ** error)
{
  ClrTuning uniform = *tuning;
  ClrConvConfig lc = *cfg;
  const double **taps = g_new (const double *, cfg->n_filters);
  GString *desc = g_string_new (NULL);
  const gboolean apart = levels_apart (dev, cfg, tuning);
  ClrConv *c;
  unsigned i, f;

  uniform.conv_levels.set = TRUE;
  uniform.conv_levels.value = 0;
  lc.n_taps = plan->taps[0];
  if (!(c = clr_conv_new_tuned (dev, &lc, &uniform, error)))
    goto done;
  c->n_taps = cfg->n_taps;
  c->plan = *plan;
  c->levels = g_new0 (ClrConvAsync *, plan->n - 1);
  lc.history = 0;
  lc.taps = taps;
  for (i = 1; i < plan->n; i++) {
    ClrConv *l;

    for (f = 0; f < cfg->n_filters; f++)
      taps[f] = cfg->taps[f] + plan->start[i];
    /* the levels share the stream's one budget: each gets what the head
     * and the levels before it left */
    if (tuning->device_memory) {
      const guint64 used = clr_conv_get_device_memory (c);

      if (used >= tuning->device_memory) {
        g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "The "
            "convolution's levels need more device memory than the budget "
            "of %" G_GUINT64_FORMAT " bytes (CLRESAMPLE_DEVICE_MEMORY); use "
            "fewer channels or taps", tuning->device_memory);
        goto failed;
      }
      uniform.device_memory = tuning->device_memory - used;
    }
    lc.block = plan->block[i];
    lc.n_taps = plan->taps[i];
    if (!(l = clr_conv_new_tuned (dev, &lc, &uniform, error))) {
      if (tuning->device_memory)
        g_prefix_error (error, "A long filter's levels share one budget "
            "(%" G_GUINT64_FORMAT " bytes), what the head and the levels "
            "before left: ", tuning->device_memory);
      goto failed;
    }
    /* at most a batch of the head's frames goes in before it comes out */
    if (!(c->levels[i - 1] = clr_conv_async_new (l, c->channels, c->n_out,
                c->ssize, plan->block[i], cfg->block + plan->start[i] -
                plan->block[i], c->max_batch * c->hop, apart))) {
      clr_conv_free (l);
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the convolution's delay lines");
      goto failed;
    }
    c->n_levels++;
  }
  if (!(c->level_sums = g_try_new (double, (size_t) c->n_out *
              (c->max_batch * c->hop + c->hop)))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the convolution's delay lines");
    goto failed;
  }
  for (i = 0; i < plan->n; i++)
    g_string_append_printf (desc, "%s%" G_GSIZE_FORMAT " taps in blocks of "
        "%u", i ? ", then " : "", plan->taps[i], plan->block[i]);
  clr_log (CLR_LOG_INFO, "convolution: %" G_GSIZE_FORMAT " taps in %u "
      "levels of non-uniform partitions: %s (model: %.0f ns a frame)%s",
      cfg->n_taps, plan->n, desc->str, plan->cost, apart ? ", the levels "
      "after the head on the process's workers" : "");
  goto done;

failed:
  clr_conv_free (c);
  c = NULL;
done:
  g_free (taps);
  g_string_free (desc, TRUE);
  return c;
}

ClrConv *
clr_conv_new_tuned (ClrDevice * dev, const ClrConvConfig * cfg,
    const ClrTuning * tuning, GError ** error)
{
  ClrConv *c;
  gboolean f64, acc_double;
  ClrStaging staging;
  ClrConvLevelPlan plan;
  gboolean direct_form, host_form, on_host;
  size_t B, H, ch;

  if (!config_validate (dev, cfg, error))
    return NULL;
  if (choose_levels (dev, cfg, tuning, &plan))
    return new_levels (dev, cfg, tuning, &plan, error);
  c = g_new0 (ClrConv, 1);
  c->dev = clr_device_ref (dev);
  clr_budget_init (&c->budget, dev, tuning->device_memory);
  c->channels = cfg->channels;
  c->n_out = cfg->channels * MAX (cfg->outputs, 1);
  /* one filter for all, one a channel (outputs = 1) or one an output
   * (plane o: filter o), or one a band for all its channels (plane
   * k channels + c: filter k) */
  c->filter_div = cfg->outputs > 1 && cfg->n_filters == cfg->outputs ?
      cfg->channels : 1;
  c->hop = H = cfg->block;
  c->block = B = transform_half (H, cfg->n_taps);
  c->keep = 2 * B - H;
  c->n_taps = cfg->n_taps;
  c->n_filters = cfg->n_filters;
  c->parts = H == B ? (uint32_t) ((cfg->n_taps + B - 1) / B) : 1;
  /* one level, until new_levels () says otherwise */
  c->plan.n = 1;
  c->plan.block[0] = H;
  c->plan.taps[0] = cfg->n_taps;
  c->max_batch = MAX (1, CLR_CONV_BATCH_FRAMES / H);
  c->slots = c->parts + c->max_batch - 1;
  f64 = cfg->format == CLR_CONV_F64;
  /* the partition sum is the long one: in double wherever there is
   * double (the filter spectra stay in the samples' precision: see
   * kernels/conv.cl) */
  acc_double = clr_device_has_fp64 (dev);
  /* and so are the transforms: float transforms alone gave a max error of
   * ~1e-6 of the output RMS (docs/convolution.md) */
  c->fft_double = clr_device_has_fp64 (dev) && (f64
      || !cfg->float_transforms);
  /* GPUs: many streams' blocks in one launch (clr-conv-shared.h), where a
   * block is small enough that its launches, not its work, would cost the
   * device (docs/performance.md) */
  direct_form = cfg->n_taps <= clr_knob_or (tuning->conv_direct,
      CLR_CONV_DIRECT_TAPS);
  if (direct_form) {
    /* a block's window: its frames and the taps - 1 before */
    c->keep = cfg->n_taps - 1;
    c->parts = 1;
  }
  /* CPU devices: on the host, where no launch or hand-off to PoCL's
   * threads costs a block, and no program waits to be built (docs/
   * convolution.md) */
  host_form = !direct_form && runs_on_host (dev, cfg, tuning);
  if (host_form) {
    c->fft_double = TRUE;
    c->host_threads = cfg->channels > 1 && clr_knob_or (tuning->conv_threads,
        clr_workers_count () > 0) != 0;
  }
  on_host = direct_form || host_form;
  /* only a device's kernels need its queue: a CPU device described from
   * an earlier listing (clr_device_acquire_host ()) stays unopened */
  c->queue = on_host ? NULL : clr_device_get_queue (dev);
  c->shared = !on_host && clr_knob_or (tuning->conv_shared,
      clr_device_is_gpu (dev) && shared_pays (c, f64)) != 0;
  c->fft_vec = !c->shared && choose_fft_vec (c, tuning);
  /* with one partition the sum is one product a bin, which the vector
   * inverse transform takes as it reads its input */
  c->fused = c->fft_vec && c->parts == 1
      && clr_knob_or (tuning->conv_fused, 1) != 0;
  c->one_launch = choose_one_launch (c, tuning);
  c->newest_apart = !c->fft_vec && !c->shared;
  c->ssize = f64 ? sizeof (double) : sizeof (float);
  c->csize = 2 * c->ssize;
  c->bin_stride = (B + 4) / 4 * 4;
  c->sum_ahead = c->newest_apart && c->parts > 1
      && clr_knob_or (tuning->conv_ahead, (guint64) c->n_out * c->parts *
      c->bin_stride * c->csize >= CLR_CONV_AHEAD_BYTES) != 0;
  if (clr_device_is_gpu (dev)) {
    c->mac_items = CLR_CONV_MAC_ITEMS_GPU;
  } else {
    c->mac_items = 4;
    while (c->mac_items < CLR_CONV_MAC_ITEMS_CPU
        && c->mac_items * 2 * 8 <= c->bin_stride / 4)
      c->mac_items *= 2;
  }
  c->opw = c->shared ? 1 : choose_opw (c, tuning);
  c->slices = choose_slices (c, tuning);
  c->first_seats = (uint32_t) MIN (clr_knob_or (tuning->conv_seats, 0),
      G_MAXUINT32);
  c->hist_keep = cfg->history;
  c->hist_cap = (cfg->history + H - 1) / H * H;
  c->acc_size = (acc_double ? sizeof (double) : c->ssize) * 4;
  /* page-locked on GPUs: the batch's upload and read-back then go by DMA
   * instead of through the driver's bounce buffer (64 channels at B = 1024
   * move 512 + 256 KiB a block) */
  c->pinned = !on_host && clr_knob_or (tuning->pinned,
      clr_device_is_gpu (dev)) != 0;
  c->svm = !on_host && !c->pinned && clr_knob_or (tuning->svm, 1) != 0
      && clr_budget_svm_supported (dev);
  /* shared: the scheduler's batches are page-locked or shared; the stage
   * and the fifo stay plain memory */
  staging = c->pinned ? CLR_STAGING_PINNED : c->svm ? CLR_STAGING_SVM :
      CLR_STAGING_PLAIN;
  c->pinned = c->pinned && !c->shared;
  c->svm = c->svm && !c->shared;
  ch = c->channels;

  if (host_form) {
    if (!(c->host = clr_conv_host_new (cfg->taps, cfg->n_taps,
                cfg->n_filters, c->block, c->parts, c->channels, !f64))) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the convolution's spectra");
      goto failed;
    }
    /* a CPU device's memory is the host's: the same budget holds */
    if (!clr_budget_check (&c->budget, clr_conv_host_get_memory (c->host),
            "the filter spectra and delay lines", error))
      goto failed;
    c->budget.used += clr_conv_host_get_memory (c->host);
  } else if (direct_form) {
    if (!(c->direct = clr_conv_direct_new (cfg->taps, cfg->n_taps,
                cfg->n_filters))) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the convolution's filter");
      goto failed;
    }
  } else if (c->shared) {
    if (!check_local_memory (c, error) || !take_seat (c, cfg, f64,
            acc_double, staging, error))
      goto failed;
  } else if (!check_local_memory (c, error)
      || !build_kernels (c, f64, acc_double, error)
      || !upload_twiddles (c, error) || !upload_spectra (c, cfg, f64, error)
      || !alloc_buffers (c, error))
    goto failed;
  if ((c->direct || c->host || c->shared) && c->hist_cap
      && !(c->hist_host = g_try_malloc0 (ch * c->hist_cap * c->ssize))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the convolution's input history");
    goto failed;
  }

  /* clr-engine-fft.c reads the fifo a frame from each plane in turn, and a
   * source may write the stage's planes so */
  c->stage_cap = c->max_batch * H + c->keep + CLR_CONV_PLANE_PAD;
  c->fifo_cap = (c->max_batch + 1) * H + CLR_CONV_PLANE_PAD;
  c->interleaved = cfg->interleaved;
  c->stage_pitch = c->interleaved ? 1 : c->stage_cap;
  c->stage_step = c->interleaved ? ch : 1;
  c->out_interleaved = c->interleaved && !cfg->planar_outputs;
  c->fifo_pitch = c->out_interleaved ? 1 : c->fifo_cap;
  c->fifo_step = c->out_interleaved ? c->n_out : 1;
  c->prof.on = tuning->profile;
  if (c->svm) {
    if (!(c->stage = clr_budget_svm_alloc (&c->budget, stage_bytes (c),
                "input buffer", error)) || !(c->fifo =
            clr_budget_svm_alloc (&c->budget, fifo_bytes (c),
                "output buffer", error)))
      goto failed;
  } else if (c->pinned) {
    if (!(c->stage = clr_host_alloc (dev, stage_bytes (c), error))
        || !(c->fifo = clr_host_alloc (dev, fifo_bytes (c), error)))
      goto failed;
  } else {
    c->stage = g_try_malloc (stage_bytes (c));
    c->fifo = g_try_malloc (fifo_bytes (c));
    if (!c->stage || !c->fifo) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the convolution's staging buffers");
      goto failed;
    }
  }
  clr_conv_reset (c);
  if (host_form)
    clr_log (CLR_LOG_INFO, "convolution: %u channels, %u output(s), %u "
        "filter(s) of %" G_GSIZE_FORMAT " taps, blocks of %u frames, %u "
        "partitions of %u frames, on the host, %s, transforms and sums in "
        "double, %" G_GSIZE_FORMAT " bytes", c->channels, c->n_out,
        c->n_filters, c->n_taps, c->hop, c->parts, c->block,
        f64 ? "F64" : "F32", clr_conv_host_get_memory (c->host));
  else if (direct_form)
    clr_log (CLR_LOG_INFO, "convolution: %u channels, %u output(s), %u "
        "filter(s) of %" G_GSIZE_FORMAT " taps, blocks of %u frames, in "
        "direct form on the host, %s summed in double", c->channels,
        c->n_out, c->n_filters, c->n_taps, c->hop, f64 ? "F64" : "F32");
  else
  clr_log (CLR_LOG_INFO, "convolution: %u channels, %u output(s), %u "
      "filter(s) of %" G_GSIZE_FORMAT " taps, blocks of %u frames, %u "
      "partitions of %u frames summed in %u slice(s), %s%s%s, transforms %s, %"
      G_GUINT64_FORMAT " bytes of device memory%s", c->channels, c->n_out,
      c->n_filters, c->n_taps, c->hop, c->parts, c->block, c->slices,
      f64 ? "F64" : "F32",
      acc_double ? ", partition sums in double" : "",
      c->fft_double && !f64 ? ", transforms in double" : "",
      c->fft_vec ? "a work-item each, in vectors" : "a work-group each",
      c->budget.used, c->shared ? ", in the device's shared batches" : "");
  return c;

failed:
  clr_conv_free (c);
  return NULL;
}

/* CLRESAMPLE_PROFILE's report: microseconds a batch, stage by stage. */
static void
print_profile (ClrConv * c)
{
  const char *const names[CLR_CONV_PROFILE_SLOTS] = { "upload",
    c->one_launch ? "forward and inverse" : "forward", "sum", "inverse",
    "read", "host wall", "source", "sink"
  };
  gchar *what = g_strdup_printf ("%u ch x %u out, B %u, %u partitions",
      c->channels, c->n_out, c->block, c->parts);

  clr_conv_profile_report (&c->prof, what, names);
  g_free (what);
}

void
clr_conv_free (ClrConv * c)
{
  size_t i;

  if (!c)
    return;
  cl_mem *mems[] = { &c->twiddles, &c->spectra, &c->ring, &c->in, &c->prod,
    &c->out, &c->hist
  };
  cl_kernel kernels[] = { c->forward, c->mac, c->mac_wide, c->inverse,
    c->block_kernel
  };
  if (c->queue)
    clFinish (c->queue);
  clr_conv_seat_leave (&c->seat);
  clr_conv_direct_free (c->direct);
  clr_conv_host_free (c->host);
  for (i = 0; i < c->n_levels; i++)
    clr_conv_async_free (c->levels[i]);
  g_free (c->levels);
  g_free (c->level_sums);
  g_free (c->hist_host);
  if (c->ahead_event)
    clReleaseEvent (c->ahead_event);
  if (c->prof.on)
    print_profile (c);
  for (i = 0; i < G_N_ELEMENTS (mems); i++)
    clr_budget_free (&c->budget, mems[i]);
  for (i = 0; i < G_N_ELEMENTS (kernels); i++)
    if (kernels[i])
      clReleaseKernel (kernels[i]);
  if (c->svm) {
    clr_budget_svm_free (&c->budget, &c->stage, stage_bytes (c));
    clr_budget_svm_free (&c->budget, &c->fifo, fifo_bytes (c));
  } else if (c->pinned) {
    clr_host_free (c->stage);
    clr_host_free (c->fifo);
  } else {
    g_free (c->stage);
    g_free (c->fifo);
  }
  clr_device_unref (c->dev);
  g_free (c);
}

uint32_t
clr_conv_get_latency (ClrConv * c)
{
  return c->hop;
}

size_t
clr_conv_get_drain_frames (ClrConv * c)
{
  return c->hop + c->n_taps - 1;
}

guint64
clr_conv_get_device_memory (ClrConv * c)
{
  guint64 used = c->budget.used;
  unsigned i;

  for (i = 0; i < c->n_levels; i++)
    used += clr_conv_get_device_memory (clr_conv_async_get_conv
        (c->levels[i]));
  return used;
}

const ClrConvLevelPlan *
clr_conv_get_plan (ClrConv * c)
{
  return &c->plan;
}

uint32_t
clr_conv_get_outputs (ClrConv * c)
{
  return c->n_out;
}

/* Frames [from, from + n) of `planes` channels laid out by (pitch, step)
 * set to zero. */
static void
frames_zero (char *base, size_t pitch, size_t step, size_t planes,
    size_t from, size_t n, size_t ss)
{
  size_t k;

  if (step > 1)                 /* interleaved: one run */
    memset (base + from * step * ss, 0, n * step * ss);
  else
    for (k = 0; k < planes; k++)
      memset (base + (k * pitch + from) * ss, 0, n * ss);
}

/* Frames [from, from + n) moved to frame 0. */
static void
frames_to_front (char *base, size_t pitch, size_t step, size_t planes,
    size_t from, size_t n, size_t ss)
{
  size_t k;

  if (step > 1)
    memmove (base, base + from * step * ss, n * step * ss);
  else
    for (k = 0; k < planes; k++)
      memmove (base + k * pitch * ss, base + (k * pitch + from) * ss, n * ss);
}

void
clr_conv_reset (ClrConv * c)
{
  const cl_uchar zero = 0;
  cl_int status;
  unsigned i;

  /* spectra of blocks before the stream: silence (shared mode's kernels
   * leave them out instead) */
  status = !c->ring ? CL_SUCCESS : clEnqueueFillBuffer (c->queue, c->ring,
      &zero, 1, 0, (size_t) c->slots * c->channels * c->bin_stride *
      c->csize, 0, NULL, NULL);
  if (status == CL_SUCCESS && c->ring)
    status = clFinish (c->queue);
  c->reset_status = status;
  if (c->host)
    clr_conv_host_reset (c->host);
  if (c->prof.on)
    print_profile (c);
  frames_zero (c->stage, c->stage_pitch, c->stage_step, c->channels, 0,
      c->keep, c->ssize);
  frames_zero (c->fifo, c->fifo_pitch, c->fifo_step, c->n_out, 0, c->hop,
      c->ssize);
  for (i = 0; i < c->n_levels; i++)
    clr_conv_async_reset (c->levels[i]);
  c->pending = 0;
  c->fifo_start = 0;
  c->fifo_len = c->hop;
  c->blocks = 0;
  c->discard_blocks = 0;
  c->drained = FALSE;
  c->sum_ready = FALSE;
  if (c->ahead_event)
    clReleaseEvent (c->ahead_event);
  c->ahead_event = NULL;
}

size_t
clr_conv_get_history_len (ClrConv * c)
{
  return MIN (c->blocks * c->hop + c->pending, c->hist_keep);
}

/* Shared mode: channel ch's frames [pos, pos + len) of the history, which
 * keeps the stage's layout (planes of hist_cap frames, or frames of all
 * channels in turn), into a plane. */
static void
history_to_plane (ClrConv * c, size_t ch, size_t pos, size_t len, char *to)
{
  const size_t ss = c->ssize;
  size_t i;

  if (!c->interleaved) {
    memcpy (to, c->hist_host + (ch * c->hist_cap + pos) * ss, len * ss);
    return;
  }
  for (i = 0; i < len; i++)
    memcpy (to + i * ss, c->hist_host + ((pos + i) * c->channels + ch) * ss,
        ss);
}

gboolean
clr_conv_read_history (ClrConv * c, size_t back, size_t n,
    void *const *planes, GError ** error)
{
  const size_t ss = c->ssize, on_device = c->blocks * c->hop;
  const size_t total = on_device + c->pending;
  size_t f = total - back, end = f + n, ch;
  cl_int status = CL_SUCCESS;

  g_return_val_if_fail (n <= back && back <= clr_conv_get_history_len (c),
      FALSE);
  /* frames already uploaded: from the device's ring, in up to two runs */
  while (f < MIN (end, on_device) && status == CL_SUCCESS) {
    const size_t pos = f % c->hist_cap;
    const size_t len = MIN (MIN (end, on_device) - f, c->hist_cap - pos);
    const size_t at = (f - (total - back)) * ss;

    for (ch = 0; ch < c->channels && status == CL_SUCCESS; ch++)
      if (c->hist_host)
        history_to_plane (c, ch, pos, len, (char *) planes[ch] + at);
      else
        status = clEnqueueReadBuffer (c->queue, c->hist, CL_FALSE,
            (ch * c->hist_cap + pos) * ss, len * ss,
            (char *) planes[ch] + at, 0, NULL, NULL);
    f += len;
  }
  if (status == CL_SUCCESS && !c->hist_host)
    status = clFinish (c->queue);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Reading the input history back");
    return FALSE;
  }
  /* the pending frames, not uploaded yet: from the stage */
  for (; f < end; f++)
    for (ch = 0; ch < c->channels; ch++)
      memcpy ((char *) planes[ch] + (f - (total - back)) * ss,
          c->stage + (ch * c->stage_pitch + (c->keep + f - on_device) *
              c->stage_step) * ss, ss);
  return TRUE;
}

#define ARG_MEM(m) { sizeof (cl_mem), &(m), NULL }
#define ARG_UINT(u) { sizeof (cl_uint), &(u), NULL }
/* buffer m, or where the kernels share memory with the host (svm) the
 * pointer p into it */
#define ARG_SHARED(m, p) { sizeof (cl_mem), &(m), (p) }

/* Blocks a work-item of clr_conv_mac_wide sums, sharing the loads of the
 * filter spectra: for batches of that many blocks or more (MAC_WIDE in
 * kernels/conv.cl). */
#define CLR_CONV_MAC_WIDE 4

/* Work-items a sum's work-group has along the bins; its slices are the
 * other dimension. */
static size_t
mac_lanes (ClrConv * c)
{
  return MAX (1, c->mac_items / c->slices);
}

static cl_kernel
mac_kernel (ClrConv * c, size_t n)
{
  return n >= CLR_CONV_MAC_WIDE ? c->mac_wide : c->mac;
}

/* The sum's arguments for n blocks from the one in ring slot slot0. */
static cl_int
set_mac_args (ClrConv * c, cl_uint n, cl_uint slot0)
{
  const cl_uint stride = filter_stride (c);
  const ClrKernelArg mac[] = { ARG_MEM (c->ring), ARG_UINT (slot0),
    ARG_UINT (c->slots), ARG_UINT (c->parts), ARG_MEM (c->spectra),
    ARG_UINT (stride), ARG_MEM (c->prod), ARG_UINT (n),
    /* the slices' tree: re and im of 4 bins a work-item */
    {2 * c->acc_size * mac_lanes (c) * c->slices, NULL, NULL},
    ARG_UINT (c->channels), ARG_UINT (c->filter_div)
  };

  return clr_kernel_set_args (mac_kernel (c, n), mac, G_N_ELEMENTS (mac));
}

/* The sum's range for n blocks: vectors of 4 bins, outputs (in groups of
 * opw for one block), blocks (MAC_WIDE a work-item for many) x slices. */
static void
mac_range (ClrConv * c, size_t n, size_t global[3], size_t local[3])
{
  const size_t lanes = mac_lanes (c);
  const gboolean wide = n >= CLR_CONV_MAC_WIDE;

  global[0] = (c->bin_stride / 4 + lanes - 1) / lanes * lanes;
  global[1] = wide ? c->n_out : c->n_out / c->opw;
  global[2] = (wide ? (n + CLR_CONV_MAC_WIDE - 1) / CLR_CONV_MAC_WIDE : n) *
      c->slices;
  local[0] = lanes;
  local[1] = 1;
  local[2] = c->slices;
}

/* Where a batch's output goes in the fifo (shared memory) */
static char *
fifo_end (ClrConv * c)
{
  return c->fifo + c->fifo_len * c->fifo_step * c->ssize;
}

/* Sets the kernels' arguments for a batch of n blocks. */
static cl_int
set_args (ClrConv * c, cl_uint n)
{
  /* channel and frame steps of the device's input and output buffers:
   * planes of the batch's frames, or frames of all channels in turn */
  const cl_uint in_chan = c->interleaved ? 1 : c->svm ? c->stage_cap :
      n * c->hop + c->keep;
  const cl_uint in_frame = c->interleaved ? c->channels : 1;
  const cl_uint out_chan = c->out_interleaved ? 1 : c->svm ? c->fifo_cap :
      n * c->hop;
  const cl_uint out_frame = c->out_interleaved ? c->n_out : 1;
  const cl_uint slot0 = (cl_uint) (c->blocks % c->slots);
  const cl_uint hist_cap = (cl_uint) c->hist_cap;
  const cl_uint hist_at = hist_cap ? (cl_uint) (c->blocks * c->hop %
      hist_cap) : 0;
  const cl_uint filter_bins = filter_stride (c) * 4;
  /* shared memory: the stage in, the fifo's free end out */
  const void *in_svm = c->svm ? c->stage : NULL;
  const void *out_svm = c->svm ? fifo_end (c) : NULL;
  const ClrKernelArg forward[] = { ARG_SHARED (c->in, in_svm),
    ARG_UINT (in_chan), ARG_UINT (in_frame), ARG_UINT (c->channels),
    ARG_MEM (c->ring), ARG_UINT (slot0), ARG_UINT (c->slots),
    ARG_MEM (c->twiddles), ARG_MEM (c->hist), ARG_UINT (hist_cap),
    ARG_UINT (hist_at)
  };
  /* the work-group version's last 7: partition 0's product's inputs */
  const ClrKernelArg inverse[] = { ARG_MEM (c->prod), ARG_UINT (c->n_out),
    ARG_MEM (c->twiddles), ARG_SHARED (c->out, out_svm),
    ARG_UINT (out_chan), ARG_UINT (out_frame), ARG_MEM (c->ring),
    ARG_UINT (slot0), ARG_UINT (c->slots), ARG_MEM (c->spectra),
    ARG_UINT (filter_bins), ARG_UINT (c->channels), ARG_UINT (c->filter_div)
  };
  /* the sum's inputs instead of its products (in complex values) */
  const ClrKernelArg fused[] = { ARG_MEM (c->ring), ARG_UINT (slot0),
    ARG_UINT (c->slots), ARG_MEM (c->spectra), ARG_UINT (filter_bins),
    ARG_UINT (c->channels), ARG_UINT (c->filter_div), ARG_UINT (c->n_out),
    ARG_MEM (c->twiddles), ARG_SHARED (c->out, out_svm),
    ARG_UINT (out_chan), ARG_UINT (out_frame)
  };
  /* clr_conv_block: the forward transform's, then these */
  const ClrKernelArg block_outputs[] = { ARG_MEM (c->spectra),
    ARG_UINT (filter_bins), ARG_UINT (c->filter_div), ARG_UINT (c->n_out),
    ARG_SHARED (c->out, out_svm), ARG_UINT (out_chan), ARG_UINT (out_frame)
  };
  cl_int status;

  if (c->one_launch) {
    status = clr_kernel_set_args (c->block_kernel, forward,
        G_N_ELEMENTS (forward));
    if (status == CL_SUCCESS)
      status = clr_kernel_set_args_from (c->block_kernel,
          G_N_ELEMENTS (forward), block_outputs,
          G_N_ELEMENTS (block_outputs));
    return status;
  }
  status = clr_kernel_set_args (c->forward, forward, G_N_ELEMENTS (forward));
  if (status == CL_SUCCESS && c->fused)
    status = clr_kernel_set_args (c->inverse, fused, G_N_ELEMENTS (fused));
  if (status == CL_SUCCESS && !c->fused && runs_sum (c))
    status = set_mac_args (c, n, slot0);
  if (status == CL_SUCCESS && !c->fused)
    status = clr_kernel_set_args (c->inverse, inverse, c->newest_apart ?
        G_N_ELEMENTS (inverse) : 6);
  return status;
}

/* Drops the fifo's consumed front, so that a batch's output fits behind. */
static void
fifo_compact (ClrConv * c)
{
  if (c->fifo_start == 0)
    return;
  frames_to_front (c->fifo, c->fifo_pitch, c->fifo_step, c->n_out,
      c->fifo_start, c->fifo_len, c->ssize);
  c->fifo_start = 0;
}

/* Launches the sum of block `blocks` over the partitions but the newest,
 * whose spectra the device has: the next one-block batch leaves it out. */
static gboolean
sum_next_block (ClrConv * c, GError ** error)
{
  size_t global[3], local[3];
  cl_int status;

  mac_range (c, 1, global, local);
  status = set_mac_args (c, 1, (cl_uint) (c->blocks % c->slots));
  if (status == CL_SUCCESS)
    status = clEnqueueNDRangeKernel (c->queue, mac_kernel (c, 1), 3, NULL,
        global, local, 0, NULL, c->prof.on ? &c->ahead_event : NULL);
  /* started now, not when the next call's commands go */
  if (status == CL_SUCCESS)
    status = clFlush (c->queue);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Launching the next block's sum");
    return FALSE;
  }
  c->sum_ready = TRUE;
  return TRUE;
}

/* After n blocks ran: their input leaves the stage, their output is on
 * the fifo. */
static void
blocks_done (ClrConv * c, size_t n)
{
  const size_t H = c->hop;

  /* keep the last block as the next batch's history, and what is pending:
   * moved to the front every batch, so that the stage stays as short as a
   * batch and in the cache (moving only when full walked 17 blocks a plane,
   * 4.4 MiB at 64 channels x B = 1024, and writing the input into it cold
   * cost 4x the move it saved: perf, PoCL, 173 against 41 us) */
  c->pending -= n * H;
  frames_to_front (c->stage, c->stage_pitch, c->stage_step, c->channels,
      n * H, c->keep + c->pending, c->ssize);
  c->fifo_len += n * H;
  c->blocks += n;
}

/* Copies n frames, from frame `from` of planes laid out by (pitch, step),
 * to frame `to` of planes laid out by (dpitch, dstep): the same layout
 * either way, planes or interleaved. */
static void
frames_copy (char *dst, size_t dpitch, const char *src, size_t pitch,
    size_t step, size_t planes, size_t from, size_t to, size_t n, size_t ss)
{
  size_t k;

  if (step > 1)
    memcpy (dst + to * step * ss, src + from * step * ss, n * step * ss);
  else
    for (k = 0; k < planes; k++)
      memcpy (dst + (k * dpitch + to) * ss, src + (k * pitch + from) * ss,
          n * ss);
}

/* Shared and direct mode: the stage's first n blocks of new frames into
 * the host's history, as far back as it reaches. */
static void
host_history_add (ClrConv * c, size_t n)
{
  const size_t H = c->hop;
  const size_t first = n * H > c->hist_cap ? n * H - c->hist_cap : 0;
  size_t f;

  for (f = first; f < n * H && c->hist_cap;) {
    const size_t pos = (c->blocks * H + f) % c->hist_cap;
    const size_t len = MIN (n * H - f, c->hist_cap - pos);

    frames_copy (c->hist_host, c->hist_cap, c->stage, c->stage_pitch,
        c->stage_step, c->channels, c->keep + f, pos, len, c->ssize);
    f += len;
  }
}

/* Shared mode's run_blocks (): the blocks as a job of the device's
 * scheduler, which runs them with whatever other streams have ready. */
static gboolean
run_blocks_shared (ClrConv * c, size_t n, GError ** error)
{
  const size_t H = c->hop, ss = c->ssize, ch = c->channels;
  const size_t win = n * H + c->keep;
  ClrSchedJob job = { 0 };
  gboolean ok;

  job.kern = c->seat.kern;
  job.win_bytes = ch * win * ss;
  job.win_sample = ss;
  job.out_bytes = c->n_out * n * H * ss;
  job.out_sample = ss;
  job.items = n;
  job.row[CLR_CONV_ROW_SEAT] = c->seat.seat;
  job.row[CLR_CONV_ROW_BLOCK] = c->blocks;
  job.row[CLR_CONV_ROW_BLOCKS] = n;
  job.row[CLR_CONV_ROW_IN_CHAN] = c->interleaved ? 1 : win;
  job.row[CLR_CONV_ROW_IN_FRAME] = c->interleaved ? ch : 1;
  job.row[CLR_CONV_ROW_OUT_CHAN] = c->out_interleaved ? 1 : n * H;
  job.row[CLR_CONV_ROW_OUT_FRAME] = c->out_interleaved ? c->n_out : 1;
  if (!clr_sched_reserve (c->seat.sched, &job, error))
    return FALSE;
  frames_copy (job.win, win, c->stage, c->stage_pitch, c->stage_step, ch, 0,
      0, win, ss);
  ok = clr_sched_run (c->seat.sched, &job, error);
  if (ok) {
    fifo_compact (c);
    frames_copy (c->fifo, c->fifo_cap, job.out, n * H, c->fifo_step,
        c->n_out, 0, c->fifo_len, n * H, ss);
  }
  clr_sched_release (c->seat.sched, &job);
  if (!ok)
    return FALSE;
  host_history_add (c, n);
  blocks_done (c, n);
  return TRUE;
}

/* Direct form's run_blocks (): each input channel's window of the stage
 * once into double, every output of it summed from there onto the
 * fifo. */
static gboolean
run_blocks_direct (ClrConv * c, size_t n, GError ** error)
{
  const size_t ss = c->ssize, outputs = c->n_out / c->channels;
  const gboolean f64 = ss == sizeof (double);
  const gint64 t0 = c->prof.on ? g_get_monotonic_time () : 0;
  size_t ch, k, o;

  fifo_compact (c);
  for (ch = 0; ch < c->channels; ch++) {
    if (!clr_conv_direct_load (c->direct, f64, c->stage + ch *
            c->stage_pitch * ss, c->stage_step, n * c->hop)) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the direct-form convolution's window");
      return FALSE;
    }
    for (k = 0; k < outputs; k++) {
      o = k * c->channels + ch;
      clr_conv_direct_run (c->direct, c->n_filters > 1 ?
          (uint32_t) (o / c->filter_div) : 0, f64, c->fifo + (o *
              c->fifo_pitch + c->fifo_len * c->fifo_step) * ss,
          c->fifo_step);
    }
  }
  if (c->prof.on)
    clr_conv_profile_since (&c->prof, CLR_CONV_PROFILE_WALL, t0);
  host_history_add (c, n);
  blocks_done (c, n);
  return TRUE;
}

typedef struct
{
  ClrConv *c;
  size_t n;
} HostBlocks;

/* One channel's blocks of a call: each one's spectrum into the channel's
 * delay line, then every output of it onto the fifo. */
/* Output plane o's frames [from, from + n) of the fifo set to zero, the
 * other planes' untouched (channels run side by side) */
static void
fifo_plane_zero (ClrConv * c, size_t o, size_t from, size_t n)
{
  char *p = c->fifo + (o * c->fifo_pitch + from * c->fifo_step) * c->ssize;
  size_t j;

  if (c->fifo_step == 1)
    memset (p, 0, n * c->ssize);
  else
    for (j = 0; j < n; j++)
      memset (p + j * c->fifo_step * c->ssize, 0, c->ssize);
}

static void
host_channel (gpointer user, guint ch)
{
  const HostBlocks *hb = user;
  ClrConv *c = hb->c;
  const size_t ss = c->ssize, H = c->hop, outputs = c->n_out / c->channels;
  const gboolean f64 = ss == sizeof (double);
  size_t b, k, o;

  for (b = 0; b < hb->n; b++) {
    /* a block the caller drops: its spectrum into the delay line alone */
    const gboolean dropped = c->blocks + b < c->discard_blocks;

    clr_conv_host_load (c->host, ch, (uint32_t) b, f64, c->stage + (ch *
            c->stage_pitch + b * H * c->stage_step) * ss, c->stage_step);
    for (k = 0; k < outputs; k++) {
      o = k * c->channels + ch;
      if (dropped) {
        fifo_plane_zero (c, o, c->fifo_len + b * H, H);
        continue;
      }
      clr_conv_host_run (c->host, ch, (uint32_t) b, c->n_filters > 1 ?
          (uint32_t) (o / c->filter_div) : 0, f64, H, c->fifo + (o *
              c->fifo_pitch + (c->fifo_len + b * H) * c->fifo_step) * ss,
          c->fifo_step);
    }
  }
}

void
clr_conv_discard (ClrConv * c, uint64_t frames)
{
  /* block i's output is handed out as frames [H + i H, H + (i + 1) H):
   * the stream's first H frames are the latency's zeros */
  g_return_if_fail (c->blocks == 0);
  c->discard_blocks = frames / c->hop > 1 ? frames / c->hop - 1 : 0;
}

/* On the host's transforms: the channels side by side. */
static gboolean
run_blocks_host (ClrConv * c, size_t n, GError ** error)
{
  const gint64 t0 = c->prof.on ? g_get_monotonic_time () : 0;
  HostBlocks hb = { c, n };

  fifo_compact (c);
  /* a call of one short block gains nothing: its channels are done
   * before a worker wakes */
  if (c->host_threads && n * c->hop >= CLR_CONV_THREADS_FRAMES)
    clr_workers_for (host_channel, &hb, c->channels);
  else {
    guint ch;

    for (ch = 0; ch < c->channels; ch++)
      host_channel (&hb, ch);
  }
  clr_conv_host_advance (c->host, (uint32_t) n);
  if (c->prof.on)
    clr_conv_profile_since (&c->prof, CLR_CONV_PROFILE_WALL, t0);
  host_history_add (c, n);
  blocks_done (c, n);
  return TRUE;
}

/* The first n whole blocks of the stage through the device: their B output
 * frames each onto the fifo. */
static gboolean
run_blocks (ClrConv * c, size_t n, GError ** error)
{
  const size_t H = c->hop, ss = c->ssize, ch = c->channels;
  const size_t zero[3] = { 0, 0, 0 };
  const size_t in_region[3] = { (n * H + c->keep) * ss, ch, 1 };
  const size_t out_region[3] = { n * H * ss, c->n_out, 1 };
  size_t fft_global = c->fft_items * n * ch, fifo_origin[3] = { 0, 0, 0 };
  size_t ifft_global = c->fft_items * n * c->n_out;
  size_t mac_global[3], mac_local[3];
  /* a one-block batch whose sum ran ahead (after the one before) */
  const gboolean sum_ready = c->sum_ready && n == 1;
  const struct {
    cl_kernel kernel;
    cl_uint dims;
    const size_t *global, *local;
    const char *what;
  } launches[] = {
    {c->one_launch ? c->block_kernel : c->forward, 1, &fft_global,
        &c->fft_items, "Launching the forward transforms"},
    {runs_sum (c) && !sum_ready ? mac_kernel (c, n) : NULL, 3, mac_global,
        mac_local, "Launching the partition sums"},
    {c->one_launch ? NULL : c->inverse, 1, &ifft_global, &c->fft_items,
        "Launching the inverse transforms"},
  };
  cl_event ev[CLR_CONV_STAGES] = { NULL };
  /* events only when profiling: the driver then records their times */
  cl_event *evp[CLR_CONV_STAGES];
  const gint64 t0 = c->prof.on ? g_get_monotonic_time () : 0;
  const char *what;
  cl_int status;
  size_t i;

  if (c->direct)
    return run_blocks_direct (c, n, error);
  if (c->host)
    return run_blocks_host (c, n, error);
  if (c->shared)
    return run_blocks_shared (c, n, error);
  for (i = 0; i < CLR_CONV_STAGES; i++)
    evp[i] = c->prof.on ? &ev[i] : NULL;
  mac_range (c, n, mac_global, mac_local);
  /* the sum that ran ahead counts as this batch's; unused (a longer
   * batch sums again) it is dropped */
  if (sum_ready)
    ev[2] = c->ahead_event;
  else if (c->ahead_event)
    clReleaseEvent (c->ahead_event);
  c->ahead_event = NULL;
  c->sum_ready = FALSE;
  fifo_compact (c);
  fifo_origin[0] = c->fifo_len * ss;

  what = "Uploading the input";
  if (c->svm)
    status = CL_SUCCESS;
  else if (c->interleaved)
    status = clEnqueueWriteBuffer (c->queue, c->in, CL_FALSE, 0,
        (n * H + c->keep) * ch * ss, c->stage, 0, NULL, evp[0]);
  else
    status = clEnqueueWriteBufferRect (c->queue, c->in, CL_FALSE, zero, zero,
        in_region, in_region[0], 0, c->stage_cap * ss, 0, c->stage, 0, NULL,
        evp[0]);
  if (status != CL_SUCCESS)
    goto failed;
  what = "Setting the convolution kernels' arguments";
  if ((status = set_args (c, (cl_uint) n)) != CL_SUCCESS)
    goto failed;
  for (i = 0; i < G_N_ELEMENTS (launches) && status == CL_SUCCESS; i++) {
    if (!launches[i].kernel)
      continue;
    what = launches[i].what;
    status = clEnqueueNDRangeKernel (c->queue, launches[i].kernel,
        launches[i].dims, NULL, launches[i].global, launches[i].local, 0,
        NULL, evp[1 + i]);
  }
  if (status != CL_SUCCESS)
    goto failed;
  what = c->svm ? "Waiting for the convolution's kernels" :
      "Reading the output back";
  if (c->svm)
    status = clFinish (c->queue);
  else if (c->out_interleaved)
    status = clEnqueueReadBuffer (c->queue, c->out, CL_TRUE, 0,
        n * H * c->n_out * ss, c->fifo + c->fifo_len * c->n_out * ss, 0,
        NULL, evp[4]);
  else
    status = clEnqueueReadBufferRect (c->queue, c->out, CL_TRUE, zero,
        fifo_origin, out_region, out_region[0], 0, c->fifo_cap * ss, 0,
        c->fifo, 0, NULL, evp[4]);
  if (status != CL_SUCCESS)
    goto failed;
  if (c->prof.on)
    clr_conv_profile_batch (&c->prof, ev, n, g_get_monotonic_time () - t0);

  blocks_done (c, n);
  /* a stream that comes a block at a time (real time) has the next
   * block's sum run now: its launch and its time leave the next call */
  if (c->sum_ahead && n == 1)
    return sum_next_block (c, error);
  return TRUE;

failed:
  for (i = 0; i < CLR_CONV_STAGES; i++)
    if (ev[i])
      clReleaseEvent (ev[i]);
  clr_set_cl_error (error, status, what);
  return FALSE;
}

/* Has `source` write the call's frames [from, from + n) (NULL: zeros)
 * behind the pending input, and the levels take them too. */
static gboolean
stage_append (ClrConv * c, ClrConvSource source, gpointer user, size_t from,
    size_t n, GError ** error)
{
  const size_t at = c->keep + c->pending;
  unsigned i;

  if (source) {
    const gint64 t0 = c->prof.on ? g_get_monotonic_time () : 0;
    source (user, c->stage + at * c->stage_step * c->ssize, c->stage_pitch,
        c->stage_step, from, n);
    if (c->prof.on)
      clr_conv_profile_since (&c->prof, CLR_CONV_PROFILE_SOURCE, t0);
  } else {
    frames_zero (c->stage, c->stage_pitch, c->stage_step, c->channels, at, n,
        c->ssize);
  }
  c->pending += n;
  /* the levels take the same frames, their output into their delay
   * lines */
  for (i = 0; i < c->n_levels; i++)
    if (!clr_conv_async_push (c->levels[i], source ? c->stage + at *
            c->stage_step * c->ssize : NULL, c->stage_pitch, c->stage_step,
            n, error))
      return FALSE;
  return TRUE;
}

/* Output frames at `first` (the fifo's layout) plus every level's, summed
 * in double: F32 is rounded once, as a uniform convolution's is. */
static gboolean
add_levels (ClrConv * c, char *first, size_t n, GError ** error)
{
  const size_t pitch = c->max_batch * c->hop + c->hop;
  const gboolean f64 = c->ssize == sizeof (double);
  size_t k, i, at;
  unsigned l;

  for (k = 0; k < c->n_out; k++)
    for (i = 0; i < n; i++) {
      at = k * c->fifo_pitch + i * c->fifo_step;
      c->level_sums[k * pitch + i] = f64 ? ((double *) first)[at] :
          ((float *) first)[at];
    }
  for (l = 0; l < c->n_levels; l++)
    if (!clr_conv_async_add_to_double (c->levels[l], f64, c->level_sums,
            pitch, n, error))
      return FALSE;
  for (k = 0; k < c->n_out; k++)
    for (i = 0; i < n; i++) {
      at = k * c->fifo_pitch + i * c->fifo_step;
      if (f64)
        ((double *) first)[at] = c->level_sums[k * pitch + i];
      else
        ((float *) first)[at] = (float) c->level_sums[k * pitch + i];
    }
  return TRUE;
}

/* Hands out up to `want` frames of the fifo to sink, adding to *done how
 * many; FALSE where a level failed. */
static gboolean
fifo_take (ClrConv * c, ClrConvSink sink, gpointer user, size_t want,
    size_t * done, GError ** error)
{
  const size_t n = MIN (want, c->fifo_len);
  const gint64 t0 = c->prof.on ? g_get_monotonic_time () : 0;
  char *first = c->fifo + c->fifo_start * c->fifo_step * c->ssize;

  /* the levels' output for these frames, from their delay lines */
  if (c->n_levels && !add_levels (c, first, n, error))
    return FALSE;
  if (n)
    sink (user, first, c->fifo_pitch, c->fifo_step, n);
  if (c->prof.on)
    clr_conv_profile_since (&c->prof, CLR_CONV_PROFILE_SINK, t0);
  c->fifo_start += n;
  c->fifo_len -= n;
  *done += n;
  return TRUE;
}

gboolean
clr_conv_process_with (ClrConv * c, ClrConvSource source,
    gpointer source_user, size_t frames, ClrConvSink sink, gpointer user,
    GError ** error)
{
  const size_t H = c->hop, batch_frames = c->max_batch * H;
  size_t done_in = 0, done_out = 0;

  if (c->drained) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The convolution was drained; reset it before new input");
    return FALSE;
  }
  if (c->reset_status != CL_SUCCESS) {
    clr_set_cl_error (error, c->reset_status,
        "Clearing the convolution's delay line at its reset");
    return FALSE;
  }
  while (done_in < frames) {
    size_t take = MIN (frames - done_in, batch_frames - c->pending);

    if (!stage_append (c, source, source_user, done_in, take, error))
      return FALSE;
    done_in += take;
    /* a batch when the stage is full or the input used up, so that the
     * output of every complete block goes out in this call */
    if (c->pending >= H && (c->pending == batch_frames || done_in == frames)
        && !run_blocks (c, c->pending / H, error))
      return FALSE;
    if (!fifo_take (c, sink, user, done_in - done_out, &done_out, error))
      return FALSE;
  }
  g_assert (done_out == frames);
  return TRUE;
}

typedef struct
{
  ClrConv *c;
  const void *const *in;
} PlaneSource;

static void
copy_from_planes (gpointer user, void *base, size_t pitch, size_t step,
    size_t from, size_t n)
{
  PlaneSource *ps = user;
  const size_t ss = ps->c->ssize;
  size_t ch, i;

  for (ch = 0; ch < ps->c->channels; ch++) {
    const char *src = (const char *) ps->in[ch] + from * ss;
    char *dst = (char *) base + ch * pitch * ss;
    if (step == 1)
      memcpy (dst, src, n * ss);
    else
      for (i = 0; i < n; i++)
        memcpy (dst + i * step * ss, src + i * ss, ss);
  }
}

gboolean
clr_conv_process_to (ClrConv * c, const void *const *in, size_t frames,
    ClrConvSink sink, gpointer user, GError ** error)
{
  PlaneSource ps = { c, in };

  return clr_conv_process_with (c, in ? copy_from_planes : NULL, &ps, frames,
      sink, user, error);
}

typedef struct
{
  ClrConv *c;
  void *const *out;
  size_t at;
} PlaneCopy;

static void
copy_to_planes (gpointer user, const void *base, size_t pitch, size_t step,
    size_t n)
{
  PlaneCopy *pc = user;
  const size_t ss = pc->c->ssize;
  size_t ch, i;

  for (ch = 0; ch < pc->c->n_out; ch++) {
    const char *src = (const char *) base + ch * pitch * ss;
    char *dst = (char *) pc->out[ch] + pc->at * ss;
    if (step == 1)
      memcpy (dst, src, n * ss);
    else
      for (i = 0; i < n; i++)
        memcpy (dst + i * ss, src + i * step * ss, ss);
  }
  pc->at += n;
}

gboolean
clr_conv_process (ClrConv * c, const void *const *in, size_t frames,
    void *const *out, GError ** error)
{
  PlaneCopy pc = { c, out, 0 };

  return clr_conv_process_to (c, in, frames, copy_to_planes, &pc, error);
}

gboolean
clr_conv_drain (ClrConv * c, void *const *out, GError ** error)
{
  gboolean ok;

  ok = clr_conv_process (c, NULL, clr_conv_get_drain_frames (c), out, error);
  c->drained = TRUE;
  return ok;
}

uint32_t
clr_conv_max_block (ClrDevice * dev)
{
  /* as clr_conv_new() asks: B complex values of the transforms' precision
   * (double wherever the device has it) in local memory */
  const size_t csize = clr_device_has_fp64 (dev) ? 2 * sizeof (double) :
      2 * sizeof (float);
  const cl_ulong local = local_memory (dev);
  uint32_t b = CLR_CONV_BLOCK_MAX;

  while (b > CLR_CONV_BLOCK_MIN && (cl_ulong) b * csize > local)
    b >>= 1;
  return b;
}
