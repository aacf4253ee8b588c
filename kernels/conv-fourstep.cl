/* clresample: the offline convolution's own transforms
 * (gst/core/conv/clr-conv-offline.c, "four-step"), three passes over a batch.
 *
 * Same grid and overlap-save as conv-offline.cl: row g = c * segments + s
 * is segment s of channel c, the n input samples x[s * hop - lead + j],
 * read as m = n / 2 complex points z[t] = x[2t] + i x[2t + 1]. Here m =
 * N1 N2 (powers of two, -DFS_N1, -DFS_N2) and the m-point transform is
 * Bailey's four-step one with t = N2 t1 + t2 and k = k1 + N1 k2:
 *
 *   cols_forward:  per column t2, an N1-point transform over t1 of the
 *                  input read straight from the caller's planes (zero
 *                  outside them), times W_m^(t2 k1), to work[N2 k1 + t2];
 *   rows:          per row k1, an N2-point transform over t2: Z[k1 + N1 k2]
 *                  at work[N2 k1 + k2] (the spectrum transposed; the
 *                  filter spectra are stored the same way). A work-group
 *                  holds rows k1 and N1 - k1, which hold each other's
 *                  mirrored bins m - k, so the real split, the filter's
 *                  product and the split undone happen here, then the
 *                  inverse N2-point transforms, times W_m^(-t2 k1);
 *   cols_inverse:  per column, the inverse N1-point transform over k1,
 *                  whose z[N2 t1 + t2] are written as the output's valid
 *                  samples.
 *
 * So the batch is read and written three times, where gather, VkFFT's
 * passes each way, multiply and scatter took about ten. The sub-transforms
 * run in one work-group each (C of them a group in the column passes, so
 * that a group reads C adjacent complex values = 32 bytes of a row at a
 * time): Stockham steps of radix 16 (then 2, 4 or 8), each work-item
 * holding 16 points in registers. All arithmetic is in double; values
 * pass between steps through local memory in double, real parts then
 * imaginary ones (C N doubles and padding, 34 KiB), and between passes in the
 * samples' precision, as VkFFT's float-memory plans did. Inverse
 * transforms are forward ones of the conjugate.
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifdef CLR_OFFLINE_F64
typedef double real;
typedef double2 real2;
#define TO_REAL2(v) (v)
#define TO_REAL(v) (v)
#else
typedef float real;
typedef float2 real2;
#define TO_REAL2(v) convert_float2 (v)
#define TO_REAL(v) ((float) (v))
#endif

#define N1 FS_N1
#define N2 FS_N2
#define M (N1 * N2)
/* transforms a column group holds */
#define CG 4
/* the twiddle table: T(e) = e^(-2 pi i e / n), n = 2M, as fine[e % TWF]
 * coarse[e / TWF] (clr-conv-offline.c's) */
#define TWF 1024u

static inline __attribute__ ((always_inline)) double2
cmul (double2 a, double2 b)
{
  return (double2) (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

static inline __attribute__ ((always_inline)) double2
conj2 (double2 a)
{
  return (double2) (a.x, -a.y);
}

/* -i a */
static inline __attribute__ ((always_inline)) double2
mul_neg_i (double2 a)
{
  return (double2) (a.y, -a.x);
}

static inline __attribute__ ((always_inline)) double2
tw_n (__global const double2 * tw, uint e)
{
  e &= 2 * M - 1;
  return cmul (tw[e % TWF], tw[TWF + e / TWF]);
}

/* W_m^e */
static inline __attribute__ ((always_inline)) double2
tw_m (__global const double2 * tw, uint e)
{
  return tw_n (tw, 2 * e);
}

/* W16^e, e^(-2 pi i e / 16) */
__constant double2 w16[16] = {
  (double2) (1.0, 0.0),
  (double2) (0.92387953251128676, -0.38268343236508977),
  (double2) (0.70710678118654752, -0.70710678118654752),
  (double2) (0.38268343236508977, -0.92387953251128676),
  (double2) (0.0, -1.0),
  (double2) (-0.38268343236508977, -0.92387953251128676),
  (double2) (-0.70710678118654752, -0.70710678118654752),
  (double2) (-0.92387953251128676, -0.38268343236508977),
  (double2) (-1.0, 0.0),
  (double2) (-0.92387953251128676, 0.38268343236508977),
  (double2) (-0.70710678118654752, 0.70710678118654752),
  (double2) (-0.38268343236508977, 0.92387953251128676),
  (double2) (0.0, 1.0),
  (double2) (0.38268343236508977, 0.92387953251128676),
  (double2) (0.70710678118654752, 0.70710678118654752),
  (double2) (0.92387953251128676, 0.38268343236508977),
};

/* e^(-i pi / 16) */
__constant double2 w32_1 = (double2) (0.98078528040323044913,
    -0.19509032201612826785);

/* In-register DFTs, natural order in and out, of v[0, R). */
static inline __attribute__ ((always_inline)) void
dft2 (double2 * v)
{
  double2 t = v[0] - v[1];
  v[0] += v[1];
  v[1] = t;
}

static inline __attribute__ ((always_inline)) void
dft4s (double2 * a, double2 * b, double2 * c, double2 * d)
{
  double2 t0 = *a + *c, t1 = *a - *c, t2 = *b + *d, t3 = mul_neg_i (*b - *d);
  *a = t0 + t2;
  *c = t0 - t2;
  *b = t1 + t3;
  *d = t1 - t3;
}

static inline __attribute__ ((always_inline)) void
dft4 (double2 * v)
{
  dft4s (&v[0], &v[1], &v[2], &v[3]);
}

/* n = r + 2j, k = s + 4u: four-point DFTs over j, twiddles W8^(rs), then
 * two-point ones over r */
static inline __attribute__ ((always_inline)) void
dft8 (double2 * v)
{
  double2 o[8];
  int s;

  dft4s (&v[0], &v[2], &v[4], &v[6]);
  dft4s (&v[1], &v[3], &v[5], &v[7]);
  v[3] = cmul (v[3], w16[2]);
  v[5] = mul_neg_i (v[5]);
  v[7] = cmul (v[7], w16[6]);
#pragma unroll
  for (s = 0; s < 4; s++) {
    o[s] = v[2 * s] + v[2 * s + 1];
    o[s + 4] = v[2 * s] - v[2 * s + 1];
  }
#pragma unroll
  for (s = 0; s < 8; s++)
    v[s] = o[s];
}

/* n = r + 4j, k = s + 4u: four-point DFTs over j, twiddles W16^(rs), then
 * four-point ones over r */
static inline __attribute__ ((always_inline)) void
dft16 (double2 * v)
{
  double2 o[16];
  int r, s;

#pragma unroll
  for (r = 0; r < 4; r++)
    dft4s (&v[r], &v[r + 4], &v[r + 8], &v[r + 12]);
#pragma unroll
  for (r = 1; r < 4; r++)
#pragma unroll
    for (s = 1; s < 4; s++)
      v[r + 4 * s] = cmul (v[r + 4 * s], w16[r * s]);
#pragma unroll
  for (s = 0; s < 4; s++)
    dft4s (&v[4 * s], &v[4 * s + 1], &v[4 * s + 2], &v[4 * s + 3]);
#pragma unroll
  for (s = 0; s < 4; s++)
#pragma unroll
    for (r = 0; r < 4; r++)
      o[s + 4 * r] = v[4 * s + r];
#pragma unroll
  for (s = 0; s < 16; s++)
    v[s] = o[s];
}

static inline __attribute__ ((always_inline)) void
dft (double2 * v, const uint R)
{
  if (R == 16)
    dft16 (v);
  else if (R == 8)
    dft8 (v);
  else if (R == 4)
    dft4 (v);
  else if (R == 2)
    dft2 (v);
}

/* v[q] times w^q, q < R: one twiddle fetched a group instead of R (a
 * fetch is two dependent loads; the powers' rounding, R products in
 * double, stays far under float's) */
static inline __attribute__ ((always_inline)) void
times_powers (double2 * v, const uint R, double2 w)
{
  double2 p = w;
  uint q;

#pragma unroll
  for (q = 1; q < R; q++) {
    v[q] = cmul (v[q], p);
    p = cmul (p, w);
  }
}

/* One Stockham step of an N-point transform, radix R, stride L, for the
 * item's G = 16 / R iterations j = i + g N / 16: twiddles and DFTs in
 * place. Iteration j's inputs were at j + q N / R, its outputs go to
 * out_index (). */
static inline __attribute__ ((always_inline)) void
step_dft (double2 * v, __global const double2 * tw, const uint N,
    const uint R, const uint L, uint i)
{
  const uint G = 16 / R;
  uint g;

#pragma unroll
  for (g = 0; g < G; g++) {
    uint j = i + g * (N / 16);
    uint k = j % L;
    if (L > 1)
      times_powers (v + g * R, R, tw_n (tw, k * (2 * M / (R * L))));
    dft (v + g * R, R);
  }
}

static inline __attribute__ ((always_inline)) uint
in_index (const uint N, const uint R, uint i, uint g, uint q)
{
  return i + g * (N / 16) + q * (N / R);
}

static inline __attribute__ ((always_inline)) uint
out_index (const uint N, const uint R, const uint L, uint i, uint g, uint p)
{
  uint j = i + g * (N / 16);
  return (j / L) * R * L + j % L + p * L;
}

/* Local memory holds a transform's N doubles with one spare after every
 * 16, so that step 1's outputs (16 apart for consecutive items) fall in
 * different banks, and the transforms of a group 8 doubles further
 * apart than that, so that a warp's 8 items x 4 transforms of a column
 * pass spread over all banks: 2 ways, the least for 32 doubles (without:
 * 32 ways on step 1's stores, and the passes ran at a fifth of the memory's
 * bandwidth). */
#define PAD(idx) ((idx) + ((idx) >> 4))
#define SLOT(N) ((N) + (N) / 16 + 8)

/* Step (R, L)'s outputs, their real (im = 0) or imaginary parts, into
 * local memory at their places. */
static inline __attribute__ ((always_inline)) void
store_part (const double2 * v, __local double *lx, const uint N,
    const uint R, const uint L, uint i, const int im)
{
  uint g, q;

#pragma unroll
  for (g = 0; g < 16 / R; g++)
#pragma unroll
    for (q = 0; q < R; q++)
      lx[PAD (out_index (N, R, L, i, g, q))] = im ? v[g * R + q].y :
          v[g * R + q].x;
}

/* Step R2's inputs, one part of them, from local memory. */
static inline __attribute__ ((always_inline)) void
load_part (double *h, __local const double *lx, const uint N,
    const uint R2, uint i)
{
  uint g, q;

#pragma unroll
  for (g = 0; g < 16 / R2; g++)
#pragma unroll
    for (q = 0; q < R2; q++)
      h[g * R2 + q] = lx[PAD (in_index (N, R2, i, g, q))];
}

/* The values of step (R, L) go to local memory and step R2's inputs come
 * back, through N doubles: real parts, then imaginary. */
static inline __attribute__ ((always_inline)) void
exchange (double2 * v, __local double *lx, const uint N, const uint R,
    const uint L, const uint R2, uint i)
{
  double re[16], im[16];
  uint q;

  barrier (CLK_LOCAL_MEM_FENCE);
  store_part (v, lx, N, R, L, i, 0);
  barrier (CLK_LOCAL_MEM_FENCE);
  load_part (re, lx, N, R2, i);
  barrier (CLK_LOCAL_MEM_FENCE);
  store_part (v, lx, N, R, L, i, 1);
  barrier (CLK_LOCAL_MEM_FENCE);
  load_part (im, lx, N, R2, i);
#pragma unroll
  for (q = 0; q < 16; q++)
    v[q] = (double2) (re[q], im[q]);
}

/* The steps' radices: 16, then 16 or what is left, then what is left. */
#define RAD1(N) ((N) >= 16 ? 16u : (N))
#define RAD2(N) ((N) >= 256 ? 16u : (N) / 16)
#define RAD3(N) ((N) / 256)

/* The N-point transform of the values an item loaded as step 1's inputs
 * (in_index (N, 16, i, 0, q)), all in v; leaves the last step's outputs
 * in v, at out_index (N, last_radix (N), last_stride (N), i, g, p). N from
 * 256 to 4096, or 32 to 128 (two steps). */
static inline __attribute__ ((always_inline)) void
fft_local (double2 * v, __local double *lx, __global const double2 * tw,
    const uint N, uint i)
{
  step_dft (v, tw, N, RAD1 (N), 1, i);
  exchange (v, lx, N, RAD1 (N), 1, RAD2 (N), i);
  step_dft (v, tw, N, RAD2 (N), 16, i);
  if (N > 256) {
    exchange (v, lx, N, RAD2 (N), 16, RAD3 (N), i);
    step_dft (v, tw, N, RAD3 (N), 256, i);
  }
}

#define LAST_R(N) ((N) > 256 ? RAD3 (N) : RAD2 (N))
#define LAST_L(N) ((N) > 256 ? 256u : 16u)

/* Columns [CG group, CG group + CG) of rows [row0, row0 + rows): the
 * caller's input in, the N1-point transforms, the twiddles, into work. */
__kernel void
__attribute__ ((reqd_work_group_size (CG * N1 / 16, 1, 1)))
clr_fourstep_cols_forward (__global const real * in, ulong in_pitch,
    __global real2 * work, uint hop, uint lead, ulong frames, uint segments,
    uint row0, __global const double2 * tw)
{
  __local double lx_all[CG * SLOT (N1)];
  const uint lid = get_local_id (0);
  const uint i = lid / CG, c = lid % CG;
  const uint t2 = get_group_id (0) * CG + c;
  const uint r = get_global_id (1);
  const uint g = row0 + r;
  const uint ch = g / segments;
  const long base = (long) (g - ch * segments) * hop - lead;
  __global const real *x = in + ch * in_pitch;
  __global real2 *out = work + (ulong) r * M;
  double2 v[16];
  uint q, p, gg;

#pragma unroll
  for (q = 0; q < 16; q++) {
    long u = base + 2 * (long) (N2 * in_index (N1, 16, i, 0, q) + t2);
    double2 z = (double2) (0.0, 0.0);
    if (u >= 0 && u + 1 < (long) frames) {
      z = (double2) (x[u], x[u + 1]);
    } else {
      if (u >= 0 && u < (long) frames)
        z.x = x[u];
      if (u + 1 >= 0 && u + 1 < (long) frames)
        z.y = x[u + 1];
    }
    v[q] = z;
  }
  fft_local (v, lx_all + c * SLOT (N1), tw, N1, i);
  /* W_m^(t2 k1) for k1 = k1_0 + p L: from two fetches a group */
#pragma unroll
  for (gg = 0; gg < 16 / LAST_R (N1); gg++) {
    uint k1_0 = out_index (N1, LAST_R (N1), LAST_L (N1), i, gg, 0);
    double2 w = tw_m (tw, t2 * k1_0), step = tw_m (tw, t2 * LAST_L (N1));
#pragma unroll
    for (p = 0; p < LAST_R (N1); p++) {
      out[N2 * (k1_0 + p * LAST_L (N1)) + t2] =
          TO_REAL2 (cmul (v[gg * LAST_R (N1) + p], w));
      w = cmul (w, step);
    }
  }
}

/* Where bin m - k lies in its row (row N1 - k1, or 0 for k1 = 0), for
 * k = k1 + N1 k2. */
static inline __attribute__ ((always_inline)) uint
partner_k2 (uint k1, uint k2)
{
  return k1 == 0 ? (N2 - k2) % N2 : N2 - 1 - k2;
}

/* Rows k1 = group and N1 - group of each row of the batch: the forward
 * N2-point transforms, the real split, the filter, the split undone, the
 * inverse transforms and their twiddles, in place. spectra: a filter's
 * m + 1 bins transposed like the rows (bin k1 + N1 k2 at N2 k1 + k2; bin
 * m last), carrying the inverse's 1 / m. */
__kernel void
__attribute__ ((reqd_work_group_size (2 * N2 / 16, 1, 1)))
clr_fourstep_rows (__global real2 * work, __global const real2 * spectra,
    uint segments, uint per_channel, uint row0, __global const double2 * tw)
{
  __local double lx_all[2 * SLOT (N2)];
  const uint lid = get_local_id (0);
  const uint i = lid / 2, c = lid % 2;
  const uint pair = get_group_id (0);
  const uint k1 = c ? (N1 - pair) % N1 : pair;
  const uint r = get_global_id (1);
  __global real2 *row = work + (ulong) r * M + N2 * k1;
  __global const real2 *h = spectra + (ulong) (per_channel ?
      (row0 + r) / segments : 0) * (M + 1);
  __local double *lx = lx_all + c * SLOT (N2);
  __local double *lp = lx_all + (1 - c) * SLOT (N2);
  double2 v[16];
  uint q, gg, p;

#pragma unroll
  for (q = 0; q < 16; q++)
    v[q] = convert_double2 (row[in_index (N2, 16, i, 0, q)]);
  fft_local (v, lx, tw, N2, i);

  /* to bins k2 = in_index (N2, 16, i, 0, q) of both rows, each item with
   * its own bins and their partners m - k in the other slot: real parts,
   * then imaginary */
  barrier (CLK_LOCAL_MEM_FENCE);
  store_part (v, lx, N2, LAST_R (N2), LAST_L (N2), i, 0);
  barrier (CLK_LOCAL_MEM_FENCE);
  {
    double own_re[16], part_re[16];
#pragma unroll
    for (q = 0; q < 16; q++) {
      uint k2 = in_index (N2, 16, i, 0, q);
      own_re[q] = lx[PAD (k2)];
      part_re[q] = lp[PAD (partner_k2 (k1, k2))];
    }
    barrier (CLK_LOCAL_MEM_FENCE);
    store_part (v, lx, N2, LAST_R (N2), LAST_L (N2), i, 1);
    barrier (CLK_LOCAL_MEM_FENCE);
    /* w = e^(-2 pi i k / n) for k = k1 + N1 (i + q N2 / 16): that of
     * q = 0 times e^(-i pi / 16)^q */
    double2 w = tw_n (tw, k1 + N1 * i);
#pragma unroll
    for (q = 0; q < 16; q++) {
      uint k2 = in_index (N2, 16, i, 0, q);
      uint k2p = partner_k2 (k1, k2);
      uint k = k1 + N1 * k2;
      /* the partner's bin, m for k = 0 */
      uint kp_at = k == 0 ? M : N2 * ((N1 - k1) % N1) + k2p;
      double2 zk = (double2) (own_re[q], lx[PAD (k2)]);
      double2 zj = (double2) (part_re[q], lp[PAD (k2p)]);
      /* E = (Z[k] + conj Z[m-k]) / 2, O = (Z[k] - conj Z[m-k]) / 2i,
       * X[k] = E + w O, X[m-k] = conj (E - w O); Y = X H; back:
       * E' = (Y[k] + conj Y[m-k]) / 2, O' = (Y[k] - conj Y[m-k]) conj
       * (w) / 2, Z'[k] = E' + i O' (conv-offline.cl's multiply) */
      double2 e = (zk + conj2 (zj)) * 0.5;
      double2 o = mul_neg_i (zk - conj2 (zj)) * 0.5;
      double2 wo = cmul (w, o);
      double2 yk = cmul (e + wo, convert_double2 (h[N2 * k1 + k2]));
      double2 yj = cmul (conj2 (e - wo), convert_double2 (h[kp_at]));
      double2 e2 = (yk + conj2 (yj)) * 0.5;
      double2 o2 = cmul (yk - conj2 (yj), conj2 (w)) * 0.5;
      /* + i O', conjugated for the inverse */
      v[q] = conj2 (e2 + (double2) (-o2.y, o2.x));
      w = cmul (w, w32_1);
    }
  }
  fft_local (v, lx, tw, N2, i);
  /* rows 0 and N1 / 2 are their own partners: both slots hold them */
  if (c == 1 && (k1 == 0 || k1 == N1 / 2))
    return;
#pragma unroll
  for (gg = 0; gg < 16 / LAST_R (N2); gg++) {
    uint t2_0 = out_index (N2, LAST_R (N2), LAST_L (N2), i, gg, 0);
    double2 w = tw_m (tw, t2_0 * k1), step = tw_m (tw, LAST_L (N2) * k1);
#pragma unroll
    for (p = 0; p < LAST_R (N2); p++) {
      /* conj (conj (B) W^(t2 k1)) = B W^(-t2 k1) */
      row[t2_0 + p * LAST_L (N2)] =
          TO_REAL2 (conj2 (cmul (v[gg * LAST_R (N2) + p], w)));
      w = cmul (w, step);
    }
  }
}

/* Row sample u, where it is one of the hop valid ones, as y[base + u -
 * lead] (up to out_frames). */
static inline __attribute__ ((always_inline)) void
put_valid (__global real * y, ulong base, uint u, double value, uint hop,
    uint lead, ulong out_frames)
{
  if (u >= lead && u - lead < hop && base + u - lead < out_frames)
    y[base + u - lead] = TO_REAL (value);
}

/* Columns of the batch's rows: the inverse N1-point transforms, whose
 * samples 2t and 2t + 1 in [lead, lead + hop) go out as y[s hop + u -
 * lead], up to out_frames. */
__kernel void
__attribute__ ((reqd_work_group_size (CG * N1 / 16, 1, 1)))
clr_fourstep_cols_inverse (__global const real2 * work, __global real * out,
    ulong out_pitch, uint hop, uint lead, ulong out_frames, uint segments,
    uint row0, __global const double2 * tw)
{
  __local double lx_all[CG * SLOT (N1)];
  const uint lid = get_local_id (0);
  const uint i = lid / CG, c = lid % CG;
  const uint t2 = get_group_id (0) * CG + c;
  const uint r = get_global_id (1);
  const uint g = row0 + r;
  const uint ch = g / segments;
  const ulong base = (ulong) (g - ch * segments) * hop;
  __global const real2 *src = work + (ulong) r * M;
  __global real *y = out + ch * out_pitch;
  double2 v[16];
  uint q, p, gg;

#pragma unroll
  for (q = 0; q < 16; q++)
    v[q] = conj2 (convert_double2 (src[N2 * in_index (N1, 16, i, 0, q) +
                t2]));
  fft_local (v, lx_all + c * SLOT (N1), tw, N1, i);
#pragma unroll
  for (gg = 0; gg < 16 / LAST_R (N1); gg++)
#pragma unroll
    for (p = 0; p < LAST_R (N1); p++) {
      uint t1 = out_index (N1, LAST_R (N1), LAST_L (N1), i, gg, p);
      uint u = 2 * (N2 * t1 + t2);
      double2 z = conj2 (v[gg * LAST_R (N1) + p]);
      put_valid (y, base, u, z.x, hop, lead, out_frames);
      put_valid (y, base, u + 1, z.y, hop, lead, out_frames);
    }
}
