/* clresample: which kernel runs, and how, for a device and a stream.
 *
 * clr_kernel_plan_choose() is pure: from the facts of the device and the
 * stream, and the overrides of clr-tuning.h, it gives the kernel and every
 * parameter the engine needs to run it. The table of its defaults, with
 * the measurements behind each row, is in clr-kernel-plan.c.
 */
#ifndef __CLR_KERNEL_PLAN_H__
#define __CLR_KERNEL_PLAN_H__

#include <stdint.h>
#include "clr-format.h"
#include "device/clr-tuning.h"

G_BEGIN_DECLS

typedef struct {
  gboolean is_gpu;
  gboolean has_fp64;
  gboolean svm_capable;         /* fine-grained SVM (clr_budget_svm_supported) */
  ClrFormat format;
  uint32_t channels;
  uint64_t I, D;                /* the reduced ratio (clr-rate.h) */
  uint32_t taps;                /* K, a multiple of 4 */
  uint32_t fft_block_max;       /* the largest convolution block the device
                                 * runs (clr_conv_max_block); 0: no FFT
                                 * path */
  gboolean low_latency;         /* the filter reaches only a few samples
                                 * ahead (minimum phase): the FFT path's
                                 * block must not undo that */
} ClrKernelFacts;

typedef struct {
  const char *kernel;           /* the __kernel in resample.cl */
  gboolean interpolated;        /* the bank is a grid (clr_bank_layout) */
  gboolean coef_double;         /* coefficients stored as double */
  gboolean transposed;          /* table stored tap-major: [k][p] */
  gboolean iv;                  /* interleaved window, _iv */
  gboolean shifted;             /* ... with four shifted copies of the table */
  uint32_t iv_dw;               /* ... centre taps summed in double */
  unsigned cpi;                 /* channels per work-item */
  unsigned fpi;                 /* output frames per work-item */
  gboolean pairs;               /* ... two, by _tc2 */
  size_t local_size;            /* work-group size along output frames */
  gboolean pinned;              /* stage through page-locked memory */
  gboolean svm;                 /* window and output in fine-grained SVM */
  size_t wsize;                 /* bytes per sample in the window */
  /* the window around the taps of the several-frame kernels */
  uint32_t pad;                 /* frames i+1.. start at most pad after i */
  uint32_t lead;                /* zero rows before each phase's taps */
  uint32_t span;                /* taps the several-frame kernel runs over */
  size_t spare;                 /* zero frames kept after the input */
  size_t back;                  /* frames kept before the first tap */
  /* the FFT path (clr-engine-fft.c) instead of a kernel: its block, or 0 */
  uint32_t fft_block;
} ClrKernelPlan;

void clr_kernel_plan_choose (const ClrKernelFacts * facts,
    const ClrTuning * overrides, ClrKernelPlan * plan);

G_END_DECLS
#endif
