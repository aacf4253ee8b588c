/* clresample: locks and waits for hundreds of streaming threads,
 * GStreamer-free.
 *
 * The device's scheduler (clr-sched.c) is entered by every stream of the
 * process for every buffer. With a sleeping mutex, hundreds of threads
 * woken at once by a finished batch queue on its lock, and each hand-over
 * waits for the next sleeper to be scheduled: measured on an H200 with
 * 256 streams, a quarter of the streaming threads' time went to waiting
 * for the scheduler's and the batches' locks, and the device idled
 * between batches. Hence:
 *
 * ClrLock, a mutex that spins a little before it sleeps (glibc's adaptive
 * mutex; GMutex where there is none), for sections of a few hundred
 * nanoseconds; and clr_word_wait () / clr_word_wake (), waiting on an
 * integer's value as a futex does (Linux's futex; a striped GMutex and
 * GCond elsewhere), so that waking the threads of a finished batch needs
 * no lock for them to take again.
 */
#ifndef __CLR_SYNC_H__
#define __CLR_SYNC_H__

#include <glib.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#define CLR_SYNC_ADAPTIVE 1
#endif

G_BEGIN_DECLS

typedef struct {
#ifdef CLR_SYNC_ADAPTIVE
  pthread_mutex_t m;
#else
  GMutex m;
#endif
} ClrLock;

void clr_lock_init (ClrLock * l);
void clr_lock_clear (ClrLock * l);

static inline void
clr_lock (ClrLock * l)
{
#ifdef CLR_SYNC_ADAPTIVE
  pthread_mutex_lock (&l->m);
#else
  g_mutex_lock (&l->m);
#endif
}

static inline void
clr_unlock (ClrLock * l)
{
#ifdef CLR_SYNC_ADAPTIVE
  pthread_mutex_unlock (&l->m);
#else
  g_mutex_unlock (&l->m);
#endif
}

/* Sleeps while *word is `expected` (read atomically); it may also return
 * early, so callers wait in a loop that reads *word again. */
void clr_word_wait (gint * word, gint expected);
/* The same, until `deadline` (g_get_monotonic_time ()'s microseconds) at
 * the latest. */
void clr_word_wait_until (gint * word, gint expected, gint64 deadline);
/* Wakes up to n threads waiting on word (G_MAXINT: all of them); call it
 * after changing *word with g_atomic_int_set (). */
void clr_word_wake (gint * word, gint n);

G_END_DECLS
#endif
