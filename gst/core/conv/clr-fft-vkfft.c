/* clresample: batched real FFTs through VkFFT's OpenCL backend. See
 * clr-fft-vkfft.h. The one translation unit that includes vkFFT.h; Meson
 * compiles it without warnings (VkFFT's generated-code style trips many). */
#include "clr-fft-vkfft.h"

#define VKFFT_BACKEND 3
#include <vkFFT.h>

struct _ClrFftVkfft
{
  /* VkFFT keeps pointers to these for the plan's life */
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_mem buffer;
  cl_mem temp;
  uint64_t buffer_size;
  uint64_t temp_size;

  size_t n, batch;
  ClrFftPrecision precision;
  gboolean real;
  VkFFTApplication app;
  double build_seconds;
};

/* VkFFT's tuning for the device, overridden for experiments by
 * CLRESAMPLE_VKFFT_<NAME> (bench/run-gpu-offline.sh's sweeps): 0 or unset
 * keeps VkFFT's own choice. */
static uint64_t
knob (const char *name)
{
  const char *v = g_getenv (name);

  return v ? g_ascii_strtoull (v, NULL, 10) : 0;
}

static void
set_vkfft_error (GError ** error, VkFFTResult res, const char *what)
{
  int code = CLR_ERROR_FAILED;
  const char *why = "";

  if (res == VKFFT_ERROR_MALLOC_FAILED
      || res == VKFFT_ERROR_FAILED_TO_ALLOCATE
      || res == VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY
      || res == VKFFT_ERROR_FAILED_TO_CREATE_BUFFER) {
    code = CLR_ERROR_RESOURCES;
    why = " (out of memory)";
  } else if (res == VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM
      || res == VKFFT_ERROR_FAILED_TO_COMPILE_PROGRAM
      || res == VKFFT_ERROR_FAILED_TO_GET_CODE_SIZE
      || res == VKFFT_ERROR_FAILED_TO_GET_CODE
      || res == VKFFT_ERROR_FAILED_TO_CREATE_PIPELINE
      || res == VKFFT_ERROR_INSUFFICIENT_CODE_BUFFER) {
    code = CLR_ERROR_BUILD;
    why = " (its kernels did not build)";
  } else if ((res >= 2001 && res < 3000) || (res >= 3001 && res < 4000)) {
    code = CLR_ERROR_INVALID;
    why = " (a size or layout it does not support)";
  }
  g_set_error (error, CLR_ERROR, code, "%s failed: VkFFT error %d%s", what,
      (int) res, why);
}

ClrFftVkfft *
clr_fft_vkfft_new (ClrDevice * dev, size_t n, size_t batch,
    ClrFftPrecision precision, gboolean real, cl_mem buffer, cl_mem temp,
    GError ** error)
{
  ClrFftVkfft *p;
  VkFFTConfiguration conf = { 0 };
  VkFFTResult res;
  size_t sample;
  gint64 t0 = g_get_monotonic_time ();

  if (n < 2 || (real && n % 2) || batch == 0 || !buffer) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "A VkFFT plan needs 2 points or more (an even number for a real "
        "transform), a batch and a buffer (%" G_GSIZE_FORMAT " points, %"
        G_GSIZE_FORMAT " rows)", n, batch);
    return NULL;
  }
  if (precision == CLR_FFT_F64 && !clr_device_has_fp64 (dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "'%s' has no double precision for a double transform",
        clr_device_get_name (dev));
    return NULL;
  }

  p = g_new0 (ClrFftVkfft, 1);
  p->device = clr_device_get_id (dev);
  p->context = clr_device_get_context (dev);
  p->queue = clr_device_get_queue (dev);
  p->buffer = buffer;
  p->temp = temp;
  p->n = n;
  p->batch = batch;
  p->precision = precision;
  p->real = real;
  sample = precision == CLR_FFT_F64 ? sizeof (double) : sizeof (float);
  p->buffer_size = (uint64_t) batch * clr_fft_vkfft_row_stride (n, real) *
      sample;
  p->temp_size = p->buffer_size;

  conf.FFTdim = 1;
  conf.size[0] = n;
  conf.numberBatches = batch;
  conf.performR2C = real ? 1 : 0;
  conf.doublePrecision = precision == CLR_FFT_F64;
  conf.doublePrecisionFloatMemory = precision == CLR_FFT_F32_DOUBLE_MATH;
  /* twiddles from a table computed in double, also for float transforms
   * (VkFFT's default there is the device's float sin/cos) */
  conf.useLUT = 1;
  conf.coalescedMemory = knob ("CLRESAMPLE_VKFFT_COALESCED");
  if (!conf.coalescedMemory) {
    cl_uint vendor = 0;
    clGetDeviceInfo (p->device, CL_DEVICE_VENDOR_ID, sizeof (vendor),
        &vendor, NULL);
    /* VkFFT's 32 bytes for NVIDIA gave 3476-3600 us for 32 channels x a
     * minute through 262144-point transforms on the H100, 64 gave 2788
     * (1.3x; 128: 3151), and 64 was 8-35 % faster up to 524288 points;
     * past a million points (1966080, the offline convolution's at 1M
     * taps) 32 was 1-5 % faster (docs/bench/gpu-offline-lab3-2026-11-25.txt) */
    if (vendor == 0x10DE)
      conf.coalescedMemory = n > (1u << 20) ? 32 : 64;
  }
  conf.aimThreads = knob ("CLRESAMPLE_VKFFT_AIM_THREADS");
  conf.registerBoost = knob ("CLRESAMPLE_VKFFT_REGISTER_BOOST");
  conf.registerBoost4Step = knob ("CLRESAMPLE_VKFFT_REGISTER_BOOST_4STEP");
  conf.device = &p->device;
  conf.context = &p->context;
  /* used only by set-ups that upload tables through a queue */
  conf.commandQueue = &p->queue;
  conf.buffer = &p->buffer;
  conf.bufferSize = &p->buffer_size;
  if (temp) {
    /* our scratch, counted in the caller's device-memory budget, rather
     * than one VkFFT would allocate behind it */
    conf.userTempBuffer = 1;
    conf.tempBuffer = &p->temp;
    conf.tempBufferSize = &p->temp_size;
  }

  res = initializeVkFFT (&p->app, conf);
  if (res != VKFFT_SUCCESS) {
    char *what = g_strdup_printf ("Building a VkFFT plan of %" G_GSIZE_FORMAT
        " points x %" G_GSIZE_FORMAT " rows on '%s'", n, batch,
        clr_device_get_name (dev));
    set_vkfft_error (error, res, what);
    g_free (what);
    /* initializeVkFFT () frees what it made before failing */
    g_free (p);
    return NULL;
  }
  p->build_seconds = (g_get_monotonic_time () - t0) / 1e6;
  return p;
}

void
clr_fft_vkfft_free (ClrFftVkfft * p)
{
  if (!p)
    return;
  deleteVkFFT (&p->app);
  g_free (p);
}

static gboolean
append (ClrFftVkfft * p, cl_mem buffer, int inverse, GError ** error)
{
  VkFFTLaunchParams lp = { 0 };
  VkFFTResult res;

  lp.commandQueue = &p->queue;
  lp.buffer = &buffer;
  if (p->temp)
    lp.tempBuffer = &p->temp;
  res = VkFFTAppend (&p->app, inverse, &lp);
  if (res != VKFFT_SUCCESS) {
    set_vkfft_error (error, res, inverse > 0 ? "The inverse VkFFT transform"
        : "The forward VkFFT transform");
    return FALSE;
  }
  return TRUE;
}

gboolean
clr_fft_vkfft_forward (ClrFftVkfft * p, cl_mem buffer, GError ** error)
{
  return append (p, buffer, -1, error);
}

gboolean
clr_fft_vkfft_inverse (ClrFftVkfft * p, cl_mem buffer, GError ** error)
{
  return append (p, buffer, 1, error);
}

double
clr_fft_vkfft_build_seconds (ClrFftVkfft * p)
{
  return p->build_seconds;
}

struct _ClrFftVkfftCache
{
  ClrDevice *dev;
  GPtrArray *plans;
  double build_seconds;
};

ClrFftVkfftCache *
clr_fft_vkfft_cache_new (ClrDevice * dev)
{
  ClrFftVkfftCache *cache = g_new0 (ClrFftVkfftCache, 1);

  cache->dev = clr_device_ref (dev);
  cache->plans = g_ptr_array_new_with_free_func ((GDestroyNotify)
      clr_fft_vkfft_free);
  return cache;
}

void
clr_fft_vkfft_cache_free (ClrFftVkfftCache * cache)
{
  if (!cache)
    return;
  /* the plans' OpenCL objects go before the device that holds them */
  g_ptr_array_unref (cache->plans);
  clr_device_unref (cache->dev);
  g_free (cache);
}

ClrFftVkfft *
clr_fft_vkfft_cache_get (ClrFftVkfftCache * cache, size_t n, size_t batch,
    ClrFftPrecision precision, gboolean real, cl_mem buffer, cl_mem temp,
    GError ** error)
{
  ClrFftVkfft *p;
  guint i;

  for (i = 0; i < cache->plans->len; i++) {
    p = g_ptr_array_index (cache->plans, i);
    if (p->n == n && p->batch == batch && p->precision == precision
        && p->real == real)
      return p;
  }
  p = clr_fft_vkfft_new (cache->dev, n, batch, precision, real, buffer,
      temp, error);
  if (!p)
    return NULL;
  cache->build_seconds += p->build_seconds;
  g_ptr_array_add (cache->plans, p);
  return p;
}

double
clr_fft_vkfft_cache_build_seconds (ClrFftVkfftCache * cache)
{
  return cache->build_seconds;
}
