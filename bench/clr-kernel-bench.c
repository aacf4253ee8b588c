/* clr-kernel-bench: the resampling kernel alone, data already on the device
 * (clr_engine_bench_kernel), for one configuration given on the command
 * line; prints output samples per second and MACs per second. Quicker than
 * clr-bench's W5 for trying kernel variants (CLRESAMPLE_* variables).
 *
 *   clr-kernel-bench CHANNELS IN_RATE OUT_RATE QUALITY IN_FRAMES [FORMAT]
 *   FORMAT: 0 F32 (default), 1 F64, 2 S16, 3 S32, 4 S24_32; DEV=gpu|cpu|...
 */
#include <stdio.h>
#include <stdlib.h>
#include "resample/clr-engine.h"

int
main (int argc, char **argv)
{
  GError *err = NULL;
  ClrDevice *dev;
  ClrEngine *e;
  ClrEngineConfig cfg = { 0, };
  const void *in_planes[CLR_CHANNELS_MAX];
  void *out_planes[CLR_CHANNELS_MAX];
  size_t frames, out_cap, n = 0, ss, i;
  double secs = 0.0;
  char *in, *out;
  unsigned c;

  if (argc < 6) {
    fprintf (stderr, "usage: %s CHANNELS IN_RATE OUT_RATE QUALITY IN_FRAMES "
        "[FORMAT]\n", argv[0]);
    return 2;
  }
  cfg.channels = atoi (argv[1]);
  cfg.in_rate = atoi (argv[2]);
  cfg.out_rate = atoi (argv[3]);
  cfg.quality = atoi (argv[4]);
  frames = strtoul (argv[5], NULL, 10);
  cfg.format = argc > 6 ? atoi (argv[6]) : CLR_FORMAT_F32;
  cfg.planar = getenv ("PLANAR") != NULL;
  if (cfg.channels == 0 || cfg.channels > CLR_CHANNELS_MAX || frames == 0)
    return 2;
  dev = clr_device_acquire (getenv ("DEV") ? getenv ("DEV") : "auto", &err);
  if (!dev || !(e = clr_engine_new (dev, &cfg, &err))) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  ss = clr_format_size (cfg.format);
  out_cap = clr_engine_out_frames (e, frames) + 16;
  in = g_malloc0 (frames * cfg.channels * ss);
  out = g_malloc0 (out_cap * cfg.channels * ss);
  /* noise, not zeros: zeros can run faster than real data */
  for (i = 0; i < frames * cfg.channels * ss; i++)
    in[i] = (char) (g_random_int () & 0x3f);
  for (c = 0; c < cfg.channels; c++) {
    in_planes[c] = in + (cfg.planar ? c * frames * ss : 0);
    out_planes[c] = out + (cfg.planar ? c * out_cap * ss : 0);
  }
  if (!clr_engine_bench_kernel (e, in_planes, frames, 5, out_planes, &n,
          &secs, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 1;
  }
  printf ("%s: %u ch %u->%u q%d taps %u: %zu out frames in %.3f ms: "
      "%.1f M out samples/s, %.2f G MAC/s, %.0fx real time\n",
      clr_device_get_name (dev), cfg.channels, cfg.in_rate, cfg.out_rate,
      cfg.quality, clr_engine_get_filter (e)->taps, n, secs * 1e3,
      n * cfg.channels / secs / 1e6, n * cfg.channels *
      (double) clr_engine_get_filter (e)->taps / secs / 1e9,
      (double) n / cfg.out_rate / secs);
  clr_engine_free (e);
  clr_device_unref (dev);
  g_free (in);
  g_free (out);
  return 0;
}
