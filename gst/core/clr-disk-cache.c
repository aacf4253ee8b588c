/* clresample: the cache on disk. See clr-disk-cache.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "clr-disk-cache.h"
#include "clr-log.h"

/* An entry's file: this header, the key, the data, then the digest of
 * everything before it (digest ()). The version changes with the layout
 * (1: SHA-256 digests). */
#define ENTRY_MAGIC "CLRCACHE"
#define ENTRY_VERSION 2u
#define DIGEST_LEN 8u
/* A temporary file older than this is a writer's that died: removed */
#define STALE_TMP_SECONDS 600

typedef struct {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t key_len;
  uint64_t data_len;
} EntryHeader;

static GMutex stats_lock;
static ClrDiskCacheStats totals;

#define COUNT(field) G_STMT_START { \
  g_mutex_lock (&stats_lock); \
  totals.field++; \
  g_mutex_unlock (&stats_lock); \
} G_STMT_END

gchar *
clr_disk_cache_dir (void)
{
  const char *off = g_getenv ("CLRESAMPLE_CACHE");
  const char *dir = g_getenv ("CLRESAMPLE_CACHE_DIR");

  if (off && (!strcmp (off, "0") || !g_ascii_strcasecmp (off, "off")
          || !g_ascii_strcasecmp (off, "no")))
    return NULL;
  if (dir && *dir)
    return g_strdup (dir);
  /* not g_get_user_cache_dir (): it keeps the first answer for the
   * process, where a test or a host changes XDG_CACHE_HOME */
  dir = g_getenv ("XDG_CACHE_HOME");
  if (dir && g_path_is_absolute (dir))
    return g_build_filename (dir, "clresample", NULL);
  dir = g_get_home_dir ();
  if (!dir || !*dir)
    return NULL;
  return g_build_filename (dir, ".cache", "clresample", NULL);
}

static guint64
max_bytes (void)
{
  const char *s = g_getenv ("CLRESAMPLE_CACHE_MAX_MB");
  guint64 mb = CLR_DISK_CACHE_MAX_MB_DEFAULT;

  if (s && *s) {
    gchar *end = NULL;
    guint64 v = g_ascii_strtoull (s, &end, 10);

    if (end && !*end)
      mb = v;
  }
  return mb << 20;
}

/* The entry's path: the kind and the key's SHA-256, so that keys of any
 * length make names of one length */
static gchar *
entry_path (const char *dir, const char *kind, const void *key,
    size_t key_len)
{
  gchar *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, key, key_len);
  gchar *name = g_strdup_printf ("%s-%s.entry", kind, hex);
  gchar *path = g_build_filename (dir, name, NULL);

  g_free (name);
  g_free (hex);
  return path;
}

/* The digest: XXH64 of the bytes (seed 0, stored little-endian), the
 * public xxHash64 algorithm: four lanes of 8-byte words each multiplied,
 * rotated and multiplied again, the lanes merged, the length and the tail
 * mixed in. tests/test-disk-cache.c checks it against libxxhash's.
 * It guards against what befalls files (a write cut short, flipped
 * bytes, another layout), not against someone who writes the user's own
 * cache folder. SHA-256 took 4-5 ms a MB on the 2-core CPU: a bank read
 * back (a coprime ratio's interpolated grid, 0.69 MB at quality 4) then
 * cost more than designing it again; this takes about 0.1 ms a MB. */
#define P1 G_GUINT64_CONSTANT (0x9E3779B185EBCA87)
#define P2 G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F)
#define P3 G_GUINT64_CONSTANT (0x165667B19E3779F9)
#define P4 G_GUINT64_CONSTANT (0x85EBCA77C2B2AE63)
#define P5 G_GUINT64_CONSTANT (0x27D4EB2F165667C5)

static inline guint64
rotl64 (guint64 x, int r)
{
  return (x << r) | (x >> (64 - r));
}

static inline guint64
word_at (const guint8 * p)
{
  guint64 w;

  memcpy (&w, p, sizeof w);
  return GUINT64_FROM_LE (w);
}

static inline guint64
lane_round (guint64 acc, guint64 w)
{
  return rotl64 (acc + w * P2, 31) * P1;
}

static inline guint64
lane_merge (guint64 h, guint64 lane)
{
  return (h ^ lane_round (0, lane)) * P1 + P4;
}

static void
digest (const guint8 * bytes, size_t len, guint8 out[DIGEST_LEN])
{
  const guint8 *p = bytes, *end = bytes + len;
  guint64 h;

  if (len >= 32) {
    guint64 v[4] = { P1 + P2, P2, 0, -P1 };

    for (; p + 32 <= end; p += 32) {
      v[0] = lane_round (v[0], word_at (p));
      v[1] = lane_round (v[1], word_at (p + 8));
      v[2] = lane_round (v[2], word_at (p + 16));
      v[3] = lane_round (v[3], word_at (p + 24));
    }
    h = rotl64 (v[0], 1) + rotl64 (v[1], 7) + rotl64 (v[2], 12) +
        rotl64 (v[3], 18);
    h = lane_merge (lane_merge (lane_merge (lane_merge (h, v[0]), v[1]),
            v[2]), v[3]);
  } else {
    h = P5;
  }
  h += (guint64) len;
  for (; p + 8 <= end; p += 8)
    h = rotl64 (h ^ lane_round (0, word_at (p)), 27) * P1 + P4;
  if (p + 4 <= end) {
    guint32 w;

    memcpy (&w, p, sizeof w);
    h = rotl64 (h ^ (GUINT32_FROM_LE (w) * P1), 23) * P2 + P3;
    p += 4;
  }
  for (; p < end; p++)
    h = rotl64 (h ^ (*p * P5), 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  h = GUINT64_TO_LE (h);
  memcpy (out, &h, DIGEST_LEN);
}

/* Why the entry's bytes do not hold (key, ...), or NULL when they do */
static const char *
entry_fault (const guint8 * bytes, size_t len, const void *key,
    size_t key_len)
{
  EntryHeader h;
  guint8 sum[DIGEST_LEN];

  if (len < sizeof h + DIGEST_LEN)
    return "truncated";
  memcpy (&h, bytes, sizeof h);
  if (memcmp (h.magic, ENTRY_MAGIC, sizeof h.magic))
    return "not a cache entry";
  if (h.version != ENTRY_VERSION)
    return "another format's";
  if (h.key_len > len || h.data_len > len
      || sizeof h + h.key_len + h.data_len + DIGEST_LEN != len)
    return "truncated, or its lengths corrupt";
  digest (bytes, len - DIGEST_LEN, sum);
  if (memcmp (sum, bytes + len - DIGEST_LEN, DIGEST_LEN))
    return "corrupt (its checksum fails)";
  if (h.key_len != key_len || memcmp (bytes + sizeof h, key, key_len))
    return "another key's";
  return NULL;
}

GBytes *
clr_disk_cache_load (const char *kind, const void *key, size_t key_len)
{
  gchar *dir = clr_disk_cache_dir (), *path, *contents = NULL;
  gsize len = 0;
  const char *fault;
  GBytes *data = NULL;

  if (!dir)
    return NULL;
  path = entry_path (dir, kind, key, key_len);
  if (!g_file_get_contents (path, &contents, &len, NULL)) {
    COUNT (misses);
    goto done;
  }
  fault = entry_fault ((const guint8 *) contents, len, key, key_len);
  if (fault) {
    clr_log (CLR_LOG_DEBUG, "cache entry %s is %s: ignored and removed, "
        "made anew", path, fault);
    g_unlink (path);
    COUNT (rejected);
    goto done;
  }
  {
    const size_t off = sizeof (EntryHeader) + key_len;

    GBytes *all = g_bytes_new_take (contents, len);

    /* no copy: the data is a slice of the file's bytes */
    contents = NULL;
    data = g_bytes_new_from_bytes (all, off, len - off - DIGEST_LEN);
    g_bytes_unref (all);
  }
  /* its time is its last use: what eviction goes by */
  utimensat (AT_FDCWD, path, NULL, 0);
  COUNT (hits);
done:
  g_free (contents);
  g_free (path);
  g_free (dir);
  return data;
}

typedef struct {
  gchar *path;
  gint64 mtime;
  guint64 size;
} Listed;

static gint
older_first (gconstpointer a, gconstpointer b)
{
  const Listed *x = a, *y = b;

  return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* Removes dead writers' temporary files, then the entries used longest
 * ago (but `keep`) while the folder's entries exceed the bound */
static void
evict (const char *dir, const char *keep)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GArray *list = g_array_new (FALSE, FALSE, sizeof (Listed));
  const guint64 bound = max_bytes ();
  const gint64 now = g_get_real_time () / G_USEC_PER_SEC;
  guint64 total = 0;
  const gchar *name;
  guint i;

  if (!d)
    goto done;
  while ((name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);
    GStatBuf st;

    if (g_stat (path, &st) || !S_ISREG (st.st_mode)) {
      g_free (path);
      continue;
    }
    if (g_str_has_suffix (name, ".tmp")) {
      if (now - (gint64) st.st_mtime > STALE_TMP_SECONDS)
        g_unlink (path);
      g_free (path);
    } else if (g_str_has_suffix (name, ".entry")) {
      Listed l = { path, (gint64) st.st_mtime, (guint64) st.st_size };

      g_array_append_val (list, l);
      total += l.size;
    } else {
      g_free (path);
    }
  }
  g_dir_close (d);
  g_array_sort (list, older_first);
  for (i = 0; i < list->len && total > bound; i++) {
    Listed *l = &g_array_index (list, Listed, i);

    if (!g_strcmp0 (l->path, keep))
      continue;
    if (!g_unlink (l->path)) {
      clr_log (CLR_LOG_DEBUG, "cache over %" G_GUINT64_FORMAT " MB: removed "
          "%s", bound >> 20, l->path);
      total -= l->size;
      COUNT (evicted);
    }
  }
done:
  for (i = 0; i < list->len; i++)
    g_free (g_array_index (list, Listed, i).path);
  g_array_free (list, TRUE);
}

static gboolean
write_all (int fd, const void *data, size_t len)
{
  const char *p = data;

  while (len) {
    ssize_t n = write (fd, p, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    p += n;
    len -= (size_t) n;
  }
  return TRUE;
}

void
clr_disk_cache_store (const char *kind, const void *key, size_t key_len,
    const void *data, size_t len)
{
  gchar *dir = clr_disk_cache_dir (), *path = NULL, *tmp = NULL;
  guint8 *bytes = NULL;
  EntryHeader h;
  size_t total;
  int fd = -1, saved;

  if (!dir)
    return;
  if (key_len + len + sizeof h + DIGEST_LEN > max_bytes ()) {
    clr_log (CLR_LOG_DEBUG, "a %s of %" G_GSIZE_FORMAT " bytes exceeds the "
        "cache's bound: not cached", kind, len);
    goto done;
  }
  if (g_mkdir_with_parents (dir, 0700)) {
    saved = errno;
    clr_log (CLR_LOG_DEBUG, "no cache: the folder %s cannot be made (%s)",
        dir, g_strerror (saved));
    COUNT (store_failures);
    goto done;
  }
  path = entry_path (dir, kind, key, key_len);
  tmp = g_strdup_printf ("%s.XXXXXX.tmp", path);
  fd = g_mkstemp_full (tmp, O_WRONLY, 0600);
  if (fd < 0) {
    saved = errno;
    clr_log (CLR_LOG_DEBUG, "no cache: cannot write in %s (%s)", dir,
        g_strerror (saved));
    COUNT (store_failures);
    g_free (tmp);
    tmp = NULL;
    goto done;
  }
  memset (&h, 0, sizeof h);
  memcpy (h.magic, ENTRY_MAGIC, sizeof h.magic);
  h.version = ENTRY_VERSION;
  h.key_len = key_len;
  h.data_len = len;
  total = sizeof h + key_len + len;
  bytes = g_malloc (total + DIGEST_LEN);
  memcpy (bytes, &h, sizeof h);
  memcpy (bytes + sizeof h, key, key_len);
  memcpy (bytes + sizeof h + key_len, data, len);
  digest (bytes, total, bytes + total);
  if (!write_all (fd, bytes, total + DIGEST_LEN))
    goto not_written;
  saved = close (fd);
  fd = -1;
  /* atomic: readers see the old entry or this one */
  if (saved || g_rename (tmp, path))
    goto not_written;
  g_free (tmp);
  tmp = NULL;
  COUNT (stores);
  evict (dir, path);
  goto done;

not_written:
  saved = errno;
  clr_log (CLR_LOG_DEBUG, "cache entry %s not written (%s)", path,
      g_strerror (saved));
  COUNT (store_failures);
done:
  if (fd >= 0)
    close (fd);
  if (tmp)
    g_unlink (tmp);
  g_free (tmp);
  g_free (bytes);
  g_free (path);
  g_free (dir);
}

typedef struct {
  gchar *kind;
  GBytes *key;
  GBytes *data;
} PendingStore;

static GMutex writer_lock;
static GCond writer_idle;
static GThreadPool *writer;
static guint writer_pending;

static void
writer_run (gpointer item, gpointer user)
{
  static gsize niced;
  PendingStore *p = item;
  gsize key_len, len;
  const void *key = g_bytes_get_data (p->key, &key_len);
  const void *data = g_bytes_get_data (p->data, &len);

  /* the hash and the write of megabytes yield to the streams' threads
   * (on two cores they shared the CPU with a live change's stream) */
  if (g_once_init_enter (&niced)) {
#ifdef SYS_gettid
    setpriority (PRIO_PROCESS, (id_t) syscall (SYS_gettid), 19);
#endif
    g_once_init_leave (&niced, 1);
  }
  clr_disk_cache_store (p->kind, key, key_len, data, len);
  g_bytes_unref (p->key);
  g_bytes_unref (p->data);
  g_free (p->kind);
  g_free (p);
  g_mutex_lock (&writer_lock);
  if (--writer_pending == 0)
    g_cond_broadcast (&writer_idle);
  g_mutex_unlock (&writer_lock);
}

void
clr_disk_cache_flush (void)
{
  g_mutex_lock (&writer_lock);
  while (writer_pending > 0)
    g_cond_wait (&writer_idle, &writer_lock);
  g_mutex_unlock (&writer_lock);
}

static void
flush_at_exit (void)
{
  clr_disk_cache_flush ();
}

void
clr_disk_cache_store_async (const char *kind, GBytes * key, GBytes * data)
{
  gchar *dir = clr_disk_cache_dir ();
  PendingStore *p;

  if (!dir) {
    g_bytes_unref (key);
    g_bytes_unref (data);
    return;
  }
  g_free (dir);
  p = g_new (PendingStore, 1);
  p->kind = g_strdup (kind);
  p->key = key;
  p->data = data;
  g_mutex_lock (&writer_lock);
  if (!writer) {
    /* one thread of its own (exclusive: GLib's shared pool threads go on
     * to serve other pools, GStreamer's streaming tasks among them, and
     * this one runs niced): entries go to disk in turn */
    writer = g_thread_pool_new (writer_run, NULL, 1, TRUE, NULL);
    atexit (flush_at_exit);
  }
  writer_pending++;
  g_mutex_unlock (&writer_lock);
  g_thread_pool_push (writer, p, NULL);
}

void
clr_disk_cache_stats (ClrDiskCacheStats * stats)
{
  g_mutex_lock (&stats_lock);
  *stats = totals;
  g_mutex_unlock (&stats_lock);
}
