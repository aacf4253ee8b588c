/* clresample: the small kernels of the offline convolution
 * (gst/core/conv/clr-conv-offline.c) around VkFFT's batched transforms.
 *
 * Overlap-save over a grid of rows: row g = c * segments + s is segment s of
 * channel c, the n input samples x[s * hop - lead + j], j < n (zero
 * outside the input; lead >= taps - 1, hop <= n - lead: both multiples of
 * four where clr-conv-offline.c's choose_lead () can), whose circular
 * convolution with the filter holds y[s * hop + k] at k + lead for k <
 * hop. A launch covers the rows [row0, row0 + rows) of the grid, row r of
 * the launch at r * n samples of the work buffer.
 *
 * The transforms are complex ones of m = n / 2 points, of a row read as
 * z[t] = x[2t] + i x[2t + 1]; multiply turns their output into the real
 * row's spectrum, applies the filter, and turns the product back into the
 * spectrum whose inverse is y[2t] + i y[2t + 1] (the textbook split of a
 * real FFT, done here: VkFFT's own R2C for transforms too long for one
 * pass costs a separate pass over the buffer each way). The filter
 * spectra carry the inverse transform's 1/m.
 *
 * Built with -DCLR_OFFLINE_F64 for double samples, float otherwise; with
 * -DCLR_OFFLINE_ACC_F64 multiply computes in double (and its twiddles are
 * doubles). Offsets into the caller's buffers are 64-bit: many channels
 * of a long signal pass 2^32 samples; rows are counted in 32 bits.
 */
#if defined(CLR_OFFLINE_F64) || defined(CLR_OFFLINE_ACC_F64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef CLR_OFFLINE_F64
typedef double real;
typedef double2 real2;
typedef double4 real4;
#define convert_acc2(v) (v)
#define convert_real2(v) (v)
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
#endif
#if defined(CLR_OFFLINE_F64) || defined(CLR_OFFLINE_ACC_F64)
typedef double acc;
typedef double2 acc2;
#ifndef CLR_OFFLINE_F64
#define convert_acc2(v) convert_double2 (v)
#define convert_real2(v) convert_float2 (v)
#endif
#else
typedef float acc;
typedef float2 acc2;
#define convert_acc2(v) (v)
#define convert_real2(v) (v)
#endif

/* Samples a work-item of gather and scatter moves: the index arithmetic
 * (a division a row) and the loads are shared by four. */
#define VEC 4
/* multiply's twiddle tables (clr-conv-offline.c's TW_FINE) */
#define TW_FINE 1024u

/* Four samples from p: one aligned vector load where the caller knows p
 * to be at a multiple of four samples (vload4 () may not assume it, and
 * NVIDIA's compiler then loads them one by one) */
#define LOAD4(p, aligned) ((aligned) ? *(__global const real4 *) (p) \
    : vload4 (0, (p)))
#define STORE4(v, p, aligned) do { if (aligned) \
      *(__global real4 *) (p) = (v); else vstore4 ((v), 0, (p)); } while (0)

/* Zero-padded overlapping segments of the input, rows [0, plan_rows) of
 * the work buffer: those past `rows` are zeroed, so that a transform
 * batched over more rows than there is input (a short last launch) reads
 * nothing stale. n is a multiple of VEC. */
__kernel void
clr_offline_gather (__global const real * in, ulong in_pitch,
    __global real * work, uint n, uint hop, uint lead, ulong frames,
    uint segments, uint row0, uint rows, uint aligned)
{
  uint j = get_global_id (0) * VEC;
  uint r = get_global_id (1);
  real4 v = (real4) (0);

  if (j >= n)
    return;
  if (r < rows) {
    uint g = row0 + r;
    uint c = g / segments;
    long t = (long) (g - c * segments) * hop + j - lead;
    __global const real *x = in + c * in_pitch;
    if (t >= 0 && t + VEC <= (long) frames) {
      v = LOAD4 (x + t, aligned);
    } else {
      if (t >= 0 && t < (long) frames)
        v.s0 = x[t];
      if (t + 1 >= 0 && t + 1 < (long) frames)
        v.s1 = x[t + 1];
      if (t + 2 >= 0 && t + 2 < (long) frames)
        v.s2 = x[t + 2];
      if (t + 3 >= 0 && t + 3 < (long) frames)
        v.s3 = x[t + 3];
    }
  }
  /* rows are n = 8k samples long */
  STORE4 (v, work + (ulong) r * n + j, 1);
}

static inline acc2
cmul (acc2 a, acc2 b)
{
  return (acc2) (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

static inline acc2
conj2 (acc2 a)
{
  return (acc2) (a.x, -a.y);
}

/* i a */
static inline acc2
times_i (acc2 a)
{
  return (acc2) (-a.y, a.x);
}

/* Each row's spectrum times its channel's filter spectrum (filter 0 for
 * every channel unless per_channel), a pair of bins k, m - k a work-item,
 * k <= m / 2; w[k] = e^(-2 pi i k / n), from a table of its first
 * TW_FINE values and one of every TW_FINE-th. With Z the row's m-point
 * transform and E, O those of the even and odd samples:
 *   E = (Z[k] + conj Z[m-k]) / 2,  O = (Z[k] - conj Z[m-k]) / 2i,
 *   X[k] = E + w O,  X[m-k] = conj (E - w O),
 * Y = X H, and back, E' = (Y[k] + conj Y[m-k]) / 2,
 * O' = (Y[k] - conj Y[m-k]) conj (w) / 2:
 *   Z'[k] = E' + i O',  Z'[m-k] = conj E' + i conj O'.
 * k = 0 pairs Z[0] with itself and H[0] with H[m] (X[m] = E - O). */
__kernel void
clr_offline_multiply (__global real2 * work, __global const real2 * spectra,
    __global const acc2 * twiddles, uint m, uint segments, uint per_channel,
    uint row0)
{
  uint k = get_global_id (0);
  uint r = get_global_id (1);
  uint j = m - k;
  __global real2 *z;
  __global const real2 *h;
  acc2 zk, zj, w, e, o, wo, yk, yj, e2, o2;

  if (k > m / 2)
    return;
  z = work + (ulong) r * m;
  h = spectra + (ulong) (per_channel ? (row0 + r) / segments : 0) * (m + 1);
  zk = convert_acc2 (z[k]);
  zj = convert_acc2 (z[j == m ? 0 : j]);
  w = cmul (twiddles[k % TW_FINE], twiddles[TW_FINE + k / TW_FINE]);
  e = (zk + conj2 (zj)) * (acc) 0.5;
  /* (Z[k] - conj Z[m-k]) / 2i */
  o = -times_i (zk - conj2 (zj)) * (acc) 0.5;
  wo = cmul (w, o);
  yk = cmul (e + wo, convert_acc2 (h[k]));
  yj = cmul (conj2 (e - wo), convert_acc2 (h[j]));
  e2 = (yk + conj2 (yj)) * (acc) 0.5;
  o2 = cmul (yk - conj2 (yj), conj2 (w)) * (acc) 0.5;
  z[k] = convert_real2 (e2 + times_i (o2));
  /* k = 0 has no partner; k = m / 2 is its own */
  if (k != 0 && j != k)
    z[j] = convert_real2 (conj2 (e2) + times_i (conj2 (o2)));
}

/* The hop valid samples of each row into the output, up to out_frames. */
__kernel void
clr_offline_scatter (__global const real * work, __global real * out,
    ulong out_pitch, uint n, uint hop, uint lead, ulong out_frames,
    uint segments, uint row0, uint aligned)
{
  uint k = get_global_id (0) * VEC;
  uint r = get_global_id (1);
  uint g, c, i;
  ulong t;
  __global const real *src;
  __global real *dst;

  if (k >= hop)
    return;
  g = row0 + r;
  c = g / segments;
  t = (ulong) (g - c * segments) * hop + k;
  if (t >= out_frames)
    return;
  src = work + (ulong) r * n + lead + k;
  dst = out + c * out_pitch + t;
  if (k + VEC <= hop && t + VEC <= out_frames) {
    STORE4 (LOAD4 (src, aligned), dst, aligned);
  } else {
    for (i = 0; i < VEC && k + i < hop && t + i < out_frames; i++)
      dst[i] = src[i];
  }
}
