/* clresample: a variable ratio's positions over one job, as the engine
 * plans them (clr-engine.c's var_slew ()), the host's sums walk them
 * (clr-resample-host.c) and the kernels do (resample.cl's row_pos (), the
 * same integers word for word: a change there is a change here).
 *
 * Positions are in units of 2^-32 of an input frame (CLR_VAR_I), summed
 * exactly in units of 2^-16 of that. Output i's step is
 *
 *   step_i = step + step_frac + sum over q < i of slope_q     (2^-16 units)
 *   slope_q = slope + jerk[0] * min (q, L1)
 *           + jerk[1] * clamp (q - L1, 0, len - L1)
 *
 * for i < len, and the target's step (step + end) from len on, the
 * fractions dropped. A new target starts a slew in two halves: the slope
 * moves in a straight line from where it is to a peak, then back to 0 at
 * the target (jerk[0] over the first L1 outputs, jerk[1] over the rest),
 * so that the frequency is smooth to its slope. A ramp commanded in
 * steps, each restarting the slew from the slope it has, then has no
 * corner anywhere; the straight slews of earlier versions turned a
 * corner at every command (-166.7 dB THD+N at quality 10, F64, where a
 * fixed ratio reads -216). Long slews (large changes at the steepest
 * rate) run as one straight piece: both jerks 0, L1 0.
 *
 * The sums of jerks and fractions are exact in int64 because the planner
 * keeps |jerk| * C(len, 3) and the fractions' sums below 2^61, and len
 * below 2^23. */
#ifndef __CLR_SLEW_H__
#define __CLR_SLEW_H__

#include <stdint.h>

typedef struct {
  uint64_t step;                /* units an output (the row's CLR_ROW_STEP) */
  int64_t slope;                /* 2^-16 units an output, at output 0 */
  uint64_t len;                 /* outputs the slew lasts */
  uint64_t end;                 /* the target's step less `step`, mod 2^64 */
  uint64_t frac;                /* the position's fraction (bits 0-15), the
                                 * step's (16-31) and L1 (32-63) */
  int64_t jerk[2];              /* 2^-16 units, the slope's change an output
                                 * in each half */
} ClrSlew;

#define CLR_SLEW_FRAC_BITS 16
#define CLR_SLEW_FRAC_MASK ((1u << CLR_SLEW_FRAC_BITS) - 1)

/* floor (x / 2^16) mod 2^64, for |x| < 2^62 (no signed shift, whose
 * rounding C leaves to the compiler) */
static inline uint64_t
clr_slew_floor16 (int64_t x)
{
  return ((uint64_t) (x + ((int64_t) 1 << 62)) >> 16) - ((uint64_t) 1 << 46);
}

/* C(m, 2) and C(m, 3), 0 below; exact for m < 2^21 (C(m, 3)), 2^32 */
static inline uint64_t
clr_slew_c2 (uint64_t m)
{
  return m * (m - 1) / 2;
}

static inline uint64_t
clr_slew_c3 (uint64_t m)
{
  return m * (m - 1) * (m - 2) / 6;
}

/* What a jerk over outputs [a, b) adds to the steps (k = 2) or the
 * positions (k = 3) of the first m outputs: C(m - a, k) - C(m - min (m,
 * b), k) */
static inline uint64_t
clr_slew_window2 (uint64_t m, uint64_t a, uint64_t b)
{
  return m > a ? clr_slew_c2 (m - a) - clr_slew_c2 (m - (m < b ? m : b)) : 0;
}

static inline uint64_t
clr_slew_window3 (uint64_t m, uint64_t a, uint64_t b)
{
  return m > a ? clr_slew_c3 (m - a) - clr_slew_c3 (m - (m < b ? m : b)) : 0;
}

/* The fractions of the first m outputs' positions summed, 2^-16 units:
 * what is whole joins the position, the rest is its fraction */
static inline int64_t
clr_slew_frac_sum (const ClrSlew * s, uint64_t m)
{
  const uint64_t l1 = s->frac >> 32;

  return (int64_t) (s->frac & CLR_SLEW_FRAC_MASK) +
      (int64_t) (m * ((s->frac >> 16) & CLR_SLEW_FRAC_MASK)) +
      (s->slope & CLR_SLEW_FRAC_MASK) * (int64_t) clr_slew_c2 (m) +
      s->jerk[0] * (int64_t) clr_slew_window3 (m, 0, l1) +
      s->jerk[1] * (int64_t) clr_slew_window3 (m, l1, s->len);
}

/* Output i's position from output 0's, units mod 2^64; in *frac, while
 * the slew lasts, the 2^-16 units it rounded down (0 after) */
static inline uint64_t
clr_slew_offset (const ClrSlew * s, uint64_t i, uint32_t * frac)
{
  const uint64_t m = i < s->len ? i : s->len;
  const int64_t x = clr_slew_frac_sum (s, m);

  *frac = i < s->len ? (uint32_t) (x & CLR_SLEW_FRAC_MASK) : 0;
  return i * s->step + clr_slew_floor16 (s->slope) * clr_slew_c2 (m) +
      clr_slew_floor16 (x) + s->end * (i - m);
}

#endif /* __CLR_SLEW_H__ */
