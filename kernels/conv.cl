/* clresample: uniformly partitioned overlap-save convolution (clr-conv.c).
 *
 * Three kernels a batch of blocks, each over every block and channel of the
 * batch at once:
 *   clr_conv_forward  the 2B-sample window of each block (the 2B - H frames
 *                     before it and its own H) -> its B + 1 spectrum bins, into
 *                     the frequency-domain delay line (a ring of spectra)
 *   clr_conv_mac      Y = sum over partitions p of X[block - p] * H[p]
 *                     (clr_conv_mac_wide: the same, four blocks a work-item,
 *                     for batches of four blocks or more)
 *   clr_conv_inverse  Y -> the last H samples of the 2B-point circular
 *                     convolution, which equal the linear one
 * With one partition on CPUs (CLR_CONV_FUSED_SUM) the inverse transform
 * multiplies as it reads, and clr_conv_block runs a channel's forward
 * transform and then its outputs' inverse ones in one launch.
 *
 * Real transforms of 2B points go through one complex transform of B points
 * (the even samples as real parts, the odd ones as imaginary parts) and a
 * twiddle pass that splits or joins the two halves. The complex transform is
 * an in-place decimation-in-time FFT in local memory (radix-2 stages fused
 * in pairs), one work-group a transform: B complex values must fit in local
 * memory (clr-conv.c checks). CPUs run another one, a work-item a
 * transform in explicit vectors (CLR_CONV_FFT_VEC, below).
 *
 * Build options:
 *   CLR_CONV_B, CLR_CONV_LOG2B  the partition size B, a power of two
 *   CLR_CONV_HOP                frames a block (B unless one partition)
 *   CLR_CONV_BIN_STRIDE         the spectra's stride: B + 1 rounded up to 4
 *   CLR_CONV_FFT_VEC            the transforms a work-item each, in
 *                               vectors (CPUs; B >= 64)
 *   CLR_CONV_F64                samples and transforms in double
 *   CLR_CONV_ACC_DOUBLE         the partition sum in double (devices with
 *                               fp64); the filter spectra stay in the
 *                               samples' precision: the sum is bound by
 *                               memory, and double spectra made F32 1.8x
 *                               slower for an error of 3.3e-7 instead of
 *                               3.5e-7 of the output RMS
 *   CLR_CONV_FFT_DOUBLE         float samples and spectra in memory, but
 *                               transforms in double: the float transforms'
 *                               rounding was most of the error (max error
 *                               ~1e-6 of the output RMS, against ~3e-7)
 *   CLR_CONV_NEWEST_APART       (work-group transforms) the sum leaves
 *                               out partition 0, the newest spectrum's
 *                               product, which the inverse transform adds
 *                               as it reads: a stream's next sum then
 *                               depends on spectra already there, and runs
 *                               ahead, while the host waits for input
 *                               (clr-conv.c); CLR_CONV_REST 0 when there
 *                               is no other partition (no sum at all)
 * Twiddles: tw[k] = exp (-i pi k / B), k = 0 .. B, computed on the host in
 * double, stored in the transforms' precision. The inverse transform's
 * 1 / B is folded into the filter spectra.
 */
#if defined(CLR_CONV_F64) || defined(CLR_CONV_ACC_DOUBLE) \
    || defined(CLR_CONV_FFT_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define B CLR_CONV_B
/* H, frames a block: B, or (one partition) any multiple of 16 up to
 * 2B - taps + 1; a block's window is the 2B frames ending with its own H */
#ifndef CLR_CONV_HOP
#define CLR_CONV_HOP CLR_CONV_B
#endif
#define HOP CLR_CONV_HOP

#ifdef CLR_CONV_STREAMS
/* A row of the stream table (clr-conv.c's CONV_ROW_*, the scheduler's
 * rows): words of a stream's call in a batch of many streams' */
#define ROW_WORDS 16
#define ROW_WIN 0               /* the window, samples into in */
#define ROW_OUT 1               /* the output, samples into out */
#define ROW_POOL 2              /* the stream's pool slot */
#define ROW_BLOCK 3             /* the stream's block count at the first */
#define ROW_BLOCKS 4            /* blocks in this call */
#define ROW_IN_CHAN 5
#define ROW_IN_FRAME 6
#define ROW_OUT_CHAN 7
#define ROW_OUT_FRAME 8
#endif
/* B + 1 bins a spectrum, stored CLR_CONV_BIN_STRIDE apart (a multiple of
 * 4: the sum takes 4 bins a work-item); the padding stays 0 */
#define BINS CLR_CONV_BIN_STRIDE
#define VBINS (CLR_CONV_BIN_STRIDE / 4)
/* blocks a work-item of clr_conv_mac_wide sums (clr-conv.c: the same) */
#define MAC_WIDE 4

#ifdef CLR_CONV_F64
typedef double real_t;
typedef double2 cplx_t;
typedef double4 real4_t;
typedef double8 cplx4_t;
#else
typedef float real_t;
typedef float2 cplx_t;
typedef float4 real4_t;
typedef float8 cplx4_t;
#endif

/* fft_t: the transforms' complex values (local memory, twiddles) */
#if defined(CLR_CONV_F64) || !defined(CLR_CONV_FFT_DOUBLE)
typedef cplx_t fft_t;
typedef real_t fft_real;
#define TO_STORE(z) (z)
#define CONVERT_FFT(z) (z)
#else
typedef double2 fft_t;
typedef double fft_real;
#define TO_STORE(z) convert_float2 (z)
#define CONVERT_FFT(z) convert_double2 (z)
#endif

/* acc4_t: the sum's real or imaginary parts of 4 bins */
#ifdef CLR_CONV_ACC_DOUBLE
typedef double4 acc4_t;
#define TO_ACC(v) convert_double4 (v)
#ifdef CLR_CONV_F64
#define FROM_ACC(v) (v)
#else
#define FROM_ACC(v) convert_float4 (v)
#endif
#else
typedef real4_t acc4_t;
#define TO_ACC(v) (v)
#define FROM_ACC(v) (v)
#endif

#define CMUL(a, b) ((a).x * (b).x - (a).y * (b).y), \
    ((a).x * (b).y + (a).y * (b).x)

/* Where block blk's spectrum of input channel c lies in the ring (in
 * complex values), the first block in slot slot0 */
static inline size_t
ring_at (uint slot0, uint slots, uint channels, uint blk, uint c)
{
  return ((size_t) ((slot0 + blk) % slots) * channels + c) * BINS;
}

/* Output c's filter spectra: filter c / filter_div, stride values apart */
static inline __global const cplx_t *
filter_at (__global const cplx_t * spectra, uint filter_div, uint stride,
    uint c)
{
  return spectra + (size_t) (c / filter_div) * stride;
}

static inline fft_t
cmul (fft_t a, fft_t b)
{
  return (fft_t) (CMUL (a, b));
}

static inline fft_t
conj_c (fft_t a)
{
  return (fft_t) (a.x, -a.y);
}

static inline uint
bit_reverse (uint x)
{
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  x = (x >> 16) | (x << 16);
  return x >> (32 - CLR_CONV_LOG2B);
}

/* B-point FFT of z, stored in bit-reversed order, in place; `inverse` uses
 * the conjugate twiddles (no scaling). Radix-2 decimation in time with its
 * stages fused in pairs (radix 4): half the barriers and half the passes
 * over local memory; one plain radix-2 stage first when log2 B is odd.
 * Ends with a barrier. */
static void
fft_local (__local fft_t * z, __global const fft_t * tw, int inverse)
{
  const uint lid = get_local_id (0), ls = get_local_size (0);
  uint h = 1, t;

#if CLR_CONV_LOG2B % 2
  for (t = lid; t < B / 2; t += ls) {
    fft_t a = z[2 * t], b = z[2 * t + 1];

    z[2 * t] = a + b;
    z[2 * t + 1] = a - b;
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  h = 2;
#endif
  for (; h < B; h <<= 2) {
    for (t = lid; t < B / 4; t += ls) {
      uint pos = t & (h - 1);
      uint i = ((t - pos) << 2) + pos;
      /* the stage of span h: exp (-2 pi i pos / 2h) = tw[pos * B / h];
       * the stage of span 2h: w2 = tw[pos * B / 2h] for the pair (i, i+2h)
       * and w2 exp (-i pi / 2) = -i w2 for the pair (i+h, i+3h) */
      fft_t w1 = tw[pos * (B / h)], w2 = tw[pos * (B / (2 * h))], w3;
      fft_t a0, a1, a2, a3, b0, b1, b2, b3;

      if (inverse) {
        w1.y = -w1.y;
        w2.y = -w2.y;
        w3 = (fft_t) (-w2.y, w2.x);
      } else {
        w3 = (fft_t) (w2.y, -w2.x);
      }
      a0 = z[i];
      a1 = cmul (z[i + h], w1);
      a2 = z[i + 2 * h];
      a3 = cmul (z[i + 3 * h], w1);
      b0 = a0 + a1;
      b1 = a0 - a1;
      b2 = cmul (a2 + a3, w2);
      b3 = cmul (a2 - a3, w3);
      z[i] = b0 + b2;
      z[i + 2 * h] = b0 - b2;
      z[i + h] = b1 + b3;
      z[i + 3 * h] = b1 - b3;
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
}

#ifdef CLR_CONV_FFT_VEC
/* The transforms of CPU devices (CLR_CONV_FFT_VEC): one work-item a
 * transform, in explicit vectors of VW values, real and imaginary parts
 * apart. PoCL runs a work-group on one thread and vectorises across its
 * work-items only where their accesses line up, which the butterflies of
 * fft_local () do not: a 16384-point transform took 875 us there, 56-64 us
 * here (one core of the 2-core test machine).
 *
 * A B-point transform is a four-step one (Bailey), B = N1 N2, n = n1 N2 +
 * n2, k = k1 + N1 k2: the N2 columns' transforms of length N1 (over n1),
 * a twiddle exp (-2 pi i k1 n2 / B), the N1 transforms of length N2 (over
 * n2). Both run on strips of VW neighbouring columns, copied into a small
 * scratch where every Stockham stage's access is a whole vector and every
 * twiddle one broadcast value: the strip (2 x 2 x 8 KiB at most in double)
 * stays in the L1 cache through all its stages. The first step reads its
 * strips straight from the input (with the inverse's pre-pass folded in)
 * and writes them, twiddled and transposed in 8 x 8 blocks of registers,
 * into the transform's one buffer of B values in local memory, as rows
 * over k1; the second step goes down those rows' columns and puts the
 * result back in natural order. clr-conv.c checks that the buffer and the
 * scratch fit the local memory. */
#define VW 8
#define N1 (1u << (CLR_CONV_LOG2B / 2))
#define N2 (B / N1)

#if defined(CLR_CONV_F64) || defined(CLR_CONV_FFT_DOUBLE)
typedef double8 vfft_t;
typedef double16 vfft2_t;
#else
typedef float8 vfft_t;
typedef float16 vfft2_t;
#endif
#if defined(CLR_CONV_F64) || !defined(CLR_CONV_FFT_DOUBLE)
#define TO_VFFT(v) (v)
#define TO_VREAL(v) (v)
#else
#define TO_VFFT(v) convert_double16 (v)
#define TO_VREAL(v) convert_float16 (v)
#endif
#define LD(p) vload8 (0, p)
#define ST(v, p) vstore8 (v, 0, p)

/* exp (-i pi k / B) for k < 2B: the table holds k <= B */
static inline fft_t
tw_at (__global const fft_t * tw, uint k)
{
  return k <= B ? tw[k] : -tw[k - B];
}

/* One radix-4 Stockham stage of a strip (row r at r VW): sub-transforms
 * of length n, s rows apart; x -> y. */
static void
vstage4 (__local const fft_real * xr, __local const fft_real * xi,
    __local fft_real * yr, __local fft_real * yi, uint n, uint s,
    __global const fft_t * tw)
{
  const uint m = n / 4, step = 2 * B / n;
  const uint in_gap = s * m * VW, out_gap = s * VW;
  uint p, q;

  for (p = 0; p < m; p++) {
    const fft_t w1 = tw_at (tw, p * step), w2 = tw_at (tw, 2 * p * step),
        w3 = tw_at (tw, 3 * p * step);

    for (q = 0; q < s; q++) {
      __local const fft_real *ar = xr + (q + s * p) * VW;
      __local const fft_real *ai = xi + (q + s * p) * VW;
      __local fft_real *br = yr + (q + 4 * s * p) * VW;
      __local fft_real *bi = yi + (q + 4 * s * p) * VW;
      const vfft_t a_r = LD (ar), a_i = LD (ai);
      const vfft_t b_r = LD (ar + in_gap), b_i = LD (ai + in_gap);
      const vfft_t c_r = LD (ar + 2 * in_gap), c_i = LD (ai + 2 * in_gap);
      const vfft_t d_r = LD (ar + 3 * in_gap), d_i = LD (ai + 3 * in_gap);
      const vfft_t apc_r = a_r + c_r, apc_i = a_i + c_i;
      const vfft_t amc_r = a_r - c_r, amc_i = a_i - c_i;
      const vfft_t bpd_r = b_r + d_r, bpd_i = b_i + d_i;
      const vfft_t bmd_r = b_r - d_r, bmd_i = b_i - d_i;
      /* amc -+ i bmd */
      const vfft_t u1_r = amc_r + bmd_i, u1_i = amc_i - bmd_r;
      const vfft_t u2_r = apc_r - bpd_r, u2_i = apc_i - bpd_i;
      const vfft_t u3_r = amc_r - bmd_i, u3_i = amc_i + bmd_r;

      ST (apc_r + bpd_r, br);
      ST (apc_i + bpd_i, bi);
      ST (u1_r * w1.x - u1_i * w1.y, br + out_gap);
      ST (u1_r * w1.y + u1_i * w1.x, bi + out_gap);
      ST (u2_r * w2.x - u2_i * w2.y, br + 2 * out_gap);
      ST (u2_r * w2.y + u2_i * w2.x, bi + 2 * out_gap);
      ST (u3_r * w3.x - u3_i * w3.y, br + 3 * out_gap);
      ST (u3_r * w3.y + u3_i * w3.x, bi + 3 * out_gap);
    }
  }
}

/* The last stage when the length is 2 times a power of 4 (no twiddles):
 * rows q and q + s, q < s. */
static void
vstage2 (__local const fft_real * xr, __local const fft_real * xi,
    __local fft_real * yr, __local fft_real * yi, uint s)
{
  uint v;

  for (v = 0; v < s * VW; v += VW) {
    const vfft_t a_r = LD (xr + v), a_i = LD (xi + v);
    const vfft_t b_r = LD (xr + s * VW + v), b_i = LD (xi + s * VW + v);

    ST (a_r + b_r, yr + v);
    ST (a_i + b_i, yi + v);
    ST (a_r - b_r, yr + s * VW + v);
    ST (a_i - b_i, yi + s * VW + v);
  }
}

/* The transforms of length len down a strip's VW columns, in s (real
 * parts, then imaginary ones, len VW values each); t is scratch of the
 * same size. Returns the part that holds the result. */
static __local fft_real *
vfft_strip (__local fft_real * s, __local fft_real * t, uint len,
    __global const fft_t * tw)
{
  __local fft_real *x = s, *y = t, *z;
  const uint part = len * VW;
  uint n, stride = 1;

  for (n = len; n >= 4; n /= 4, stride *= 4) {
    vstage4 (x, x + part, y, y + part, n, stride, tw);
    z = x;
    x = y;
    y = z;
  }
  if (n == 2) {
    vstage2 (x, x + part, y, y + part, stride);
    x = y;
  }
  return x;
}

/* e, o: the even and odd elements of a and b, in turn */
#define UNSHUFFLE(a, b, e, o) \
  do { e = (vfft_t) ((a).even, (b).even); \
    o = (vfft_t) ((a).odd, (b).odd); } while (0)
/* rows r0 .. r7 of an 8 x 8 block -> its columns, in t0 .. t7 (the rows
 * are overwritten) */
#define TRANSPOSE8(r0, r1, r2, r3, r4, r5, r6, r7, t0, t1, t2, t3, t4, t5, \
    t6, t7) \
  do { \
    UNSHUFFLE (r0, r1, t0, t4); UNSHUFFLE (r2, r3, t1, t5); \
    UNSHUFFLE (r4, r5, t2, t6); UNSHUFFLE (r6, r7, t3, t7); \
    UNSHUFFLE (t0, t1, r0, r4); UNSHUFFLE (t2, t3, r1, r5); \
    UNSHUFFLE (t4, t5, r2, r6); UNSHUFFLE (t6, t7, r3, r7); \
    UNSHUFFLE (r0, r1, t0, t4); UNSHUFFLE (r2, r3, t1, t5); \
    UNSHUFFLE (r4, r5, t2, t6); UNSHUFFLE (r6, r7, t3, t7); \
  } while (0)

/* The first step's strip of columns n2 = v .. v + VW - 1 (its N1 rows
 * over k1 in x, real parts then imaginary ones), times exp (-2 pi i k1 n2
 * / B) from the table t (at k1 N2 + n2, real parts then imaginary ones),
 * into rows v .. v + VW - 1 of z (N2 rows of N1 over k1). */
static void
vtwiddle_transpose (__local const fft_real * x, __local fft_real * z,
    uint v, __global const fft_real * t)
{
  __local const fft_real *xi = x + N1 * VW;
  __local fft_real *zi = z + B;
  uint kb;

  for (kb = 0; kb < N1; kb += VW) {
    vfft_t r0, r1, r2, r3, r4, r5, r6, r7, i0, i1, i2, i3, i4, i5, i6, i7;
    vfft_t c0, c1, c2, c3, c4, c5, c6, c7;

#define ROW(j, rj, ij) \
    do { const vfft_t x_r = LD (x + (kb + j) * VW); \
      const vfft_t x_i = LD (xi + (kb + j) * VW); \
      const vfft_t t_r = LD (t + (kb + j) * N2 + v); \
      const vfft_t t_i = LD (t + B + (kb + j) * N2 + v); \
      rj = x_r * t_r - x_i * t_i; ij = x_r * t_i + x_i * t_r; } while (0)
    ROW (0, r0, i0); ROW (1, r1, i1); ROW (2, r2, i2); ROW (3, r3, i3);
    ROW (4, r4, i4); ROW (5, r5, i5); ROW (6, r6, i6); ROW (7, r7, i7);
#undef ROW
#define COLS(y, v0, v1, v2, v3, v4, v5, v6, v7) \
    do { TRANSPOSE8 (v0, v1, v2, v3, v4, v5, v6, v7, c0, c1, c2, c3, c4, \
          c5, c6, c7); \
      ST (c0, y + (v + 0) * N1 + kb); ST (c1, y + (v + 1) * N1 + kb); \
      ST (c2, y + (v + 2) * N1 + kb); ST (c3, y + (v + 3) * N1 + kb); \
      ST (c4, y + (v + 4) * N1 + kb); ST (c5, y + (v + 5) * N1 + kb); \
      ST (c6, y + (v + 6) * N1 + kb); ST (c7, y + (v + 7) * N1 + kb); \
    } while (0)
    COLS (z, r0, r1, r2, r3, r4, r5, r6, r7);
    COLS (zi, i0, i1, i2, i3, i4, i5, i6, i7);
#undef COLS
  }
}

/* The first step on the strip the caller loaded into s (N1 rows), into
 * z; then the second step, in place in z: z then holds the transform, in
 * natural order. Call the first part for every strip v, then the second. */
static void
vfft_first (__local fft_real * s, __local fft_real * z, uint v,
    __global const fft_t * tw)
{
  /* the four-step table follows the B + 1 twiddles (clr-conv.c) */
  __global const fft_real *t = (__global const fft_real *) (tw + B + 1);

  vtwiddle_transpose (vfft_strip (s, s + 2 * N1 * VW, N1, tw), z, v, t);
}

static void
vfft_second (__local fft_real * s, __local fft_real * z,
    __global const fft_t * tw)
{
  __local fft_real *zi = z + B, *r;
  uint k, n;

  for (k = 0; k < N1; k += VW) {
    for (n = 0; n < N2; n++) {
      ST (LD (z + n * N1 + k), s + n * VW);
      ST (LD (zi + n * N1 + k), s + (N2 + n) * VW);
    }
    r = vfft_strip (s, s + 2 * N2 * VW, N2, tw);
    for (n = 0; n < N2; n++) {
      ST (LD (r + n * VW), z + n * N1 + k);
      ST (LD (r + (N2 + n) * VW), zi + n * N1 + k);
    }
  }
}

/* Block blk of channel c into its ring slot (the kernel below; n_blocks:
 * the batch's), with z and s the transform's local memory. */
static void
vforward (__global const real_t * in, uint in_chan, uint in_frame,
    uint channels, __global cplx_t * ring, uint slot0, uint slots,
    __global const fft_t * tw, __global real_t * hist, uint hist_cap,
    uint hist_at, uint n_blocks, uint blk, uint c, __local fft_real * z,
    __local fft_real * s)
{
  __global const real_t *w = in + (size_t) c * in_chan +
      (size_t) blk * HOP * in_frame;
  __global cplx_t *x;
  uint n, k, v;

  /* z[n] = x[2n] + i x[2n + 1], a strip of columns n2 at a time */
  for (v = 0; v < N2; v += VW) {
    for (n = 0; n < N1; n++) {
      const uint at = n * N2 + v;

      if (in_frame == 1) {
        const vfft2_t p = TO_VFFT (vload16 (0, w + 2 * at));

        ST (p.even, s + n * VW);
        ST (p.odd, s + (N1 + n) * VW);
      } else if (in_frame == 2 && in_chan == 1) {
        /* interleaved stereo: 16 frames of both channels in two vector
         * loads, this channel's every other value (the scalar loads below
         * made a 20480-frame block's forward transforms 1.6x slower) */
        __global const real_t *f = in + ((size_t) blk * HOP + 2 * at) * 2;
        const vfft2_t a = TO_VFFT (vload16 (0, f));
        const vfft2_t b = TO_VFFT (vload16 (1, f));
        const vfft2_t q = c ? (vfft2_t) (a.odd, b.odd) :
            (vfft2_t) (a.even, b.even);

        ST (q.even, s + n * VW);
        ST (q.odd, s + (N1 + n) * VW);
      } else {
        uint j;

        for (j = 0; j < VW; j++) {
          s[n * VW + j] = w[2 * (at + j) * in_frame];
          s[(N1 + n) * VW + j] = w[(2 * (at + j) + 1) * in_frame];
        }
      }
    }
    vfft_first (s, z, v, tw);
  }
  vfft_second (s, z, tw);

  /* only the blocks the ring keeps (see the work-group version) */
  if (hist_cap && blk + hist_cap / HOP >= n_blocks) {
    __global real_t *h = hist + (size_t) c * hist_cap +
        (hist_at + blk * HOP) % hist_cap;

    for (n = 0; n < HOP; n++)
      h[n] = w[(2 * B - HOP + n) * in_frame];
  }

  x = ring + ring_at (slot0, slots, channels, blk, c);
  /* X[k] = E + exp (-i pi k / B) O, E = (Z[k] + conj Z[B-k]) / 2,
   * O = (Z[k] - conj Z[B-k]) / 2i; Z[B-k] for k in [k, k + VW) are the
   * VW values ending at B - k, reversed */
  for (k = VW; k < B; k += VW) {
    const vfft_t z_r = LD (z + k), z_i = LD (z + B + k);
    const vfft_t q_r = LD (z + B - k - VW + 1).s76543210;
    const vfft_t q_i = -LD (z + 2 * B - k - VW + 1).s76543210;
    const vfft_t e_r = (z_r + q_r) * (fft_real) 0.5;
    const vfft_t e_i = (z_i + q_i) * (fft_real) 0.5;
    const vfft_t o_r = (z_i - q_i) * (fft_real) 0.5;
    const vfft_t o_i = (q_r - z_r) * (fft_real) 0.5;
    const vfft2_t t = vload16 (0, (__global const fft_real *) (tw + k));
    vfft2_t out;

    out.even = e_r + t.even * o_r - t.odd * o_i;
    out.odd = e_i + t.even * o_i + t.odd * o_r;
    vstore16 (TO_VREAL (out), 0, (__global real_t *) (x + k));
  }
  for (k = 0; k <= B; k = k + 1 == VW ? B : k + 1) {
    const uint a = k & (B - 1), b = (B - k) & (B - 1);
    const fft_t zk = (fft_t) (z[a], z[B + a]), zq = (fft_t) (z[b], -z[B + b]);
    const fft_t e = (zk + zq) * (fft_real) 0.5, d = (zk - zq) * (fft_real) 0.5;

    x[k] = TO_STORE (e + cmul (tw[k], (fft_t) (d.y, -d.x)));
  }
}

__kernel void
clr_conv_forward (__global const real_t * in, uint in_chan, uint in_frame,
    uint channels,
    __global cplx_t * ring, uint slot0, uint slots,
    __global const fft_t * tw, __global real_t * hist, uint hist_cap,
    uint hist_at)
{
  __local fft_real z[2 * B], s[4 * N2 * VW];
  const uint g = get_group_id (0);

  vforward (in, in_chan, in_frame, channels, ring, slot0, slots, tw, hist,
      hist_cap, hist_at, get_num_groups (0) / channels, g / channels,
      g % channels, z, s);
}

#ifdef CLR_CONV_FUSED_SUM
/* Bins k .. k + VW - 1 of X H, split into real and imaginary parts. */
static inline vfft2_t
product_at (__global const cplx_t * x, __global const cplx_t * h, uint k)
{
  const vfft2_t a = TO_VFFT (vload16 (0, (__global const real_t *) (x + k)));
  const vfft2_t b = TO_VFFT (vload16 (0, (__global const real_t *) (h + k)));
  vfft2_t r;

  r.even = a.even * b.even - a.odd * b.odd;
  r.odd = a.even * b.odd + a.odd * b.even;
  return r;
}

/* CLR_CONV_FUSED_SUM (one partition, CPUs): the inverse transform takes
 * the product of the block's spectrum and the output's filter as it
 * reads them, and no sum runs: writing the products and reading them back
 * cost a 16384-frame crossover block as much as a third of its inverse
 * transforms (docs/convolution.md). Output c is filter c / filter_div
 * (filter_stride spectra apart) on input channel c % in_channels. */
#define Y_AT(k) product_at (x, h, k)
/* Output c of block blk (the kernels below), z and s the transform's
 * local memory. */
static void
vinverse (__global const cplx_t * ring, uint slot0, uint slots,
    __global const cplx_t * spectra, uint filter_stride, uint in_channels,
    uint filter_div, __global const fft_t * tw, __global real_t * out,
    uint out_chan, uint out_frame, uint blk, uint c, __local fft_real * z,
    __local fft_real * s)
{
  __global const cplx_t *x = ring + ring_at (slot0, slots, in_channels,
      blk, c % in_channels);
  __global const cplx_t *h = filter_at (spectra, filter_div, filter_stride,
      c);
#else
#define Y_AT(k) TO_VFFT (vload16 (0, (__global const real_t *) (y + (k))))
static void
vinverse (__global const cplx_t * prod, uint channels,
    __global const fft_t * tw, __global real_t * out, uint out_chan,
    uint out_frame, uint blk, uint c, __local fft_real * z,
    __local fft_real * s)
{
  __global const cplx_t *y = prod + ((size_t) blk * channels + c) * BINS;
#endif
  __global real_t *o = out + (size_t) c * out_chan +
      (size_t) blk * HOP * out_frame;
  uint n, v;

  /* the conjugate of E + i O (see the work-group version), a strip of
   * columns at a time: the inverse transform is the conjugate of the
   * forward one of the conjugate */
  for (v = 0; v < N2; v += VW) {
    for (n = 0; n < N1; n++) {
      const uint k = n * N2 + v;
      const vfft2_t yk = Y_AT (k), yq = Y_AT (B - k - VW + 1);
      const vfft_t q_r = yq.even.s76543210, q_i = -yq.odd.s76543210;
      const vfft_t e_r = (yk.even + q_r) * (fft_real) 0.5;
      const vfft_t e_i = (yk.odd + q_i) * (fft_real) 0.5;
      const vfft_t h_r = (yk.even - q_r) * (fft_real) 0.5;
      const vfft_t h_i = (yk.odd - q_i) * (fft_real) 0.5;
      const vfft2_t t = vload16 (0, (__global const fft_real *) (tw + k));
      /* d = h conj (t) */
      const vfft_t d_r = h_r * t.even + h_i * t.odd;
      const vfft_t d_i = h_i * t.even - h_r * t.odd;

      ST (e_r - d_i, s + n * VW);
      ST (-(e_i + d_r), s + (N1 + n) * VW);
    }
    vfft_first (s, z, v, tw);
  }
  vfft_second (s, z, tw);

  /* samples 2B - H .. 2B - 1 of the window: z[B - H/2 ..] holds them in
   * pairs (the imaginary parts conjugated back); H / 2 is a multiple of
   * VW (clr-conv.c) */
  if (out_frame == 1) {
    for (n = 0; n < HOP / 2; n += VW) {
      vfft2_t p;

      p.even = LD (z + B - HOP / 2 + n);
      p.odd = -LD (z + 2 * B - HOP / 2 + n);
      vstore16 (TO_VREAL (p), 0, o + 2 * n);
    }
  } else {
    /* frames of all outputs in turn: converted VW at a time, stored one
     * by one (scalar conversions cost a 20480-frame crossover block 15 %
     * of its inverse transforms under perf) */
    for (n = 0; n < HOP / 2; n += VW) {
      vfft2_t p;
      real_t v[2 * VW];
      uint j;

      p.even = LD (z + B - HOP / 2 + n);
      p.odd = -LD (z + 2 * B - HOP / 2 + n);
      vstore16 (TO_VREAL (p), 0, v);
      for (j = 0; j < 2 * VW; j++)
        o[(2 * n + j) * out_frame] = v[j];
    }
  }
}

#ifdef CLR_CONV_FUSED_SUM
__kernel void
clr_conv_inverse (__global const cplx_t * ring, uint slot0, uint slots,
    __global const cplx_t * spectra, uint filter_stride, uint in_channels,
    uint filter_div, uint channels,
    __global const fft_t * tw, __global real_t * out, uint out_chan,
    uint out_frame)
{
  __local fft_real z[2 * B], s[4 * N2 * VW];
  const uint g = get_group_id (0);

  vinverse (ring, slot0, slots, spectra, filter_stride, in_channels,
      filter_div, tw, out, out_chan, out_frame, g / channels, g % channels,
      z, s);
}

/* A whole one-partition block in one launch (CLR_CONV_FUSED_SUM): work-item
 * g transforms block g / channels of channel g % channels, then computes
 * that channel's outputs (g % channels, + channels, ... < n_out) from the
 * spectrum it has just written, still in its cache: one command a batch
 * fewer, which on PoCL is a hand-off to its threads and a wake-up. */
__kernel void
clr_conv_block (__global const real_t * in, uint in_chan, uint in_frame,
    uint channels,
    __global cplx_t * ring, uint slot0, uint slots,
    __global const fft_t * tw, __global real_t * hist, uint hist_cap,
    uint hist_at, __global const cplx_t * spectra, uint filter_stride,
    uint filter_div, uint n_out, __global real_t * out, uint out_chan,
    uint out_frame)
{
  __local fft_real z[2 * B], s[4 * N2 * VW];
  const uint g = get_group_id (0), blk = g / channels, c = g % channels;
  uint o;

  vforward (in, in_chan, in_frame, channels, ring, slot0, slots, tw, hist,
      hist_cap, hist_at, get_num_groups (0) / channels, blk, c, z, s);
  for (o = c; o < n_out; o += channels)
    vinverse (ring, slot0, slots, spectra, filter_stride, channels,
        filter_div, tw, out, out_chan, out_frame, blk, o, z, s);
}
#else
__kernel void
clr_conv_inverse (__global const cplx_t * prod, uint channels,
    __global const fft_t * tw, __global real_t * out, uint out_chan,
    uint out_frame)
{
  __local fft_real z[2 * B], s[4 * N2 * VW];
  const uint g = get_group_id (0);

  vinverse (prod, channels, tw, out, out_chan, out_frame, g / channels,
      g % channels, z, s);
}
#endif
#else

/* The spectrum of the 2B-sample window w (samples in_frame apart) into x:
 * bins 0 .. B. Every work-item of the group calls it. */
static void
forward_block (__global const real_t * w, uint in_frame, __local fft_t * z,
    __global const fft_t * tw, __global cplx_t * x)
{
  const uint lid = get_local_id (0), ls = get_local_size (0);
  uint n, k;

  for (n = lid; n < B; n += ls)
    z[bit_reverse (n)] = (fft_t) (w[2 * n * in_frame],
        w[(2 * n + 1) * in_frame]);
  barrier (CLK_LOCAL_MEM_FENCE);
  fft_local (z, tw, 0);

  for (k = lid; k <= B; k += ls) {
    /* Z = E + i O with E, O the transforms of the even and odd samples:
     * E = (Z[k] + conj Z[B-k]) / 2, O = (Z[k] - conj Z[B-k]) / 2i, and
     * X[k] = E + exp (-i pi k / B) O */
    fft_t zk = z[k & (B - 1)], zr = conj_c (z[(B - k) & (B - 1)]);
    fft_t e = (zk + zr) * (fft_real) 0.5, d = (zk - zr) * (fft_real) 0.5;
    fft_t o = (fft_t) (d.y, -d.x);

    x[k] = TO_STORE (e + cmul (tw[k], o));
  }
}

/* in: channel c's frame f at c * in_chan + f * in_frame (planes, or frames
 * of all channels in turn); block b of the batch reads frames
 * [b H, b H + 2B). Work-group g transforms block g / channels of
 * channel g % channels into ring slot (slot0 + block) % slots, and (with
 * hist_cap > 0) copies the block's H new samples into the input history,
 * a ring of hist_cap samples a channel, at (hist_at + block H) % hist_cap:
 * the host then keeps no copy of its own (clr_conv_read_history()). */
__kernel void
clr_conv_forward (__global const real_t * in, uint in_chan, uint in_frame,
    uint channels,
    __global cplx_t * ring, uint slot0, uint slots,
    __global const fft_t * tw, __global real_t * hist, uint hist_cap,
    uint hist_at)
{
  __local fft_t z[B];
  const uint lid = get_local_id (0), ls = get_local_size (0);
  const uint g = get_group_id (0), blk = g / channels, c = g % channels;
  __global const real_t *w = in + (size_t) c * in_chan +
      (size_t) blk * HOP * in_frame;
  uint n;

  /* only the blocks the ring keeps: in a batch longer than the ring, an
   * older block would race a newer one for the same place */
  if (hist_cap && blk + hist_cap / HOP >= get_num_groups (0) / channels) {
    __global real_t *h = hist + (size_t) c * hist_cap +
        (hist_at + blk * HOP) % hist_cap;

    for (n = lid; n < HOP; n += ls)
      h[n] = w[(2 * B - HOP + n) * in_frame];
  }
  forward_block (w, in_frame, z, tw,
      ring + ring_at (slot0, slots, channels, blk, c));
}

#endif /* CLR_CONV_FFT_VEC */

/* The sum over `parts` partitions, newest spectrum first, for nblk blocks
 * of the batch (of n): one work-item a vector of 4 bins (dimension 0), a
 * channel (1), a group of nblk blocks and a slice of the partitions (2).
 * The blocks of a group share each partition's load, and each spectrum is
 * loaded once into a window that slides by a block a partition: nblk times
 * less memory traffic, for a sum that is bound by memory. Written with
 * 4-wide vectors, real and imaginary parts apart: PoCL does not vectorise
 * a loop inside a work-item by itself (LLVM's remark: "loop control flow
 * is not understood by vectorizer"). filter_stride (in vectors) is 0 when
 * all channels share one filter. No fused multiply-adds here: the two
 * kernels below must give a block the same bits, so that the output does
 * not depend on how the input was cut into calls.
 *
 * CLR_CONV_SLICES (a power of two, the work-group's size along dimension
 * 2): the partitions are cut into that many runs, summed by neighbouring
 * work-items and added in a fixed tree in local memory. A GPU needs it: a
 * stream's block has only (B + 1) / 4 x channels vectors of bins, 130 at
 * B = 256 in stereo, each a walk of P dependent steps (4096 at a million
 * taps). CPUs keep 1 slice: PoCL's cores are busy with the vectors
 * alone. The tree's order depends on CLR_CONV_SLICES only, so a block
 * still gets the same bits whatever the batch. */
#ifndef CLR_CONV_SLICES
#define CLR_CONV_SLICES 1
#endif
#pragma OPENCL FP_CONTRACT OFF
#if CLR_CONV_SLICES > 1
/* One output's partial sums over the slices, added in a fixed tree in
 * local memory: slice 0's work-item ends with the total in *re, *im.
 * Every work-item of the group calls it (it has barriers). */
static inline void
slices_add (__local acc4_t * tree, acc4_t * re, acc4_t * im)
{
  const uint s = get_local_id (2), lv = get_local_id (0);
  const uint lanes = get_local_size (0);
  __local acc4_t *mine = tree + 2 * (s * lanes + lv);
  uint w;

  mine[0] = *re;
  mine[1] = *im;
  barrier (CLK_LOCAL_MEM_FENCE);
  for (w = CLR_CONV_SLICES / 2; w > 0; w /= 2) {
    if (s < w) {
      mine[0] += mine[2 * w * lanes];
      mine[1] += mine[2 * w * lanes + 1];
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  *re = mine[0];
  *im = mine[1];
  barrier (CLK_LOCAL_MEM_FENCE);
}
#endif

/* the partition the sum starts with (CLR_CONV_NEWEST_APART: the inverse
 * transform adds partition 0) */
#ifdef CLR_CONV_NEWEST_APART
#define FIRST_PART 1u
#else
#define FIRST_PART 0u
#endif

/* The run of partitions [*p0, *p1) that slice g2 % CLR_CONV_SLICES of a
 * sum over partitions FIRST_PART .. parts - 1 takes. */
static inline void
slice_parts (uint parts, uint g2, uint * p0, uint * p1)
{
  const uint summed = parts - FIRST_PART;
  const uint per_slice = (summed + CLR_CONV_SLICES - 1) / CLR_CONV_SLICES;

  *p0 = FIRST_PART + min (summed, g2 % CLR_CONV_SLICES * per_slice);
  *p1 = FIRST_PART + min (summed, *p0 - FIRST_PART + per_slice);
}

/* A sum's 4 bins stored as complex values of the samples' precision. */
static inline void
put_sum (__global cplx4_t * at, acc4_t re, acc4_t im)
{
  const real4_t r = FROM_ACC (re), i = FROM_ACC (im);

  *at = (cplx4_t) (r.s0, i.s0, r.s1, i.s1, r.s2, i.s2, r.s3, i.s3);
}

static inline void
mac_blocks (const uint nblk, __global const cplx4_t * ring, uint slot0,
    uint slots, uint parts, __global const cplx4_t * spectra,
    uint filter_stride, __global cplx4_t * prod, uint n,
    __local acc4_t * tree, uint in_channels, uint filter_div)
{
  /* c: the output (band-major: band c / in_channels of input channel
   * c % in_channels), outputs of them */
  const uint v = get_global_id (0), c = get_global_id (1);
  const uint g2 = get_global_id (2), blk0 = g2 / CLR_CONV_SLICES * nblk;
  const uint outputs = get_global_size (1);
  const size_t slot_stride = (size_t) in_channels * VBINS;
  __global const cplx4_t *h, *xv;
  acc4_t re[MAC_WIDE], im[MAC_WIDE], xr[MAC_WIDE], xi[MAC_WIDE];
  cplx4_t x;
  uint p0, p1, slot, p, b;

#if CLR_CONV_SLICES == 1
  if (v >= VBINS)
    return;
#endif
  /* vectors past the last bin only fill the work-group (for the tree) */
  const uint vc = min (v, (uint) VBINS - 1);
  h = spectra + (size_t) (c / filter_div) * filter_stride + vc;
  xv = ring + (size_t) (c % in_channels) * VBINS + vc;
  slice_parts (parts, g2, &p0, &p1);
  /* xr, xi[b]: the spectrum of block blk0 + b - p */
  slot = (slot0 + blk0 + slots - p0) % slots;
  for (b = 0; b < nblk; b++) {
    x = xv[((slot + b) % slots) * slot_stride];
    xr[b] = TO_ACC (x.even);
    xi[b] = TO_ACC (x.odd);
    re[b] = im[b] = (acc4_t) (0);
  }
  for (p = p0; p < p1; p++) {
    cplx4_t hp = h[(size_t) p * VBINS];
    acc4_t hr = TO_ACC (hp.even), hi = TO_ACC (hp.odd);

    for (b = 0; b < nblk; b++) {
      re[b] += xr[b] * hr - xi[b] * hi;
      im[b] += xr[b] * hi + xi[b] * hr;
    }
    for (b = nblk - 1; b > 0; b--) {
      xr[b] = xr[b - 1];
      xi[b] = xi[b - 1];
    }
    slot = slot ? slot - 1 : slots - 1;
    x = xv[slot * slot_stride];
    xr[0] = TO_ACC (x.even);
    xi[0] = TO_ACC (x.odd);
  }
#if CLR_CONV_SLICES > 1
  for (b = 0; b < nblk; b++)
    slices_add (tree, &re[b], &im[b]);
  if (get_local_id (2) != 0)
    return;
#endif
  if (v >= VBINS)
    return;
  for (b = 0; b < nblk && blk0 + b < n; b++)
    put_sum (prod + ((size_t) (blk0 + b) * outputs + c) * VBINS + v, re[b],
        im[b]);
}

/* CLR_CONV_OPW outputs a work-item, one block: dimension 1 counts groups
 * of OPW outputs. A GPU's sum of one block is bound by the loads it keeps
 * in flight, and a work-item issues its outputs' loads together (and the
 * filter's once where they share it, as the channels of a band do). Each
 * output's sum is the same expression in the same order as in
 * mac_blocks(): the same bits. */
#ifndef CLR_CONV_OPW
#define CLR_CONV_OPW 1
#endif
#define OPW CLR_CONV_OPW
#if OPW > 1
static inline void
mac_outputs (__global const cplx4_t * ring, uint slot0, uint slots,
    uint parts, __global const cplx4_t * spectra, uint filter_stride,
    __global cplx4_t * prod, __local acc4_t * tree, uint in_channels,
    uint filter_div)
{
  const uint v = get_global_id (0), c0 = get_global_id (1) * OPW;
  const uint g2 = get_global_id (2), blk0 = g2 / CLR_CONV_SLICES;
  const uint outputs = get_global_size (1) * OPW;
  const size_t slot_stride = (size_t) in_channels * VBINS;
  const uint vc = min (v, (uint) VBINS - 1);
  __global const cplx4_t *h[OPW], *xv[OPW];
  acc4_t re[OPW], im[OPW], xr, xi, hr, hi;
  cplx4_t x, hp;
  uint p0, p1, slot, p, k;

#if CLR_CONV_SLICES == 1
  if (v >= VBINS)
    return;
#endif
  for (k = 0; k < OPW; k++) {
    h[k] = spectra + (size_t) ((c0 + k) / filter_div) * filter_stride + vc;
    xv[k] = ring + (size_t) ((c0 + k) % in_channels) * VBINS + vc;
    re[k] = im[k] = (acc4_t) (0);
  }
  slice_parts (parts, g2, &p0, &p1);
  slot = (slot0 + blk0 + slots - p0) % slots;
  for (p = p0; p < p1; p++) {
    for (k = 0; k < OPW; k++) {
      x = xv[k][slot * slot_stride];
      hp = h[k][(size_t) p * VBINS];
      xr = TO_ACC (x.even);
      xi = TO_ACC (x.odd);
      hr = TO_ACC (hp.even);
      hi = TO_ACC (hp.odd);
      re[k] += xr * hr - xi * hi;
      im[k] += xr * hi + xi * hr;
    }
    slot = slot ? slot - 1 : slots - 1;
  }
#if CLR_CONV_SLICES > 1
  for (k = 0; k < OPW; k++)
    slices_add (tree, &re[k], &im[k]);
  if (get_local_id (2) != 0)
    return;
#endif
  if (v >= VBINS)
    return;
  for (k = 0; k < OPW; k++)
    put_sum (prod + ((size_t) blk0 * outputs + c0 + k) * VBINS + v, re[k],
        im[k]);
}
#endif

/* one block a work-item (OPW outputs): batches of fewer than MAC_WIDE
 * blocks (a real-time stream) */
__kernel void
clr_conv_mac (__global const cplx4_t * ring, uint slot0, uint slots,
    uint parts, __global const cplx4_t * spectra, uint filter_stride,
    __global cplx4_t * prod, uint n, __local acc4_t * tree,
    uint in_channels, uint filter_div)
{
#if OPW > 1
  mac_outputs (ring, slot0, slots, parts, spectra, filter_stride, prod,
      tree, in_channels, filter_div);
#else
  mac_blocks (1, ring, slot0, slots, parts, spectra, filter_stride, prod, n,
      tree, in_channels, filter_div);
#endif
}

/* MAC_WIDE blocks a work-item: larger batches */
__kernel void
clr_conv_mac_wide (__global const cplx4_t * ring, uint slot0, uint slots,
    uint parts, __global const cplx4_t * spectra, uint filter_stride,
    __global cplx4_t * prod, uint n, __local acc4_t * tree,
    uint in_channels, uint filter_div)
{
  mac_blocks (MAC_WIDE, ring, slot0, slots, parts, spectra, filter_stride,
      prod, n, tree, in_channels, filter_div);
}
#ifdef CLR_CONV_STREAMS
/* The sum over the partitions for the blocks of many streams (see
 * clr_convs_forward): dimension 0 the vectors of 4 bins, 1 the outputs, 2
 * the rows' blocks (maxblk a row) x the slices. Spectra of blocks before
 * the stream's start are silence: left out, so a pool slot needs no
 * clearing when a stream takes it. */
__kernel void
clr_convs_mac (__global const ulong * table, uint first, uint maxblk,
    __global const cplx4_t * ring, uint slots, uint parts,
    __global const cplx4_t * spectra, uint filter_stride,
    __global cplx4_t * prod, uint max_batch, __local acc4_t * tree,
    uint in_channels, uint filter_div)
{
  const uint v = get_global_id (0), c = get_global_id (1);
  const uint g2 = get_global_id (2), q = g2 / CLR_CONV_SLICES;
  const uint outputs = get_global_size (1), blk = q % maxblk;
  __global const ulong *row = table + (size_t) (first + q / maxblk) *
      ROW_WORDS;
  const size_t slot_stride = (size_t) in_channels * VBINS;
  const ulong now = row[ROW_BLOCK] + blk;
  const uint vc = min (v, (uint) VBINS - 1);
  __global const cplx4_t *h, *xv;
  acc4_t re = (acc4_t) (0), im = (acc4_t) (0), xr, xi, hr, hi;
  cplx4_t x, hp;
  uint p0, p1, slot, p;

  /* the same for the whole work-group (its dimension 2 is one block's
   * slices), so no barrier is left waiting */
  if (blk >= row[ROW_BLOCKS])
    return;
#if CLR_CONV_SLICES == 1
  if (v >= VBINS)
    return;
#endif
  h = spectra + (size_t) (c / filter_div) * filter_stride + vc;
  xv = ring + (size_t) row[ROW_POOL] * slots * slot_stride +
      (size_t) (c % in_channels) * VBINS + vc;
  slice_parts (parts, g2, &p0, &p1);
  p1 = (ulong) p1 > now + 1 ? (uint) now + 1 : p1;
  slot = (uint) ((now + slots - min ((ulong) p0, now)) % slots);
  for (p = p0; p < p1; p++) {
    x = xv[slot * slot_stride];
    hp = h[(size_t) p * VBINS];
    xr = TO_ACC (x.even);
    xi = TO_ACC (x.odd);
    hr = TO_ACC (hp.even);
    hi = TO_ACC (hp.odd);
    re += xr * hr - xi * hi;
    im += xr * hi + xi * hr;
    slot = slot ? slot - 1 : slots - 1;
  }
#if CLR_CONV_SLICES > 1
  slices_add (tree, &re, &im);
  if (get_local_id (2) != 0)
    return;
#endif
  if (v >= VBINS)
    return;
  put_sum (prod + (((size_t) row[ROW_POOL] * max_batch + blk) * outputs +
          c) * VBINS + v, re, im);
}
#endif /* CLR_CONV_STREAMS */
#pragma OPENCL FP_CONTRACT ON

#ifndef CLR_CONV_FFT_VEC
#ifdef CLR_CONV_NEWEST_APART
/* The product spectrum's bin k: the sum of the older partitions (none
 * when CLR_CONV_REST is 0) and the newest one's product. */
static inline fft_t
y_at (__global const cplx_t * y, __global const cplx_t * x,
    __global const cplx_t * h, uint k)
{
  const fft_t newest = cmul (CONVERT_FFT (x[k]), CONVERT_FFT (h[k]));

#if CLR_CONV_REST
  return CONVERT_FFT (y[k]) + newest;
#else
  return newest;
#endif
}

#define Y_AT(k) y_at (y, x, h, k)
#else
#define Y_AT(k) CONVERT_FFT (y[k])
#endif

/* The product spectrum y (CLR_CONV_NEWEST_APART: with the newest
 * partition's product of x and h added) -> the block's H output samples,
 * out_frame apart from o on. Every work-item of the group calls it. */
static void
inverse_block (__global const cplx_t * y, __global const cplx_t * x,
    __global const cplx_t * h, __global const fft_t * tw, __local fft_t * z,
    __global real_t * o, uint out_frame)
{
  const uint lid = get_local_id (0), ls = get_local_size (0);
  uint n, k;

  for (k = lid; k < B; k += ls) {
    /* the spectra E, O of the even and odd output samples, joined as
     * E + i O: E = (Y[k] + conj Y[B-k]) / 2,
     * O = (Y[k] - conj Y[B-k]) exp (i pi k / B) / 2 */
    fft_t yk = Y_AT (k), yr = conj_c (Y_AT (B - k));
    fft_t e = (yk + yr) * (fft_real) 0.5;
    fft_t d = cmul ((yk - yr) * (fft_real) 0.5, conj_c (tw[k]));

    z[bit_reverse (k)] = e + (fft_t) (-d.y, d.x);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  fft_local (z, tw, 1);

  /* samples 2B - H .. 2B - 1 of the window: z[B - H/2 ..] holds them in
   * pairs */
  for (n = lid; n < HOP / 2; n += ls) {
    fft_t v = z[B - HOP / 2 + n];

    o[2 * n * out_frame] = (real_t) v.x;
    o[(2 * n + 1) * out_frame] = (real_t) v.y;
  }
}

/* Work-group g: block g / channels of output g % channels (channels: the
 * output planes). Writes the H output samples to out at frame b H, output
 * c's frame f at c * out_chan + f * out_frame. CLR_CONV_NEWEST_APART:
 * output c is filter c / filter_div (whose partition 0 is at
 * spectra + (c / filter_div) * filter_bins) on input channel
 * c % in_channels, the block's spectrum in ring slot slot0 + block. */
__kernel void
clr_conv_inverse (__global const cplx_t * prod, uint channels,
    __global const fft_t * tw, __global real_t * out, uint out_chan,
    uint out_frame, __global const cplx_t * ring, uint slot0, uint slots,
    __global const cplx_t * spectra, uint filter_bins, uint in_channels,
    uint filter_div)
{
  __local fft_t z[B];
  const uint g = get_group_id (0), blk = g / channels, c = g % channels;
  __global const cplx_t *x = 0, *h = 0;

#ifdef CLR_CONV_NEWEST_APART
  x = ring + ring_at (slot0, slots, in_channels, blk, c % in_channels);
  h = filter_at (spectra, filter_div, filter_bins, c);
#endif
  inverse_block (prod + (size_t) g * BINS, x, h, tw, z,
      out + (size_t) c * out_chan + (size_t) blk * HOP * out_frame,
      out_frame);
}

#ifdef CLR_CONV_STREAMS
/* Many streams' blocks in one launch (clr-conv.c's shared mode, run by the
 * device's scheduler): the stream table (clr-sched.h) heads the batch's
 * input buffer, a row a stream's call, and the launch covers rows
 * [first, first + gsize(1)) (forward, inverse) or a row a run of maxblk x
 * CLR_CONV_SLICES along dimension 2 (the sum). A row's blocks past its
 * own count do nothing. Each stream's device state lies in pools, at its
 * pool slot: its ring of spectra ([slot][channel][BINS], `slots` of them)
 * and its products ([block][output][BINS], max_batch of them). A block's
 * arithmetic is the same whatever else shares its launch. */

__kernel void
clr_convs_forward (__global const real_t * in, __global const ulong * table,
    uint first, uint channels, __global cplx_t * ring, uint slots,
    __global const fft_t * tw)
{
  __local fft_t z[B];
  const uint g = get_group_id (0), blk = g / channels, c = g % channels;
  __global const ulong *row = table + (size_t) (first + get_group_id (1)) *
      ROW_WORDS;
  const size_t stream = (size_t) row[ROW_POOL] * slots * channels;

  if (blk >= row[ROW_BLOCKS])
    return;
  forward_block (in + row[ROW_WIN] + c * row[ROW_IN_CHAN] +
      (size_t) blk * HOP * row[ROW_IN_FRAME], (uint) row[ROW_IN_FRAME], z, tw,
      ring + (stream + (row[ROW_BLOCK] + blk) % slots * channels + c) *
      BINS);
}

__kernel void
clr_convs_inverse (__global const ulong * table, uint first, uint outputs,
    __global const cplx_t * prod, uint max_batch, __global const fft_t * tw,
    __global real_t * out)
{
  __local fft_t z[B];
  const uint g = get_group_id (0), blk = g / outputs, c = g % outputs;
  __global const ulong *row = table + (size_t) (first + get_group_id (1)) *
      ROW_WORDS;

  if (blk >= row[ROW_BLOCKS])
    return;
  inverse_block (prod + (((size_t) row[ROW_POOL] * max_batch + blk) *
          outputs + c) * BINS, 0, 0, tw, z, out + row[ROW_OUT] +
      c * row[ROW_OUT_CHAN] + (size_t) blk * HOP * row[ROW_OUT_FRAME],
      (uint) row[ROW_OUT_FRAME]);
}
#endif /* CLR_CONV_STREAMS */
#endif /* CLR_CONV_FFT_VEC */
