/* clresample: the process's worker threads for the host's DSP,
 * GStreamer-free.
 *
 * As many threads as the cores beside the caller's, shared by every
 * stream in the process, created on first use: a stream's channels
 * transformed and summed side by side (clr_workers_for ()), the levels of
 * long filters run apart from the head (conv/clr-conv-async.h), and the
 * passes of a design's long transforms cut in parts
 * (design/clr-fft-host.c). A
 * caller never waits for a worker to start: it takes the items nobody has
 * taken yet itself, and waits only for those under way.
 */
#ifndef __CLR_WORKERS_H__
#define __CLR_WORKERS_H__

#include <glib.h>

G_BEGIN_DECLS

/* A job for the workers: its first member, run (job) on a worker. */
typedef struct _ClrWork ClrWork;
struct _ClrWork
{
  void (*run) (ClrWork * work);
};

/* The workers there are (0 on one core). */
guint clr_workers_count (void);
/* Has a worker run `work` (which must live until it has run). */
void clr_workers_push (ClrWork * work);

/* func (user, i) for every i < n, on the calling thread and on idle
 * workers; returns when all have run. */
typedef void (*ClrWorkersFunc) (gpointer user, guint i);
void clr_workers_for (ClrWorkersFunc func, gpointer user, guint n);
/* The parts a loop over n points is cut in for clr_workers_for (): one
 * below `from` points, else one for the caller and each worker (16 at
 * most); and where part i of them starts (it runs to part i + 1's start,
 * part `parts`'s being n). */
guint clr_workers_parts (size_t n, size_t from);
size_t clr_workers_part_start (size_t n, guint i, guint parts);
/* For a thread about to wait on the workers: runs items of a
 * clr_workers_for () that nobody has taken yet, if there are any (TRUE),
 * so that the wait goes into the work it waits for. */
gboolean clr_workers_help (void);

G_END_DECLS
#endif
