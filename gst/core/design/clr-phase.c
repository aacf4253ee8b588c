/* clresample: minimum- and intermediate-phase prototypes. See
 * clr-phase.h. */
#include <math.h>
#include <string.h>
#include "clr-phase.h"
#include "clr-fft-host.h"
#include "clr-disk-cache.h"
#include "clr-design-hash.h"
#include "clr-workers.h"

/* prototypes kept for the engines and banks that ask again (a live
 * change, the bank's rows, the FFT path) */
#define CLR_PHASE_CACHE_ENTRIES 4
/* energy before the kernel's window left out, relative to all of it: this
 * many dB under the stopband */
#define CLR_PHASE_PRE_MARGIN_DB 10.0
/* the intermediate design's two halves each stop this much more than half
 * the stopband: a flatter passband (the halves' ripples add) and, at
 * qualities 0, 4 and 10, a deeper stopband than the linear filter's, for
 * 7 % more look-ahead than at none (3, 6, 15 and 20 dB measured: 15 loses
 * the stopband, the kernel's end cutting the longer halves) */
#define CLR_PHASE_HALF_MARGIN_DB 10.0

/* The loops over a design's 2^20 bins and samples, cut in parts on the
 * process's workers (clr-workers.h), as its transforms are
 * (clr-fft-host.c); each point computed as on one thread */
typedef enum
{
  LOOP_LOG_MAGNITUDE,
  LOOP_POLAR,
  LOOP_ZERO_PHASE
} LoopKind;

typedef struct
{
  LoopKind kind;
  guint parts;
  size_t n;                     /* the points the loop runs over */
  double *a;
  double floor_mag;
  const ClrFilter *f;
  uint32_t rate;
  size_t n_fft;
  int64_t reach;
} Loop;

static void
loop_part (gpointer user, guint part)
{
  const Loop *l = user;
  const size_t i0 = clr_workers_part_start (l->n, part, l->parts);
  const size_t i1 = clr_workers_part_start (l->n, part + 1, l->parts);
  size_t i;

  switch (l->kind) {
    case LOOP_LOG_MAGNITUDE:
      for (i = i0; i < i1; i++) {
        l->a[2 * i] = log (MAX (hypot (l->a[2 * i], l->a[2 * i + 1]),
                l->floor_mag));
        l->a[2 * i + 1] = 0.0;
      }
      break;
    case LOOP_POLAR:
      for (i = i0; i < i1; i++) {
        const double mag = exp (l->a[2 * i]), ph = l->a[2 * i + 1];

        l->a[2 * i] = mag * cos (ph);
        l->a[2 * i + 1] = mag * sin (ph);
      }
      break;
    case LOOP_ZERO_PHASE:
      /* point i at time (i - reach) / rate, where it is in the circle;
       * the rest of the circle zero */
      for (i = i0; i < i1; i++) {
        const int64_t t = (int64_t) i - l->reach;
        const size_t at = (size_t) ((t + (int64_t) l->n_fft)
            % (int64_t) l->n_fft);

        l->a[at] = t <= l->reach ? clr_filter_eval (l->f,
            (double) t / l->rate) : 0.0;
      }
      break;
  }
}

static void
loop_run (Loop * l)
{
  l->parts = clr_workers_parts (l->n, CLR_FFT_HOST_PARALLEL);
  clr_workers_for (loop_part, l, l->parts);
}

static GMutex cache_lock;
static GQueue cache = G_QUEUE_INIT;

uint32_t
clr_phase_rate (uint64_t I)
{
  return I <= CLR_PHASE_RATE_MAX ? (uint32_t) I : CLR_PHASE_RATE_GRID;
}

void
clr_phase_proto_unref (ClrPhaseProto * p)
{
  if (p && g_atomic_int_dec_and_test (&p->refs)) {
    g_free (p->h);
    g_free (p);
  }
}

static gboolean
same_key (const ClrPhaseProto * p, const ClrFilter * f, uint32_t rate,
    double alpha)
{
  return p->alpha == alpha && p->rate == rate && p->taps == f->taps
      && p->fc == f->fc && p->beta == f->beta
      && p->half_width == f->half_width;
}

/* spec holds the n_fft / 2 + 1 bins of a real signal's spectrum (the rest
 * its mirror image); replaced by the minimum-phase spectrum of its
 * magnitude (floored at floor_mag: a spectrum's exact zeros have no
 * logarithm) by folding the log magnitude's cepstrum onto positive
 * quefrencies. Every signal here is real (the cepstrum of a real log
 * magnitude, the folded cepstrum), so each transform is a real one of half
 * the points; x is n_fft doubles of scratch. */
static void
minimum_phase_spectrum (ClrFftHostReal * fft, double *spec, double *x,
    size_t n_fft, double floor_mag)
{
  const size_t m = n_fft / 2;
  Loop log_mag = {.kind = LOOP_LOG_MAGNITUDE,.n = m + 1,.a = spec,
    .floor_mag = floor_mag
  };
  Loop polar = {.kind = LOOP_POLAR,.n = m + 1,.a = spec };
  size_t i;

  loop_run (&log_mag);
  clr_fft_host_real_inverse_run (fft, spec, x);
  for (i = 1; i < m; i++)
    x[i] *= 2.0;
  memset (x + m + 1, 0, (m - 1) * sizeof (double));
  clr_fft_host_real_run (fft, x, n_fft, spec);
  loop_run (&polar);
}

/* The zero-phase spectrum of f's linear prototype, sampled at `rate`
 * points an input sample and centred on index 0: its n_fft / 2 + 1 bins
 * into spec; x is n_fft doubles of scratch. */
static void
zero_phase_spectrum (ClrFftHostReal * fft, const ClrFilter * f,
    uint32_t rate, double *spec, double *x, size_t n_fft)
{
  Loop fill = {.kind = LOOP_ZERO_PHASE,.n = n_fft,.a = x,.f = f,
    .rate = rate,.n_fft = n_fft,.reach = (int64_t) ceil (f->half_width * rate)
  };

  loop_run (&fill);
  clr_fft_host_real_run (fft, x, n_fft, spec);
}

/* The intermediate filter's spectrum into spec (n_fft / 2 + 1 bins): G_min
 * G, where G is a linear design of half f's attenuation over f's transition
 * band (so about half its length) and G_min its minimum-phase version. The
 * product has G's magnitude squared: f's passband, transition and stopband,
 * with half the linear filter's look-ahead and a minimum-phase part that
 * does not ring before the transient. Cutting half the cepstrum from f's
 * own magnitude instead (libsoxr's way) reaches far before the peak: the
 * square root of a magnitude with zeros is not smooth, and cut to K taps
 * that design lost its stopband (-52 dB at quality 10). */
static gboolean
intermediate_spectrum (ClrFftHostReal * fft, const ClrFilter * f,
    uint32_t rate, double *spec, double *x, size_t n_fft)
{
  ClrFilter g = *f;
  const double a = f->stop_db / 2.0 + CLR_PHASE_HALF_MARGIN_DB;
  double *lin, dc;
  size_t i;

  /* G's zero-phase spectrum is real: its real parts alone kept */
  if (!(lin = clr_fft_host_alloc (n_fft / 2 + 1)))
    return FALSE;
  /* Kaiser's length is proportional to (a - 7.95) for one width */
  g.stop_db = a;
  g.beta = clr_filter_kaiser_beta (a);
  g.i0_beta = clr_bessel_i0 (g.beta);
  g.half_width = 0.5 * (1.0 + (f->taps - 1.0) * (a - 7.95)
      / (f->stop_db - 7.95));
  zero_phase_spectrum (fft, &g, rate, spec, x, n_fft);
  for (i = 0; i <= n_fft / 2; i++)
    lin[i] = spec[2 * i];
  minimum_phase_spectrum (fft, spec, x, n_fft, pow (10.0, -(a + 40.0) /
          20.0));
  /* scaled to G's DC gain, the prototype's own */
  dc = fabs (lin[0]);
  for (i = 0; i <= n_fft / 2; i++) {
    spec[2 * i] *= lin[i] / dc;
    spec[2 * i + 1] *= lin[i] / dc;
  }
  g_free (lin);
  return TRUE;
}

/* A prototype of f's at rate and alpha, its kernel still to be set */
static ClrPhaseProto *
proto_new (const ClrFilter * f, uint32_t rate, double alpha)
{
  ClrPhaseProto *p = g_new0 (ClrPhaseProto, 1);

  p->refs = 1;
  p->alpha = alpha;
  p->rate = rate;
  p->taps = f->taps;
  p->fc = f->fc;
  p->beta = f->beta;
  p->half_width = f->half_width;
  return p;
}

/* The phase-alpha version of f's prototype (1 minimum, otherwise the
 * intermediate one), sampled `rate` points an input sample, placed as
 * clr-phase.h says. */
static ClrPhaseProto *
design (const ClrFilter * f, uint32_t rate, double alpha)
{
  const size_t len = (size_t) f->taps * rate;
  /* energy before the kept window: well under the stopband's */
  const double pre_floor = pow (10.0, -(f->stop_db + CLR_PHASE_PRE_MARGIN_DB)
      / 10.0);
  ClrPhaseProto *p;
  ClrFftHostReal *fft;
  double *z, *spec, sum = 0.0, moment = 0.0, total = 0.0, acc;
  size_t n_fft = 4, i, q;
  int64_t d, s0;
  gboolean ok;

  while (n_fft < 32 * len && n_fft < CLR_PHASE_FFT_MAX)
    n_fft <<= 1;
  if (n_fft < 4 * len)
    return NULL;
  z = clr_fft_host_alloc (n_fft);
  spec = clr_fft_host_alloc (n_fft + 2);
  fft = z && spec ? clr_fft_host_real_new (n_fft) : NULL;
  ok = fft != NULL;
  if (ok && alpha >= 1.0) {
    zero_phase_spectrum (fft, f, rate, spec, z, n_fft);
    minimum_phase_spectrum (fft, spec, z, n_fft, pow (10.0,
            -(f->stop_db + 40.0) / 20.0));
  } else if (ok) {
    ok = intermediate_spectrum (fft, f, rate, spec, z, n_fft);
  }
  /* the filter, real: index i < n_fft / 2 at time i / rate, the rest
   * before 0 */
  if (ok)
    clr_fft_host_real_inverse_run (fft, spec, z);
  clr_fft_host_real_free (fft);
  g_free (spec);
  if (!ok) {
    g_free (z);
    return NULL;
  }
  /* Its low-frequency delay and its reach before 0, within a filter's
   * length either side of 0: the cepstrum's aliasing leaves a faint
   * echo (-50 dB at quality 4) half the transform away, in no band that
   * matters (the kept window's stopband measures as the linear one's) */
  for (i = 0; i < 2 * len; i++) {
    const int64_t t = (int64_t) i - (int64_t) len;
    const double h = z[(size_t) ((t + (int64_t) n_fft) % (int64_t) n_fft)];

    sum += h;
    moment += (double) t * h;
    total += h * h;
  }
  d = (int64_t) llround (moment / sum);
  /* the samples before 0 worth keeping */
  acc = 0.0;
  for (q = len; q > 0; q--) {
    acc += z[n_fft - q] * z[n_fft - q];
    if (acc > pre_floor * total)
      break;
  }
  p = proto_new (f, rate, alpha);
  p->lead = (uint32_t) ((MAX (d, 0) + (int64_t) q + rate - 1) / rate);
  p->delay = (double) d / rate;
  s0 = d - (int64_t) p->lead * rate;
  p->h = g_try_new (double, len);
  if (!p->h) {
    g_free (z);
    g_free (p);
    return NULL;
  }
  for (i = 0; i < len; i++) {
    const int64_t n = s0 + (int64_t) i;
    p->h[i] = n > -(int64_t) (n_fft / 2) && n < (int64_t) (n_fft / 2) ?
        z[(size_t) ((n + (int64_t) n_fft) % (int64_t) n_fft)] : 0.0;
  }
  g_free (z);
  return p;
}

/* A prototype's key on disk: the design's code, the host transforms'
 * variant (clr-fft-host.c's clones round differently), and what design ()
 * reads */
typedef struct {
  char code[72];
  char variant[8];
  double alpha, fc, beta, half_width, stop_db;
  uint32_t rate, taps;
} ProtoDiskKey;

/* What the entry holds before the kernel's points */
typedef struct {
  double delay;
  uint32_t lead;
  uint32_t pad;
} ProtoDiskHead;

/* Prototypes that took this long to design go to the cache on disk */
#define CLR_PHASE_DISK_MIN_US 4000

static void
disk_key_init (ProtoDiskKey * k, const ClrFilter * f, uint32_t rate,
    double alpha)
{
  memset (k, 0, sizeof (*k));
  g_strlcpy (k->code, "proto-1 " CLR_DESIGN_SOURCES_SHA256, sizeof k->code);
  g_strlcpy (k->variant, clr_fft_host_variant (), sizeof k->variant);
  k->alpha = alpha;
  k->fc = f->fc;
  k->beta = f->beta;
  k->half_width = f->half_width;
  k->stop_db = f->stop_db;
  k->rate = rate;
  k->taps = f->taps;
}

static ClrPhaseProto *
proto_from_disk (const ClrFilter * f, uint32_t rate, double alpha)
{
  const size_t len = (size_t) f->taps * rate;
  ProtoDiskKey key;
  ProtoDiskHead head;
  ClrPhaseProto *p = NULL;
  GBytes *data;
  const guint8 *bytes;
  gsize n;

  disk_key_init (&key, f, rate, alpha);
  if (!(data = clr_disk_cache_load ("phase", &key, sizeof key)))
    return NULL;
  bytes = g_bytes_get_data (data, &n);
  if (n == sizeof head + len * sizeof (double)) {
    memcpy (&head, bytes, sizeof head);
    p = proto_new (f, rate, alpha);
    p->lead = head.lead;
    p->delay = head.delay;
    p->h = g_try_new (double, len);
    if (p->h) {
      memcpy (p->h, bytes + sizeof head, len * sizeof (double));
    } else {
      g_free (p);
      p = NULL;
    }
  }
  g_bytes_unref (data);
  return p;
}

static void
proto_to_disk (const ClrPhaseProto * p, const ClrFilter * f)
{
  const size_t len = (size_t) p->taps * p->rate;
  ProtoDiskKey key;
  ProtoDiskHead head = { p->delay, p->lead, 0 };
  guint8 *bytes = g_try_malloc (sizeof head + len * sizeof (double));

  if (!bytes)
    return;
  memcpy (bytes, &head, sizeof head);
  memcpy (bytes + sizeof head, p->h, len * sizeof (double));
  disk_key_init (&key, f, p->rate, p->alpha);
  /* on the cache's thread: a design may run under the scheduler's kernel
   * lock, whose other takers must not wait for the hash and the write */
  clr_disk_cache_store_async ("phase", g_bytes_new (&key, sizeof key),
      g_bytes_new_take (bytes, sizeof head + len * sizeof (double)));
}

ClrPhaseProto *
clr_phase_proto_get (const ClrFilter * f, uint32_t rate, double alpha)
{
  ClrPhaseProto *p = NULL, *other = NULL;
  GList *l;

  g_mutex_lock (&cache_lock);
  for (l = cache.head; l && !p; l = l->next)
    if (same_key (l->data, f, rate, alpha)) {
      p = l->data;
      g_queue_unlink (&cache, l);
      g_queue_push_head_link (&cache, l);
      g_atomic_int_inc (&p->refs);
    }
  g_mutex_unlock (&cache_lock);
  if (p)
    return p;
  /* designed outside the lock: seconds for a million taps */
  if (!(p = proto_from_disk (f, rate, alpha))) {
    const gint64 t0 = g_get_monotonic_time ();

    if (!(p = design (f, rate, alpha)))
      return NULL;
    if (g_get_monotonic_time () - t0 >= CLR_PHASE_DISK_MIN_US)
      proto_to_disk (p, f);
  }
  g_mutex_lock (&cache_lock);
  for (l = cache.head; l && !other; l = l->next)
    if (same_key (l->data, f, rate, alpha))
      other = l->data;
  if (other) {
    g_atomic_int_inc (&other->refs);
  } else {
    g_atomic_int_inc (&p->refs);
    g_queue_push_head (&cache, p);
    while (cache.length > CLR_PHASE_CACHE_ENTRIES)
      clr_phase_proto_unref (g_queue_pop_tail (&cache));
  }
  g_mutex_unlock (&cache_lock);
  if (other) {
    clr_phase_proto_unref (p);
    return other;
  }
  return p;
}

double
clr_phase_eval (const ClrPhaseProto * p, double t)
{
  const int64_t len = (int64_t) p->taps * p->rate;
  const double u = (t + p->lead) * p->rate;
  const double base = floor (u), x = u - base;
  const int64_t i = (int64_t) base;
  double y[4];
  int k;

  if (u <= -1.0 || u >= (double) len)
    return 0.0;
  if (x == 0.0)
    return p->h[i];
  /* 4-point Lagrange over i - 1 .. i + 2 */
  for (k = 0; k < 4; k++) {
    const int64_t j = i - 1 + k;
    y[k] = j >= 0 && j < len ? p->h[j] : 0.0;
  }
  return -x * (x - 1) * (x - 2) / 6.0 * y[0]
      + (x + 1) * (x - 1) * (x - 2) / 2.0 * y[1]
      - (x + 1) * x * (x - 2) / 2.0 * y[2]
      + (x + 1) * x * (x - 1) / 6.0 * y[3];
}
