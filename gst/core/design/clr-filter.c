/* clresample: filter design. See clr-filter.h. */
#include <math.h>
#include "clr-filter.h"
#include "clr-phase.h"

/* Stopband attenuation and passband edge per quality level; the table in
 * docs/quality.md is this one. The transition band always ends at the lower
 * Nyquist frequency, so nothing above it can alias back. */
static const ClrQualitySpec quality_table[CLR_QUALITY_MAX + 1] = {
  {50.0, 0.75},
  {60.0, 0.80},
  {75.0, 0.84},
  {95.0, 0.87},
  {125.0, 0.90},
  {135.0, 0.905},
  {145.0, 0.91},
  {155.0, 0.915},
  {165.0, 0.92},
  {180.0, 0.925},
  {195.0, 0.93},
};

const ClrQualitySpec *
clr_quality_spec (int quality)
{
  if (quality < CLR_QUALITY_MIN)
    quality = CLR_QUALITY_MIN;
  if (quality > CLR_QUALITY_MAX)
    quality = CLR_QUALITY_MAX;
  return &quality_table[quality];
}

static uint32_t
round_up4 (uint64_t n)
{
  if (n > CLR_TAPS_MAX)
    n = CLR_TAPS_MAX;
  return (uint32_t) ((n + 3) & ~(uint64_t) 3);
}

void
clr_filter_design (ClrFilter * f, const ClrRatio * r, int quality,
    uint32_t taps)
{
  clr_filter_design_cut (f, r, quality, taps, 0.0);
}

void
clr_filter_design_cut (ClrFilter * f, const ClrRatio * r, int quality,
    uint32_t taps, double cutoff)
{
  const ClrQualitySpec *q = clr_quality_spec (quality);
  /* lower Nyquist relative to the input Nyquist */
  double rho = r->I < r->D ? (double) r->I / (double) r->D : 1.0;
  double f_stop = 0.5 * rho, f_pass = 0.5 * rho * q->pass_edge;
  double a = q->stop_db;
  uint64_t min_taps, k_quality;

  f->quality = quality < CLR_QUALITY_MIN ? CLR_QUALITY_MIN :
      quality > CLR_QUALITY_MAX ? CLR_QUALITY_MAX : quality;
  f->stop_db = a;
  f->pass_edge = q->pass_edge;
  f->fc = 0.5 * (f_pass + f_stop);
  f->beta = clr_filter_kaiser_beta (a);
  /* once, not once a tap: a million-tap design spends its time here */
  f->i0_beta = clr_bessel_i0 (f->beta);

  /* Kaiser's length estimate, in input samples: the continuous kernel is the
   * prototype of I phases, each K input samples long. */
  min_taps = 4 * ((r->D + r->I - 1) / r->I) + 4;
  k_quality = round_up4 ((uint64_t) ceil ((a - 7.95) / (2.285 * 2.0 * M_PI *
              (f_stop - f_pass))) + 1);
  taps = taps == 0 ? k_quality : round_up4 (taps);
  if (taps < min_taps)
    taps = round_up4 (min_taps);
  if (cutoff > 0.0) {
    /* the quality's transition band (or the narrower one of more taps, as
     * below) moved to start at the cutoff */
    const double width = taps > k_quality ? 1.05 * (a - 7.95) / (2.285 *
        2.0 * M_PI * (taps - 1)) : f_stop - f_pass;

    f_pass = 0.5 * rho * fmin (fmax (cutoff, CLR_CUTOFF_MIN), CLR_CUTOFF_MAX);
    f_stop = f_pass + width;
    f->pass_edge = f_pass / (0.5 * rho);
    f->fc = 0.5 * (f_pass + f_stop);
  } else if (taps > k_quality) {
    /* More taps than the quality needs buy a steeper transition, still
     * ending at the lower Nyquist frequency, at the same attenuation: the
     * passband reaches as far as Kaiser's formula allows with K taps
     * (16 x 63488 taps at 44.1 kHz, q10: flat to 22.040 kHz). Kaiser's
     * formula is an estimate: taken as it is, the stopband's first lobe
     * measured -185 dB for q10's 195; 5 % more width measured -194.6
     * (tests/quality/clr-brickwall). */
    f_pass = f_stop - 1.05 * (a - 7.95) / (2.285 * 2.0 * M_PI * (taps - 1));
    f->pass_edge = f_pass / f_stop;
    f->fc = 0.5 * (f_pass + f_stop);
  }
  f->stop_edge = f_stop / (0.5 * rho);
  f->cutoff = cutoff;
  f->taps = taps;
  f->half_width = taps / 2.0;
  f->phase = 0.0;
  f->lead = taps / 2;
  f->delay = taps / 2.0;
}

int
clr_filter_set_phase (ClrFilter * f, const ClrRatio * r, double phase)
{
  ClrPhaseProto *p;

  if (phase <= 0.0) {
    f->phase = 0.0;
    f->lead = f->taps / 2;
    f->delay = f->taps / 2.0;
    return 1;
  }
  if (!(p = clr_phase_proto_get (f, clr_phase_rate (r->I), phase)))
    return 0;
  f->phase = phase;
  f->lead = p->lead;
  f->delay = p->delay;
  clr_phase_proto_unref (p);
  return 1;
}

double
clr_filter_kernel_gain (const ClrFilter * f, const ClrRatio * r, double freq)
{
  ClrPhaseProto *p = NULL;
  double re = 0.0, im = 0.0;
  int64_t n, lo = -(int64_t) f->lead * (int64_t) r->I;
  int64_t hi = (int64_t) (f->taps - f->lead) * (int64_t) r->I;

  if (f->phase > 0.0
      && !(p = clr_phase_proto_get (f, clr_phase_rate (r->I), f->phase)))
    return NAN;
  for (n = lo; n <= hi; n++) {
    const double t = (double) n / r->I;
    const double h = p ? clr_phase_eval (p, t) : clr_filter_eval (f, t);

    re += h * cos (2.0 * M_PI * freq * n / r->I);
    im -= h * sin (2.0 * M_PI * freq * n / r->I);
  }
  clr_phase_proto_unref (p);
  return hypot (re, im) / r->I;
}

int
clr_bank_table_fits (uint64_t I, uint32_t taps, size_t coef_size)
{
  return I * taps * coef_size <= CLR_BANK_CAP_BYTES;
}

void
clr_bank_layout (ClrBankLayout * b, const ClrFilter * f, const ClrRatio * r,
    size_t coef_size)
{
  /* a minimum or intermediate phase's kernel keeps 512 points at least:
   * its rows' error is measured at 512 and 1024 only */
  uint32_t grid = f->phase > 0.0 ? 512u : CLR_BANK_GRID_MIN;

  /* the coarsest that keeps the cubic's error CLR_BANK_GRID_MARGIN_DB
   * below the stopband (clr-filter.h) */
  while (grid < CLR_BANK_GRID_MAX && CLR_BANK_GRID_512_DB - 24.0 *
      log2 ((double) grid / 512.0) > -(f->stop_db + CLR_BANK_GRID_MARGIN_DB))
    grid *= 2;

  b->taps = f->taps;
  if (clr_bank_table_fits (r->I, f->taps, coef_size)) {
    b->interpolated = 0;
    b->rows = (uint32_t) r->I;
    b->grid = 0;
    return;
  }
  while (grid > 64
      && (uint64_t) (grid + 4) * f->taps * coef_size > CLR_BANK_CAP_BYTES)
    grid /= 2;
  b->interpolated = 1;
  b->grid = grid;
  b->rows = grid + 4;
}

uint32_t
clr_bank_mirror_row (const ClrBankLayout * b, const ClrFilter * f,
    uint32_t row)
{
  if (!b->interpolated || f->phase > 0.0 || 2 * f->lead != f->taps
      || (b->grid & (b->grid - 1)) != 0 || row > b->grid + 2)
    return row;
  return b->grid + 2 - row;
}

int
clr_bank_row (const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r, uint32_t row, double *out)
{
  const double behind = (double) (f->taps - f->lead);
  ClrPhaseProto *p = NULL;
  double frac;
  uint32_t k;

  if (b->interpolated && row == b->grid + 3)
    frac = 0.0;
  else if (b->interpolated)
    frac = ((double) row - 1.0) / (double) b->grid;
  else
    frac = (double) row / (double) r->I;
  if (f->phase > 0.0
      && !(p = clr_phase_proto_get (f, clr_phase_rate (r->I), f->phase)))
    return 0;
  /* grid rows reach past the kernel's ends (rows 0, grid + 1 and grid +
   * 2, and row 1's last tap at -K/2): there the linear kernel goes on
   * smoothly, so that the cubic through four rows stays as close to h
   * near the ends as elsewhere (at quality 4, grid 512: the worst
   * coefficient's error -146 dB of h's peak before, at the phases
   * within two grid steps of an end, the whole bank's -226 dB after).
   * Phase 0's last tap sits on the jump itself (h is 0 at -K/2, the
   * rows hold its limit there, 1/I0 (beta) of the sinc): the kernels
   * take phase 0 from row grid + 3, h itself. */
  for (k = 0; k < b->taps; k++)
    out[k] = p ? clr_phase_eval (p, frac + behind - 1.0 - (double) k) :
        b->interpolated && row != b->grid + 3 ?
        clr_filter_eval_continued (f, frac + behind - 1.0 - (double) k) :
        clr_filter_eval (f, frac + behind - 1.0 - (double) k);
  clr_phase_proto_unref (p);
  return 1;
}
