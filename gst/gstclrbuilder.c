/* clresample: filters built off the streaming thread. See gstclrbuilder.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstclrbuilder.h"
#include "gstclrcommon.h"

/* How often a wait for a job looks at the clock: a small part of the
 * margin, so that the wait ends close to where it should. */
#define POLL_US 2000

void
gst_clr_builder_init (GstClrBuilder * b, const gchar * name,
    GstClrBuildFunc build, GDestroyNotify free_job)
{
  g_mutex_init (&b->lock);
  g_cond_init (&b->cond);
  b->thread = NULL;
  b->active = FALSE;
  b->cancel = FALSE;
  b->queued = NULL;
  b->done = NULL;
  b->build = build;
  b->free_job = free_job;
  b->name = name;
}

void
gst_clr_builder_clear (GstClrBuilder * b)
{
  gst_clr_builder_cancel (b);
  g_mutex_clear (&b->lock);
  g_cond_clear (&b->cond);
}

/* Builds the queued jobs, the newest only: one queued while another was
 * built supersedes it. */
static gpointer
worker (gpointer data)
{
  GstClrBuilder *b = data;
  gpointer job;

  g_mutex_lock (&b->lock);
  while ((job = b->queued) && !b->cancel) {
    b->queued = NULL;
    g_mutex_unlock (&b->lock);
    b->build (job);
    g_mutex_lock (&b->lock);
    if (b->queued || b->cancel) {
      g_mutex_unlock (&b->lock);
      b->free_job (job);
      g_mutex_lock (&b->lock);
    } else {
      b->done = job;
    }
  }
  b->active = FALSE;
  g_cond_broadcast (&b->cond);
  g_mutex_unlock (&b->lock);
  return NULL;
}

void
gst_clr_builder_submit (GstClrBuilder * b, gpointer job)
{
  gpointer stale_queued, stale_done;
  GThread *finished = NULL, *thread;
  gboolean start;

  g_mutex_lock (&b->lock);
  stale_queued = b->queued;
  stale_done = b->done;
  b->queued = job;
  b->done = NULL;
  start = !b->active;
  if (start) {
    finished = b->thread;
    b->thread = NULL;
    b->active = TRUE;
  }
  g_mutex_unlock (&b->lock);
  if (stale_queued)
    b->free_job (stale_queued);
  if (stale_done)
    b->free_job (stale_done);
  if (!start)
    return;                     /* the running thread takes it next */
  if (finished)
    g_thread_join (finished);
  thread = g_thread_try_new (b->name, worker, b, NULL);
  if (thread) {
    g_mutex_lock (&b->lock);
    b->thread = thread;
    g_mutex_unlock (&b->lock);
  } else {
    /* no thread to be had: built here, in line as it used to be */
    worker (b);
  }
}

gboolean
gst_clr_builder_busy (GstClrBuilder * b)
{
  gboolean busy;

  g_mutex_lock (&b->lock);
  busy = b->active;
  g_mutex_unlock (&b->lock);
  return busy;
}

gpointer
gst_clr_builder_take (GstClrBuilder * b)
{
  GThread *finished = NULL;
  gpointer job;

  g_mutex_lock (&b->lock);
  job = b->done;
  b->done = NULL;
  if (!b->active) {
    finished = b->thread;
    b->thread = NULL;
  }
  g_mutex_unlock (&b->lock);
  /* an ended thread is joined as soon as it is seen, not at the next job */
  if (finished)
    g_thread_join (finished);
  return job;
}

gboolean
gst_clr_builder_wait (GstClrBuilder * b, GstBaseTransform * trans,
    GstBuffer * buf)
{
  GstElement *element = GST_ELEMENT (trans);
  GstClockTime running;
  GstClock *clock = gst_clr_buffer_deadline (trans, buf, &running);
  gboolean done;

  g_mutex_lock (&b->lock);
  /* A live source's buffer comes when the clock has passed it, a player's
   * as far ahead as the sink buffers: this ends at once there, and a sink
   * never runs dry for it. A frozen or absent clock waits for the job. */
  while (b->active && !gst_clr_clock_reached (element, clock, running,
          GST_CLR_BUILDER_MARGIN))
    g_cond_wait_until (&b->cond, &b->lock, g_get_monotonic_time () +
        POLL_US);
  done = !b->active;
  g_mutex_unlock (&b->lock);
  if (clock)
    gst_object_unref (clock);
  return done;
}

void
gst_clr_builder_cancel (GstClrBuilder * b)
{
  GThread *thread;
  gpointer queued, done;

  g_mutex_lock (&b->lock);
  b->cancel = TRUE;
  queued = b->queued;
  b->queued = NULL;
  thread = b->thread;
  b->thread = NULL;
  g_mutex_unlock (&b->lock);
  if (queued)
    b->free_job (queued);
  /* a build cannot be interrupted: the thread drops it when it is done */
  if (thread)
    g_thread_join (thread);
  g_mutex_lock (&b->lock);
  done = b->done;
  b->done = NULL;
  b->cancel = FALSE;
  g_mutex_unlock (&b->lock);
  if (done)
    b->free_job (done);
}
