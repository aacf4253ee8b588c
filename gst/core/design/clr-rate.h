/* clresample: rate arithmetic, GStreamer-free.
 *
 * A conversion in_rate -> out_rate is the rational factor I/D with
 * I = out_rate / g, D = in_rate / g, g = gcd (in_rate, out_rate).
 * Output frame m sits at input time t(m) = m * D / I; every quantity here is
 * exact 64-bit integer math so positions never drift however long the stream.
 */
#ifndef __CLR_RATE_H__
#define __CLR_RATE_H__

#include <stdint.h>

typedef struct {
  uint32_t in_rate;
  uint32_t out_rate;
  uint64_t I;                   /* interpolation factor: out_rate / gcd */
  uint64_t D;                   /* decimation factor: in_rate / gcd */
} ClrRatio;

/* Returns 0 on success, -1 when a rate is zero. */
int clr_ratio_init (ClrRatio * r, uint32_t in_rate, uint32_t out_rate);

/* Input position of output frame m: t(m) = *n + *phase / I with
 * *n = floor (m * D / I) and *phase = (m * D) mod I. */
void clr_ratio_position (const ClrRatio * r, uint64_t m, int64_t * n,
    uint64_t * phase);

/* Output frames for a whole stream of n_in input frames: ceil (n_in * I / D). */
uint64_t clr_ratio_out_total (const ClrRatio * r, uint64_t n_in);

/* Number of output frames m >= 0 whose input position floor (m * D / I) is
 * <= last, i.e. ceil ((last + 1) * I / D); 0 when last < 0. */
uint64_t clr_ratio_out_upto (const ClrRatio * r, int64_t last);

uint64_t clr_gcd (uint64_t a, uint64_t b);

#endif
