/* clresample: locks and waits for many threads. See clr-sync.h. */
#include "clr-sync.h"

#ifdef __linux__
#include <time.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

void
clr_lock_init (ClrLock * l)
{
#ifdef CLR_SYNC_ADAPTIVE
  pthread_mutexattr_t a;

  pthread_mutexattr_init (&a);
  pthread_mutexattr_settype (&a, PTHREAD_MUTEX_ADAPTIVE_NP);
  pthread_mutex_init (&l->m, &a);
  pthread_mutexattr_destroy (&a);
#else
  g_mutex_init (&l->m);
#endif
}

void
clr_lock_clear (ClrLock * l)
{
#ifdef CLR_SYNC_ADAPTIVE
  pthread_mutex_destroy (&l->m);
#else
  g_mutex_clear (&l->m);
#endif
}

#ifdef __linux__

void
clr_word_wait (gint * word, gint expected)
{
  /* returns at once if *word is no longer `expected`: no wake is lost */
  syscall (SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void
clr_word_wait_until (gint * word, gint expected, gint64 deadline)
{
  const gint64 left = deadline - g_get_monotonic_time ();
  struct timespec ts;

  if (left <= 0)
    return;
  /* FUTEX_WAIT's timeout is relative, on the monotonic clock */
  ts.tv_sec = left / G_USEC_PER_SEC;
  ts.tv_nsec = (left % G_USEC_PER_SEC) * 1000;
  syscall (SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

void
clr_word_wake (gint * word, gint n)
{
  syscall (SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

#else

/* a lock and condition per stripe of addresses: a waker takes the
 * stripe's lock, so it cannot slip between a sleeper's check and its
 * sleep */
#define CLR_SYNC_STRIPES 64
static GMutex stripe_lock[CLR_SYNC_STRIPES];
static GCond stripe_cond[CLR_SYNC_STRIPES];

static guint
stripe (gint * word)
{
  return (guint) (((guintptr) word >> 4) % CLR_SYNC_STRIPES);
}

void
clr_word_wait (gint * word, gint expected)
{
  const guint i = stripe (word);

  g_mutex_lock (&stripe_lock[i]);
  if (g_atomic_int_get (word) == expected)
    g_cond_wait (&stripe_cond[i], &stripe_lock[i]);
  g_mutex_unlock (&stripe_lock[i]);
}

void
clr_word_wait_until (gint * word, gint expected, gint64 deadline)
{
  const guint i = stripe (word);

  g_mutex_lock (&stripe_lock[i]);
  if (g_atomic_int_get (word) == expected)
    g_cond_wait_until (&stripe_cond[i], &stripe_lock[i], deadline);
  g_mutex_unlock (&stripe_lock[i]);
}

void
clr_word_wake (gint * word, gint n)
{
  const guint i = stripe (word);

  (void) n;
  g_mutex_lock (&stripe_lock[i]);
  g_cond_broadcast (&stripe_cond[i]);
  g_mutex_unlock (&stripe_lock[i]);
}

#endif
