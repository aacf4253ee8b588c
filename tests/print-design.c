/* clresample: prints the quality table (the filter each quality level
 * designs) as markdown, for docs/quality.md; with --phase IN:OUT:TAPS:Q
 * (TAPS 0: the quality's), the minimum-phase design of that filter
 * beside the linear one: its reach ahead, its compensated delay, and both
 * magnitudes' passband error and stopband peak, evaluated from the
 * prototypes in double. No device needed. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "clr-filter.h"
#include "clr-phase.h"

static int
print_phase (const char *arg)
{
  unsigned in, out, taps;
  int q;
  ClrRatio r;
  ClrFilter lin, min;
  ClrPhaseProto *p;
  double freq, top, pass[2] = { 0, 0 }, stop[2] = { 0, 0 };
  gint64 t0;

  if (sscanf (arg, "%u:%u:%u:%d", &in, &out, &taps, &q) != 4) {
    fprintf (stderr, "--phase IN:OUT:TAPS:QUALITY\n");
    return 2;
  }
  clr_ratio_init (&r, in, out);
  clr_filter_design (&lin, &r, q, taps);
  min = lin;
  t0 = g_get_monotonic_time ();
  if (!clr_filter_set_phase (&min, &r, 1.0)
      || !(p = clr_phase_proto_get (&min, clr_phase_rate (r.I), 1.0))) {
    fprintf (stderr, "the minimum-phase design failed\n");
    return 1;
  }
  printf ("%u -> %u Hz, quality %d, %u taps a phase (I = %" G_GUINT64_FORMAT
      "): minimum phase designed in %.2f s, reaches %u input samples ahead "
      "(%.3f ms; linear %u), compensated delay %.3f samples\n", in, out, q,
      lin.taps, r.I, (g_get_monotonic_time () - t0) / 1e6, min.lead,
      min.lead * 1000.0 / in, lin.lead, min.delay);
  top = 0.5 * (r.I < r.D ? (double) r.I / r.D : 1.0);
  for (freq = 0.0; freq < top * lin.pass_edge; freq += top / 97.0) {
    pass[0] = MAX (pass[0], fabs (
        clr_filter_kernel_gain (&lin, &r, freq) - 1.0));
    pass[1] = MAX (pass[1], fabs (
        clr_filter_kernel_gain (&min, &r, freq) - 1.0));
  }
  for (freq = top * 1.001; freq < 4.0 * top; freq += top / 53.0) {
    stop[0] = MAX (stop[0], clr_filter_kernel_gain (&lin, &r, freq));
    stop[1] = MAX (stop[1], clr_filter_kernel_gain (&min, &r, freq));
  }
  printf ("passband error: linear %.2e, minimum %.2e; stopband peak "
      "(Nyquist to 4x it): linear %.1f dB, minimum %.1f dB\n", pass[0],
      pass[1], 20.0 * log10 (stop[0]), 20.0 * log10 (stop[1]));
  clr_phase_proto_unref (p);
  return 0;
}

int
main (int argc, char **argv)
{
  static const unsigned pairs[][2] = {
    {44100, 48000}, {48000, 44100}, {96000, 44100}, {44100, 192000},
  };
  int q;
  unsigned i;

  if (argc == 3 && !strcmp (argv[1], "--phase"))
    return print_phase (argv[2]);
  printf ("| quality | stopband | passband edge (of lower Nyquist) | "
      "transition | Kaiser beta |");
  for (i = 0; i < 4; i++)
    printf (" taps %.4g→%.4g k |", pairs[i][0] / 1000.0, pairs[i][1] / 1000.0);
  printf ("\n|---|---|---|---|---|---|---|---|---|\n");
  for (q = CLR_QUALITY_MIN; q <= CLR_QUALITY_MAX; q++) {
    const ClrQualitySpec *s = clr_quality_spec (q);
    ClrRatio r;
    ClrFilter f;

    clr_ratio_init (&r, 44100, 48000);
    clr_filter_design (&f, &r, q, 0);
    printf ("| %d%s | %.0f dB | %.3f | %.3f–1.000 | %.2f |", q,
        q == CLR_QUALITY_DEFAULT ? " (default)" : "", s->stop_db,
        s->pass_edge, s->pass_edge, f.beta);
    for (i = 0; i < 4; i++) {
      clr_ratio_init (&r, pairs[i][0], pairs[i][1]);
      clr_filter_design (&f, &r, q, 0);
      printf (" %u |", f.taps);
    }
    printf ("\n");
  }
  return 0;
}
