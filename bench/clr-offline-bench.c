/* clr-offline-bench: the offline convolution (clr-conv-offline.h)
 * on noise with long filters, one filter for every channel: the whole
 * signal in one call, with the data on the device ("device": the run
 * alone, clFinish-ed) and from host planes ("host": upload, run and read
 * back), as G samples/s (channels x frames over the time) and a multiple
 * of real time at 48 kHz. Times are the best of three after a warm-up run
 * (which builds any plan the first did not); "plan s" is the time VkFFT
 * took to build its plans (0 with the four-step transforms: "transforms"
 * says whose ran; CLRESAMPLE_OFFLINE_FOURSTEP chooses). The error is the max |error| over an excerpt
 * (the middle and the end of the first and last channels) against a
 * float64 direct convolution, in dB re the excerpt's RMS.
 *
 * usage: clr-offline-bench [--seconds S] [--device SPEC] [--f64]
 *            [--taps N,N,..] [--channels C,C,..] [--fft N,N,..]
 *            [--float-transforms] [--device-only]
 * --fft 0 lets the core choose (the default); several sizes are tried in
 * turn.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "clr-bench-util.h"
#include "conv/clr-conv-offline.h"

#define RATE 48000
#define EXCERPT 256
#define REPEATS 3
#define LIST_MAX 16

typedef struct {
  double device_s, host_s;
  double err_db;
  double plan_s;
  gboolean fourstep;
  size_t n, batch;
} Row;

/* Noise decaying by 60 dB over the filter, like a room response. */
static double *
make_filter (size_t taps)
{
  double *h = g_new (double, taps);
  guint64 state = 1000;
  size_t k;

  for (k = 0; k < taps; k++)
    h[k] = next_uniform (&state) * exp (-6.9 * k / taps);
  return h;
}

static double
sample_at (const void *p, gboolean f64, size_t i)
{
  return f64 ? ((const double *) p)[i] : ((const float *) p)[i];
}

/* max |error| over the excerpt's RMS, in dB: frames [from, from + len) of
 * channel plane `got` against the direct convolution of `x`. */
static void
excerpt_error (const void *x, const void *got, gboolean f64, size_t frames,
    const double *h, size_t taps, size_t from, size_t len, double *max_err,
    double *sum2, size_t *count)
{
  size_t t, k;

  for (t = from; t < from + len && t < frames; t++) {
    double ref = 0;
    for (k = 0; k < taps && k <= t; k++)
      ref += h[k] * sample_at (x, f64, t - k);
    *max_err = MAX (*max_err, fabs (sample_at (got, f64, t) - ref));
    *sum2 += ref * ref;
    (*count)++;
  }
}

/* --device-only: no host rows (tuning sweeps) */
static gboolean device_only;

static gboolean
measure (ClrDevice * dev, guint channels, size_t taps, size_t fft,
    size_t frames, gboolean f64, gboolean float_transforms, Row * row)
{
  const size_t ss = f64 ? sizeof (double) : sizeof (float);
  cl_command_queue queue = clr_device_get_queue (dev);
  ClrConvOfflineConfig cfg = { 0, };
  ClrConvOffline *o = NULL;
  GError *err = NULL;
  double *h = make_filter (taps);
  const double *hp[1] = { h };
  char *in = g_malloc (channels * frames * ss);
  char *out = g_malloc (channels * frames * ss);
  void **in_planes = g_new (void *, channels);
  void **out_planes = g_new (void *, channels);
  cl_mem in_mem = NULL, out_mem = NULL;
  cl_int status;
  double max_err = 0, sum2 = 0;
  size_t count = 0, i;
  guint c, r;
  gboolean ok = FALSE;

  for (c = 0; c < channels; c++) {
    guint64 state = 77 + c;
    in_planes[c] = in + c * frames * ss;
    out_planes[c] = out + c * frames * ss;
    for (i = 0; i < frames; i++) {
      double v = 0.5 * next_uniform (&state);
      if (f64)
        ((double *) in_planes[c])[i] = v;
      else
        ((float *) in_planes[c])[i] = (float) v;
    }
  }

  cfg.channels = channels;
  cfg.format = f64 ? CLR_CONV_F64 : CLR_CONV_F32;
  cfg.taps = hp;
  cfg.n_taps = taps;
  cfg.n_filters = 1;
  cfg.fft_size = fft;
  cfg.max_frames = frames;
  cfg.float_transforms = float_transforms;
  o = clr_conv_offline_new (dev, &cfg, &err);
  if (!o)
    goto fail;
  row->n = clr_conv_offline_get_fft_size (o);
  row->batch = clr_conv_offline_get_batch (o);

  in_mem = clCreateBuffer (clr_device_get_context (dev), CL_MEM_READ_ONLY,
      channels * frames * ss, NULL, &status);
  if (status != CL_SUCCESS)
    goto cl_fail;
  out_mem = clCreateBuffer (clr_device_get_context (dev), CL_MEM_WRITE_ONLY,
      channels * frames * ss, NULL, &status);
  if (status != CL_SUCCESS)
    goto cl_fail;
  status = clEnqueueWriteBuffer (queue, in_mem, CL_TRUE, 0,
      channels * frames * ss, in, 0, NULL, NULL);
  if (status != CL_SUCCESS)
    goto cl_fail;

  row->device_s = INFINITY;
  for (r = 0; r <= REPEATS; r++) {
    double t0 = now_s (), t;
    if (!clr_conv_offline_run (o, in_mem, out_mem, frames, &err))
      goto fail;
    if ((status = clFinish (queue)) != CL_SUCCESS)
      goto cl_fail;
    t = now_s () - t0;
    /* run 0 is the warm-up */
    if (r > 0)
      row->device_s = MIN (row->device_s, t);
  }
  status = clEnqueueReadBuffer (queue, out_mem, CL_TRUE, 0,
      channels * frames * ss, out, 0, NULL, NULL);
  if (status != CL_SUCCESS)
    goto cl_fail;
  for (c = 0; c < channels; c += MAX (1, channels - 1)) {
    excerpt_error (in_planes[c], out_planes[c], f64, frames, h, taps,
        frames / 2, EXCERPT, &max_err, &sum2, &count);
    excerpt_error (in_planes[c], out_planes[c], f64, frames, h, taps,
        frames - MIN (frames, EXCERPT), EXCERPT, &max_err, &sum2, &count);
  }
  row->err_db = 20 * log10 (max_err / sqrt (sum2 / count));

  row->host_s = INFINITY;
  for (r = 0; r <= REPEATS && !device_only; r++) {
    double t0 = now_s (), t;
    if (!clr_conv_offline_process (o, (const void *const *) in_planes,
            frames, out_planes, &err))
      goto fail;
    t = now_s () - t0;
    if (r > 0)
      row->host_s = MIN (row->host_s, t);
  }
  row->plan_s = clr_conv_offline_get_plan_seconds (o);
  row->fourstep = clr_conv_offline_is_fourstep (o);
  ok = TRUE;
  goto out;

cl_fail:
  clr_set_cl_error (&err, status, "The bench's buffers");
fail:
  fprintf (stderr, "%u channels, %" G_GSIZE_FORMAT " taps: %s\n", channels,
      taps, err->message);
  g_error_free (err);
out:
  if (in_mem)
    clReleaseMemObject (in_mem);
  if (out_mem)
    clReleaseMemObject (out_mem);
  clr_conv_offline_free (o);
  g_free (in_planes);
  g_free (out_planes);
  g_free (in);
  g_free (out);
  g_free (h);
  return ok;
}

int
main (int argc, char **argv)
{
  double seconds = 10;
  gchar *spec = NULL, *taps_text = NULL, *channels_text = NULL,
      *fft_text = NULL;
  gboolean f64 = FALSE, float_transforms = FALSE;
  guint64 taps[LIST_MAX], channels[LIST_MAX], ffts[LIST_MAX];
  guint n_taps, n_channels, n_ffts, t, c, f;
  GOptionEntry entries[] = {
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Seconds of noise at 48 kHz (default 10)", "S"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &spec,
        "OpenCL device: auto, gpu, cpu, N, P:D or a name substring", "SPEC"},
    {"f64", 0, 0, G_OPTION_ARG_NONE, &f64,
        "F64 samples and double transforms (default F32)", NULL},
    {"float-transforms", 0, 0, G_OPTION_ARG_NONE, &float_transforms,
        "F32 transforms in float arithmetic (default: double where the "
          "device has it)", NULL},
    {"taps", 't', 0, G_OPTION_ARG_STRING, &taps_text,
        "Filter lengths (default 8192,65536,262144,1048576)", "N,N,.."},
    {"channels", 'c', 0, G_OPTION_ARG_STRING, &channels_text,
        "Channel counts (default 2,32)", "C,C,.."},
    {"device-only", 0, 0, G_OPTION_ARG_NONE, &device_only,
        "Time the data-on-the-device path only", NULL},
    {"fft", 0, 0, G_OPTION_ARG_STRING, &fft_text,
        "FFT sizes, powers of two; 0: the core's choice (default 0)",
        "N,N,.."},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- the offline convolution");
  GError *err = NULL;
  ClrDevice *dev;
  size_t frames;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  n_taps = parse_list (taps_text ? taps_text : "8192,65536,262144,1048576",
      taps, LIST_MAX, FALSE);
  n_channels = parse_list (channels_text ? channels_text : "2,32", channels,
      LIST_MAX, FALSE);
  n_ffts = parse_list (fft_text ? fft_text : "0", ffts, LIST_MAX, TRUE);
  frames = (size_t) (seconds * RATE);
  if (!n_taps || !n_channels || !n_ffts || frames == 0) {
    fprintf (stderr, "bad --taps, --channels, --fft or --seconds\n");
    return 2;
  }
  dev = clr_device_acquire (spec ? spec : "auto", &err);
  if (!dev) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }

  printf ("# clr-offline-bench: %s, %s%s, %.1f s of 48 kHz noise, one "
      "filter for all channels; load %.2f\n", clr_device_get_name (dev),
      f64 ? "F64" : "F32", f64 ? "" : float_transforms ?
      " (float transforms)" : clr_device_has_fp64 (dev) ?
      " (double transforms)" : " (float transforms)", seconds,
      load_average ());
  printf ("| taps | channels | fft | batch | seconds | device us | G samples/s "
      "| x real time | host us | host G samples/s | host x real time | "
      "err dB re RMS | plan s | transforms |\n");
  printf ("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  fflush (stdout);
  for (t = 0; t < n_taps; t++) {
    for (c = 0; c < n_channels; c++) {
      for (f = 0; f < n_ffts; f++) {
        Row row = { 0, };
        double samples = (double) channels[c] * frames;
        if (ffts[f] && ffts[f] < taps[t])
          continue;
        if (!measure (dev, channels[c], taps[t], ffts[f], frames, f64,
                float_transforms, &row))
          continue;
        printf ("| %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %"
            G_GSIZE_FORMAT " | %" G_GSIZE_FORMAT " | %.1f | %.0f | %.2f | "
            "%.0f | %.0f | %.2f | %.0f | %.1f | %.2f | %s |\n", taps[t],
            channels[c], row.n, row.batch, seconds, row.device_s * 1e6,
            samples / row.device_s / 1e9, seconds / row.device_s,
            row.host_s * 1e6, samples / row.host_s / 1e9,
            seconds / row.host_s, row.err_db, row.plan_s,
            row.fourstep ? "four-step" : "VkFFT");
        fflush (stdout);
      }
    }
  }
  clr_device_unref (dev);
  g_free (spec);
  g_free (taps_text);
  g_free (channels_text);
  g_free (fft_text);
  return 0;
}
