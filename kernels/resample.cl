/* clresample: polyphase resampling kernels.
 *
 * One work-item computes one output sample (channel c of output frame i):
 *   y[i][c] = sum_k h_p[k] * x[first_tap + adv + k][c]
 * where adv = floor((phase0 + i*D) / I) and p = (phase0 + i*D) mod I are
 * integer math, so the position of every output is exact.
 *
 * The window `win` holds input frames in the stream's own sample format: the
 * history the previous buffer left, then the new input. Samples are converted
 * on load and on store, so a buffer costs one launch and integer streams move
 * half the bytes. Layout is given by strides: interleaved (frame stride =
 * channels, channel stride = 1) or planar (1, plane length). Work-items run
 * channel-fastest so neighbouring interleaved samples go to neighbouring items.
 *
 * Build options:
 *   -DCLR_FMT_F32 | -DCLR_FMT_F64 | -DCLR_FMT_S16 | -DCLR_FMT_S32 |
 *   -DCLR_FMT_S24_32                the sample format
 *   -DCLR_HAVE_FP64                 the device has cl_khr_fp64
 * With fp64 every product and sum is formed in double (the F64 path also
 * keeps its coefficients in double: float coefficients alone would cap the
 * stopband near -163 dB). Without it the float sum is Neumaier-compensated:
 * a plain sequential float sum of a few hundred taps sits near -133 dB.
 */

#ifdef CLR_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#define ACC_INIT(s, e) acc_t s = 0.0
#define ACC_ADD(s, e, v) s += (v)
#define ACC_GET(s, e) (s)
#else
typedef float acc_t;
#define ACC_INIT(s, e) float s = 0.0f, e = 0.0f
#define ACC_ADD(s, e, v) do {                                           \
    float _v = (v), _t = s + _v;                                        \
    e += fabs (s) >= fabs (_v) ? (s - _t) + _v : (_v - _t) + s;         \
    s = _t;                                                             \
  } while (0)
#define ACC_GET(s, e) ((s) + (e))
#endif

/* Integer scales are powers of two, exact in float: no double literal is
 * needed on devices without fp64. Stores round to nearest even and
 * saturate. */
#if defined(CLR_FMT_F64)
typedef double sample_t;
typedef double coef_t;
#define LOAD(v) (v)
#define STORE(v) (v)
#elif defined(CLR_FMT_S16)
typedef short sample_t;
typedef float coef_t;
#define LOAD(v) ((acc_t) (v) * (acc_t) (1.0f / 32768.0f))
#define STORE(v) convert_short_sat_rte ((v) * (acc_t) 32768.0f)
#elif defined(CLR_FMT_S32)
typedef int sample_t;
typedef float coef_t;
#define LOAD(v) ((acc_t) (v) * (acc_t) (1.0f / 2147483648.0f))
#define STORE(v) convert_int_sat_rte ((v) * (acc_t) 2147483648.0f)
#elif defined(CLR_FMT_S24_32)
typedef int sample_t;
typedef float coef_t;
#define LOAD(v) ((acc_t) (v) * (acc_t) (1.0f / 8388608.0f))
#define STORE(v) clamp (convert_int_sat_rte ((v) * (acc_t) 8388608.0f), \
    -8388608, 8388607)
#else /* CLR_FMT_F32 */
typedef float sample_t;
typedef float coef_t;
#define LOAD(v) ((acc_t) (v))
#define STORE(v) ((float) (v))
#endif

#define CLR_KERNEL_ARGS                                                 \
    __global const sample_t *restrict win,                              \
    __global sample_t *restrict out, __global const coef_t *restrict coef, \
    const uint channels, const uint taps, const ulong I, const ulong D,  \
    const ulong first_tap, const ulong phase0, const uint n_out,        \
    const ulong w_fstride, const ulong w_cstride,                       \
    const ulong o_fstride, const ulong o_cstride

/* Rows of the coefficient table, one per phase: row p = h(p/I + K/2-1-k). */
__kernel void
clr_resample_table (CLR_KERNEL_ARGS)
{
  const uint c = get_global_id (0);
  const uint i = get_global_id (1);
  if (c >= channels || i >= n_out)
    return;

  const ulong acc = phase0 + (ulong) i * D;
  const ulong adv = acc / I;
  const ulong p = acc - adv * I;
  __global const sample_t *x = win + (first_tap + adv) * w_fstride +
      c * w_cstride;
  __global const coef_t *h = coef + p * taps;

  ACC_INIT (s, e);
  for (uint k = 0; k < taps; k++)
    ACC_ADD (s, e, (acc_t) h[k] * LOAD (x[k * w_fstride]));
  out[i * o_fstride + c * o_cstride] = STORE (ACC_GET (s, e));
}

/* Rows on a grid of `grid` points per input sample (row q = position
 * (q-1)/grid), for ratios whose I is too large for one row per phase. The
 * coefficients of phase p are a cubic Lagrange interpolation of the four rows
 * around p/I; the fraction comes from integer math as well. */
__kernel void
clr_resample_interp (CLR_KERNEL_ARGS, const ulong grid)
{
  const uint c = get_global_id (0);
  const uint i = get_global_id (1);
  if (c >= channels || i >= n_out)
    return;

  const ulong acc = phase0 + (ulong) i * D;
  const ulong adv = acc / I;
  const ulong p = acc - adv * I;
  const ulong pg = p * grid;
  const ulong q0 = pg / I;
  const acc_t u = (acc_t) (pg - q0 * I) / (acc_t) I;
  const acc_t um1 = u - 1, um2 = u - 2, up1 = u + 1;
  const acc_t w0 = -u * um1 * um2 / 6;
  const acc_t w1 = up1 * um1 * um2 / 2;
  const acc_t w2 = -up1 * u * um2 / 2;
  const acc_t w3 = up1 * u * um1 / 6;
  __global const sample_t *x = win + (first_tap + adv) * w_fstride +
      c * w_cstride;
  __global const coef_t *h0 = coef + q0 * taps;
  __global const coef_t *h1 = h0 + taps;
  __global const coef_t *h2 = h1 + taps;
  __global const coef_t *h3 = h2 + taps;

  ACC_INIT (s, e);
  for (uint k = 0; k < taps; k++) {
    const acc_t h = w0 * h0[k] + w1 * h1[k] + w2 * h2[k] + w3 * h3[k];
    ACC_ADD (s, e, h * LOAD (x[k * w_fstride]));
  }
  out[i * o_fstride + c * o_cstride] = STORE (ACC_GET (s, e));
}
