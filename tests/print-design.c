/* clresample: prints the quality table (the filter each quality level
 * designs) as markdown, for docs/quality.md; with --phase IN:OUT:TAPS:Q
 * (TAPS 0: the quality's), the minimum- and intermediate-phase designs of
 * that filter beside the linear one: its reach ahead, its compensated delay, and both
 * magnitudes' passband error and stopband peak, evaluated from the
 * prototypes in double. No device needed. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "design/clr-filter.h"

/* f's kernel's largest distance from unity in its passband (*pass) and
 * largest gain from the lower Nyquist frequency, `top` cycles an input
 * sample, to four times it (*stop) */
static void
measure (const ClrFilter * f, const ClrRatio * r, double top, double *pass,
    double *stop)
{
  double freq;

  *pass = *stop = 0.0;
  for (freq = 0.0; freq < top * f->pass_edge; freq += top / 97.0)
    *pass = MAX (*pass, fabs (clr_filter_kernel_gain (f, r, freq) - 1.0));
  for (freq = top * 1.001; freq < 4.0 * top; freq += top / 53.0)
    *stop = MAX (*stop, clr_filter_kernel_gain (f, r, freq));
}

static int
print_phase (const char *arg)
{
  static const struct
  {
    double alpha;
    const char *name;
  } phases[] = { {1.0, "minimum"}, {0.5, "intermediate"} };
  unsigned in, out, taps, k;
  int q;
  ClrRatio r;
  ClrFilter lin;
  double top, pass_lin, stop_lin;

  if (sscanf (arg, "%u:%u:%u:%d", &in, &out, &taps, &q) != 4) {
    fprintf (stderr, "--phase IN:OUT:TAPS:QUALITY\n");
    return 2;
  }
  clr_ratio_init (&r, in, out);
  clr_filter_design (&lin, &r, q, taps);
  top = 0.5 * (r.I < r.D ? (double) r.I / r.D : 1.0);
  measure (&lin, &r, top, &pass_lin, &stop_lin);
  printf ("%u -> %u Hz, quality %d, %u taps a phase (I = %" G_GUINT64_FORMAT
      "): linear reaches %u input samples ahead (%.3f ms); passband error "
      "%.2e, stopband peak (Nyquist to 4x it) %.1f dB\n", in, out, q,
      lin.taps, r.I, lin.lead, lin.lead * 1000.0 / in, pass_lin,
      20.0 * log10 (stop_lin));
  for (k = 0; k < G_N_ELEMENTS (phases); k++) {
    ClrFilter f = lin;
    double pass, stop;
    gint64 t0 = g_get_monotonic_time ();

    if (!clr_filter_set_phase (&f, &r, phases[k].alpha)) {
      fprintf (stderr, "the %s-phase design failed\n", phases[k].name);
      return 1;
    }
    t0 = g_get_monotonic_time () - t0;
    measure (&f, &r, top, &pass, &stop);
    printf ("%s: designed in %.2f s, reaches %u input samples ahead "
        "(%.3f ms), compensated delay %.3f samples; passband error %.2e, "
        "stopband peak %.1f dB\n", phases[k].name, t0 / 1e6, f.lead,
        f.lead * 1000.0 / in, f.delay, pass, 20.0 * log10 (stop));
  }
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
