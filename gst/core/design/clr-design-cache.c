/* clresample: designed filter banks, shared. See clr-design-cache.h. */
#include <stdlib.h>
#include <string.h>
#include "clr-design-cache.h"
#include "clr-disk-cache.h"
#include "clr-phase.h"
#include "clr-fft-host.h"
#include "clr-design-hash.h"

/* Everything clr_bank_row () reads, and nothing else: banks with equal keys
 * hold the same doubles. Compared as bytes (no padding: zeroed first). */
typedef struct {
  double fc;
  double beta;
  double i0_beta;
  double half_width;
  double phase;
  uint64_t I;                   /* table rows only, and phases' prototype
                                 * rate */
  uint32_t interpolated;
  uint32_t rows;
  uint32_t taps;
  uint32_t grid;
  uint32_t lead;
  uint32_t pad;
} DesignKey;

struct _ClrDesign {
  gint refs;
  DesignKey key;
  size_t bytes;
  double *coef;                 /* rows x taps */
};

/* Banks that took this long to design go to the cache on disk, and only
 * where that is longer than reading them back takes: the file, its
 * SHA-256 and the copy cost a fresh process on the 2-core CPU 10-20 ms a
 * MB beside other work (4 ms a MB in a process that had read it before);
 * with the digest XXH64's (clr-disk-cache.c) still 7.5 ms a MB, most of
 * it the first touch of fresh pages (the file's buffer, the bank's): 3.1
 * MB in 23 ms against 18 to design, 0.69 MB in 5.0-5.4 against 5.4.
 * The interpolated bank of a coprime ratio at quality 10, half designed
 * from the other half on two threads, reads back slower than it is made:
 * 3.1 MB in 42-63 ms against 14-32 ms. At 8 ms a MB such a bank whose
 * design took over 25 ms went to disk, and every later start read it
 * back (a first buffer 60 ms after PLAYING); quality 4's (0.69 MB) read
 * back in 8.6-9.2 ms against 4.4-4.7 to design it. Reading costs 12-14
 * ms a MB measured so: 16 keeps both off the disk, and still takes the
 * banks that cost more to make than their bytes (long minimum-phase
 * filters, a million taps on one thread). */
#define CLR_DESIGN_DISK_MIN_US 4000
#define CLR_DESIGN_DISK_US_PER_MB 16000

/* A bank's key on disk: the code that designs it, the host transforms'
 * variant it ran (clr-fft-host.c's clones round differently), the
 * parameters */
typedef struct {
  char code[72];
  char variant[8];
  DesignKey key;
} DiskKey;

static GMutex cache_lock;
/* most recently used first; each entry holds one ref of its bank */
static GQueue cache = G_QUEUE_INIT;
static size_t cache_bytes;
static guint64 cache_hits, cache_misses;

static void
key_init (DesignKey * k, const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r)
{
  memset (k, 0, sizeof (*k));
  k->fc = f->fc;
  k->beta = f->beta;
  k->i0_beta = f->i0_beta;
  k->half_width = f->half_width;
  k->phase = f->phase;
  k->lead = f->lead;
  k->I = b->interpolated && f->phase == 0.0 ? 0 : r->I;
  k->interpolated = b->interpolated;
  k->rows = b->rows;
  k->taps = b->taps;
  k->grid = b->grid;
}

static void
disk_key_init (DiskKey * dk, const DesignKey * key)
{
  memset (dk, 0, sizeof (*dk));
  g_strlcpy (dk->code, "bank-1 " CLR_DESIGN_SOURCES_SHA256, sizeof dk->code);
  g_strlcpy (dk->variant, clr_fft_host_variant (), sizeof dk->variant);
  dk->key = *key;
}

/* The bank from the cache on disk into d->coef; FALSE when it has none */
static gboolean
design_from_disk (ClrDesign * d)
{
  DiskKey dk;
  GBytes *data;
  gboolean ok;

  disk_key_init (&dk, &d->key);
  data = clr_disk_cache_load ("bank", &dk, sizeof dk);
  if (!data)
    return FALSE;
  ok = g_bytes_get_size (data) == d->bytes;
  if (ok)
    memcpy (d->coef, g_bytes_get_data (data, NULL), d->bytes);
  g_bytes_unref (data);
  return ok;
}

static void
design_free (ClrDesign * d)
{
  free (d->coef);
  g_free (d);
}

void
clr_design_unref (ClrDesign * d)
{
  if (d && g_atomic_int_dec_and_test (&d->refs))
    design_free (d);
}

/* The cached bank for `key`, made the most recent and reffed, or NULL.
 * Under cache_lock. */
static ClrDesign *
lookup_locked (const DesignKey * key)
{
  GList *l;

  for (l = cache.head; l; l = l->next) {
    ClrDesign *d = l->data;

    if (memcmp (&d->key, key, sizeof (*key)) == 0) {
      g_queue_unlink (&cache, l);
      g_queue_push_head_link (&cache, l);
      g_atomic_int_inc (&d->refs);
      return d;
    }
  }
  return NULL;
}

/* Banks of this many coefficients or more to evaluate are designed on two
 * threads: quality 10's interpolated bank of 48 -> 48.001 kHz (515 x 376
 * evaluated, the rest mirrored) took 22-32 ms of a stream's start on the
 * 2-core CPU on one, 14-24 on two. Smaller ones stay on one: 44.1 -> 48
 * kHz's table at quality 10 (160 x 376, 5-8 ms) would fall to about the
 * 4 ms that decides whether it goes to the cache on disk, and go there
 * in one run but not the next. */
#define CLR_DESIGN_THREADS_MIN 65536

/* The rows of a bank being designed: each thread takes the next row not
 * taken yet, so a thread that gets no core leaves its share to the other;
 * the rows another one mirrors are left to copy afterwards. */
typedef struct {
  const ClrBankLayout *b;
  const ClrFilter *f;
  const ClrRatio *r;
  double *coef;
  gint next;
  gint failed;
} RowWork;

static gpointer
design_rows (gpointer data)
{
  RowWork *w = data;
  guint i;

  while ((i = (guint) g_atomic_int_add (&w->next, 1)) < w->b->rows) {
    if (clr_bank_mirror_row (w->b, w->f, i) < i)
      continue;
    if (!clr_bank_row (w->b, w->f, w->r, i, w->coef + (size_t) i *
            w->b->taps))
      g_atomic_int_set (&w->failed, 1);
  }
  return NULL;
}

/* Every row of bank b into coef; FALSE where one could not be made */
static gboolean
design_bank (const ClrBankLayout * b, const ClrFilter * f, const ClrRatio * r,
    double *coef)
{
  RowWork w = { b, f, r, coef, 0, 0 };
  GThread *helper = NULL;
  /* a phase's prototype made once, before the rows ask for it (both
   * threads would make it otherwise: seconds for a million taps) */
  ClrPhaseProto *proto = NULL;
  uint64_t evaluated = 0;
  uint32_t i, k;

  if (f->phase > 0.0 && !(proto = clr_phase_proto_get (f,
              clr_phase_rate (r->I), f->phase)))
    return FALSE;
  for (i = 0; i < b->rows; i++)
    evaluated += clr_bank_mirror_row (b, f, i) < i ? 0 : b->taps;
  if (evaluated >= CLR_DESIGN_THREADS_MIN && g_get_num_processors () > 1)
    helper = g_thread_try_new ("clr-design", design_rows, &w, NULL);
  design_rows (&w);
  if (helper)
    g_thread_join (helper);
  clr_phase_proto_unref (proto);
  if (w.failed)
    return FALSE;
  for (i = 0; i < b->rows; i++) {
    const uint32_t m = clr_bank_mirror_row (b, f, i);

    if (m < i)
      for (k = 0; k < b->taps; k++)
        coef[(size_t) i * b->taps + k] = coef[(size_t) m * b->taps +
            b->taps - 1 - k];
  }
  return TRUE;
}

ClrDesign *
clr_design_get (const ClrBankLayout * b, const ClrFilter * f,
    const ClrRatio * r)
{
  const size_t n = (size_t) b->rows * b->taps;
  GSList *evicted = NULL, *l;
  ClrDesign *d, *other;
  DesignKey key;

  key_init (&key, b, f, r);
  g_mutex_lock (&cache_lock);
  d = lookup_locked (&key);
  if (d)
    cache_hits++;
  else
    cache_misses++;
  g_mutex_unlock (&cache_lock);
  if (d)
    return d;

  /* designed outside the lock: a stream asking for another bank meanwhile
   * does not wait for this one */
  d = g_new0 (ClrDesign, 1);
  d->refs = 1;
  d->key = key;
  d->bytes = n * sizeof (double);
  if (posix_memalign ((void **) &d->coef, CLR_DESIGN_ALIGN, MAX (n, 1) *
          sizeof (double)) != 0) {
    g_free (d);
    return NULL;
  }
  if (!design_from_disk (d)) {
    const gint64 t0 = g_get_monotonic_time ();
    gint64 took;

    if (!design_bank (b, f, r, d->coef)) {
      design_free (d);
      return NULL;
    }
    /* a bank quicker to make than to check on disk stays off it */
    took = g_get_monotonic_time () - t0;
    if (took >= CLR_DESIGN_DISK_MIN_US
        && took >= (gint64) (d->bytes * CLR_DESIGN_DISK_US_PER_MB >> 20)) {
      DiskKey dk;

      disk_key_init (&dk, &key);
      /* on the cache's thread: the caller may hold the scheduler's kernel
       * lock, and the bank stays alive (a reference) until it is written */
      g_atomic_int_inc (&d->refs);
      clr_disk_cache_store_async ("bank", g_bytes_new (&dk, sizeof dk),
          g_bytes_new_with_free_func (d->coef, d->bytes,
              (GDestroyNotify) clr_design_unref, d));
    }
  }

  g_mutex_lock (&cache_lock);
  /* another thread made the same bank meanwhile: one copy is enough */
  other = lookup_locked (&key);
  if (!other && d->bytes <= CLR_DESIGN_CACHE_BYTES) {
    g_atomic_int_inc (&d->refs);
    g_queue_push_head (&cache, d);
    cache_bytes += d->bytes;
    while (cache.length > CLR_DESIGN_CACHE_ENTRIES
        || cache_bytes > CLR_DESIGN_CACHE_BYTES) {
      ClrDesign *old = g_queue_pop_tail (&cache);

      cache_bytes -= old->bytes;
      evicted = g_slist_prepend (evicted, old);
    }
  }
  g_mutex_unlock (&cache_lock);
  for (l = evicted; l; l = l->next)
    clr_design_unref (l->data);
  g_slist_free (evicted);
  if (other) {
    clr_design_unref (d);
    return other;
  }
  return d;
}

const double *
clr_design_row (const ClrDesign * d, uint32_t row)
{
  return d->coef + (size_t) row * d->key.taps;
}

void
clr_design_cache_stats (ClrDesignCacheStats * stats)
{
  g_mutex_lock (&cache_lock);
  stats->entries = cache.length;
  stats->bytes = cache_bytes;
  stats->hits = cache_hits;
  stats->misses = cache_misses;
  g_mutex_unlock (&cache_lock);
}

void
clr_design_cache_clear (void)
{
  GQueue all = G_QUEUE_INIT;
  ClrDesign *d;

  g_mutex_lock (&cache_lock);
  all = cache;
  g_queue_init (&cache);
  cache_bytes = 0;
  g_mutex_unlock (&cache_lock);
  while ((d = g_queue_pop_head (&all)))
    clr_design_unref (d);
}
