/* clresample: a cache on disk of what is slow to make and the same every
 * time (compiled OpenCL programs, designed filter banks), so that a fresh
 * process starts without making them again. GStreamer-free.
 *
 * Where: $CLRESAMPLE_CACHE_DIR, else the user's cache folder
 * ($XDG_CACHE_HOME, ~/.cache) + "/clresample". CLRESAMPLE_CACHE=0 turns it
 * off. CLRESAMPLE_CACHE_MAX_MB bounds its size (default 256); past it the
 * entries used longest ago go. The variables are read at every call.
 *
 * An entry is one file: a header, the whole key, the data and a 64-bit
 * digest (XXH64) of all of them. A load checks every part against the key it was asked for:
 * a truncated, corrupt or foreign entry, or one of another format, is
 * ignored, removed and reported in the debug log (clr-log.h), and the
 * caller makes the data anew. A store writes a temporary file beside the
 * entry and renames it over the entry, so a reader (of this process or
 * another) sees the old entry or the new one, never part of one. A folder
 * that cannot be made or written (read-only, full, a file in its place) is
 * a debug message and no cache; never an error. */
#ifndef __CLR_DISK_CACHE_H__
#define __CLR_DISK_CACHE_H__

#include <stddef.h>
#include <glib.h>

G_BEGIN_DECLS

#define CLR_DISK_CACHE_MAX_MB_DEFAULT 256u

/* The data stored under (kind, key), or NULL (no entry, a bad one, the
 * cache off). kind names the file's family, letters and '-' alone:
 * "program", "bank". */
GBytes *clr_disk_cache_load (const char *kind, const void *key,
    size_t key_len);

/* Stores data under (kind, key), replacing what was there; then removes
 * the entries used longest ago while the cache is over its size. Failures
 * are debug messages. */
void clr_disk_cache_store (const char *kind, const void *key, size_t key_len,
    const void *data, size_t len);

/* The same on the cache's own thread, taking key and data: for a caller
 * that holds locks others wait for (a design under the scheduler's kernel
 * lock), to whom hashing and writing megabytes would be a stall. Stores
 * still pending when the process exits are finished first (atexit), or
 * by clr_disk_cache_flush (). */
void clr_disk_cache_store_async (const char *kind, GBytes * key,
    GBytes * data);
/* Waits for the stores clr_disk_cache_store_async () has pending. */
void clr_disk_cache_flush (void);

/* The folder in use now, or NULL when the cache is off (free it). */
gchar *clr_disk_cache_dir (void);

/* What this process's loads and stores came to (tests, the debug log). */
typedef struct {
  guint64 hits;
  guint64 misses;               /* no entry */
  guint64 rejected;             /* an entry found bad and removed */
  guint64 stores;
  guint64 store_failures;
  guint64 evicted;
} ClrDiskCacheStats;

void clr_disk_cache_stats (ClrDiskCacheStats * stats);

G_END_DECLS
#endif
