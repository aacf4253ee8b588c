/* clresample: kernel selection. See clr-kernel-plan.h.
 *
 * Which kernel runs, first matching row first. The family is the device's
 * kind unless CLRESAMPLE_KERNELS names the other; "up" is D < I. The format
 * changes only the arithmetic inside a kernel (F64 needs fp64 and then runs
 * in double throughout; see kernels/resample.cl).
 *
 *    family fp64 channels     ratio  kernel                  a work-item
 *  1 CPU    yes  2 or more    (a)    clr_resample_interp_c2  2 ch, 1 frame
 *    any    any  any          (a)    clr_resample_interp     1 ch, 1 frame
 *  2 CPU    yes  2 or more    any    clr_resample_table_c2   2 ch
 *  3 CPU    any  any          any    clr_resample_table      1 ch
 *  4 GPU    no   any          any    clr_resample_table_t    1 ch
 *  5 GPU    yes  16 or more,  any    clr_resample_table_iv   4 ch, 7 frames (b)
 *                a multiple of 4
 *  6 GPU    yes  any          up     clr_resample_table_tc2  8, 4, 2 or 1 ch
 *                                                            (c), 2 frames
 *  7 GPU    yes  8 or more    down   clr_resample_table_tcf  8 ch, 8 frames (b)
 *  8 GPU    yes  2 to 7       down   clr_resample_table_tc   4 or 2 ch
 *  9 GPU    yes  1            down   clr_resample_table_t    1 ch
 *
 * (a) a table of one row per phase past CLR_BANK_CAP_BYTES (coprime rates
 *     such as 44100 -> 44101): a grid of rows, interpolated per phase
 *     (clr_bank_layout ()). CLRESAMPLE_CPI=1 runs clr_resample_interp
 *     there too; CLRESAMPLE_KERNELS=gpu runs it on CPUs.
 * (b) one frame instead where n frames lie far apart, ceil ((n - 1) D / I)
 *     > K/4 (strong decimation with short filters): the zero rows of the
 *     several-frame kernels would cost too much; row 7 then runs _tc.
 * (c) the most of 8, 4, 2, 1 that the channels reach.
 *
 * Why, measured (GPU figures: an H100, 64 channels, q10;
 * docs/bench/gpu-kernel-sweep.txt and docs/performance.md):
 *  1 an interpolated coefficient costs four rows' weighted sum (1 multiply
 *    and 3 fused adds of 8 taps) and its product 1 more: with two channels
 *    a work-item the coefficient serves both, 6 operations for 16
 *    products instead of 10. Stereo 48 -> 48.001 kHz, the kernel alone
 *    (bench/clr-kernel-bench), 2-core CPU: 1.6-1.9x one channel a
 *    work-item, 1.35-1.55x the time of 44.1 -> 48 kHz's table_c2 (whose
 *    2 operations wait on their sums' latency). Also tried, not kept
 *    (docs/performance.md, "Coprime ratios"): 2 to 8 frames a work-item
 *    stepping the phase without divisions (no faster: the kernel is
 *    bound by its operations).
 *  2 one coefficient load serves both channels.
 *  2, 3 every product and sum in double, with double coefficients: they
 *     spare a float->double conversion a tap, which bounds these kernels
 *     (W1 on PoCL), and keep the designed filter exactly. Without fp64: a
 *     Neumaier-compensated float sum.
 *  4 the several-channel GPU kernels sum blocks in double.
 *  4-9 a tap-major table: neighbouring work-items (output frames) have
 *     different phases, and their coefficients for one tap then lie side
 *     by side, in one row of I values. 256 frames a work-group: with 8
 *     channels a work-item, 2.3x (44.1 -> 48k) to 16x (44.1 -> 192k) the
 *     one-channel kernel in the driver's own groups.
 *  5 an interleaved window, four channels a work-item: a warp's sample
 *     loads are one run of memory. 25.7 G samples/s against 13.2 for _tc2;
 *     7 frames the best of 1..8 at 44.1 -> 48k, 44.1 -> 192k and
 *     48 -> 44.1k.
 *  6 13.2 G samples/s at 44.1 -> 48k against 13.4 for the best _tcf.
 *  7 11.0 against 8.2 for one frame; with fewer channels eight frames a
 *     work-item leave the GPU idle (a mono block of 1024 frames is 32
 *     work-items: W4 ran at half its speed).
 *
 * Work-groups: 256 frames on GPUs (4-9 above); on CPU devices 16
 * (CLR_PLAN_CPU_LOCAL_SIZE), never the driver's choice. PoCL compiles a
 * work-group function for each local size it runs, and left to choose, it
 * takes one that divides the launch, so every new buffer size and every
 * new mix of streams in a batch compiled again, 0.2-0.4 s each on 2 cores,
 * with the stream stalled meanwhile: 62 compiles in a fresh process of 16
 * and 64 streams, and 15 and 7 more in the next two (a fixed size: one,
 * once). The launch is rounded up to whole groups; the kernels return for
 * frames past their count.
 *
 * The device's scheduler (clr-sched.h) stages every batch of buffers: on
 * CPU devices with fine-grained SVM in memory the kernels read in place
 * (planar windows only: not with _iv), and for the CPU kernels the host
 * stores the window as doubles, sparing the kernel its other conversion a
 * tap; GPUs stage through page-locked memory.
 */
#include <string.h>
#include "conv/clr-conv.h"
#include "design/clr-filter.h"
#include "clr-kernel-plan.h"

/* frames a work-group for the CPU kernels (see above) */
#define CLR_PLAN_CPU_LOCAL_SIZE 16

/* The FFT path (clr-engine-fft.c) from this many taps per phase on: up by
 * an integer (D = 1); otherwise this many times D, the outputs it computes
 * for each it keeps (down by an integer: I = 1; rational: I and D past 1).
 * CPUs: where it ran faster than the direct kernels, stereo F32 in
 * 1024-frame calls (docs/bench/cpu-oversample-bench.txt, build/bench/
 * clr-oversample-bench): up, from 1024 taps at 2x (1.28x; 512 taps 0.78x)
 * and from 512 at 4x and 16x (1.43x, 1.26x); down by 2 from 4096 (1.35x;
 * 2048 0.95x), by 4 from 8192 (1.34x; 4096 0.96x); 3/2 and 2/3 from 2048
 * (1.44x, 1.39x; 1024 0.81x, 0.84x). GPUs (H100, the same calls,
 * docs/bench/gpu-oversample-crossover.txt): up, faster from ~444 taps at
 * 2x, ~524 at 4x, ~1231 at 16x (2048: 1.50x; 1024: 0.86x); down by 2 from
 * ~376, by 4 from ~513; 2/3 from ~564, 3/2 from ~482. The thresholds sit
 * at or above the slowest of these (16x, 4x down, 2/3), so that the path
 * switches only where it wins at every ratio of its kind: a call of 1024
 * frames is mostly launches and copies on a GPU at these lengths, and the
 * FFT path adds its block to the latency. */
#define CLR_FFT_MIN_TAPS_UP_CPU 1024u
#define CLR_FFT_MIN_TAPS_PER_D_CPU 2048u
#define CLR_FFT_MIN_TAPS_PER_D_RATIONAL_CPU 1024u
#define CLR_FFT_MIN_TAPS_UP_GPU 2048u
#define CLR_FFT_MIN_TAPS_PER_D_GPU 512u
/* Ratios with I and D both past 1 (3/2, 2/3, 4/3 ...) from the FFT path
 * too, up to this I and D: every input frame's I phases are computed, 1
 * output in D kept. */
#define CLR_FFT_RATIONAL_MAX 8u

/* The FFT path's block: the power of two nearest K / CLR_FFT_BLOCK_DIV,
 * within what the device runs; measured best on the CPU at 16 x 63488
 * taps (docs/performance.md). */
#define CLR_FFT_BLOCK_DIV 16u
/* ... and at most this for a filter of low latency (minimum phase): 16 x
 * 63488 taps at 44.1 kHz then answer 1030 frames (23.4 ms) late, against
 * 4102 (93 ms) with the block that is fastest; measured speed in
 * docs/quality.md ("Phase") */
#define CLR_FFT_BLOCK_LOW_LATENCY 1024u

static uint32_t
fft_block (const ClrKernelFacts * f, const ClrTuning * o)
{
  /* the default to the nearest power of two (up to 1.5 x), a knob's
   * value down to one */
  guint64 want = o->fft_block.set ? o->fft_block.value :
      (guint64) f->taps / CLR_FFT_BLOCK_DIV * 3 / 2;
  uint32_t b = CLR_CONV_BLOCK_MIN;

  if (f->low_latency && !o->fft_block.set)
    want = MIN (want, CLR_FFT_BLOCK_LOW_LATENCY);
  while ((guint64) b * 2 <= want && b * 2 <= f->fft_block_max)
    b *= 2;
  return b;
}

/* Whether the FFT path serves this stream, and with what block. */
static uint32_t
fft_plan (const ClrKernelFacts * f, const ClrTuning * o)
{
  const gboolean small = f->D == 1 || f->I == 1
      || (f->I <= CLR_FFT_RATIONAL_MAX && f->D <= CLR_FFT_RATIONAL_MAX);
  const guint64 min_taps = f->D == 1 ?
      (f->is_gpu ? CLR_FFT_MIN_TAPS_UP_GPU : CLR_FFT_MIN_TAPS_UP_CPU) :
      (guint64) f->D * (f->is_gpu ? CLR_FFT_MIN_TAPS_PER_D_GPU :
      f->I == 1 ? CLR_FFT_MIN_TAPS_PER_D_CPU :
      CLR_FFT_MIN_TAPS_PER_D_RATIONAL_CPU);

  if (f->fft_block_max < CLR_CONV_BLOCK_MIN || !small
      || f->channels > CLR_CONV_CHANNELS_MAX
      || f->I * f->channels > CLR_CONV_OUTPUTS_MAX
      || f->taps > CLR_CONV_TAPS_MAX)
    return 0;
  if (!clr_knob_or (o->fft, f->taps >= min_taps))
    return 0;
  return fft_block (f, o);
}

/* How far apart, at most, the first taps of n neighbouring output frames
 * lie: ceil ((n - 1) D / I) input frames. */
static uint32_t
frames_apart (const ClrKernelFacts * f, unsigned n)
{
  return (uint32_t) (((n - 1) * f->D + f->I - 1) / f->I);
}

void
clr_kernel_plan_choose (const ClrKernelFacts * f, const ClrTuning * o,
    ClrKernelPlan * p)
{
  const gboolean fp64 = f->has_fp64, up = f->D < f->I;
  const uint32_t ch = f->channels;
  gboolean gpu_family, gpu_kernels;

  memset (p, 0, sizeof (*p));
  p->pinned = clr_knob_or (o->pinned, f->is_gpu) != 0;
  p->svm = !p->pinned && clr_knob_or (o->svm, 1) != 0 && f->svm_capable;

  gpu_family = clr_knob_or (o->kernels, f->is_gpu) != 0;
  p->coef_double = f->format == CLR_FORMAT_F64 || (!gpu_family && fp64);
  p->interpolated = !clr_bank_table_fits (f->I, f->taps, p->coef_double ?
      sizeof (double) : sizeof (float));
  gpu_kernels = gpu_family && !p->interpolated;

  p->iv = gpu_kernels && fp64 && ch % 4 == 0
      && clr_knob_or (o->iv, ch >= 16) != 0;
  p->transposed = gpu_kernels && !p->iv;
  p->shifted = p->iv && clr_knob_or (o->iv_shifted, 1) != 0;
  p->iv_dw = p->iv ? (uint32_t) MIN (clr_knob_or (o->iv_dw, 0), 64) : 0;
  p->svm = p->svm && !p->iv;
  p->wsize = p->svm && !gpu_kernels && fp64 ? sizeof (double) :
      clr_format_size (f->format);

  p->cpi = 1;
  if (!gpu_family && fp64 && ch >= 2)
    p->cpi = CLAMP (clr_knob_or (o->cpi, 2), 1, 2);
  if (p->transposed && fp64)
    p->cpi = CLAMP (clr_knob_or (o->cpi, ch >= 8 ? 8 : ch >= 4 ? 4 :
            ch >= 2 ? 2 : 1), 1, 8);
  p->fpi = 1;
  if (p->iv || (p->transposed && fp64)) {
    p->fpi = CLAMP (clr_knob_or (o->fpi, p->iv ? 7 : up ? 2 : ch >= 8 ? 8 :
            1), 1, 8);
    if (frames_apart (f, p->fpi) > f->taps / 4 && !o->fpi.set)
      p->fpi = 1;
  }
  p->pairs = !p->iv && p->fpi == 2 && up && !o->fpi.set;
  p->local_size = clr_knob_or (o->local_size, gpu_kernels ? 256 :
      CLR_PLAN_CPU_LOCAL_SIZE);

  p->kernel = p->interpolated && p->cpi == 2 ? "clr_resample_interp_c2" :
      p->interpolated ? "clr_resample_interp" :
      p->iv ? "clr_resample_table_iv" :
      p->pairs ? "clr_resample_table_tc2" :
      p->fpi > 1 ? "clr_resample_table_tcf" :
      p->transposed && p->cpi > 1 ? "clr_resample_table_tc" :
      p->transposed ? "clr_resample_table_t" :
      p->cpi == 2 ? "clr_resample_table_c2" : "clr_resample_table";

  if (p->pairs) {
    /* _tc2 reads one frame past the last output's taps */
    p->spare = 1;
  } else if (p->fpi > 1 || p->iv) {
    p->pad = frames_apart (f, p->fpi);
    /* block alignment (see the kernel) reaches up to 3 frames back */
    p->back = 3;
    p->lead = p->pad + 3;
    p->span = (f->taps + p->lead + 3) / 4 * 4;
    p->spare = p->span - f->taps;
  }
  p->fft_block = fft_plan (f, o);
}
