/* clresample: the streaming resampler engine. See clr-engine.h.
 *
 * Window bookkeeping, all in absolute input frame indices (frame 0 is the
 * first frame after a reset):
 *   win_start  index of the first frame held in the window
 *   win_len    frames held; the window covers [win_start, in_total)
 * Output frame m reads frames n(m) - K/2 + 1 .. n(m) + K/2. After each call
 * the window keeps exactly what the next output still needs (at most K - 1
 * frames, and the several-frame kernels' `back`).
 *
 * The window lives on the host (clr-window.h). A buffer is one job of the
 * device's scheduler (clr-sched.h): the window goes into the batch's
 * staging, and the kernel, shared with every stream of the same
 * configuration, runs once for the whole batch.
 */
#include <math.h>
#include <string.h>
#include "clr-engine-private.h"
#include "conv/clr-conv.h"
#include "clr-workers.h"
#include "design/clr-design-cache.h"
#include "design/clr-fft-host.h"
#include "design/clr-phase.h"
#include "device/clr-hostmem.h"
#include "clr-kernel-sources.h"
#include "clr-log.h"
#include "clr-resample-host.h"

#define CLR_WINDOW_SLACK 4096
/* Buffers are processed in chunks whose input and output each stay under
 * this many bytes on the device, so memory is bounded whatever the buffer
 * size; ordinary buffers (a second of 8-channel audio) are one chunk. */
#define CLR_CHUNK_BYTES (32u * 1024u * 1024u)
/* A job's window planes start this many frames apart at least: every plane
 * then starts as aligned as the batch's staging (clr-sched.c) */
#define CLR_PLANE_ALIGN 32u

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
  if (!(cfg->phase >= 0.0 && cfg->phase <= 1.0)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The phase must be between 0 (linear) and 1 (minimum) (got %g)",
        cfg->phase);
    return FALSE;
  }
  if (cfg->variable && !((cfg->adjust == 0.0 || (cfg->adjust >= CLR_ADJUST_MIN
                  && cfg->adjust <= CLR_ADJUST_MAX))
          && (cfg->adjust_low == 0.0 || (cfg->adjust_low >= CLR_ADJUST_MIN
                  && cfg->adjust_low <= CLR_ADJUST_MAX)))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The rate adjust must be between %g and %g (got %g, filter for %g)",
        CLR_ADJUST_MIN, CLR_ADJUST_MAX, cfg->adjust, cfg->adjust_low);
    return FALSE;
  }
  if (!(cfg->cutoff == 0.0 || (cfg->cutoff >= CLR_CUTOFF_MIN
              && cfg->cutoff <= CLR_CUTOFF_MAX))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The cutoff must be 0 (the quality's) or between %g and %g of the "
        "lower Nyquist frequency (got %g)", CLR_CUTOFF_MIN, CLR_CUTOFF_MAX,
        cfg->cutoff);
    return FALSE;
  }
  return TRUE;
}

static void CL_CALLBACK
release_design (cl_mem mem, void *design)
{
  clr_design_unref (design);
}

/* Whether the device's coefficient buffer can be a design's own memory:
 * a CPU's (a GPU's driver may leave it in host memory, read across the
 * bus), at an alignment the bank's meets (clr-design-cache.h) */
static gboolean
in_place (ClrDevice * dev)
{
  cl_uint bits = 0;

  return !clr_device_is_gpu (dev)
      && clGetDeviceInfo (clr_device_get_id (dev),
      CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof (bits), &bits, NULL) == CL_SUCCESS
      && bits > 0 && bits / 8 <= CLR_DESIGN_ALIGN;
}

/* The coefficient table, made once for every stream that shares the
 * kernel; checked against this engine's budget. */
static gboolean
upload_bank (ClrEngine * e, cl_mem * coef, GError ** error)
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
  /* the bank another engine made already, if any (clr-design-cache.h) */
  ClrDesign *design = clr_design_get (&e->bank, &e->filter, &e->ratio);
  /* doubles row after row, as the design holds them (the CPU kernels'
   * tables): no copy of its own, and a CPU device's buffer is the
   * design's memory. A copy first, and the buffer's own, cost an
   * interpolated bank of 3 MB (48 -> 48.001 kHz, quality 10) 10-20 ms of
   * a stream's start on the 2-core CPU (the engine's set-up 20-32 ms,
   * now 10-12; 44.1 -> 48 kHz: 11-17, now 8-11), most of it the new
   * memory's page faults. */
  const gboolean as_designed = dbl && !p->transposed && len == e->bank.taps
      && n == (size_t) e->bank.rows * e->bank.taps;
  char *host = NULL;
  uint32_t r, k, c;

  if (design && !as_designed)
    host = g_try_malloc0 (n * csize);
  if (!design || (!as_designed && !host)) {
    g_free (host);
    clr_design_unref (design);
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for %" G_GSIZE_FORMAT " filter coefficients", n);
    return FALSE;
  }
  for (r = 0; host && r < e->bank.rows; r++) {
    const double *row = clr_design_row (design, r);

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
  *coef = NULL;
  if (clr_budget_check (&e->budget, n * csize, "filter coefficient table",
          error)) {
    cl_int status;
    if (host || !in_place (e->dev)) {
      *coef = clCreateBuffer (clr_device_get_context (e->dev),
          CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * csize, host ? host :
          (void *) clr_design_row (design, 0), &status);
    } else {
      /* a CPU device reads the design's own memory, which the buffer
       * holds a reference to */
      *coef = clCreateBuffer (clr_device_get_context (e->dev),
          CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, n * csize,
          (void *) clr_design_row (design, 0), &status);
      if (status == CL_SUCCESS && clSetMemObjectDestructorCallback (*coef,
              release_design, design) == CL_SUCCESS)
        design = NULL;
    }
    if (status != CL_SUCCESS)
      clr_set_cl_error (error, status, "Allocating the filter coefficient "
          "table");
  }
  clr_design_unref (design);
  g_free (host);
  return *coef != NULL;
}

/* The host's sums read the design's rows where they lie (the bank a
 * like stream made already, if any: clr-design-cache.h) */
static gboolean
host_bank (ClrEngine * e, GError ** error)
{
  /* held to the budget as the device's table would be (the tests' small
   * device, a user's CLRESAMPLE_DEVICE_MEMORY) */
  if (!clr_budget_check (&e->budget, (size_t) e->bank.rows * e->bank.taps *
          sizeof (double), "filter coefficient table", error))
    return FALSE;
  if (!(e->design = clr_design_get (&e->bank, &e->filter, &e->ratio))) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "Out of host memory "
        "for %u x %u filter coefficients", e->bank.rows, e->bank.taps);
    return FALSE;
  }
  return TRUE;
}

static gboolean device_kernel (ClrEngine * e, const ClrTuning * tuning,
    GError ** error);

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

typedef struct {
  ClrEngine *e;
  const ClrTuning *tuning;
} ClrMake;

/* The program's build options: CLRESAMPLE_BUILD_OPTIONS go last, and key
 * the device's program cache like the rest */
static char *
build_options (ClrEngine * e, const ClrTuning * tuning)
{
  return g_strdup_printf ("%s%s%s%s%s -DCLR_CPI=%u -DCLR_FPI=%u "
      "-DCLR_IV_DW=%u -DCLR_ONE_KERNEL -DCLR_ONLY_%s%s%s",
      format_option (e->cfg.format),
      clr_device_has_fp64 (e->dev) ? " -DCLR_HAVE_FP64" : "",
      e->plan.coef_double ? " -DCLR_COEF_DOUBLE" : "",
      e->plan.wsize != e->ssize ? " -DCLR_WIN_DOUBLE" : "",
      e->plan.shifted ? " -DCLR_IV_SHIFTED" : "", e->plan.cpi, e->plan.fpi,
      e->plan.iv_dw, e->plan.kernel, tuning->build_options ? " " : "",
      tuning->build_options ? tuning->build_options : "");
}

/* What streams must have in common to share a launch: the program, the
 * kernel, the coefficients (rates, quality, taps) and the launch's shape. */
static char *
kernel_key (ClrEngine * e, const ClrTuning * tuning)
{
  char *options = build_options (e, tuning);
  /* (a variable ratio's filter also depends on the factor it is built
   * down to: its fc) */
  char *key = g_strdup_printf ("%s|%s|%u>%u|q%d|k%u|c%.17g|ph%.17g|ch%u|ls%"
      G_GSIZE_FORMAT "|l%u|s%u|i%d%s%.17g", options, e->plan.kernel,
      e->cfg.in_rate, e->cfg.out_rate, e->filter.quality, e->filter.taps,
      e->filter.cutoff, e->filter.phase, e->cfg.channels,
      e->plan.local_size, e->plan.lead, e->plan.span,
      e->bank.interpolated, e->var ? "|var" : "", e->var ? e->filter.fc :
      0.0);

  g_free (options);
  return key;
}

/* ClrSchedKernelMake: the program, the kernel and the table */
static gboolean
make_kernel (gpointer data, ClrSchedKernelInfo * info, GError ** error)
{
  ClrEngine *e = ((ClrMake *) data)->e;
  char *options = build_options (e, ((ClrMake *) data)->tuning);
  cl_program program;
  size_t most;
  cl_int status;

  program = clr_device_get_program (e->dev, clr_kernel_source_resample,
      options, error);
  g_free (options);
  if (!program)
    return FALSE;
  clr_log (CLR_LOG_INFO, "%s on '%s': %u channels and %u output frames a "
      "work-item%s", e->plan.kernel, clr_device_get_name (e->dev),
      e->plan.iv ? 4 : e->plan.cpi, e->plan.fpi, e->plan.svm ?
      ", staging in shared virtual memory" : "");
  info->kernel = clCreateKernel (program, e->plan.kernel, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateKernel");
    return FALSE;
  }
  if (!upload_bank (e, &info->coef, error))
    return FALSE;
  info->channels = e->cfg.channels;
  info->taps = e->plan.span ? e->plan.span : e->filter.taps;
  info->cpi = e->plan.cpi;
  info->I = e->ratio.I;
  info->D = e->ratio.D;
  info->has_grid = e->bank.interpolated;
  info->grid = e->bank.grid;
  info->has_lead = e->plan.span > 0;
  info->lead = e->plan.lead;
  info->iv = e->plan.iv;
  info->local_size = e->plan.local_size;
  /* no larger than the device can run this kernel in (a power of two, as
   * the planned sizes are) */
  if (clGetKernelWorkGroupInfo (info->kernel, clr_device_get_id (e->dev),
          CL_KERNEL_WORK_GROUP_SIZE, sizeof (most), &most, NULL) == CL_SUCCESS)
    while (info->local_size > 1 && info->local_size > most)
      info->local_size /= 2;
  return TRUE;
}

/* A variable ratio's step an output frame for the factor `adjust` */
static uint64_t
var_step (ClrEngine * e, double adjust)
{
  return (uint64_t) llround ((double) CLR_VAR_I * e->cfg.in_rate /
      ((double) e->cfg.out_rate * adjust));
}

/* The factor of the step `step` */
static double
var_factor (ClrEngine * e, uint64_t step)
{
  return (double) CLR_VAR_I * e->cfg.in_rate / ((double) e->cfg.out_rate *
      (double) step);
}

/* v's slew as a row's (clr-slew.h) */
static ClrSlew
var_row (const ClrVar * v)
{
  ClrSlew s = {
    .step = v->step,
    .slope = v->slope,
    .len = v->rem,
    .end = v->to - v->step,
    .frac = v->pos_frac | (uint64_t) v->step_frac << 16 | v->half1 << 32,
    .jerk = {v->jerk[0], v->jerk[1]},
  };

  return s;
}

/* The phases from v's next output to the j-th after it */
static uint64_t
var_offset (const ClrVar * v, uint64_t j)
{
  const ClrSlew s = var_row (v);
  uint32_t frac;

  return clr_slew_offset (&s, j, &frac);
}

/* Outputs from v's next on whose input position n(m) is <= last: with
 * span = (last - v->n + 1) * I, those j with v->p + offset (j) < span.
 * Positions rise with j (every step is positive), each step at least the
 * smaller of the slew's ends less what the slope and the jerks can take
 * away over it: a bisection between 0 and the j that reaches span at
 * that step. */
static uint64_t
var_count (const ClrVar * v, int64_t last)
{
  const double dip = ((fabs ((double) v->slope) + 1.0) * (double) v->rem +
      (fabs ((double) v->jerk[0]) + fabs ((double) v->jerk[1])) *
      (double) clr_slew_c2 (MIN (v->rem, 1u << 20))) / 65536.0 + 2.0;
  uint64_t least = MIN (v->step, v->to);
  uint64_t span, lo = 0, hi, mid;

  least -= (uint64_t) MIN ((double) (least - 1), ceil (dip));
  if (last < v->n)
    return 0;
  span = (uint64_t) (last - v->n + 1) << 32;
  if (span <= v->p)
    return 0;
  hi = (span - v->p + least - 1) / least;
  while (hi - lo > 1) {
    mid = lo + (hi - lo) / 2;
    if (v->p + var_offset (v, mid) < span)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* v's origin moved on by j outputs: the position stays exact */
static void
var_position (const ClrVar * v, uint64_t j, int64_t * n, uint64_t * p)
{
  const uint64_t pos = v->p + var_offset (v, j);

  *n = v->n + (int64_t) (pos >> 32);
  *p = pos & (CLR_VAR_I - 1);
}

static void
var_advance (ClrVar * v, uint64_t j)
{
  if (j < v->rem) {
    /* the slew's state j outputs on (clr-slew.h): the fraction its
     * positions rounded down, the step and slope summed exactly in
     * 2^-16 units, the halves' lengths less j */
    const ClrSlew s = var_row (v);
    const uint64_t h1 = v->half1;
    const int64_t step16 = (int64_t) v->step_frac + v->slope * (int64_t) j +
        v->jerk[0] * (int64_t) clr_slew_window2 (j, 0, h1) +
        v->jerk[1] * (int64_t) clr_slew_window2 (j, h1, v->rem);

    var_position (v, j, &v->n, &v->p);
    v->pos_frac = (uint32_t) (clr_slew_frac_sum (&s, j) & CLR_SLEW_FRAC_MASK);
    v->step += clr_slew_floor16 (step16);
    v->step_frac = (uint32_t) (step16 & CLR_SLEW_FRAC_MASK);
    v->slope += v->jerk[0] * (int64_t) MIN (j, h1) +
        v->jerk[1] * (int64_t) (j > h1 ? j - h1 : 0);
    v->half1 = h1 > j ? h1 - j : 0;
    if (v->half1 == 0)
      v->jerk[0] = 0;
    v->rem -= j;
    return;
  }
  var_position (v, j, &v->n, &v->p);
  if (v->rem > 0) {
    /* the slew's end: its target in effect */
    v->step = v->to;
    v->rem = v->half1 = 0;
    v->slope = v->jerk[0] = v->jerk[1] = 0;
    v->pos_frac = v->step_frac = 0;
    v->adjust = v->target;
  }
}

/* The longest two-half slew: C(m, 3) exact in uint64 (clr-slew.h).
 * Longer ones (a change of several per cent at the steepest rate) run
 * straight. */
#define VAR_SMOOTH_MAX (1 << 20)

/* The jerks of a two-half slew of h outputs a half that moves the step by
 * d (2^-16 units) from the slope a0: the step moves by
 *   a0 2h + j1 (C(2h, 2) - C(h, 2)) + j2 C(h, 2)
 * and the slope ends at a0 + (j1 + j2) h. j1 is rounded towards a0 and j2
 * so that the slope ends within a jerk's h of 0 on the change's side:
 * from rest the step then moves monotonically and never past the target,
 * the rest of the change (under C(h, 2) 2^-16 units) taken at the end.
 * In doubles, exact while the terms stay below 2^53 (the changes a drift
 * makes; a large jump may pass its target by a few 2^-16 units). FALSE
 * where the jerks' sums would leave int64 (clr-slew.h). */
static gboolean
var_smooth (int64_t d, double a0, double h, double *j1, double *j2)
{
  const double sign = d >= 0 ? 1.0 : -1.0;
  const double c2h = (double) clr_slew_c2 ((uint64_t) h);
  const double c22h = (double) clr_slew_c2 ((uint64_t) (2.0 * h));

  *j1 = sign * floor (sign * ((double) d - a0 * (3.0 * h + 1.0) / 2.0) /
      (h * h));
  for (;;) {
    *j2 = -sign * floor (sign * (a0 + *j1 * h) / h);
    if (sign * (a0 * 2.0 * h + *j1 * (c22h - c2h) + *j2 * c2h - (double) d)
        <= 0.0)
      break;
    *j1 -= sign;
  }
  return (fabs (*j1) + fabs (*j2)) * (double) clr_slew_c3 ((uint64_t) (2.0 *
          h)) < 0x1p60;
}

/* v slews from its step now to the target's, from the next output (so
 * that it falls where it would however the input is cut), over
 * CLR_ADJUST_SLEW_TIME of output, or as long as CLR_ADJUST_SLEW_PPM a
 * second takes on average (clr-engine.h). In two halves (clr-slew.h): the
 * slope moves in a straight line from what it is now to a peak, then to
 * 0 at the target, so that the frequency is smooth to its slope wherever
 * the next target comes. Targets set every h outputs (a drift loop's, a
 * ramp's) slew in halves of 1, 2, 4 or 8 times the usual, at least 1.5 h,
 * so that each finds the slope still turning towards the last, never
 * settled at 0: the ramp then follows a smooth curve. Straight slews,
 * each restarted by the next target, turned a corner at every one of
 * them: -166.7 dB THD+N at quality 10, F64, during
 * tests/quality/clr-drift-quality's ramp (10 ms commands), -213.6 now;
 * -214 to -213 with commands every 1 to 30 ms, -207 every 40. The jerks
 * are whole 2^-16 units (var_smooth ()). */
static void
var_slew (ClrEngine * e, ClrVar * v)
{
  const uint64_t to = var_step (e, v->target);
  const int64_t d = (int64_t) (to - v->step);
  /* in units of 2^-16, from the step now with its fraction */
  const int64_t d16 = d * (1 << CLR_SLEW_FRAC_BITS) - v->step_frac;
  /* the steepest mean slope, 2^-16 units an output */
  const double steepest = CLR_ADJUST_SLEW_PPM * 1e-6 * (double) v->step *
      65536.0 / e->cfg.out_rate;
  const double usual = MAX (round (e->cfg.out_rate * CLR_ADJUST_SLEW_TIME /
          2.0), 1.0);
  const double since = (double) (int64_t) (e->out_total - v->set_at);
  const double a0 = (double) v->slope;
  double half = usual, outputs;
  int64_t slope;

  v->to = to;
  v->set_at = e->out_total;
  if (since >= 0.0 && since <= 16.0 * usual) {
    /* the halves in use while they stay within 1.25 to 4 times the
     * interval, else the shortest of 1, 2, 4 or 8 times the usual at
     * least 1.5 times it: a half that moved with each interval's
     * rounding (480 and 482 outputs in turn for commands every 240.5)
     * read -202 dB THD+N at quality 10, F64, one held -215 */
    half = (double) v->span;
    if (half < usual || half < 1.25 * since || half > 4.0 * since)
      for (half = usual; half < 1.5 * since && half < 8.0 * usual;)
        half *= 2.0;
  }
  v->span = (uint64_t) half;
  half = MAX (half, ceil (fabs ((double) d16) / (2.0 * steepest)));
  if (2.0 * half <= VAR_SMOOTH_MAX) {
    double j1, j2;

    if (!var_smooth (d16, a0, half, &j1, &j2))
      goto straight;
    if (j1 == 0.0 && j2 == 0.0 && v->slope == 0)
      goto at_once;
    v->jerk[0] = (int64_t) j1;
    v->jerk[1] = (int64_t) j2;
    v->half1 = (uint64_t) half;
    v->rem = 2 * v->half1;
    return;
  }

straight:
  /* one straight piece: the slope d / outputs to 2^-16 of a unit */
  outputs = MAX (e->cfg.out_rate * CLR_ADJUST_SLEW_TIME, fabs ((double) d) /
      (double) v->step / (CLR_ADJUST_SLEW_PPM * 1e-6) * e->cfg.out_rate);
  v->rem = (uint64_t) MAX (llround (outputs), 1);
  v->half1 = 0;
  v->jerk[0] = v->jerk[1] = 0;
  slope = llround ((double) d16 / (double) v->rem);
  if (slope == 0)
    goto at_once;
  v->slope = slope;
  return;

at_once:
  /* a change under a unit in all */
  v->step = to;
  v->step_frac = 0;
  v->rem = v->half1 = 0;
  v->slope = v->jerk[0] = v->jerk[1] = 0;
  v->adjust = v->target;
}

/* v playing `adjust`, no slew */
static void
var_hold (ClrEngine * e, ClrVar * v, double adjust)
{
  v->adjust = v->target = adjust;
  v->step = v->to = var_step (e, adjust);
  v->slope = v->jerk[0] = v->jerk[1] = 0;
  v->rem = v->half1 = 0;
  v->pos_frac = v->step_frac = 0;
  v->set_at = e->out_total;
  v->span = 0;
}

/* The input position of output out_total + j */
static void
position (ClrEngine * e, uint64_t j, int64_t * n, uint64_t * p)
{
  if (e->var)
    var_position (&e->v, j, n, p);
  else
    clr_ratio_position (&e->ratio, e->out_total + j, n, p);
}

gboolean
clr_engine_set_adjust (ClrEngine * e, double adjust)
{
  if (!e->var || !(adjust >= CLR_ADJUST_MIN && adjust <= CLR_ADJUST_MAX))
    return FALSE;
  /* nothing played yet: no slew from a factor nobody heard; the same
   * target again (the element sets it every buffer) leaves the slew as
   * it is, so that it runs the same however the input is cut */
  if (e->in_total == 0 && e->out_total == 0)
    var_hold (e, &e->v, adjust);
  else if (adjust != e->v.target) {
    e->v.target = adjust;
    var_slew (e, &e->v);
  }
  return TRUE;
}

double
clr_engine_get_adjust (ClrEngine * e)
{
  if (!e->var)
    return 1.0;
  return e->v.rem > 0 ? var_factor (e, e->v.step) : e->v.adjust;
}

double
clr_engine_get_adjust_target (ClrEngine * e)
{
  return e->var ? e->v.target : 1.0;
}

gboolean
clr_engine_is_variable (ClrEngine * e)
{
  return e->var;
}

void
clr_engine_get_position (ClrEngine * e, int64_t * n, uint64_t * phase,
    uint64_t * denom)
{
  position (e, 0, n, phase);
  *denom = e->ratio.I;
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

  if (!clr_engine_config_validate (cfg, error))
    return NULL;

  e = g_new0 (ClrEngine, 1);
  e->dev = clr_device_ref (dev);
  e->cfg = *cfg;
  e->ssize = clr_format_size (cfg->format);
  clr_history_init (&e->hist, cfg->channels, e->ssize);
  /* a budget for shared GPUs, and for testing the out-of-memory path */
  clr_budget_init (&e->budget, dev, tuning->device_memory);
  /* A CPU's streams run on the host (its doubles are the CPU kernels'
   * fp64), and the device is never asked for more than its listing says:
   * one described from a listing kept on disk stays unopened
   * (clr_device_acquire_host ()) */
  e->host = !clr_device_is_gpu (dev) && clr_tuning_resample_host (tuning);
  if (cfg->format == CLR_FORMAT_F64 && !e->host
      && !clr_device_has_fp64 (dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "'%s' has no double precision (cl_khr_fp64) for F64 audio",
        clr_device_get_name (dev));
    goto failed;
  }
  e->var = cfg->variable;
  clr_ratio_init (&e->ratio, cfg->in_rate, cfg->out_rate);
  if (e->var) {
    /* The filter of the lowest output rate it serves: its lower Nyquist
     * min (in, out * adjust_low) / 2, so that no factor down to
     * adjust_low aliases. The ratio then is the variable one's: I =
     * CLR_VAR_I, D its nominal step (clr-engine.h). */
    ClrRatio design;
    double low = cfg->adjust_low > 0.0 ? cfg->adjust_low : 1.0;

    clr_ratio_init (&design, cfg->in_rate, (uint32_t) MIN (cfg->out_rate,
            floor (cfg->out_rate * low)));
    clr_filter_design_cut (&e->filter, &design, cfg->quality, cfg->taps,
        cfg->cutoff);
    e->ratio.I = CLR_VAR_I;
    e->ratio.D = var_step (e, 1.0);
    var_hold (e, &e->v, cfg->adjust > 0.0 ? cfg->adjust : 1.0);
  } else {
    clr_filter_design_cut (&e->filter, &e->ratio, cfg->quality, cfg->taps,
        cfg->cutoff);
  }
  if (!clr_filter_set_phase (&e->filter, &e->ratio, cfg->phase)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "Out of host memory "
        "for the %s-phase design of %u taps a phase (it takes up to %u "
        "points)", cfg->phase >= 1.0 ? "minimum" : "intermediate",
        e->filter.taps, CLR_PHASE_FFT_MAX);
    goto failed;
  }

  /* the kernel and everything about how it runs (clr-kernel-plan.c) */
  facts.is_gpu = clr_device_is_gpu (dev);
  facts.has_fp64 = e->host || clr_device_has_fp64 (dev);
  facts.svm_capable = !e->host && clr_budget_svm_supported (dev);
  facts.format = cfg->format;
  facts.channels = cfg->channels;
  facts.I = e->ratio.I;
  facts.D = e->ratio.D;
  facts.taps = e->filter.taps;
  facts.fft_block_max = clr_conv_max_block (dev);
  facts.low_latency = e->filter.lead < e->filter.taps / 2;
  clr_kernel_plan_choose (&facts, tuning, &e->plan);
  if (e->host) {
    /* the CPU kernels' sums on a window of doubles, nothing staged */
    e->plan.wsize = sizeof (double);
    e->plan.pinned = FALSE;
    e->plan.svm = FALSE;
  }
  e->lag = e->filter.lead;

  clr_bank_layout (&e->bank, &e->filter, &e->ratio, e->plan.coef_double ?
      sizeof (double) : sizeof (float));
  {
    uint64_t frame = (uint64_t) cfg->channels * e->ssize;
    uint64_t by_in = CLR_CHUNK_BYTES / frame;
    /* (a variable ratio's I * by_in would pass 2^64) */
    uint64_t by_out = e->var ? (uint64_t) ((double) by_in * cfg->in_rate /
        (cfg->out_rate * CLR_ADJUST_MAX)) : by_in * e->ratio.D / e->ratio.I;
    e->chunk_in = (size_t) MAX (64, MIN (by_in, by_out));
  }
  clr_log (CLR_LOG_INFO, "%u -> %u Hz (I/D = %" G_GUINT64_FORMAT "/%"
      G_GUINT64_FORMAT "), %u channels, quality %d: %u taps per phase, "
      "%s bank of %u rows", cfg->in_rate, cfg->out_rate, e->ratio.I,
      e->ratio.D, cfg->channels, e->filter.quality, e->filter.taps,
      e->bank.interpolated ? "interpolated" : "polyphase", e->bank.rows);
  /* the direct kernels read their input from the window: the history
   * only serves a successor's start (clr-history.h) */
  clr_history_set_lazy (&e->hist, !e->plan.fft_block);
  if (e->plan.fft_block) {
    /* no kernel, window or bank of its own: the convolution engine's */
    if (!clr_fft_new (e, e->plan.fft_block, tuning, error))
      goto failed;
    e->lag = clr_fft_lag (e);
    clr_engine_reset (e);
    return e;
  }
  if (e->host) {
    if (!host_bank (e, error))
      goto failed;
    clr_log (CLR_LOG_INFO, "%s's sums on the host (%s), %u channels",
        e->plan.kernel, clr_fft_host_variant (), cfg->channels);
  } else {
    if (!device_kernel (e, tuning, error))
      goto failed;
  }
  clr_window_init (&e->win, cfg->channels, cfg->format, e->plan.wsize,
      e->plan.iv);
  if (!clr_window_reserve (&e->win, 0, e->filter.taps + CLR_WINDOW_SLACK,
          error))
    goto failed;
  clr_engine_reset (e);
  return e;

failed:
  clr_engine_free (e);
  return NULL;
}

/* The device's scheduler and the kernel shared with like streams */
static gboolean
device_kernel (ClrEngine * e, const ClrTuning * tuning, GError ** error)
{
  ClrDevice *dev = e->dev;

  e->sched = clr_sched_get (dev, e->plan.svm ? CLR_STAGING_SVM :
      e->plan.pinned ? CLR_STAGING_PINNED : CLR_STAGING_PLAIN, error);
  if (!e->sched)
    return FALSE;
  {
    ClrMake make = { e, tuning };
    char *key = kernel_key (e, tuning);
    e->kern = clr_sched_kernel_get (e->sched, key, make_kernel, &make,
        error);
    g_free (key);
  }
  return e->kern != NULL;
}

void
clr_engine_free (ClrEngine * e)
{
  if (!e)
    return;
  if (e->sched) {
    clr_sched_kernel_unref (e->sched, e->kern);
    clr_sched_unref (e->sched);
  }
  clr_design_unref (e->design);
  g_free (e->host_out);
  clr_window_clear (&e->win);
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

const char *
clr_engine_get_kernel (ClrEngine * e)
{
  return e->plan.fft_block ? NULL : e->plan.kernel;
}

gboolean
clr_engine_is_host (ClrEngine * e)
{
  return e->host && !e->fft;
}

gboolean
clr_engine_get_pinned (ClrEngine * e)
{
  return e->plan.pinned && !e->fft;
}

void
clr_engine_set_paced (ClrEngine * e, gboolean paced)
{
  e->paced = paced;
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

uint64_t
clr_engine_silence_needed (ClrEngine * e)
{
  /* a push keeps at most K - 1 + back frames (the next output's support
   * and `back`): that many trailing zeros make the window silent */
  const uint64_t reach = e->filter.taps / 2 * 2 - 1 + e->plan.back;

  if (clr_engine_is_silent (e))
    return 0;
  if (e->fft)
    return clr_fft_silence_needed (e);
  return reach > e->silent_tail ? reach - e->silent_tail : 0;
}

void
clr_engine_reset (ClrEngine * e)
{
  /* the taps at and behind the output's time (K / 2 when linear) */
  uint32_t behind = e->filter.taps - e->filter.lead;

  /* The stream is preceded by zeros: output 0 then sits exactly on input 0
   * and the filter delay never shows in the timestamps. */
  e->in_total = 0;
  e->out_total = 0;
  e->drained = FALSE;
  /* a new stream starts on input frame 0 at the factor it slewed to */
  e->v.n = 0;
  e->v.p = 0;
  e->v.pos_frac = 0;
  if (e->fft) {
    clr_fft_reset (e);
    return;
  }
  e->win_start = -(int64_t) (behind - 1 + e->plan.back);
  e->win_len = behind - 1 + e->plan.back;
  e->silent_tail = e->win_len;
  clr_window_rewind (&e->win);
  clr_window_write_zeros (&e->win, 0, e->win_len);
  clr_history_reset (&e->hist, 0);
}

guint
clr_engine_get_company (ClrEngine * e)
{
  return e->sched ? clr_sched_get_company (e->sched) : 1;
}

size_t
clr_engine_out_frames (ClrEngine * e, size_t in_frames)
{
  int64_t last = e->in_total + (int64_t) in_frames - 1 - e->lag;
  uint64_t upto;

  if (e->drained)
    return 0;
  /* a variable ratio's count follows its slew, however the input is cut
   * into jobs */
  if (e->var)
    return (size_t) var_count (&e->v, last);
  upto = clr_ratio_out_upto (&e->ratio, last);
  return upto > e->out_total ? (size_t) (upto - e->out_total) : 0;
}

size_t
clr_engine_drain_frames (ClrEngine * e)
{
  if (e->drained)
    return 0;
  /* a variable ratio: the outputs before the input's end, its slew
   * going on */
  if (e->var)
    return (size_t) var_count (&e->v, e->in_total - 1);
  return (size_t) (clr_ratio_out_total (&e->ratio, e->in_total) -
      e->out_total);
}

/* The caller's output as one block of page-locked memory, planes back to
 * back, if it is one and large enough (CLR_ENGINE_DIRECT_MIN_BYTES); else
 * NULL. */
static void *
direct_output (ClrEngine * e, void *const *out, size_t n_out)
{
  const size_t plane = n_out * e->ssize;
  size_t c;

  if (!e->plan.pinned
      || plane * e->cfg.channels < CLR_ENGINE_DIRECT_MIN_BYTES)
    return NULL;
  for (c = 1; e->cfg.planar && c < e->cfg.channels; c++)
    if ((char *) out[c] != (char *) out[0] + c * plane)
      return NULL;
  return clr_host_is_pinned (e->dev, out[0], plane * e->cfg.channels) ?
      out[0] : NULL;
}

/* A job's sums at least this large (products) are shared out among the
 * process's workers (clr-workers.h), in parts of at least this many: a
 * part's hand-over costs a few microseconds, a part of 2^17 products
 * 15-30 on one core of the 2-core EPYC. One stream alone then runs on
 * every core, as the device's kernels did; many streams, each on its
 * own thread, find the workers busy and sum their own jobs. */
#define CLR_HOST_PART_PRODUCTS (1u << 17)

typedef struct {
  const ClrResampleHostJob *job;
  size_t n_out, per_part;
} HostParts;

static void
host_part (gpointer data, guint i)
{
  const HostParts *h = data;
  const size_t i0 = i * h->per_part;

  clr_resample_host_run (h->job, i0, MIN (h->n_out, i0 + h->per_part));
}

static void
host_sums (const ClrResampleHostJob * j, size_t n_out)
{
  const guint64 products = (guint64) n_out * j->channels * j->taps;
  const guint most = clr_workers_count () + 1;
  guint parts = (guint) MIN (most, products / CLR_HOST_PART_PRODUCTS);
  HostParts h = { j, n_out, 0 };

  if (parts < 2) {
    clr_resample_host_run (j, 0, n_out);
    return;
  }
  h.per_part = (n_out + parts - 1) / parts;
  parts = (guint) ((n_out + h.per_part - 1) / h.per_part);
  clr_workers_for (host_part, &h, parts);
}

/* clr_engine_run_job () on the host: the window's planes read where
 * they lie, the output written in place (or, planar with its planes
 * apart, through host_out) */
static gboolean
host_job (ClrEngine * e, int64_t first_tap, uint64_t p0, size_t n_out,
    void *const *out, guint launches, GError ** error)
{
  const size_t ch = e->cfg.channels, ss = e->ssize, plane = n_out * ss;
  ClrResampleHostJob j = { 0, };
  gboolean apart = FALSE;
  size_t c;
  guint l;

  for (c = 1; e->cfg.planar && c < ch; c++)
    apart = apart || (char *) out[c] != (char *) out[0] + c * plane;
  if (apart && e->host_out_size < plane * ch) {
    g_free (e->host_out);
    e->host_out_size = 0;
    if (!(e->host_out = g_try_malloc (plane * ch))) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "Out of host "
          "memory for %" G_GSIZE_FORMAT " output frames", n_out);
      return FALSE;
    }
    e->host_out_size = plane * ch;
  }
  j.win = (const double *) clr_window_plane (&e->win, 0);
  j.w_cstride = e->win.cap;
  j.channels = e->cfg.channels;
  j.taps = e->filter.taps;
  j.first_tap = (uint64_t) first_tap;
  j.phase0 = p0;
  j.I = e->ratio.I;
  j.D = e->ratio.D;
  if (e->var) {
    j.slew = var_row (&e->v);
  }
  j.coef = clr_design_row (e->design, 0);
  j.grid = e->bank.interpolated ? e->bank.grid : 0;
  j.format = e->cfg.format;
  j.out = apart ? e->host_out : out[0];
  j.o_fstride = e->cfg.planar ? 1 : ch;
  j.o_cstride = e->cfg.planar ? n_out : 1;
  for (l = 0; l < MAX (launches, 1u); l++)
    host_sums (&j, n_out);
  for (c = 0; apart && c < ch; c++)
    memcpy (out[c], e->host_out + c * plane, plane);
  return TRUE;
}

/* See clr-engine-private.h. */
gboolean
clr_engine_run_job (ClrEngine * e, size_t n_in, size_t n_out,
    void *const *out, guint launches, GError ** error)
{
  /* the history, the input appended, and the zeros after it */
  const size_t frames = e->win_len + n_in + e->plan.spare;
  const int64_t behind = e->filter.taps - e->filter.lead;
  const size_t ch = e->cfg.channels, ss = e->ssize, ws = e->plan.wsize;
  const size_t pitch = (frames + CLR_PLANE_ALIGN - 1) / CLR_PLANE_ALIGN *
      CLR_PLANE_ALIGN;
  ClrSchedJob job = { 0, };
  int64_t n0;
  uint64_t p0;
  size_t c;
  gboolean ok;

  position (e, 0, &n0, &p0);
  if (e->host)
    return host_job (e, n0 - behind + 1 - e->win_start, p0, n_out, out,
        launches, error);
  job.kern = e->kern;
  job.win_bytes = (e->plan.iv ? frames : pitch) * ch * ws;
  job.win_sample = ws;
  job.out_bytes = n_out * ch * ss;
  job.out_sample = ss;
  job.items = (n_out + e->plan.fpi - 1) / e->plan.fpi;
  job.launches = launches;
  job.direct = direct_output (e, out, n_out);
  job.audio_us = e->paced ?
      (guint64) n_out * G_USEC_PER_SEC / e->ratio.out_rate : 0;
  job.row[CLR_ROW_FIRST_TAP] = (cl_ulong) (n0 - behind + 1 - e->win_start);
  job.row[CLR_ROW_PHASE0] = p0;
  job.row[CLR_ROW_N_OUT] = n_out;
  job.row[CLR_ROW_W_CSTRIDE] = pitch;
  job.row[CLR_ROW_O_FSTRIDE] = e->cfg.planar ? 1 : ch;
  job.row[CLR_ROW_O_CSTRIDE] = e->cfg.planar ? n_out : 1;
  /* the stream index of the first tap, mod 4 */
  job.row[CLR_ROW_ALIGN] = (cl_ulong) (((n0 - behind + 1) % 4 + 4) % 4);
  if (e->var) {
    const ClrSlew s = var_row (&e->v);

    job.row[CLR_ROW_STEP] = s.step;
    job.row[CLR_ROW_SLEW] = (cl_ulong) s.slope;
    job.row[CLR_ROW_SLEW_LEN] = s.len;
    job.row[CLR_ROW_SLEW_END] = s.end;
    job.row[CLR_ROW_SLEW_FRAC] = s.frac;
    job.row[CLR_ROW_JERK1] = (cl_ulong) s.jerk[0];
    job.row[CLR_ROW_JERK2] = (cl_ulong) s.jerk[1];
  }
  /* the device memory the job takes in its batch, against the budget */
  if (!clr_budget_check (&e->budget, job.win_bytes + job.out_bytes,
          "input window and output", error))
    return FALSE;
  /* from here a failure is the device's: room for the batch, or the job
   * failing again alone after its batch failed (clr-sched.c) */
  if (!clr_sched_reserve (e->sched, &job, error)) {
    e->device_failed = TRUE;
    return FALSE;
  }
  clr_window_copy_out (&e->win, frames, job.win, pitch);
  ok = clr_sched_run (e->sched, &job, error);
  e->device_failed = !ok;
  if (ok && job.out != out[0] && !e->cfg.planar)
    memcpy (out[0], job.out, n_out * ch * ss);
  for (c = 0; ok && job.out != out[0] && e->cfg.planar && c < ch; c++)
    memcpy (out[c], job.out + c * n_out * ss, n_out * ss);
  clr_sched_release (e->sched, &job);
  return ok;
}

gboolean
clr_engine_append (ClrEngine * e, const void *const *in, size_t n_in,
    GError ** error)
{
  if (!clr_window_reserve (&e->win, e->win_len, e->win_len + n_in +
          e->plan.spare, error))
    return FALSE;
  if (in)
    clr_window_write_input (&e->win, e->win_len, in, e->cfg.planar, n_in);
  else
    clr_window_write_zeros (&e->win, e->win_len, n_in);
  clr_window_write_zeros (&e->win, e->win_len + n_in, e->plan.spare);
  return TRUE;
}

/* The history a successor may need (clr-history.h): the window keeps only
 * what this filter reads */
static gboolean
keep_history (ClrEngine * e, const void *const *in, size_t n_in,
    GError ** error)
{
  return e->cfg.history == 0 || clr_history_push (&e->hist, e->cfg.history,
      in, e->cfg.planar, n_in, error);
}

/* n_in frames in, the first n_out of the output frames they complete out
 * (the caller's count: clr_engine_out_frames () at most). Where it fails
 * the stream is as it was (clr_engine_device_failed ()). */
static gboolean
push (ClrEngine * e, const void *const *in, size_t n_in, size_t n_out,
    void *const *out, size_t * out_frames, GError ** error)
{
  const int64_t behind = e->filter.taps - e->filter.lead;
  const size_t ss = e->ssize, ch = e->cfg.channels;
  gboolean silent = in == NULL && clr_engine_is_silent (e);
  int64_t n1, in_end = e->in_total + (int64_t) n_in, j1;
  uint64_t p1;
  size_t keep, skip, c;

  *out_frames = 0;
  /* Keep what the next output needs: frames from j1 = n(m1) - K/2 + 1,
   * and `back` more. */
  position (e, n_out, &n1, &p1);
  j1 = n1 - behind + 1 - (int64_t) e->plan.back;
  g_assert (j1 >= e->win_start && j1 <= in_end);
  skip = (size_t) (j1 - e->win_start);
  keep = (size_t) (in_end - j1);

  if (silent) {
    /* silence in, silence held: silence out, and nothing to compute
     * however long the gap */
    if (!keep_history (e, in, n_in, error))
      return FALSE;
    if (!e->cfg.planar)
      memset (out[0], 0, n_out * ch * ss);
    for (c = 0; e->cfg.planar && c < ch; c++)
      memset (out[c], 0, n_out * ss);
    clr_window_rewind (&e->win);
    if (!clr_window_reserve (&e->win, 0, keep, error))
      return FALSE;
    clr_window_write_zeros (&e->win, 0, keep);
  } else {
    if (!clr_engine_append (e, in, n_in, error))
      return FALSE;
    if (n_out > 0 && !clr_engine_run_job (e, n_in, n_out, out, 1, error))
      return FALSE;
    /* taken once the job ran: a job that failed leaves the stream as it
     * was, for a successor on another device to do it again
     * (clr_engine_process_rest ()) */
    if (!keep_history (e, in, n_in, error))
      return FALSE;
    clr_window_advance (&e->win, skip);
  }

  e->in_total = in_end;
  if (e->var)
    var_advance (&e->v, n_out);
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

  e->device_failed = FALSE;
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
    if (!(e->fft ? clr_fft_push : push) (e, in ? ip : NULL, len,
            clr_engine_out_frames (e, len), op, &n, error))
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

struct _ClrEngineSnapshot {
  /* the stream: what a successor must share */
  ClrEngineConfig cfg;
  gboolean drained;
  uint64_t in_total, out_total;
  /* its last input frames [start, start + len), planes of len frames in
   * the stream's format, and the silence at their end (G_MAXUINT64: all
   * of it, and before) */
  int64_t start;
  size_t len;
  uint64_t silent_tail;
  char *host;
  /* the input position of its next output, n + p / denom, and a variable
   * ratio's state */
  int64_t pos_n;
  uint64_t pos_p, pos_denom;
  gboolean var;
  ClrVar v;
};

ClrEngineSnapshot *
clr_engine_snapshot (ClrEngine * old, GError ** error)
{
  ClrEngineSnapshot *s = g_new0 (ClrEngineSnapshot, 1);
  /* old's host copy (clr-history.h) where it reaches further back than
   * old's window, which holds only what old's filter reads */
  const gboolean from_hist = old->fft || (old->cfg.history > 0
      && old->hist.start < old->win_start);

  s->cfg = old->cfg;
  s->var = old->var;
  s->v = old->v;
  clr_engine_get_position (old, &s->pos_n, &s->pos_p, &s->pos_denom);
  s->drained = old->drained;
  s->in_total = old->in_total;
  s->out_total = old->out_total;
  s->start = from_hist ? old->hist.start : old->win_start;
  s->len = from_hist ? old->hist.len : old->win_len;
  s->silent_tail = old->fft ? MIN (clr_fft_zero_run (old), s->len) :
      old->silent_tail >= old->win_len && !from_hist ? G_MAXUINT64 :
      MIN (old->silent_tail, s->len);
  s->host = g_try_malloc (MAX (s->len, 1) * old->cfg.channels * old->ssize);
  if (!s->host) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the filter history");
    g_free (s);
    return NULL;
  }
  if (s->len > 0 && from_hist)
    clr_history_read (&old->hist, s->len, s->host);
  else if (s->len > 0)
    clr_window_get (&old->win, s->len, s->host);
  return s;
}

void
clr_engine_snapshot_free (ClrEngineSnapshot * s)
{
  if (!s)
    return;
  g_free (s->host);
  g_free (s);
}

/* First output at or after the next one of a stream at out_total outputs
 * of out_rate: ceil (m * out2 / out1); the product stays below 2^64 for
 * years of audio at 16 MHz */
static uint64_t
successor_first_out (ClrEngine * e, uint64_t out_total, uint32_t out_rate)
{
  return (out_total * e->cfg.out_rate + out_rate - 1) / out_rate;
}

gboolean
clr_engine_continue_from_snapshot (ClrEngine * e,
    const ClrEngineSnapshot * s, GError ** error)
{
  const size_t ch = e->cfg.channels;
  const int64_t behind = e->filter.taps - e->filter.lead;
  const int64_t back = e->fft ? 0 : (int64_t) e->plan.back;
  uint64_t k0, p0;
  int64_t n0, j0, start;
  size_t pad;

  if (s->cfg.in_rate != e->cfg.in_rate || s->cfg.channels != ch
      || s->cfg.format != e->cfg.format || s->cfg.planar != e->cfg.planar
      || s->drained) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Cannot continue a stream of another input format");
    return FALSE;
  }
  k0 = successor_first_out (e, s->out_total, s->cfg.out_rate);
  if (e->var) {
    /* exactly where the stream is: its next output's position (a fixed
     * ratio's phase to the nearest 2^-32 below), at the factor it plays
     * at (a fixed one's 1.0) slewing to the same target as before, or to
     * this engine's own after a fixed ratio */
    if (s->var && s->cfg.out_rate == e->cfg.out_rate) {
      e->v = s->v;
    } else {
      /* another output rate: from the factor it plays at now, slewing on
       * to the target from there */
      const double target = s->var ? s->v.target : e->v.target;

      var_hold (e, &e->v, !s->var ? 1.0 : s->v.rem > 0 ?
          (double) CLR_VAR_I * s->cfg.in_rate / ((double) s->cfg.out_rate *
              (double) s->v.step) : s->v.adjust);
      if (target != e->v.adjust) {
        e->v.target = target;
        var_slew (e, &e->v);
      }
    }
    e->v.n = s->pos_n;
    e->v.p = s->pos_denom == CLR_VAR_I ? s->pos_p :
        (s->pos_p << 32) / s->pos_denom;
    n0 = e->v.n;
  } else if (s->var) {
    /* its timeline has left the rational grid for good */
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID, "A fixed-ratio "
        "resampler cannot continue a stream of a variable ratio");
    return FALSE;
  } else {
    clr_ratio_position (&e->ratio, k0, &n0, &p0);
  }
  j0 = n0 - behind + 1 - back;
  start = MIN (j0, s->start);
  pad = (size_t) (s->start - start);
  if (!e->fft && !clr_window_reserve (&e->win, 0, pad + s->len +
          CLR_WINDOW_SLACK, error))
    return FALSE;

  e->in_total = s->in_total;
  e->out_total = k0;
  e->drained = FALSE;
  /* the host copy carries on in the successor, for its successor */
  if ((e->fft || e->cfg.history > 0)
      && !clr_history_set (&e->hist, start, s->host, pad, s->len, error))
    return FALSE;
  if (e->fft)
    return clr_fft_continue (e, start, s->silent_tail, error);
  clr_window_rewind (&e->win);
  clr_window_write_zeros (&e->win, 0, pad);
  if (s->len > 0)
    clr_window_put (&e->win, pad, s->len, s->host);
  e->win_start = start;
  e->win_len = pad + s->len;
  e->silent_tail = MIN (s->silent_tail, e->win_len);
  return TRUE;
}

/* Copies the window through host memory: the two engines may live on
 * different devices (a live change of the device property), or take
 * different paths (direct kernels or FFT). */
gboolean
clr_engine_continue_from (ClrEngine * e, ClrEngine * old, GError ** error)
{
  ClrEngineSnapshot *s = clr_engine_snapshot (old, error);
  gboolean ok;

  if (!s)
    return FALSE;
  ok = clr_engine_continue_from_snapshot (e, s, error);
  clr_engine_snapshot_free (s);
  return ok;
}

gboolean
clr_engine_catch_up (ClrEngine * e, ClrEngine * old, GError ** error)
{
  const uint64_t n = old->in_total - e->in_total;
  char *host;
  gboolean ok;

  /* The FFT path brings its primed convolution up to date with the input
   * since: only that much runs here. Anything else (the direct kernels,
   * whose continuation costs a copy of the window; a stream restarted
   * since the snapshot) continues afresh. */
  if (!e->fft || e->drained || old->drained || old->in_total < e->in_total
      || old->cfg.in_rate != e->cfg.in_rate
      || !(old->fft || old->cfg.history > 0)
      || old->hist.len < n || successor_first_out (e, old->out_total,
          old->cfg.out_rate) < e->out_total)
    return clr_engine_continue_from (e, old, error);
  /* what came since, and the silence at old's end */
  host = g_try_malloc (MAX (n, 1) * e->cfg.channels * e->ssize);
  if (!host) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for the filter history");
    return FALSE;
  }
  if (n > 0)
    clr_history_read (&old->hist, (size_t) n, host);
  ok = clr_fft_catch_up (e, host, (size_t) n, successor_first_out (e,
          old->out_total, old->cfg.out_rate), old->fft ?
      clr_fft_zero_run (old) : MIN (old->silent_tail, old->hist.len),
      error);
  g_free (host);
  return ok;
}

gboolean
clr_engine_drain (ClrEngine * e, void *const *out, size_t * out_frames,
    GError ** error)
{
  size_t want = clr_engine_drain_frames (e);
  gboolean ok;

  *out_frames = 0;
  e->device_failed = FALSE;
  if (e->drained || want == 0) {
    e->drained = TRUE;
    return TRUE;
  }
  /* lag frames of silence complete the support of the last output frame */
  ok = (e->fft ? clr_fft_push : push) (e, NULL, e->lag, e->var ? want :
      MIN (want, clr_engine_out_frames (e, e->lag)), out, out_frames, error);
  /* not where the device failed: a successor continues the stream from
   * here and drains it (clr_engine_drain_rest ()) */
  e->drained = ok || !e->device_failed;
  return ok;
}

gboolean
clr_engine_device_failed (ClrEngine * e)
{
  return e->device_failed;
}

/* Plane pointers `frames` frames on from p (NULL stays NULL) */
static void
planes_at (ClrEngine * e, const void *const *p, size_t frames,
    const void **at)
{
  const size_t n_planes = e->cfg.planar ? e->cfg.channels : 1;
  const size_t step = e->cfg.planar ? e->ssize : e->cfg.channels * e->ssize;
  size_t c;

  for (c = 0; c < n_planes; c++)
    at[c] = p ? (const char *) p[c] + frames * step : NULL;
}

gboolean
clr_engine_process_rest (ClrEngine * e, uint64_t in0, uint64_t out0,
    const void *const *in, size_t in_frames, void *const *out,
    size_t * out_frames, GError ** error)
{
  const void *ip[CLR_CHANNELS_MAX], *op[CLR_CHANNELS_MAX];
  const uint64_t done_in = (uint64_t) e->in_total - in0;
  const uint64_t done_out = e->out_total - out0;
  size_t n = 0;
  gboolean ok;

  *out_frames = 0;
  if ((uint64_t) e->in_total < in0 || e->out_total < out0
      || done_in > in_frames) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The stream to finish is not the one the failed call ran");
    return FALSE;
  }
  planes_at (e, in, (size_t) done_in, ip);
  planes_at (e, (const void *const *) out, (size_t) done_out, op);
  ok = clr_engine_process (e, in ? ip : NULL, in_frames - (size_t) done_in,
      (void *const *) op, &n, error);
  /* this one's and the failed engine's together */
  *out_frames = (size_t) (e->out_total - out0);
  return ok;
}

gboolean
clr_engine_drain_rest (ClrEngine * e, uint64_t out0, void *const *out,
    size_t * out_frames, GError ** error)
{
  const void *op[CLR_CHANNELS_MAX];
  size_t n = 0;
  gboolean ok;

  *out_frames = 0;
  if (e->out_total < out0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The stream to finish is not the one the failed drain ran");
    return FALSE;
  }
  planes_at (e, (const void *const *) out, (size_t) (e->out_total - out0),
      op);
  ok = clr_engine_drain (e, (void *const *) op, &n, error);
  *out_frames = (size_t) (e->out_total - out0);
  return ok;
}
