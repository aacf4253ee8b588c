/* clresample: the engine's internals, shared by clr-engine.c and
 * clr-engine-fft.c. Not installed, not for the element. */
#ifndef __CLR_ENGINE_PRIVATE_H__
#define __CLR_ENGINE_PRIVATE_H__

#include "device/clr-budget.h"
#include "clr-engine.h"
#include "conv/clr-history.h"
#include "clr-kernel-plan.h"
#include "device/clr-sched.h"
#include "clr-window.h"
#include "clr-slew.h"
#include "design/clr-design-cache.h"

G_BEGIN_DECLS

typedef struct _ClrFftPath ClrFftPath;

/* A variable ratio's state (clr-engine.h, CLR_VAR_I): the position of the
 * next output frame (out_total) as input frame n plus p / CLR_VAR_I (and
 * pos_frac / 2^16 of a unit more), moved on after every job; `step` (and
 * step_frac) the step from it to the one after; a slew's (clr-slew.h):
 * the slope (2^-16 units an output) at the next output, the outputs the
 * slew lasts (rem, its first half half1 of them) and each half's jerk,
 * then the step is `to`, the target's. `adjust` is the factor of `to`
 * once the slew ends, `target` the factor it slews to; set_at the
 * out_total at which the target was last set, span the outputs of a half
 * then chosen (0: none since the last hold). */
typedef struct {
  int64_t n;
  uint64_t p;
  uint64_t step;
  int64_t slope;
  uint64_t rem, half1;
  int64_t jerk[2];
  uint64_t to;
  uint32_t pos_frac, step_frac;
  uint64_t set_at, span;
  double adjust, target;
} ClrVar;

struct _ClrEngine {
  ClrDevice *dev;
  ClrEngineConfig cfg;
  ClrRatio ratio;
  ClrFilter filter;
  ClrBankLayout bank;
  size_t ssize;                 /* bytes per sample */
  size_t chunk_in;              /* most input frames one job takes */
  ClrBudget budget;             /* device bytes a job needs, and the budget */
  ClrKernelPlan plan;           /* the kernel and how it runs */
  ClrSched *sched;              /* the device's batches (clr-sched.h) */
  ClrSchedKernel *kern;         /* the kernel, shared with like streams */
  ClrWindow win;                /* the input the next outputs read */

  int64_t in_total;
  uint64_t out_total;
  int64_t win_start;            /* stream frame of the window's frame 0 */
  size_t win_len;
  uint64_t silent_tail;         /* trailing frames of the window known to be 0 */
  gboolean drained;
  uint32_t lag;                 /* input frames of delay: K/2, or K/2 + B
                                 * on the FFT path */
  ClrHistory hist;              /* the last max (history, K on the FFT
                                 * path) input frames, or none */
  ClrFftPath *fft;              /* the FFT path (clr-engine-fft.c), or NULL:
                                 * the kernels of resample.cl */
  gboolean paced;               /* clr_engine_set_paced () */
  gboolean device_failed;       /* clr_engine_device_failed () */
  gboolean var;                 /* a variable ratio: cfg.variable */
  ClrVar v;
  /* a CPU device's stream on the host (clr-resample-host.h): no
   * scheduler, kernel or device memory; the design's rows read in place */
  gboolean host;
  ClrDesign *design;
  char *host_out;               /* planar output whose planes lie apart */
  size_t host_out_size;
};

/* The window takes n_in frames of input (of silence: in == NULL) and the
 * plan's spare zeros after them. */
gboolean clr_engine_append (ClrEngine * e, const void *const *in,
    size_t n_in, GError ** error);
/* One job of the device's scheduler, after clr_engine_append () of n_in
 * frames: the window in, the next n_out output frames out (the kernel
 * launched `launches` times: benchmarks). */
gboolean clr_engine_run_job (ClrEngine * e, size_t n_in, size_t n_out,
    void *const *out, guint launches, GError ** error);

/* The FFT path (clr-engine-fft.c): the engine's filter as I long FIRs
 * through the convolution engine, blocks of `block` frames, fed from
 * e->hist. */
gboolean clr_fft_new (ClrEngine * e, uint32_t block,
    const ClrTuning * tuning, GError ** error);
void clr_fft_free (ClrEngine * e);
uint32_t clr_fft_lag (ClrEngine * e);
void clr_fft_reset (ClrEngine * e);
gboolean clr_fft_is_silent (ClrEngine * e);
uint64_t clr_fft_silence_needed (ClrEngine * e);
/* Trailing frames of silence in the input. */
uint64_t clr_fft_zero_run (ClrEngine * e);
/* n_in frames in, the first n_out of the output frames they complete out
 * (the caller counts them: clr_engine_out_frames () at most), so that
 * the FFT path needs nothing of clr-engine.c. */
gboolean clr_fft_push (ClrEngine * e, const void *const *in, size_t n_in,
    size_t n_out, void *const *out, size_t * out_frames, GError ** error);
/* Continues a stream: in_total, out_total and e->hist set, the history
 * from input frame `start`. */
gboolean clr_fft_continue (ClrEngine * e, int64_t start,
    uint64_t silent_tail, GError ** error);
/* After clr_fft_continue (): the n input frames since (host planes of n
 * frames) appended and fed, the first output k0, the input's trailing
 * silence silent_tail. */
gboolean clr_fft_catch_up (ClrEngine * e, const char *host, size_t n,
    uint64_t k0, uint64_t silent_tail, GError ** error);

G_END_DECLS
#endif
