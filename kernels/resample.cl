/* clresample: polyphase resampling kernels.
 *
 * Every output sample (output frame i of channel c) is
 *   y[i][c] = sum_k h_p[k] * x_c[first_tap + adv + k]
 * where adv = floor((phase0 + i*D) / I) and p = (phase0 + i*D) mod I are
 * integer math, so the position of every output is exact.
 *
 * The window `win` holds each channel's input frames contiguously (planes of
 * w_cstride samples) in the stream's own sample format: the history the
 * previous buffer left, then the new input. Samples are converted on load and
 * on store, so a buffer costs one launch and integer streams move half the
 * bytes. The output is written with the caller's layout strides. Dimension 0
 * of the NDRange runs along output frames, so neighbouring work-items read
 * overlapping, neighbouring windows.
 *
 * Two families, chosen by the engine for the device:
 *   CPU  clr_resample_table: one output a work-item, 8-wide vector dot
 *        products over contiguous taps of a phase-major table (row p).
 *   GPU  clr_resample_table_t / _tc / _tcf: a tap-major table (coef[k*I+p]),
 *        so a warp's coefficients for one tap sit side by side; _tc computes
 *        CLR_CPI channels a work-item (one coefficient load serves them all),
 *        _tc2 also two neighbouring output frames (upsampling) and _tcf
 *        CLR_FPI of them (decimation): one sample load serves them all;
 *        _iv, for many channels, reads an interleaved window instead.
 *   both clr_resample_interp, for ratios whose I is too large for a table.
 *
 * Build options:
 *   -DCLR_FMT_F32 | -DCLR_FMT_F64 | -DCLR_FMT_S16 | -DCLR_FMT_S32 |
 *   -DCLR_FMT_S24_32                the sample format
 *   -DCLR_HAVE_FP64                 the device has cl_khr_fp64
 *   -DCLR_COEF_DOUBLE               double coefficients (CPU kernels)
 *   -DCLR_WIN_DOUBLE                the window holds doubles (CPU kernels)
 *   -DCLR_CPI=n -DCLR_BLK=n         GPU kernels: channels a work-item, taps
 *                                   summed in float before a double add
 *   -DCLR_FPI=n                     output frames a work-item (_tcf)
 * With fp64 the CPU kernels form every product and sum in double and the GPU
 * kernels add blocks of CLR_BLK float products in double; the F64 path keeps
 * its coefficients and all arithmetic in double (float coefficients alone
 * would cap the stopband near -163 dB). Without fp64 the float sum is
 * Neumaier-compensated: a plain float sum of a few hundred taps sits near
 * -133 dB.
 */

#ifdef CLR_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
typedef double4 acc4_t;
typedef double8 acc8_t;
#define CVT4(v) convert_double4 (v)
#define CVT8(v) convert_double8 (v)
#else
typedef float acc_t;
#endif

/* Integer scales are powers of two, exact in float: no double literal is
 * needed on devices without fp64. Stores round to nearest even and
 * saturate. */
#if defined(CLR_FMT_F64)
typedef double sample_t;
#define SCALE_IN 1.0f
#define STORE(v) (v)
#elif defined(CLR_FMT_S16)
typedef short sample_t;
#define SCALE_IN (1.0f / 32768.0f)
#define STORE(v) convert_short_sat_rte ((v) * (acc_t) 32768.0f)
#elif defined(CLR_FMT_S32)
typedef int sample_t;
#define SCALE_IN (1.0f / 2147483648.0f)
#define STORE(v) convert_int_sat_rte ((v) * (acc_t) 2147483648.0f)
#elif defined(CLR_FMT_S24_32)
typedef int sample_t;
#define SCALE_IN (1.0f / 8388608.0f)
#define STORE(v) clamp (convert_int_sat_rte ((v) * (acc_t) 8388608.0f), \
    -8388608, 8388607)
#else /* CLR_FMT_F32 */
typedef float sample_t;
#define SCALE_IN 1.0f
#define STORE(v) ((float) (v))
#endif

/* double coefficients for F64, and for the CPU kernels on fp64 devices */
#if defined(CLR_FMT_F64) || (defined(CLR_COEF_DOUBLE) && defined(CLR_HAVE_FP64))
typedef double coef_t;
#else
typedef float coef_t;
#endif

/* The window holds the stream's samples, or (CPU kernels over a window
 * the host fills, -DCLR_WIN_DOUBLE) the same values as doubles */
#if defined(CLR_WIN_DOUBLE) && defined(CLR_HAVE_FP64)
typedef double win_t;
#else
typedef sample_t win_t;
#endif

#define CLR_KERNEL_ARGS                                                 \
    __global const win_t *restrict win,                                 \
    __global sample_t *restrict out, __global const coef_t *restrict coef, \
    const uint channels, const uint taps, const ulong I, const ulong D,  \
    const ulong first_tap, const ulong phase0, const uint n_out,        \
    const ulong w_cstride, const ulong o_fstride, const ulong o_cstride

/* The output frame and channel of this work-item, its phase, and where its
 * taps start in the window. */
#define CLR_LOCATE()                                                    \
  const uint i = get_global_id (0);                                     \
  const uint c = get_global_id (1);                                     \
  if (i >= n_out || c >= channels)                                      \
    return;                                                             \
  const ulong pos = phase0 + (ulong) i * D;                             \
  const ulong adv = pos / I;                                            \
  const ulong p = pos - adv * I;                                        \
  __global const win_t *x = win + c * w_cstride + first_tap + adv

#ifdef CLR_HAVE_FP64
/* sum_k h[k] * x[k] for taps a multiple of 4; h given by H8/H4 */
#define CLR_DOT(result, H8, H4)                                         \
  do {                                                                  \
    acc8_t a8 = 0.0;                                                    \
    uint k = 0;                                                         \
    for (; k + 8 <= taps; k += 8)                                       \
      a8 = fma (H8, CVT8 (vload8 (0, x + k)), a8);                      \
    acc4_t a4 = a8.lo + a8.hi;                                          \
    if (k < taps)                                                       \
      a4 = fma (H4, CVT4 (vload4 (0, x + k)), a4);                      \
    result = ((a4.x + a4.y) + (a4.z + a4.w)) * (acc_t) SCALE_IN;        \
  } while (0)
#endif

/* Rows of the coefficient table, one per phase: row p = h(p/I + K/2-1-k). */
__kernel void
clr_resample_table (CLR_KERNEL_ARGS)
{
  CLR_LOCATE ();
  __global const coef_t *h = coef + p * taps;
  acc_t y;

#ifdef CLR_HAVE_FP64
  CLR_DOT (y, CVT8 (vload8 (0, h + k)), CVT4 (vload4 (0, h + k)));
#else
  float s = 0.0f, e = 0.0f;
  for (uint k = 0; k < taps; k++) {
    float v = h[k] * ((float) x[k] * SCALE_IN), t = s + v;
    e += fabs (s) >= fabs (v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  y = s + e;
#endif
  out[i * o_fstride + c * o_cstride] = STORE (y);
}

#ifdef CLR_HAVE_FP64
/* clr_resample_table for two channels a work-item (c0 and c0 + 1): one
 * coefficient load serves both, and each channel's sum is the same
 * arithmetic in the same order as the one-channel kernel's. */
__kernel void
clr_resample_table_c2 (CLR_KERNEL_ARGS)
{
  const uint i = get_global_id (0);
  const uint c0 = 2 * get_global_id (1);
  if (i >= n_out || c0 >= channels)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv = pos / I;
  const ulong p = pos - adv * I;
  const uint c1 = c0 + 1 < channels ? c0 + 1 : c0;
  __global const win_t *x0 = win + c0 * w_cstride + first_tap + adv;
  __global const win_t *x1 = win + c1 * w_cstride + first_tap + adv;
  __global const coef_t *h = coef + p * taps;
  acc8_t a8 = 0.0, b8 = 0.0;
  uint k = 0;

  for (; k + 8 <= taps; k += 8) {
    const acc8_t h8 = CVT8 (vload8 (0, h + k));
    a8 = fma (h8, CVT8 (vload8 (0, x0 + k)), a8);
    b8 = fma (h8, CVT8 (vload8 (0, x1 + k)), b8);
  }
  acc4_t a4 = a8.lo + a8.hi, b4 = b8.lo + b8.hi;
  if (k < taps) {
    const acc4_t h4 = CVT4 (vload4 (0, h + k));
    a4 = fma (h4, CVT4 (vload4 (0, x0 + k)), a4);
    b4 = fma (h4, CVT4 (vload4 (0, x1 + k)), b4);
  }
  out[i * o_fstride + c0 * o_cstride] =
      STORE (((a4.x + a4.y) + (a4.z + a4.w)) * (acc_t) SCALE_IN);
  if (c1 != c0)
    out[i * o_fstride + c1 * o_cstride] =
        STORE (((b4.x + b4.y) + (b4.z + b4.w)) * (acc_t) SCALE_IN);
}
#endif

/* The same for GPUs, from a tap-major table (coef[k * I + p]): the
 * work-items of a warp are consecutive output frames with different
 * phases, and for each tap their coefficients now sit within one row of I
 * values while their samples are contiguous, so both loads coalesce. The
 * products of four taps are summed in the sample precision (float except
 * for F64) and each such block is added in double: a quarter of the double
 * additions of a full double sum, at an error near float's own rounding of
 * the output (about -150 dB), where a plain float sum of a few hundred taps
 * sits near -133 dB. */
__kernel void
clr_resample_table_t (CLR_KERNEL_ARGS)
{
  CLR_LOCATE ();
  __global const coef_t *h = coef + p;
  const uint stride = (uint) I;

#if defined(CLR_FMT_F64) || !defined(CLR_HAVE_FP64)
  typedef acc_t blk_t;
#else
  typedef float blk_t;
#endif
  acc_t y = 0, e = 0;
  for (uint k = 0; k < taps; k += 4) {
    const uint o = k * stride;
    blk_t b = (blk_t) h[o] * (blk_t) x[k];
    b = fma ((blk_t) h[o + stride], (blk_t) x[k + 1], b);
    b = fma ((blk_t) h[o + 2 * stride], (blk_t) x[k + 2], b);
    b = fma ((blk_t) h[o + 3 * stride], (blk_t) x[k + 3], b);
#ifdef CLR_HAVE_FP64
    y += (acc_t) b;
#else
    const float t = y + b;
    e += fabs (y) >= fabs (b) ? (y - t) + b : (b - t) + y;
    y = t;
#endif
  }
  y = (y + e) * (acc_t) SCALE_IN;
  out[i * o_fstride + c * o_cstride] = STORE (y);
}

/* clr_resample_table_t for several channels at once: each work-item
 * computes output frame i for CLR_CPI channels, so every coefficient it
 * loads serves CLR_CPI multiply-adds (the kernel is bound by loads, not by
 * arithmetic). Products of CLR_BLK taps are summed in float (in double for
 * F64, S32 and S24_32), each block added in double. Built with fp64 only. */
#ifdef CLR_HAVE_FP64
#ifndef CLR_CPI
#define CLR_CPI 4
#endif
#ifndef CLR_BLK
#define CLR_BLK 4
#endif
/* 24 and 32-bit integers are worth more than a float block's rounding
 * (about 2^-24 of full scale, 1-2 LSB of S24): their products and sums are
 * all in double */
#if defined(CLR_FMT_F64) || defined(CLR_FMT_S32) || defined(CLR_FMT_S24_32)
typedef double blk_t;
#else
typedef float blk_t;
#endif

/* x[q]: the taps of channel c0 + q; channels past the last read the first
 * again, so the loops over q need no branch */
#define CLR_CHANNEL_POINTERS()                                          \
  for (uint q = 0; q < CLR_CPI; q++)                                    \
    x[q] = win + (c0 + q < channels ? c0 + q : c0) * w_cstride +        \
        first_tap + adv
__kernel void
clr_resample_table_tc (CLR_KERNEL_ARGS)
{
  const uint i = get_global_id (0);
  const uint c0 = get_global_id (1) * CLR_CPI;
  if (i >= n_out || c0 >= channels)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv = pos / I;
  const ulong p = pos - adv * I;
  const uint stride = (uint) I;
  __global const coef_t *h = coef + p;
  __global const win_t *x[CLR_CPI];
  acc_t y[CLR_CPI];

  CLR_CHANNEL_POINTERS ();
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    y[q] = 0;
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t b[CLR_CPI];
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++)
      b[q] = 0;
#pragma unroll
    for (uint j = 0; j < CLR_BLK; j++) {
      const blk_t hk = (blk_t) h[(k + j) * stride];
#pragma unroll
      for (uint q = 0; q < CLR_CPI; q++)
        b[q] = fma (hk, (blk_t) x[q][k + j], b[q]);
    }
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++)
      y[q] += (acc_t) b[q];
  }
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    if (c0 + q < channels)
      out[i * o_fstride + (c0 + q) * o_cstride] =
          STORE (y[q] * (acc_t) SCALE_IN);
}

/* clr_resample_table_tc for two neighbouring output frames a work-item,
 * when upsampling (D < I): frame i+1's taps start o = 0 or 1 samples after
 * frame i's, so each sample loaded serves both frames, and the sample loads
 * per multiply-add halve. */
__kernel void
clr_resample_table_tc2 (CLR_KERNEL_ARGS)
{
  const uint i = 2 * get_global_id (0);
  const uint c0 = get_global_id (1) * CLR_CPI;
  if (i >= n_out || c0 >= channels)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv = pos / I;
  const ulong pa = pos - adv * I;
  const ulong adv1 = (pos + D) / I;
  const ulong pb = pos + D - adv1 * I;
  const bool shift = adv1 != adv;
  const uint stride = (uint) I;
  __global const coef_t *ha = coef + pa;
  __global const coef_t *hb = coef + pb;
  __global const win_t *x[CLR_CPI];
  acc_t ya[CLR_CPI], yb[CLR_CPI];
  blk_t prev[CLR_CPI];

  CLR_CHANNEL_POINTERS ();
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++) {
    ya[q] = 0;
    yb[q] = 0;
    prev[q] = (blk_t) x[q][0];
  }
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t ba[CLR_CPI], bb[CLR_CPI];
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++) {
      ba[q] = 0;
      bb[q] = 0;
    }
#pragma unroll
    for (uint j = 0; j < CLR_BLK; j++) {
      const blk_t hka = (blk_t) ha[(k + j) * stride];
      const blk_t hkb = (blk_t) hb[(k + j) * stride];
#pragma unroll
      for (uint q = 0; q < CLR_CPI; q++) {
        /* one past frame i's last tap is frame i+1's when shifted: the
         * window always holds a frame beyond what the outputs need */
        const blk_t next = (blk_t) x[q][k + j + 1];
        ba[q] = fma (hka, prev[q], ba[q]);
        bb[q] = fma (hkb, shift ? next : prev[q], bb[q]);
        prev[q] = next;
      }
    }
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++) {
      ya[q] += (acc_t) ba[q];
      yb[q] += (acc_t) bb[q];
    }
  }
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++) {
    if (c0 + q < channels) {
      out[i * o_fstride + (c0 + q) * o_cstride] =
          STORE (ya[q] * (acc_t) SCALE_IN);
      if (i + 1 < n_out)
        out[(i + 1) * o_fstride + (c0 + q) * o_cstride] =
            STORE (yb[q] * (acc_t) SCALE_IN);
    }
  }
}

/* clr_resample_table_tc for CLR_FPI neighbouring output frames a
 * work-item. Frame i+j's taps start d_j = adv_j - adv_0 samples after frame
 * i's (0 <= d_j <= pad), so all frames are written as dot products over the
 * same `taps` (= span) samples, frame j taking its coefficients from rows
 * shifted by d_j in a table with zero rows around each phase's taps (`lead`
 * rows before them). Every sample loaded then serves CLR_FPI x CLR_CPI
 * multiply-adds and every coefficient CLR_CPI, with no branch or select per
 * tap; the zero rows cost span/K - 1 more work (a few per cent).
 *
 * The span starts a = 0..3 samples early, at an input frame whose stream
 * index is a multiple of 4 (`align` is that index's remainder at frame i's
 * first tap, less adv): the float blocks then group the same products
 * whichever work-item, launch or buffer an output falls in, so the output
 * does not depend on how the stream was cut into buffers. The engine keeps
 * 3 frames before the first tap and span - K frames of zeros after the
 * input, so the zero products meet only finite samples. */
#ifndef CLR_FPI
#define CLR_FPI 4
#endif
__kernel void
clr_resample_table_tcf (CLR_KERNEL_ARGS, const uint lead, const uint align)
{
  const uint i = CLR_FPI * get_global_id (0);
  const uint c0 = get_global_id (1) * CLR_CPI;
  if (i >= n_out || c0 >= channels)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv0 = pos / I;
  const uint a = (uint) ((align + adv0) & 3);
  const ulong adv = adv0 - a;
  const uint stride = (uint) I;
  __global const coef_t *h[CLR_FPI];
  __global const win_t *x[CLR_CPI];
  acc_t y[CLR_FPI][CLR_CPI];

#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    const ulong pj = pos + j * D;
    const ulong aj = pj / I;
    h[j] = coef + (lead - (uint) (aj - adv)) * stride + (pj - aj * I);
  }
  CLR_CHANNEL_POINTERS ();
#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++)
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++)
      y[j][q] = 0;
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t b[CLR_FPI][CLR_CPI];
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
#pragma unroll
      for (uint q = 0; q < CLR_CPI; q++)
        b[j][q] = 0;
#pragma unroll
    for (uint t = 0; t < CLR_BLK; t++) {
      blk_t s[CLR_CPI];
#pragma unroll
      for (uint q = 0; q < CLR_CPI; q++)
        s[q] = (blk_t) x[q][k + t];
#pragma unroll
      for (uint j = 0; j < CLR_FPI; j++) {
        const blk_t hk = (blk_t) h[j][(k + t) * stride];
#pragma unroll
        for (uint q = 0; q < CLR_CPI; q++)
          b[j][q] = fma (hk, s[q], b[j][q]);
      }
    }
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
#pragma unroll
      for (uint q = 0; q < CLR_CPI; q++)
        y[j][q] += (acc_t) b[j][q];
  }
#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    if (i + j >= n_out)
      break;
#pragma unroll
    for (uint q = 0; q < CLR_CPI; q++)
      if (c0 + q < channels)
        out[(i + j) * o_fstride + (c0 + q) * o_cstride] =
            STORE (y[j][q] * (acc_t) SCALE_IN);
  }
}

/* The layout for many channels: the window interleaved (frame f's channels
 * side by side, w_cstride unused), each work-item four neighbouring
 * channels (one 16-byte load a tap) of CLR_FPI output frames, dimension 0
 * along the channels. The work-items of a warp then read one contiguous
 * run of samples a tap, and those of one frame the same coefficients. As in
 * _tcf, frame j takes its coefficients shifted by d_j from zero-padded
 * rows, so the four samples a work-item loads serve 4 x CLR_FPI
 * multiply-adds, and the span starts at a stream index that is a multiple
 * of 4, so the float blocks group the same products whatever the buffering.
 * The table is phase-major: row p holds `lead` zeros, the K taps, and zeros
 * up to taps + lead values (with -DCLR_IV_SHIFTED: four copies, copy s
 * shifted by s values, rows rounded up to a multiple of 4 past taps + lead
 * + 3). Channels must be a multiple of 4. */
#if defined(CLR_FMT_F64)
typedef double4 sample4_t;
#elif defined(CLR_FMT_S16)
typedef short4 sample4_t;
#elif defined(CLR_FMT_S32) || defined(CLR_FMT_S24_32)
typedef int4 sample4_t;
#else
typedef float4 sample4_t;
#endif
#if defined(CLR_FMT_F64)
typedef double4 coef4_t;
#else
typedef float4 coef4_t;
#endif
#if defined(CLR_FMT_F64) || defined(CLR_FMT_S32) || defined(CLR_FMT_S24_32)
typedef double4 blk4_t;
#define CVTB4(v) convert_double4 (v)
#else
typedef float4 blk4_t;
#define CVTB4(v) convert_float4 (v)
#endif
/* -DCLR_IV_DW=n: sum in double the blocks within n taps of each frame's
 * centre (0: none, the default; see below) */
#ifndef CLR_IV_DW
#define CLR_IV_DW 0
#endif
__kernel void
clr_resample_table_iv (CLR_KERNEL_ARGS, const uint lead, const uint align)
{
  const uint g = get_global_id (0);
  const uint i = CLR_FPI * get_global_id (1);
  const uint fs = channels / 4;
  if (i >= n_out || g >= fs)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv0 = pos / I;
  const uint a = (uint) ((align + adv0) & 3);
  const ulong adv = adv0 - a;
  __global const sample4_t *x =
      (__global const sample4_t *) win + (first_tap + adv) * fs + g;
  acc4_t y[CLR_FPI];
#ifdef CLR_IV_SHIFTED
  /* Four copies of the table, copy s shifted by s values: frame j takes
   * the copy that puts its first coefficient on a multiple of 4, so its
   * coefficients come four at a time in one aligned load. */
  const uint rowlen = (taps + lead + 6) / 4 * 4;
  const ulong table_size = I * rowlen;      /* in coef4_t */
  __global const coef4_t *h[CLR_FPI];
#define LOADC(p, m) ((p)[(m) / 4])
#else
  const uint rowlen = taps + lead;
  const ulong table_size = I * rowlen;
  __global const coef_t *h[CLR_FPI];
#define LOADC(p, m) ((coef4_t) ((p)[m], (p)[(m) + 1], (p)[(m) + 2], (p)[(m) + 3]))
#endif

#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    const ulong pj = pos + j * D;
    const ulong aj = pj / I;
    const uint o = lead - (uint) (aj - adv);
#ifdef CLR_IV_SHIFTED
    const uint sh = (4 - (o & 3)) & 3;
    h[j] = (__global const coef4_t *) (coef + ((ulong) sh * I + (pj - aj * I))
        * rowlen + o + sh);
#else
    h[j] = coef + (pj - aj * I) * rowlen + o;
#endif
    y[j] = 0;
  }
  /* The taps near each frame's centre carry the largest coefficients, so
   * the rounding of their float products and sums (and of the coefficients
   * themselves) sets the worst-case error: with CLR_IV_DW > 0, blocks that
   * meet a frame's CLR_IV_DW taps either side of its centre are summed in
   * double for that frame, coefficients included. Whether a block does is
   * a matter of stream positions only, so the output still does not depend
   * on the buffering. Measured on an H100 at 64 channels, q10, with 8:
   * worst error -133 -> -143.6 dB, rms -150.6 -> -156.8 dB, but 14.2
   * instead of 25.3 G samples/s (the double path's registers cost the
   * whole loop its occupancy), so it is opt-in (CLRESAMPLE_IV_DW). */
#if CLR_IV_DW > 0
  const uint c_lo = taps - lead + 2 > 2 * CLR_IV_DW ?
      (taps - lead) / 2 - CLR_IV_DW : 0;
  const uint c_hi = c_lo + 2 * CLR_IV_DW;
  const uint m_lo = (c_lo + (uint) (adv0 - adv)) & ~3u;
  const uint m_hi = min ((c_hi + lead + 3) & ~3u, taps);
  uint d[CLR_FPI];
#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    const ulong aj = (pos + j * D) / I;
    d[j] = (uint) (aj - adv);
  }
#endif
  /* three runs: float blocks, the centre blocks, float blocks, so the long
   * runs carry no per-block test */
#define CLR_IV_LOADS(m)                                                 \
    const blk4_t s0 = CVTB4 (x[(m) * fs]);                              \
    const blk4_t s1 = CVTB4 (x[((m) + 1) * fs]);                        \
    const blk4_t s2 = CVTB4 (x[((m) + 2) * fs]);                        \
    const blk4_t s3 = CVTB4 (x[((m) + 3) * fs])
#define CLR_IV_FLOAT_BLOCK(j, m)                                        \
  do {                                                                  \
    const coef4_t hk = LOADC (h[j], m);                                 \
    blk4_t b = (blk_t) hk.x * s0;                                       \
    b = fma ((blk4_t) ((blk_t) hk.y), s1, b);                           \
    b = fma ((blk4_t) ((blk_t) hk.z), s2, b);                           \
    b = fma ((blk4_t) ((blk_t) hk.w), s3, b);                           \
    y[j] += CVT4 (b);                                                   \
  } while (0)
#if CLR_IV_DW > 0
  for (uint m = 0; m < m_lo; m += 4) {
    CLR_IV_LOADS (m);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
      CLR_IV_FLOAT_BLOCK (j, m);
  }
  for (uint m = m_lo; m < m_hi; m += 4) {
    CLR_IV_LOADS (m);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++) {
      if (m + 4 > c_lo + d[j] && m < c_hi + d[j]) {
        /* the coefficients to double precision too: each plus its float
         * rounding residual, stored table_size values further on */
        const coef4_t hk = LOADC (h[j], m);
        const acc4_t hd = CVT4 (hk) + CVT4 (LOADC (h[j] + table_size, m));
        acc4_t b = hd.x * CVT4 (s0);
        b = fma ((acc4_t) hd.y, CVT4 (s1), b);
        b = fma ((acc4_t) hd.z, CVT4 (s2), b);
        b = fma ((acc4_t) hd.w, CVT4 (s3), b);
        y[j] += b;
      } else {
        CLR_IV_FLOAT_BLOCK (j, m);
      }
    }
  }
#else
  const uint m_hi = 0;
#endif
  for (uint m = m_hi; m < taps; m += 4) {
    CLR_IV_LOADS (m);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
      CLR_IV_FLOAT_BLOCK (j, m);
  }
#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    if (i + j >= n_out)
      break;
    const acc4_t r = y[j] * (acc_t) SCALE_IN;
    __global sample_t *o = out + (i + j) * o_fstride + 4 * g * o_cstride;
    if (o_cstride == 1) {
      /* interleaved output: one 4-sample store */
      vstore4 ((sample4_t) (STORE (r.x), STORE (r.y), STORE (r.z),
              STORE (r.w)), 0, o);
    } else {
      o[0] = STORE (r.x);
      o[o_cstride] = STORE (r.y);
      o[2 * o_cstride] = STORE (r.z);
      o[3 * o_cstride] = STORE (r.w);
    }
  }
}
#endif

/* Rows on a grid of `grid` points per input sample (row q = position
 * (q-1)/grid), for ratios whose I is too large for one row per phase. The
 * coefficients of phase p are a cubic Lagrange interpolation of the four rows
 * around p/I; the fraction comes from integer math as well. */
__kernel void
clr_resample_interp (CLR_KERNEL_ARGS, const ulong grid)
{
  CLR_LOCATE ();
  const ulong pg = p * grid;
  const ulong q0 = pg / I;
  const acc_t u = (acc_t) (pg - q0 * I) / (acc_t) I;
  const acc_t um1 = u - 1, um2 = u - 2, up1 = u + 1;
  const acc_t w0 = -u * um1 * um2 / 6;
  const acc_t w1 = up1 * um1 * um2 / 2;
  const acc_t w2 = -up1 * u * um2 / 2;
  const acc_t w3 = up1 * u * um1 / 6;
  __global const coef_t *h0 = coef + q0 * taps;
  __global const coef_t *h1 = h0 + taps;
  __global const coef_t *h2 = h1 + taps;
  __global const coef_t *h3 = h2 + taps;
  acc_t y;

#ifdef CLR_HAVE_FP64
#define ROWS8 (w0 * CVT8 (vload8 (0, h0 + k)) + w1 * CVT8 (vload8 (0, h1 + k)) \
    + w2 * CVT8 (vload8 (0, h2 + k)) + w3 * CVT8 (vload8 (0, h3 + k)))
#define ROWS4 (w0 * CVT4 (vload4 (0, h0 + k)) + w1 * CVT4 (vload4 (0, h1 + k)) \
    + w2 * CVT4 (vload4 (0, h2 + k)) + w3 * CVT4 (vload4 (0, h3 + k)))
  CLR_DOT (y, ROWS8, ROWS4);
#else
  float s = 0.0f, e = 0.0f;
  for (uint k = 0; k < taps; k++) {
    const float h = w0 * h0[k] + w1 * h1[k] + w2 * h2[k] + w3 * h3[k];
    float v = h * ((float) x[k] * SCALE_IN), t = s + v;
    e += fabs (s) >= fabs (v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  y = s + e;
#endif
  out[i * o_fstride + c * o_cstride] = STORE (y);
}
