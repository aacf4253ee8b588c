/* clresample: the small kernels of the offline convolution
 * (gst/core/clr-conv-offline.c) around VkFFT's batched real transforms.
 *
 * Overlap-save over a grid of rows: row g = c * segments + s is segment s of
 * channel c, the n input samples x[s * hop - lead + j], j < n (lead =
 * taps - 1, zero outside the input), whose circular convolution with the
 * filter holds y[s * hop + k] at k + lead for k < hop. A launch covers the
 * rows [row0, row0 + rows) of the grid, row r of the launch at r * (n + 2)
 * reals of the work buffer (VkFFT's in-place R2C layout: n reals, or
 * n / 2 + 1 complex values). The filter spectra carry the inverse
 * transform's 1/n.
 *
 * Built with -DCLR_OFFLINE_F64 for double samples; float otherwise.
 * Offsets into the caller's buffers are 64-bit: many channels of a long
 * signal pass 2^32 samples.
 */
#ifdef CLR_OFFLINE_F64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

/* Zero-padded overlapping segments of the input, rows [0, plan_rows) of
 * the work buffer: those past `rows` are zeroed, so that a transform
 * batched over more rows than there is input (a short last launch) reads
 * nothing stale. */
__kernel void
clr_offline_gather (__global const real * in, ulong in_pitch,
    __global real * work, uint n, uint hop, uint lead, ulong frames,
    ulong segments, ulong row0, uint rows)
{
  uint j = get_global_id (0);
  uint r = get_global_id (1);
  real v = 0;

  if (j >= n)
    return;
  if (r < rows) {
    ulong g = row0 + r;
    ulong c = g / segments;
    long t = (long) ((g - c * segments) * hop + j) - (long) lead;
    if (t >= 0 && t < (long) frames)
      v = in[c * in_pitch + t];
  }
  work[(ulong) r * (n + 2) + j] = v;
}

/* Spectrum of each row times its channel's filter spectrum (filter 0 for
 * every channel unless per_channel). */
__kernel void
clr_offline_multiply (__global real2 * work, __global const real2 * spectra,
    uint bins, ulong segments, uint per_channel, ulong row0)
{
  uint k = get_global_id (0);
  uint r = get_global_id (1);
  ulong c, at;
  real2 x, h;

  if (k >= bins)
    return;
  c = per_channel ? (row0 + r) / segments : 0;
  h = spectra[c * bins + k];
  at = (ulong) r * bins + k;
  x = work[at];
  work[at] = (real2) (x.x * h.x - x.y * h.y, x.x * h.y + x.y * h.x);
}

/* The hop valid samples of each row into the output, up to out_frames. */
__kernel void
clr_offline_scatter (__global const real * work, __global real * out,
    ulong out_pitch, uint n, uint hop, uint lead, ulong out_frames,
    ulong segments, ulong row0)
{
  uint k = get_global_id (0);
  uint r = get_global_id (1);
  ulong g, c, t;

  if (k >= hop)
    return;
  g = row0 + r;
  c = g / segments;
  t = (g - c * segments) * hop + k;
  if (t < out_frames)
    out[c * out_pitch + t] = work[(ulong) r * (n + 2) + lead + k];
}
