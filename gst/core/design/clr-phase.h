/* clresample: minimum- and intermediate-phase versions of the prototype
 * filter, in double precision, GStreamer-free.
 *
 * The linear-phase prototype h(t) (clr-prototype.h) is sampled at G points an
 * input sample over its K input samples, and its phase replaced by the
 * cepstral method on a spectrum zero-padded to 32 times its length (at
 * most CLR_PHASE_FFT_MAX points): the log magnitude's cepstrum folded onto
 * positive quefrencies and exponentiated back into a spectrum, the
 * minimum-phase filter of the same magnitude (alpha = 1).
 *
 * The intermediate filter (alpha = 0.5) is the product of two halves: a
 * linear design g of half h's attenuation (and CLR_PHASE_HALF_MARGIN_DB)
 * over h's transition band, about half h's length, and the minimum-phase
 * version of g. Its magnitude is |G|^2: h's passband edge, transition and
 * at least h's stopband, the passband rippling as the two halves' ripples
 * add. It reaches ahead as far as g does: a little over half the linear
 * filter's latency, and rings before a transient only for that long and
 * far less (the minimum-phase half rings after).
 *
 * Such a filter has no centre to align on. Its delay at low frequencies,
 * the group delay at DC (sum n h[n] / sum h[n], rounded to 1 / G of an
 * input sample), is what the engine compensates: a low-frequency tone
 * comes out where it went in, as with the linear filter; higher
 * frequencies come out with the filter's own phase. The engine then
 * looks `lead` input samples ahead (its latency) instead of K / 2.
 */
#ifndef __CLR_PHASE_H__
#define __CLR_PHASE_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "clr-prototype.h"

G_BEGIN_DECLS

/* points of the padded spectrum at most (2^22: 64 MiB of complex
 * doubles while designing, twice that for the intermediate filter) */
#define CLR_PHASE_FFT_MAX (1u << 22)
/* prototype points an input sample where the phases do not fall on a
 * table of at most this many (else interpolated from it, cubically: at 512
 * points a sample the interpolation error is below -240 dB) */
#define CLR_PHASE_RATE_MAX 1024u
#define CLR_PHASE_RATE_GRID 512u

typedef struct {
  gint refs;
  double alpha;                 /* 1 minimum, otherwise intermediate */
  uint32_t rate;                /* G: points an input sample */
  uint32_t taps;                /* K */
  /* h[i], i = 0 .. taps * rate - 1, the kernel g at time
   * i / rate - lead: g (t) = h (t + lead); the engine reads x[j] g (t - j)
   * for j up to t + lead */
  double *h;
  uint32_t lead;                /* input samples the kernel reaches ahead */
  double delay;                 /* the compensated low-frequency delay,
                                 * input samples (<= lead) */
  /* the key: what was designed */
  double fc, beta, half_width;
} ClrPhaseProto;

/* The prototype of f (a linear design) with phase alpha at `rate` points
 * an input sample, from a process-wide cache of the last few; a reference,
 * or NULL (out of memory). */
ClrPhaseProto *clr_phase_proto_get (const ClrFilter * f, uint32_t rate,
    double alpha);
void clr_phase_proto_unref (ClrPhaseProto * p);

/* The prototype's rate for ratio I: I itself where that is a table of at
 * most CLR_PHASE_RATE_MAX, else CLR_PHASE_RATE_GRID. */
uint32_t clr_phase_rate (uint64_t I);

/* g (t) = h (t + lead), t in input samples, cubically interpolated between
 * the prototype's points (exact on them); 0 outside the kernel. */
double clr_phase_eval (const ClrPhaseProto * p, double t);

G_END_DECLS
#endif
