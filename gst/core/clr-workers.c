/* clresample: the process's worker threads. See clr-workers.h.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include "clr-workers.h"

static void
run_work (gpointer data, gpointer unused)
{
  ClrWork *work = data;

  work->run (work);
}

static GThreadPool *
get_pool (guint * count)
{
  static GThreadPool *pool;
  static guint threads;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    threads = MAX (g_get_num_processors (), 1) - 1;
    if (threads)
      pool = g_thread_pool_new (run_work, NULL, (gint) threads, FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  if (count)
    *count = threads;
  return pool;
}

guint
clr_workers_count (void)
{
  guint count;

  get_pool (&count);
  return count;
}

void
clr_workers_push (ClrWork * work)
{
  GThreadPool *pool = get_pool (NULL);

  if (pool)
    g_thread_pool_push (pool, work, NULL);
  else
    work->run (work);
}

typedef struct
{
  ClrWork work;
  ClrWorkersFunc func;
  gpointer user;
  gint n, next, done, refs;
  GMutex lock;
  GCond all_done;
} ForJob;

/* The jobs of clr_workers_for () with items nobody has taken yet, for
 * threads that would otherwise wait (clr_workers_help ()) */
static GMutex open_lock;
static GQueue open_jobs = G_QUEUE_INIT;

static void
for_unref (ForJob * j)
{
  if (!g_atomic_int_dec_and_test (&j->refs))
    return;
  g_mutex_clear (&j->lock);
  g_cond_clear (&j->all_done);
  g_free (j);
}

/* The items nobody has taken yet, one at a time. */
static void
for_items (ForJob * j)
{
  gint i;

  while ((i = g_atomic_int_add (&j->next, 1)) < j->n) {
    j->func (j->user, (guint) i);
    if (g_atomic_int_add (&j->done, 1) + 1 == j->n) {
      g_mutex_lock (&j->lock);
      g_cond_broadcast (&j->all_done);
      g_mutex_unlock (&j->lock);
    }
  }
}

static void
for_run (ClrWork * work)
{
  ForJob *j = (ForJob *) work;

  for_items (j);
  for_unref (j);
}

void
clr_workers_for (ClrWorkersFunc func, gpointer user, guint n)
{
  const guint helpers = MIN (n, clr_workers_count () + 1) - 1;
  ForJob *j;
  guint i;

  if (!helpers) {
    for (i = 0; i < n; i++)
      func (user, i);
    return;
  }
  j = g_new0 (ForJob, 1);
  j->work.run = for_run;
  j->func = func;
  j->user = user;
  j->n = (gint) n;
  j->refs = (gint) helpers + 1;
  g_mutex_init (&j->lock);
  g_cond_init (&j->all_done);
  for (i = 0; i < helpers; i++)
    clr_workers_push (&j->work);
  g_atomic_int_inc (&j->refs);
  g_mutex_lock (&open_lock);
  g_queue_push_tail (&open_jobs, j);
  g_mutex_unlock (&open_lock);
  for_items (j);
  g_mutex_lock (&open_lock);
  if (g_queue_remove (&open_jobs, j))
    g_atomic_int_add (&j->refs, -1);
  g_mutex_unlock (&open_lock);
  g_mutex_lock (&j->lock);
  while (g_atomic_int_get (&j->done) < j->n)
    g_cond_wait (&j->all_done, &j->lock);
  g_mutex_unlock (&j->lock);
  for_unref (j);
}

guint
clr_workers_parts (size_t n, size_t from)
{
  return n < from ? 1 : MIN (clr_workers_count () + 1, 16);
}

size_t
clr_workers_part_start (size_t n, guint i, guint parts)
{
  return (size_t) ((guint64) n * i / parts);
}

gboolean
clr_workers_help (void)
{
  ForJob *j = NULL;

  g_mutex_lock (&open_lock);
  while (!g_queue_is_empty (&open_jobs)) {
    j = g_queue_peek_head (&open_jobs);
    if (g_atomic_int_get (&j->next) < j->n) {
      g_atomic_int_inc (&j->refs);
      break;
    }
    /* all taken: no more help wanted there */
    g_queue_pop_head (&open_jobs);
    for_unref (j);
    j = NULL;
  }
  g_mutex_unlock (&open_lock);
  if (!j)
    return FALSE;
  for_items (j);
  for_unref (j);
  return TRUE;
}
