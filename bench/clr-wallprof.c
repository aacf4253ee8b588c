/* clr-wallprof: where a many-threaded process's threads spend their wall
 * time, runnable or asleep, for bench/clr-streams-bench and the like.
 *
 *   CLR_WALLPROF_OUT=/tmp/prof LD_PRELOAD=build/bench/libclr-wallprof.preload \
 *     build/bench/clr-streams-bench -n 256 -w clresample-q10
 *   /usr/bin/python3 bench/wallprof-report.py /tmp/prof.PID
 *
 * Preloaded, it starts a thread that every CLR_WALLPROF_US microseconds
 * (default 10000) signals every other thread of the process; each records
 * its stack in the handler. A sampling profiler such as perf sees where
 * the CPU goes; this one also sees where threads wait (a lock, a
 * condition, the device), which is what limits hundreds of streaming
 * threads on a few cores. At exit the stacks go to $CLR_WALLPROF_OUT.PID,
 * a line each: the thread, then module+offset frames from the innermost
 * (wallprof-report.py names them). Child processes inherit it and write
 * files of their own. Not for production: the signals interrupt system
 * calls, which the code sampled must restart (glibc, GLib and the OpenCL
 * drivers tried do). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define DEPTH 24
#define MAX_SAMPLES 400000

static void *stacks[MAX_SAMPLES][DEPTH];
static unsigned char depth[MAX_SAMPLES];
static int tids[MAX_SAMPLES];
static atomic_int n_samples;
static atomic_int stop;
static pthread_t sampler;
static pid_t sampler_tid;
static char out_path[512];

static void
record (int sig, siginfo_t * si, void *uc)
{
  const int i = atomic_fetch_add (&n_samples, 1);

  (void) sig;
  (void) si;
  (void) uc;
  if (i >= MAX_SAMPLES)
    return;
  depth[i] = (unsigned char) backtrace (stacks[i], DEPTH);
  tids[i] = (int) syscall (SYS_gettid);
}

static void *
sample_loop (void *arg)
{
  const char *env = getenv ("CLR_WALLPROF_US");
  const long us = env ? atol (env) : 10000;
  const pid_t pid = getpid ();
  const struct timespec period = { us / 1000000, (us % 1000000) * 1000 };
  char task_dir[64];

  (void) arg;
  sampler_tid = (pid_t) syscall (SYS_gettid);
  snprintf (task_dir, sizeof task_dir, "/proc/%d/task", (int) pid);
  while (!atomic_load (&stop)) {
    DIR *d;
    struct dirent *e;

    nanosleep (&period, NULL);
    if (!(d = opendir (task_dir)))
      continue;
    while ((e = readdir (d))) {
      const int tid = atoi (e->d_name);
      if (tid > 0 && tid != sampler_tid)
        syscall (SYS_tgkill, pid, tid, SIGRTMIN + 5);
    }
    closedir (d);
  }
  return NULL;
}

static void __attribute__ ((constructor))
wallprof_start (void)
{
  const char *out = getenv ("CLR_WALLPROF_OUT");
  struct sigaction sa;
  void *prime[4];

  if (!out)
    return;
  snprintf (out_path, sizeof out_path, "%s.%d", out, (int) getpid ());
  /* backtrace () loads libgcc on its first call: not in a handler */
  backtrace (prime, 4);
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = record;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction (SIGRTMIN + 5, &sa, NULL);
  pthread_create (&sampler, NULL, sample_loop, NULL);
}

static void __attribute__ ((destructor))
wallprof_finish (void)
{
  FILE *f;
  int i, k, n;

  if (!out_path[0])
    return;
  atomic_store (&stop, 1);
  pthread_join (sampler, NULL);
  if (!(f = fopen (out_path, "w")))
    return;
  n = atomic_load (&n_samples);
  if (n > MAX_SAMPLES)
    n = MAX_SAMPLES;
  for (i = 0; i < n; i++) {
    fprintf (f, "%d", tids[i]);
    /* past the handler and the signal trampoline */
    for (k = 2; k < depth[i]; k++) {
      Dl_info di;

      if (dladdr (stacks[i][k], &di) && di.dli_fname) {
        const char *base = strrchr (di.dli_fname, '/');
        fprintf (f, " %s+0x%lx", base ? base + 1 : di.dli_fname,
            (unsigned long) ((char *) stacks[i][k] - (char *) di.dli_fbase));
      } else {
        fprintf (f, " ?%p", stacks[i][k]);
      }
    }
    fputc ('\n', f);
  }
  fclose (f);
}
