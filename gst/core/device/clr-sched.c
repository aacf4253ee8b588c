/* clresample: the device's batch scheduler. See clr-sched.h.
 *
 * A batch moves through OPEN (taking jobs), CLOSED (full, waiting its turn),
 * RUNNING (on the device) and DONE (outputs readable), then back to the free
 * list once every job has read its output. Jobs write their windows outside
 * the lock, so a batch is ready to run when its last writer is done. Who
 * runs a batch: whichever thread finds the device with room (fewer than
 * max_running batches on it) and a ready batch, under `submitting`, so
 * one thread at a time sets kernel arguments. Who waits for it: the first
 * of its jobs' threads to get there waits on the device, then sends the
 * next batch, then wakes the others, which sleep on the batch's state
 * until it is DONE. No thread spins except the one waiting on the
 * device, and that only briefly (wait_event ()).
 *
 * One lock, the scheduler's (the open batch, the queue of closed ones,
 * what runs), a ClrLock that spins before it sleeps (clr-sync.h). A
 * batch's state is an atomic word from SUBMITTING on, and its jobs'
 * threads sleep on the word itself (clr_word_wait ()): a hundred threads
 * woken at once by a finished batch take no lock to return, and claiming
 * the wait on the device is a compare-and-swap. Releasing a job takes no
 * lock but the last one's.
 */
#include <string.h>
#include <time.h>
/* clSVMAlloc after a run-time check (clr_budget_svm_supported); queues the
 * 1.2 way, which every device takes */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clr-sched.h"
#include "clr-budget.h"
#include "clr-hostmem.h"
#include "clr-log.h"
#include "clr-sync.h"
#include "clr-tuning.h"

/* Rows of the stream table a batch holds at most; a batch past it closes. */
#define CLR_SCHED_MAX_JOBS 1024u
#define CLR_SCHED_TABLE_BYTES \
  (CLR_SCHED_MAX_JOBS * CLR_SCHED_ROW_WORDS * sizeof (cl_ulong))
/* Every window and output starts on this many bytes: the kernels' vector
 * loads (_iv reads four samples as one) see the alignment a buffer of
 * their own would give. */
#define CLR_SCHED_ALIGN 128u
/* Staging a batch starts with, and the most it grows to by itself (a
 * larger job still gets a batch of its own size). */
#define CLR_SCHED_START_BYTES (256u * 1024u)
#define CLR_SCHED_GROW_MAX (64u * 1024u * 1024u)
/* ... in page-locked memory (GPUs), where allocating takes milliseconds
 * (3.5 ms a batch on an H200's driver): larger, and this many batches
 * made with the scheduler, not by the streams as they start (256
 * streams' threads slept 591 times in a 0.8 s run waiting for one of
 * them to allocate) */
#define CLR_SCHED_START_PINNED (1024u * 1024u)
#define CLR_SCHED_PREALLOC_PINNED 4u
/* Idle batches: a burst of streams leaves as many behind as it had in
 * flight, and a GPU's are page-locked memory the rest of the system goes
 * without. Past CLR_SCHED_IDLE_KEEP of them (the page-locked ones made
 * ahead), the oldest goes once no one has taken it for CLR_SCHED_IDLE_US:
 * under a steady load batches come back within milliseconds, and freeing
 * one that is needed again costs milliseconds to allocate (page-locked).
 * Never more than CLR_SCHED_IDLE_MAX. */
#define CLR_SCHED_IDLE_KEEP CLR_SCHED_PREALLOC_PINNED
#define CLR_SCHED_IDLE_US G_USEC_PER_SEC
#define CLR_SCHED_IDLE_MAX 16u
/* A batch whose staging is more than CLR_SCHED_SHRINK times what its
 * recent runs used (a decaying maximum, down by an eighth a run) is cut
 * back to twice that, at the start's size at least: a job larger than
 * any batch gets one of its own size, and a burst grows batches, and
 * neither should pin that memory once the load is gone. */
#define CLR_SCHED_SHRINK 4u
/* A job's thread waits for the device this long polling before it blocks
 * (a blocked thread wakes tens of microseconds late; a playback buffer's
 * work is shorter than that). */
#define CLR_SCHED_POLL_US 300
#define CLR_SCHED_POLL_JOBS 2u
/* Batches on the device at once, each on its own queue: a GPU copies one
 * while it computes the other, and a CPU device's workers find the next
 * one waiting when they finish one (2 cores, 16 and 64 streams: 367 and
 * 398 stream-seconds a second with one, 432 and 410 with two). */
#define CLR_SCHED_RUNNING 2u
#define CLR_SCHED_RUNNING_MAX 16u
/* Batches a waiter goes on to wait for after its own (finish ()): 256
 * streams on an H200, 16 cores, alternating twice: 3032 and 3235
 * stream-seconds a second with none, 3079 and 2941 with 2, 3357 and 3547
 * with 8, 3350 and 3361 with no limit */
#define CLR_SCHED_CHAIN 8u
/* ... only batches of this many jobs: smaller ones come from a lighter
 * load, where a woken sleeper finds a core at once and this thread's own
 * stream should not wait a batch longer (256 streams' batches hold 40-90
 * jobs, 16 streams' 3) */
#define CLR_SCHED_CHAIN_JOBS 16u
/* ... and polls for them this long before it blocks: under such a load it
 * is the device's thread, and a blocked thread wakes late on busy cores
 * (256 streams, alternating three times: 3610, 3711, 3662 stream-seconds
 * a second against 3072, 3684, 3431 blocking at once, a batch 1.39-1.49
 * ms from taken to done against 1.42-1.63) */
#define CLR_SCHED_CHAIN_POLL_US 3000
/* Under load on a GPU (recent batches of CLR_SCHED_SPIN_COMPANY jobs or
 * more) a job's thread waits for its batch yielding its core rather than
 * asleep, for up to CLR_SCHED_SPIN_US. Hundreds of threads put to sleep
 * and woken a batch at a time left 40-45 % of 16 cores idle while 50
 * threads on average stood runnable (the kernel places a burst of woken
 * threads where their waker runs, and idle cores do not take them in
 * time); a yielding thread stays on its core's run queue and gives it to
 * whichever thread has work. 256 streams on an H200, three rounds:
 * 4776, 4655, 4618 stream-seconds a second against 4253, 4194, 4133
 * asleep, a buffer's p99 7.7-8.7 ms against 10.0-10.7. Not on CPU
 * devices, whose own worker threads need those cores, nor for a few
 * streams, where the yield would find no one to give the core to. */
#define CLR_SCHED_SPIN_US 2000
#define CLR_SCHED_SPIN_COMPANY 16u
/* ... looking at the clock once in this many yields: at every one, 256
 * streams ran 0.93x as fast (three rounds on an H200: 3965 / 4042 / 3825
 * stream-seconds a second against 4315 / 4221 / 4112), the p99 a buffer
 * 5.1-6.0 ms against 3.9-5.5 */
#define CLR_SCHED_SPIN_CLOCK 8u
/* ... and then nobody chains (CLR_SCHED_CHAIN): a batch's threads are
 * awake and one of them takes its wait at once, where the chaining
 * thread's own stream waited batches longer. 256 streams, three rounds:
 * a buffer's p99 3.1 / 3.4 / 3.2 ms against 4.3 / 3.5 / 4.0 chaining 8,
 * at the same throughput (4903 / 4795 / 5132 against 4637 / 4760 / 5307
 * stream-seconds a second). */
/* The gathering window. The open batch may wait for more jobs, from its
 * first job's reservation on, up to this long, while the streams' recent
 * reservations (their average gap) promise two more before the time is
 * up and some stream has no job in flight. Only jobs of streams paced by
 * their audio wait (live sources: their job's audio_us;
 * clr_engine_set_paced ()): 10 ms buffers converted as they come arrive
 * one at a time, and each launch costs the driver's threads a wake-up and
 * the jobs' threads a sleep, whatever it holds. 64 such streams on 2
 * cores went 1.3 jobs a launch, and 6.2 with the window, at 0.63-0.69x
 * the process's CPU. A throughput-bound stream's jobs never wait: the
 * same window on every job cost 256 and 1024 free-running streams on an
 * H200 a fifth to a third of their rate. A lone stream never waits (its
 * own job is the one in flight). On GPUs as on CPUs: on an H200, 256
 * and 1024 live streams took 0.78-0.85x the CPU with it (a block's p99
 * 1.2 ms against 0.3 ms at 256), free-running ones ran as fast
 * (docs/performance.md, "Live streams"). */
#define CLR_SCHED_WINDOW_US 1000
/* ... nor longer than a tenth of the audio of any job it holds (a stream
 * of 1 ms buffers waits 100 us at most, and keeps real time) */
#define CLR_SCHED_WINDOW_SHARE 10
/* ... nor once the batch holds this many jobs */
#define CLR_SCHED_WINDOW_JOBS 16u

typedef enum {
  BATCH_OPEN,
  BATCH_CLOSED,
  BATCH_SUBMITTING,             /* taken by a thread that enqueues it */
  BATCH_RUNNING,
  BATCH_DONE,
} BatchState;

struct _ClrSchedBatch {
  char *in_host;                /* the stream table, then the windows */
  char *out_host;
  size_t in_cap, out_cap;
  cl_mem in_dev, out_dev;       /* NULL with SVM staging */
  size_t in_used, out_used;
  GPtrArray *jobs;
  gint n_jobs;                  /* jobs->len, for readers without the
                                 * lock (may_send ()): set under it */
  gint writers;                 /* jobs still writing their windows:
                                 * raised under the scheduler's lock,
                                 * lowered atomically */
  gint readers;                 /* jobs not yet released (atomic) */
  /* BatchState; atomic from SUBMITTING on, when its jobs' threads wait
   * on it (clr_word_wait ()); before, changed under the scheduler's lock */
  gint state;
  gboolean overflowed;          /* closed for want of room: grow it */
  size_t need_in, need_out;     /* windows' and outputs' bytes its recent
                                 * runs used (CLR_SCHED_SHRINK) */
  gint64 t_idle;                /* when it was last let go */
  gint waited;                  /* a job's thread waits on `done` (CAS) */
  cl_event done;
  cl_event first_cmd;           /* with CLRESAMPLE_PROFILE: its first command */
  cl_int status;                /* set before the state turns DONE */
  cl_command_queue queue;       /* the queue it was sent on */
  gboolean isolated;            /* it failed, and its jobs ran again one by
                                 * one: each job's status is its own */
  gint64 t_submit;              /* when it was taken to the device */
  gint64 t_due;                 /* the gathering window's end
                                 * (CLR_SCHED_WINDOW_US): set under the
                                 * scheduler's lock, read without it by the
                                 * jobs' threads: batch_due () */
};

struct _ClrSchedKernel {
  gint refcount;                /* under kern_lock */
  gboolean made;                /* under kern_lock: FALSE while its maker
                                 * runs, with the lock let go */
  char *key;
  ClrSchedKernelInfo info;
};

struct _ClrSched {
  gint refcount;                /* under registry_lock, changed atomically:
                                 * the streams (engines, seats) it serves */
  ClrDevice *dev;
  ClrStaging staging;
  cl_command_queue queues[CLR_SCHED_RUNNING_MAX];
  /* held while a batch's commands are enqueued (submit_ready ()'s thread,
   * or a failed batch's jobs run again by finish ()'s): its kernels' args
   * are set on kernel objects every batch shares */
  GMutex enqueue_lock;
  guint max_running;

  ClrLock lock;
  ClrSchedBatch *open;
  GQueue closed;
  GPtrArray *idle;              /* batches to reuse */
  guint running;
  size_t start_bytes;           /* staging a new batch starts with */
  guint next_queue;
  gboolean submitting;
  gboolean opening;             /* a thread allocates the next open batch */
  gint open_seq;                /* ... and wakes those waiting on this */
  guint recent;                 /* the jobs of recent batches, at most */
  guint window_us;              /* CLR_SCHED_WINDOW_US, or 0 */
  gint64 last_reserve_us;       /* the last reservation (under lock) */
  gint gap_us;                  /* the reservations' average gap (atomic) */
  gint in_flight;               /* jobs reserved, not released (atomic) */
  /* CLR_SCHED_SPIN_US: 1 under load (a GPU), 2 always (tests), 0 never */
  guint spin;
  guint64 launches, jobs, batches;
  guint64 paced;                /* jobs reserved with audio_us (the
                                 * window's candidates) */
  guint64 device_us;            /* batches' time from taken to done */
  guint64 enqueue_us;           /* ... of which enqueuing them */
  gboolean profile;             /* CLRESAMPLE_PROFILE: the device's times */
  guint64 queued_ns, busy_ns;   /* first command queued -> started, and
                                 * started -> last one ended */
  /* enqueuing's wall time by step (uploads, launches, download, flush),
   * and the enqueuing thread's own CPU time: the rest it waited for a
   * core or a lock (one submitter at a time: no lock needed) */
  guint64 step_us[4], enqueue_cpu_us;
  /* finish ()'s side of a batch: taken to a thread's claim of the wait,
   * the wait for the event, and the lock taken again after it */
  guint64 claim_us, event_us, relock_us;
  gint fits;                    /* staging allocations (atomic) */
  gssize fit_us;                /* ... their time (atomic) */

  /* guards the table of kernels, never held while one is made: a
   * million-tap design or a program build takes seconds, and every
   * element's streaming thread takes this lock to let its kernel go */
  GMutex kern_lock;
  GCond kern_made;              /* a kernel was made, or failed to be */
  GHashTable *kernels;          /* key -> ClrSchedKernel */
  gssize staging_bytes;         /* host staging allocated (atomic) */
  ClrSchedTestHooks hooks;
  guint test_enqueues;          /* batches enqueued under the hooks */
  gint test_waits;              /* ... and waited for (atomic) */
};

static GMutex registry_lock;
static GList *registry;         /* of ClrSched* */

/* ---- Staging memory ---------------------------------------------------- */

static void staging_free (ClrSched * s, char **p, cl_mem * dev_mem);

static char *
staging_alloc (ClrSched * s, size_t bytes, cl_mem * dev_mem,
    cl_mem_flags flags, GError ** error)
{
  cl_int status;
  char *p = NULL;

  *dev_mem = NULL;
  switch (s->staging) {
    case CLR_STAGING_SVM:
      p = clSVMAlloc (clr_device_get_context (s->dev), CL_MEM_READ_WRITE |
          CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, CLR_SCHED_ALIGN);
      if (!p)
        g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "Out of shared "
            "memory for %" G_GSIZE_FORMAT " bytes of staging", bytes);
      return p;
    case CLR_STAGING_PINNED:
      p = clr_host_alloc (s->dev, bytes, error);
      break;
    default:
      if (!(p = g_try_malloc (bytes)))
        g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES, "Out of host "
            "memory for %" G_GSIZE_FORMAT " bytes of staging", bytes);
      break;
  }
  if (!p)
    return NULL;
  *dev_mem = clCreateBuffer (clr_device_get_context (s->dev), flags, bytes,
      NULL, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Allocating the batch's device buffer");
    *dev_mem = NULL;
    staging_free (s, &p, dev_mem);
  }
  return p;
}

static void
staging_free (ClrSched * s, char **p, cl_mem * dev_mem)
{
  if (*dev_mem)
    clReleaseMemObject (*dev_mem);
  *dev_mem = NULL;
  if (!*p)
    return;
  if (s->staging == CLR_STAGING_SVM)
    clSVMFree (clr_device_get_context (s->dev), *p);
  else if (s->staging == CLR_STAGING_PINNED)
    clr_host_free (*p);
  else
    g_free (*p);
  *p = NULL;
}

/* b's windows' and outputs' staging let go; the batch holds no job */
static void
batch_drop_staging (ClrSched * s, ClrSchedBatch * b)
{
  g_atomic_pointer_add (&s->staging_bytes, -(gssize) (b->in_cap +
          b->out_cap));
  staging_free (s, &b->in_host, &b->in_dev);
  staging_free (s, &b->out_host, &b->out_dev);
  b->in_cap = b->out_cap = 0;
}

/* Room for the table and `in` bytes of windows, and `out` bytes of
 * output; the batch holds no job. */
static gboolean
batch_fit (ClrSched * s, ClrSchedBatch * b, size_t in, size_t out,
    GError ** error)
{
  const gint64 t = g_get_monotonic_time ();

  in += CLR_SCHED_TABLE_BYTES;
  g_atomic_int_inc (&s->fits);
  if (in > b->in_cap) {
    g_atomic_pointer_add (&s->staging_bytes, -(gssize) b->in_cap);
    staging_free (s, &b->in_host, &b->in_dev);
    b->in_cap = 0;
    if (!(b->in_host = staging_alloc (s, in, &b->in_dev, CL_MEM_READ_ONLY,
                error)))
      return FALSE;
    b->in_cap = in;
    g_atomic_pointer_add (&s->staging_bytes, (gssize) in);
  }
  if (out > b->out_cap) {
    g_atomic_pointer_add (&s->staging_bytes, -(gssize) b->out_cap);
    staging_free (s, &b->out_host, &b->out_dev);
    b->out_cap = 0;
    if (!(b->out_host = staging_alloc (s, out, &b->out_dev,
                CL_MEM_WRITE_ONLY, error)))
      return FALSE;
    b->out_cap = out;
    g_atomic_pointer_add (&s->staging_bytes, (gssize) out);
  }
  g_atomic_pointer_add (&s->fit_us, g_get_monotonic_time () - t);
  return TRUE;
}

static ClrSchedBatch *
batch_new (void)
{
  ClrSchedBatch *b = g_new0 (ClrSchedBatch, 1);

  b->jobs = g_ptr_array_new ();
  b->in_used = CLR_SCHED_TABLE_BYTES;
  b->t_idle = g_get_monotonic_time ();
  return b;
}

/* The events of its last run go. */
static void
batch_release_events (ClrSchedBatch * b)
{
  if (b->done)
    clReleaseEvent (b->done);
  b->done = NULL;
  if (b->first_cmd)
    clReleaseEvent (b->first_cmd);
  b->first_cmd = NULL;
}

static void
batch_free (ClrSched * s, ClrSchedBatch * b)
{
  batch_drop_staging (s, b);
  batch_release_events (b);
  g_ptr_array_free (b->jobs, TRUE);
  g_free (b);
}

/* Makes a batch that nobody uses any more ready for reuse, grown if it
 * overflowed, outside the scheduler's lock: page-locked staging takes
 * milliseconds to allocate, and releasing events takes the OpenCL
 * driver's own lock, which its enqueues and waits hold. 256 streams on an
 * H200 spent 140 ms of a 1.8 s run allocating staging under the lock,
 * every other stream asleep on it; the lock was where their threads
 * slept most. */
static void
batch_reset (ClrSched * s, ClrSchedBatch * b)
{
  const size_t used_in = b->in_used - CLR_SCHED_TABLE_BYTES;
  const size_t cap_in = b->in_cap - MIN (b->in_cap, CLR_SCHED_TABLE_BYTES);

  b->need_in = MAX (used_in, b->need_in - b->need_in / 8);
  b->need_out = MAX (b->out_used, b->need_out - b->need_out / 8);
  g_ptr_array_set_size (b->jobs, 0);
  g_atomic_int_set (&b->n_jobs, 0);
  b->in_used = CLR_SCHED_TABLE_BYTES;
  b->out_used = 0;
  b->writers = b->readers = 0;
  g_atomic_int_set (&b->state, BATCH_OPEN);
  b->waited = FALSE;
  b->status = CL_SUCCESS;
  b->isolated = FALSE;
  batch_release_events (b);
  if (b->overflowed && b->in_cap < CLR_SCHED_GROW_MAX) {
    /* a larger one next time (on failure, one of the start's size) */
    size_t in = MIN (cap_in * 2, (size_t) CLR_SCHED_GROW_MAX),
        out = MIN (b->out_cap * 2, (size_t) CLR_SCHED_GROW_MAX);
    if (!batch_fit (s, b, in, out, NULL))
      batch_fit (s, b, s->start_bytes, s->start_bytes, NULL);
  } else if ((cap_in > s->start_bytes
          && cap_in > CLR_SCHED_SHRINK * b->need_in)
      || (b->out_cap > s->start_bytes
          && b->out_cap > CLR_SCHED_SHRINK * b->need_out)) {
    /* far more than recent runs used: back to twice that (an empty batch
     * is refitted when it opens, if this fails) */
    batch_drop_staging (s, b);
    batch_fit (s, b, MAX (2 * b->need_in, s->start_bytes),
        MAX (2 * b->need_out, s->start_bytes), NULL);
  }
  b->overflowed = FALSE;
}

/* The open batch, with room for a job of `in` and `out` bytes if it holds
 * none yet; lock held, and dropped while staging is allocated. A thread
 * that finds another allocating waits for it: at the start, a hundred
 * streams would otherwise allocate a batch each. NULL on failure. */
static ClrSchedBatch *
batch_open (ClrSched * s, size_t in, size_t out, GError ** error)
{
  ClrSchedBatch *b;
  gboolean ok;

  while (!s->open) {
    if (s->opening) {
      const gint seq = s->open_seq;

      clr_unlock (&s->lock);
      clr_word_wait (&s->open_seq, seq);
      clr_lock (&s->lock);
      continue;
    }
    b = s->idle->len > 0 ?
        g_ptr_array_steal_index_fast (s->idle, s->idle->len - 1) : NULL;
    if (b && b->in_cap >= in + CLR_SCHED_TABLE_BYTES && b->out_cap >= out) {
      s->open = b;
      break;
    }
    s->opening = TRUE;
    clr_unlock (&s->lock);
    if (!b)
      b = batch_new ();
    ok = batch_fit (s, b, MAX (in, s->start_bytes), MAX (out,
            s->start_bytes), error);
    clr_lock (&s->lock);
    s->opening = FALSE;
    g_atomic_int_inc (&s->open_seq);
    clr_word_wake (&s->open_seq, G_MAXINT);
    if (!ok) {
      g_ptr_array_add (s->idle, b);
      return NULL;
    }
    s->open = b;
  }
  return s->open;
}

/* ---- Running a batch --------------------------------------------------- */

static cl_int
set_mem_arg (ClrSched * s, cl_kernel k, cl_uint i, cl_mem mem, char *host)
{
  if (s->staging == CLR_STAGING_SVM)
    return clSetKernelArgSVMPointer (k, i, host);
  return clSetKernelArg (k, i, sizeof (cl_mem), &mem);
}

/* One launch over jobs [first, first + n) of the table, all of kernel k. */
static cl_int
launch_group (ClrSched * s, ClrSchedBatch * b, cl_command_queue q,
    ClrSchedKernel * k, guint first, guint n, size_t items, guint times,
    cl_event * ev, const char **call)
{
  const ClrSchedKernelInfo *ki = &k->info;
  cl_kernel kern = ki->kernel;
  size_t wg = ki->local_size ? ki->local_size : 1;
  size_t global[3], local[3] = { wg, 1, 1 };
  cl_uint a = 0, first32 = first;
  cl_int status;
  guint t;

  if (ki->launch) {
    const gboolean svm = s->staging == CLR_STAGING_SVM;
    const ClrSchedLaunchArgs args = { b->in_dev, b->out_dev,
      svm ? b->in_host : NULL, svm ? b->out_host : NULL, first, n, items
    };
    *call = "a convolution's launch";
    return ki->launch (ki->launch_data, q, &args, ev);
  }
  *call = "clSetKernelArg";
  status = set_mem_arg (s, kern, a++, b->in_dev, b->in_host);
  status |= set_mem_arg (s, kern, a++, b->out_dev, b->out_host);
  status |= clSetKernelArg (kern, a++, sizeof (cl_mem), &ki->coef);
  status |= clSetKernelArg (kern, a++, sizeof (cl_uint), &ki->channels);
  status |= clSetKernelArg (kern, a++, sizeof (cl_uint), &ki->taps);
  status |= clSetKernelArg (kern, a++, sizeof (cl_ulong), &ki->I);
  status |= clSetKernelArg (kern, a++, sizeof (cl_ulong), &ki->D);
  status |= set_mem_arg (s, kern, a++, b->in_dev, b->in_host);
  status |= clSetKernelArg (kern, a++, sizeof (cl_uint), &first32);
  if (ki->has_grid)
    status |= clSetKernelArg (kern, a++, sizeof (cl_ulong), &ki->grid);
  if (ki->has_lead)
    status |= clSetKernelArg (kern, a++, sizeof (cl_uint), &ki->lead);
  if (status != CL_SUCCESS)
    return status;
  *call = "clEnqueueNDRangeKernel";

  global[0] = (items + wg - 1) / wg * wg;
  global[1] = (ki->channels + ki->cpi - 1) / MAX (ki->cpi, 1);
  global[2] = n;
  if (ki->iv) {
    /* channel groups along dimension 0, then frames: wg work-items */
    size_t groups = ki->channels / 4, lx = MIN (groups, wg);
    local[0] = lx;
    local[1] = MAX (wg / lx, 1);
    global[0] = (groups + lx - 1) / lx * lx;
    global[1] = (items + local[1] - 1) / local[1] * local[1];
  }
  for (t = 0; t < MAX (times, 1) && status == CL_SUCCESS; t++)
    status = clEnqueueNDRangeKernel (q, kern, 3, NULL, global,
        ki->local_size ? local : NULL, 0, NULL, t + 1 == MAX (times, 1) ?
        ev : NULL);
  return status;
}

static gint
by_kernel (gconstpointer a, gconstpointer b)
{
  const ClrSchedJob *x = *(ClrSchedJob * const *) a;
  const ClrSchedJob *y = *(ClrSchedJob * const *) b;

  return x->kern < y->kern ? -1 : x->kern > y->kern;
}

/* CLRESAMPLE_PROFILE: the time since *t to step i of enqueuing. */
static void
profile_step (ClrSched * s, guint i, gint64 * t)
{
  gint64 now;

  if (!s->profile)
    return;
  now = g_get_monotonic_time ();
  s->step_us[i] += now - *t;
  *t = now;
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean spinning (ClrSched * s);

/* ClrSchedTestHooks' pause before a batch's enqueue, its call, and its
 * failure of every n-th one (before anything of it is enqueued);
 * enqueue_lock held */
static cl_int
test_enqueue (ClrSched * s, ClrSchedBatch * b)
{
  const guint n = ++s->test_enqueues;
  cl_int status = CL_SUCCESS;

  if (s->hooks.enqueue_pause_us)
    g_usleep (s->hooks.enqueue_pause_us);
  if (s->hooks.before_enqueue)
    status = s->hooks.before_enqueue (s->hooks.data, n, b->jobs->len);
  if (status == CL_SUCCESS && s->hooks.enqueue_fail_every
      && n % s->hooks.enqueue_fail_every == 0)
    status = CL_OUT_OF_RESOURCES;
  return status;
}

/* The table (jobs of one kernel side by side), the upload, a launch per
 * kernel, the download: all enqueued, `done` the last command's event. */
/* job's output read back from b's device staging into its place: the
 * caller's page-locked memory (job->direct), else b's host staging */
static cl_int
read_job_output (ClrSchedBatch * b, cl_command_queue q, ClrSchedJob * job,
    cl_bool blocking, cl_event * ev)
{
  const size_t at = job->row[CLR_ROW_OUT] * job->out_sample;

  return clEnqueueReadBuffer (q, b->out_dev, blocking, at, job->out_bytes,
      job->direct ? job->direct : b->out_host + at, 0, NULL, ev);
}

/* The end of the group of b's jobs (sorted by kernel) that starts at
 * `first`: the jobs of first's kernel, one launch for all; its items and
 * launches the most of theirs */
static guint
group_end (ClrSchedBatch * b, guint first, size_t * items, guint * times)
{
  ClrSchedKernel *k = ((ClrSchedJob *) g_ptr_array_index (b->jobs,
          first))->kern;
  guint end;

  *items = 0;
  *times = 1;
  for (end = first; end < b->jobs->len; end++) {
    ClrSchedJob *j = g_ptr_array_index (b->jobs, end);
    if (j->kern != k)
      break;
    *items = MAX (*items, j->items);
    *times = MAX (*times, j->launches);
  }
  return end;
}

/* b's table and input to the device (nothing to do on shared memory);
 * *first_ev (where not NULL) the table's upload, for the profile */
static cl_int
batch_upload (ClrSched * s, ClrSchedBatch * b, cl_command_queue q,
    cl_event * first_ev)
{
  cl_int status;

  if (s->staging == CLR_STAGING_SVM)
    return CL_SUCCESS;
  status = clEnqueueWriteBuffer (q, b->in_dev, CL_FALSE, 0,
      (size_t) b->jobs->len * CLR_SCHED_ROW_WORDS * sizeof (cl_ulong),
      b->in_host, 0, NULL, first_ev);
  if (status == CL_SUCCESS && b->in_used > CLR_SCHED_TABLE_BYTES)
    status = clEnqueueWriteBuffer (q, b->in_dev, CL_FALSE,
        CLR_SCHED_TABLE_BYTES, b->in_used - CLR_SCHED_TABLE_BYTES,
        b->in_host + CLR_SCHED_TABLE_BYTES, 0, NULL, NULL);
  return status;
}

/* b's launches, a group of jobs (sorted by kernel) a launch: *last the
 * last one's event (released first where set), *first_ev (where not NULL)
 * the first's, *launches counting them */
static cl_int
batch_launch (ClrSched * s, ClrSchedBatch * b, cl_command_queue q,
    cl_event * last, cl_event * first_ev, guint * launches)
{
  const char *call = NULL;      /* its failures are recovered, not told */
  cl_int status = CL_SUCCESS;
  guint first;

  for (first = 0; first < b->jobs->len && status == CL_SUCCESS;) {
    ClrSchedKernel *k = ((ClrSchedJob *) g_ptr_array_index (b->jobs,
            first))->kern;
    size_t items;
    guint times, end = group_end (b, first, &items, &times);

    if (*last)
      clReleaseEvent (*last);
    *last = NULL;
    status = launch_group (s, b, q, k, first, end - first, items, times,
        last, &call);
    if (first_ev && *last) {
      clRetainEvent (*last);
      *first_ev = *last;
      first_ev = NULL;
    }
    *launches += times;
    first = end;
  }
  return status;
}

/* b's outputs back to the host (nothing to do on shared memory): one
 * download, or (a job's own page-locked memory takes its output: large
 * offline buffers, an element's output pool) one a job; *last the last
 * one's event (released first where set) */
static cl_int
batch_download (ClrSched * s, ClrSchedBatch * b, cl_command_queue q,
    cl_event * last)
{
  cl_int status = CL_SUCCESS;
  gboolean direct = FALSE;
  guint i, n = b->jobs->len;

  if (s->staging == CLR_STAGING_SVM)
    return CL_SUCCESS;
  for (i = 0; i < n && !direct; i++)
    direct = ((ClrSchedJob *) g_ptr_array_index (b->jobs, i))->direct
        != NULL;
  if (*last)
    clReleaseEvent (*last);
  *last = NULL;
  if (!direct)
    status = clEnqueueReadBuffer (q, b->out_dev, CL_FALSE, 0, b->out_used,
        b->out_host, 0, NULL, last);
  for (i = 0; direct && i < n && status == CL_SUCCESS; i++) {
    if (*last)
      clReleaseEvent (*last);
    *last = NULL;
    status = read_job_output (b, q, g_ptr_array_index (b->jobs, i),
        CL_FALSE, last);
  }
  return status;
}

static cl_int
batch_enqueue (ClrSched * s, ClrSchedBatch * b, cl_command_queue q,
    guint * launches)
{
  cl_ulong *table = (cl_ulong *) b->in_host;
  cl_event last = NULL, *first_ev = s->profile ? &b->first_cmd : NULL;
  cl_int status = CL_SUCCESS;
  guint i, n = b->jobs->len;
  gint64 t = s->profile ? g_get_monotonic_time () : 0;

  g_ptr_array_sort (b->jobs, by_kernel);
  for (i = 0; i < n; i++) {
    ClrSchedJob *job = g_ptr_array_index (b->jobs, i);
    memcpy (table + (size_t) i * CLR_SCHED_ROW_WORDS, job->row,
        sizeof (job->row));
  }
  if (G_UNLIKELY (s->hooks.enqueue_pause_us || s->hooks.enqueue_fail_every
          || s->hooks.before_enqueue)
      && (status = test_enqueue (s, b)) != CL_SUCCESS)
    return status;
  if (s->staging != CLR_STAGING_SVM) {
    status = batch_upload (s, b, q, first_ev);
    first_ev = NULL;
  }
  profile_step (s, 0, &t);
  if (status == CL_SUCCESS)
    status = batch_launch (s, b, q, &last, first_ev, launches);
  profile_step (s, 1, &t);
  if (status == CL_SUCCESS)
    status = batch_download (s, b, q, &last);
  profile_step (s, 2, &t);
  if (status == CL_SUCCESS)
    status = clFlush (q);
  profile_step (s, 3, &t);
  b->done = last;
  if (status == CL_SUCCESS && !last)
    status = CL_INVALID_EVENT;
  return status;
}

/* b run again whole on q, as batch_enqueue () sent it (its table and
 * input already in b->in_host), and waited for: CL_SUCCESS where every
 * part of it went through */
static cl_int
batch_rerun (ClrSched * s, ClrSchedBatch * b, cl_command_queue q)
{
  cl_event last = NULL;
  guint launches = 0;
  cl_int status = batch_upload (s, b, q, NULL);

  if (status == CL_SUCCESS)
    status = batch_launch (s, b, q, &last, NULL, &launches);
  if (status == CL_SUCCESS)
    status = batch_download (s, b, q, &last);
  if (last)
    clReleaseEvent (last);
  if (status == CL_SUCCESS)
    status = clFinish (q);
  return status;
}

/* After b failed (its enqueue, or the wait for it), enqueue_lock held:
 * first the queue is drained, so that nothing of b still writes into its
 * staging. Then b runs again whole: most faults are transient (a launch
 * or a wait that failed once), and then every job has its output after
 * one batch's time more. Where that fails too, each of its jobs runs
 * again alone, its input uploaded anew, and keeps its own status: one
 * stream's fault (a launch refused) then fails that stream alone, not
 * every stream that shared its batch; a device that is lost fails them
 * all, as each job's own run fails. One by one alone, 64 streams' jobs
 * took 22-245 ms on the 2-core CPU (a launch and a wait each), and the
 * soak's streams fell that much later after a fault than without. */
static void
batch_isolate (ClrSched * s, ClrSchedBatch * b)
{
  const gboolean svm = s->staging == CLR_STAGING_SVM;
  cl_command_queue q = b->queue;
  cl_int upload = CL_SUCCESS;
  guint i;

  /* whatever it failed with, nothing of it may run on */
  clFinish (q);
  if (batch_rerun (s, b, q) == CL_SUCCESS) {
    for (i = 0; i < b->jobs->len; i++) {
      ClrSchedJob *job = g_ptr_array_index (b->jobs, i);

      job->status = CL_SUCCESS;
    }
    b->isolated = TRUE;
    return;
  }
  clFinish (q);
  if (!svm)
    upload = clEnqueueWriteBuffer (q, b->in_dev, CL_TRUE, 0, b->in_used,
        b->in_host, 0, NULL, NULL);
  for (i = 0; i < b->jobs->len; i++) {
    ClrSchedJob *job = g_ptr_array_index (b->jobs, i);
    cl_event ev = NULL;
    cl_int status = upload;

    /* named for the error its stream posts */
    job->call = "clEnqueueWriteBuffer";
    if (status == CL_SUCCESS)
      status = launch_group (s, b, q, job->kern, i, 1, job->items,
          job->launches, &ev, &job->call);
    if (ev)
      clReleaseEvent (ev);
    if (status == CL_SUCCESS && !svm) {
      job->call = "clEnqueueReadBuffer";
      status = read_job_output (b, q, job, CL_TRUE, NULL);
    }
    if (status == CL_SUCCESS) {
      job->call = "clFinish";
      status = clFinish (q);
    }
    job->status = status;
  }
  b->isolated = TRUE;
}

/* b's outputs are readable, or its status says why not: every one of its
 * jobs' threads goes on, asleep or yielding. */
static void
batch_done (ClrSchedBatch * b)
{
  g_atomic_int_set (&b->state, BATCH_DONE);
  clr_word_wake (&b->state, G_MAXINT);
}

/* b->t_due, which a reservation lowers under the lock while the jobs'
 * threads read it without (clr_sched_run (), may_send ()): an atomic load
 * (relaxed: the batch's state publishes everything else) */
static inline gint64
batch_due (ClrSchedBatch * b)
{
  return __atomic_load_n (&b->t_due, __ATOMIC_RELAXED);
}

/* Whether the gathering window keeps the open batch b waiting for more
 * jobs now (CLR_SCHED_WINDOW_US); the clock is read only where a window
 * may hold (not with CLRESAMPLE_SCHED_WINDOW=0, nor once the batch is
 * full). */
static gboolean
window_holds (ClrSched * s, ClrSchedBatch * b)
{
  gint64 left;

  if (!s->window_us
      || (guint) g_atomic_int_get (&b->n_jobs) >= CLR_SCHED_WINDOW_JOBS)
    return FALSE;
  left = batch_due (b) - g_get_monotonic_time ();
  if (G_UNLIKELY (s->hooks.window_always))
    return left > 0;
  return left > 0 && 2 * (gint64) g_atomic_int_get (&s->gap_us) < left
      && g_atomic_int_get (&s->refcount) > g_atomic_int_get (&s->in_flight);
}

/* Whether the open batch b may go while `running` batches are on the
 * device and recent ones held `recent` jobs (submit_ready () says why);
 * may_send () asks it too, without the lock. */
static gboolean
open_due (ClrSched * s, ClrSchedBatch * b, guint running, guint recent)
{
  return (running == 0
      || (guint) g_atomic_int_get (&b->n_jobs) >= recent / 2)
      && !window_holds (s, b);
}

/* The first closed batch whose writers are all done, taken off the queue;
 * lock held. Not only the head: a head whose last writer was preempted
 * mid-copy would hold back every batch behind it while the device idles.
 * Batches are independent (a stream has one job in flight), so their
 * order on the device does not matter. */
static ClrSchedBatch *
take_closed (ClrSched * s)
{
  GList *l;

  for (l = s->closed.head; l; l = l->next) {
    ClrSchedBatch *b = l->data;

    if (g_atomic_int_get (&b->writers) == 0) {
      g_queue_delete_link (&s->closed, l);
      return b;
    }
  }
  return NULL;
}

/* Sends ready batches to the device while it has room; lock held.
 *
 * The open batch goes at once if the device is idle (a lone stream waits
 * for nothing). While another batch runs it goes only once it holds half
 * as many jobs as recent batches did: the streams woken by a finished
 * batch come back one by one, and the first of them would otherwise take
 * the device's other slot for a batch of one, and the rest would wait a
 * whole batch longer for theirs. It never waits past the running batch's
 * end, whose waiter calls this again; `recent` decays batch by batch, so
 * streams that leave do not hold the others to their old count.
 *
 * With `link` (finish ()'s thread, which goes on to wait for what it
 * sends), the first batch it sends of CLR_SCHED_CHAIN_JOBS jobs or more is
 * claimed for the caller before any of its jobs' threads can see it
 * running, with a reference, and returned; else NULL. Claimed later, a
 * batch could already have finished, been recycled and reopened under the
 * caller (the lock is let go while each batch is enqueued). */
static ClrSchedBatch *
submit_ready (ClrSched * s, gboolean link)
{
  ClrSchedBatch *linked = NULL;

  while (!s->submitting && s->running < s->max_running) {
    ClrSchedBatch *b = take_closed (s);
    cl_command_queue q;
    guint launches = 0;
    cl_int status;
    gint64 cpu;

    if (!b) {
      if (!s->open || s->open->jobs->len == 0
          || !open_due (s, s->open, s->running, s->recent))
        return linked;
      b = s->open;
      s->open = NULL;
      if (g_atomic_int_get (&b->writers) > 0) {
        /* due, but a job is still writing its window: the batch takes no
         * more, and its last writer sends it. Left open, it would go only
         * once no stream at all was writing into it, which under load (a
         * hundred streams arriving, a writer preempted on a busy core)
         * comes late. */
        g_atomic_int_set (&b->state, BATCH_CLOSED);
        g_queue_push_tail (&s->closed, b);
        return linked;
      }
    }
    g_atomic_int_set (&b->state, BATCH_SUBMITTING);
    g_atomic_int_inc ((gint *) & s->running);
    s->submitting = TRUE;
    s->batches++;
    s->jobs += b->jobs->len;
    /* down by an eighth a batch, and by one at least: recent / 8 alone
     * stopped at 7, and held a lone stream's batches to 7 streams' pace */
    g_atomic_int_set ((gint *) & s->recent, MAX (b->jobs->len,
            s->recent - (s->recent + 7) / 8));
    b->t_submit = g_get_monotonic_time ();
    q = s->queues[s->next_queue];
    s->next_queue = (s->next_queue + 1) % s->max_running;
    b->queue = q;
    clr_unlock (&s->lock);
    cpu = s->profile ? thread_cpu_us () : 0;
    g_mutex_lock (&s->enqueue_lock);
    status = batch_enqueue (s, b, q, &launches);
    if (s->profile)
      s->enqueue_cpu_us += thread_cpu_us () - cpu;
    if (status != CL_SUCCESS)
      batch_isolate (s, b);
    g_mutex_unlock (&s->enqueue_lock);
    clr_lock (&s->lock);
    s->enqueue_us += g_get_monotonic_time () - b->t_submit;
    s->submitting = FALSE;
    s->launches += launches;
    if (status != CL_SUCCESS) {
      g_atomic_int_add ((gint *) & s->running, -1);
      b->status = status;
      batch_done (b);
    } else if (link && !linked && !spinning (s)
        && b->jobs->len >= CLR_SCHED_CHAIN_JOBS) {
      /* ours: its jobs' threads find it claimed and sleep until DONE */
      g_atomic_int_inc (&b->readers);
      g_atomic_int_set (&b->waited, TRUE);
      g_atomic_int_set (&b->state, BATCH_RUNNING);
      linked = b;
    } else {
      /* one of its jobs' threads takes the wait */
      g_atomic_int_set (&b->state, BATCH_RUNNING);
      clr_word_wake (&b->state, 1);
    }
  }
  return linked;
}

/* Waits until `ev` has run: a batch of a stream or two polls briefly
 * before blocking, for their latency; a larger one blocks at once, as the
 * core a poll would take is what the other streams need, unless `chained`
 * (finish ()'s thread, the device's under load: CLR_SCHED_CHAIN_POLL_US). */
static cl_int
wait_event (cl_event ev, guint jobs, gboolean chained)
{
  cl_int status, st = CL_QUEUED;
  gint64 deadline = g_get_monotonic_time () +
      (jobs <= CLR_SCHED_POLL_JOBS ? CLR_SCHED_POLL_US :
      chained ? CLR_SCHED_CHAIN_POLL_US : 0);

  do {
    status = clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
        sizeof (st), &st, NULL);
    if (status != CL_SUCCESS || st <= CL_COMPLETE)
      break;
    g_thread_yield ();
  } while (g_get_monotonic_time () < deadline);
  if (status == CL_SUCCESS && st > CL_COMPLETE)
    status = clWaitForEvents (1, &ev);
  else if (status == CL_SUCCESS && st < 0)
    status = st;
  return status;
}

/* ---- The scheduler ----------------------------------------------------- */

static void
kernel_free (gpointer data)
{
  ClrSchedKernel *k = data;

  if (k->info.launch_free)
    k->info.launch_free (k->info.launch_data);
  if (k->info.kernel)
    clReleaseKernel (k->info.kernel);
  if (k->info.coef)
    clReleaseMemObject (k->info.coef);
  g_free (k->key);
  g_free (k);
}

static void
sched_free (ClrSched * s)
{
  /* per batch */
  const double n = MAX (s->batches, 1);
  guint i;

  clr_log (CLR_LOG_INFO, "scheduler of '%s' done: %" G_GUINT64_FORMAT
      " jobs (%" G_GUINT64_FORMAT " paced) in %" G_GUINT64_FORMAT
      " batches (%.1f a batch, %.0f us from taken to done, %.0f of them "
      "enqueuing), %" G_GUINT64_FORMAT " launches; staging sized %d times "
      "in %.1f ms", clr_device_get_name (s->dev), s->jobs, s->paced,
      s->batches, s->jobs / n,
      s->device_us / n, s->enqueue_us / n, s->launches, s->fits,
      s->fit_us / 1e3);
  if (s->profile)
    clr_log (CLR_LOG_INFO, "scheduler of '%s': a batch's first command "
        "waited %.0f us on the device, which then took %.0f us to its last "
        "one's end; enqueuing took %.0f us uploading, %.0f launching, %.0f "
        "downloading, %.0f flushing, %.0f of them on the CPU; from taken to "
        "done, %.0f us until a thread waited for it, %.0f waiting for its "
        "event, %.0f for the lock after",
        clr_device_get_name (s->dev), s->queued_ns / 1e3 / n,
        s->busy_ns / 1e3 / n, s->step_us[0] / n, s->step_us[1] / n,
        s->step_us[2] / n, s->step_us[3] / n, s->enqueue_cpu_us / n,
        s->claim_us / n, s->event_us / n, s->relock_us / n);
  for (i = 0; i < s->max_running; i++)
    if (s->queues[i]) {
      clFinish (s->queues[i]);
      clReleaseCommandQueue (s->queues[i]);
    }
  if (s->open)
    batch_free (s, s->open);
  for (i = 0; i < s->idle->len; i++)
    batch_free (s, g_ptr_array_index (s->idle, i));
  g_ptr_array_free (s->idle, TRUE);
  g_hash_table_destroy (s->kernels);
  clr_lock_clear (&s->lock);
  g_mutex_clear (&s->kern_lock);
  g_cond_clear (&s->kern_made);
  g_mutex_clear (&s->enqueue_lock);
  clr_device_unref (s->dev);
  g_free (s);
}

static ClrSched *
sched_new (ClrDevice * dev, ClrStaging staging, GError ** error)
{
  ClrSched *s = g_new0 (ClrSched, 1);
  cl_int status = CL_SUCCESS;
  guint i;

  s->refcount = 1;
  s->dev = clr_device_ref (dev);
  s->staging = staging;
  /* CLRESAMPLE_SCHED_SPIN set: always or never; else GPUs under load */
  s->spin = clr_tuning_get ()->sched_spin.set ?
      (clr_tuning_get ()->sched_spin.value ? 2 : 0) :
      (clr_device_is_gpu (dev) ? 1 : 0);
  s->profile = clr_tuning_get ()->profile;
  s->max_running = CLAMP (clr_knob_or (clr_tuning_get ()->sched_depth,
          CLR_SCHED_RUNNING), 1, CLR_SCHED_RUNNING_MAX);
  s->window_us = (guint) MIN (clr_knob_or (clr_tuning_get ()->sched_window,
          CLR_SCHED_WINDOW_US), G_USEC_PER_SEC);
  s->gap_us = G_USEC_PER_SEC;
  clr_lock_init (&s->lock);
  g_mutex_init (&s->kern_lock);
  g_cond_init (&s->kern_made);
  g_mutex_init (&s->enqueue_lock);
  g_queue_init (&s->closed);
  s->idle = g_ptr_array_new ();
  s->kernels = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
      kernel_free);
  for (i = 0; i < s->max_running && status == CL_SUCCESS; i++)
    s->queues[i] = clCreateCommandQueue (clr_device_get_context (dev),
        clr_device_get_id (dev), s->profile ? CL_QUEUE_PROFILING_ENABLE : 0,
        &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "Creating the scheduler's queue");
    sched_free (s);
    return NULL;
  }
  s->start_bytes = staging == CLR_STAGING_PINNED ? CLR_SCHED_START_PINNED :
      CLR_SCHED_START_BYTES;
  for (i = 0; staging == CLR_STAGING_PINNED && i < CLR_SCHED_PREALLOC_PINNED;
      i++) {
    ClrSchedBatch *b = batch_new ();

    /* short of page-locked memory: the streams allocate as they need */
    if (!batch_fit (s, b, s->start_bytes, s->start_bytes, NULL)) {
      batch_free (s, b);
      break;
    }
    g_ptr_array_add (s->idle, b);
  }
  return s;
}

ClrSched *
clr_sched_get (ClrDevice * dev, ClrStaging staging, GError ** error)
{
  ClrSched *s = NULL;
  GList *l;

  g_mutex_lock (&registry_lock);
  for (l = registry; l; l = l->next) {
    ClrSched *x = l->data;
    if (x->dev == dev && x->staging == staging) {
      s = x;
      g_atomic_int_inc (&s->refcount);
      break;
    }
  }
  if (!s && (s = sched_new (dev, staging, error)))
    registry = g_list_prepend (registry, s);
  g_mutex_unlock (&registry_lock);
  return s;
}

void
clr_sched_unref (ClrSched * s)
{
  gboolean last;

  if (!s)
    return;
  g_mutex_lock (&registry_lock);
  last = g_atomic_int_dec_and_test (&s->refcount);
  if (last)
    registry = g_list_remove (registry, s);
  g_mutex_unlock (&registry_lock);
  if (last)
    sched_free (s);
}

ClrSchedKernel *
clr_sched_kernel_get (ClrSched * s, const char *key, ClrSchedKernelMake make,
    gpointer data, GError ** error)
{
  ClrSchedKernel *k;
  gboolean ok;

  g_mutex_lock (&s->kern_lock);
  /* a second stream of the same key waits for the one making it rather
   * than making its own; if that fails, it tries itself */
  while ((k = g_hash_table_lookup (s->kernels, key)) && !k->made)
    g_cond_wait (&s->kern_made, &s->kern_lock);
  if (k) {
    k->refcount++;
    g_mutex_unlock (&s->kern_lock);
    return k;
  }
  k = g_new0 (ClrSchedKernel, 1);
  k->refcount = 1;
  k->key = g_strdup (key);
  g_hash_table_insert (s->kernels, k->key, k);
  g_mutex_unlock (&s->kern_lock);

  ok = make (data, &k->info, error);

  g_mutex_lock (&s->kern_lock);
  if (ok)
    k->made = TRUE;
  else
    g_hash_table_steal (s->kernels, k->key);
  g_cond_broadcast (&s->kern_made);
  g_mutex_unlock (&s->kern_lock);
  if (!ok) {
    kernel_free (k);
    return NULL;
  }
  return k;
}

void
clr_sched_kernel_unref (ClrSched * s, ClrSchedKernel * k)
{
  if (!k)
    return;
  g_mutex_lock (&s->kern_lock);
  if (--k->refcount == 0)
    g_hash_table_remove (s->kernels, k->key);
  g_mutex_unlock (&s->kern_lock);
}

gpointer
clr_sched_kernel_get_launch_data (ClrSchedKernel * k)
{
  return k->info.launch_data;
}

static size_t
align_up (size_t n)
{
  return (n + CLR_SCHED_ALIGN - 1) / CLR_SCHED_ALIGN * CLR_SCHED_ALIGN;
}

gboolean
clr_sched_reserve (ClrSched * s, ClrSchedJob * job, GError ** error)
{
  const size_t in = align_up (job->win_bytes), out = align_up (job->out_bytes);
  ClrSchedBatch *b;

  clr_lock (&s->lock);
  for (;;) {
    if (!(b = batch_open (s, in, out, error))) {
      clr_unlock (&s->lock);
      return FALSE;
    }
    if (b->jobs->len < CLR_SCHED_MAX_JOBS
        && b->in_used + in <= b->in_cap && b->out_used + out <= b->out_cap)
      break;
    s->open = NULL;
    if (b->jobs->len > 0) {
      /* full: it runs as it is, and a fresh batch takes this job */
      g_atomic_int_set (&b->state, BATCH_CLOSED);
      b->overflowed = TRUE;
      g_queue_push_tail (&s->closed, b);
      submit_ready (s, FALSE);
    } else {
      /* too small for the job, which gets one of its own size */
      g_ptr_array_add (s->idle, b);
    }
  }
  if (s->window_us) {
    const gint64 now = g_get_monotonic_time ();
    const gint gap = (gint) MIN (now - s->last_reserve_us, G_USEC_PER_SEC);
    const gint64 due = now + (gint64) MIN (s->window_us,
        job->audio_us / CLR_SCHED_WINDOW_SHARE);

    g_atomic_int_set (&s->gap_us, s->gap_us + (gap - s->gap_us) / 8);
    s->last_reserve_us = now;
    __atomic_store_n (&b->t_due, b->jobs->len == 0 ? due
        : MIN (b->t_due, due), __ATOMIC_RELAXED);
  }
  if (job->audio_us)
    s->paced++;
  g_atomic_int_inc (&s->in_flight);
  job->batch = b;
  job->win = b->in_host + b->in_used;
  job->out = NULL;
  job->row[CLR_ROW_WIN] = b->in_used / job->win_sample;
  job->row[CLR_ROW_OUT] = b->out_used / job->out_sample;
  b->in_used += in;
  b->out_used += out;
  g_ptr_array_add (b->jobs, job);
  g_atomic_int_set (&b->n_jobs, b->jobs->len);
  g_atomic_int_inc (&b->writers);
  g_atomic_int_inc (&b->readers);
  clr_unlock (&s->lock);
  return TRUE;
}

/* CLRESAMPLE_PROFILE: how long the batch's first command waited on the
 * device, and how long the device took from its start to the last one's
 * end (the scheduler's log says it at the end); lock held. */
static void
profile_batch (ClrSched * s, ClrSchedBatch * b)
{
  cl_ulong queued = 0, start = 0, end = 0;

  clGetEventProfilingInfo (b->first_cmd, CL_PROFILING_COMMAND_QUEUED,
      sizeof (queued), &queued, NULL);
  clGetEventProfilingInfo (b->first_cmd, CL_PROFILING_COMMAND_START,
      sizeof (start), &start, NULL);
  clGetEventProfilingInfo (b->done, CL_PROFILING_COMMAND_END, sizeof (end),
      &end, NULL);
  s->queued_ns += start > queued ? start - queued : 0;
  s->busy_ns += end > start ? end - start : 0;
}

/* Drops a reference to batch b (a job's, or finish ()'s on a batch it
 * waits for): the last one recycles it, and frees the idle batches
 * nobody took for CLR_SCHED_IDLE_US (CLR_SCHED_IDLE_KEEP stay). */
static void
batch_unref (ClrSched * s, ClrSchedBatch * b)
{
  ClrSchedBatch *stale[CLR_SCHED_IDLE_MAX + 1];
  guint i, n = 0;

  if (!g_atomic_int_dec_and_test (&b->readers))
    return;
  batch_reset (s, b);
  b->t_idle = g_get_monotonic_time ();
  clr_lock (&s->lock);
  g_ptr_array_add (s->idle, b);
  /* the oldest first (the list grows at its end); one larger than the
   * start goes too, or it could wait under the others for good */
  for (i = 0; i < s->idle->len && n < G_N_ELEMENTS (stale);) {
    ClrSchedBatch *x = g_ptr_array_index (s->idle, i);
    const gboolean old = b->t_idle - x->t_idle > CLR_SCHED_IDLE_US;
    const gboolean big = x->in_cap > s->start_bytes + CLR_SCHED_TABLE_BYTES
        || x->out_cap > s->start_bytes;

    if (s->idle->len > CLR_SCHED_IDLE_MAX
        || (old && (big || s->idle->len > CLR_SCHED_IDLE_KEEP)))
      stale[n++] = g_ptr_array_steal_index (s->idle, i);
    else
      i++;
  }
  clr_unlock (&s->lock);
  for (i = 0; i < n; i++)
    batch_free (s, stale[i]);
}

/* Whether jobs' threads now wait for their batches yielding their cores
 * (CLR_SCHED_SPIN_US). */
static gboolean
spinning (ClrSched * s)
{
  return s->spin == 2 || (s->spin == 1
      && clr_sched_get_company (s) >= CLR_SCHED_SPIN_COMPANY);
}

/* Waits for batch b on the device (its `waited` claimed), sends the
 * device's next batch, then wakes b's jobs. The next batch goes first
 * while jobs' threads sleep: the hundred threads the wake makes runnable
 * would otherwise take the cores from this one, and the device would idle
 * until it got one back (2 ms with 256 streams on 16 cores). While they
 * yield their cores (spinning ()) they are runnable already, and b's jobs
 * go on at once instead of waiting out the next batch's enqueuing (150
 * us): 256 streams on an H200, three rounds of each in two leases, 4526 /
 * 4453 / 4414 and 3748 / 3870 / 4288 stream-seconds a second against 4329
 * / 4055 / 4204 and 3618 / 3668 / 4093 (1.06x). Then, up to
 * CLR_SCHED_CHAIN times, the same thread waits for the batch it sent,
 * holding a reference so that the batch cannot finish and be reused under
 * it: waking one of that batch's sleepers to do it cost 450 us there, a
 * third of a batch's time. Each link delays only this thread's own
 * stream, by a batch, and only under load (CLR_SCHED_CHAIN_JOBS), and only
 * while jobs' threads sleep: yielding, one of the batch's own threads
 * takes the wait at once. b stays ours until the end: its waiter is one
 * of its jobs, or holds a reference as a link. */
static void
finish (ClrSched * s, ClrSchedBatch * b)
{
  gboolean linked = FALSE;      /* b is a link: we hold a reference */
  guint links = 0;

  while (b) {
    const gint64 claimed = s->profile ? g_get_monotonic_time () : 0;
    const cl_int status = wait_event (b->done, b->jobs->len, linked);
    const gint64 noticed = s->profile ? g_get_monotonic_time () : 0;
    const gboolean done_first = spinning (s);
    ClrSchedBatch *next;

    if (G_UNLIKELY (s->hooks.after_wait))
      s->hooks.after_wait (s->hooks.data,
          g_atomic_int_add (&s->test_waits, 1) + 1);
    if (status != CL_SUCCESS) {
      g_mutex_lock (&s->enqueue_lock);
      batch_isolate (s, b);
      g_mutex_unlock (&s->enqueue_lock);
    }
    b->status = status;
    if (done_first) {
      batch_done (b);
    }
    clr_lock (&s->lock);
    if (s->profile) {
      s->claim_us += claimed - b->t_submit;
      s->event_us += noticed - claimed;
      s->relock_us += g_get_monotonic_time () - noticed;
    }
    if (status == CL_SUCCESS && b->first_cmd)
      profile_batch (s, b);
    g_atomic_int_add ((gint *) & s->running, -1);
    s->device_us += g_get_monotonic_time () - b->t_submit;
    /* claimed with a reference, if any (submit_ready ()) */
    next = submit_ready (s, links < CLR_SCHED_CHAIN);
    clr_unlock (&s->lock);
    if (!done_first) {
      batch_done (b);
    }
    if (linked)
      batch_unref (s, b);
    b = next;
    linked = next != NULL;
    links += linked;
  }
}

/* Under load on a GPU, waits for b's state to leave `state` yielding the
 * core (CLR_SCHED_SPIN_US); FALSE if it has not. */
static gboolean
spin_wait (ClrSched * s, ClrSchedBatch * b, gint state)
{
  gint64 deadline;
  guint yields = 0;

  if (!spinning (s))
    return FALSE;
  deadline = g_get_monotonic_time () + CLR_SCHED_SPIN_US;
  do {
    g_thread_yield ();
    if (g_atomic_int_get (&b->state) != state)
      return TRUE;
  } while ((++yields % CLR_SCHED_SPIN_CLOCK) != 0
      || g_get_monotonic_time () < deadline);
  return FALSE;
}

/* Whether batch b, its last writer done, may be due (submit_ready ()),
 * read without the lock. Not while the device is full, nor while a batch
 * runs and b is not half as full as recent batches: a running batch's
 * waiter looks again when it finishes (finish ()). Under load that spares
 * most jobs' threads a second turn at the lock, which 256 streams on 16
 * cores queue for (a holder preempted, every other thread asleep on it). */
static gboolean
may_send (ClrSched * s, ClrSchedBatch * b)
{
  const guint running = g_atomic_int_get ((gint *) & s->running);
  const guint recent = g_atomic_int_get ((gint *) & s->recent);

  if (running >= s->max_running)
    return FALSE;
  return g_atomic_int_get (&b->state) == BATCH_CLOSED
      || open_due (s, b, running, recent);
}

gboolean
clr_sched_run (ClrSched * s, ClrSchedJob * job, GError ** error)
{
  ClrSchedBatch *b = job->batch;
  gboolean tried = FALSE;       /* tried to send it past its window */
  cl_int status;

  /* the last writer of a batch sees whether it can go; the others need
   * not take the scheduler's lock (a batch only becomes ready when its
   * last writer is done, or when the device frees a slot, whose waiter
   * looks itself) */
  if (g_atomic_int_dec_and_test (&b->writers) && may_send (s, b)) {
    clr_lock (&s->lock);
    submit_ready (s, FALSE);
    clr_unlock (&s->lock);
  }
  if (G_UNLIKELY (s->hooks.run_pause_us))
    g_usleep (s->hooks.run_pause_us);
  /* the states before SUBMITTING change without a wake: a sleeper wakes
   * when the batch is taken to the device (one of them, to wait on it)
   * or done (all) */
  for (;;) {
    const gint state = g_atomic_int_get (&b->state);

    if (state == BATCH_DONE)
      break;
    if (state == BATCH_OPEN && s->window_us) {
      /* held by the gathering window: asleep to its end, then send it
       * (if the device has room and no job still writes; else it goes as
       * those finish, or as the running batch's waiter finishes it). Every
       * job's thread that finds the window over tries once, not only
       * those that slept in it: a last writer whose window still held
       * when it looked (may_send ()) and that was then preempted past the
       * window's end would otherwise sleep on an open batch that no one
       * sends. A batch that no window holds (its jobs' streams not paced)
       * is waited for as before. */
      const gint64 due = batch_due (b);

      if (g_get_monotonic_time () < due) {
        clr_word_wait_until (&b->state, state, due);
        continue;
      }
      if (!tried) {
        tried = TRUE;
        clr_lock (&s->lock);
        submit_ready (s, FALSE);
        clr_unlock (&s->lock);
        continue;
      }
    }
    if (state != BATCH_RUNNING
        || !g_atomic_int_compare_and_exchange (&b->waited, FALSE, TRUE)) {
      if (!spin_wait (s, b, state))
        clr_word_wait (&b->state, state);
      continue;
    }
    finish (s, b);
  }
  status = b->isolated ? job->status : b->status;
  if (status != CL_SUCCESS) {
    char *what = g_strdup_printf ("Running a batch on the device: %s",
        b->isolated ? job->call : "waiting for it");

    clr_set_cl_error (error, status, what);
    g_free (what);
    return FALSE;
  }
  job->out = job->direct && s->staging != CLR_STAGING_SVM ? job->direct :
      b->out_host + job->row[CLR_ROW_OUT] * job->out_sample;
  return TRUE;
}

void
clr_sched_release (ClrSched * s, ClrSchedJob * job)
{
  ClrSchedBatch *b = job->batch;

  if (!b)
    return;
  /* every job has run, so the batch is DONE: the last one recycles it */
  batch_unref (s, b);
  job->batch = NULL;
  g_atomic_int_add (&s->in_flight, -1);
}

guint
clr_sched_get_window_us (ClrSched * s)
{
  return s->window_us;
}

guint
clr_sched_get_company (ClrSched * s)
{
  /* a glance, not worth the lock every stream takes for every job */
  guint recent = g_atomic_int_get ((gint *) & s->recent);

  return MAX (recent, 1);
}

void
clr_sched_get_counts (ClrSched * s, guint64 * launches, guint64 * jobs,
    guint64 * batches, guint64 * paced)
{
  clr_lock (&s->lock);
  if (launches)
    *launches = s->launches;
  if (jobs)
    *jobs = s->jobs;
  if (batches)
    *batches = s->batches;
  if (paced)
    *paced = s->paced;
  clr_unlock (&s->lock);
}

gsize
clr_sched_get_staging_bytes (ClrSched * s)
{
  return (gsize) g_atomic_pointer_get (&s->staging_bytes);
}

void
clr_sched_set_test_hooks (ClrSched * s, const ClrSchedTestHooks * hooks)
{
  static const ClrSchedTestHooks none = { 0, };

  clr_lock (&s->lock);
  s->hooks = hooks ? *hooks : none;
  s->test_enqueues = 0;
  g_atomic_int_set (&s->test_waits, 0);
  clr_unlock (&s->lock);
}
