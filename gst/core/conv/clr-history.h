/* clresample: the last input frames of a stream, on the host, GStreamer-free.
 *
 * An engine keeps the stream's recent input here, in its own sample format,
 * one plane a channel: what a successor engine needs to continue the
 * stream seamlessly (clr_engine_continue_from ()) with a longer filter
 * than the running one reads, and what the FFT path feeds its convolution
 * from. Frames [start, start + len) of the stream, in a ring whose storage
 * is mirrored (frame i also at i + cap), so that the frames always read as
 * one contiguous plane a channel and dropping old ones moves nothing:
 * appending costs two writes a sample, never a move of the whole history.
 */
#ifndef __CLR_HISTORY_H__
#define __CLR_HISTORY_H__

#include <stdint.h>
#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *data;                   /* channels rings of 2 cap frames */
  size_t cap;
  size_t channels;
  size_t ssize;                 /* bytes a sample */
  int64_t start;                /* stream frame of each plane's frame 0 */
  size_t head;                  /* where frame `start` is in each ring */
  size_t len;
  gboolean lazy;                /* clr_history_set_lazy () */
  gboolean unwrapped;           /* lazy: the mirror made since the last
                                 * append */
} ClrHistory;

void clr_history_init (ClrHistory * h, size_t channels, size_t ssize);
void clr_history_clear (ClrHistory * h);
/* A history read rarely (a successor's start, not every block): frames are
 * written once, into the ring's first half, and the mirror is made only
 * for a read (clr_history_plane (), clr_history_read ()), so that every
 * sample costs one write instead of two and the mirror's pages are never
 * touched. Set before the first append. */
void clr_history_set_lazy (ClrHistory * h, gboolean lazy);
/* Forgets the frames: the next one appended is stream frame `start`. */
void clr_history_reset (ClrHistory * h, int64_t start);
/* Drops all but the last `keep` frames and makes room for n more. */
gboolean clr_history_make_room (ClrHistory * h, size_t keep, size_t n,
    GError ** error);
/* Appends n frames: one plane a channel (planar) or interleaved frames in
 * in[0]; in == NULL appends silence. Room must have been made. */
void clr_history_append (ClrHistory * h, const void *const *in,
    gboolean planar, size_t n);
/* Channel c's plane: frame i (< len) is stream frame start + i. */
char *clr_history_plane (ClrHistory * h, size_t c);
/* Appends n frames, as clr_history_append(), keeping at least the last
 * `keep` frames in all: of a longer run only its end is stored, so silence
 * of any length costs no memory past `keep`. */
gboolean clr_history_push (ClrHistory * h, size_t keep,
    const void *const *in, gboolean planar, size_t n, GError ** error);
/* clr_history_push () of frames laid out as the convolution engine's
 * sources and sinks see them (clr-conv.h): channel c's frame i at base +
 * (c pitch + i step) samples, planes (step 1) or interleaved frames (pitch
 * 1, step = the channels); base NULL: silence. */
gboolean clr_history_push_laid_out (ClrHistory * h, size_t keep,
    const void *base, size_t pitch, size_t step, size_t n, GError ** error);
/* Forgets the last n frames appended (n <= len): a push whose work
 * failed, undone so that the stream's state is as before it. */
void clr_history_drop_last (ClrHistory * h, size_t n);
/* Makes the history `pad` frames of silence from stream frame `start`,
 * then host's len frames (planes of len frames each). */
gboolean clr_history_set (ClrHistory * h, int64_t start, const char *host,
    size_t pad, size_t len, GError ** error);
/* The last len frames into host planes of len frames each. */
void clr_history_read (ClrHistory * h, size_t len, char *host);

G_END_DECLS
#endif
