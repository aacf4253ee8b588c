/* clresample: a level of a long filter run on the process's workers,
 * GStreamer-free.
 *
 * The levels of non-uniform partitions (clr-conv-levels.h) after the head
 * need their output only a while after their input: a level of blocks of
 * B_i frames planned with slack (start_i >= 3 B_i - B_0) has two blocks
 * of its own before its output is due. Run on a worker thread, its long
 * transforms then go alongside the head's blocks, on another core, instead
 * of all at once inside one of them (zita-convolver's way). The head
 * pushes each call's input into the level's queue and, when it hands out
 * output, adds what the level has produced for those frames, waiting for
 * it only where the worker is late; where no worker has taken the level's
 * turn yet, the head runs it itself. The output is the same as run inline:
 * the same arithmetic on the same frames, whatever the timing.
 */
#ifndef __CLR_CONV_ASYNC_H__
#define __CLR_CONV_ASYNC_H__

#include <stddef.h>
#include <glib.h>
#include "clr-conv.h"

G_BEGIN_DECLS

typedef struct _ClrConvAsync ClrConvAsync;

/* Takes `conv` (a level: in_planes channels in, out_planes planes out,
 * samples of ssize bytes, blocks of `block` frames); its output comes
 * after `delay` frames of silence. The head pushes at most `most` frames
 * between the outputs it takes. threaded: on the workers, else inline in
 * push (). NULL when out of host memory. */
ClrConvAsync *clr_conv_async_new (ClrConv * conv, size_t in_planes,
    size_t out_planes, size_t ssize, size_t block, size_t delay, size_t most,
    gboolean threaded);
/* Waits for a worker still on it. */
void clr_conv_async_free (ClrConvAsync * a);
void clr_conv_async_reset (ClrConvAsync * a);
ClrConv *clr_conv_async_get_conv (ClrConvAsync * a);

/* n input frames, plane k's frame i at base + (k pitch + i step) samples;
 * base NULL: silence. */
gboolean clr_conv_async_push (ClrConvAsync * a, const void *base,
    size_t pitch, size_t step, size_t n, GError ** error);
/* Adds the next n output frames (float or double: f64) to planes of
 * doubles, plane k's frame i at sums + k pitch + i: waits for them where
 * a worker is computing them. */
gboolean clr_conv_async_add_to_double (ClrConvAsync * a, gboolean f64,
    double *sums, size_t pitch, size_t n, GError ** error);

G_END_DECLS
#endif
