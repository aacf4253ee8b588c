/* clresample: uniformly partitioned overlap-save convolution (clr-conv.c).
 *
 * Three kernels a batch of blocks, each over every block and channel of the
 * batch at once:
 *   clr_conv_forward  the 2B-sample window of each block (the previous
 *                     block and this one) -> its B + 1 spectrum bins, into
 *                     the frequency-domain delay line (a ring of spectra)
 *   clr_conv_mac      Y = sum over partitions p of X[block - p] * H[p]
 *                     (clr_conv_mac_wide: the same, four blocks a work-item,
 *                     for batches of four blocks or more)
 *   clr_conv_inverse  Y -> the last B samples of the 2B-point circular
 *                     convolution, which equal the linear one
 *
 * Real transforms of 2B points go through one complex transform of B points
 * (the even samples as real parts, the odd ones as imaginary parts) and a
 * twiddle pass that splits or joins the two halves. The complex transform is
 * an in-place decimation-in-time FFT in local memory (radix-2 stages fused
 * in pairs), one work-group a transform: B complex values must fit in local
 * memory (clr-conv.c checks).
 *
 * Build options:
 *   CLR_CONV_B, CLR_CONV_LOG2B  the block (partition) size B, a power of two
 *   CLR_CONV_BIN_STRIDE         the spectra's stride: B + 1 rounded up to 4
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
 * Twiddles: tw[k] = exp (-i pi k / B), k = 0 .. B, computed on the host in
 * double, stored in the transforms' precision. The inverse transform's
 * 1 / B is folded into the filter spectra.
 */
#if defined(CLR_CONV_F64) || defined(CLR_CONV_ACC_DOUBLE) \
    || defined(CLR_CONV_FFT_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define B CLR_CONV_B
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

/* in: channel c's frame f at c * in_chan + f * in_frame (planes, or frames
 * of all channels in turn); block b of the batch reads frames
 * [b B, b B + 2B). Work-group g transforms block g / channels of
 * channel g % channels into ring slot (slot0 + block) % slots, and (with
 * hist_cap > 0) copies the block's B new samples into the input history,
 * a ring of hist_cap samples a channel, at (hist_at + block B) % hist_cap:
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
      (size_t) blk * B * in_frame;
  __global cplx_t *x;
  uint n, k;

  for (n = lid; n < B; n += ls)
    z[bit_reverse (n)] = (fft_t) (w[2 * n * in_frame],
        w[(2 * n + 1) * in_frame]);
  /* only the blocks the ring keeps: in a batch longer than the ring, an
   * older block would race a newer one for the same place */
  if (hist_cap && blk + hist_cap / B >= get_num_groups (0) / channels) {
    __global real_t *h = hist + (size_t) c * hist_cap +
        (hist_at + blk * B) % hist_cap;

    for (n = lid; n < B; n += ls)
      h[n] = w[(B + n) * in_frame];
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  fft_local (z, tw, 0);

  x = ring + ((size_t) ((slot0 + blk) % slots) * channels + c) * BINS;
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

/* The run of partitions [*p0, *p1) that slice g2 % CLR_CONV_SLICES of a
 * sum over `parts` partitions takes. */
static inline void
slice_parts (uint parts, uint g2, uint * p0, uint * p1)
{
  const uint per_slice = (parts + CLR_CONV_SLICES - 1) / CLR_CONV_SLICES;

  *p0 = min (parts, g2 % CLR_CONV_SLICES * per_slice);
  *p1 = min (parts, *p0 + per_slice);
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
#pragma OPENCL FP_CONTRACT ON

/* Work-group g: block g / channels of output g % channels (channels: the
 * output planes). Writes the B output samples to out at frame b B, output
 * c's frame f at c * out_chan + f * out_frame. */
__kernel void
clr_conv_inverse (__global const cplx_t * prod, uint channels,
    __global const fft_t * tw, __global real_t * out, uint out_chan,
    uint out_frame)
{
  __local fft_t z[B];
  const uint lid = get_local_id (0), ls = get_local_size (0);
  const uint g = get_group_id (0), blk = g / channels, c = g % channels;
  __global const cplx_t *y = prod + (size_t) g * BINS;
  __global real_t *o = out + (size_t) c * out_chan +
      (size_t) blk * B * out_frame;
  uint n, k;

  for (k = lid; k < B; k += ls) {
    /* the spectra E, O of the even and odd output samples, joined as
     * E + i O: E = (Y[k] + conj Y[B-k]) / 2,
     * O = (Y[k] - conj Y[B-k]) exp (i pi k / B) / 2 */
    fft_t yk = CONVERT_FFT (y[k]), yr = conj_c (CONVERT_FFT (y[B - k]));
    fft_t e = (yk + yr) * (fft_real) 0.5;
    fft_t d = cmul ((yk - yr) * (fft_real) 0.5, conj_c (tw[k]));

    z[bit_reverse (k)] = e + (fft_t) (-d.y, d.x);
  }
  barrier (CLK_LOCAL_MEM_FENCE);
  fft_local (z, tw, 1);

  /* samples B .. 2B - 1 of the window: z[B/2 ..] holds them in pairs */
  for (n = lid; n < B / 2; n += ls) {
    fft_t v = z[B / 2 + n];

    o[2 * n * out_frame] = (real_t) v.x;
    o[(2 * n + 1) * out_frame] = (real_t) v.y;
  }
}
