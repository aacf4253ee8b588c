/* clresample: a crossover's bands from the engine's lower bands and the
 * input, on the host, GStreamer-free (clcrossover; docs/crossover.md).
 *
 * The convolution engine filters each channel by the n - 1 lower bands'
 * filters only (band k = LP(f_k) - LP(f_{k-1}), no gain, no delay); the
 * top band is the input, delayed as the filters delay it, less their sum,
 * and the gains and delays are applied here:
 *
 *   y_k(j)   = g_k e_k(j - d_k),                          k < n - 1
 *   y_top(j) = g_top (x(j - lag - d_top) - sum_k e_k(j - d_top))
 *
 * with e_k(j) the engine's output frame j of band k and lag its latency
 * plus the filters' delay, (taps - 1) / 2. The top band's filter was
 * delta - LP(f_last), whose output is exactly that difference, so the
 * bands are those of the design; but now they sum to the delayed input to
 * within the rounding of the subtraction, whatever the precision of the
 * transforms, and a block costs one inverse transform a channel fewer.
 *
 * Engine frame j is counted from the stream's start, as the input's
 * frames are in the ClrHistory `x` (one plane a channel, the same sample
 * type): x must hold frames j - lag - d_top onwards of the frames run.
 */
#ifndef __CLR_CROSSOVER_MIX_H__
#define __CLR_CROSSOVER_MIX_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "clr-history.h"

G_BEGIN_DECLS

typedef struct _ClrXoMix ClrXoMix;

/* `bands` bands (at least 2) of `channels` channels, in double (f64) or
 * float; gains_db and delays (frames) one a band, or NULL (0 dB, none);
 * lag as above; max_call: the most frames one clr_xo_mix_run () takes. */
ClrXoMix *clr_xo_mix_new (gboolean f64, size_t channels, unsigned bands,
    const double *gains_db, const size_t *delays, size_t lag,
    size_t max_call);
void clr_xo_mix_free (ClrXoMix * m);

/* How far back, in engine frames, an output frame reads the lower bands:
 * the longest band delay. */
size_t clr_xo_mix_get_max_delay (const ClrXoMix * m);

/* Engine frame `pos` comes next; the lower bands' output before it counts
 * as silence. FALSE when out of host memory. */
gboolean clr_xo_mix_reset (ClrXoMix * m, int64_t pos, GError ** error);

/* Takes n engine frames, the lower bands' output (output p = band k
 * channel c, p = k channels + c, its frame i at base + p pitch + i step
 * samples), and writes the bands of all but the first `drop` of them to
 * out (band k channel c into out[k channels + c], frame i - drop at
 * (i - drop) out_step samples; out may be NULL when drop == n). FALSE
 * when out of host memory. */
gboolean clr_xo_mix_run (ClrXoMix * m, ClrHistory * x, const void *base,
    size_t pitch, size_t step, size_t n, size_t drop, void *const *out,
    size_t out_step, GError ** error);

G_END_DECLS
#endif
