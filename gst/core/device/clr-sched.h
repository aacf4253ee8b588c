/* clresample: one scheduler per device that runs the buffers of every
 * resampler in the process as few launches as it can.
 *
 * A resampler's buffer is a job: its window (the filter's history and the
 * new input, laid out as the kernel reads it) goes into the open batch's
 * staging memory, and the job's thread waits (asleep, or under load on a
 * GPU yielding its core: clr-sched.c). A batch runs as one upload,
 * one launch per kernel (jobs of streams with the same kernel and filter
 * share it, a stream a row of the launch's third dimension), one download
 * and one wait, whatever the number of jobs. Batches form by themselves:
 * while the device is idle a job runs at once (one stream sees no added
 * latency); while a batch runs the next one fills with whatever arrives
 * (the load sets the batch size, and no job ever waits for a stream that
 * has not submitted). Device memory holds nothing between batches: each
 * stream's history lives on the host (clr-window.h), so a stream that
 * pauses, flushes or goes away holds nothing up.
 *
 * Thread-safe; GStreamer-free.
 */
#ifndef __CLR_SCHED_H__
#define __CLR_SCHED_H__

#include "clr-device.h"

G_BEGIN_DECLS

typedef enum {
  CLR_STAGING_PLAIN,            /* ordinary host memory, copied */
  CLR_STAGING_PINNED,           /* page-locked, copied by DMA (GPUs) */
  CLR_STAGING_SVM,              /* fine-grained SVM: kernels read it in
                                 * place (CPU devices) */
} ClrStaging;

typedef struct _ClrSched ClrSched;
typedef struct _ClrSchedBatch ClrSchedBatch;

/* What a kernel of its own launching (ClrSchedLaunch) gets of a batch:
 * its device buffers (or with SVM staging the pointers that take their
 * place: ClrKernelArg's svm) and its jobs' rows [first, first + n) of the
 * stream table, which heads `in`. */
typedef struct {
  cl_mem in, out;
  void *in_svm, *out_svm;
  cl_uint first, n;
  size_t items;                 /* the largest of the jobs' items */
} ClrSchedLaunchArgs;

/* Enqueues a launch group's commands on q; *last: the last one's event. */
typedef cl_int (*ClrSchedLaunch) (gpointer data, cl_command_queue q,
    const ClrSchedLaunchArgs * args, cl_event * last);

/* A kernel and its coefficients, shared by every stream whose key (the
 * program, kernel, filter and launch shape) is the same; their jobs run in
 * one launch. A kernel with `launch` set runs its jobs its own way (the
 * convolution's three kernels over pooled device state: clr-conv.c); the
 * resampler's fields below are then unused, and launch_free frees
 * launch_data with the kernel. */
typedef struct {
  ClrSchedLaunch launch;
  gpointer launch_data;
  GDestroyNotify launch_free;
  cl_kernel kernel;             /* owned */
  cl_mem coef;                  /* owned */
  cl_uint channels, taps;       /* taps: what the kernel runs over */
  cl_uint cpi;                  /* channels a work-item */
  cl_ulong I, D;
  gboolean has_grid;            /* clr_resample_interp's grid argument */
  cl_ulong grid;
  gboolean has_lead;            /* the span kernels' lead argument */
  cl_uint lead;
  gboolean iv;                  /* channel groups along dimension 0 */
  size_t local_size;            /* 0: the driver's choice */
} ClrSchedKernelInfo;

typedef struct _ClrSchedKernel ClrSchedKernel;

/* Builds a kernel's info on a first use (it may take seconds). */
typedef gboolean (*ClrSchedKernelMake) (gpointer data,
    ClrSchedKernelInfo * info, GError ** error);

/* The words of a job's row in the kernels' stream table (resample.cl's
 * CLR_STREAM_WORDS and CLR_STREAM ()) */
#define CLR_SCHED_ROW_WORDS 16
enum {
  CLR_ROW_WIN,                  /* window offset, samples (set by reserve) */
  CLR_ROW_OUT,                  /* output offset, samples (set by reserve) */
  CLR_ROW_FIRST_TAP,
  CLR_ROW_PHASE0,
  CLR_ROW_N_OUT,
  CLR_ROW_W_CSTRIDE,
  CLR_ROW_O_FSTRIDE,
  CLR_ROW_O_CSTRIDE,
  CLR_ROW_ALIGN,
  CLR_ROW_STEP,                 /* the interpolating kernels' step D an
                                 * output, a variable ratio's own (so that
                                 * streams of different ratios share a
                                 * launch); 0: the launch's D */
  CLR_ROW_SLEW,                 /* a slewing step's slope, 2^-16 units an
                                 * output (two's complement; 0: none) */
  CLR_ROW_SLEW_LEN,             /* the outputs the slew lasts */
  CLR_ROW_SLEW_END,             /* the step's change at the slew's end */
  CLR_ROW_SLEW_FRAC,            /* the position's and the step's fractions
                                 * of a unit, 16 bits each, and the first
                                 * half's length (resample.cl's row_pos ()) */
  CLR_ROW_JERK1,                /* the slope's change an output in the
                                 * slew's first half, and in its second */
  CLR_ROW_JERK2,
};

typedef struct {
  /* the caller's */
  ClrSchedKernel *kern;
  size_t win_bytes;             /* the window, as the kernel reads it */
  size_t win_sample;            /* bytes per window sample */
  size_t out_bytes;
  size_t out_sample;            /* bytes per output sample */
  size_t items;                 /* work-items along the output frames */
  cl_ulong row[CLR_SCHED_ROW_WORDS];
  guint launches;               /* 0 or 1; more only for benchmarks */
  void *direct;                 /* NULL, or page-locked memory of the
                                 * caller's (clr-hostmem.h) that takes the
                                 * output straight from the device */
  guint64 audio_us;             /* the audio the job holds, in us, if its
                                 * stream is paced by it: it waits for
                                 * company at most a tenth of that (0: not
                                 * at all) */
  /* the scheduler's */
  char *win;                    /* after reserve: write the window here */
  const char *out;              /* after run: the output */
  ClrSchedBatch *batch;
  cl_int status;                /* this job's own, where its batch failed
                                 * and its jobs were run again one by one */
  const char *call;             /* ... and the OpenCL call that failed it */
} ClrSchedJob;

/* The scheduler of a device for a kind of staging memory; a reference. */
ClrSched *clr_sched_get (ClrDevice * dev, ClrStaging staging,
    GError ** error);
void clr_sched_unref (ClrSched * s);

/* The shared kernel for `key`, made by `make` if no stream holds it yet;
 * a reference. */
ClrSchedKernel *clr_sched_kernel_get (ClrSched * s, const char *key,
    ClrSchedKernelMake make, gpointer data, GError ** error);
void clr_sched_kernel_unref (ClrSched * s, ClrSchedKernel * k);
/* The launch_data of a kernel that launches itself. */
gpointer clr_sched_kernel_get_launch_data (ClrSchedKernel * k);

/* A job: clr_sched_reserve () gives it room (job->win); the caller writes
 * the window there and calls clr_sched_run (), which returns once the
 * output is at job->out (at job->direct if the caller gave that); clr_sched_release () after reading it (also when
 * run failed). Never blocks on other streams, only on the device. */
gboolean clr_sched_reserve (ClrSched * s, ClrSchedJob * job,
    GError ** error);
gboolean clr_sched_run (ClrSched * s, ClrSchedJob * job, GError ** error);
void clr_sched_release (ClrSched * s, ClrSchedJob * job);

/* How many jobs the device's recent batches held (a decaying maximum):
 * how many streams share its batches now. */
guint clr_sched_get_company (ClrSched * s);

/* How long an open batch of paced jobs may wait for company (clr-sched.c's
 * CLR_SCHED_WINDOW_US, or CLRESAMPLE_SCHED_WINDOW), in us. */
guint clr_sched_get_window_us (ClrSched * s);

/* Launches, jobs and batches run so far, and the jobs reserved as paced
 * (ClrSchedJob.audio_us), for tests and benchmarks. */
void clr_sched_get_counts (ClrSched * s, guint64 * launches, guint64 * jobs,
    guint64 * batches, guint64 * paced);

/* The host staging its batches hold now, in bytes: it grows with the
 * load, and shrinks once the load is gone. */
gsize clr_sched_get_staging_bytes (ClrSched * s);

/* For tests only: interleavings the scheduler otherwise meets by chance
 * (a thread preempted at the wrong moment, a failed enqueue), forced. */
typedef struct {
  guint run_pause_us;           /* clr_sched_run () sleeps this long after
                                 * its job's last write, before it waits */
  gboolean window_always;       /* the gathering window holds a paced
                                 * batch to its end, whatever the company
                                 * and the streams' pace */
  guint enqueue_pause_us;       /* a batch's enqueue sleeps this long first */
  guint enqueue_fail_every;     /* every n-th batch's enqueue fails with
                                 * CL_OUT_OF_RESOURCES, before it enqueues
                                 * anything */
  /* Called on the thread that enqueues a batch of `jobs` jobs, before
   * anything of it is enqueued (the scheduler's lock let go), n counting
   * the batches enqueued since the hooks were set, from 1; where it
   * returns other than CL_SUCCESS, the enqueue fails with that. It may
   * block: the other threads go on. */
  cl_int (*before_enqueue) (gpointer data, guint n, guint jobs);
  /* Called on a batch's waiter once the batch has run, before the waiter
   * takes the scheduler's lock to count it done and send the next; n
   * counts the batches waited for since the hooks were set, from 1. It
   * may block: the batch then stays counted as running. */
  void (*after_wait) (gpointer data, guint n);
  gpointer data;                /* the callbacks' */
} ClrSchedTestHooks;

/* hooks NULL: none */
void clr_sched_set_test_hooks (ClrSched * s,
    const ClrSchedTestHooks * hooks);

G_END_DECLS
#endif
