/* clresample: the streaming resampler engine. See clr-engine.h.
 *
 * Window bookkeeping, all in absolute input frame indices (frame 0 is the
 * first frame after a reset):
 *   win_start  index of the first frame held in the active device window
 *   win_len    frames held; the window covers [win_start, in_total)
 * Output frame m reads frames n(m) - K/2 + 1 .. n(m) + K/2. After each call
 * the window keeps exactly what the next output still needs (at most K - 1
 * frames), copied to the front of the other buffer of a ping-pong pair; a
 * single device buffer could not do it, as clEnqueueCopyBuffer forbids
 * overlapping copies within one buffer.
 *
 * CPU devices with fine-grained shared virtual memory take another path
 * (the svm_* functions): see the comment at the top of clr-engine-svm.c.
 */
#include <string.h>
#include "clr-engine-private.h"
#include "clr-conv.h"
#include "clr-hostmem.h"
#include "clr-kernel-sources.h"
#include "clr-log.h"

#define CLR_WINDOW_SLACK 4096
/* Buffers are processed in chunks whose input and output each stay under
 * this many bytes on the device, so memory is bounded whatever the buffer
 * size; ordinary buffers (a second of 8-channel audio) are one chunk. */
#define CLR_CHUNK_BYTES (32u * 1024u * 1024u)

static void host_buf_free (ClrEngine * e, ClrHostBuf * hb);

size_t
clr_format_size (ClrFormat format)
{
  switch (format) {
    case CLR_FORMAT_S16:
      return 2;
    case CLR_FORMAT_F64:
      return 8;
    default:
      return 4;
  }
}

gboolean
clr_engine_config_validate (const ClrEngineConfig * cfg, GError ** error)
{
  if (cfg->in_rate == 0 || cfg->out_rate == 0 || cfg->in_rate > CLR_RATE_MAX
      || cfg->out_rate > CLR_RATE_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Sample rates must be between 1 and %u Hz (got %u -> %u Hz)",
        CLR_RATE_MAX, cfg->in_rate, cfg->out_rate);
    return FALSE;
  }
  if ((uint64_t) cfg->in_rate > (uint64_t) cfg->out_rate * CLR_RATIO_MAX
      || (uint64_t) cfg->out_rate > (uint64_t) cfg->in_rate * CLR_RATIO_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Cannot convert %u Hz to %u Hz: the ratio may be at most %u either "
        "way; resample in two steps", cfg->in_rate, cfg->out_rate,
        CLR_RATIO_MAX);
    return FALSE;
  }
  if (cfg->format > CLR_FORMAT_S24_32) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID, "Unknown sample format");
    return FALSE;
  }
  if (cfg->channels == 0 || cfg->channels > CLR_CHANNELS_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Channel count must be between 1 and %u (got %u)", CLR_CHANNELS_MAX,
        cfg->channels);
    return FALSE;
  }
  return TRUE;
}

/* Device memory is counted against the budget (clr-budget.h). */
gboolean
clr_engine_check_alloc (ClrEngine * e, size_t bytes, const char *what, GError ** error)
{
  return clr_budget_check (&e->budget, bytes, what, error);
}

static cl_mem
alloc_buffer (ClrEngine * e, cl_mem_flags flags, size_t bytes, void *host,
    const char *what, GError ** error)
{
  return clr_budget_alloc (&e->budget, flags, bytes, host, what, error);
}

static void
free_buffer (ClrEngine * e, cl_mem * mem)
{
  clr_budget_free (&e->budget, mem);
}


static gboolean
upload_bank (ClrEngine * e, GError ** error)
{
  const ClrKernelPlan *p = &e->plan;
  gboolean dbl = p->coef_double;
  /* the several-frame kernels' tables: `lead` zeros before each phase's
   * taps, span + lead values in all */
  const size_t len = p->shifted ? (p->span + p->lead + 6) / 4 * 4 :
      p->span ? p->span + p->lead : e->bank.taps;
  /* _iv's four copies, copy s shifted by s values (see the kernel) */
  const uint32_t copies = p->shifted ? 4 : 1;
  const size_t table = (size_t) copies * e->bank.rows * len;
  /* _iv also keeps each float coefficient's rounding residual, a table
   * further on, for the taps it sums in double */
  size_t n = p->iv_dw ? 2 * table : table;
  size_t csize = dbl ? sizeof (double) : sizeof (float);
  char *host = g_try_malloc0 (n * csize);
  double *row = g_new (double, e->bank.taps);
  uint32_t r, k, c;

  if (!host) {
    g_free (row);
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for %" G_GSIZE_FORMAT " filter coefficients", n);
    return FALSE;
  }
  for (r = 0; r < e->bank.rows; r++) {
    clr_bank_row (&e->bank, &e->filter, &e->ratio, r, row);
    for (c = 0; c < copies; c++)
      for (k = 0; k < e->bank.taps; k++) {
        size_t i = p->transposed ? (size_t) (k + p->lead) * e->bank.rows + r :
            ((size_t) c * e->bank.rows + r) * len + p->lead + c + k;
        if (dbl) {
          ((double *) host)[i] = row[k];
        } else {
          ((float *) host)[i] = (float) row[k];
          if (p->iv_dw)
            ((float *) host)[table + i] = (float) (row[k] - (float) row[k]);
        }
      }
  }
  e->coef = alloc_buffer (e, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      n * csize, host, "filter coefficient table", error);
  g_free (row);
  g_free (host);
  return e->coef != NULL;
}

/* Zeros a whole window buffer: cheaper to reason about than zeroing frame
 * ranges of every plane, and only needed at resets and on entering
 * silence. */
static gboolean
zero_buffer (ClrEngine * e, cl_mem mem, GError ** error)
{
  const cl_uchar zero = 0;
  cl_int status;

  if (e->plan.svm)
    return clr_svm_zero (e);
  status = clEnqueueFillBuffer (e->queue, mem, &zero, 1, 0,
      e->win_cap * e->cfg.channels * e->ssize, 0, NULL, NULL);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clEnqueueFillBuffer");
    return FALSE;
  }
  return TRUE;
}

/* Copies `frames` frames starting at frame `from` of src (whose planes are
 * src_cap frames long) to frame 0 of dst (planes of dst_cap frames). */
static cl_int
copy_frames (ClrEngine * e, cl_mem src, size_t src_cap, size_t from,
    cl_mem dst, size_t dst_cap, size_t frames)
{
  size_t ss = e->ssize, ch = e->cfg.channels;
  size_t src_origin[3] = { from * ss, 0, 0 };
  size_t dst_origin[3] = { 0, 0, 0 };
  size_t region[3] = { frames * ss, ch, 1 };

  if (e->plan.iv)
    return clEnqueueCopyBuffer (e->queue, src, dst, from * ch * ss, 0,
        frames * ch * ss, 0, NULL, NULL);
  return clEnqueueCopyBufferRect (e->queue, src, dst, src_origin,
      dst_origin, region, src_cap * ss, 0, dst_cap * ss, 0, 0, NULL, NULL);
}

/* Makes both window buffers hold at least `frames` frames, keeping the
 * active window's contents. */
static gboolean
ensure_window (ClrEngine * e, size_t frames, GError ** error)
{
  size_t fs = (size_t) e->cfg.channels * e->ssize;
  size_t cap;
  cl_mem nw[2] = { NULL, NULL };
  cl_int status;
  int i;

  if (e->plan.svm)
    return clr_svm_ensure_window (e, frames, error);
  if (frames <= e->win_cap)
    return TRUE;
  cap = MAX (frames, e->win_cap + e->win_cap / 2);
  for (i = 0; i < 2; i++) {
    nw[i] = alloc_buffer (e, CL_MEM_READ_WRITE, cap * fs, NULL,
        "input window", error);
    if (!nw[i])
      goto failed;
  }
  if (e->win[e->active] && e->win_len > 0) {
    status = copy_frames (e, e->win[e->active], e->win_cap, 0, nw[0], cap,
        e->win_len);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, "Copying the input window");
      goto failed;
    }
  }
  for (i = 0; i < 2; i++) {
    free_buffer (e, &e->win[i]);
    e->win[i] = nw[i];
  }
  e->active = 0;
  e->win_cap = cap;
  e->zeroed = FALSE;
  return TRUE;

failed:
  for (i = 0; i < 2; i++)
    free_buffer (e, &nw[i]);
  return FALSE;
}

static gboolean
ensure_out (ClrEngine * e, size_t frames, GError ** error)
{
  size_t fs = (size_t) e->cfg.channels * e->ssize;
  size_t cap;

  if (e->plan.svm)
    return clr_svm_ensure_out (e, frames, error);
  if (frames <= e->out_cap)
    return TRUE;
  cap = MAX (frames, e->out_cap + e->out_cap / 2);
  free_buffer (e, &e->out);
  e->out_cap = 0;
  e->out = alloc_buffer (e, CL_MEM_WRITE_ONLY, cap * fs, NULL,
      "output buffer", error);
  if (!e->out)
    return FALSE;
  e->out_cap = cap;
  return TRUE;
}

static const char *
format_option (ClrFormat f)
{
  switch (f) {
    case CLR_FORMAT_F64:
      return "-DCLR_FMT_F64";
    case CLR_FORMAT_S16:
      return "-DCLR_FMT_S16";
    case CLR_FORMAT_S32:
      return "-DCLR_FMT_S32";
    case CLR_FORMAT_S24_32:
      return "-DCLR_FMT_S24_32";
    default:
      return "-DCLR_FMT_F32";
  }
}

ClrEngine *
clr_engine_new (ClrDevice * dev, const ClrEngineConfig * cfg, GError ** error)
{
  return clr_engine_new_tuned (dev, cfg, clr_tuning_get (), error);
}

ClrEngine *
clr_engine_new_tuned (ClrDevice * dev, const ClrEngineConfig * cfg,
    const ClrTuning * tuning, GError ** error)
{
  ClrEngine *e;
  ClrKernelFacts facts = { 0, };
  cl_program program;
  cl_int status;
  char *options;

  if (!clr_engine_config_validate (cfg, error))
    return NULL;

  e = g_new0 (ClrEngine, 1);
  e->dev = clr_device_ref (dev);
  e->cfg = *cfg;
  e->queue = clr_device_get_queue (dev);
  e->ssize = clr_format_size (cfg->format);
  clr_history_init (&e->hist, cfg->channels, e->ssize);
  /* a budget for shared GPUs, and for testing the out-of-memory path */
  clr_budget_init (&e->budget, dev, tuning->device_memory);
  if (cfg->format == CLR_FORMAT_F64 && !clr_device_has_fp64 (dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "'%s' has no double precision (cl_khr_fp64) for F64 audio",
        clr_device_get_name (dev));
    goto failed;
  }
  clr_ratio_init (&e->ratio, cfg->in_rate, cfg->out_rate);
  clr_filter_design (&e->filter, &e->ratio, cfg->quality, cfg->taps);

  /* the kernel and everything about how it runs (clr-kernel-plan.c) */
  facts.is_gpu = clr_device_is_gpu (dev);
  facts.has_fp64 = clr_device_has_fp64 (dev);
  facts.svm_capable = clr_budget_svm_supported (dev);
  facts.format = cfg->format;
  facts.channels = cfg->channels;
  facts.I = e->ratio.I;
  facts.D = e->ratio.D;
  facts.taps = e->filter.taps;
  facts.fft_block_max = clr_conv_max_block (dev);
  clr_kernel_plan_choose (&facts, tuning, &e->plan);
  e->lag = e->filter.taps / 2;

  clr_bank_layout (&e->bank, &e->filter, &e->ratio, e->plan.coef_double ?
      sizeof (double) : sizeof (float));
  {
    uint64_t frame = (uint64_t) cfg->channels * e->ssize;
    uint64_t by_in = CLR_CHUNK_BYTES / frame;
    uint64_t by_out = by_in * e->ratio.D / e->ratio.I;
    e->chunk_in = (size_t) MAX (64, MIN (by_in, by_out));
  }
  clr_log (CLR_LOG_INFO, "%u -> %u Hz (I/D = %" G_GUINT64_FORMAT "/%"
      G_GUINT64_FORMAT "), %u channels, quality %d: %u taps per phase, "
      "%s bank of %u rows", cfg->in_rate, cfg->out_rate, e->ratio.I,
      e->ratio.D, cfg->channels, e->filter.quality, e->filter.taps,
      e->bank.interpolated ? "interpolated" : "polyphase", e->bank.rows);
  if (e->plan.fft_block) {
    /* no kernel, window or bank of its own: the convolution engine's */
    if (!clr_fft_new (e, e->plan.fft_block, tuning, error))
      goto failed;
    e->lag = clr_fft_lag (e);
    clr_engine_reset (e);
    return e;
  }
  if (e->plan.svm)
    clr_log (CLR_LOG_INFO, "window and output in shared virtual memory: one "
        "kernel launch a buffer%s", e->plan.wsize != e->ssize ?
        ", samples as doubles" : "");

  /* CLRESAMPLE_BUILD_OPTIONS go last, and key the device's program cache
   * like the rest */
  options = g_strdup_printf ("%s%s%s%s%s -DCLR_CPI=%u -DCLR_FPI=%u "
      "-DCLR_IV_DW=%u%s%s", format_option (cfg->format),
      facts.has_fp64 ? " -DCLR_HAVE_FP64" : "",
      e->plan.coef_double ? " -DCLR_COEF_DOUBLE" : "",
      e->plan.wsize != e->ssize ? " -DCLR_WIN_DOUBLE" : "",
      e->plan.shifted ? " -DCLR_IV_SHIFTED" : "", e->plan.cpi, e->plan.fpi,
      e->plan.iv_dw, tuning->build_options ? " " : "",
      tuning->build_options ? tuning->build_options : "");
  program = clr_device_get_program (dev, clr_kernel_source_resample, options,
      error);
  g_free (options);
  if (!program)
    goto failed;
  clr_log (CLR_LOG_INFO, "%s on '%s': %u channels and %u output frames a "
      "work-item", e->plan.kernel, clr_device_get_name (dev),
      e->plan.iv ? 4 : e->plan.cpi, e->plan.fpi);
  e->kernel = clCreateKernel (program, e->plan.kernel, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateKernel");
    goto failed;
  }
  if (!upload_bank (e, error))
    goto failed;
  if (!ensure_window (e, e->filter.taps + CLR_WINDOW_SLACK, error))
    goto failed;
  clr_engine_reset (e);
  return e;

failed:
  clr_engine_free (e);
  return NULL;
}

void
clr_engine_free (ClrEngine * e)
{
  int i;

  if (!e)
    return;
  if (e->queue)
    clFinish (e->queue);
  for (i = 0; i < 2; i++)
    free_buffer (e, &e->win[i]);
  free_buffer (e, &e->out);
  if (e->svm_done)
    clReleaseEvent (e->svm_done);
  clr_budget_svm_free (&e->budget, &e->svm_win, e->win_cap * e->cfg.channels * e->plan.wsize);
  clr_budget_svm_free (&e->budget, &e->svm_out, e->out_cap * e->cfg.channels * e->ssize);
  free_buffer (e, &e->coef);
  if (e->kernel)
    clReleaseKernel (e->kernel);
  host_buf_free (e, &e->in_stage);
  host_buf_free (e, &e->out_stage);
  clr_fft_free (e);
  clr_history_clear (&e->hist);
  clr_device_unref (e->dev);
  g_free (e);
}

const ClrFilter *
clr_engine_get_filter (ClrEngine * e)
{
  return &e->filter;
}

gboolean
clr_engine_get_pinned (ClrEngine * e)
{
  return e->plan.pinned && !e->fft;
}

const ClrRatio *
clr_engine_get_ratio (ClrEngine * e)
{
  return &e->ratio;
}

const ClrBankLayout *
clr_engine_get_bank (ClrEngine * e)
{
  return &e->bank;
}

uint32_t
clr_engine_get_latency (ClrEngine * e)
{
  return e->lag;
}

uint64_t
clr_engine_get_in_total (ClrEngine * e)
{
  return (uint64_t) e->in_total;
}

uint64_t
clr_engine_get_out_total (ClrEngine * e)
{
  return e->out_total;
}

gboolean
clr_engine_is_silent (ClrEngine * e)
{
  if (e->fft)
    return clr_fft_is_silent (e);
  return e->silent_tail >= e->win_len;
}

void
clr_engine_reset (ClrEngine * e)
{
  uint32_t half = e->filter.taps / 2;

  /* The stream is preceded by zeros: output 0 then sits exactly on input 0
   * and the filter delay never shows in the timestamps. */
  e->in_total = 0;
  e->out_total = 0;
  e->drained = FALSE;
  if (e->fft) {
    clr_fft_reset (e);
    return;
  }
  e->win_start = -(int64_t) (half - 1 + e->plan.back);
  e->win_len = half - 1 + e->plan.back;
  e->silent_tail = e->win_len;
  e->drained = FALSE;
  e->zeroed = zero_buffer (e, e->win[e->active], NULL);
  clr_history_reset (&e->hist, 0);
}

size_t
clr_engine_out_frames (ClrEngine * e, size_t in_frames)
{
  int64_t last = e->in_total + (int64_t) in_frames - 1 - e->lag;
  uint64_t upto = clr_ratio_out_upto (&e->ratio, last);

  if (e->drained)
    return 0;
  return upto > e->out_total ? (size_t) (upto - e->out_total) : 0;
}

size_t
clr_engine_drain_frames (ClrEngine * e)
{
  if (e->drained)
    return 0;
  return (size_t) (clr_ratio_out_total (&e->ratio, e->in_total) -
      e->out_total);
}

/* Writes `n` frames into every plane of the window, `from` frames after
 * win_len, from host planes `src` of `pitch` bytes; one command for all
 * channels. (Into an interleaved window: from n interleaved frames.) */
static cl_int
write_planes (ClrEngine * e, cl_mem cur, size_t from, const void *src,
    size_t n, size_t pitch)
{
  size_t ss = e->ssize;
  size_t dev_origin[3] = { (e->win_len + from) * ss, 0, 0 };
  size_t host_origin[3] = { 0, 0, 0 };
  size_t region[3] = { n * ss, e->cfg.channels, 1 };

  /* an interleaved window takes interleaved frames, pitch aside */
  if (e->plan.iv)
    return clEnqueueWriteBuffer (e->queue, cur, CL_FALSE, (e->win_len +
            from) * e->cfg.channels * ss, n * e->cfg.channels * ss, src, 0,
        NULL, NULL);
  return clEnqueueWriteBufferRect (e->queue, cur, CL_FALSE, dev_origin,
      host_origin, region, e->win_cap * ss, 0, pitch, 0, src, 0, NULL, NULL);
}

static void
host_buf_free (ClrEngine * e, ClrHostBuf * hb)
{
  if (hb->pinned)
    clr_host_free (hb->ptr);
  else
    g_free (hb->ptr);
  memset (hb, 0, sizeof (*hb));
}

/* Host staging of at least `bytes`, reused from call to call (every call
 * ends synchronised, so no transfer from it is still running). */
static char *
host_buf_get (ClrEngine * e, ClrHostBuf * hb, size_t bytes)
{
  if (bytes <= hb->size)
    return hb->ptr;
  host_buf_free (e, hb);
  bytes = MAX (bytes, 65536);
  if (e->plan.pinned) {
    if (!(hb->ptr = clr_host_alloc (e->dev, bytes, NULL)))
      return NULL;
    hb->pinned = TRUE;
  } else if (!(hb->ptr = g_try_malloc (bytes))) {
    return NULL;
  }
  hb->size = bytes;
  return hb->ptr;
}

/* The window on the device is always planar (each channel's taps
 * contiguous, for vector dot products), so interleaved input is split into
 * planes on the host, at O(samples) cost against the filter's
 * O(samples x taps). */
static char *
staging (ClrEngine * e, size_t bytes)
{
  return host_buf_get (e, &e->in_stage, bytes);
}

/* Zeros n frames of every plane, `from` frames after win_len: silence
 * that follows sound, which the filter must still see. */
static gboolean
write_zeros (ClrEngine * e, cl_mem cur, size_t from, size_t n,
    GError ** error)
{
  char *st;
  cl_int status;

  if (e->plan.svm) {
    clr_svm_write_zeros (e, from, n);
    return TRUE;
  }
  st = staging (e, n * e->cfg.channels * e->ssize);
  if (!st) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the input staging buffer");
    return FALSE;
  }
  memset (st, 0, n * e->cfg.channels * e->ssize);
  status = write_planes (e, cur, from, st, n, n * e->ssize);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Writing silence to the device");
    return FALSE;
  }
  return TRUE;
}

/* n frames of ch interleaved samples of ss bytes into ch planes. */
void
clr_engine_deinterleave (char *const *planes, const void *src, size_t n,
    size_t ch, size_t ss)
{
  size_t c, i;

  switch (ss) {
    case 2:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint16 *) planes[c])[i] = ((const guint16 *) src)[i * ch + c];
      break;
    case 4:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint32 *) planes[c])[i] = ((const guint32 *) src)[i * ch + c];
      break;
    default:
      for (i = 0; i < n; i++)
        for (c = 0; c < ch; c++)
          ((guint64 *) planes[c])[i] = ((const guint64 *) src)[i * ch + c];
      break;
  }
}

/* ... and back: frames from n planes of n frames each. */
static void
interleave (char *dst, const void *const *planes, size_t n, size_t ch,
    size_t ss)
{
  size_t c, i;

  for (c = 0; c < ch; c++) {
    const char *src = planes[c];
    for (i = 0; i < n; i++)
      memcpy (dst + (i * ch + c) * ss, src + i * ss, ss);
  }
}

/* Writes n_in frames of input after the window's contents, followed by
 * e->plan.spare frames of zeros (see clr_resample_table_tcf). */
static gboolean
write_input (ClrEngine * e, cl_mem cur, const void *const *in, size_t n_in,
    GError ** error)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  /* staged planes are n_in + spare frames apart, the zeros at their ends */
  const size_t n = n_in + e->plan.spare;
  size_t c;
  cl_int status = CL_SUCCESS;
  char *st = NULL;
  /* one channel interleaved is one plane too */
  const gboolean planes = e->cfg.planar || ch == 1;

  if (e->plan.svm) {
    clr_svm_write_input (e, in, n_in);
    return TRUE;
  }
  if (e->plan.iv) {
    /* the window is interleaved: frames as they come, planes woven */
    if (!(st = staging (e, n * ch * ss)))
      goto no_memory;
    if (planes)
      interleave (st, in, n_in, ch, ss);
    else
      memcpy (st, in[0], n_in * ch * ss);
    memset (st + n_in * ch * ss, 0, e->plan.spare * ch * ss);
    status = write_planes (e, cur, 0, st, n, 0);
  } else if (planes && e->plan.pinned) {
    if (!(st = staging (e, n * ch * ss)))
      goto no_memory;
    for (c = 0; c < ch; c++)
      memcpy (st + c * n * ss, in[c], n_in * ss);
  } else if (planes) {
    /* the planes may lie anywhere in the caller's memory */
    for (c = 0; c < ch && status == CL_SUCCESS; c++)
      status = clEnqueueWriteBuffer (e->queue, cur, CL_FALSE,
          (c * e->win_cap + e->win_len) * ss, n_in * ss, in[c], 0, NULL,
          NULL);
    if (status == CL_SUCCESS && e->plan.spare > 0)
      return write_zeros (e, cur, n_in, e->plan.spare, error);
  } else {
    char *planes_at[CLR_CHANNELS_MAX];

    if (!(st = staging (e, n * ch * ss)))
      goto no_memory;
    for (c = 0; c < ch; c++)
      planes_at[c] = st + c * n * ss;
    clr_engine_deinterleave (planes_at, in[0], n_in, ch, ss);
  }
  if (status == CL_SUCCESS && !e->plan.iv && (!planes || e->plan.pinned)) {
    for (c = 0; c < ch && e->plan.spare > 0; c++)
      memset (st + (c * n + n_in) * ss, 0, e->plan.spare * ss);
    status = write_planes (e, cur, 0, st, n, n * ss);
  }
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Writing the input to the device");
    return FALSE;
  }
  return TRUE;

no_memory:
  g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
      "Out of host memory for the input staging buffer");
  return FALSE;
}

static gboolean
launch (ClrEngine * e, cl_mem cur, size_t n_out, GError ** error)
{
  const int64_t half = e->filter.taps / 2;
  int64_t n0;
  uint64_t p0;
  cl_ulong first_tap, phase0, I = e->ratio.I, D = e->ratio.D;
  cl_uint channels = e->cfg.channels;
  cl_uint taps = e->plan.span ? e->plan.span : e->filter.taps;
  cl_uint lead = e->plan.lead;
  cl_uint align;
  cl_uint count = (cl_uint) n_out;
  cl_ulong grid = e->bank.grid;
  cl_ulong wc = e->win_cap;
  cl_ulong of = e->cfg.planar ? 1 : channels, oc = e->cfg.planar ?
      e->out_cap : 1;
  /* work-groups along the output frames: the driver's choice unless
   * CLRESAMPLE_LOCAL_SIZE asks (a tuning knob; the kernel checks bounds) */
  size_t wg = e->plan.local_size ? e->plan.local_size : 1;
  size_t items = (n_out + e->plan.fpi - 1) / e->plan.fpi;
  size_t global[2] = { (items + wg - 1) / wg * wg,
    (channels + e->plan.cpi - 1) / e->plan.cpi };
  size_t local[2] = { wg, 1 };
  cl_int status;
  int a = 0;

  clr_ratio_position (&e->ratio, e->out_total, &n0, &p0);
  first_tap = (cl_ulong) (n0 - half + 1 - e->win_start);
  phase0 = p0;
  /* the stream index of the first tap, mod 4 */
  align = (cl_uint) (((n0 - half + 1) % 4 + 4) % 4);
  if (e->plan.svm) {
    status = clSetKernelArgSVMPointer (e->kernel, a++, clr_svm_plane (e, 0));
    status |= clSetKernelArgSVMPointer (e->kernel, a++, e->svm_out);
  } else {
    status = clSetKernelArg (e->kernel, a++, sizeof (cl_mem), &cur);
    status |= clSetKernelArg (e->kernel, a++, sizeof (cl_mem), &e->out);
  }
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_mem), &e->coef);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_uint), &channels);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_uint), &taps);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &I);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &D);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &first_tap);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &phase0);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_uint), &count);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &wc);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &of);
  status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &oc);
  if (e->bank.interpolated)
    status |= clSetKernelArg (e->kernel, a++, sizeof (cl_ulong), &grid);
  if (e->plan.span) {
    status |= clSetKernelArg (e->kernel, a++, sizeof (cl_uint), &lead);
    status |= clSetKernelArg (e->kernel, a++, sizeof (cl_uint), &align);
  }
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clSetKernelArg");
    return FALSE;
  }
  if (e->plan.iv) {
    /* channel groups along dimension 0, then frames: wg work-items */
    size_t groups = channels / 4, lx = MIN (groups, wg);
    local[0] = lx;
    local[1] = MAX (wg / lx, 1);
    global[0] = (groups + lx - 1) / lx * lx;
    global[1] = (items + local[1] - 1) / local[1] * local[1];
  }
  status = clEnqueueNDRangeKernel (e->queue, e->kernel, 2, NULL, global,
      e->plan.local_size ? local : NULL, 0, NULL,
      e->plan.svm ? clr_svm_event (e) : NULL);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Launching the resampling kernel");
    return FALSE;
  }
  return TRUE;
}

/* Waits until `ev` has run (sync_queue(): everything enqueued so far, by a
 * marker behind it). It polls for a short while before blocking: a
 * blocked host thread is woken up tens of
 * microseconds late (measured on PoCL: a 1024-frame buffer's fixed cost
 * went from ~100 to ~60 us), and a playback buffer's work is shorter than
 * that; longer work is waited for the ordinary way. */
#define CLR_POLL_US 300

cl_int
clr_engine_wait_event (ClrEngine * e, cl_event ev)
{
  cl_int status, st = CL_QUEUED;
  gint64 deadline;

  status = clFlush (e->queue);
  deadline = g_get_monotonic_time () + CLR_POLL_US;
  while (status == CL_SUCCESS) {
    status = clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (st), &st, NULL);
    if (status != CL_SUCCESS || st <= CL_COMPLETE
        || g_get_monotonic_time () > deadline)
      break;
    g_thread_yield ();
  }
  if (status == CL_SUCCESS && st > CL_COMPLETE)
    status = clWaitForEvents (1, &ev);
  else if (status == CL_SUCCESS && st < 0)
    status = st;
  return status;
}

static cl_int
sync_queue (ClrEngine * e)
{
  cl_event ev;
  cl_int status;

  status = clEnqueueMarkerWithWaitList (e->queue, 0, NULL, &ev);
  if (status != CL_SUCCESS)
    return clFinish (e->queue);
  status = clr_engine_wait_event (e, ev);
  clReleaseEvent (ev);
  return status;
}

/* TRUE if the caller's output is one block of page-locked memory (an
 * element's output buffers, clr-hostmem.h), planes back to back: the
 * transfer can land there directly. */
static gboolean
out_is_pinned (ClrEngine * e, void *const *out, size_t n_out)
{
  size_t plane = n_out * e->ssize, c;

  if (!e->plan.pinned)
    return FALSE;
  for (c = 1; e->cfg.planar && c < e->cfg.channels; c++)
    if ((char *) out[c] != (char *) out[0] + c * plane)
      return FALSE;
  return clr_host_is_pinned (e->dev, out[0], plane * e->cfg.channels);
}

static gboolean
read_output (ClrEngine * e, void *const *out, size_t n_out, GError ** error)
{
  size_t ss = e->ssize, ch = e->cfg.channels, c;
  size_t origin[3] = { 0, 0, 0 }, region[3] = { n_out * ss, ch, 1 };
  gboolean direct = out_is_pinned (e, out, n_out);
  cl_int status = CL_SUCCESS;
  char *st = NULL;

  if (e->plan.svm)
    return clr_svm_read_output (e, out, n_out, error);
  if (!e->cfg.planar && (direct || !e->plan.pinned)) {
    status = clEnqueueReadBuffer (e->queue, e->out, CL_FALSE, 0,
        n_out * ch * ss, out[0], 0, NULL, NULL);
  } else if (direct) {
    status = clEnqueueReadBufferRect (e->queue, e->out, CL_FALSE, origin,
        origin, region, e->out_cap * ss, 0, n_out * ss, 0, out[0], 0, NULL,
        NULL);
  } else if (e->plan.pinned) {
    /* one transfer into page-locked memory, then plain copies */
    if (!(st = host_buf_get (e, &e->out_stage, e->out_cap * ch * ss))) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for the output staging buffer");
      return FALSE;
    }
    if (!e->cfg.planar)
      status = clEnqueueReadBuffer (e->queue, e->out, CL_FALSE, 0,
          n_out * ch * ss, st, 0, NULL, NULL);
    else
      status = clEnqueueReadBufferRect (e->queue, e->out, CL_FALSE, origin,
          origin, region, e->out_cap * ss, 0, n_out * ss, 0, st, 0, NULL,
          NULL);
  } else {
    for (c = 0; c < ch && status == CL_SUCCESS; c++)
      status = clEnqueueReadBuffer (e->queue, e->out, CL_FALSE,
          c * e->out_cap * ss, n_out * ss, out[c], 0, NULL, NULL);
  }
  if (status == CL_SUCCESS)
    status = sync_queue (e);
  if (status == CL_SUCCESS && st && !e->cfg.planar)
    memcpy (out[0], st, n_out * ch * ss);
  for (c = 0; status == CL_SUCCESS && st && e->cfg.planar && c < ch; c++)
    memcpy (out[c], st + c * n_out * ss, n_out * ss);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Reading the output back");
    return FALSE;
  }
  return TRUE;
}

static gboolean
push (ClrEngine * e, const void *const *in, size_t n_in, size_t max_out,
    void *const *out, size_t * out_frames, GError ** error)
{
  const int64_t half = e->filter.taps / 2;
  const size_t ss = e->ssize, ch = e->cfg.channels;
  size_t n_out = MIN (clr_engine_out_frames (e, n_in), max_out);
  gboolean silent = in == NULL && clr_engine_is_silent (e);
  int64_t n1, in_end = e->in_total + (int64_t) n_in, j1;
  uint64_t p1;
  size_t keep, skip, c;
  cl_mem cur;
  cl_int status;

  *out_frames = 0;
  if (!ensure_window (e, e->win_len + n_in + e->plan.spare, error))
    return FALSE;
  cur = e->win[e->active];
  /* the history a successor may need, on the host: the device window keeps
   * only what this filter reads */
  if (e->cfg.history > 0 && !clr_history_push (&e->hist, e->cfg.history, in,
          e->cfg.planar, n_in, error))
    return FALSE;

  if (n_in > 0 && in) {
    if (!write_input (e, cur, in, n_in, error))
      return FALSE;
    e->zeroed = FALSE;
  } else if (n_in > 0 && silent) {
    /* the window is all silence: keep the whole buffer zero, then no
     * further silent input needs device work */
    if (!e->zeroed && !zero_buffer (e, cur, error))
      return FALSE;
    e->zeroed = TRUE;
  } else if (n_in > 0) {
    if (!write_zeros (e, cur, 0, n_in + e->plan.spare, error))
      return FALSE;
  }

  if (n_out > 0 && silent) {
    if (!e->cfg.planar)
      memset (out[0], 0, n_out * ch * ss);
    for (c = 0; e->cfg.planar && c < ch; c++)
      memset (out[c], 0, n_out * ss);
  } else if (n_out > 0) {
    if (!ensure_out (e, n_out, error) || !launch (e, cur, n_out, error))
      return FALSE;
  }

  /* Keep what the next output needs: frames from j1 = n(m1) - K/2 + 1,
   * and `back` more. */
  clr_ratio_position (&e->ratio, e->out_total + n_out, &n1, &p1);
  j1 = n1 - half + 1 - (int64_t) e->plan.back;
  g_assert (j1 >= e->win_start && j1 <= in_end);
  skip = (size_t) (j1 - e->win_start);
  keep = (size_t) (in_end - j1);
  if (e->plan.svm) {
    /* the history stays put: the window now starts `skip` frames on */
    e->svm_base += skip;
  } else if (!silent && skip > 0 && keep > 0) {
    int other = !e->active;
    status = copy_frames (e, cur, e->win_cap, skip, e->win[other],
        e->win_cap, keep);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, "Copying the filter history");
      return FALSE;
    }
    e->active = other;
    e->zeroed = FALSE;
  }

  if (n_out > 0 && !silent) {
    if (!read_output (e, out, n_out, error))
      return FALSE;
  } else if (in && n_in > 0 && !e->plan.svm) {
    /* the non-blocking write still reads the caller's memory */
    status = sync_queue (e);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, "Waiting for the device");
      return FALSE;
    }
  }

  e->in_total = in_end;
  e->out_total += n_out;
  e->win_start = j1;
  e->win_len = keep;
  if (in)
    e->silent_tail = 0;
  else if (silent)
    e->silent_tail = keep;
  else
    e->silent_tail = MIN (e->silent_tail + n_in, (uint64_t) keep);
  *out_frames = n_out;
  return TRUE;
}

/* Buffers past the chunk size go through push() in chunks. */
gboolean
clr_engine_process (ClrEngine * e, const void *const *in, size_t in_frames,
    void *const *out, size_t * out_frames, GError ** error)
{
  const size_t ch = e->cfg.channels, n_planes = e->cfg.planar ? ch : 1;
  const size_t step = e->cfg.planar ? e->ssize : ch * e->ssize;
  const void *ip[CLR_CHANNELS_MAX];
  void *op[CLR_CHANNELS_MAX];
  size_t c, len, n;

  if (e->drained) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The resampler was drained; reset it before new input");
    return FALSE;
  }
  for (c = 0; c < n_planes; c++) {
    ip[c] = in ? in[c] : NULL;
    op[c] = out[c];
  }
  *out_frames = 0;
  do {
    len = MIN (in_frames, e->chunk_in);
    if (!(e->fft ? clr_fft_push : push) (e, in ? ip : NULL, len, G_MAXSIZE,
            op, &n, error))
      return FALSE;
    for (c = 0; c < n_planes; c++) {
      ip[c] = in ? (const char *) ip[c] + len * step : NULL;
      op[c] = (char *) op[c] + n * step;
    }
    *out_frames += n;
    in_frames -= len;
  } while (in_frames > 0);
  return TRUE;
}

gboolean
clr_engine_bench_kernel (ClrEngine * e, const void *const *in,
    size_t in_frames, unsigned iterations, void *const *out,
    size_t * out_frames, double *seconds_per_launch, GError ** error)
{
  size_t n_out;
  unsigned i;
  gint64 t0;
  cl_mem cur;
  cl_int status;
  gboolean ok = FALSE;

  *out_frames = 0;
  if (e->fft) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The FFT path has no kernel of its own to time: bench the stream");
    return FALSE;
  }
  clr_engine_reset (e);
  n_out = clr_engine_out_frames (e, in_frames);
  if (n_out == 0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GSIZE_FORMAT " input frames complete no output", in_frames);
    return FALSE;
  }
  if (!ensure_window (e, e->win_len + in_frames + e->plan.spare, error)
      || !ensure_out (e, n_out, error))
    goto out;
  cur = e->win[e->active];
  if (!write_input (e, cur, in, in_frames, error))
    goto out;
  /* one warm-up launch: first-use costs stay out of the figure */
  if (!launch (e, cur, n_out, error))
    goto out;
  status = clFinish (e->queue);
  t0 = g_get_monotonic_time ();
  for (i = 0; i < iterations && status == CL_SUCCESS; i++)
    if (!launch (e, cur, n_out, error))
      goto out;
  status = clFinish (e->queue);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clFinish");
    goto out;
  }
  *seconds_per_launch = (g_get_monotonic_time () - t0) / 1e6 /
      MAX (iterations, 1);
  if (!read_output (e, out, n_out, error))
    goto out;
  *out_frames = n_out;
  ok = TRUE;
out:
  clFinish (e->queue);
  clr_engine_reset (e);
  return ok;
}

/* Frames [0, len) of e's active window into host planes of len frames,
 * whatever the window's layout. */
static cl_int
window_read (ClrEngine * e, size_t len, char *host)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  char *planes[CLR_CHANNELS_MAX];
  cl_int status = CL_SUCCESS;
  size_t c;
  char *tmp;

  if (e->plan.svm) {
    clr_svm_get_history (e, host, len);
    return CL_SUCCESS;
  }
  for (c = 0; !e->plan.iv && c < ch && status == CL_SUCCESS; c++)
    status = clEnqueueReadBuffer (e->queue, e->win[e->active], CL_TRUE,
        c * e->win_cap * ss, len * ss, host + c * len * ss, 0, NULL, NULL);
  if (!e->plan.iv)
    return status;
  if (!(tmp = g_try_malloc (len * ch * ss)))
    return CL_OUT_OF_HOST_MEMORY;
  status = clEnqueueReadBuffer (e->queue, e->win[e->active], CL_TRUE, 0,
      len * ch * ss, tmp, 0, NULL, NULL);
  for (c = 0; c < ch; c++)
    planes[c] = host + c * len * ss;
  if (status == CL_SUCCESS)
    clr_engine_deinterleave (planes, tmp, len, ch, ss);
  g_free (tmp);
  return status;
}

/* Host planes of len frames into e's active window from frame `at`. */
static cl_int
window_write (ClrEngine * e, size_t at, size_t len, const char *host)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  const void *planes[CLR_CHANNELS_MAX];
  cl_int status = CL_SUCCESS;
  size_t c;
  char *tmp;

  if (e->plan.svm) {
    clr_svm_put_history (e, host, at, len);
    return CL_SUCCESS;
  }
  for (c = 0; !e->plan.iv && c < ch && status == CL_SUCCESS; c++)
    status = clEnqueueWriteBuffer (e->queue, e->win[e->active], CL_TRUE,
        (c * e->win_cap + at) * ss, len * ss, host + c * len * ss, 0, NULL,
        NULL);
  if (!e->plan.iv)
    return status;
  if (!(tmp = g_try_malloc (len * ch * ss)))
    return CL_OUT_OF_HOST_MEMORY;
  for (c = 0; c < ch; c++)
    planes[c] = host + c * len * ss;
  interleave (tmp, planes, len, ch, ss);
  status = clEnqueueWriteBuffer (e->queue, e->win[e->active], CL_TRUE,
      at * ch * ss, len * ch * ss, tmp, 0, NULL, NULL);
  g_free (tmp);
  return status;
}

/* Copies the window through host memory: the two engines may live on
 * different devices (a live change of the device property), or take
 * different paths (direct kernels or FFT). */
gboolean
clr_engine_continue_from (ClrEngine * e, ClrEngine * old, GError ** error)
{
  const size_t ss = e->ssize, ch = e->cfg.channels;
  const int64_t half = e->filter.taps / 2;
  const int64_t back = e->fft ? 0 : (int64_t) e->plan.back;
  uint64_t k0, p0, silent_tail;
  int64_t n0, j0, start, old_start;
  size_t pad, len;
  gboolean from_hist;
  char *host;
  gboolean ok = TRUE;
  cl_int status = CL_SUCCESS;

  if (old->cfg.in_rate != e->cfg.in_rate || old->cfg.channels != ch
      || old->cfg.format != e->cfg.format || old->cfg.planar != e->cfg.planar
      || old->drained) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Cannot continue a stream of another input format");
    return FALSE;
  }
  /* first output at or after old's next one: ceil (m * out2 / out1); the
   * product stays below 2^64 for years of audio at 16 MHz */
  k0 = (old->out_total * e->cfg.out_rate + old->cfg.out_rate - 1) /
      old->cfg.out_rate;
  clr_ratio_position (&e->ratio, k0, &n0, &p0);
  j0 = n0 - half + 1 - back;
  /* the history: old's host copy (clr-history.h) where it reaches further
   * back than old's window, which holds only what old's filter reads */
  from_hist = old->fft || (old->cfg.history > 0
      && old->hist.start < old->win_start);
  old_start = from_hist ? old->hist.start : old->win_start;
  len = from_hist ? old->hist.len : old->win_len;
  start = MIN (j0, old_start);
  pad = (size_t) (old_start - start);
  /* trailing silence of that history (all of it: G_MAXUINT64) */
  silent_tail = old->fft ? MIN (clr_fft_zero_run (old), len) :
      old->silent_tail >= old->win_len && !from_hist ? G_MAXUINT64 :
      MIN (old->silent_tail, len);
  if (!e->fft && !ensure_window (e, pad + len + CLR_WINDOW_SLACK, error))
    return FALSE;

  host = g_try_malloc (MAX (len, 1) * ch * ss);
  if (!host) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the filter history");
    return FALSE;
  }
  if (len > 0 && from_hist)
    clr_history_read (&old->hist, len, host);
  else if (len > 0)
    status = window_read (old, len, host);
  e->in_total = old->in_total;
  e->out_total = k0;
  e->drained = FALSE;
  /* the host copy carries on in the successor, for its successor */
  if (status == CL_SUCCESS && (e->fft || e->cfg.history > 0)
      && !clr_history_set (&e->hist, start, host, pad, len, error)) {
    g_free (host);
    return FALSE;
  }
  if (e->fft) {
    ok = status == CL_SUCCESS && clr_fft_continue (e, start, silent_tail,
        error);
    g_free (host);
    goto done;
  }
  if (status == CL_SUCCESS && !zero_buffer (e, e->win[e->active], error)) {
    g_free (host);
    return FALSE;
  }
  if (len > 0 && status == CL_SUCCESS)
    status = window_write (e, pad, len, host);
  g_free (host);
  e->win_start = start;
  e->win_len = pad + len;
  e->silent_tail = MIN (silent_tail, e->win_len);
  e->zeroed = FALSE;

done:
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Moving the filter history");
    return FALSE;
  }
  return ok;
}

gboolean
clr_engine_drain (ClrEngine * e, void *const *out, size_t * out_frames,
    GError ** error)
{
  size_t want = clr_engine_drain_frames (e);
  gboolean ok;

  *out_frames = 0;
  if (e->drained || want == 0) {
    e->drained = TRUE;
    return TRUE;
  }
  /* lag frames of silence complete the support of the last output frame */
  ok = (e->fft ? clr_fft_push : push) (e, NULL, e->lag, want, out,
      out_frames, error);
  e->drained = TRUE;
  return ok;
}
