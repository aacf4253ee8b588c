/* clresample: the cache on disk (gst/core/clr-disk-cache.h), on its own
 * and under the element.
 *
 * On its own, each check in a fresh folder: what is stored loads back
 * byte for byte, in the entry layout of clr-disk-cache.c; an entry
 * truncated, with a byte flipped (data, key, checksum), of another
 * version or magic, or another key's file under this key's name, loads as
 * nothing, is removed and reported in the debug log; a folder that cannot
 * be made or written is a debug message and a counted failure, never a
 * crash; CLRESAMPLE_CACHE=0 reads and writes nothing; past
 * CLRESAMPLE_CACHE_MAX_MB the entries used longest ago go (a load is a
 * use), and dead writers' temporary files with them; and writers in four
 * processes storing one key while another loads it: every load is the
 * whole entry, never part of one, and no temporary file stays behind.
 *
 * Under clresample, each run in a fresh process (this program again, with
 * --pipeline, so that the caches in memory do not hide the disk): the
 * output with an empty cache, with the cache it filled (the program and
 * the minimum-phase prototype from the disk), with the cache off, and
 * with every entry spoiled (replaced, and from the disk again the next
 * time) is the same bit for bit. A cache that changed a single sample, or
 * loaded a spoiled entry, would show here. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <xxhash.h>
#include "clr-disk-cache.h"
#include "clr-log.h"

/* The entry layout of clr-disk-cache.c */
#define HEADER_LEN 32
#define DIGEST_LEN 8
#define VERSION_OFFSET 8

/* ------------------------------------------------------------------ */
/* helpers */

/* A fresh, empty cache folder, made the cache's with its defaults */
static gchar *
cache_dir_new (void)
{
  GError *err = NULL;
  gchar *dir = g_dir_make_tmp ("clr-disk-cache-XXXXXX", &err);

  g_assert_no_error (err);
  g_setenv ("CLRESAMPLE_CACHE_DIR", dir, TRUE);
  g_unsetenv ("CLRESAMPLE_CACHE");
  g_unsetenv ("CLRESAMPLE_CACHE_MAX_MB");
  return dir;
}

/* The file names in dir ending in suffix, sorted */
static GPtrArray *
names_in (const gchar * dir, const gchar * suffix)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, suffix))
      g_ptr_array_add (names, g_strdup (name));
  g_dir_close (d);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  return names;
}

static guint
count_names (const gchar * dir, const gchar * suffix)
{
  GPtrArray *names = names_in (dir, suffix);
  guint n = names->len;

  g_ptr_array_unref (names);
  return n;
}

/* The entries an element's run is sure to leave in dir: its programs and
 * phase prototypes. A bank goes there only when its design took 4 ms or
 * more (CLR_DESIGN_DISK_MIN_US), which a loaded machine under the
 * sanitizers reaches in one run and not in the next: the element tests
 * leave banks out (checked by 3 of 6 runs failing under AddressSanitizer
 * when they did not). */
static GPtrArray *
element_entries (const gchar * dir)
{
  GPtrArray *names = names_in (dir, ".entry");
  guint i;

  for (i = names->len; i > 0; i--)
    if (g_str_has_prefix (g_ptr_array_index (names, i - 1), "bank-"))
      g_ptr_array_remove_index (names, i - 1);
  return names;
}

static void
cache_dir_free (gchar * dir)
{
  GPtrArray *names = names_in (dir, "");
  guint i;

  for (i = 0; i < names->len; i++) {
    gchar *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);

    g_assert_cmpint (g_unlink (path), ==, 0);
    g_free (path);
  }
  g_ptr_array_unref (names);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (dir);
  g_unsetenv ("CLRESAMPLE_CACHE_DIR");
  g_unsetenv ("CLRESAMPLE_CACHE");
  g_unsetenv ("CLRESAMPLE_CACHE_MAX_MB");
}

/* The path the cache gives (kind, key): "<kind>-<SHA-256 of key>.entry" */
static gchar *
entry_path (const gchar * dir, const gchar * kind, const void *key,
    gsize key_len)
{
  gchar *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256, key, key_len);
  gchar *name = g_strdup_printf ("%s-%s.entry", kind, hex);
  gchar *path = g_build_filename (dir, name, NULL);

  g_free (name);
  g_free (hex);
  return path;
}

static guint64
read_u64 (const guint8 * p)
{
  guint64 v;

  memcpy (&v, p, sizeof v);
  return v;
}

/* Whether the file at path is a whole, sound entry named after its own
 * key: magic, version 2, the lengths adding up to its size, the XXH64
 * (libxxhash's, seed 0, little-endian) of all before the last 8 bytes in
 * them. *key_len and *data_len (may be NULL) get its lengths. */
static gboolean
entry_sound (const gchar * path, guint64 * key_len, guint64 * data_len)
{
  gchar *contents = NULL, *base, *want;
  gsize len = 0;
  guint32 version;
  guint64 kl, dl;
  gboolean ok;

  if (!g_file_get_contents (path, &contents, &len, NULL))
    return FALSE;
  ok = len >= HEADER_LEN + DIGEST_LEN && !memcmp (contents, "CLRCACHE", 8);
  if (ok) {
    memcpy (&version, contents + VERSION_OFFSET, sizeof version);
    kl = read_u64 ((const guint8 *) contents + 16);
    dl = read_u64 ((const guint8 *) contents + 24);
    ok = version == 2 && kl < len && dl < len
        && HEADER_LEN + kl + dl + DIGEST_LEN == len;
  }
  if (ok) {
    ok = XXH64 (contents, len - DIGEST_LEN, 0) ==
        GUINT64_FROM_LE (read_u64 ((const guint8 *) contents + len -
            DIGEST_LEN));
  }
  if (ok) {
    /* its name: its kind and its key's SHA-256 */
    gchar *hex = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
        (const guchar *) contents + HEADER_LEN, kl);

    base = g_path_get_basename (path);
    want = g_strdup_printf ("-%s.entry", hex);
    ok = g_str_has_suffix (base, want);
    g_free (want);
    g_free (base);
    g_free (hex);
    if (key_len)
      *key_len = kl;
    if (data_len)
      *data_len = dl;
  }
  g_free (contents);
  return ok;
}

/* Deterministic bytes, distinct for each seed */
static GBytes *
pattern (gsize len, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint8 *p = g_malloc (len);
  gsize i;

  for (i = 0; i < len; i++)
    p[i] = (guint8) g_rand_int (rand);
  g_rand_free (rand);
  return g_bytes_new_take (p, len);
}

static void
store_bytes (const gchar * kind, const gchar * key, GBytes * data)
{
  clr_disk_cache_store (kind, key, strlen (key), g_bytes_get_data (data,
          NULL), g_bytes_get_size (data));
}

static GBytes *
load_key (const gchar * kind, const gchar * key)
{
  return clr_disk_cache_load (kind, key, strlen (key));
}

static ClrDiskCacheStats
stats_now (void)
{
  ClrDiskCacheStats s;

  clr_disk_cache_stats (&s);
  return s;
}

/* the path's mtime set `age` seconds back */
static void
set_age (const gchar * path, gint64 age)
{
  struct timespec ts[2];

  ts[0].tv_sec = ts[1].tv_sec = time (NULL) - age;
  ts[0].tv_nsec = ts[1].tv_nsec = 0;
  g_assert_cmpint (utimensat (AT_FDCWD, path, ts, 0), ==, 0);
}

static GStatBuf
stat_of (const gchar * path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st;
}

/* The messages of the core's log, captured */
static GMutex log_lock;
static GPtrArray *logged;

static void
capture (ClrLogLevel level, const char *message)
{
  g_mutex_lock (&log_lock);
  g_ptr_array_add (logged, g_strdup_printf ("%d %s", (int) level, message));
  g_mutex_unlock (&log_lock);
}

static void
log_capture_start (void)
{
  logged = g_ptr_array_new_with_free_func (g_free);
  clr_log_set_func (capture);
}

static void
log_capture_stop (void)
{
  clr_log_set_func (NULL);
  g_ptr_array_unref (logged);
  logged = NULL;
}

/* Whether a debug message holding both a and b was logged */
static gboolean
logged_debug (const gchar * a, const gchar * b)
{
  gchar *prefix = g_strdup_printf ("%d ", (int) CLR_LOG_DEBUG);
  gboolean found = FALSE;
  guint i;

  g_mutex_lock (&log_lock);
  for (i = 0; i < logged->len && !found; i++) {
    const gchar *m = g_ptr_array_index (logged, i);

    found = g_str_has_prefix (m, prefix) && strstr (m, a) && strstr (m, b);
  }
  g_mutex_unlock (&log_lock);
  g_free (prefix);
  return found;
}

static guint64
entries_total (const gchar * dir)
{
  GPtrArray *names = names_in (dir, ".entry");
  guint64 total = 0;
  guint i;

  for (i = 0; i < names->len; i++) {
    gchar *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);

    total += (guint64) stat_of (path).st_size;
    g_free (path);
  }
  g_ptr_array_unref (names);
  return total;
}

static void
assert_no_tmp (const gchar * dir)
{
  GPtrArray *tmp = names_in (dir, ".tmp");

  if (tmp->len)
    g_error ("%u temporary files left in %s, the first %s", tmp->len, dir,
        (const gchar *) g_ptr_array_index (tmp, 0));
  g_ptr_array_unref (tmp);
}

/* ------------------------------------------------------------------ */
/* the cache on its own */

static void
test_round_trip (void)
{
  gchar *dir = cache_dir_new (), *path, *contents = NULL, *cache_dir;
  const gchar *key = "round-trip key";
  GBytes *data = pattern (5000, 1), *other = pattern (7000, 2), *got;
  ClrDiskCacheStats s0 = stats_now (), s;
  guint64 kl = 0, dl = 0;
  gsize len;

  cache_dir = clr_disk_cache_dir ();
  g_assert_cmpstr (cache_dir, ==, dir);
  g_free (cache_dir);
  g_assert_null (load_key ("test", key));
  s = stats_now ();
  g_assert_cmpuint (s.misses - s0.misses, ==, 1);

  store_bytes ("test", key, data);
  path = entry_path (dir, "test", key, strlen (key));
  g_assert_true (entry_sound (path, &kl, &dl));
  g_assert_cmpuint (kl, ==, strlen (key));
  g_assert_cmpuint (dl, ==, 5000);
  /* the key itself after the header, the data after the key */
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, HEADER_LEN + strlen (key) + 5000 + DIGEST_LEN);
  g_assert_cmpmem (contents + HEADER_LEN, strlen (key), key, strlen (key));
  g_assert_cmpmem (contents + HEADER_LEN + strlen (key), 5000,
      g_bytes_get_data (data, NULL), 5000);
  g_free (contents);

  got = load_key ("test", key);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data));
  g_bytes_unref (got);
  /* another kind of the same key is another entry */
  g_assert_null (load_key ("other", key));
  s = stats_now ();
  g_assert_cmpuint (s.stores - s0.stores, ==, 1);
  g_assert_cmpuint (s.hits - s0.hits, ==, 1);
  g_assert_cmpuint (s.misses - s0.misses, ==, 2);
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 0);
  g_assert_cmpuint (s.store_failures - s0.store_failures, ==, 0);

  /* a store replaces */
  store_bytes ("test", key, other);
  got = load_key ("test", key);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, other));
  g_bytes_unref (got);

  /* nothing is data too */
  clr_disk_cache_store ("test", "empty", 5, "", 0);
  got = load_key ("test", "empty");
  g_assert_nonnull (got);
  g_assert_cmpuint (g_bytes_get_size (got), ==, 0);
  g_bytes_unref (got);

  s = stats_now ();
  g_assert_cmpuint (s.stores - s0.stores, ==, 3);
  g_assert_cmpuint (s.hits - s0.hits, ==, 3);
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 0);
  g_assert_cmpuint (s.evicted - s0.evicted, ==, 0);
  assert_no_tmp (dir);
  g_assert_cmpuint (count_names (dir, ""), ==, 2);

  g_free (path);
  g_bytes_unref (data);
  g_bytes_unref (other);
  cache_dir_free (dir);
}

typedef enum {
  TRUNCATED_FEW,
  TRUNCATED_10,
  FLIPPED_DATA,
  FLIPPED_KEY,
  FLIPPED_SUM,
  OTHER_VERSION,
  NO_MAGIC,
} Spoil;

typedef struct {
  const gchar *name;
  Spoil spoil;
  const gchar *reason;          /* in the log's message */
} SpoilCase;

static const SpoilCase spoil_cases[] = {
  {"truncated-few", TRUNCATED_FEW, "truncated"},
  {"truncated-10", TRUNCATED_10, "truncated"},
  {"flipped-data", FLIPPED_DATA, "corrupt"},
  {"flipped-key", FLIPPED_KEY, "corrupt"},
  {"flipped-checksum", FLIPPED_SUM, "corrupt"},
  {"other-version", OTHER_VERSION, "another format"},
  {"no-magic", NO_MAGIC, "not a cache entry"},
};

/* An entry spoiled on disk: the load gives nothing, counts it rejected,
 * removes the file and says why; a new store takes its place */
static void
test_rejected (gconstpointer p)
{
  const SpoilCase *c = p;
  gchar *dir = cache_dir_new (), *path, *contents = NULL;
  const gchar *key = "the key of an entry to spoil";
  const gsize key_len = strlen (key);
  GBytes *data = pattern (3000, 3), *got;
  ClrDiskCacheStats s0, s;
  gsize len;
  guint32 version = 3;

  store_bytes ("spoil", key, data);
  path = entry_path (dir, "spoil", key, key_len);
  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  g_assert_cmpuint (len, ==, HEADER_LEN + key_len + 3000 + DIGEST_LEN);
  switch (c->spoil) {
    case TRUNCATED_FEW:
      len -= 3;
      break;
    case TRUNCATED_10:
      len = 10;
      break;
    case FLIPPED_DATA:
      contents[HEADER_LEN + key_len + 1500] ^= 0x01;
      break;
    case FLIPPED_KEY:
      contents[HEADER_LEN + 4] ^= 0x20;
      break;
    case FLIPPED_SUM:
      contents[len - 7] ^= 0x80;
      break;
    case OTHER_VERSION:
      memcpy (contents + VERSION_OFFSET, &version, sizeof version);
      break;
    case NO_MAGIC:
      contents[0] = 'X';
      break;
  }
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  g_free (contents);

  s0 = stats_now ();
  log_capture_start ();
  g_assert_null (load_key ("spoil", key));
  g_assert_true (logged_debug (path, c->reason));
  log_capture_stop ();
  s = stats_now ();
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 1);
  g_assert_cmpuint (s.hits - s0.hits, ==, 0);
  g_assert_cmpuint (s.misses - s0.misses, ==, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* gone: the next load is a plain miss, a store makes it anew */
  g_assert_null (load_key ("spoil", key));
  store_bytes ("spoil", key, data);
  got = load_key ("spoil", key);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data));
  g_bytes_unref (got);
  s = stats_now ();
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 1);
  g_assert_cmpuint (s.misses - s0.misses, ==, 1);
  g_assert_cmpuint (s.hits - s0.hits, ==, 1);

  g_free (path);
  g_bytes_unref (data);
  cache_dir_free (dir);
}

/* Key A's sound entry under key B's name: B's load refuses it (the key in
 * the entry is not B) and removes it; A's own entry stays */
static void
test_another_key (void)
{
  gchar *dir = cache_dir_new (), *path_a, *path_b, *contents = NULL;
  const gchar *key_a = "key A", *key_b = "key B";
  GBytes *data_a = pattern (2000, 4), *data_b = pattern (2000, 5), *got;
  ClrDiskCacheStats s0, s;
  gsize len;

  store_bytes ("swap", key_a, data_a);
  store_bytes ("swap", key_b, data_b);
  path_a = entry_path (dir, "swap", key_a, strlen (key_a));
  path_b = entry_path (dir, "swap", key_b, strlen (key_b));
  g_assert_true (g_file_get_contents (path_a, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path_b, contents, len, NULL));
  g_free (contents);
  /* byte for byte A's sound entry: only the key in it tells it from B's */
  g_assert_true (entry_sound (path_a, NULL, NULL));

  s0 = stats_now ();
  log_capture_start ();
  g_assert_null (load_key ("swap", key_b));
  g_assert_true (logged_debug (path_b, "another key's"));
  log_capture_stop ();
  s = stats_now ();
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 1);
  g_assert_false (g_file_test (path_b, G_FILE_TEST_EXISTS));

  got = load_key ("swap", key_a);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data_a));
  g_bytes_unref (got);

  g_free (path_a);
  g_free (path_b);
  g_bytes_unref (data_a);
  g_bytes_unref (data_b);
  cache_dir_free (dir);
}

/* A store into `dir` that must fail: no crash, a counted failure, the
 * debug message `why` naming the folder, nothing to load */
static void
assert_store_fails (const gchar * dir, const gchar * why)
{
  GBytes *data = pattern (1000, 6);
  ClrDiskCacheStats s0 = stats_now (), s;

  g_setenv ("CLRESAMPLE_CACHE_DIR", dir, TRUE);
  log_capture_start ();
  store_bytes ("nowhere", "a key", data);
  g_assert_true (logged_debug (dir, why));
  log_capture_stop ();
  g_assert_null (load_key ("nowhere", "a key"));
  s = stats_now ();
  g_assert_cmpuint (s.store_failures - s0.store_failures, ==, 1);
  g_assert_cmpuint (s.stores - s0.stores, ==, 0);
  g_assert_cmpuint (s.hits - s0.hits, ==, 0);
  g_bytes_unref (data);
}

static void
test_unwritable (void)
{
  gchar *dir = cache_dir_new ();
  gchar *file = g_build_filename (dir, "not-a-folder", NULL);
  gchar *contents = NULL;

  /* a file where the folder should be */
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  assert_store_fails (file, "cannot be made");
  g_assert_true (g_file_get_contents (file, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "x");
  g_free (contents);
  g_free (file);
  /* a folder that cannot be made, even by root */
  assert_store_fails ("/proc/clr-no-such/x", "cannot be made");
  g_assert_false (g_file_test ("/proc/clr-no-such", G_FILE_TEST_EXISTS));
  /* a folder there, that cannot be written, even by root */
  assert_store_fails ("/proc", "cannot write in");
  cache_dir_free (dir);
}

static void
test_off (void)
{
  static const gchar *offs[] = { "0", "off", "no" };
  gchar *dir = cache_dir_new ();
  GBytes *data = pattern (1000, 7), *got;
  ClrDiskCacheStats s0, s;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (offs); i++) {
    g_setenv ("CLRESAMPLE_CACHE", offs[i], TRUE);
    g_assert_null (clr_disk_cache_dir ());
    s0 = stats_now ();
    store_bytes ("off", "a key", data);
    g_assert_null (load_key ("off", "a key"));
    s = stats_now ();
    g_assert_cmpmem (&s, sizeof s, &s0, sizeof s0);
    g_assert_cmpuint (count_names (dir, ""), ==, 0);
  }
  /* on again, the same folder is the cache's */
  g_setenv ("CLRESAMPLE_CACHE", "1", TRUE);
  store_bytes ("off", "a key", data);
  g_assert_cmpuint (count_names (dir, ".entry"), ==, 1);
  got = load_key ("off", "a key");
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data));
  g_bytes_unref (got);
  g_bytes_unref (data);
  cache_dir_free (dir);
}

#define EVICT_LEN (400 * 1024)

/* CLRESAMPLE_CACHE_MAX_MB=1 and entries of 400 KiB: the third store
 * removes the one used longest ago; a load counts as a use */
static void
test_eviction (void)
{
  gchar *dir = cache_dir_new ();
  gchar *path[5], *old_tmp, *new_tmp;
  GBytes *data[4], *got;
  ClrDiskCacheStats s0 = stats_now (), s;
  const gchar *keys[] = { "evict A", "evict B", "evict C", "evict D",
    "too large"
  };
  guint i;

  g_setenv ("CLRESAMPLE_CACHE_MAX_MB", "1", TRUE);
  for (i = 0; i < 5; i++)
    path[i] = entry_path (dir, "evict", keys[i], strlen (keys[i]));
  for (i = 0; i < 4; i++)
    data[i] = pattern (EVICT_LEN, 10 + i);
  /* a dead writer's temporary file, and a live one's */
  old_tmp = g_build_filename (dir, "evict-dead.entry.AAAAAA.tmp", NULL);
  new_tmp = g_build_filename (dir, "evict-live.entry.BBBBBB.tmp", NULL);
  g_assert_true (g_file_set_contents (old_tmp, "partial", 7, NULL));
  g_assert_true (g_file_set_contents (new_tmp, "partial", 7, NULL));
  set_age (old_tmp, 3600);

  store_bytes ("evict", keys[0], data[0]);
  set_age (path[0], 3600);
  g_assert_false (g_file_test (old_tmp, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (new_tmp, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_unlink (new_tmp), ==, 0);
  store_bytes ("evict", keys[1], data[1]);
  set_age (path[1], 1800);
  s = stats_now ();
  g_assert_cmpuint (s.evicted - s0.evicted, ==, 0);
  g_assert_true (g_file_test (path[0], G_FILE_TEST_EXISTS));

  log_capture_start ();
  store_bytes ("evict", keys[2], data[2]);
  g_assert_true (logged_debug ("cache over 1 MB: removed", path[0]));
  log_capture_stop ();
  s = stats_now ();
  g_assert_cmpuint (s.evicted - s0.evicted, ==, 1);
  g_assert_false (g_file_test (path[0], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[1], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[2], G_FILE_TEST_EXISTS));
  g_assert_cmpuint (entries_total (dir), <=, 1 << 20);

  /* B, the older, loaded: now C is the one used longest ago */
  got = load_key ("evict", keys[1]);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data[1]));
  g_bytes_unref (got);
  g_assert_cmpint (stat_of (path[1]).st_mtime, >=, time (NULL) - 60);
  set_age (path[2], 600);
  store_bytes ("evict", keys[3], data[3]);
  s = stats_now ();
  g_assert_cmpuint (s.evicted - s0.evicted, ==, 2);
  g_assert_false (g_file_test (path[2], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[1], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[3], G_FILE_TEST_EXISTS));
  g_assert_cmpuint (entries_total (dir), <=, 1 << 20);

  /* one entry over the bound is not stored, and evicts nothing */
  {
    GBytes *large = pattern (3 * EVICT_LEN, 20);

    log_capture_start ();
    store_bytes ("evict", keys[4], large);
    g_assert_true (logged_debug ("exceeds the cache's bound", "evict"));
    log_capture_stop ();
    g_bytes_unref (large);
  }
  s = stats_now ();
  g_assert_cmpuint (s.stores - s0.stores, ==, 4);
  g_assert_cmpuint (s.evicted - s0.evicted, ==, 2);
  g_assert_false (g_file_test (path[4], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[1], G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (path[3], G_FILE_TEST_EXISTS));
  assert_no_tmp (dir);

  for (i = 0; i < 5; i++)
    g_free (path[i]);
  for (i = 0; i < 4; i++)
    g_bytes_unref (data[i]);
  g_free (old_tmp);
  g_free (new_tmp);
  cache_dir_free (dir);
}

#define WRITERS 4
#define WRITES 200
#define SHARED_LEN (300 * 1024)

/* WRITERS processes store one key WRITES times each while this one loads
 * it: each load is nothing (before the first store) or the whole entry */
static void
test_concurrent (void)
{
  gchar *dir = cache_dir_new ();
  const gchar *key = "one key, many writers";
  GBytes *data = pattern (SHARED_LEN, 30), *got;
  ClrDiskCacheStats s0 = stats_now (), s;
  pid_t pids[WRITERS];
  guint i, running = WRITERS, loads = 0, hits = 0, wrong = 0;
  int status;

  for (i = 0; i < WRITERS; i++) {
    pids[i] = fork ();
    g_assert_cmpint (pids[i], >=, 0);
    if (pids[i] == 0) {
      ClrDiskCacheStats c0 = stats_now (), c;
      guint n;

      for (n = 0; n < WRITES; n++)
        store_bytes ("shared", key, data);
      c = stats_now ();
      _exit (c.stores - c0.stores == WRITES
          && c.store_failures == c0.store_failures ? 0 : 3);
    }
  }
  while (running) {
    got = load_key ("shared", key);
    loads++;
    if (got) {
      hits++;
      if (!g_bytes_equal (got, data))
        wrong++;
      g_bytes_unref (got);
    }
    for (i = 0; i < WRITERS; i++)
      if (pids[i] > 0 && waitpid (pids[i], &status, WNOHANG) == pids[i]) {
        g_assert_true (WIFEXITED (status));
        g_assert_cmpint (WEXITSTATUS (status), ==, 0);
        pids[i] = 0;
        running--;
      }
  }
  got = load_key ("shared", key);
  g_assert_nonnull (got);
  g_assert_true (g_bytes_equal (got, data));
  g_bytes_unref (got);
  g_test_message ("%u loads while writing, %u of them hits", loads, hits);
  g_assert_cmpuint (wrong, ==, 0);
  s = stats_now ();
  g_assert_cmpuint (s.rejected - s0.rejected, ==, 0);
  g_assert_cmpuint (s.hits - s0.hits, ==, hits + 1);
  assert_no_tmp (dir);
  g_assert_cmpuint (count_names (dir, ".entry"), ==, 1);
  g_bytes_unref (data);
  cache_dir_free (dir);
}

/* ------------------------------------------------------------------ */
/* under the element, in fresh processes */

#define PIPELINE \
  "audiotestsrc num-buffers=20 samplesperbuffer=1024 wave=sine freq=997 ! " \
  "audio/x-raw,format=F32LE,rate=44100,channels=2 ! " \
  "clresample quality=10 phase=%s ! audio/x-raw,rate=48000 ! " \
  "filesink location=\"%s\""

/* --pipeline PHASE FILE: the pipeline's output into FILE */
static int
pipeline_main (const gchar * phase, const gchar * out)
{
  gchar *line = g_strdup_printf (PIPELINE, phase, out);
  GError *err = NULL;
  GstElement *p;
  GstMessage *msg;
  int ret = 1;

  gst_init (NULL, NULL);
  p = gst_parse_launch (line, &err);
  if (!p) {
    g_printerr ("%s: %s\n", line, err->message);
    return 1;
  }
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
    ret = 0;
  else if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("error: %s\n", err->message);
    g_error_free (err);
  } else {
    g_printerr ("no EOS in 60 s\n");
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (line);
  return ret;
}

/* The pipeline's output in a fresh process, the cache in dir (off where
 * `off`); *log (free it) gets the process's clresample-engine log */
static GBytes *
run_pipeline (const gchar * dir, const gchar * phase, gboolean off,
    gchar ** log)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *out = g_build_filename (g_get_tmp_dir (), "clr-disk-cache-out-XXXXXX",
      NULL);
  gchar **env = g_get_environ ();
  gchar *argv[5];
  gchar *contents = NULL, *stdout_text = NULL;
  GError *err = NULL;
  gsize len = 0;
  gint status, fd;

  fd = g_mkstemp (out);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  env = g_environ_setenv (env, "CLRESAMPLE_CACHE_DIR", dir, TRUE);
  env = off ? g_environ_setenv (env, "CLRESAMPLE_CACHE", "0", TRUE)
      : g_environ_unsetenv (env, "CLRESAMPLE_CACHE");
  env = g_environ_unsetenv (env, "CLRESAMPLE_CACHE_MAX_MB");
  env = g_environ_setenv (env, "GST_DEBUG", "clresample-engine:5", TRUE);
  env = g_environ_setenv (env, "GST_DEBUG_NO_COLOR", "1", TRUE);
  env = g_environ_unsetenv (env, "GST_DEBUG_FILE");
  argv[0] = self;
  argv[1] = (gchar *) "--pipeline";
  argv[2] = (gchar *) phase;
  argv[3] = out;
  argv[4] = NULL;
  g_assert_nonnull (self);
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &stdout_text, log, &status, &err));
  g_assert_no_error (err);
  /* a wait status (g_spawn_check_wait_status is GLib 2.70) */
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the pipeline's process failed:\n%s", *log);
  g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
  g_assert_cmpint (g_unlink (out), ==, 0);
  g_free (stdout_text);
  g_strfreev (env);
  g_free (out);
  g_free (self);
  return g_bytes_new_take (contents, len);
}

/* Sane output of the pipeline: whole stereo F32 frames, the 20480 input
 * frames' worth of them at 48 kHz, the sine in them */
static void
assert_output_sane (GBytes * out)
{
  gsize len;
  const float *x = g_bytes_get_data (out, &len);
  float peak = 0.0f;
  gsize i;

  g_assert_cmpuint (len % 8, ==, 0);
  g_assert_cmpuint (len / 8, >=, 20480 * 48000 / 44100 - 1024);
  g_assert_cmpuint (len / 8, <=, 20480 * 48000 / 44100 + 1024);
  for (i = 0; i < len / 4; i++)
    peak = MAX (peak, ABS (x[i]));
  g_assert_cmpfloat (peak, >, 0.5f);
}

/* What an entry of the cache was before a run */
typedef struct {
  gchar *path;
  guint64 ino;
} Before;

/* The folder's entries, their mtimes set an hour back, so that a run's
 * loads (which touch them) show */
static GPtrArray *
entries_aged (const gchar * dir)
{
  GPtrArray *names = element_entries (dir);
  GPtrArray *list = g_ptr_array_new ();
  guint i;

  for (i = 0; i < names->len; i++) {
    Before *b = g_new0 (Before, 1);

    b->path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
    set_age (b->path, 3600);
    b->ino = (guint64) stat_of (b->path).st_ino;
    g_ptr_array_add (list, b);
  }
  g_ptr_array_unref (names);
  return list;
}

/* After a run: the same entries, the same files (not written again), each
 * loaded (touched) or each untouched */
static void
assert_entries_kept (const gchar * dir, GPtrArray * before, gboolean loaded)
{
  const gint64 now = time (NULL);
  guint i;

  GPtrArray *now_there = element_entries (dir);

  g_assert_cmpuint (now_there->len, ==, before->len);
  g_ptr_array_unref (now_there);
  for (i = 0; i < before->len; i++) {
    Before *b = g_ptr_array_index (before, i);
    GStatBuf st = stat_of (b->path);

    g_assert_cmpuint ((guint64) st.st_ino, ==, b->ino);
    if (loaded)
      g_assert_cmpint (st.st_mtime, >=, now - 300);
    else
      g_assert_cmpint (st.st_mtime, <=, now - 3000);
    g_assert_true (entry_sound (b->path, NULL, NULL));
  }
  assert_no_tmp (dir);
}

static void
before_free (GPtrArray * before)
{
  guint i;

  for (i = 0; i < before->len; i++) {
    Before *b = g_ptr_array_index (before, i);

    g_free (b->path);
    g_free (b);
  }
  g_ptr_array_unref (before);
}

/* The number of entries of this kind in dir, every entry sound */
static guint
count_sound (const gchar * dir, const gchar * prefix)
{
  GPtrArray *names = names_in (dir, ".entry");
  guint i, n = 0;

  for (i = 0; i < names->len; i++) {
    const gchar *name = g_ptr_array_index (names, i);
    gchar *path = g_build_filename (dir, name, NULL);

    g_assert_true (entry_sound (path, NULL, NULL));
    if (g_str_has_prefix (name, prefix))
      n++;
    g_free (path);
  }
  g_ptr_array_unref (names);
  return n;
}

#define FROM_CACHE "') from the cache in "

/* A further run over the cache in dir, its entries aged first: the output
 * o1's bit for bit; with the cache on, every entry loaded and the program
 * read from it; with it off (`off`), no entry touched and no program read.
 * Returns the number of entries there were. */
static guint
assert_rerun (const gchar * dir, const gchar * phase, gboolean off,
    GBytes * o1)
{
  GPtrArray *before = entries_aged (dir);
  const guint n = before->len;
  gchar *log = NULL;
  GBytes *o = run_pipeline (dir, phase, off, &log);

  g_assert_true (g_bytes_equal (o, o1));
  if (off)
    g_assert_null (strstr (log, FROM_CACHE));
  else
    g_assert_nonnull (strstr (log, FROM_CACHE));
  g_free (log);
  g_bytes_unref (o);
  assert_entries_kept (dir, before, !off);
  before_free (before);
  return n;
}

static void
test_element_minimum (void)
{
  gchar *dir = cache_dir_new (), *log = NULL;
  GBytes *o1, *o;
  GPtrArray *names;
  guint i;

  /* (a) an empty cache: filled with the program and the prototype */
  o1 = run_pipeline (dir, "minimum", FALSE, &log);
  assert_output_sane (o1);
  g_assert_null (strstr (log, FROM_CACHE));
  g_free (log);
  g_assert_cmpuint (count_sound (dir, "phase-"), ==, 1);
  g_assert_cmpuint (count_sound (dir, "program-"), ==, 1);
  assert_no_tmp (dir);

  /* (b) the cache it filled: the same output, every entry loaded */
  assert_rerun (dir, "minimum", FALSE, o1);

  /* (c) the cache off: the same output, the folder untouched */
  assert_rerun (dir, "minimum", TRUE, o1);

  /* (d) a byte flipped in the middle of every entry: the same output,
   * every entry refused and made anew */
  names = element_entries (dir);
  for (i = 0; i < names->len; i++) {
    gchar *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
    gchar *contents = NULL;
    gsize len;

    g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
    contents[len / 2] ^= 0x10;
    g_assert_true (g_file_set_contents (path, contents, len, NULL));
    g_assert_false (entry_sound (path, NULL, NULL));
    g_free (contents);
    g_free (path);
  }
  o = run_pipeline (dir, "minimum", FALSE, &log);
  g_assert_true (g_bytes_equal (o, o1));
  g_assert_null (strstr (log, FROM_CACHE));
  for (i = 0; i < names->len; i++) {
    gchar *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
    gchar *said = g_strdup_printf ("cache entry %s is corrupt", path);

    if (!strstr (log, said))
      g_error ("not in the log: %s\n%s", said, log);
    /* made anew: there again, sound */
    g_assert_true (entry_sound (path, NULL, NULL));
    g_free (said);
    g_free (path);
  }
  g_free (log);
  g_bytes_unref (o);
  g_assert_cmpuint (count_sound (dir, "phase-"), ==, 1);
  g_assert_cmpuint (count_sound (dir, "program-"), ==, 1);
  assert_no_tmp (dir);

  /* (e) the entries made anew are loaded again */
  g_assert_cmpuint (assert_rerun (dir, "minimum", FALSE, o1), ==,
      names->len);

  g_ptr_array_unref (names);
  g_bytes_unref (o1);
  cache_dir_free (dir);
}

static void
test_element_intermediate (void)
{
  gchar *dir = cache_dir_new (), *log = NULL;
  GBytes *o1;

  o1 = run_pipeline (dir, "intermediate", FALSE, &log);
  assert_output_sane (o1);
  g_assert_null (strstr (log, FROM_CACHE));
  g_free (log);
  g_assert_cmpuint (count_sound (dir, "phase-"), ==, 1);
  g_assert_cmpuint (count_sound (dir, "program-"), ==, 1);

  assert_rerun (dir, "intermediate", FALSE, o1);
  assert_rerun (dir, "intermediate", TRUE, o1);

  g_bytes_unref (o1);
  cache_dir_free (dir);
}

int
main (int argc, char **argv)
{
  guint i;

  if (argc == 4 && !strcmp (argv[1], "--pipeline"))
    return pipeline_main (argv[2], argv[3]);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/disk-cache/round-trip", test_round_trip);
  for (i = 0; i < G_N_ELEMENTS (spoil_cases); i++) {
    gchar *name = g_strdup_printf ("/disk-cache/rejected/%s",
        spoil_cases[i].name);

    g_test_add_data_func (name, &spoil_cases[i], test_rejected);
    g_free (name);
  }
  g_test_add_func ("/disk-cache/another-key", test_another_key);
  g_test_add_func ("/disk-cache/unwritable", test_unwritable);
  g_test_add_func ("/disk-cache/off", test_off);
  g_test_add_func ("/disk-cache/eviction", test_eviction);
  g_test_add_func ("/disk-cache/concurrent", test_concurrent);
  g_test_add_func ("/disk-cache/element/minimum", test_element_minimum);
  g_test_add_func ("/disk-cache/element/intermediate",
      test_element_intermediate);
  return g_test_run ();
}
