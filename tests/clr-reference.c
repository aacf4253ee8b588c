#include <math.h>
#include <glib.h>
#include "clr-reference.h"
#include "clr-phase.h"

double *
clr_reference_resample (const ClrRatio * r, const ClrFilter * f,
    const float *in, size_t n_in, unsigned channels, size_t * n_out)
{
  size_t total = clr_ratio_out_total (r, n_in), m;
  double *out = g_new0 (double, total * channels);
  double *h = g_new (double, (size_t) f->taps + 4);
  /* a minimum- or intermediate-phase kernel: from its prototype, reaching
   * lead samples ahead and K - lead behind (clr-phase.h) */
  ClrPhaseProto *proto = f->phase > 0.0 ? clr_phase_proto_get (f,
      clr_phase_rate (r->I), f->phase) : NULL;
  const int64_t ahead = f->lead, behind = (int64_t) f->taps - f->lead;

  g_assert (f->phase == 0.0 || proto);

  for (m = 0; m < total; m++) {
    /* t(m) as an exact rational n + p / I, evaluated only at the end */
    int64_t n, j, lo, hi;
    uint64_t p;
    double frac;
    unsigned c;

    clr_ratio_position (r, m, &n, &p);
    frac = (double) p / (double) r->I;
    lo = n - behind - 1;
    hi = n + ahead + 1;
    for (j = lo; j <= hi; j++)
      h[j - lo] = proto ? clr_phase_eval (proto, (double) (n - j) + frac) :
          clr_filter_eval (f, (double) (n - j) + frac);
    for (c = 0; c < channels; c++) {
      double acc = 0.0;
      for (j = MAX (lo, 0); j <= hi && j < (int64_t) n_in; j++)
        acc += h[j - lo] * in[(size_t) j * channels + c];
      out[m * channels + c] = acc;
    }
  }
  g_free (h);
  clr_phase_proto_unref (proto);
  *n_out = total;
  return out;
}
