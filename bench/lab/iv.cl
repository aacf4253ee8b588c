/* Experimental: interleaved window, CLR_V4 float4 channel groups a
 * work-item (lanes along channels), phase-major table (row p, taps
 * contiguous, float4 loads), 4-tap float blocks added in double. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifndef CLR_V4
#define CLR_V4 1
#endif
__kernel void
clr_lab_iv (__global const float4 *restrict win, __global float *restrict out,
    __global const float4 *restrict coef, const uint channels,
    const uint taps, const ulong I, const ulong D, const ulong first_tap,
    const ulong phase0, const uint n_out)
{
  const uint g = get_global_id (0);     /* group of 4*CLR_V4 channels */
  const uint i = get_global_id (1);
  const uint fs = channels / 4;         /* float4s a frame */
  if (i >= n_out || g * CLR_V4 >= fs)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv = pos / I;
  const ulong p = pos - adv * I;
  __global const float4 *x = win + (first_tap + adv) * fs + g * CLR_V4;
  __global const float4 *h = coef + p * (taps / 4);
#ifdef CLR_FACC
  float4 y[CLR_V4];
#define CVT(b) (b)
#else
  double4 y[CLR_V4];
#define CVT(b) convert_double4 (b)
#endif
#ifndef CLR_B8
#define CLR_B8 1
#endif
  for (uint v = 0; v < CLR_V4; v++)
    y[v] = 0;
  for (uint k = 0; k < taps / 4; k += CLR_B8) {
    float4 b[CLR_V4];
#pragma unroll
    for (uint v = 0; v < CLR_V4; v++)
      b[v] = 0;
#pragma unroll
    for (uint u = 0; u < CLR_B8; u++) {
      const float4 hk = h[k + u];
      __global const float4 *xk = x + 4 * (k + u) * fs;
#pragma unroll
      for (uint v = 0; v < CLR_V4; v++) {
        b[v] = fma ((float4) hk.x, xk[v], b[v]);
        b[v] = fma ((float4) hk.y, xk[fs + v], b[v]);
        b[v] = fma ((float4) hk.z, xk[2 * fs + v], b[v]);
        b[v] = fma ((float4) hk.w, xk[3 * fs + v], b[v]);
      }
    }
#pragma unroll
    for (uint v = 0; v < CLR_V4; v++)
      y[v] += CVT (b[v]);
  }
#pragma unroll
  for (uint v = 0; v < CLR_V4; v++)
    vstore4 (convert_float4 (y[v]), 0, out + (size_t) i * channels +
        4 * (g * CLR_V4 + v));
}

/* clr_lab_iv for CLR_F frames a work-item sharing their samples: frame j
 * takes its coefficients from row p_j shifted by d_j (rows padded with
 * `lead` zeros before, rowlen long). */
#ifndef CLR_F
#define CLR_F 4
#endif
__kernel void
clr_lab_ivf (__global const float4 *restrict win, __global float *restrict out,
    __global const float *restrict coef, const uint channels,
    const uint taps, const ulong I, const ulong D, const ulong first_tap,
    const ulong phase0, const uint n_out, const uint lead, const uint rowlen)
{
  const uint g = get_global_id (0);
  const uint i = get_global_id (1) * CLR_F;
  const uint fs = channels / 4;
  if (i >= n_out || g >= fs)
    return;
  const ulong pos = phase0 + (ulong) i * D;
  const ulong adv = pos / I;
  __global const float4 *x = win + (first_tap + adv) * fs + g;
  __global const float *h[CLR_F];
  double4 y[CLR_F];
#pragma unroll
  for (uint j = 0; j < CLR_F; j++) {
    const ulong pj = pos + j * D;
    const ulong aj = pj / I;
    h[j] = coef + (pj - aj * I) * rowlen + lead - (uint) (aj - adv);
    y[j] = 0;
  }
  for (uint m = 0; m < taps; m += 4) {
    const float4 s0 = x[m * fs], s1 = x[(m + 1) * fs];
    const float4 s2 = x[(m + 2) * fs], s3 = x[(m + 3) * fs];
#pragma unroll
    for (uint j = 0; j < CLR_F; j++) {
      float4 b = h[j][m] * s0;
      b = fma ((float4) h[j][m + 1], s1, b);
      b = fma ((float4) h[j][m + 2], s2, b);
      b = fma ((float4) h[j][m + 3], s3, b);
      y[j] += convert_double4 (b);
    }
  }
#pragma unroll
  for (uint j = 0; j < CLR_F; j++)
    if (i + j < n_out)
      vstore4 (convert_float4 (y[j]), 0, out + (size_t) (i + j) * channels +
          4 * g);
}
