/* clresample: polyphase resampling kernels.
 *
 * Every output sample (output frame i of channel c) is
 *   y[i][c] = sum_k h_p[k] * x_c[first_tap + adv + k]
 * where adv = floor((phase0 + i*D) / I) and p = (phase0 + i*D) mod I are
 * integer math (locate ()), so the position of every output is exact.
 *
 * The window `win` holds each channel's input frames contiguously (planes of
 * w_cstride samples; interleaved for _iv) in the stream's own sample format:
 * the history the previous buffer left, then the new input. Samples are
 * converted on load and on store, so a buffer costs one launch and integer
 * streams move half the bytes. The output is written with the caller's
 * layout strides. Dimension 0 of the NDRange runs along output frames (along
 * channels for _iv), so neighbouring work-items read overlapping,
 * neighbouring windows.
 *
 * The family: one idea each over the shared pieces. Which kernel runs is
 * decided by clr_kernel_plan_choose () (gst/core/resample/clr-kernel-plan.c: its
 * rows, first match wins, with the measurements behind each):
 *
 *   clr_resample_  plan row: what selects it        a work-item computes
 *   table          3: CPU, 1 channel or no fp64     1 frame of 1 channel
 *   table_c2       2: CPU, fp64, 2 or more channels 1 frame of 2 channels
 *   interp_c2      1: CPU, fp64, 2 or more          1 frame of 2 channels
 *                     channels, I too large (a)
 *   interp         1: any other, I too large (a)    1 frame of 1 channel
 *   table_t        4: GPU, no fp64                  1 frame of 1 channel
 *                  9: GPU, 1 channel, down
 *   table_tc       8: GPU, 2 to 7 channels, down    1 frame of 4 or 2 (b)
 *   table_tc2      6: GPU, up                       2 frames of 8/4/2/1 ch
 *   table_tcf      7: GPU, 8 or more channels, down 8 frames of 8 channels
 *   table_iv       5: GPU, 16 or more channels,     7 frames of 4 channels
 *                     a multiple of 4
 *
 * Rows 5-9 need fp64. (a) Coprime rates such as 44100 -> 44101: rows on a
 * grid, interpolated per phase. (b) _tc also takes row 7 where the frames
 * lie too far apart (strong decimation, short filters), and _iv then
 * computes one frame. CLR_CPI and CLR_FPI (CLRESAMPLE_CPI, _FPI) give
 * other counts. Phase-major tables (row p: phase p's taps) serve table,
 * table_c2, interp, interp_c2 and _iv; the other GPU kernels read a
 * tap-major one (coef[k * I + p]), so a warp's coefficients for one tap sit
 * side by side.
 * _tcf's and _iv's rows carry zeros around each phase's taps.
 *
 * The shared pieces, in order: the sample formats (types, conversion on
 * load and store), the coefficients, the accumulators (acc_add (): the
 * Neumaier-compensated sum without fp64), the positions (locate ()), the
 * output (STORE_OUT), the one-channel dot product (CLR_DOT), and for the
 * GPU kernels with fp64 the span of the several-frame kernels
 * (span_start (), frame_offset ()) and the per-channel loops
 * (channel_taps (), load_channels (), fma_channels (), add_blocks (),
 * store_channels ()).
 *
 * Build options (gst/core/resample/clr-engine.c):
 *   -DCLR_FMT_F32 | -DCLR_FMT_F64 | -DCLR_FMT_S16 | -DCLR_FMT_S32 |
 *   -DCLR_FMT_S24_32                the sample format
 *   -DCLR_HAVE_FP64                 the device has cl_khr_fp64
 *   -DCLR_COEF_DOUBLE               double coefficients (CPU kernels)
 *   -DCLR_WIN_DOUBLE                the window holds doubles (CPU kernels)
 *   -DCLR_CPI=n -DCLR_BLK=n         GPU kernels: channels a work-item, taps
 *                                   summed in float before a double add
 *                                   (BLK 1, 2 or 4, which divide every
 *                                   filter length and span; default 4)
 *   -DCLR_FPI=n                     output frames a work-item (_tcf, _iv)
 *   -DCLR_IV_SHIFTED -DCLR_IV_DW=n  _iv's table copies and centre taps
 *   -DCLR_ONE_KERNEL -DCLR_ONLY_k   the program holds kernel k alone: asked
 *                                   for a program's binary (the plugin's
 *                                   program cache), PoCL compiles every
 *                                   kernel in it, nine where one runs
 * With fp64 the CPU kernels form every product and sum in double and the GPU
 * kernels add blocks of CLR_BLK float products in double; the F64 path keeps
 * its coefficients and all arithmetic in double (float coefficients alone
 * would cap the stopband near -163 dB). Without fp64 the float sum is
 * Neumaier-compensated: a plain float sum of a few hundred taps sits near
 * -133 dB.
 *
 * Every kernel's output must stay the same to the bit through a change
 * that is not meant to change it (bench/kernel-md5.sh checks): keep
 * each product and sum, their order and whether a multiply and an add are
 * one expression (the compiler may fuse those).
 */

#ifdef CLR_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Every helper below is inlined: the kernels hand them private arrays (a
 * work-item's sums), which stay in registers only where no call is left
 * (LLVM would keep the larger ones, such as store_channels () at 8
 * channels, as calls). */
#define CLR_INLINE static inline __attribute__ ((always_inline))

/* ---- Sample formats ---------------------------------------------------- */

/* sample_t is one of the stream's samples, sample4_t four (one load of
 * four channels in _iv). Integer scales are powers of two, exact in float:
 * no double literal is needed on devices without fp64. Stores round to
 * nearest even and saturate, NaN to 0 (STORE_INT, after the
 * accumulators). */
#if defined(CLR_FMT_F64)
typedef double sample_t;
typedef double4 sample4_t;
#define SCALE_IN 1.0f
#define STORE(v) (v)
#elif defined(CLR_FMT_S16)
typedef short sample_t;
typedef short4 sample4_t;
#define SCALE_IN (1.0f / 32768.0f)
#define STORE(v) ((short) STORE_INT (v, 32768.0f, -32768, 32767))
#elif defined(CLR_FMT_S32)
typedef int sample_t;
typedef int4 sample4_t;
#define SCALE_IN (1.0f / 2147483648.0f)
#define STORE(v) STORE_INT (v, 2147483648.0f, -2147483647 - 1, \
    2147483647)
#elif defined(CLR_FMT_S24_32)
typedef int sample_t;
typedef int4 sample4_t;
#define SCALE_IN (1.0f / 8388608.0f)
#define STORE(v) STORE_INT (v, 8388608.0f, -8388608, 8388607)
#else /* CLR_FMT_F32 */
typedef float sample_t;
typedef float4 sample4_t;
#define SCALE_IN 1.0f
#define STORE(v) ((float) (v))
#endif

/* The window holds the stream's samples, or (CPU kernels over a window
 * the host fills, -DCLR_WIN_DOUBLE) the same values as doubles, which
 * spares those kernels a conversion a tap */
#if defined(CLR_WIN_DOUBLE) && defined(CLR_HAVE_FP64)
typedef double win_t;
#else
typedef sample_t win_t;
#endif

/* Window sample k of x at full scale 1, in float: the sums without fp64 */
#define LOAD_SCALED(x, k) ((float) (x)[k] * SCALE_IN)

/* ---- Coefficients ------------------------------------------------------ */

/* double for F64, and for the CPU kernels on fp64 devices */
#if defined(CLR_FMT_F64) || (defined(CLR_COEF_DOUBLE) && defined(CLR_HAVE_FP64))
typedef double coef_t;
#else
typedef float coef_t;
#endif
/* four of them, for _iv (never built with CLR_COEF_DOUBLE) */
#if defined(CLR_FMT_F64)
typedef double4 coef4_t;
#else
typedef float4 coef4_t;
#endif

/* ---- Accumulators ------------------------------------------------------ */

#ifdef CLR_HAVE_FP64
typedef double acc_t;
typedef double4 acc4_t;
typedef double8 acc8_t;
#define CVT4(v) convert_double4 (v)
#define CVT8(v) convert_double8 (v)
/* 4 and 8 values from p + k (window samples or coefficients) in double;
 * macros, as they serve any pointer type */
#define LOAD4(p, k) CVT4 (vload4 (0, (p) + (k)))
#define LOAD8(p, k) CVT8 (vload8 (0, (p) + (k)))

/* The several-channel GPU kernels (and _iv) sum the products of a block of
 * taps in blk_t and add each block's sum to a double: a fraction of the
 * double additions of a full double sum, at an error near float's own
 * rounding of the output (about -150 dB). 24 and 32-bit integers are worth
 * more than a float block's rounding (about 2^-24 of full scale, 1-2 LSB of
 * S24): their products and sums are all in double. */
#if defined(CLR_FMT_F64) || defined(CLR_FMT_S32) || defined(CLR_FMT_S24_32)
typedef double blk_t;
typedef double4 blk4_t;
#define CVTB4(v) convert_double4 (v)
#else
typedef float blk_t;
typedef float4 blk4_t;
#define CVTB4(v) convert_float4 (v)
#endif
#else
typedef float acc_t;
#endif

/* _t's blocks: with fp64, float for every format but F64, S32 and S24_32
 * included, unlike blk_t (double blocks there would change _t's output:
 * a change of its own, not a refactor's); without fp64, acc_t */
#if defined(CLR_FMT_F64) || !defined(CLR_HAVE_FP64)
typedef acc_t blk1_t;
#else
typedef float blk1_t;
#endif

/* y + v. Without fp64 the float sum's rounding error goes into *e
 * (Neumaier), which the caller adds at the end. */
CLR_INLINE acc_t
acc_add (acc_t y, acc_t v, acc_t * e)
{
#ifdef CLR_HAVE_FP64
  return y + v;
#else
  const float t = y + v;
  *e += fabs (y) >= fabs (v) ? (y - t) + v : (v - t) + y;
  return t;
#endif
}

#ifdef CLR_HAVE_FP64
/* the sum of a's four lanes, pairwise, at full scale 1 */
CLR_INLINE acc_t
sum4_scaled (acc4_t a)
{
  return ((a.x + a.y) + (a.z + a.w)) * (acc_t) SCALE_IN;
}
#endif

/* v * scale rounded to nearest even and saturated to [lo, hi], NaN to 0:
 * convert_int_sat_rte ()'s result. With fp64 the FPU rounds: a double of
 * at most 2^31 plus 1.5 * 2^52 holds the integer in its low bits. PoCL
 * makes the _rte conversions and rint () of branches in software, which
 * cost an integer stream's kernel more than its filter's sums on a CPU
 * (an S16 stereo stream at quality 4: 1.6x an F32 one's time). */
#ifdef CLR_HAVE_FP64
CLR_INLINE int
store_int (acc_t v, acc_t lo, acc_t hi)
{
  const acc_t c = isnan (v) ? 0.0 : clamp (v, lo, hi);

  return (int) (as_long (c + 0x1.8p52) - as_long (0x1.8p52));
}
#define STORE_INT(v, scale, lo, hi) \
  store_int ((v) * (acc_t) (scale), (acc_t) (lo), (acc_t) (hi))
#else
#define STORE_INT(v, scale, lo, hi) \
  clamp (convert_int_sat_rte ((v) * (acc_t) (scale)), lo, hi)
#endif

/* ---- Positions --------------------------------------------------------- */

/* The output at pos = phase0 + i D (in 1/I input frames): the window
 * frame its taps start at, from first_tap (returned), and its phase *p */
CLR_INLINE ulong
locate (ulong pos, ulong I, ulong * p)
{
  const ulong adv = pos / I;
  *p = pos - adv * I;
  return adv;
}

/* ---- Output ------------------------------------------------------------ */

/* Frame i of channel c, v at the stream's scale, with the caller's strides
 * (in a kernel of CLR_KERNEL_ARGS) */
#define STORE_OUT(i, c, v) \
  (out[(i) * o_fstride + (c) * o_cstride] = STORE (v))

/* A launch runs the same conversion for several streams at once (the
 * device's scheduler gathers the buffers of every element instance that
 * shares this kernel and filter: gst/core/device/clr-sched.c). Dimension 2 of the
 * NDRange is the stream; its row of `streams` (CLR_STREAM_WORDS ulongs,
 * from row `first`) says where its window and output lie in the batch's
 * buffers and where its outputs fall in the filter's phases. Each stream
 * computes exactly what a launch of its own would: the same products in the
 * same order. */
#define CLR_STREAM_WORDS 16

#define CLR_KERNEL_ARGS                                                 \
    __global const win_t *restrict win_all,                             \
    __global sample_t *restrict out_all,                                \
    __global const coef_t *restrict coef,                               \
    const uint channels, const uint taps, const ulong I, const ulong D,  \
    __global const ulong *restrict streams, const uint first

/* This work-item's stream: its window (planes w_cstride apart), its output
 * (o_fstride, o_cstride), the window frame of its first output's first tap
 * and that output's phase, its output count, and `align` (see
 * span_start ()) */
#define CLR_STREAM()                                                    \
  __global const ulong *s_row =                                         \
      streams + (ulong) CLR_STREAM_WORDS * (first + get_global_id (2));  \
  __global const win_t *restrict win = win_all + s_row[0];              \
  __global sample_t *restrict out = out_all + s_row[1];                 \
  const ulong first_tap = s_row[2];                                     \
  const ulong phase0 = s_row[3];                                        \
  const uint n_out = (uint) s_row[4];                                   \
  const ulong w_cstride = s_row[5];                                     \
  const ulong o_fstride = s_row[6];                                     \
  const ulong o_cstride = s_row[7];                                     \
  const uint align = (uint) s_row[8];                                   \
  (void) align

/* The output frame i and channel c of a one-channel work-item, its phase
 * p, and its taps x in the window */
#define CLR_LOCATE() CLR_LOCATE_BY (phase0 + (ulong) i * D)
#define CLR_LOCATE_BY(POS)                                              \
  CLR_STREAM ();                                                        \
  const uint i = get_global_id (0);                                     \
  const uint c = get_global_id (1);                                     \
  if (i >= n_out || c >= channels)                                      \
    return;                                                             \
  ulong p;                                                              \
  __global const win_t *x = win + c * w_cstride + first_tap +           \
      locate (POS, I, &p)

/* The interpolating kernels' position of output i, phases from the first
 * output's frame: a variable ratio's own (gst/core/resample/clr-engine.h,
 * CLR_VAR_I) where its row has a step, so that streams whose ratios drift
 * apart still share a launch; else the launch's D. A slewing ratio's
 * step moves for its first `len` outputs (word 11) with a slope (word
 * 10, 2^-16 units, two's complement) that itself moves by a jerk in each
 * of the slew's two halves (words 14 and 15; the first half's length in
 * word 13's bits 32-63), then is the target's, the step plus word 12:
 * the frequency smooth to its slope. The fractions (the position's in
 * word 13's bits 0-15, the step's in 16-31, the slope's low 16 bits and
 * the jerks') sum exactly in units of 2^-16, rounded down. This is
 * gst/core/resample/clr-slew.h's clr_slew_offset (), integer for
 * integer, which the engine and the host's sums use: change both or
 * neither. Rows without a slew (words 10-15 zero) give i * step. */
CLR_INLINE ulong
slew_c2 (ulong m)
{
  return m * (m - 1) / 2;
}

CLR_INLINE ulong
slew_c3 (ulong m)
{
  return m * (m - 1) * (m - 2) / 6;
}

CLR_INLINE ulong
slew_window3 (ulong m, ulong a, ulong b)
{
  return m > a ? slew_c3 (m - a) - slew_c3 (m - min (m, b)) : 0;
}

/* floor (x / 2^16) mod 2^64, |x| < 2^62 */
CLR_INLINE ulong
slew_floor16 (long x)
{
  return ((ulong) (x + (1L << 62)) >> 16) - (1UL << 46);
}

CLR_INLINE ulong
row_pos (__global const ulong * s_row, ulong phase0, ulong D, ulong i,
    uint * frac)
{
  const ulong step = s_row[9] ? s_row[9] : D;
  const long slope = (long) s_row[10];
  const ulong len = s_row[11];
  const ulong m = min (i, len);
  const ulong f = s_row[13];
  const ulong l1 = f >> 32;
  const long x = (long) (f & 0xffff) + (long) (m * ((f >> 16) & 0xffff)) +
      (slope & 0xffff) * (long) slew_c2 (m) +
      (long) s_row[14] * (long) slew_window3 (m, 0, l1) +
      (long) s_row[15] * (long) slew_window3 (m, l1, len);

  /* what the sum rounds down, while the slew lasts (the engine drops it
   * at the slew's end): the coefficients' interpolation takes it
   * (CLR_GRID_ROWS ()), so that a moving ratio's positions are not
   * rounded to 2^-32 of a frame: that rounding, jitter of 2^-32 /
   * sqrt (12) of a frame, read -198 dB of images at 44.1 -> 192 kHz
   * during a ramp, where a steady ratio reads -220. 0 for rows without a
   * slew. */
  *frac = i < len ? (uint) (x & 0xffff) : 0;
  return phase0 + i * step + slew_floor16 (slope) * slew_c2 (m) +
      slew_floor16 (x) + s_row[12] * (i - m);
}

/* ---- One channel a work-item: table, interp ---------------------------- */

/* y = sum_k h[k] * x[k] at full scale 1, for taps a multiple of 4: with
 * fp64 8 taps at a time in double, H8 and H4 giving 8 and 4 coefficients
 * from tap k in double; without, one at a time in float, H1 giving tap k's,
 * Neumaier-compensated. */
#ifdef CLR_HAVE_FP64
#define CLR_DOT(y, H8, H4, H1)                                          \
  do {                                                                  \
    acc8_t a8 = 0.0;                                                    \
    uint k = 0;                                                         \
    for (; k + 8 <= taps; k += 8)                                       \
      a8 = fma (H8, LOAD8 (x, k), a8);                                  \
    acc4_t a4 = a8.lo + a8.hi;                                          \
    if (k < taps)                                                       \
      a4 = fma (H4, LOAD4 (x, k), a4);                                  \
    y = sum4_scaled (a4);                                               \
  } while (0)
#else
#define CLR_DOT(y, H8, H4, H1)                                          \
  do {                                                                  \
    float s = 0.0f, e = 0.0f;                                           \
    for (uint k = 0; k < taps; k++) {                                   \
      const float hk = (H1);                                            \
      s = acc_add (s, hk * LOAD_SCALED (x, k), &e);                     \
    }                                                                   \
    y = s + e;                                                          \
  } while (0)
#endif

/* Rows of the coefficient table, one per phase: row p = h(p/I + K/2-1-k). */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table)
__kernel void
clr_resample_table (CLR_KERNEL_ARGS)
{
  CLR_LOCATE ();
  __global const coef_t *h = coef + p * taps;
  acc_t y;

  CLR_DOT (y, LOAD8 (h, k), LOAD4 (h, k), h[k]);
  STORE_OUT (i, c, y);
}
#endif

/* The interpolating kernels' coefficients of phase p (clr_resample_interp,
 * _c2): the cubic's weights w0..w3 of the four grid rows h0..h3 around
 * p / I, and tap k's coefficient CLR_ROWS (L) from them, L loading 1, 4
 * or 8 taps. The weighted rows stay one expression: where the compiler
 * fuses a multiply into the add that takes it, it still does. */
#define CLR_GRID_ROWS(F)                                                \
  const ulong pg = p * grid;                                            \
  const ulong q0 = pg / I;                                              \
  const acc_t u = ((acc_t) (pg - q0 * I) + (acc_t) (grid * (F)) /       \
      (acc_t) 65536) / (acc_t) I;                                       \
  const acc_t um1 = u - 1, um2 = u - 2, up1 = u + 1;                    \
  const acc_t w0 = -u * um1 * um2 / 6;                                  \
  const acc_t w1 = up1 * um1 * um2 / 2;                                 \
  const acc_t w2 = -up1 * u * um2 / 2;                                  \
  const acc_t w3 = up1 * u * um1 / 6;                                   \
  __global const coef_t *h0 = coef + q0 * taps;                         \
  __global const coef_t *h1 = p ? h0 + taps : coef + (grid + 3) * taps; \
  __global const coef_t *h2 = h0 + 2 * taps;                            \
  __global const coef_t *h3 = h0 + 3 * taps
#define CLR_ROWS(L) (w0 * L (h0, k) + w1 * L (h1, k) + w2 * L (h2, k) \
    + w3 * L (h3, k))

/* Rows on a grid of `grid` points per input sample (row q = position
 * (q-1)/grid), for ratios whose I is too large for one row per phase. The
 * coefficients of phase p are a cubic Lagrange interpolation of the four rows
 * around p/I; the fraction comes from integer math as well. Phase 0 (the
 * weights 0, 1, 0, 0) takes row grid + 3 for row 1: its last tap sits on
 * the kernel's end, where h is 0 and the rows hold its limit
 * (clr_bank_row ()). */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_interp)
__kernel void
clr_resample_interp (CLR_KERNEL_ARGS, const ulong grid)
{
  uint frac;
  CLR_LOCATE_BY (row_pos (s_row, phase0, D, i, &frac));
  CLR_GRID_ROWS (frac);
  acc_t y;

#define ROW_AT(h, k) (h)[k]
  CLR_DOT (y, CLR_ROWS (LOAD8), CLR_ROWS (LOAD4), CLR_ROWS (ROW_AT));
#undef ROW_AT
  STORE_OUT (i, c, y);
}
#endif

#ifdef CLR_HAVE_FP64
/* clr_resample_table for two channels a work-item (c0 and c0 + 1): one
 * coefficient load serves both, and each channel's sum is the same
 * arithmetic in the same order as the one-channel kernel's. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_c2)
__kernel void
clr_resample_table_c2 (CLR_KERNEL_ARGS)
{
  CLR_STREAM ();
  const uint i = get_global_id (0);
  const uint c0 = 2 * get_global_id (1);
  if (i >= n_out || c0 >= channels)
    return;
  ulong p;
  const ulong adv = locate (phase0 + (ulong) i * D, I, &p);
  const uint c1 = c0 + 1 < channels ? c0 + 1 : c0;
  __global const win_t *x0 = win + c0 * w_cstride + first_tap + adv;
  __global const win_t *x1 = win + c1 * w_cstride + first_tap + adv;
  __global const coef_t *h = coef + p * taps;
  acc8_t a8 = 0.0, b8 = 0.0;
  uint k = 0;

  for (; k + 8 <= taps; k += 8) {
    const acc8_t h8 = LOAD8 (h, k);
    a8 = fma (h8, LOAD8 (x0, k), a8);
    b8 = fma (h8, LOAD8 (x1, k), b8);
  }
  acc4_t a4 = a8.lo + a8.hi, b4 = b8.lo + b8.hi;
  if (k < taps) {
    const acc4_t h4 = LOAD4 (h, k);
    a4 = fma (h4, LOAD4 (x0, k), a4);
    b4 = fma (h4, LOAD4 (x1, k), b4);
  }
  STORE_OUT (i, c0, sum4_scaled (a4));
  if (c1 != c0)
    STORE_OUT (i, c1, sum4_scaled (b4));
}
#endif

/* clr_resample_interp for two channels a work-item (c0 and c0 + 1): each
 * interpolated coefficient, four rows' weighted sum, serves both, and each
 * channel's sum is the same arithmetic in the same order as the
 * one-channel kernel's. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_interp_c2)
__kernel void
clr_resample_interp_c2 (CLR_KERNEL_ARGS, const ulong grid)
{
  CLR_STREAM ();
  const uint i = get_global_id (0);
  const uint c0 = 2 * get_global_id (1);
  if (i >= n_out || c0 >= channels)
    return;
  ulong p;
  uint frac;
  const ulong adv = locate (row_pos (s_row, phase0, D, i, &frac), I, &p);
  const uint c1 = c0 + 1 < channels ? c0 + 1 : c0;
  __global const win_t *x0 = win + c0 * w_cstride + first_tap + adv;
  __global const win_t *x1 = win + c1 * w_cstride + first_tap + adv;
  CLR_GRID_ROWS (frac);
  acc8_t a8 = 0.0, b8 = 0.0;
  uint k = 0;

  for (; k + 8 <= taps; k += 8) {
    const acc8_t h8 = CLR_ROWS (LOAD8);
    a8 = fma (h8, LOAD8 (x0, k), a8);
    b8 = fma (h8, LOAD8 (x1, k), b8);
  }
  acc4_t a4 = a8.lo + a8.hi, b4 = b8.lo + b8.hi;
  if (k < taps) {
    const acc4_t h4 = CLR_ROWS (LOAD4);
    a4 = fma (h4, LOAD4 (x0, k), a4);
    b4 = fma (h4, LOAD4 (x1, k), b4);
  }
  STORE_OUT (i, c0, sum4_scaled (a4));
  if (c1 != c0)
    STORE_OUT (i, c1, sum4_scaled (b4));
}
#endif
#endif

/* clr_resample_table for GPUs, from a tap-major table (coef[k * I + p]): the
 * work-items of a warp are consecutive output frames with different
 * phases, and for each tap their coefficients now sit within one row of I
 * values while their samples are contiguous, so both loads coalesce. The
 * products of four taps are summed in blk1_t and each block is added in
 * double (acc_add: compensated in float without fp64). */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_t)
__kernel void
clr_resample_table_t (CLR_KERNEL_ARGS)
{
  CLR_LOCATE ();
  __global const coef_t *h = coef + p;
  const uint stride = (uint) I;
  acc_t y = 0, e = 0;

  for (uint k = 0; k < taps; k += 4) {
    const uint o = k * stride;
    blk1_t b = (blk1_t) h[o] * (blk1_t) x[k];
    b = fma ((blk1_t) h[o + stride], (blk1_t) x[k + 1], b);
    b = fma ((blk1_t) h[o + 2 * stride], (blk1_t) x[k + 2], b);
    b = fma ((blk1_t) h[o + 3 * stride], (blk1_t) x[k + 3], b);
    y = acc_add (y, (acc_t) b, &e);
  }
  STORE_OUT (i, c, (y + e) * (acc_t) SCALE_IN);
}
#endif

/* ---- Several channels a work-item: the GPU kernels with fp64 ----------- */

#ifdef CLR_HAVE_FP64
#ifndef CLR_CPI
#define CLR_CPI 4
#endif
#ifndef CLR_BLK
#define CLR_BLK 4
#endif
/* the engine pads every phase to a multiple of 4 taps: a larger block would
 * read past the table */
#if CLR_BLK != 1 && CLR_BLK != 2 && CLR_BLK != 4
#error "CLR_BLK must be 1, 2 or 4"
#endif
#ifndef CLR_FPI
#define CLR_FPI 4
#endif

/* The several-frame kernels (_tcf, _iv) compute their frames over one span
 * of the window, which starts a = 0..3 frames before the first frame's
 * first tap adv0, at a stream index that is a multiple of 4 (`align` is
 * that index's remainder at adv0 = 0): their float blocks then group the
 * same products whichever work-item, launch or buffer an output falls in,
 * so the output does not depend on how the stream was cut into buffers. */
CLR_INLINE ulong
span_start (ulong adv0, uint align)
{
  return adv0 - (uint) ((align + adv0) & 3);
}

/* Frame j of a span starting at adv (its first frame at pos): how many
 * frames after adv its taps start (d_j), and its phase *p */
CLR_INLINE uint
frame_offset (ulong pos, ulong D, uint j, ulong I, ulong adv, ulong * p)
{
  return (uint) (locate (pos + j * D, I, p) - adv);
}

/* This work-item's first output frame i (of nf) and first channel c0 */
#define CLR_TILE(nf)                                                    \
  CLR_STREAM ();                                                        \
  const uint i = (nf) * get_global_id (0);                              \
  const uint c0 = get_global_id (1) * CLR_CPI;                          \
  if (i >= n_out || c0 >= channels)                                     \
    return

/* x[q]: the taps of channel c0 + q from window frame `start`; channels past
 * the last read c0's again, so the loops over q need no branch */
CLR_INLINE void
channel_taps (__global const win_t * x[CLR_CPI], __global const win_t * win,
    ulong w_cstride, uint channels, uint c0, ulong start)
{
  for (uint q = 0; q < CLR_CPI; q++)
    x[q] = win + (c0 + q < channels ? c0 + q : c0) * w_cstride + start;
}

/* s[q] = tap k of every channel */
CLR_INLINE void
load_channels (blk_t s[CLR_CPI], __global const win_t * x[CLR_CPI], uint k)
{
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    s[q] = (blk_t) x[q][k];
}

/* b[q] += h s[q], fused: one coefficient serves every channel */
CLR_INLINE void
fma_channels (blk_t b[CLR_CPI], blk_t h, const blk_t s[CLR_CPI])
{
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    b[q] = fma (h, s[q], b[q]);
}

/* y[q] += b[q]: a block's sum into the double accumulator */
CLR_INLINE void
add_blocks (acc_t y[CLR_CPI], const blk_t b[CLR_CPI])
{
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    y[q] += (acc_t) b[q];
}

/* Output frame i of the channels that exist, from their sums y */
CLR_INLINE void
store_channels (__global sample_t * out, ulong o_fstride, ulong o_cstride,
    uint channels, uint c0, uint i, const acc_t y[CLR_CPI])
{
#pragma unroll
  for (uint q = 0; q < CLR_CPI; q++)
    if (c0 + q < channels)
      STORE_OUT (i, c0 + q, y[q] * (acc_t) SCALE_IN);
}

#define STORE_CHANNELS(i, y) \
  store_channels (out, o_fstride, o_cstride, channels, c0, i, y)

/* clr_resample_table_t for CLR_CPI channels a work-item: every coefficient
 * loaded serves CLR_CPI multiply-adds (the kernel is bound by loads, not by
 * arithmetic); blocks of CLR_BLK taps. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_tc)
__kernel void
clr_resample_table_tc (CLR_KERNEL_ARGS)
{
  CLR_TILE (1);
  ulong p;
  const ulong adv = locate (phase0 + (ulong) i * D, I, &p);
  const uint stride = (uint) I;
  __global const coef_t *h = coef + p;
  __global const win_t *x[CLR_CPI];
  acc_t y[CLR_CPI] = { 0 };

  channel_taps (x, win, w_cstride, channels, c0, first_tap + adv);
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t b[CLR_CPI] = { 0 };
#pragma unroll
    for (uint j = 0; j < CLR_BLK; j++) {
      blk_t s[CLR_CPI];
      load_channels (s, x, k + j);
      fma_channels (b, (blk_t) h[(k + j) * stride], s);
    }
    add_blocks (y, b);
  }
  STORE_CHANNELS (i, y);
}
#endif

/* clr_resample_table_tc for two neighbouring output frames a work-item,
 * when upsampling (D < I): frame i+1's taps start 0 or 1 samples after
 * frame i's (`shift`), so each sample loaded serves both frames, and the
 * sample loads per multiply-add halve. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_tc2)
__kernel void
clr_resample_table_tc2 (CLR_KERNEL_ARGS)
{
  CLR_TILE (2);
  const ulong pos = phase0 + (ulong) i * D;
  ulong pa, pb;
  const ulong adv = locate (pos, I, &pa);
  const bool shift = locate (pos + D, I, &pb) != adv;
  const uint stride = (uint) I;
  __global const coef_t *ha = coef + pa;
  __global const coef_t *hb = coef + pb;
  __global const win_t *x[CLR_CPI];
  acc_t ya[CLR_CPI] = { 0 }, yb[CLR_CPI] = { 0 };
  blk_t prev[CLR_CPI];

  channel_taps (x, win, w_cstride, channels, c0, first_tap + adv);
  load_channels (prev, x, 0);
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t ba[CLR_CPI] = { 0 }, bb[CLR_CPI] = { 0 };
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
    add_blocks (ya, ba);
    add_blocks (yb, bb);
  }
  STORE_CHANNELS (i, ya);
  if (i + 1 < n_out)
    STORE_CHANNELS (i + 1, yb);
}
#endif

/* clr_resample_table_tc for CLR_FPI neighbouring output frames a
 * work-item. Frame i+j's taps start d_j samples into the span
 * (0 <= d_j <= pad + 3), so all frames are written as dot products over the
 * same `taps` (= span) samples, frame j taking its coefficients from rows
 * shifted by d_j in a table with zero rows around each phase's taps (`lead`
 * rows before them). Every sample loaded then serves CLR_FPI x CLR_CPI
 * multiply-adds and every coefficient CLR_CPI, with no branch or select per
 * tap; the zero rows cost span/K - 1 more work (a few per cent). The engine
 * keeps 3 frames before the first tap (span_start ()) and span - K frames
 * of zeros after the input, so the zero products meet only finite
 * samples. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_tcf)
__kernel void
clr_resample_table_tcf (CLR_KERNEL_ARGS, const uint lead)
{
  CLR_TILE (CLR_FPI);
  const ulong pos = phase0 + (ulong) i * D;
  ulong p;
  const ulong adv = span_start (locate (pos, I, &p), align);
  const uint stride = (uint) I;
  __global const coef_t *h[CLR_FPI];
  __global const win_t *x[CLR_CPI];
  acc_t y[CLR_FPI][CLR_CPI] = { { 0 } };

#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    ulong pj;
    const uint d = frame_offset (pos, D, j, I, adv, &pj);
    h[j] = coef + (lead - d) * stride + pj;
  }
  channel_taps (x, win, w_cstride, channels, c0, first_tap + adv);
  for (uint k = 0; k < taps; k += CLR_BLK) {
    blk_t b[CLR_FPI][CLR_CPI] = { { 0 } };
#pragma unroll
    for (uint t = 0; t < CLR_BLK; t++) {
      blk_t s[CLR_CPI];
      load_channels (s, x, k + t);
#pragma unroll
      for (uint j = 0; j < CLR_FPI; j++)
        fma_channels (b[j], (blk_t) h[j][(k + t) * stride], s);
    }
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
      add_blocks (y[j], b[j]);
  }
#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++)
    if (i + j < n_out)
      STORE_CHANNELS (i + j, y[j]);
}
#endif

/* ---- Many channels: the interleaved window, _iv ------------------------ */

/* -DCLR_IV_DW=n: sum in double the blocks within n taps of each frame's
 * centre (0: none, the default; see the kernel) */
#ifndef CLR_IV_DW
#define CLR_IV_DW 0
#endif

/* Frame j's row: four coefficients a load from the shifted copies, else
 * one at a time */
#ifdef CLR_IV_SHIFTED
typedef coef4_t ivrow_t;
#define LOADC(p, m) ((p)[(m) / 4])
#else
typedef coef_t ivrow_t;
#define LOADC(p, m) \
  ((coef4_t) ((p)[m], (p)[(m) + 1], (p)[(m) + 2], (p)[(m) + 3]))
#endif

/* Window frames m..m+3 of this work-item's four channels (x: its first
 * channel group in frame 0, fs groups a frame) */
CLR_INLINE void
iv_load_block (blk4_t s[4], __global const sample4_t * x, uint m, uint fs)
{
#pragma unroll
  for (uint t = 0; t < 4; t++)
    s[t] = CVTB4 (x[(m + t) * fs]);
}

/* One block of 4 taps for the four channels: products and sum in blk_t */
CLR_INLINE blk4_t
iv_float_block (coef4_t hk, const blk4_t s[4])
{
  blk4_t b = (blk_t) hk.x * s[0];
  b = fma ((blk4_t) ((blk_t) hk.y), s[1], b);
  b = fma ((blk4_t) ((blk_t) hk.z), s[2], b);
  b = fma ((blk4_t) ((blk_t) hk.w), s[3], b);
  return b;
}

#if CLR_IV_DW > 0
/* The same in double, hd the coefficients in double */
CLR_INLINE acc4_t
iv_double_block (acc4_t hd, const blk4_t s[4])
{
  acc4_t b = hd.x * CVT4 (s[0]);
  b = fma ((acc4_t) hd.y, CVT4 (s[1]), b);
  b = fma ((acc4_t) hd.z, CVT4 (s[2]), b);
  b = fma ((acc4_t) hd.w, CVT4 (s[3]), b);
  return b;
}
#endif

/* The layout for many channels: the window interleaved (frame f's channels
 * side by side, w_cstride unused), each work-item four neighbouring
 * channels (one 16-byte load a tap) of CLR_FPI output frames, dimension 0
 * along the channels. The work-items of a warp then read one contiguous
 * run of samples a tap, and those of one frame the same coefficients. As in
 * _tcf, frame j takes its coefficients shifted by d_j from zero-padded
 * rows over one span (span_start ()), so the four samples a work-item loads
 * serve 4 x CLR_FPI multiply-adds. The table is phase-major: row p holds
 * `lead` zeros, the K taps, and zeros up to taps + lead values (with
 * -DCLR_IV_SHIFTED: four copies, copy s shifted by s values, rows rounded
 * up to a multiple of 4 past taps + lead + 3). Channels must be a multiple
 * of 4. */
#if !defined(CLR_ONE_KERNEL) || defined(CLR_ONLY_clr_resample_table_iv)
__kernel void
clr_resample_table_iv (CLR_KERNEL_ARGS, const uint lead)
{
  CLR_STREAM ();
  const uint g = get_global_id (0);
  const uint i = CLR_FPI * get_global_id (1);
  const uint fs = channels / 4;
  if (i >= n_out || g >= fs)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  ulong p;
  const ulong adv0 = locate (pos, I, &p);
  const ulong adv = span_start (adv0, align);
  __global const sample4_t *x =
      (__global const sample4_t *) win + (first_tap + adv) * fs + g;
  acc4_t y[CLR_FPI];
#ifdef CLR_IV_SHIFTED
  /* Four copies of the table, copy s shifted by s values: frame j takes
   * the copy that puts its first coefficient on a multiple of 4, so its
   * coefficients come four at a time in one aligned load. */
  const uint rowlen = (taps + lead + 6) / 4 * 4;
#else
  const uint rowlen = taps + lead;
#endif
  __global const ivrow_t *h[CLR_FPI];
#if CLR_IV_DW > 0
  /* the residuals follow the table (all four copies: h counts coef4_t) */
  const ulong table_size = I * rowlen;
  uint d[CLR_FPI];
#endif

#pragma unroll
  for (uint j = 0; j < CLR_FPI; j++) {
    ulong pj;
    const uint dj = frame_offset (pos, D, j, I, adv, &pj);
    const uint o = lead - dj;
#ifdef CLR_IV_SHIFTED
    const uint sh = (4 - (o & 3)) & 3;
    h[j] = (__global const coef4_t *) (coef + ((ulong) sh * I + pj) * rowlen
        + o + sh);
#else
    h[j] = coef + pj * rowlen + o;
#endif
#if CLR_IV_DW > 0
    d[j] = dj;
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
   * whole loop its occupancy), so it is opt-in (CLRESAMPLE_IV_DW). Three
   * runs: float blocks, the centre blocks, float blocks, so the long runs
   * carry no per-block test. */
#if CLR_IV_DW > 0
  const uint c_lo = taps - lead + 2 > 2 * CLR_IV_DW ?
      (taps - lead) / 2 - CLR_IV_DW : 0;
  const uint c_hi = c_lo + 2 * CLR_IV_DW;
  const uint m_lo = (c_lo + (uint) (adv0 - adv)) & ~3u;
  const uint m_hi = min ((c_hi + lead + 3) & ~3u, taps);

  for (uint m = 0; m < m_lo; m += 4) {
    blk4_t s[4];
    iv_load_block (s, x, m, fs);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
      y[j] += CVT4 (iv_float_block (LOADC (h[j], m), s));
  }
  for (uint m = m_lo; m < m_hi; m += 4) {
    blk4_t s[4];
    iv_load_block (s, x, m, fs);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++) {
      if (m + 4 > c_lo + d[j] && m < c_hi + d[j]) {
        /* the coefficients to double precision too: each plus its float
         * rounding residual, stored table_size values further on */
        const coef4_t hk = LOADC (h[j], m);
        const acc4_t hd = CVT4 (hk) + CVT4 (LOADC (h[j] + table_size, m));
        y[j] += iv_double_block (hd, s);
      } else {
        y[j] += CVT4 (iv_float_block (LOADC (h[j], m), s));
      }
    }
  }
#else
  const uint m_hi = 0;
#endif
  for (uint m = m_hi; m < taps; m += 4) {
    blk4_t s[4];
    iv_load_block (s, x, m, fs);
#pragma unroll
    for (uint j = 0; j < CLR_FPI; j++)
      y[j] += CVT4 (iv_float_block (LOADC (h[j], m), s));
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
#endif
