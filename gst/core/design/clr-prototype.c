/* clresample: the linear-phase prototype. See clr-prototype.h. */
#include <math.h>
#include "clr-prototype.h"

double
clr_bessel_i0 (double x)
{
  double sum = 1.0, term = 1.0, q = x * x / 4.0;
  int k;

  for (k = 1; k < 500; k++) {
    term *= q / ((double) k * (double) k);
    sum += term;
    if (term < sum * 1e-18)
      break;
  }
  return sum;
}

double
clr_filter_kaiser_beta (double stop_db)
{
  const double a = stop_db;

  return a > 50.0 ? 0.1102 * (a - 8.7) :
      a >= 21.0 ? 0.5842 * pow (a - 21.0, 0.4) + 0.07886 * (a - 21.0) : 0.0;
}

double
clr_filter_eval (const ClrFilter * f, double t)
{
  double x, w, s;

  if (t <= -f->half_width || t >= f->half_width)
    return 0.0;
  x = t / f->half_width;
  w = clr_bessel_i0 (f->beta * sqrt (1.0 - x * x)) / f->i0_beta;
  x = 2.0 * f->fc * t;
  s = x == 0.0 ? 1.0 : sin (M_PI * x) / (M_PI * x);
  return 2.0 * f->fc * s * w;
}

double
clr_filter_eval_continued (const ClrFilter * f, double t)
{
  double x, y, sum = 1.0, term = 1.0, s;
  int k;

  if (t > -f->half_width && t < f->half_width)
    return clr_filter_eval (f, t);
  /* I0 (beta sqrt (1 - x^2)) as a series in y = beta^2 (1 - x^2) / 4, not
   * positive here: its terms alternate */
  x = t / f->half_width;
  y = f->beta * f->beta * (1.0 - x * x) / 4.0;
  for (k = 1; k < 500; k++) {
    term *= y / ((double) k * (double) k);
    sum += term;
    if (fabs (term) < fabs (sum) * 1e-18)
      break;
  }
  x = 2.0 * f->fc * t;
  s = sin (M_PI * x) / (M_PI * x);
  return 2.0 * f->fc * s * sum / f->i0_beta;
}
