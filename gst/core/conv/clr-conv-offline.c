/* clresample: offline FIR convolution on VkFFT or its own four-step
 * transforms. See clr-conv-offline.h.
 *
 * A run is a loop over batches of rows (a row: one segment of one
 * channel). On VkFFT: gather (kernels/conv-offline.cl) writes the batch's
 * zero-padded segments into the work buffer, VkFFT transforms them in
 * place as complex signals of n / 2 points, multiply makes real spectra
 * of them, applies the filter spectra (computed once, in double on the
 * host, scaled by 2/n) and undoes the split, VkFFT transforms back,
 * scatter copies the valid samples out: five commands a batch. Four-step
 * (kernels/conv-fourstep.cl): three kernels a batch, each one pass over
 * it, the first reading the caller's input and the last writing its
 * output. All on the device's in-order queue.
 */
#include <math.h>
#include <string.h>
#include "clr-conv-offline.h"
#include "device/clr-budget.h"
#include "design/clr-fft-host.h"
#include "design/clr-fft-smooth.h"
#include "clr-fft-vkfft.h"
#include "clr-kernel-sources.h"
#include "device/clr-tuning.h"

/* Segments are at least this long: shorter transforms leave a GPU idle
 * for want of work a row, and VkFFT does them in one pass up to here. */
#define FFT_MIN 4096u
/* A batch's work buffer at most (its scratch is as large again): enough
 * for 32 channels of a minute at 48 kHz in one batch; larger ones gain
 * nothing, every launch being already long enough to fill a device. */
#define WORK_BYTES_MAX (1u << 30)
#define LOCAL_SIZE 128u
/* samples a work-item of gather and scatter moves (conv-offline.cl's) */
#define VEC 4
/* multiply's twiddles: w[k] = fine[k % TW_FINE] coarse[k / TW_FINE], two
 * tables that stay in cache, where one of n / 4 values was read through
 * with the rows (conv-offline.cl's) */
#define TW_FINE 1024u
/* The four-step transforms' sizes (n / 2 = N1 N2, conv-fourstep.cl): the
 * column passes hold 4 x N1 doubles of local memory, the rows 2 x N2
 * (and padding, conv-fourstep.cl's SLOT). */
#define FS_N1_MAX 1024u
#define FS_N2_MAX 2048u
#define FS_M_MIN 1024u
#define FS_COLS 4u
#define FS_LOCAL_BYTES (2 * (FS_N2_MAX + FS_N2_MAX / 16 + 8) * sizeof (double))

struct _ClrConvOffline
{
  ClrDevice *dev;
  ClrBudget budget;
  uint32_t channels;
  uint32_t n_filters;
  ClrConvFormat format;
  size_t taps;
  size_t n, hop, bins;          /* bins: n / 2 + 1 */
  size_t lead;                  /* a row's samples before its first output */
  size_t max_frames;
  size_t sample;                /* bytes */
  size_t batch;                 /* rows a batch at most */
  size_t local;
  ClrFftPrecision precision;

  cl_mem spectra;               /* n_filters x bins complex values */
  cl_mem twiddles;              /* fine and coarse tables (TW_FINE) */
  gboolean acc_f64;             /* multiply computes in double */
  cl_mem work, temp;            /* batch x n samples each */
  cl_mem io_in, io_out;         /* clr_conv_offline_process ()'s */
  cl_kernel gather, multiply, scatter;
  ClrFftVkfftCache *plans;
  /* the four-step transforms instead of VkFFT: n / 2 = n1 x n2 */
  gboolean fourstep;
  size_t n1, n2;
  /* the columns forward, the rows, the columns inverse (FS_*) */
  cl_kernel fs[3];

  /* CLRESAMPLE_PROFILE: device time by stage (ns, summed over batches) */
  gboolean profile;
  guint64 runs, batches;
  guint64 stage_ns[5];
};

static const char *const stage_names[5] = {
  "gather", "forward", "multiply", "inverse", "scatter"
};

/* The four-step kernels, in the order they run (fs[], stage_ns[]). */
enum { FS_COLS_FORWARD, FS_ROWS, FS_COLS_INVERSE };

static const char *const fourstep_kernel_names[3] = {
  "clr_fourstep_cols_forward", "clr_fourstep_rows",
  "clr_fourstep_cols_inverse"
};

static const char *const fourstep_stage_names[3] = {
  "columns forward", "rows", "columns inverse"
};

static size_t
pow2_at_least (size_t x)
{
  size_t p = 1;

  while (p < x)
    p <<= 1;
  return p;
}

/* A size VkFFT transforms in its fast radices (no Bluestein) whose half
 * splits in four for gather's and scatter's vectors: a multiple of 8 with
 * no prime factor over 7. */
static gboolean
is_fft_size (size_t n)
{
  return n >= 8 && n % 8 == 0 && clr_fft_smooth_ok (n);
}

static size_t
fft_size_at_least (size_t x)
{
  size_t n = MAX (8, (x + 7) / 8 * 8);

  while (!is_fft_size (n))
    n += 8;
  return n;
}

static gboolean
check_config (ClrDevice * dev, const ClrConvOfflineConfig * cfg,
    GError ** error)
{
  uint32_t f;
  size_t i;

  if (cfg->channels == 0 || cfg->channels > CLR_CONV_OFFLINE_CHANNELS_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%u channels: the offline convolution takes 1 to %u", cfg->channels,
        CLR_CONV_OFFLINE_CHANNELS_MAX);
    return FALSE;
  }
  if (cfg->format != CLR_CONV_F32 && cfg->format != CLR_CONV_F64) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "Unknown sample format %d", (int) cfg->format);
    return FALSE;
  }
  if (cfg->format == CLR_CONV_F64 && !clr_device_has_fp64 (dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "F64 needs double precision, which '%s' does not have",
        clr_device_get_name (dev));
    return FALSE;
  }
  /* the whole filter goes into one transform */
  if (!cfg->taps || cfg->n_taps == 0
      || cfg->n_taps > CLR_CONV_OFFLINE_FFT_MAX) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The filter has %" G_GSIZE_FORMAT " taps: it needs 1 to %u",
        cfg->taps ? cfg->n_taps : 0, CLR_CONV_OFFLINE_FFT_MAX);
    return FALSE;
  }
  if (cfg->n_filters != 1 && cfg->n_filters != cfg->channels) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%u filters for %u channels: give 1 (every channel alike) or one a "
        "channel", cfg->n_filters, cfg->channels);
    return FALSE;
  }
  for (f = 0; f < cfg->n_filters; f++) {
    if (!cfg->taps[f]) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID, "Filter %u is NULL",
          f);
      return FALSE;
    }
    for (i = 0; i < cfg->n_taps; i++) {
      if (!isfinite (cfg->taps[f][i])) {
        g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
            "Filter %u has a non-finite tap at %" G_GSIZE_FORMAT " (%g)", f,
            i, cfg->taps[f][i]);
        return FALSE;
      }
    }
  }
  if (cfg->fft_size && (!is_fft_size (cfg->fft_size)
          || cfg->fft_size < cfg->n_taps
          || cfg->fft_size > CLR_CONV_OFFLINE_FFT_MAX)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "FFT size %" G_GSIZE_FORMAT ": it must be a multiple of 8 with no "
        "prime factor over 7, from the filter's length (%" G_GSIZE_FORMAT
        ") to %u, or 0",
        cfg->fft_size, cfg->n_taps, CLR_CONV_OFFLINE_FFT_MAX);
    return FALSE;
  }
  if (cfg->max_frames == 0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "max_frames is 0: give the most frames a call will take");
    return FALSE;
  }
  return TRUE;
}

/* The power of two at 4x the filter, where a sample costs about n log n
 * / hop: the hop is 3/4 of a segment (1/2 at 2x, 7/8 at 8x for one more
 * level of transform; on the H100 2x is 1.3-1.5x slower, 8x no faster),
 * and at least FFT_MIN. Where the longest call's first max_frames outputs
 * fit one segment of that, one just long enough for them instead (its
 * factors 2, 3, 5, 7): a minute of 48 kHz with a million taps takes
 * 3932160 points, not 4194304. */
static size_t
choose_fft_size (const ClrConvOfflineConfig * cfg)
{
  size_t n = pow2_at_least (MAX (4 * cfg->n_taps, FFT_MIN));
  /* with room for choose_lead ()'s rounding */
  size_t whole = cfg->max_frames + cfg->n_taps - 1 + 2 * (VEC - 1);

  if (whole <= n)
    n = fft_size_at_least (whole);
  return MIN (n, CLR_CONV_OFFLINE_FFT_MAX);
}

/* A size of the four-step transforms: a power of two whose half splits
 * into n1 x n2 within FS_N1_MAX and FS_N2_MAX. */
static gboolean
fourstep_size_ok (size_t n)
{
  return (n & (n - 1)) == 0 && n / 2 >= FS_M_MIN
      && n / 2 <= (size_t) FS_N1_MAX * FS_N2_MAX;
}

/* choose_fft_size ()'s rule in powers of two only. */
static size_t
choose_pow2_size (const ClrConvOfflineConfig * cfg)
{
  size_t n = pow2_at_least (MAX (4 * cfg->n_taps, FFT_MIN));
  size_t whole = cfg->max_frames + cfg->n_taps - 1 + 2 * (VEC - 1);

  if (whole <= n)
    n = MAX (pow2_at_least (whole), FFT_MIN);
  return n;
}

static size_t
kernel_group_size (cl_kernel k, ClrDevice * dev)
{
  size_t wg = 0;

  clGetKernelWorkGroupInfo (k, clr_device_get_id (dev),
      CL_KERNEL_WORK_GROUP_SIZE, sizeof (wg), &wg, NULL);
  return wg;
}

/* Whether the four-step transforms apply, and (when they do) the FFT
 * size for them in *n: they compute in double (so not with float_transforms, and only
 * where the device has it) in 35 KiB of local memory and work-groups of
 * up to 256 items. By default they are chosen on GPUs wherever they apply
 * (docs/convolution.md has the H100's figures); on CPUs PoCL ran them
 * 1.2-1.5x slower than VkFFT's, so VkFFT stays there.
 * CLRESAMPLE_OFFLINE_FOURSTEP overrides the default, the configuration's
 * `transforms` both. FALSE with *error set when the configuration asked
 * for them and they do not apply. */
static gboolean
choose_fourstep (ClrDevice * dev, const ClrConvOfflineConfig * cfg,
    size_t * n, GError ** error)
{
  const ClrKnob knob = clr_tuning_get ()->offline_fourstep;
  const gboolean asked = cfg->transforms == CLR_CONV_OFFLINE_FOURSTEP;
  guint64 local = 0;
  size_t max_wg = 0;
  const char *why = NULL;

  if (cfg->transforms == CLR_CONV_OFFLINE_VKFFT
      || (!asked && knob.set && !knob.value)
      || (!asked && !knob.set && !clr_device_is_gpu (dev)))
    return FALSE;
  *n = cfg->fft_size ? cfg->fft_size : choose_pow2_size (cfg);
  clGetDeviceInfo (clr_device_get_id (dev), CL_DEVICE_LOCAL_MEM_SIZE,
      sizeof (local), &local, NULL);
  clGetDeviceInfo (clr_device_get_id (dev), CL_DEVICE_MAX_WORK_GROUP_SIZE,
      sizeof (max_wg), &max_wg, NULL);
  if (!clr_device_has_fp64 (dev))
    why = "the device has no double precision";
  else if (cfg->float_transforms && cfg->format == CLR_CONV_F32)
    why = "they compute in double, and float_transforms asks for float";
  else if (!fourstep_size_ok (*n))
    why = "the FFT size is not a power of two from 2048 to 4194304";
  else if (local < FS_LOCAL_BYTES || max_wg < 256)
    why = "the device's work-groups are too small (35 KiB of local memory "
        "and 256 work-items needed)";
  if (why && asked)
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID, "The four-step "
        "transforms do not apply: %s", why);
  return why == NULL;
}

/* Entries of the twiddle tables: TW_FINE, then k / TW_FINE for k <= n /
 * 4 (multiply's) or for k < n (the four-step transforms', whole turns). */
static size_t
twiddle_count (ClrConvOffline * o)
{
  return TW_FINE + (o->fourstep ? o->n / TW_FINE : o->n / 4 / TW_FINE + 1);
}

/* A row's lead and hop: taps - 1 and n - taps + 1, or both rounded to
 * multiples of VEC (the lead up, the hop down) where that loses at most
 * 1/16 of the hop, so that every row starts at a multiple of VEC input
 * frames and gather and scatter move whole aligned vectors (the row is
 * the input from VEC-aligned frame s hop - lead; a longer lead only
 * leaves more of the circular convolution's wrapped start unused). */
static void
choose_lead (ClrConvOffline * o)
{
  size_t lead = (o->taps - 1 + VEC - 1) / VEC * VEC;
  size_t hop = o->n > lead ? (o->n - lead) / VEC * VEC : 0;

  o->lead = o->taps - 1;
  o->hop = o->n - o->taps + 1;
  if (hop >= VEC && hop * 16 >= o->hop * 15) {
    o->lead = lead;
    o->hop = hop;
  }
}

/* The filter spectra in the samples' precision and multiply's twiddles in
 * its own, both computed in double. */
static gboolean
upload_spectra (ClrConvOffline * o, const ClrConvOfflineConfig * cfg,
    GError ** error)
{
  const size_t n_tw = twiddle_count (o);
  const size_t m = o->n / 2;
  double *spec = g_new (double, 2 * o->bins);
  void *staged = g_malloc (o->n_filters * 2 * o->bins * o->sample);
  void *tw = g_malloc (n_tw * 2 * sizeof (double));
  cl_command_queue queue = clr_device_get_queue (o->dev);
  cl_int status;
  uint32_t f;
  size_t k;
  gboolean ok = FALSE;

  for (f = 0; f < o->n_filters; f++) {
    if ((o->n & (o->n - 1)) == 0)
      clr_fft_host_real (cfg->taps[f], o->taps, o->n, spec);
    else
      clr_fft_smooth_real (cfg->taps[f], o->taps, o->n, spec);
    /* the inverse transform's 1/m (m = n / 2 points), folded in once
     * here */
    for (k = 0; k < 2 * o->bins; k++) {
      double v = spec[k] * 2.0 / (double) o->n;
      /* the four-step rows hold bin k1 + n1 k2 at n2 k1 + k2 (bin m
       * stays last) */
      size_t bin = k / 2, at = k;
      if (o->fourstep && bin < m)
        at = 2 * (bin % o->n1 * o->n2 + bin / o->n1) + k % 2;
      if (o->format == CLR_CONV_F64)
        ((double *) staged)[f * 2 * o->bins + at] = v;
      else
        ((float *) staged)[f * 2 * o->bins + at] = (float) v;
    }
  }
  for (k = 0; k < n_tw; k++) {
    /* the fine table's TW_FINE steps, then the coarse one's */
    double step = k < TW_FINE ? (double) k : (double) (k - TW_FINE) *
        TW_FINE;
    double c = cos (2.0 * G_PI * step / (double) o->n);
    double s = -sin (2.0 * G_PI * step / (double) o->n);
    if (o->acc_f64) {
      ((double *) tw)[2 * k] = c;
      ((double *) tw)[2 * k + 1] = s;
    } else {
      ((float *) tw)[2 * k] = (float) c;
      ((float *) tw)[2 * k + 1] = (float) s;
    }
  }
  status = clEnqueueWriteBuffer (queue, o->spectra, CL_TRUE, 0,
      o->n_filters * 2 * o->bins * o->sample, staged, 0, NULL, NULL);
  if (status == CL_SUCCESS)
    status = clEnqueueWriteBuffer (queue, o->twiddles, CL_TRUE, 0,
        n_tw * 2 * (o->acc_f64 ? sizeof (double) : sizeof (float)), tw, 0,
        NULL, NULL);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Uploading the filter spectra");
    goto out;
  }
  ok = TRUE;
out:
  g_free (spec);
  g_free (staged);
  g_free (tw);
  return ok;
}

static cl_kernel
make_kernel (cl_program program, const char *name, GError ** error)
{
  cl_int status;
  cl_kernel k = clCreateKernel (program, name, &status);

  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, name);
    return NULL;
  }
  return k;
}

/* Bytes of clr_conv_offline_process ()'s device buffers. */
static guint64
io_bytes (ClrConvOffline * o)
{
  return (guint64) o->channels * (2 * o->max_frames + o->taps - 1) *
      o->sample;
}

/* Rows a batch: every row the largest call needs, as far as the memory
 * allows (the work buffer and its scratch, and room kept for the host
 * path's buffers, allocated on its first call: the budget is the whole
 * object's). 0 when not even one fits. */
static size_t
choose_batch (ClrConvOffline * o)
{
  size_t row_bytes = o->n * o->sample;
  size_t segments = (o->max_frames + o->taps - 1 + o->hop - 1) / o->hop;
  guint64 bytes = MIN (clr_device_get_max_alloc (o->dev), WORK_BYTES_MAX);

  if (o->budget.limit) {
    guint64 taken = o->budget.used + io_bytes (o);
    /* the four-step transforms need no scratch */
    bytes = MIN (bytes, o->budget.limit > taken ?
        (o->budget.limit - taken) / (o->fourstep ? 1 : 2) : 0);
  }
  return MIN (MIN ((guint64) o->channels * segments, bytes / row_bytes),
      G_MAXUINT32);
}

/* Work-items of four-step kernel k's groups: FS_COLS column transforms
 * or two rows, 16 points an item. */
static size_t
fs_group (ClrConvOffline * o, int k)
{
  return k == FS_ROWS ? 2 * o->n2 / 16 : FS_COLS * o->n1 / 16;
}

static gboolean
make_fourstep_kernels (ClrConvOffline * o, GError ** error)
{
  int i;
  gchar *options = g_strdup_printf ("-DFS_N1=%" G_GSIZE_FORMAT "u -DFS_N2=%"
      G_GSIZE_FORMAT "u%s", o->n1, o->n2, o->format == CLR_CONV_F64 ?
      " -DCLR_OFFLINE_F64" : "");
  cl_program program = clr_device_get_program (o->dev,
      clr_kernel_source_conv_fourstep, options, error);

  g_free (options);
  if (!program)
    return FALSE;
  for (i = 0; i < 3; i++) {
    size_t wg;
    if (!(o->fs[i] = make_kernel (program, fourstep_kernel_names[i], error)))
      return FALSE;
    wg = kernel_group_size (o->fs[i], o->dev);
    if (o->profile) {
      cl_ulong priv = 0;
      clGetKernelWorkGroupInfo (o->fs[i], clr_device_get_id (o->dev),
          CL_KERNEL_PRIVATE_MEM_SIZE, sizeof (priv), &priv, NULL);
      g_printerr ("clr-conv-offline: n1 %" G_GSIZE_FORMAT " n2 %"
          G_GSIZE_FORMAT ", %s: %" G_GSIZE_FORMAT " items at most, %"
          G_GUINT64_FORMAT " bytes private\n", o->n1, o->n2,
          fourstep_stage_names[i], wg, (guint64) priv);
    }
    /* a compiler may allow fewer items than the device for kernels this
     * large in registers */
    if (wg < fs_group (o, i)) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "The four-step "
          "transforms need work-groups of %" G_GSIZE_FORMAT " items, which "
          "'%s' runs only up to %" G_GSIZE_FORMAT " for %s", fs_group (o, i),
          clr_device_get_name (o->dev), wg, fourstep_stage_names[i]);
      return FALSE;
    }
  }
  return TRUE;
}

ClrConvOffline *
clr_conv_offline_new (ClrDevice * dev, const ClrConvOfflineConfig * cfg,
    GError ** error)
{
  ClrConvOffline *o;
  cl_program program;
  size_t max_wg = 0;
  guint64 limit;

  if (!check_config (dev, cfg, error))
    return NULL;

  o = g_new0 (ClrConvOffline, 1);
  o->dev = clr_device_ref (dev);
  limit = cfg->device_memory ? cfg->device_memory :
      clr_tuning_get ()->device_memory;
  clr_budget_init (&o->budget, dev, limit);
  o->channels = cfg->channels;
  o->n_filters = cfg->n_filters;
  o->format = cfg->format;
  o->taps = cfg->n_taps;
  o->max_frames = cfg->max_frames;
  o->fourstep = choose_fourstep (dev, cfg, &o->n, error);
  if (!o->fourstep && cfg->transforms == CLR_CONV_OFFLINE_FOURSTEP)
    goto fail;
  if (o->fourstep) {
    /* n / 2 = 2^bits: n1 the smaller half */
    guint bits = g_bit_storage (o->n / 2) - 1;
    o->n1 = (size_t) 1 << (bits / 2);
    o->n2 = (o->n / 2) / o->n1;
  } else {
    o->n = cfg->fft_size ? cfg->fft_size : choose_fft_size (cfg);
  }
  choose_lead (o);
  o->bins = o->n / 2 + 1;
  o->sample = o->format == CLR_CONV_F64 ? sizeof (double) : sizeof (float);
  if (o->format == CLR_CONV_F64)
    o->precision = CLR_FFT_F64;
  else if (clr_device_has_fp64 (dev) && !cfg->float_transforms)
    o->precision = CLR_FFT_F32_DOUBLE_MATH;
  else
    o->precision = CLR_FFT_F32;
  o->acc_f64 = o->precision != CLR_FFT_F32;

  o->spectra = clr_budget_alloc (&o->budget, CL_MEM_READ_ONLY,
      o->n_filters * 2 * o->bins * o->sample, NULL, "filter spectra", error);
  if (!o->spectra)
    goto fail;
  o->twiddles = clr_budget_alloc (&o->budget, CL_MEM_READ_ONLY,
      twiddle_count (o) * 2 * (o->acc_f64 ? sizeof (double) :
          sizeof (float)),
      NULL, "twiddles", error);
  if (!o->twiddles)
    goto fail;
  o->batch = choose_batch (o);
  if (o->batch == 0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "One segment of %" G_GSIZE_FORMAT " points and its scratch do not "
        "fit the device memory left (%" G_GUINT64_FORMAT " of %"
        G_GUINT64_FORMAT " bytes used, CLRESAMPLE_DEVICE_MEMORY); use fewer "
        "taps or a smaller FFT size", o->n, o->budget.used, o->budget.limit);
    goto fail;
  }
  o->work = clr_budget_alloc (&o->budget, CL_MEM_READ_WRITE,
      o->batch * o->n * o->sample, NULL, "FFT work buffer", error);
  if (!o->work)
    goto fail;
  if (!o->fourstep && !(o->temp = clr_budget_alloc (&o->budget,
              CL_MEM_READ_WRITE, o->batch * o->n * o->sample, NULL,
              "FFT scratch", error)))
    goto fail;
  if (!upload_spectra (o, cfg, error))
    goto fail;
  o->profile = clr_tuning_get ()->profile;
  if (o->fourstep)
    return make_fourstep_kernels (o, error) ? o : (clr_conv_offline_free (o),
        NULL);

  program = clr_device_get_program (dev, clr_kernel_source_conv_offline,
      o->format == CLR_CONV_F64 ? "-DCLR_OFFLINE_F64" : o->acc_f64 ?
      "-DCLR_OFFLINE_ACC_F64" : "", error);
  if (!program)
    goto fail;
  if (!(o->gather = make_kernel (program, "clr_offline_gather", error))
      || !(o->multiply = make_kernel (program, "clr_offline_multiply", error))
      || !(o->scatter = make_kernel (program, "clr_offline_scatter", error)))
    goto fail;
  clGetDeviceInfo (clr_device_get_id (dev), CL_DEVICE_MAX_WORK_GROUP_SIZE,
      sizeof (max_wg), &max_wg, NULL);
  o->local = MAX (1, MIN (LOCAL_SIZE, max_wg));

  /* the full batch's plan now, so that the first run is not the slow one */
  o->plans = clr_fft_vkfft_cache_new (dev);
  if (!clr_fft_vkfft_cache_get (o->plans, o->n / 2, o->batch, o->precision,
          FALSE, o->work, o->temp, error))
    goto fail;
  return o;

fail:
  clr_conv_offline_free (o);
  return NULL;
}

void
clr_conv_offline_free (ClrConvOffline * o)
{
  int i;

  if (!o)
    return;
  if (o->profile && o->runs) {
    g_printerr ("clr-conv-offline: n %" G_GSIZE_FORMAT ", %" G_GUINT64_FORMAT
        " runs, %" G_GUINT64_FORMAT " batches; us a run:", o->n, o->runs,
        o->batches);
    for (i = 0; i < (o->fourstep ? 3 : 5); i++)
      g_printerr (" %s %.1f", o->fourstep ? fourstep_stage_names[i] :
          stage_names[i], o->stage_ns[i] / 1e3 / o->runs);
    g_printerr ("\n");
  }
  if (o->plans)
    clr_fft_vkfft_cache_free (o->plans);
  for (i = 0; i < 3; i++)
    if (o->fs[i])
      clReleaseKernel (o->fs[i]);
  if (o->gather)
    clReleaseKernel (o->gather);
  if (o->multiply)
    clReleaseKernel (o->multiply);
  if (o->scatter)
    clReleaseKernel (o->scatter);
  clr_budget_free (&o->budget, &o->spectra);
  clr_budget_free (&o->budget, &o->twiddles);
  clr_budget_free (&o->budget, &o->work);
  clr_budget_free (&o->budget, &o->temp);
  clr_budget_free (&o->budget, &o->io_in);
  clr_budget_free (&o->budget, &o->io_out);
  clr_device_unref (o->dev);
  g_free (o);
}

/* A 2-D launch: `width` work-items along a row (rounded up to the group),
 * one row of the batch each along dimension 1. */
static gboolean
launch (ClrConvOffline * o, cl_kernel k, size_t width, size_t rows,
    cl_event * event, const char *what, GError ** error)
{
  size_t local[2] = { o->local, 1 };
  size_t global[2] = { (width + o->local - 1) / o->local * o->local, rows };
  cl_int status = clEnqueueNDRangeKernel (clr_device_get_queue (o->dev), k,
      2, NULL, global, local, 0, NULL, o->profile ? event : NULL);

  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, what);
    return FALSE;
  }
  return TRUE;
}

#define SET_ARG(k, i, v) clSetKernelArg (k, i, sizeof (v), &(v))

static cl_ulong
event_time (cl_event e, cl_profiling_info what)
{
  cl_ulong t = 0;

  clGetEventProfilingInfo (e, what, sizeof (t), &t, NULL);
  return t;
}

/* The batch's stages from its three kernels' events: VkFFT's transforms
 * are the time between them (the queue is in order). Waits for the
 * batch: for profiling only. */
static void
add_profile (ClrConvOffline * o, cl_event ev[3])
{
  cl_ulong g0, g1, m0, m1, s0, s1;

  clWaitForEvents (1, &ev[2]);
  g0 = event_time (ev[0], CL_PROFILING_COMMAND_START);
  g1 = event_time (ev[0], CL_PROFILING_COMMAND_END);
  m0 = event_time (ev[1], CL_PROFILING_COMMAND_START);
  m1 = event_time (ev[1], CL_PROFILING_COMMAND_END);
  s0 = event_time (ev[2], CL_PROFILING_COMMAND_START);
  s1 = event_time (ev[2], CL_PROFILING_COMMAND_END);
  o->stage_ns[0] += g1 - g0;
  o->stage_ns[1] += m0 - g1;
  o->stage_ns[2] += m1 - m0;
  o->stage_ns[3] += s0 - m1;
  o->stage_ns[4] += s1 - s0;
  o->batches++;
}

/* The four-step batches: three kernels each, the first reading the
 * caller's input, the last writing its output (conv-fourstep.cl). */
static gboolean
run_fourstep (ClrConvOffline * o, cl_mem in, cl_ulong in_pitch, cl_mem out,
    cl_ulong out_pitch, cl_ulong frames, cl_ulong out_frames,
    cl_uint segments, cl_ulong rows_total, GError ** error)
{
  cl_command_queue queue = clr_device_get_queue (o->dev);
  cl_uint hop = o->hop, lead = o->lead, per_channel = o->n_filters > 1;
  /* set again for each batch */
  cl_uint row0 = 0;
  const ClrKernelArg forward[] = { CLR_KERNEL_ARG (in),
    CLR_KERNEL_ARG (in_pitch), CLR_KERNEL_ARG (o->work),
    CLR_KERNEL_ARG (hop), CLR_KERNEL_ARG (lead), CLR_KERNEL_ARG (frames),
    CLR_KERNEL_ARG (segments), CLR_KERNEL_ARG (row0),
    CLR_KERNEL_ARG (o->twiddles)
  };
  const ClrKernelArg rows_args[] = { CLR_KERNEL_ARG (o->work),
    CLR_KERNEL_ARG (o->spectra), CLR_KERNEL_ARG (segments),
    CLR_KERNEL_ARG (per_channel), CLR_KERNEL_ARG (row0),
    CLR_KERNEL_ARG (o->twiddles)
  };
  const ClrKernelArg inverse[] = { CLR_KERNEL_ARG (o->work),
    CLR_KERNEL_ARG (out), CLR_KERNEL_ARG (out_pitch), CLR_KERNEL_ARG (hop),
    CLR_KERNEL_ARG (lead), CLR_KERNEL_ARG (out_frames),
    CLR_KERNEL_ARG (segments), CLR_KERNEL_ARG (row0),
    CLR_KERNEL_ARG (o->twiddles)
  };
  /* work-groups along a row: column groups of FS_COLS, row pairs */
  const size_t widths[3] = { o->n2 / FS_COLS, o->n1 / 2 + 1,
    o->n2 / FS_COLS
  };
  cl_int status;
  cl_ulong next;

  status = clr_kernel_set_args (o->fs[FS_COLS_FORWARD], forward,
      G_N_ELEMENTS (forward));
  if (status == CL_SUCCESS)
    status = clr_kernel_set_args (o->fs[FS_ROWS], rows_args,
        G_N_ELEMENTS (rows_args));
  if (status == CL_SUCCESS)
    status = clr_kernel_set_args (o->fs[FS_COLS_INVERSE], inverse,
        G_N_ELEMENTS (inverse));
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status,
        "Setting the offline convolution's kernel arguments");
    return FALSE;
  }
  for (next = 0; next < rows_total; next += o->batch) {
    size_t rows = MIN (o->batch, rows_total - next);
    cl_event ev[3] = { NULL, NULL, NULL };
    int i;

    /* row0: arguments 7, 4 and 7 */
    row0 = next;
    SET_ARG (o->fs[FS_COLS_FORWARD], 7, row0);
    SET_ARG (o->fs[FS_ROWS], 4, row0);
    SET_ARG (o->fs[FS_COLS_INVERSE], 7, row0);
    for (i = 0; i < 3 && status == CL_SUCCESS; i++) {
      size_t local[2] = { fs_group (o, i), 1 };
      size_t global[2] = { widths[i] * fs_group (o, i), rows };
      status = clEnqueueNDRangeKernel (queue, o->fs[i], 2, NULL, global,
          local, 0, NULL, o->profile ? &ev[i] : NULL);
    }
    if (status == CL_SUCCESS && o->profile) {
      clWaitForEvents (1, &ev[2]);
      for (i = 0; i < 3; i++)
        o->stage_ns[i] += event_time (ev[i], CL_PROFILING_COMMAND_END) -
            event_time (ev[i], CL_PROFILING_COMMAND_START);
      o->batches++;
    }
    for (i = 0; i < 3; i++)
      if (ev[i])
        clReleaseEvent (ev[i]);
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status, "Launching the four-step transforms");
      return FALSE;
    }
  }
  o->runs++;
  return TRUE;
}

gboolean
clr_conv_offline_run_full (ClrConvOffline * o, cl_mem in, size_t in_pitch,
    cl_mem out, size_t out_pitch, size_t frames, size_t out_frames,
    GError ** error)
{
  cl_ulong rows_total, c_frames, c_out_frames, c_in_pitch, c_out_pitch;
  cl_uint c_n = o->n, c_hop = o->hop, c_lead = o->lead, c_m = o->n / 2;
  cl_uint per_channel = o->n_filters > 1, segments;
  /* rows and outputs start at multiples of VEC frames of the caller's
   * planes too: whole vectors (conv-offline.cl) */
  const gboolean rows_aligned = o->lead % VEC == 0 && o->hop % VEC == 0;
  cl_uint in_vec = rows_aligned && in_pitch % VEC == 0;
  cl_uint out_vec = rows_aligned && out_pitch % VEC == 0;
  cl_ulong next;

  if (frames > o->max_frames || out_frames > frames + o->taps - 1
      || in_pitch < frames || out_pitch < out_frames) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GSIZE_FORMAT " frames in (at most %" G_GSIZE_FORMAT ", pitch %"
        G_GSIZE_FORMAT "), %" G_GSIZE_FORMAT " out (at most frames + taps - "
        "1, pitch %" G_GSIZE_FORMAT ")", frames, o->max_frames, in_pitch,
        out_frames, out_pitch);
    return FALSE;
  }
  if (out_frames == 0)
    return TRUE;

  rows_total = (out_frames + o->hop - 1) / o->hop * (cl_ulong) o->channels;
  if (rows_total > G_MAXUINT32) {
    /* the kernels count rows in 32 bits */
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GUINT64_FORMAT " segments of %" G_GSIZE_FORMAT " frames: too "
        "many; use a larger FFT size", (guint64) rows_total, o->hop);
    return FALSE;
  }
  segments = (out_frames + o->hop - 1) / o->hop;
  c_frames = frames;
  c_out_frames = out_frames;
  c_in_pitch = in_pitch;
  c_out_pitch = out_pitch;
  if (o->fourstep)
    return run_fourstep (o, in, c_in_pitch, out, c_out_pitch, c_frames,
        c_out_frames, segments, rows_total, error);

  {
    const ClrKernelArg gather[] = { CLR_KERNEL_ARG (in),
      CLR_KERNEL_ARG (c_in_pitch), CLR_KERNEL_ARG (o->work),
      CLR_KERNEL_ARG (c_n), CLR_KERNEL_ARG (c_hop), CLR_KERNEL_ARG (c_lead),
      CLR_KERNEL_ARG (c_frames), CLR_KERNEL_ARG (segments)
    };
    const ClrKernelArg multiply[] = { CLR_KERNEL_ARG (o->work),
      CLR_KERNEL_ARG (o->spectra), CLR_KERNEL_ARG (o->twiddles),
      CLR_KERNEL_ARG (c_m), CLR_KERNEL_ARG (segments),
      CLR_KERNEL_ARG (per_channel)
    };
    const ClrKernelArg scatter[] = { CLR_KERNEL_ARG (o->work),
      CLR_KERNEL_ARG (out), CLR_KERNEL_ARG (c_out_pitch), CLR_KERNEL_ARG (c_n),
      CLR_KERNEL_ARG (c_hop), CLR_KERNEL_ARG (c_lead),
      CLR_KERNEL_ARG (c_out_frames), CLR_KERNEL_ARG (segments)
    };
    cl_int status = clr_kernel_set_args (o->gather, gather,
        G_N_ELEMENTS (gather));

    if (status == CL_SUCCESS)
      status = clr_kernel_set_args (o->multiply, multiply,
          G_N_ELEMENTS (multiply));
    if (status == CL_SUCCESS)
      status = clr_kernel_set_args (o->scatter, scatter,
          G_N_ELEMENTS (scatter));
    if (status != CL_SUCCESS) {
      clr_set_cl_error (error, status,
          "Setting the offline convolution's kernel arguments");
      return FALSE;
    }
  }

  for (next = 0; next < rows_total; next += o->batch) {
    cl_uint row0 = next, rows = MIN (o->batch, rows_total - next);
    /* a short last batch runs a plan of the next power of two rows, so
     * that no more than log2 (batch) plans are ever built */
    size_t plan_rows = rows == o->batch ? o->batch :
        MIN (o->batch, pow2_at_least (rows));
    ClrFftVkfft *plan = clr_fft_vkfft_cache_get (o->plans, o->n / 2,
        plan_rows, o->precision, FALSE, o->work, o->temp, error);
    cl_event ev[3] = { NULL, NULL, NULL };
    gboolean ok;
    int i;

    if (!plan)
      return FALSE;
    SET_ARG (o->gather, 8, row0);
    SET_ARG (o->gather, 9, rows);
    SET_ARG (o->gather, 10, in_vec);
    SET_ARG (o->multiply, 6, row0);
    SET_ARG (o->scatter, 8, row0);
    SET_ARG (o->scatter, 9, out_vec);
    ok = launch (o, o->gather, o->n / VEC, plan_rows, &ev[0],
        "The offline gather", error)
        && clr_fft_vkfft_forward (plan, o->work, error)
        && launch (o, o->multiply, o->n / 4 + 1, rows, &ev[1],
        "The offline multiply", error)
        && clr_fft_vkfft_inverse (plan, o->work, error)
        && launch (o, o->scatter, (o->hop + VEC - 1) / VEC, rows, &ev[2],
        "The offline scatter", error);
    if (ok && o->profile)
      add_profile (o, ev);
    for (i = 0; i < 3; i++)
      if (ev[i])
        clReleaseEvent (ev[i]);
    if (!ok)
      return FALSE;
  }
  o->runs++;
  return TRUE;
}

gboolean
clr_conv_offline_run (ClrConvOffline * o, cl_mem in, cl_mem out,
    size_t frames, GError ** error)
{
  return clr_conv_offline_run_full (o, in, frames, out, frames, frames,
      frames, error);
}

gboolean
clr_conv_offline_process_full (ClrConvOffline * o, const void *const *in,
    size_t frames, void *const *out, size_t out_frames, GError ** error)
{
  cl_command_queue queue = clr_device_get_queue (o->dev);
  cl_int status = CL_SUCCESS;
  uint32_t c;

  if (frames > o->max_frames || out_frames > frames + o->taps - 1) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GSIZE_FORMAT " frames in (at most %" G_GSIZE_FORMAT "), %"
        G_GSIZE_FORMAT " out (at most frames + taps - 1)", frames,
        o->max_frames, out_frames);
    return FALSE;
  }
  if (out_frames == 0)
    return TRUE;
  /* sized for the largest call once, on first use: a caller that only
   * runs on its own buffers never pays for them */
  if (!o->io_in && !(o->io_in = clr_budget_alloc (&o->budget,
              CL_MEM_READ_ONLY, MAX (1, o->channels * o->max_frames *
                  o->sample), NULL, "offline input", error)))
    return FALSE;
  if (!o->io_out && !(o->io_out = clr_budget_alloc (&o->budget,
              CL_MEM_WRITE_ONLY, o->channels * (o->max_frames + o->taps -
                  1) * o->sample, NULL, "offline output", error)))
    return FALSE;

  for (c = 0; c < o->channels && frames; c++) {
    status = clEnqueueWriteBuffer (queue, o->io_in, CL_FALSE,
        c * frames * o->sample, frames * o->sample, in[c], 0, NULL, NULL);
    if (status != CL_SUCCESS)
      goto cl_fail;
  }
  if (!clr_conv_offline_run_full (o, o->io_in, frames, o->io_out,
          out_frames, frames, out_frames, error))
    goto fail;
  for (c = 0; c < o->channels; c++) {
    status = clEnqueueReadBuffer (queue, o->io_out, c + 1 == o->channels,
        c * out_frames * o->sample, out_frames * o->sample, out[c], 0, NULL,
        NULL);
    if (status != CL_SUCCESS)
      goto cl_fail;
  }
  return TRUE;

cl_fail:
  clr_set_cl_error (error, status, "Copying the offline convolution's "
      "samples");
fail:
  /* the queue may still hold copies from or to the caller's planes */
  clFinish (queue);
  return FALSE;
}

gboolean
clr_conv_offline_process (ClrConvOffline * o, const void *const *in,
    size_t frames, void *const *out, GError ** error)
{
  return clr_conv_offline_process_full (o, in, frames, out, frames, error);
}

size_t
clr_conv_offline_get_fft_size (ClrConvOffline * o)
{
  return o->n;
}

size_t
clr_conv_offline_get_batch (ClrConvOffline * o)
{
  return o->batch;
}

double
clr_conv_offline_get_plan_seconds (ClrConvOffline * o)
{
  return o->plans ? clr_fft_vkfft_cache_build_seconds (o->plans) : 0.0;
}

gboolean
clr_conv_offline_is_fourstep (ClrConvOffline * o)
{
  return o->fourstep;
}
