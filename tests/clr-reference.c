#include <math.h>
#include <glib.h>
#include "clr-reference.h"
#include "design/clr-phase.h"

/* The taps of the output phases seen so far are kept, one row a phase
 * (they depend on the phase alone), where the ratio has at most this many
 * phases: evaluating h(t) for every tap of every output made most of some
 * tests' time (8192 taps at 4x: 45 % of test-element's). */
#define CLR_REFERENCE_ROWS_MAX 4096

/* Output m at r's position of m, or at (pn[m], pp[m]) where given */
static double *
resample (const ClrRatio * r, const int64_t * pn, const uint64_t * pp,
    size_t total, const ClrFilter * f, const float *in, size_t n_in,
    unsigned channels)
{
  size_t m;
  double *out = g_new0 (double, total * channels);
  const size_t row_len = (size_t) f->taps + 4;
  double *h = g_new (double, row_len);
  /* a minimum- or intermediate-phase kernel: from its prototype, reaching
   * lead samples ahead and K - lead behind (clr-phase.h) */
  ClrPhaseProto *proto = f->phase > 0.0 ? clr_phase_proto_get (f,
      clr_phase_rate (r->I), f->phase) : NULL;
  const int64_t ahead = f->lead, behind = (int64_t) f->taps - f->lead;
  double **rows = r->I <= CLR_REFERENCE_ROWS_MAX ?
      g_new0 (double *, r->I) : NULL;

  g_assert (f->phase == 0.0 || proto);

  for (m = 0; m < total; m++) {
    /* t(m) as an exact rational n + p / I, evaluated only at the end */
    int64_t n, j, lo, hi;
    uint64_t p;
    double frac;
    const double *row;
    unsigned c;

    if (pn) {
      n = pn[m];
      p = pp[m];
    } else {
      clr_ratio_position (r, m, &n, &p);
    }
    frac = (double) p / (double) r->I;
    lo = n - behind - 1;
    hi = n + ahead + 1;
    row = rows ? rows[p] : NULL;
    if (!row) {
      double *w = rows ? (rows[p] = g_new (double, row_len)) : h;

      /* n - j for j = lo .. hi is behind + 1 down to -(ahead + 1),
       * whatever n is */
      for (j = lo; j <= hi; j++)
        w[j - lo] = proto ? clr_phase_eval (proto, (double) (n - j) + frac) :
            clr_filter_eval (f, (double) (n - j) + frac);
      row = w;
    }
    for (c = 0; c < channels; c++) {
      double acc = 0.0;
      for (j = MAX (lo, 0); j <= hi && j < (int64_t) n_in; j++)
        acc += row[j - lo] * in[(size_t) j * channels + c];
      out[m * channels + c] = acc;
    }
  }
  if (rows) {
    for (m = 0; m < r->I; m++)
      g_free (rows[m]);
    g_free (rows);
  }
  g_free (h);
  clr_phase_proto_unref (proto);
  return out;
}

double *
clr_reference_resample (const ClrRatio * r, const ClrFilter * f,
    const float *in, size_t n_in, unsigned channels, size_t * n_out)
{
  *n_out = clr_ratio_out_total (r, n_in);
  return resample (r, NULL, NULL, *n_out, f, in, n_in, channels);
}

double *
clr_reference_resample_at (const ClrFilter * f, uint64_t I,
    const int64_t * n, const uint64_t * p, size_t total, const float *in,
    size_t n_in, unsigned channels)
{
  /* the phases' denominator is all of r a position needs */
  const ClrRatio r = { 1, 1, I, 1 };

  return resample (&r, n, p, total, f, in, n_in, channels);
}
