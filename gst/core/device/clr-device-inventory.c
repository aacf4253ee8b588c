/* clresample: the devices remembered across processes. See
 * clr-device-inventory.h. */
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "clr-device-inventory.h"
#include "clr-disk-cache.h"
#include "clr-log.h"

/* the entry's layout: a new one is a new key */
#define INVENTORY_FORMAT "clr-device-inventory 2"
#define INVENTORY_KIND "devices"
#define NAME_LEN 256
#define RECORD_LEN (4 + 4 + 8 + 4 + 8 + 8 + 4 + 8 + NAME_LEN)

/* what ICD loaders, drivers and the dynamic linker read from the
 * environment, and this project's fault shim */
static const char *const env_prefixes[] = {
  "OCL_", "OPENCL_", "POCL_", "CUDA_", "NVIDIA_", "__NV", "ROCR_", "HIP_",
  "GPU_", "HSA_", "ZE_", "RUSTICL_", "MESA_", "INTEL_", "LD_PRELOAD",
  "LD_LIBRARY_PATH", "CLR_FAULT", "CLRESAMPLE_NO_FP64"
};

static void
key_add (GByteArray * key, const char *tag, const void *data, gsize len)
{
  guint32 n = (guint32) len;

  g_byte_array_append (key, (const guint8 *) tag, strlen (tag) + 1);
  g_byte_array_append (key, (const guint8 *) &n, sizeof n);
  if (len)
    g_byte_array_append (key, data, (guint) len);
}

static void
key_add_string (GByteArray * key, const char *tag, const char *s)
{
  key_add (key, tag, s ? s : "", s ? strlen (s) : 0);
}

/* a file's size and time of change, or that there is none */
static void
key_add_stat (GByteArray * key, const char *tag, const char *path)
{
  GStatBuf st;
  gint64 v[2] = { -1, -1 };

  if (g_stat (path, &st) == 0) {
    v[0] = (gint64) st.st_size;
    v[1] = (gint64) st.st_mtime;
  }
  key_add_string (key, tag, path);
  key_add (key, "stat", v, sizeof v);
}

static void
key_add_file (GByteArray * key, const char *tag, const char *path)
{
  gchar *text = NULL;
  gsize len = 0;

  g_file_get_contents (path, &text, &len, NULL);
  key_add_string (key, tag, path);
  key_add (key, "text", text, text ? len : 0);
  g_free (text);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* the names in a folder, sorted, those starting with prefix (NULL: all) */
static GPtrArray *
folder_names (const char *folder, const char *prefix)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open (folder, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    if (!prefix || g_str_has_prefix (name, prefix))
      g_ptr_array_add (names, g_strdup (name));
  if (dir)
    g_dir_close (dir);
  g_ptr_array_sort (names, compare_names);
  return names;
}

/* one vendor file: its text, and the library it names where that is a
 * path (a bare name is found through the linker's cache, keyed below) */
static void
key_add_icd (GByteArray * key, const char *path)
{
  gchar *text = NULL;

  key_add_file (key, "icd", path);
  if (g_file_get_contents (path, &text, NULL, NULL)) {
    g_strstrip (text);
    if (g_path_is_absolute (text))
      key_add_stat (key, "library", text);
  }
  g_free (text);
}

static void
key_add_vendors (GByteArray * key)
{
  const char *vendors = g_getenv ("OCL_ICD_VENDORS");
  const char *folder = "/etc/OpenCL/vendors";
  GPtrArray *names;
  guint i;

  if (vendors && g_file_test (vendors, G_FILE_TEST_IS_REGULAR)) {
    key_add_icd (key, vendors);
    return;
  }
  if (vendors && g_file_test (vendors, G_FILE_TEST_IS_DIR))
    folder = vendors;
  names = folder_names (folder, NULL);
  key_add_string (key, "vendors", folder);
  for (i = 0; i < names->len; i++) {
    gchar *path = g_build_filename (folder, names->pdata[i], NULL);

    if (g_str_has_suffix (names->pdata[i], ".icd"))
      key_add_icd (key, path);
    g_free (path);
  }
  g_ptr_array_unref (names);
}

static void
key_add_environment (GByteArray * key)
{
  gchar **env = g_get_environ ();
  GPtrArray *kept = g_ptr_array_new ();
  guint i, p;

  for (i = 0; env[i]; i++)
    for (p = 0; p < G_N_ELEMENTS (env_prefixes); p++)
      if (g_str_has_prefix (env[i], env_prefixes[p])) {
        g_ptr_array_add (kept, env[i]);
        break;
      }
  g_ptr_array_sort (kept, compare_names);
  for (i = 0; i < kept->len; i++)
    key_add_string (key, "env", kept->pdata[i]);
  g_ptr_array_unref (kept);
  g_strfreev (env);
}

static void
key_add_device_nodes (GByteArray * key)
{
  GPtrArray *dri = folder_names ("/dev/dri", NULL);
  GPtrArray *dev = folder_names ("/dev", "nvidia");
  guint i;

  for (i = 0; i < dri->len; i++)
    key_add_string (key, "dri", dri->pdata[i]);
  for (i = 0; i < dev->len; i++)
    key_add_string (key, "dev", dev->pdata[i]);
  key_add_string (key, "kfd", g_file_test ("/dev/kfd", G_FILE_TEST_EXISTS) ?
      "yes" : "no");
  g_ptr_array_unref (dri);
  g_ptr_array_unref (dev);
}

static GByteArray *
inventory_key (void)
{
  GByteArray *key = g_byte_array_new ();

  key_add_string (key, "format", INVENTORY_FORMAT);
  key_add_file (key, "machine", "/etc/machine-id");
  key_add_string (key, "host", g_get_host_name ());
  key_add_stat (key, "linker", "/etc/ld.so.cache");
  key_add_vendors (key);
  key_add_device_nodes (key);
  key_add_environment (key);
  return key;
}

static void
put_u32 (GByteArray * out, guint32 v)
{
  g_byte_array_append (out, (const guint8 *) &v, sizeof v);
}

static void
put_u64 (GByteArray * out, guint64 v)
{
  g_byte_array_append (out, (const guint8 *) &v, sizeof v);
}

GArray *
clr_device_inventory_load (void)
{
  GByteArray *key = inventory_key ();
  GBytes *data = clr_disk_cache_load (INVENTORY_KIND, key->data, key->len);
  const guint8 *p;
  gsize len;
  guint32 n, i;
  GArray *out = NULL;

  g_byte_array_unref (key);
  if (!data)
    return NULL;
  p = g_bytes_get_data (data, &len);
  if (len < 4)
    goto bad;
  memcpy (&n, p, 4);
  if (n == 0 || len != 4 + (gsize) n * RECORD_LEN)
    goto bad;
  p += 4;
  out = g_array_sized_new (FALSE, TRUE, sizeof (ClrInventoryDevice), n);
  for (i = 0; i < n; i++, p += RECORD_LEN) {
    ClrInventoryDevice d = { 0, };
    guint32 u;

    memcpy (&u, p, 4);
    d.platform_index = u;
    memcpy (&u, p + 4, 4);
    d.device_index = u;
    memcpy (&d.type, p + 8, 8);
    memcpy (&u, p + 16, 4);
    d.fp64 = u != 0;
    memcpy (&d.max_alloc, p + 20, 8);
    memcpy (&d.local_mem, p + 28, 8);
    memcpy (&d.compute_units, p + 36, 4);
    memcpy (&d.max_items_z, p + 40, 8);
    memcpy (d.name, p + 48, NAME_LEN);
    d.name[NAME_LEN - 1] = '\0';
    g_array_append_val (out, d);
  }
  clr_log (CLR_LOG_DEBUG, "the OpenCL devices as listed before: %u", n);
  g_bytes_unref (data);
  return out;

bad:
  /* the cache checked the entry whole: only another writer's layout
   * under the same key (none) gets here */
  clr_log (CLR_LOG_INFO, "the cached device listing has %" G_GSIZE_FORMAT
      " bytes, not a listing: ignored", len);
  g_bytes_unref (data);
  return NULL;
}

/* whether the listing kept is devices[0..n) */
static gboolean
inventory_same (const ClrInventoryDevice * devices, guint n)
{
  GArray *kept = clr_device_inventory_load ();
  gboolean same = kept && kept->len == n;
  guint i;

  for (i = 0; same && i < n; i++) {
    const ClrInventoryDevice *a = &g_array_index (kept, ClrInventoryDevice,
        i), *b = &devices[i];

    same = a->platform_index == b->platform_index
        && a->device_index == b->device_index && a->type == b->type
        && !a->fp64 == !b->fp64 && a->max_alloc == b->max_alloc
        && a->local_mem == b->local_mem
        && a->compute_units == b->compute_units
        && a->max_items_z == b->max_items_z
        && strncmp (a->name, b->name, NAME_LEN - 1) == 0;
  }
  if (kept)
    g_array_unref (kept);
  return same;
}

void
clr_device_inventory_store (const ClrInventoryDevice * devices, guint n)
{
  GByteArray *key, *out;
  guint i;

  /* every process that lists the devices comes here: the entry is written
   * again only when it says something else */
  if (n == 0 || inventory_same (devices, n))
    return;
  out = g_byte_array_sized_new (4 + n * RECORD_LEN);
  put_u32 (out, n);
  for (i = 0; i < n; i++) {
    char name[NAME_LEN] = { 0, };

    put_u32 (out, devices[i].platform_index);
    put_u32 (out, devices[i].device_index);
    put_u64 (out, devices[i].type);
    put_u32 (out, devices[i].fp64 ? 1 : 0);
    put_u64 (out, devices[i].max_alloc);
    put_u64 (out, devices[i].local_mem);
    put_u32 (out, devices[i].compute_units);
    put_u64 (out, devices[i].max_items_z);
    g_strlcpy (name, devices[i].name, sizeof name);
    g_byte_array_append (out, (const guint8 *) name, NAME_LEN);
  }
  key = inventory_key ();
  clr_disk_cache_store_async (INVENTORY_KIND,
      g_byte_array_free_to_bytes (key), g_byte_array_free_to_bytes (out));
}
