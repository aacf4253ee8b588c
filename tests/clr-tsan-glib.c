/* clresample: GLib's locks made visible to ThreadSanitizer, for the
 * ThreadSanitizer pass of scripts/run-tests.sh (build-tsan).
 *
 * On Linux GLib's GMutex and GCond are futexes with GLib's own atomics,
 * not pthread's: ThreadSanitizer intercepts pthread_mutex_lock, but GLib
 * is not instrumented, so it sees neither a GMutex's lock nor its unlock,
 * and every section guarded by one (the page-locked memory's list, the
 * elements' state, the tests' own counters) reads as a race. The same for
 * g_once () and g_once_init_enter () / leave () (an atomic store inside
 * GLib that publishes what the initialiser wrote) and for GThreadPool,
 * whose queue hands a job to a worker through GLib's own lock; and for
 * GStreamer's reference counts (gst_mini_object_unref ()).
 *
 * Linked into the test programs of that pass (tests/meson.build), these
 * definitions take the place of GLib's for the programs, GStreamer and the
 * plugin (the executable comes first in the symbols' search order): each
 * calls GLib's own through dlsym (RTLD_NEXT) and tells ThreadSanitizer
 * what it did, with its annotations for mutexes (so that a report names
 * the GMutexes held, and lock-order inversions are found as for pthread's)
 * and acquire/release for the rest, on an address of the object's own
 * (+ 1 where a lock could share the object's). Each edge stands for one
 * GLib or GStreamer really makes; nothing is suppressed here: a GMutex
 * left unlocked, or data handed over with no lock at all, is still a race.
 * GLib's calls to its own functions inside libglib do not come here (they
 * are bound within the library): of those, the thread pools' queues hand
 * over what our code and GStreamer allocate, modelled at the pools' own
 * functions below.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include <gst/gst.h>
#include <sanitizer/tsan_interface.h>

/* sanitizer/allocator_interface.h, which GCC does not install */
int __sanitizer_install_malloc_and_free_hooks (void (*malloc_hook)
    (const volatile void *, size_t), void (*free_hook)(const volatile void *));

/* GLib's or GStreamer's own function, looked up once (an atomic pointer:
 * the first calls may come from several threads at once) */
#define REAL(name, type) \
  static __typeof__ (type) real_##name; \
  __typeof__ (type) name##_fn = \
      __atomic_load_n (&real_##name, __ATOMIC_ACQUIRE); \
  if (!name##_fn) { \
    name##_fn = (__typeof__ (type)) dlsym (RTLD_NEXT, #name); \
    if (!name##_fn) { \
      fprintf (stderr, "clr-tsan-glib: no %s in GLib\n", #name); \
      abort (); \
    } \
    __atomic_store_n (&real_##name, name##_fn, __ATOMIC_RELEASE); \
  }

void
g_mutex_lock (GMutex * mutex)
{
  REAL (g_mutex_lock, void (*)(GMutex *));
  __tsan_mutex_pre_lock (mutex, 0);
  g_mutex_lock_fn (mutex);
  __tsan_mutex_post_lock (mutex, 0, 0);
}

gboolean
g_mutex_trylock (GMutex * mutex)
{
  gboolean locked;

  REAL (g_mutex_trylock, gboolean (*)(GMutex *));
  __tsan_mutex_pre_lock (mutex, __tsan_mutex_try_lock);
  locked = g_mutex_trylock_fn (mutex);
  __tsan_mutex_post_lock (mutex, __tsan_mutex_try_lock
      | (locked ? 0 : __tsan_mutex_try_lock_failed), 0);
  return locked;
}

void
g_mutex_unlock (GMutex * mutex)
{
  REAL (g_mutex_unlock, void (*)(GMutex *));
  __tsan_mutex_pre_unlock (mutex, 0);
  g_mutex_unlock_fn (mutex);
  __tsan_mutex_post_unlock (mutex, 0);
}

void
g_mutex_clear (GMutex * mutex)
{
  REAL (g_mutex_clear, void (*)(GMutex *));
  __tsan_mutex_destroy (mutex, 0);
  g_mutex_clear_fn (mutex);
}

/* a wait unlocks the mutex and locks it again before it returns */
void
g_cond_wait (GCond * cond, GMutex * mutex)
{
  REAL (g_cond_wait, void (*)(GCond *, GMutex *));
  __tsan_mutex_pre_unlock (mutex, 0);
  __tsan_mutex_post_unlock (mutex, 0);
  g_cond_wait_fn (cond, mutex);
  __tsan_mutex_pre_lock (mutex, 0);
  __tsan_mutex_post_lock (mutex, 0, 0);
}

gboolean
g_cond_wait_until (GCond * cond, GMutex * mutex, gint64 end_time)
{
  gboolean signalled;

  REAL (g_cond_wait_until, gboolean (*)(GCond *, GMutex *, gint64));
  __tsan_mutex_pre_unlock (mutex, 0);
  __tsan_mutex_post_unlock (mutex, 0);
  signalled = g_cond_wait_until_fn (cond, mutex, end_time);
  __tsan_mutex_pre_lock (mutex, 0);
  __tsan_mutex_post_lock (mutex, 0, 0);
  return signalled;
}

/* g_once (): what func wrote is released on once->status, which the
 * macro's fast path reads with an acquire load */
typedef struct
{
  GOnce *once;
  GThreadFunc func;
  gpointer arg;
} OnceCall;

static gpointer
once_call (gpointer data)
{
  OnceCall *c = data;
  gpointer r = c->func (c->arg);

  __tsan_release ((void *) &c->once->status);
  return r;
}

gpointer
g_once_impl (GOnce * once, GThreadFunc func, gpointer arg)
{
  OnceCall c = { once, func, arg };
  gpointer r;

  REAL (g_once_impl, gpointer (*)(GOnce *, GThreadFunc, gpointer));
  r = g_once_impl_fn (once, once_call, &c);
  __tsan_acquire ((void *) &once->status);
  return r;
}

/* g_once_init_enter () / leave (): released on the location, which the
 * macros' fast path reads with an acquire load */
gboolean
(g_once_init_enter) (volatile void *location)
{
  gboolean enter;

  REAL (g_once_init_enter, gboolean (*)(volatile void *));
  enter = g_once_init_enter_fn (location);
  if (!enter)
    __tsan_acquire ((void *) location);
  return enter;
}

void
(g_once_init_leave) (volatile void *location, gsize result)
{
  REAL (g_once_init_leave, void (*)(volatile void *, gsize));
  __tsan_release ((void *) location);
  g_once_init_leave_fn (location, result);
}

/* GStreamer's buffers, events and messages are counted with GStreamer's
 * own atomics (gst_mini_object_unref ()): the thread that drops the last
 * reference frees the object, and what it holds, after other threads
 * read it and dropped theirs, which ThreadSanitizer cannot see. Each drop
 * through the function below releases on the object (its address + 1,
 * which no lock shares), and every free () acquires there (the
 * sanitizer's free hook) and, inside a drop, on the object dropped and on
 * a buffer's memories (whose unmaps release on them, below): a drop
 * happens before the object's own block, and whatever the last drop frees
 * with it (a buffer's memory, the list of a memory's buffers), are freed.
 * Drops inside GStreamer do not come here; a block freed at its own
 * address still acquires what drops from outside released on it. */
typedef struct _Dropping Dropping;
struct _Dropping
{
  gpointer object;                /* a GstMiniObject or a GObject */
  GstMemory *memory[16];
  guint n_memory;
  Dropping *outer;              /* a drop this one is inside of */
};

static __thread Dropping *dropping;

void
gst_mini_object_unref (GstMiniObject * mini_object)
{
  Dropping d = { mini_object, {NULL}, 0, dropping };

  REAL (gst_mini_object_unref, void (*)(GstMiniObject *));
  if (!mini_object) {
    gst_mini_object_unref_fn (mini_object);     /* GStreamer's warning */
    return;
  }
  if (GST_IS_BUFFER (mini_object)) {
    GstBuffer *buffer = GST_BUFFER_CAST (mini_object);
    guint i;

    d.n_memory = MIN (gst_buffer_n_memory (buffer), G_N_ELEMENTS (d.memory));
    for (i = 0; i < d.n_memory; i++)
      d.memory[i] = gst_buffer_peek_memory (buffer, i);
  }
  __tsan_release ((char *) mini_object + 1);
  dropping = &d;
  gst_mini_object_unref_fn (mini_object);
  dropping = d.outer;
}

/* GObjects (elements, pads, the plugin's own) the same: each drop through
 * g_object_unref () releases on the object (+ 1), and what the last drop
 * finalizes acquires there first: its blocks freed (the free hook), and
 * the locks its finalize clears (below; a GRecMutex is pthread's, which
 * the sanitizer sees destroyed, and the last drop is often on another
 * thread than the last unlock: gst_element_call_async ()'s pool). */
void
g_object_unref (gpointer object)
{
  Dropping d = { object, {NULL}, 0, dropping };

  REAL (g_object_unref, void (*)(gpointer));
  if (object)
    __tsan_release ((char *) object + 1);
  dropping = &d;
  g_object_unref_fn (object);
  dropping = d.outer;
}

/* every object this thread is dropping (a finalize is inside one) */
static void
acquire_dropped (void)
{
  Dropping *d;
  guint i;

  for (d = dropping; d; d = d->outer) {
    __tsan_acquire ((char *) d->object + 1);
    for (i = 0; i < d->n_memory; i++)
      __tsan_acquire ((char *) d->memory[i] + 1);
  }
}

void
g_rec_mutex_clear (GRecMutex * rec_mutex)
{
  REAL (g_rec_mutex_clear, void (*)(GRecMutex *));
  acquire_dropped ();
  g_rec_mutex_clear_fn (rec_mutex);
}

/* A buffer's memory mapped, read or written and unmapped by one thread
 * and freed by another, whose drop of the buffer's last reference comes
 * after the first thread's unmap, which dropped the memory's reference
 * inside GStreamer: an unmap releases on the memory, whose block (the
 * memory and its data) the free hook then acquires. */
void
gst_buffer_unmap (GstBuffer * buffer, GstMapInfo * info)
{
  REAL (gst_buffer_unmap, void (*)(GstBuffer *, GstMapInfo *));
  if (info && info->memory)
    __tsan_release ((char *) info->memory + 1);
  gst_buffer_unmap_fn (buffer, info);
}

void
gst_memory_unmap (GstMemory * mem, GstMapInfo * info)
{
  REAL (gst_memory_unmap, void (*)(GstMemory *, GstMapInfo *));
  if (mem)
    __tsan_release ((char *) mem + 1);
  gst_memory_unmap_fn (mem, info);
}

/* whether this thread is in a call to GThreadPool (below) */
static __thread gboolean in_pool;

static void
malloc_hook (const volatile void *ptr, size_t size)
{
  if (in_pool && ptr)
    __tsan_release ((char *) ptr + 1);
}

static void
free_hook (const volatile void *ptr)
{
  if (ptr)
    __tsan_acquire ((char *) ptr + 1);
  acquire_dropped ();
}

/* (the sanitizer takes both hooks or neither) */
__attribute__ ((constructor))
static void
install_free_hook (void)
{
  __sanitizer_install_malloc_and_free_hooks (malloc_hook, free_hook);
}

/* GThreadPool: a job pushed is released on its data (+ 1) and acquired
 * by the worker before the pool's function runs. The nodes of GLib's
 * queues (the pool's own, its idle threads' and its thread spawner's),
 * allocated in a call to the pool and freed by the thread that takes the
 * job or the wake-up, are released as they are allocated (the malloc hook
 * above, while `in_pool`) and acquired as they are freed (the free hook):
 * a push, a pool's threads started, and the calls that wake threads to
 * stop them (GStreamer's gst_task_cleanup_all () frees its pool and sets
 * the idle threads' number to 0). The pools of the process live as long
 * as it does (clr-workers, the cache's writer, GStreamer's): the small
 * record of each is never freed. */
typedef struct
{
  GFunc func;
  gpointer user_data;
} PoolCall;

static void
pool_call (gpointer data, gpointer user_data)
{
  PoolCall *c = user_data;

  __tsan_acquire ((char *) data + 1);
  c->func (data, c->user_data);
}

GThreadPool *
g_thread_pool_new (GFunc func, gpointer user_data, gint max_threads,
    gboolean exclusive, GError ** error)
{
  PoolCall *c = malloc (sizeof *c);
  GThreadPool *pool;

  REAL (g_thread_pool_new,
      GThreadPool * (*)(GFunc, gpointer, gint, gboolean, GError **));
  c->func = func;
  c->user_data = user_data;
  in_pool = TRUE;
  pool = g_thread_pool_new_fn (pool_call, c, max_threads, exclusive, error);
  in_pool = FALSE;
  return pool;
}

gboolean
g_thread_pool_push (GThreadPool * pool, gpointer data, GError ** error)
{
  gboolean pushed;

  REAL (g_thread_pool_push, gboolean (*)(GThreadPool *, gpointer,
          GError **));
  __tsan_release ((char *) data + 1);
  in_pool = TRUE;
  pushed = g_thread_pool_push_fn (pool, data, error);
  in_pool = FALSE;
  return pushed;
}

void
g_thread_pool_set_max_unused_threads (gint max_threads)
{
  REAL (g_thread_pool_set_max_unused_threads, void (*)(gint));
  in_pool = TRUE;
  g_thread_pool_set_max_unused_threads_fn (max_threads);
  in_pool = FALSE;
}

void
g_thread_pool_stop_unused_threads (void)
{
  REAL (g_thread_pool_stop_unused_threads, void (*)(void));
  in_pool = TRUE;
  g_thread_pool_stop_unused_threads_fn ();
  in_pool = FALSE;
}

gboolean
g_thread_pool_set_max_threads (GThreadPool * pool, gint max_threads,
    GError ** error)
{
  gboolean set;

  REAL (g_thread_pool_set_max_threads, gboolean (*)(GThreadPool *, gint,
          GError **));
  in_pool = TRUE;
  set = g_thread_pool_set_max_threads_fn (pool, max_threads, error);
  in_pool = FALSE;
  return set;
}

void
g_thread_pool_free (GThreadPool * pool, gboolean immediate, gboolean wait_)
{
  REAL (g_thread_pool_free, void (*)(GThreadPool *, gboolean, gboolean));
  in_pool = TRUE;
  g_thread_pool_free_fn (pool, immediate, wait_);
  in_pool = FALSE;
}
