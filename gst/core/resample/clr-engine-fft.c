/* clresample: the engine's FFT path, for very long filters (M-Scaler-class
 * oversampling). See clr-engine.h; docs/design.md has the derivation.
 *
 * Output frame m sits at t(m) = a + p / I (a = floor (m D / I), p its
 * phase), and the direct kernels compute
 *   y[m] = sum_k x[a - K/2 + 1 + k] row_p[k]
 * with row_p the bank's row for phase p (clr_bank_row). That is
 * (x * g_p)[a + K/2], g_p[n] = row_p[K - 1 - n] a causal K-tap filter: every
 * phase is a long FIR at the input rate. The convolution engine (clr-conv.c)
 * runs all I of them on one input transform a block (ClrConvConfig.outputs
 * = I), and this file picks output m from plane p at the conv frame of a.
 * With the conv's latency B, conv frame t of a run fed from input frame s0
 * on is (x * g_p)[s0 + t - B], so a = s0 + t - lag, lag = K/2 + B: the
 * engine answers B frames later than the direct kernels, the same numbers.
 *
 * Every phase of every input frame is computed, so the path pays where
 * D = 1 (integer upsampling: all are used) or I = 1 (integer decimation:
 * one plane, 1 frame in D used, the transforms still far cheaper than the
 * direct sum of a long filter). clr_kernel_plan_choose() decides.
 *
 * The input goes through e->hist (clr-history.h), which keeps the last
 * max (K, history) frames and more: what the conv is fed from, and what
 * clr_engine_continue_from() hands a successor engine. After a continue,
 * frames of that history not yet fed to the conv (`fed` < in_total) go in
 * first at the next push, so that no output is due before it is asked for.
 */
#include <math.h>
#include <string.h>
#include "clr-engine-private.h"
#include "conv/clr-conv.h"
#include "design/clr-design-cache.h"
#include "clr-log.h"

/* frames a conv call at most: its output of I x channels planes, handed
 * out in place from the conv's fifo (emit_sink ()), stays within this
 * many bytes at most whatever I and the channels */
#define CLR_FFT_CHUNK_BYTES (8u << 20)
#define CLR_FFT_CHUNK_MIN 256u
#define CLR_FFT_CHUNK_MAX 16384u

struct _ClrFftPath {
  ClrConv *conv;
  uint32_t block;               /* B */
  uint32_t planes;              /* conv outputs a channel: I */
  gboolean dbl;                 /* the conv runs F64 */
  size_t csize;                 /* bytes a conv sample */
  size_t chunk;                 /* frames a conv call at most */
  int64_t s0;                   /* input frame of conv frame 0 */
  uint64_t conv_frames;         /* conv frames since its reset */
  gboolean conv_idle;           /* reset, not fed since: s0 set at next feed */
  int64_t fed;                  /* input frames [.., fed) went to the conv */
  uint64_t zero_run;            /* trailing frames of silence */
  uint64_t flushed;             /* zero_run past which the conv is silent */
  size_t keep;                  /* history frames kept at least */
  char *cin;                    /* conv input: channels planes of chunk */
};

static void
free_path (ClrFftPath * f)
{
  if (!f)
    return;
  clr_conv_free (f->conv);
  g_free (f->cin);
  g_free (f);
}

gboolean
clr_fft_new (ClrEngine * e, uint32_t block, const ClrTuning * tuning,
    GError ** error)
{
  const uint32_t K = e->filter.taps, ch = e->cfg.channels;
  const uint32_t planes = (uint32_t) e->ratio.I;
  /* rows of the bank as a table of one row a phase, whatever layout the
   * kernels would have used */
  const ClrBankLayout table = { 0, planes, K, 0 };
  ClrConvConfig cc = { 0, };
  ClrFftPath *f;
  ClrDesign *design;
  double **taps;
  uint32_t p, k;

  f = g_new0 (ClrFftPath, 1);
  f->block = block;
  f->planes = planes;
  /* the formats the direct kernels sum in double (clr-kernel-plan.c) */
  f->dbl = clr_device_has_fp64 (e->dev) && (e->cfg.format == CLR_FORMAT_F64
      || e->cfg.format == CLR_FORMAT_S32
      || e->cfg.format == CLR_FORMAT_S24_32);
  f->csize = f->dbl ? sizeof (double) : sizeof (float);
  f->chunk = CLAMP (CLR_FFT_CHUNK_BYTES / ((size_t) planes * ch * f->csize),
      CLR_FFT_CHUNK_MIN, CLR_FFT_CHUNK_MAX);
  /* and a block more: a restart after silence goes back to the block grid
   * (feed ()) */
  f->keep = MAX (K, e->cfg.history) + block;
  /* the conv's output is silent once K taps, its block and its fifo have
   * seen only silence */
  f->flushed = (uint64_t) K + 2 * block;
  e->fft = f;

  /* phase p's filter, reversed row p of the bank: the same numbers the
   * direct kernels use, designed once for every engine that runs this
   * filter (clr-design-cache.h) */
  design = clr_design_get (&table, &e->filter, &e->ratio);
  if (!design) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for %u x %u filter coefficients", planes, K);
    return FALSE;
  }
  taps = g_new (double *, planes);
  for (p = 0; p < planes; p++) {
    const double *row = clr_design_row (design, p);

    taps[p] = g_new (double, K);
    for (k = 0; k < K; k++)
      taps[p][k] = row[K - 1 - k];
  }
  clr_design_unref (design);
  cc.channels = ch;
  cc.block = block;
  cc.format = f->dbl ? CLR_CONV_F64 : CLR_CONV_F32;
  cc.taps = (const double *const *) taps;
  cc.n_taps = K;
  cc.n_filters = planes;
  cc.outputs = planes;
  f->conv = clr_conv_new_tuned (e->dev, &cc, tuning, error);
  for (p = 0; p < planes; p++)
    g_free (taps[p]);
  g_free (taps);
  if (!f->conv)
    return FALSE;

  f->cin = g_try_malloc ((size_t) ch * f->chunk * f->csize);
  if (!f->cin) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the FFT path's buffers");
    return FALSE;
  }
  clr_log (CLR_LOG_INFO, "FFT path: %u phases of %u taps as long FIRs, "
      "blocks of %u frames, %s; %u frames of latency", planes, K, block,
      f->dbl ? "F64" : "F32", e->filter.lead + block);
  return TRUE;
}

void
clr_fft_free (ClrEngine * e)
{
  free_path (e->fft);
  e->fft = NULL;
}

uint32_t
clr_fft_lag (ClrEngine * e)
{
  return e->filter.lead + e->fft->block;
}

void
clr_fft_reset (ClrEngine * e)
{
  ClrFftPath *f = e->fft;

  clr_conv_reset (f->conv);
  f->conv_idle = TRUE;
  f->conv_frames = 0;
  f->s0 = 0;
  f->fed = 0;
  /* the stream is preceded by silence, which the history holds none of */
  f->zero_run = f->flushed;
  clr_history_reset (&e->hist, 0);
}

uint64_t
clr_fft_zero_run (ClrEngine * e)
{
  return e->fft->zero_run;
}

uint64_t
clr_fft_silence_needed (ClrEngine * e)
{
  return e->fft->zero_run < e->fft->flushed ?
      e->fft->flushed - e->fft->zero_run : 0;
}

gboolean
clr_fft_is_silent (ClrEngine * e)
{
  return e->fft->zero_run >= e->fft->flushed && e->fft->fed == e->in_total;
}

/* Drops history older than a successor needs, keeping every frame not
 * yet fed, so that n more frames fit. */
static gboolean
hist_make_room (ClrEngine * e, size_t n, GError ** error)
{
  const size_t unfed = (size_t) (e->in_total - e->fft->fed);

  return clr_history_make_room (&e->hist, MAX (e->fft->keep, unfed), n,
      error);
}

/* A sample of the engine's format at full scale 1. */
static inline double
load (ClrFormat fmt, const char *plane, size_t i)
{
  switch (fmt) {
    case CLR_FORMAT_F32:
      return ((const float *) plane)[i];
    case CLR_FORMAT_F64:
      return ((const double *) plane)[i];
    case CLR_FORMAT_S16:
      return ((const int16_t *) plane)[i] / 32768.0;
    case CLR_FORMAT_S32:
      return ((const int32_t *) plane)[i] / 2147483648.0;
    default:
      return ((const int32_t *) plane)[i] / 8388608.0;
  }
}

/* ... and back, as the kernels store: rounded to nearest even (rint in
 * the default rounding mode) and saturated. */
static inline void
store (ClrFormat fmt, char *dst, double v)
{
  double s;

  switch (fmt) {
    case CLR_FORMAT_F32:
      *(float *) dst = (float) v;
      return;
    case CLR_FORMAT_F64:
      *(double *) dst = v;
      return;
    case CLR_FORMAT_S16:
      s = CLAMP (rint (v * 32768.0), -32768.0, 32767.0);
      *(int16_t *) dst = (int16_t) s;
      return;
    case CLR_FORMAT_S32:
      s = CLAMP (rint (v * 2147483648.0), -2147483648.0, 2147483647.0);
      *(int32_t *) dst = (int32_t) s;
      return;
    default:
      s = CLAMP (rint (v * 8388608.0), -8388608.0, 8388607.0);
      *(int32_t *) dst = (int32_t) s;
      return;
  }
}

/* Where output frame `w` of this call goes, channel c. */
static inline char *
out_at (ClrEngine * e, void *const *out, size_t w, size_t c)
{
  const size_t ss = e->ssize;

  if (e->cfg.planar)
    return (char *) out[c] + w * ss;
  return (char *) out[0] + (w * e->cfg.channels + c) * ss;
}

/* One output frame: plane p's sample j of src (planes `pitch` samples
 * apart; NULL: silence) for each channel, into output frame w. */
static inline void
put_frame (ClrEngine * e, void *const *out, size_t w, const char *src,
    size_t pitch, size_t p, size_t j)
{
  const ClrFftPath *f = e->fft;
  const size_t ch = e->cfg.channels;
  size_t c;

  for (c = 0; c < ch; c++) {
    double v = 0;

    if (src) {
      const size_t i = (p * ch + c) * pitch + j;
      v = f->dbl ? ((const double *) src)[i] : ((const float *) src)[i];
    }
    store (e->cfg.format, out_at (e, out, w, c), v);
  }
}

/* Writes the outputs of n conv frames (src: planes `pitch` samples apart;
 * NULL: silence), the first of them at input frame a0, from output frame
 * *w of this call on; at most max_out in all. The phase p = m D mod I steps
 * by D from one output to the next: no division an output frame, which at
 * 16x cost more than the GPU's whole convolution. */
static void
emit (ClrEngine * e, int64_t a0, size_t n, const void *src, size_t pitch,
    void *const *out, size_t * w, size_t max_out)
{
  const ClrRatio *r = &e->ratio;
  const uint64_t I = (uint64_t) r->I, step = (uint64_t) r->D % I;
  const size_t ch = e->cfg.channels, row = (size_t) I * ch;
  /* interleaved F32 from a float conv or F64 from a double one,
   * upsampling: the I outputs of an input frame are its I x channels plane
   * samples in plane order, no conversion */
  const gboolean dbl = e->fft->dbl;
  const gboolean gather = src && r->D == 1 && !e->cfg.planar
      && e->cfg.format == (dbl ? CLR_FORMAT_F64 : CLR_FORMAT_F32);
  size_t j = a0 < 0 ? (size_t) MIN ((uint64_t) n, (uint64_t) - a0) : 0;
  const size_t w0 = *w;
  uint64_t m, p;

  if (j >= n || *w >= max_out)
    return;
  m = MAX (e->out_total, clr_ratio_out_upto (r, a0 + (int64_t) j - 1));
  p = (m % I) * (uint64_t) r->D % I;
  for (; j < n && *w < max_out; j++) {
    const uint64_t end = clr_ratio_out_upto (r, a0 + (int64_t) j);

    if (gather && p == 0 && end - m == I && *w + I <= max_out) {
      size_t k;

      if (dbl) {
        const double *s = (const double *) src + j;
        double *d = (double *) out[0] + *w * ch;

        for (k = 0; k < row; k++)
          d[k] = s[k * pitch];
      } else {
        const float *s = (const float *) src + j;
        float *d = (float *) out[0] + *w * ch;

        for (k = 0; k < row; k++)
          d[k] = s[k * pitch];
      }
      m += I;
      *w += I;
      continue;
    }
    for (; m < end && *w < max_out; m++, (*w)++) {
      put_frame (e, out, *w, src, pitch, (size_t) p, j);
      p += step;
      if (p >= I)
        p -= I;
    }
  }
  e->out_total += *w - w0;
}

typedef struct
{
  ClrEngine *e;
  int64_t a0;                   /* input frame of the next conv frame */
  void *const *out;
  size_t *w, max_out;
} EmitTo;

static void
emit_sink (gpointer user, const void *base, size_t pitch, size_t step,
    size_t n)
{
  EmitTo *t = user;

  /* the path's conv is planar */
  g_assert (step == 1);

  emit (t->e, t->a0, n, base, pitch, t->out, t->w, t->max_out);
  t->a0 += (int64_t) n;
}

/* Feeds history frames [fed, upto) to the conv and writes their outputs. */
static gboolean
feed (ClrEngine * e, int64_t upto, void *const *out, size_t * w,
    size_t max_out, GError ** error)
{
  ClrFftPath *f = e->fft;
  const size_t ch = e->cfg.channels;
  void *ip[CLR_CONV_CHANNELS_MAX];
  size_t c, i;

  if (f->conv_idle && f->fed < upto) {
    /* a fresh conv starts on the old block grid, with the silence since:
     * its blocks, and so every rounding, fall where they would have had
     * it been fed the silence; the output does not depend on the cut */
    f->s0 = f->fed - (f->fed - f->s0) % f->block;
    f->fed = f->s0;
    f->conv_frames = 0;
    f->conv_idle = FALSE;
  }
  for (c = 0; c < ch; c++)
    ip[c] = f->cin + c * f->chunk * f->csize;
  while (f->fed < upto) {
    const size_t n = (size_t) MIN ((int64_t) f->chunk, upto - f->fed);
    const size_t from = (size_t) (f->fed - e->hist.start);
    EmitTo to = { e, f->s0 + (int64_t) f->conv_frames -
          (int64_t) clr_fft_lag (e), out, w, max_out
    };

    for (c = 0; c < ch; c++) {
      const char *src = clr_history_plane (&e->hist, c);
      if (f->dbl)
        for (i = 0; i < n; i++)
          ((double *) ip[c])[i] = load (e->cfg.format, src, from + i);
      else
        for (i = 0; i < n; i++)
          ((float *) ip[c])[i] = (float) load (e->cfg.format, src, from + i);
    }
    if (!clr_conv_process_to (f->conv, (const void *const *) ip, n,
            emit_sink, &to, error))
      return FALSE;
    f->conv_frames += n;
    f->fed += n;
  }
  return TRUE;
}

gboolean
clr_fft_push (ClrEngine * e, const void *const *in, size_t n_in,
    size_t n_out, void *const *out, size_t * out_frames, GError ** error)
{
  ClrFftPath *f = e->fft;
  const gboolean silent = !in && clr_fft_is_silent (e);
  const uint64_t zero_run = f->zero_run;
  size_t w = 0;

  *out_frames = 0;
  if (!hist_make_room (e, n_in, error))
    return FALSE;
  clr_history_append (&e->hist, in, e->cfg.planar, n_in);
  e->in_total += n_in;
  f->zero_run = in ? 0 : f->zero_run + n_in;

  if (silent) {
    /* the conv would compute zeros: skip it, and start it afresh at the
     * next sound */
    if (!f->conv_idle)
      clr_conv_reset (f->conv);
    f->conv_idle = TRUE;
    f->fed = e->in_total;
    /* the outputs of the frames skipped: silence */
    emit (e, e->in_total - (int64_t) n_in - (int64_t) clr_fft_lag (e), n_in,
        NULL, 0, out, &w, n_out);
  } else if (!feed (e, e->in_total, out, &w, n_out, error)) {
    /* the device failed (clr_engine_device_failed ()): the input goes
     * back, the w frames written stay counted, so that a successor
     * continued from this engine takes up the input at the first frame
     * not written (clr_engine_process_rest ()) */
    e->in_total -= (int64_t) n_in;
    f->zero_run = zero_run;
    clr_history_drop_last (&e->hist, n_in);
    e->device_failed = TRUE;
    return FALSE;
  }
  g_assert (w == n_out);
  *out_frames = w;
  return TRUE;
}

/* Feeds what completes no output at or after out_total yet (the input of
 * conv frames up to the one of a = n (out_total) - 1); the rest goes in
 * with the next push. */
static gboolean
feed_to_next_out (ClrEngine * e, GError ** error)
{
  int64_t n0, upto;
  uint64_t p0;
  size_t w = 0;

  clr_ratio_position (&e->ratio, e->out_total, &n0, &p0);
  upto = MIN (e->in_total, n0 + (int64_t) clr_fft_lag (e));
  if (!feed (e, upto, NULL, &w, 0, error))
    return FALSE;
  g_assert (w == 0);
  return TRUE;
}

gboolean
clr_fft_catch_up (ClrEngine * e, const char *host, size_t n, uint64_t k0,
    uint64_t silent_tail, GError ** error)
{
  ClrFftPath *f = e->fft;
  const void *planes[CLR_CHANNELS_MAX];
  size_t c;

  if (!hist_make_room (e, n, error))
    return FALSE;
  for (c = 0; c < e->cfg.channels; c++)
    planes[c] = host + c * n * e->ssize;
  clr_history_append (&e->hist, planes, TRUE, n);
  e->in_total += (int64_t) n;
  e->out_total = k0;
  f->zero_run = MIN (silent_tail, f->flushed);
  return feed_to_next_out (e, error);
}

gboolean
clr_fft_continue (ClrEngine * e, int64_t start, uint64_t silent_tail,
    GError ** error)
{
  ClrFftPath *f = e->fft;

  clr_conv_reset (f->conv);
  f->fed = start;
  f->s0 = start;
  f->conv_idle = TRUE;
  f->zero_run = MIN (silent_tail, f->flushed);
  return feed_to_next_out (e, error);
}
