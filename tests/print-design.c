/* clresample: prints the quality table (the filter each quality level
 * designs) as markdown, for docs/quality.md. No device needed. */
#include <stdio.h>
#include "clr-filter.h"

int
main (void)
{
  static const unsigned pairs[][2] = {
    {44100, 48000}, {48000, 44100}, {96000, 44100}, {44100, 192000},
  };
  int q;
  unsigned i;

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
