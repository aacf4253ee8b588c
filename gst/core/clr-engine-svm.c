/* clresample: the engine's shared-memory path for CPU devices. See
 * clr-engine-private.h and clr-engine.c. */
#include <string.h>
#include "clr-engine-private.h"

/* Shared virtual memory on CPU devices.
 *
 * On a CPU device every OpenCL command costs a hand-off to the driver's
 * worker threads (tens of microseconds on PoCL), and a playback buffer
 * otherwise costs four: write the input, launch, copy the history, read the
 * output. When the device offers fine-grained SVM buffers the window and
 * the output live in memory that host and kernel share: the host writes
 * (and de-interleaves) the input straight into the window, zeros silence
 * with memset and copies the output out after the kernel, so a buffer is one
 * launch and one wait. One window buffer is enough: after a call the
 * history stays where it is and the window starts svm_base frames into
 * each plane; only when the next input would not fit behind it does the
 * history move to the front, on the host (memmove may overlap). The kernels
 * are the same and see the same planes, so the output is bit-identical to
 * the other path's. (The shared memory itself: clr-budget.c.) */

/* n samples, `stride` samples apart, to doubles: integers unscaled (the
 * kernel scales them as it does its own conversions), so the values and
 * every product are those of the device-side conversion. */
static void
to_double (double *dst, const void *src, size_t n, size_t stride,
    ClrFormat format)
{
  size_t i;

  switch (format) {
    case CLR_FORMAT_S16:
      for (i = 0; i < n; i++)
        dst[i] = ((const gint16 *) src)[i * stride];
      break;
    case CLR_FORMAT_S32:
    case CLR_FORMAT_S24_32:
      for (i = 0; i < n; i++)
        dst[i] = ((const gint32 *) src)[i * stride];
      break;
    default:
      for (i = 0; i < n; i++)
        dst[i] = ((const float *) src)[i * stride];
      break;
  }
}

/* ... and back: exact, the doubles came from such samples (or zeros) */
static void
from_double (void *dst, const double *src, size_t n, ClrFormat format)
{
  size_t i;

  switch (format) {
    case CLR_FORMAT_S16:
      for (i = 0; i < n; i++)
        ((gint16 *) dst)[i] = (gint16) src[i];
      break;
    case CLR_FORMAT_S32:
    case CLR_FORMAT_S24_32:
      for (i = 0; i < n; i++)
        ((gint32 *) dst)[i] = (gint32) src[i];
      break;
    default:
      for (i = 0; i < n; i++)
        ((float *) dst)[i] = (float) src[i];
      break;
  }
}

/* Channel c's frame win_start in the window. */
char *
clr_svm_plane (ClrEngine * e, size_t c)
{
  return e->svm_win + (c * e->win_cap + e->svm_base) * e->plan.wsize;
}

/* The window must hold `frames` frames from win_start: it grows as
 * ensure_window() does, and otherwise the history moves to the front when
 * the frames would run past the end of the planes. */
gboolean
clr_svm_ensure_window (ClrEngine * e, size_t frames, GError ** error)
{
  const size_t ss = e->plan.wsize, ch = e->cfg.channels;
  size_t cap, c;
  char *nw;

  if (frames <= e->win_cap) {
    if (e->svm_base + frames > e->win_cap) {
      for (c = 0; c < ch && e->win_len > 0; c++)
        memmove (e->svm_win + c * e->win_cap * ss, clr_svm_plane (e, c),
            e->win_len * ss);
      e->svm_base = 0;
    }
    return TRUE;
  }
  cap = MAX (frames, e->win_cap + e->win_cap / 2);
  if (!(nw = clr_budget_svm_alloc (&e->budget, cap * ch * ss, "input window", error)))
    return FALSE;
  for (c = 0; c < ch && e->svm_win && e->win_len > 0; c++)
    memcpy (nw + c * cap * ss, clr_svm_plane (e, c), e->win_len * ss);
  clr_budget_svm_free (&e->budget, &e->svm_win, e->win_cap * ch * ss);
  e->svm_win = nw;
  e->svm_base = 0;
  e->win_cap = cap;
  e->zeroed = FALSE;
  return TRUE;
}

gboolean
clr_svm_ensure_out (ClrEngine * e, size_t frames, GError ** error)
{
  const size_t fs = (size_t) e->cfg.channels * e->ssize;
  size_t cap;

  if (frames <= e->out_cap)
    return TRUE;
  cap = MAX (frames, e->out_cap + e->out_cap / 2);
  clr_budget_svm_free (&e->budget, &e->svm_out, e->out_cap * fs);
  e->out_cap = 0;
  if (!(e->svm_out = clr_budget_svm_alloc (&e->budget, cap * fs, "output buffer", error)))
    return FALSE;
  e->out_cap = cap;
  return TRUE;
}

/* The whole window to zeros (see zero_buffer()); where it starts is then
 * free to choose. */
gboolean
clr_svm_zero (ClrEngine * e)
{
  if (!e->svm_win)
    return FALSE;
  memset (e->svm_win, 0, e->win_cap * e->cfg.channels * e->plan.wsize);
  e->svm_base = 0;
  return TRUE;
}

/* Zeros n frames of every plane, `from` frames after win_len. */
void
clr_svm_write_zeros (ClrEngine * e, size_t from, size_t n)
{
  size_t c;

  for (c = 0; c < e->cfg.channels; c++)
    memset (clr_svm_plane (e, c) + (e->win_len + from) * e->plan.wsize, 0,
        n * e->plan.wsize);
}

/* Input frames after the window's win_len, split into planes on the way,
 * then e->plan.spare frames of zeros (see write_input()). */
void
clr_svm_write_input (ClrEngine * e, const void *const *in, size_t n_in)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  char *dst[CLR_CHANNELS_MAX];
  size_t c;

  for (c = 0; c < ch; c++)
    dst[c] = clr_svm_plane (e, c) + e->win_len * e->plan.wsize;
  if (e->plan.spare > 0)
    clr_svm_write_zeros (e, n_in, e->plan.spare);
  if (e->plan.wsize != ss) {
    const gboolean planes = e->cfg.planar || ch == 1;
    for (c = 0; c < ch; c++)
      to_double ((double *) dst[c], planes ? in[c] : (const char *) in[0] +
          c * ss, n_in, planes ? 1 : ch, e->cfg.format);
    return;
  }
  if (e->cfg.planar || ch == 1) {
    for (c = 0; c < ch; c++)
      memcpy (dst[c], in[c], n_in * ss);
    return;
  }
  clr_engine_deinterleave (dst, in[0], n_in, ch, ss);
}

/* Where launch() puts the kernel's event: waiting for that one command
 * rather than for a marker behind it saves a second command a buffer,
 * about 20 us on PoCL (measured: 1024 frames at quality 0, 45 -> 25 us). */
cl_event *
clr_svm_event (ClrEngine * e)
{
  if (e->svm_done)
    clReleaseEvent (e->svm_done);
  e->svm_done = NULL;
  return &e->svm_done;
}

/* Waits for the last launch, then copies its output to the caller. */
gboolean
clr_svm_read_output (ClrEngine * e, void *const *out, size_t n_out,
    GError ** error)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  cl_int status = CL_INVALID_EVENT;
  size_t c;

  if (e->svm_done) {
    status = clr_engine_wait_event (e, e->svm_done);
    clReleaseEvent (e->svm_done);
    e->svm_done = NULL;
  }
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Waiting for the resampling kernel");
    return FALSE;
  }
  if (!e->cfg.planar)
    memcpy (out[0], e->svm_out, n_out * ch * ss);
  for (c = 0; e->cfg.planar && c < ch; c++)
    memcpy (out[c], e->svm_out + c * e->out_cap * ss, n_out * ss);
  return TRUE;
}

/* The window's len frames of every channel to host planes of len frames,
 * and back (clr_engine_continue_from()). */
void
clr_svm_get_history (ClrEngine * e, char *host, size_t len)
{
  size_t c, ss = e->ssize;

  for (c = 0; c < e->cfg.channels; c++) {
    if (e->plan.wsize != ss)
      from_double (host + c * len * ss, (const double *) clr_svm_plane (e, c),
          len, e->cfg.format);
    else
      memcpy (host + c * len * ss, clr_svm_plane (e, c), len * ss);
  }
}

void
clr_svm_put_history (ClrEngine * e, const char *host, size_t pad, size_t len)
{
  size_t c, ss = e->ssize;

  for (c = 0; c < e->cfg.channels; c++) {
    if (e->plan.wsize != ss)
      to_double ((double *) clr_svm_plane (e, c) + pad, host + c * len * ss,
          len, 1, e->cfg.format);
    else
      memcpy (clr_svm_plane (e, c) + pad * ss, host + c * len * ss, len * ss);
  }
}
