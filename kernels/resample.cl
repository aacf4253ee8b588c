/* clresample: polyphase resampling kernels.
 *
 * One work-item computes one output sample (channel c of output frame i):
 *   y[i][c] = sum_k h_p[k] * x[first_tap + adv + k][c]
 * where adv = floor((phase0 + i*D) / I) and p = (phase0 + i*D) mod I are
 * integer math, so the position of every output is exact.
 *
 * The window `win` holds interleaved input frames: the history the previous
 * buffer left, then the new input. Work-items run channel-fastest so
 * neighbouring items read neighbouring samples.
 *
 * Build options:
 *   -DCLR_HAVE_FP64   the device has cl_khr_fp64: accumulate in double.
 * Without fp64 the sum is Neumaier-compensated in float, which keeps long
 * dot products near float's own precision instead of the ~-133 dB a plain
 * sequential float sum of 200 taps reaches.
 */

#ifdef CLR_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#define ACC_INIT(s, e) acc_t s = 0.0
#define ACC_ADD(s, e, v) s += (acc_t) (v)
#define ACC_GET(s, e) ((float) (s))
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

/* Rows of the coefficient table, one per phase: row p = h(p/I + K/2-1-k). */
__kernel void
clr_resample_table (__global const float *restrict win,
    __global float *restrict out, __global const float *restrict coef,
    const uint channels, const uint taps, const ulong I, const ulong D,
    const ulong first_tap, const ulong phase0, const uint n_out)
{
  const uint c = get_global_id (0);
  const uint i = get_global_id (1);
  if (c >= channels || i >= n_out)
    return;

  const ulong acc = phase0 + (ulong) i * D;
  const ulong adv = acc / I;
  const ulong p = acc - adv * I;
  __global const float *x = win + (first_tap + adv) * channels + c;
  __global const float *h = coef + p * taps;

  ACC_INIT (s, e);
  for (uint k = 0; k < taps; k++)
    ACC_ADD (s, e, h[k] * x[(size_t) k * channels]);
  out[(size_t) i * channels + c] = ACC_GET (s, e);
}

/* Rows on a grid of `grid` points per input sample (row q = position
 * (q-1)/grid), for ratios whose I is too large for one row per phase. The
 * coefficients of phase p are a cubic Lagrange interpolation of the four rows
 * around p/I; the fraction comes from integer math as well. */
__kernel void
clr_resample_interp (__global const float *restrict win,
    __global float *restrict out, __global const float *restrict coef,
    const uint channels, const uint taps, const ulong I, const ulong D,
    const ulong first_tap, const ulong phase0, const uint n_out,
    const ulong grid)
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
#ifdef CLR_HAVE_FP64
  const double u = (double) (pg - q0 * I) / (double) I;
  const double um1 = u - 1.0, um2 = u - 2.0, up1 = u + 1.0;
  const float w0 = (float) (-u * um1 * um2 / 6.0);
  const float w1 = (float) (up1 * um1 * um2 / 2.0);
  const float w2 = (float) (-up1 * u * um2 / 2.0);
  const float w3 = (float) (up1 * u * um1 / 6.0);
#else
  const float u = (float) (pg - q0 * I) / (float) I;
  const float um1 = u - 1.0f, um2 = u - 2.0f, up1 = u + 1.0f;
  const float w0 = -u * um1 * um2 / 6.0f;
  const float w1 = up1 * um1 * um2 / 2.0f;
  const float w2 = -up1 * u * um2 / 2.0f;
  const float w3 = up1 * u * um1 / 6.0f;
#endif
  __global const float *x = win + (first_tap + adv) * channels + c;
  __global const float *h0 = coef + q0 * taps;
  __global const float *h1 = h0 + taps;
  __global const float *h2 = h1 + taps;
  __global const float *h3 = h2 + taps;

  ACC_INIT (s, e);
  for (uint k = 0; k < taps; k++) {
    const float h = w0 * h0[k] + w1 * h1[k] + w2 * h2[k] + w3 * h3[k];
    ACC_ADD (s, e, h * x[(size_t) k * channels]);
  }
  out[(size_t) i * channels + c] = ACC_GET (s, e);
}
