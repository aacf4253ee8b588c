/* clresample benchmarks: the small helpers the benches share (timing,
 * percentiles, noise, lists, the load average). */
#ifndef __CLR_BENCH_UTIL_H__
#define __CLR_BENCH_UTIL_H__

#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <glib.h>

/* The process's CPU time in seconds, every thread's (the OpenCL runtime's
 * too): steadier than wall time where other work shares the cores. */
static inline double
clr_bench_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The 1-minute load average, NAN where unknown: a busy machine slows
 * every contestant, and a reader should know when the figures were taken
 * on one. */
static inline double
load_average (void)
{
  gchar *text = NULL;
  double l = NAN;

  if (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    l = g_ascii_strtod (text, NULL);
  g_free (text);
  return l;
}

static inline int
cmp_double (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted v[0..n). */
static inline double
percentile (const double *v, size_t n, double p)
{
  size_t k = (size_t) ceil (p * n);

  return n == 0 ? NAN : v[k == 0 ? 0 : MIN (k - 1, n - 1)];
}

static inline double
next_uniform (guint64 * state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double) (*state >> 11) / (double) (1ull << 52) - 1.0;
}

static inline guint
parse_list (const gchar * text, guint64 * out, guint max, gboolean zero_ok)
{
  gchar **parts = g_strsplit (text, ",", -1);
  guint n = 0, i;

  for (i = 0; parts[i] && n < max; i++) {
    gchar *end;
    guint64 v = g_ascii_strtoull (parts[i], &end, 10);
    if (end == parts[i] || *end != '\0' || (v == 0 && !zero_ok)) {
      n = 0;
      break;
    }
    out[n++] = v;
  }
  g_strfreev (parts);
  return n;
}

#endif
