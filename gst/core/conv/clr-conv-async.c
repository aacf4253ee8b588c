/* clresample: a level of a long filter run on the process's workers. See
 * clr-conv-async.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include <string.h>
#include "clr-conv-async.h"
#include "clr-conv-levels.h"
#include "clr-workers.h"

struct _ClrConvAsync
{
  ClrWork work;                 /* first: the workers' view of it */
  ClrConv *conv;
  size_t in_planes, ssize, block;
  gboolean threaded;

  /* guards what follows; `changed` is signalled on every change of the
   * queues or the flags */
  GMutex lock;
  GCond changed;
  ClrConvDelay in;              /* input not yet run */
  ClrConvDelay out;             /* output not yet added */
  /* a run's input, taken from `in`: in_planes planes of scratch_cap */
  char *scratch;
  size_t scratch_cap;
  gboolean queued;              /* a worker has the level on its list */
  gboolean running;             /* someone (worker or head) runs it */
  GError *error;                /* a run's failure, for the head */
};

/* How long a head waiting for a level's run looks away before it looks
 * for the run's channels to take */
#define CLR_CONV_ASYNC_POLL_US 200

static void worker_run (ClrWork * work);

ClrConvAsync *
clr_conv_async_new (ClrConv * conv, size_t in_planes, size_t out_planes,
    size_t ssize, size_t block, size_t delay, size_t most,
    gboolean threaded)
{
  ClrConvAsync *a = g_try_new0 (ClrConvAsync, 1);

  if (!a)
    return NULL;
  a->in_planes = in_planes;
  a->ssize = ssize;
  a->block = block;
  a->threaded = threaded;
  a->work.run = worker_run;
  g_mutex_init (&a->lock);
  g_cond_init (&a->changed);
  /* the head pushes at most `most` frames before it takes as many: the
   * queue holds that beside a block, and the output, after its delay,
   * what the runs of all of that give */
  a->scratch_cap = most + block;
  if (!clr_conv_delay_init (&a->in, in_planes, ssize, 0, most + block)
      || !clr_conv_delay_init (&a->out, out_planes, ssize, delay,
          2 * (most + block))
      || !(a->scratch = g_try_malloc (in_planes * a->scratch_cap * ssize))) {
    clr_conv_delay_clear (&a->in);
    clr_conv_delay_clear (&a->out);
    g_mutex_clear (&a->lock);
    g_cond_clear (&a->changed);
    g_free (a);
    return NULL;
  }
  a->conv = conv;
  return a;
}

/* Lock held: until no worker has the level. */
static void
wait_idle (ClrConvAsync * a)
{
  while (a->queued || a->running)
    g_cond_wait (&a->changed, &a->lock);
}

void
clr_conv_async_free (ClrConvAsync * a)
{
  if (!a)
    return;
  g_mutex_lock (&a->lock);
  wait_idle (a);
  g_mutex_unlock (&a->lock);
  clr_conv_free (a->conv);
  clr_conv_delay_clear (&a->in);
  clr_conv_delay_clear (&a->out);
  g_free (a->scratch);
  g_clear_error (&a->error);
  g_mutex_clear (&a->lock);
  g_cond_clear (&a->changed);
  g_free (a);
}

void
clr_conv_async_reset (ClrConvAsync * a)
{
  g_mutex_lock (&a->lock);
  wait_idle (a);
  clr_conv_reset (a->conv);
  clr_conv_delay_reset (&a->in);
  clr_conv_delay_reset (&a->out);
  g_clear_error (&a->error);
  g_mutex_unlock (&a->lock);
}

ClrConv *
clr_conv_async_get_conv (ClrConvAsync * a)
{
  return a->conv;
}

typedef struct
{
  const char *base;
  size_t planes, pitch, step, ssize;
} Frames;

/* The level's input: frames [from, from + n) of a run's. */
static void
copy_frames (gpointer user, void *base, size_t pitch, size_t step,
    size_t from, size_t n)
{
  const Frames *src = user;
  const size_t ss = src->ssize;
  size_t k;

  for (k = 0; k < src->planes; k++) {
    const char *s = src->base + (k * src->pitch + from * src->step) * ss;
    char *d = (char *) base + k * pitch * ss;

    clr_conv_copy_samples (d, step, s, src->step, n, ss);
  }
}

/* The level's output into its delay line (locked where threaded: the head
 * reads it meanwhile). */
static void
push_out (gpointer user, const void *base, size_t pitch, size_t step,
    size_t n)
{
  ClrConvAsync *a = user;

  if (a->threaded)
    g_mutex_lock (&a->lock);
  clr_conv_delay_push (&a->out, base, pitch, step, n);
  if (a->threaded) {
    g_cond_broadcast (&a->changed);
    g_mutex_unlock (&a->lock);
  }
}

/* Lock held, running set: runs the level on all its queued input, the
 * lock released meanwhile. */
static void
run_queue (ClrConvAsync * a)
{
  while (a->in.len && !a->error) {
    const size_t n = MIN (a->in.len, a->scratch_cap);
    Frames src = { a->scratch, a->in_planes, a->scratch_cap, 1, a->ssize };
    GError *err = NULL;
    gboolean ok;

    clr_conv_delay_take (&a->in, a->scratch, a->scratch_cap, n);
    g_cond_broadcast (&a->changed);
    g_mutex_unlock (&a->lock);
    ok = clr_conv_process_with (a->conv, copy_frames, &src, n, push_out, a,
        &err);
    g_mutex_lock (&a->lock);
    if (!ok)
      a->error = err;
  }
}

/* Lock held: the level's turn taken here where nobody runs it (a worker
 * yet to start, or none), else a wait for the one that does. */
static void
help_or_wait (ClrConvAsync * a)
{
  if (a->running) {
    gboolean helped;

    /* the run under way may have split its channels over the workers:
     * take some of them rather than wait (and look again shortly: such a
     * split may come after the wait began) */
    g_mutex_unlock (&a->lock);
    helped = clr_workers_help ();
    g_mutex_lock (&a->lock);
    if (!helped && a->running)
      g_cond_wait_until (&a->changed, &a->lock, g_get_monotonic_time () +
          CLR_CONV_ASYNC_POLL_US);
    return;
  }
  a->running = TRUE;
  run_queue (a);
  a->running = FALSE;
  g_cond_broadcast (&a->changed);
}

static void
worker_run (ClrWork * work)
{
  ClrConvAsync *a = (ClrConvAsync *) work;

  g_mutex_lock (&a->lock);
  if (!a->running) {
    a->running = TRUE;
    run_queue (a);
    a->running = FALSE;
  }
  /* last: free () and reset () wait for it */
  a->queued = FALSE;
  g_cond_broadcast (&a->changed);
  g_mutex_unlock (&a->lock);
}

/* Lock held: the run's error for the head, which resets to go on. */
static gboolean
take_error (ClrConvAsync * a, GError ** error)
{
  if (!a->error)
    return TRUE;
  if (error)
    *error = g_error_copy (a->error);
  return FALSE;
}

gboolean
clr_conv_async_push (ClrConvAsync * a, const void *base, size_t pitch,
    size_t step, size_t n, GError ** error)
{
  Frames src = { base, a->in_planes, pitch, step, a->ssize };
  gboolean ok;

  if (!a->threaded)
    return clr_conv_process_with (a->conv, base ? copy_frames : NULL, &src,
        n, push_out, a, error);
  g_mutex_lock (&a->lock);
  while (!a->error && a->in.cap - a->in.len < n)
    help_or_wait (a);
  ok = take_error (a, error);
  if (ok) {
    clr_conv_delay_push (&a->in, base, pitch, step, n);
    /* a worker once there is a block to run */
    if (a->in.len >= a->block && !a->queued && !a->running) {
      a->queued = TRUE;
      clr_workers_push (&a->work);
    }
  }
  g_mutex_unlock (&a->lock);
  return ok;
}

gboolean
clr_conv_async_add_to_double (ClrConvAsync * a, gboolean f64, double *sums,
    size_t pitch, size_t n, GError ** error)
{
  gboolean ok;

  if (!a->threaded) {
    clr_conv_delay_add_to_double (&a->out, f64, sums, pitch, n);
    return TRUE;
  }
  g_mutex_lock (&a->lock);
  /* the input pushed so far gives these frames (the plan's delay): a
   * level behind with nothing queued would be a bug, not a wait */
  while (!a->error && a->out.len < n && (a->running || a->in.len))
    help_or_wait (a);
  ok = take_error (a, error);
  if (ok && a->out.len < n) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID, "A level of the "
        "convolution gave %" G_GSIZE_FORMAT " frames where %" G_GSIZE_FORMAT
        " were due", a->out.len, n);
    ok = FALSE;
  }
  if (ok)
    clr_conv_delay_add_to_double (&a->out, f64, sums, pitch, n);
  g_mutex_unlock (&a->lock);
  return ok;
}
