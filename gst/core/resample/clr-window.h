/* clresample: a resampler's window on the host, GStreamer-free.
 *
 * The input frames the next outputs read (the filter's history, then the
 * new input) in the layout and sample type the kernels read: one plane a
 * channel, or interleaved frames (the _iv kernel), in the stream's format
 * or as doubles (the CPU kernels, -DCLR_WIN_DOUBLE, which then spare a
 * conversion a tap). A buffer's window is copied from here into the
 * device scheduler's batch (clr-sched.h), so no device memory holds a
 * stream's state between buffers. After a buffer the history stays where
 * it is and the window starts `base` frames on; only when the next input
 * would not fit behind it does the history move to the front.
 */
#ifndef __CLR_WINDOW_H__
#define __CLR_WINDOW_H__

#include "clr-format.h"

G_BEGIN_DECLS

typedef struct {
  char *buf;                    /* cap frames: planes, or interleaved */
  size_t cap;
  size_t base;                  /* where the window's first frame is */
  size_t channels;
  size_t wsize;                 /* bytes a window sample */
  size_t ssize;                 /* bytes a stream sample */
  ClrFormat format;
  gboolean interleaved;
} ClrWindow;

void clr_window_init (ClrWindow * w, size_t channels, ClrFormat format,
    size_t wsize, gboolean interleaved);
void clr_window_clear (ClrWindow * w);
/* Room for `frames` frames from the window's start, keeping the first
 * `len` (moved to the front, or to a larger buffer). */
gboolean clr_window_reserve (ClrWindow * w, size_t len, size_t frames,
    GError ** error);
/* The window now starts `skip` frames later. */
void clr_window_advance (ClrWindow * w, size_t skip);
/* Forgets the contents: the window starts at the buffer's start. */
void clr_window_rewind (ClrWindow * w);
/* n frames from window frame `at`: the stream's input (one plane a
 * channel if planar, else interleaved frames in in[0]); or zeros. */
void clr_window_write_input (ClrWindow * w, size_t at,
    const void *const *in, gboolean planar, size_t n);
void clr_window_write_zeros (ClrWindow * w, size_t at, size_t n);
/* Where channel c's window frame 0 lies (planes `cap` frames apart) */
const char *clr_window_plane (const ClrWindow * w, size_t c);
/* Window frames [0, n) to dst as the kernel reads them: planes `pitch`
 * frames apart, or n interleaved frames. */
void clr_window_copy_out (ClrWindow * w, size_t n, char *dst, size_t pitch);
/* Window frames [0, len) to and from host planes of len frames in the
 * stream's format (clr_engine_continue_from ()), the latter at frame
 * `at`. */
void clr_window_get (ClrWindow * w, size_t len, char *host);
void clr_window_put (ClrWindow * w, size_t at, size_t len, const char *host);

G_END_DECLS
#endif
