/* clresample: designed filter banks, shared process-wide, GStreamer-free.
 *
 * The coefficients of a long filter cost more than the rest of an engine:
 * the 16 x 63488 taps of the M-Scaler-class filter are a million Kaiser
 * windows, each a Bessel series, 60-180 ms on two CPU cores. A bank is a
 * pure function of what clr_bank_row () reads (the layout, the filter's
 * cutoff, window and length, the ratio's I), so a second engine with the
 * same filter (another stream, a live change back to an earlier setting)
 * takes the bank already made: the same doubles, bit for bit.
 *
 * The cache keeps the banks used last, up to CLR_DESIGN_CACHE_ENTRIES of
 * them and CLR_DESIGN_CACHE_BYTES in all; a bank is freed when the cache
 * and every holder have let it go. Thread-safe.
 */
#ifndef __CLR_DESIGN_CACHE_H__
#define __CLR_DESIGN_CACHE_H__

#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include "clr-filter.h"
#include "clr-rate.h"

G_BEGIN_DECLS

/* The largest bank is a 16 MiB table of floats, 32 MiB as doubles: two of
 * those, or eight of the 8 MiB million-tap FFT bank. */
#define CLR_DESIGN_CACHE_BYTES (64u << 20)
#define CLR_DESIGN_CACHE_ENTRIES 8u

typedef struct _ClrDesign ClrDesign;

/* The bank `b` of filter `f` at ratio `r`: b->rows rows of b->taps
 * coefficients, row k as clr_bank_row () writes it. From the cache when it
 * holds it, else designed now (and cached when it fits). NULL only when
 * out of memory. Release with clr_design_unref (). */
ClrDesign *clr_design_get (const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r);
void clr_design_unref (ClrDesign * d);

/* Row `row` of the bank: b->taps values, the rows one after another from
 * row 0, which starts at a multiple of CLR_DESIGN_ALIGN bytes. */
const double *clr_design_row (const ClrDesign * d, uint32_t row);

/* A bank's alignment: a page, past any OpenCL device's base address
 * alignment, so that a CPU device's coefficient buffer can be the bank's
 * own memory (CL_MEM_USE_HOST_PTR: clr-engine.c). PoCL reads a buffer in
 * place only at its alignment; elsewhere it keeps a copy of its own and
 * brings it up to date before every launch (a 3 MB bank's kernel ran at
 * 0.6-0.8x its speed). */
#define CLR_DESIGN_ALIGN 4096

/* What the cache holds, and how often it was asked and answered (tests). */
typedef struct {
  guint entries;
  size_t bytes;
  guint64 hits;
  guint64 misses;
} ClrDesignCacheStats;

void clr_design_cache_stats (ClrDesignCacheStats * stats);
/* Lets go of every cached bank (those still held stay valid). */
void clr_design_cache_clear (void);

G_END_DECLS
#endif
