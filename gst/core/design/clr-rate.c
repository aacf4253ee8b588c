/* clresample: rate arithmetic. See clr-rate.h. */
#include "clr-rate.h"

uint64_t
clr_gcd (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int
clr_ratio_init (ClrRatio * r, uint32_t in_rate, uint32_t out_rate)
{
  uint64_t g;

  if (in_rate == 0 || out_rate == 0)
    return -1;
  g = clr_gcd (in_rate, out_rate);
  r->in_rate = in_rate;
  r->out_rate = out_rate;
  r->I = out_rate / g;
  r->D = in_rate / g;
  return 0;
}

void
clr_ratio_position (const ClrRatio * r, uint64_t m, int64_t * n,
    uint64_t * phase)
{
  /* m * D can pass 2^64 after days at high rates with large D; splitting m
   * into q * I + s keeps every product below 2^62 (I, D < 2^31). */
  uint64_t q = m / r->I, s = m % r->I;
  uint64_t sd = s * r->D;

  *n = (int64_t) (q * r->D + sd / r->I);
  *phase = sd % r->I;
}

uint64_t
clr_ratio_out_total (const ClrRatio * r, uint64_t n_in)
{
  uint64_t q = n_in / r->D, s = n_in % r->D;

  return q * r->I + (s * r->I + r->D - 1) / r->D;
}

uint64_t
clr_ratio_out_upto (const ClrRatio * r, int64_t last)
{
  if (last < 0)
    return 0;
  return clr_ratio_out_total (r, (uint64_t) last + 1);
}
