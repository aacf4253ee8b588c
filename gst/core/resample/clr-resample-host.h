/* clresample: the polyphase sums of a CPU device's streams on the host.
 *
 * What kernels/resample.cl's CPU kernels (clr_resample_table, _table_c2,
 * _interp, _interp_c2 with fp64) compute, in C on the engine's own window:
 * every product and sum in double, in the kernels' order, with the
 * kernels' fused multiply-adds. A stream on a CPU then needs neither the
 * OpenCL driver (PoCL's start: 40-100 ms of a first buffer) nor a launch
 * per buffer, and on an x86-64 with AVX2 and FMA its output is the
 * kernels' own to the bit (tests/test-resample-host.c).
 */
#ifndef __CLR_RESAMPLE_HOST_H__
#define __CLR_RESAMPLE_HOST_H__

#include <stdint.h>
#include <stddef.h>
#include "clr-format.h"
#include "clr-slew.h"

G_BEGIN_DECLS

/* One job: output frames of `channels` channels. Output frame i of
 * channel c is sum_k h_p[k] * win[c][first_tap + adv + k], the position
 * phase0 + i * D (or a variable ratio's row_pos (), step != 0) split
 * into adv = pos / I and the phase p = pos mod I; h_p is row p of coef
 * (`taps` doubles a row), or for a grid (grid != 0) the cubic
 * interpolation of the four grid rows around p / I. */
typedef struct {
  const double *win;            /* channel c's window frames at win + c *
                                 * w_cstride */
  size_t w_cstride;
  uint32_t channels;
  uint32_t taps;                /* a multiple of 4 */
  uint64_t first_tap;
  uint64_t phase0;
  uint64_t I, D;
  /* a variable ratio's step an output and its slew (clr-slew.h); step
   * 0: D */
  ClrSlew slew;
  const double *coef;           /* rows of `taps` doubles */
  uint64_t grid;                /* 0: one row a phase */
  ClrFormat format;
  char *out;                    /* channel c of frame i at out + (i *
                                 * o_fstride + c * o_cstride) samples */
  size_t o_fstride, o_cstride;
} ClrResampleHostJob;

/* Built as the host's transforms are (design/clr-fft-host.h,
 * CLR_VECTOR_CLONES): for AVX2 with FMA and for the baseline, whose
 * fused products are the C library's (exact, and slow). */
/* Output frames i0 .. i1 - 1 of the job (each output its own sum: a job
 * may be cut anywhere and its parts run on several threads) */
void clr_resample_host_run (const ClrResampleHostJob * job, size_t i0,
    size_t i1);

G_END_DECLS
#endif
