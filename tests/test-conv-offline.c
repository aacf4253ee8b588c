/* clresample: tests of the offline convolution on VkFFT and on its own
 * four-step transforms (clr-conv-offline.h) against a float64 direct convolution computed here,
 * and of its refusals. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "clr-conv-check.h"
#include "conv/clr-conv-offline.h"

static ClrDevice *device;

/* Max |error| over the output RMS: F32 with transforms in double (float
 * in memory), F32 with float transforms (no fp64, or asked for), F64. */
#define F32_MAX 1e-6
#define F32_FLOAT_MAX 3e-6
#define F64_MAX 1e-12
/* Direct reference sums past this many multiply-adds are taken at sampled
 * frames only. */
#define FULL_REFERENCE_MACS 60000000.0
#define GUARD 67

typedef struct {
  const char *name;
  size_t taps;
  unsigned channels;
  gboolean per_channel;         /* one filter a channel, else one for all */
  ClrConvFormat format;
  size_t fft_size;              /* 0: chosen */
  guint64 device_memory;        /* 0: the environment's */
  size_t frames[4];             /* call lengths, 0-terminated */
  gboolean tail;                /* all of y (frames + taps - 1), else frames */
  gboolean float_transforms;
  ClrConvOfflineTransforms transforms;
} OfflineCase;

static const OfflineCase cases[] = {
  {"1-tap-mono", 1, 1, FALSE, CLR_CONV_F32, 0, 0, {1, 5000, 4096}, TRUE},
  {"2-taps-stereo-own", 2, 2, TRUE, CLR_CONV_F32, 0, 0, {4095, 9000}, TRUE},
  {"127-taps-6ch", 127, 6, FALSE, CLR_CONV_F32, 0, 0, {100, 3970, 10007},
      TRUE},
  {"127-taps-6ch-own-f64", 127, 6, TRUE, CLR_CONV_F64, 0, 0, {3971, 10007},
      FALSE},
  /* the smallest transform: 4 complex points, bins 0 and 2 paired with
   * themselves */
  {"5-taps-fft-8", 5, 1, FALSE, CLR_CONV_F32, 8, 0, {50, 3}, TRUE},
  /* 2^4 x 3 x 5 x 7: radices 3, 5 and 7 */
  {"100-taps-fft-1680", 100, 2, TRUE, CLR_CONV_F32, 1680, 0, {5000, 1581},
      TRUE},
  /* hop 2: a row for every other frame, thousands of rows a call */
  {"127-taps-fft-128", 127, 2, TRUE, CLR_CONV_F32, 128, 0, {1001, 2}, TRUE},
  /* a budget for a few rows a batch: many batches, a short last one on a
   * plan of its own */
  {"127-taps-6ch-own-batches", 127, 6, TRUE, CLR_CONV_F32, 1024, 1200 * 1024,
      {20000, 777}, TRUE},
  {"8192-taps-stereo-own", 8192, 2, TRUE, CLR_CONV_F32, 0, 0,
      {100, 24577, 50000}, TRUE},
  {"8192-taps-stereo-f64", 8192, 2, FALSE, CLR_CONV_F64, 0, 0, {24577, 300},
      TRUE},
  {"8191-taps-6ch-2x", 8191, 6, FALSE, CLR_CONV_F32, 16384, 0, {40000},
      FALSE},
  {"65536-taps-mono", 65536, 1, FALSE, CLR_CONV_F32, 0, 0, {150000, 9},
      TRUE},
  {"8192-taps-stereo-float-transforms", 8192, 2, FALSE, CLR_CONV_F32, 0, 0,
      {50000}, FALSE, TRUE},
  {"65533-taps-stereo-own-f64", 65533, 2, TRUE, CLR_CONV_F64, 0, 0,
      {70001}, TRUE},
  /* the four-step transforms (conv-fourstep.cl) on every shape they take:
   * n / 2 = 32 x 32 (two steps of radix 16 and 2), 32 x 64, 128 x 128,
   * 256 x 512 (three steps), 1024 x 2048 (the largest groups) */
  {"fourstep-1-tap-mono", 1, 1, FALSE, CLR_CONV_F32, 2048, 0, {1, 5000},
      TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-127-taps-6ch-own", 127, 6, TRUE, CLR_CONV_F32, 4096, 0,
      {100, 3970, 10007}, TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-127-taps-6ch-own-batches", 127, 6, TRUE, CLR_CONV_F32, 4096,
      1200 * 1024, {20000, 777}, TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-8192-taps-stereo-own", 8192, 2, TRUE, CLR_CONV_F32, 0, 0,
      {100, 24577, 50000}, TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-8191-taps-stereo-f64", 8191, 2, FALSE, CLR_CONV_F64, 0, 0,
      {24577, 300}, TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-65536-taps-mono", 65536, 1, FALSE, CLR_CONV_F32, 0, 0,
      {150000, 9}, TRUE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  {"fourstep-300-taps-stereo-fft-4M", 300, 2, FALSE, CLR_CONV_F32,
      4194304, 0, {4194000}, FALSE, FALSE, CLR_CONV_OFFLINE_FOURSTEP},
  /* and VkFFT's where the default would take the four-step ones */
  {"vkfft-8192-taps-stereo-own", 8192, 2, TRUE, CLR_CONV_F32, 0, 0,
      {24577}, TRUE, FALSE, CLR_CONV_OFFLINE_VKFFT},
};

static size_t
sample_size (ClrConvFormat format)
{
  return format == CLR_CONV_F64 ? sizeof (double) : sizeof (float);
}

static double
sample_at (const void *plane, ClrConvFormat format, size_t i)
{
  return format == CLR_CONV_F64 ? ((const double *) plane)[i]
      : ((const float *) plane)[i];
}

/* The output frames to check: all of them where that is cheap; else the
 * ends, the first segments' edges and a spread in between. */
static GArray *
frames_to_check (size_t out_frames, size_t taps, size_t hop)
{
  GArray *at = g_array_new (FALSE, FALSE, sizeof (size_t));
  guint64 state = 5;
  size_t t, s;

  if ((double) out_frames * taps <= FULL_REFERENCE_MACS) {
    for (t = 0; t < out_frames; t++)
      g_array_append_val (at, t);
    return at;
  }
  for (t = 0; t < MIN (out_frames, 300); t++)
    g_array_append_val (at, t);
  for (t = out_frames - MIN (out_frames, 300); t < out_frames; t++)
    g_array_append_val (at, t);
  for (s = 1; s < 8; s++) {
    for (t = s * hop - MIN (s * hop, 3); t < s * hop + 3; t++)
      if (t < out_frames)
        g_array_append_val (at, t);
  }
  for (s = 0; s < 1500; s++) {
    t = (size_t) ((clr_check_uniform (&state) + 1.0) / 2.0 * out_frames);
    t = MIN (t, out_frames - 1);
    g_array_append_val (at, t);
  }
  return at;
}

static gboolean
is_poison (const void *plane, ClrConvFormat format, size_t i)
{
  return isnan (sample_at (plane, format, i));
}

static cl_mem
make_buffer (size_t bytes)
{
  cl_int status;
  cl_mem m = clCreateBuffer (clr_device_get_context (device),
      CL_MEM_READ_WRITE, bytes, NULL, &status);

  g_assert_cmpint (status, ==, CL_SUCCESS);
  return m;
}

static void
test_reference (gconstpointer data)
{
  const OfflineCase *tc = data;
  const size_t ss = sample_size (tc->format);
  const unsigned n_filters = tc->per_channel ? tc->channels : 1;
  cl_command_queue queue = clr_device_get_queue (device);
  ClrConvOfflineConfig cfg = { 0, };
  ClrConvOffline *o;
  GError *err = NULL;
  double **h = clr_check_filters (n_filters, tc->taps);
  double worst = 0, limit;
  size_t max_frames = 0, i, hop;

  for (i = 0; i < G_N_ELEMENTS (tc->frames) && tc->frames[i]; i++)
    max_frames = MAX (max_frames, tc->frames[i]);
  cfg.channels = tc->channels;
  cfg.format = tc->format;
  cfg.taps = (const double *const *) h;
  cfg.n_taps = tc->taps;
  cfg.n_filters = n_filters;
  cfg.fft_size = tc->fft_size;
  cfg.max_frames = max_frames;
  cfg.device_memory = tc->device_memory;
  cfg.float_transforms = tc->float_transforms;
  cfg.transforms = tc->transforms;

  if (tc->format == CLR_CONV_F64 && !clr_device_has_fp64 (device)) {
    g_test_skip ("no fp64 on this device");
    clr_check_free_planes (h, n_filters);
    return;
  }
  if (tc->transforms == CLR_CONV_OFFLINE_FOURSTEP
      && !clr_device_has_fp64 (device)) {
    /* they compute in double: refused, with the reason */
    g_assert_null (clr_conv_offline_new (device, &cfg, &err));
    g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
    g_assert_nonnull (strstr (err->message, "no double precision"));
    g_test_message ("%s: refused without fp64: %s", tc->name, err->message);
    g_clear_error (&err);
    clr_check_free_planes (h, n_filters);
    return;
  }
  limit = tc->format == CLR_CONV_F64 ? F64_MAX : tc->float_transforms
      || !clr_device_has_fp64 (device) ? F32_FLOAT_MAX : F32_MAX;
  o = clr_conv_offline_new (device, &cfg, &err);
  g_assert_no_error (err);
  g_assert_nonnull (o);
  if (tc->fft_size)
    g_assert_cmpuint (clr_conv_offline_get_fft_size (o), ==, tc->fft_size);
  if (tc->transforms != CLR_CONV_OFFLINE_AUTO)
    g_assert_cmpint (clr_conv_offline_is_fourstep (o), ==,
        tc->transforms == CLR_CONV_OFFLINE_FOURSTEP);
  g_assert_cmpuint (clr_conv_offline_get_fft_size (o), >=, tc->taps);
  hop = clr_conv_offline_get_fft_size (o) - tc->taps + 1;
  if (tc->device_memory) {
    /* the budget was small enough to cut the calls into batches */
    g_assert_cmpuint (clr_conv_offline_get_batch (o) * hop, <,
        max_frames * tc->channels);
  }

  for (i = 0; i < G_N_ELEMENTS (tc->frames) && tc->frames[i]; i++) {
    const size_t frames = tc->frames[i];
    const size_t out_frames = tc->tail ? frames + tc->taps - 1 : frames;
    const size_t pitch = out_frames + GUARD;
    void **in = g_new (void *, tc->channels);
    double **x = g_new (double *, tc->channels);
    void **host_out = g_new (void *, tc->channels);
    char *out = g_malloc (tc->channels * pitch * ss);
    char *in_all = g_malloc (tc->channels * frames * ss);
    cl_mem in_mem = make_buffer (tc->channels * frames * ss);
    cl_mem out_mem = make_buffer (tc->channels * pitch * ss);
    double nan64 = NAN;
    float nan32 = NAN;
    double max_err = 0, sum2 = 0, rms;
    size_t n_checked = 0, t, j;
    unsigned c;
    cl_int status;

    for (c = 0; c < tc->channels; c++) {
      guint64 state = 77 + c + 1000 * i;
      x[c] = g_new (double, frames);
      in[c] = in_all + c * frames * ss;
      host_out[c] = g_malloc (out_frames * ss);
      for (t = 0; t < frames; t++) {
        double v = 0.5 * clr_check_uniform (&state);
        if (tc->format == CLR_CONV_F64) {
          ((double *) in[c])[t] = v;
        } else {
          ((float *) in[c])[t] = (float) v;
          v = (float) v;
        }
        x[c][t] = v;
      }
    }

    /* on the device: every frame of y written, nothing past it */
    status = clEnqueueWriteBuffer (queue, in_mem, CL_TRUE, 0,
        tc->channels * frames * ss, in_all, 0, NULL, NULL);
    g_assert_cmpint (status, ==, CL_SUCCESS);
    status = clEnqueueFillBuffer (queue, out_mem, tc->format == CLR_CONV_F64
        ? (void *) &nan64 : (void *) &nan32, ss, 0, tc->channels * pitch * ss,
        0, NULL, NULL);
    g_assert_cmpint (status, ==, CL_SUCCESS);
    g_assert_true (clr_conv_offline_run_full (o, in_mem, frames, out_mem,
            pitch, frames, out_frames, &err));
    g_assert_no_error (err);
    status = clEnqueueReadBuffer (queue, out_mem, CL_TRUE, 0,
        tc->channels * pitch * ss, out, 0, NULL, NULL);
    g_assert_cmpint (status, ==, CL_SUCCESS);

    /* through host planes: the same kernels, the same bits */
    g_assert_true (clr_conv_offline_process_full (o,
            (const void *const *) in, frames, host_out, out_frames, &err));
    g_assert_no_error (err);

    for (c = 0; c < tc->channels; c++) {
      const char *plane = out + c * pitch * ss;
      const double *hc = h[tc->per_channel ? c : 0];
      GArray *at = frames_to_check (out_frames, tc->taps, hop);

      g_assert_cmpmem (plane, out_frames * ss, host_out[c],
          out_frames * ss);
      for (t = out_frames; t < pitch; t++)
        g_assert_true (is_poison (plane, tc->format, t));
      for (j = 0; j < at->len; j++) {
        size_t tt = g_array_index (at, size_t, j);
        double ref = clr_check_direct (hc, tc->taps, x[c], frames, tt);
        double got = sample_at (plane, tc->format, tt);
        g_assert_false (isnan (got));
        max_err = MAX (max_err, fabs (got - ref));
        sum2 += ref * ref;
        n_checked++;
      }
      g_array_unref (at);
    }
    rms = sqrt (sum2 / n_checked);
    g_assert_cmpfloat (rms, >, 0);
    g_test_message ("%s: %" G_GSIZE_FORMAT " frames -> %" G_GSIZE_FORMAT
        ", n %" G_GSIZE_FORMAT ", batch %" G_GSIZE_FORMAT ": max err / RMS "
        "%.2e over %" G_GSIZE_FORMAT " frames", tc->name, frames, out_frames,
        clr_conv_offline_get_fft_size (o), clr_conv_offline_get_batch (o),
        max_err / rms, n_checked);
    worst = MAX (worst, max_err / rms);

    clReleaseMemObject (in_mem);
    clReleaseMemObject (out_mem);
    clr_check_free_planes (x, tc->channels);
    clr_check_free_planes (host_out, tc->channels);
    g_free (in);
    g_free (in_all);
    g_free (out);
  }
  g_test_message ("%s: worst max err / RMS %.2e (limit %.0e), plans built "
      "in %.2f s", tc->name, worst, limit,
      clr_conv_offline_get_plan_seconds (o));
  g_assert_cmpfloat (worst, <=, limit);
  clr_conv_offline_free (o);
  clr_check_free_planes (h, n_filters);
}

/* The default call: y[0, frames), the same bits as the _full call's
 * first frames, and the refusals of calls out of bounds. */
static void
test_run_bounds (void)
{
  const size_t taps = 31, frames = 5000;
  cl_command_queue queue = clr_device_get_queue (device);
  double **h = clr_check_filters (1, taps);
  ClrConvOfflineConfig cfg = { 0, };
  ClrConvOffline *o;
  GError *err = NULL;
  float *in = g_new (float, frames), *a = g_new (float, frames),
      *b = g_new (float, frames + taps - 1);
  void *ap[1] = { a }, *bp[1] = { b };
  const void *ip[1] = { in };
  cl_mem in_mem, out_mem;
  guint64 state = 3;
  size_t t;

  for (t = 0; t < frames; t++)
    in[t] = (float) clr_check_uniform (&state);
  cfg.channels = 1;
  cfg.format = CLR_CONV_F32;
  cfg.taps = (const double *const *) h;
  cfg.n_taps = taps;
  cfg.n_filters = 1;
  cfg.max_frames = frames;
  o = clr_conv_offline_new (device, &cfg, &err);
  g_assert_no_error (err);

  in_mem = make_buffer (frames * sizeof (float));
  out_mem = make_buffer (frames * sizeof (float));
  g_assert_cmpint (clEnqueueWriteBuffer (queue, in_mem, CL_TRUE, 0,
          frames * sizeof (float), in, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clr_conv_offline_run (o, in_mem, out_mem, frames, &err));
  g_assert_no_error (err);
  g_assert_cmpint (clEnqueueReadBuffer (queue, out_mem, CL_TRUE, 0,
          frames * sizeof (float), a, 0, NULL, NULL), ==, CL_SUCCESS);
  g_assert_true (clr_conv_offline_process_full (o, ip, frames, bp,
          frames + taps - 1, &err));
  g_assert_no_error (err);
  g_assert_cmpmem (a, frames * sizeof (float), b, frames * sizeof (float));
  g_assert_true (clr_conv_offline_process (o, ip, frames, ap, &err));
  g_assert_no_error (err);
  g_assert_cmpmem (a, frames * sizeof (float), b, frames * sizeof (float));

  g_assert_false (clr_conv_offline_process (o, ip, frames + 1, ap, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);
  g_assert_false (clr_conv_offline_process_full (o, ip, frames, bp,
          frames + taps, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);
  /* an output pitch shorter than the output would overlap the channels */
  g_assert_false (clr_conv_offline_run_full (o, in_mem, frames, out_mem,
          frames - 1, frames, frames, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);

  clReleaseMemObject (in_mem);
  clReleaseMemObject (out_mem);
  clr_conv_offline_free (o);
  clr_check_free_planes (h, 1);
  g_free (in);
  g_free (a);
  g_free (b);
}

static void
expect_refused (const ClrConvOfflineConfig * cfg, int code,
    const char *in_message)
{
  GError *err = NULL;
  ClrConvOffline *o = clr_conv_offline_new (device, cfg, &err);

  g_assert_null (o);
  g_assert_error (err, CLR_ERROR, code);
  if (in_message && !strstr (err->message, in_message))
    g_error ("'%s' does not say '%s'", err->message, in_message);
  g_error_free (err);
}

static void
test_errors (void)
{
  double **h = clr_check_filters (2, 64);
  const double *no_filter[1] = { NULL };
  ClrConvOfflineConfig good = { 0, }, cfg;

  good.channels = 2;
  good.format = CLR_CONV_F32;
  good.taps = (const double *const *) h;
  good.n_taps = 64;
  good.n_filters = 2;
  good.max_frames = 1000;

  cfg = good;
  cfg.channels = 0;
  expect_refused (&cfg, CLR_ERROR_INVALID, "0 channels");
  cfg = good;
  cfg.channels = CLR_CONV_OFFLINE_CHANNELS_MAX + 1;
  cfg.n_filters = 1;
  expect_refused (&cfg, CLR_ERROR_INVALID, "channels");
  cfg = good;
  cfg.n_taps = 0;
  expect_refused (&cfg, CLR_ERROR_INVALID, "0 taps");
  cfg = good;
  cfg.taps = NULL;
  expect_refused (&cfg, CLR_ERROR_INVALID, "0 taps");
  cfg = good;
  cfg.n_filters = 1;
  cfg.taps = no_filter;
  expect_refused (&cfg, CLR_ERROR_INVALID, "Filter 0 is NULL");
  cfg = good;
  cfg.n_filters = 3;
  expect_refused (&cfg, CLR_ERROR_INVALID, "3 filters for 2 channels");
  cfg = good;
  cfg.format = (ClrConvFormat) 7;
  expect_refused (&cfg, CLR_ERROR_INVALID, "format");
  cfg = good;
  cfg.fft_size = 1100;
  expect_refused (&cfg, CLR_ERROR_INVALID, "FFT size 1100");
  /* 8 x 11: VkFFT would go through Bluestein's algorithm */
  cfg = good;
  cfg.fft_size = 88;
  expect_refused (&cfg, CLR_ERROR_INVALID, "FFT size 88");
  cfg = good;
  cfg.fft_size = 32;
  expect_refused (&cfg, CLR_ERROR_INVALID, "FFT size 32");
  cfg = good;
  cfg.n_taps = 3;
  cfg.fft_size = 4;
  expect_refused (&cfg, CLR_ERROR_INVALID, "FFT size 4");
  cfg = good;
  cfg.max_frames = 0;
  expect_refused (&cfg, CLR_ERROR_INVALID, "max_frames");
  /* the four-step transforms asked for where they do not apply */
  cfg = good;
  cfg.transforms = CLR_CONV_OFFLINE_FOURSTEP;
  if (clr_device_has_fp64 (device)) {
    cfg.fft_size = 1680;
    expect_refused (&cfg, CLR_ERROR_INVALID, "not a power of two");
    cfg.fft_size = 1024;
    expect_refused (&cfg, CLR_ERROR_INVALID, "not a power of two from 2048");
    cfg.fft_size = 0;
    cfg.float_transforms = TRUE;
    expect_refused (&cfg, CLR_ERROR_INVALID, "float_transforms");
  } else {
    expect_refused (&cfg, CLR_ERROR_INVALID, "no double precision");
  }
  /* the spectra (2 filters of 4096 + 2 floats) and the twiddles (1025
   * complex values for multiply, 1028 for the four-step transforms; double
   * where the device has it) fit, the host path's buffers and one segment
   * do not */
  cfg = good;
  cfg.fft_size = 4096;
  cfg.device_memory = 2 * (4096 + 2) * 4 + 1028 * 16 + 100;
  expect_refused (&cfg, CLR_ERROR_RESOURCES, "One segment");
  /* not even the spectra */
  cfg = good;
  cfg.device_memory = 1000;
  expect_refused (&cfg, CLR_ERROR_RESOURCES, "budget");
  cfg = good;
  cfg.format = CLR_CONV_F64;
  if (!clr_device_has_fp64 (device))
    expect_refused (&cfg, CLR_ERROR_INVALID, "double precision");

  h[1][17] = NAN;
  expect_refused (&good, CLR_ERROR_INVALID, "Filter 1 has a non-finite tap "
      "at 17");
  h[1][17] = INFINITY;
  expect_refused (&good, CLR_ERROR_INVALID, "at 17");
  clr_check_free_planes (h, 2);
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  size_t i;
  int ret;

  g_test_init (&argc, &argv, NULL);
  device = clr_device_acquire ("auto", &err);
  if (!device)
    g_error ("no OpenCL device for the tests: %s", err->message);

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *name = g_strdup_printf ("/conv-offline/reference/%s",
        cases[i].name);
    g_test_add_data_func (name, &cases[i], test_reference);
    g_free (name);
  }
  g_test_add_func ("/conv-offline/run-bounds", test_run_bounds);
  g_test_add_func ("/conv-offline/errors", test_errors);
  ret = g_test_run ();
  clr_device_unref (device);
  clr_device_clear_cache ();
  return ret;
}
