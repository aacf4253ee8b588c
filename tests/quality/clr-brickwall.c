/* clresample quality harness: the response of a very long filter, measured
 * on the engine's output.
 *
 * An impulse goes through the engine (F64 where the device has doubles,
 * 44.1 -> 705.6 kHz, the FFT path where the plan picks it); the output is
 * then h sampled at the output rate, the whole filter, and its spectrum
 * (zero-padded FFT in double, no window: the response is finite) gives the
 * passband ripple, the -3 and -6 dB points and the stopband, in docs/
 * quality.md ("Very long filters"). Also times the engine's set-up (filter
 * design and spectra), which the element does on its streaming thread.
 *
 *   clr-brickwall [--taps K] [--quality Q] [--rate HZ] [--csv FILE] [--check]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "clr-analysis.h"
#include "resample/clr-engine.h"

static gint taps = 63488, quality = 10, out_rate = 705600;
static gboolean check;
static gchar *csv_path;

static GOptionEntry entries[] = {
  {"taps", 't', 0, G_OPTION_ARG_INT, &taps, "Taps per phase (default 63488)",
      "K"},
  {"quality", 'q', 0, G_OPTION_ARG_INT, &quality, "Quality (default 10)",
      "Q"},
  {"rate", 'r', 0, G_OPTION_ARG_INT, &out_rate,
      "Output rate from 44100 Hz (default 705600)", "HZ"},
  {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path,
      "Write the response (Hz, dB) to FILE, for docs/plot-brickwall.py",
      "FILE"},
  {"check", 0, 0, G_OPTION_ARG_NONE, &check,
      "Assert the figures against the design (exit 1 if not)", NULL},
  {NULL}
};

/* The frequency (Hz) where the response first falls below `db`,
 * interpolated between bins; NAN if it never does. */
static double
crossing (const double *mag_db, size_t bins, double hz_per_bin, double db)
{
  size_t k;

  for (k = 1; k < bins; k++)
    if (mag_db[k] < db) {
      double t = (mag_db[k - 1] - db) / (mag_db[k - 1] - mag_db[k]);
      return (k - 1 + t) * hz_per_bin;
    }
  return NAN;
}

int
main (int argc, char **argv)
{
  const uint32_t in_rate = 44100;
  GOptionContext *ctx = g_option_context_new ("- a long filter's response");
  GError *err = NULL;
  ClrDevice *dev;
  ClrEngineConfig cfg = { 0, };
  ClrEngine *e;
  const ClrFilter *f;
  size_t n_in, n_out, got, tail, L, k, bins, i;
  double *in, *out, *re, *im, *mag;
  double t0, setup_s, hz_per_bin, pass_hz, ripple = 0, ripple_20k = 0;
  double stop_db = -INFINITY, minus3, minus6, peak = -INFINITY;
  int failures = 0;
  void *ip[1], *op[1];

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  dev = clr_device_acquire ("auto", &err);
  if (!dev) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  cfg.in_rate = in_rate;
  cfg.out_rate = out_rate;
  cfg.channels = 1;
  cfg.quality = quality;
  cfg.taps = taps;
  cfg.format = clr_device_has_fp64 (dev) ? CLR_FORMAT_F64 : CLR_FORMAT_F32;
  t0 = g_get_monotonic_time ();
  e = clr_engine_new (dev, &cfg, &err);
  setup_s = (g_get_monotonic_time () - t0) / 1e6;
  if (!e) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  f = clr_engine_get_filter (e);

  /* the impulse K/2 + 8 frames in: the whole response lies within the
   * output, whose frame 0 is aligned with input frame 0 */
  n_in = f->taps + 16;
  in = g_new0 (double, n_in);
  in[f->taps / 2 + 8] = 1.0;
  n_out = clr_ratio_out_total (clr_engine_get_ratio (e), n_in);
  out = g_new0 (double, n_out + 1);
  /* through the engine in its format: the doubles themselves, or floats
   * copied back */
  {
    const gboolean f32 = cfg.format == CLR_FORMAT_F32;
    const size_t ss = f32 ? sizeof (float) : sizeof (double);
    float *inf = f32 ? g_new0 (float, n_in) : NULL;
    float *outf = f32 ? g_new0 (float, n_out + 1) : NULL;

    if (f32)
      inf[f->taps / 2 + 8] = 1.0f;
    ip[0] = f32 ? (void *) inf : (void *) in;
    op[0] = f32 ? (void *) outf : (void *) out;
    g_assert (clr_engine_process (e, (const void *const *) ip, n_in, op, &got,
            &err));
    op[0] = (char *) op[0] + got * ss;
    g_assert (clr_engine_drain (e, op, &tail, &err));
    for (i = 0; f32 && i < got + tail; i++)
      out[i] = outf[i];
    g_free (inf);
    g_free (outf);
  }
  g_assert_cmpuint (got + tail, ==, n_out);

  /* 4x zero padding at least: bins of out_rate / L Hz */
  for (L = 1; L < 4 * n_out; L <<= 1);
  re = g_new0 (double, L);
  im = g_new0 (double, L);
  memcpy (re, out, n_out * sizeof (double));
  clr_fft (re, im, L, 0);
  bins = L / 2 + 1;
  mag = g_new (double, bins);
  hz_per_bin = (double) out_rate / L;
  /* the gain at DC of an I-phase interpolator is I */
  for (k = 0; k < bins; k++)
    mag[k] = 20 * log10 (hypot (re[k], im[k]) * in_rate / out_rate + 1e-300);
  pass_hz = f->pass_edge * in_rate / 2.0;
  for (k = 0; k < bins; k++) {
    double hz = k * hz_per_bin;
    if (hz <= pass_hz)
      ripple = MAX (ripple, fabs (mag[k]));
    if (hz <= 20000)
      ripple_20k = MAX (ripple_20k, fabs (mag[k]));
    if (hz >= in_rate / 2.0)
      stop_db = MAX (stop_db, mag[k]);
    peak = MAX (peak, mag[k]);
  }
  if (csv_path) {
    FILE *csv = fopen (csv_path, "w");

    if (!csv) {
      g_printerr ("Cannot write %s\n", csv_path);
      return 2;
    }
    /* every bin near the edge, one in 64 elsewhere (the file stays small) */
    fprintf (csv, "hz,db\n");
    for (k = 0; k < bins; k++) {
      double hz = k * hz_per_bin;
      if (fabs (hz - in_rate / 2.0) < 200 || k % 64 == 0)
        fprintf (csv, "%.4f,%.4f\n", hz, mag[k]);
    }
    fclose (csv);
  }
  minus3 = crossing (mag, bins, hz_per_bin, -3.0);
  minus6 = crossing (mag, bins, hz_per_bin, -6.0);

  printf ("44100 -> %d Hz, quality %d, %u taps per phase (%" G_GUINT64_FORMAT
      " in all), %s on '%s', latency %u input frames (%.3f s)\n", out_rate,
      f->quality, f->taps, (guint64) f->taps * clr_engine_get_ratio (e)->I,
      cfg.format == CLR_FORMAT_F64 ? "F64" : "F32", clr_device_get_name (dev),
      clr_engine_get_latency (e), clr_engine_get_latency (e) /
      (double) in_rate);
  printf ("  set-up (design + spectra): %.0f ms\n", setup_s * 1e3);
  printf ("  designed passband edge:    %.1f Hz (%.6f of Nyquist)\n",
      pass_hz, f->pass_edge);
  printf ("  passband ripple to it:     +-%.3g dB\n", ripple);
  printf ("  passband ripple to 20 kHz: +-%.3g dB\n", ripple_20k);
  printf ("  -3 dB at                   %.1f Hz\n", minus3);
  printf ("  -6 dB at                   %.1f Hz\n", minus6);
  printf ("  stopband from 22050 Hz:    %.1f dB\n", stop_db);
  printf ("  resolution:                %.3f Hz a bin\n", hz_per_bin);

  if (check) {
    /* Kaiser: ripple and stopband both near 10^(-A/20); F32 samples floor
     * the stopband near -150 dB */
    double floor_db = cfg.format == CLR_FORMAT_F64 ? -f->stop_db + 2 : -140;
    double ripple_max = 2 * 8.7 * pow (10, -f->stop_db / 20) +
        (cfg.format == CLR_FORMAT_F64 ? 0 : 1e-5);
#define CHECK(cond, ...) do { if (!(cond)) { failures++; \
      printf ("FAILED: " __VA_ARGS__); printf ("\n"); } } while (0)
    CHECK (ripple <= ripple_max, "passband ripple %.3g dB > %.3g", ripple,
        ripple_max);
    CHECK (stop_db <= floor_db, "stopband %.1f dB > %.1f", stop_db,
        floor_db);
    CHECK (minus6 > pass_hz && minus6 < in_rate / 2.0, "-6 dB point %.1f Hz "
        "outside the transition band %.1f..%.1f", minus6, pass_hz,
        in_rate / 2.0);
    /* the -6 dB point of a Kaiser sinc is its cutoff fc */
    CHECK (fabs (minus6 - f->fc * in_rate) < 2 * hz_per_bin + 0.5,
        "-6 dB point %.2f Hz, cutoff designed at %.2f Hz", minus6,
        f->fc * in_rate);
    CHECK (minus3 > pass_hz && minus3 < minus6, "-3 dB point %.1f Hz",
        minus3);
    printf ("%s\n", failures ? "FAILED" : "all checks passed");
  }
  clr_engine_free (e);
  clr_device_unref (dev);
  g_free (in);
  g_free (out);
  g_free (re);
  g_free (im);
  g_free (mag);
  return failures ? 1 : 0;
}
