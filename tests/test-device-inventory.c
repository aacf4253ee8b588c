/* clresample: the device listing kept across processes
 * (gst/core/device/clr-device-inventory.h) under the convolution
 * elements, each run a fresh process (this program again, with --child),
 * the cache in a folder of the test's own, device=cpu.
 *
 * What it checks, and why:
 * - a first run lists the devices (the OpenCL driver loaded) and keeps
 *   the listing; the next run of clfirfilter, and of clcrossover, loads
 *   no driver at all (no library a vendor file names is mapped in the
 *   process) and gives the same output bit for bit: the start the listing
 *   saves must not change a sample;
 * - with the cache off, with the entry spoiled (a byte flipped: refused,
 *   listed again, kept again) and under another key (POCL_DEVICES set:
 *   a variable drivers read) the driver loads, and the output is still
 *   the same; the run after the spoiled one finds the entry sound again;
 * - where a kernel is needed after all, the described device opens: a
 *   clresample after the clfirfilter in one process (the same output as
 *   with the cache off), and CLRESAMPLE_CONV_HOST=0 (the convolution on
 *   the device's kernels) both load the driver and end in EOS.
 * On a machine without a CPU device (an NVIDIA-only GPU machine) the
 * checks are skipped: device=cpu names nothing there. */
#define _GNU_SOURCE
#include <link.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#define SOURCE \
  "audiotestsrc num-buffers=30 samplesperbuffer=1000 wave=sine freq=997 ! " \
  "audio/x-raw,format=F32LE,rate=48000,channels=2 ! "

/* ------------------------------------------------------------------ */
/* the child: one pipeline, its output into a file, and how many OpenCL
 * drivers it mapped */

static GPtrArray *
driver_names (void)
{
  const gchar *vendors = g_getenv ("OCL_ICD_VENDORS");
  const gchar *folder = vendors && g_file_test (vendors, G_FILE_TEST_IS_DIR)
      ? vendors : "/etc/OpenCL/vendors";
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GDir *dir = g_dir_open (folder, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir))) {
    gchar *path = g_build_filename (folder, name, NULL), *text = NULL;

    if (g_str_has_suffix (name, ".icd")
        && g_file_get_contents (path, &text, NULL, NULL))
      g_ptr_array_add (names, g_path_get_basename (g_strstrip (text)));
    g_free (text);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  return names;
}

typedef struct {
  GPtrArray *names;
  guint mapped;
} DriverCount;

static int
count_driver (struct dl_phdr_info *info, size_t size, void *data)
{
  DriverCount *d = data;
  gchar *base;
  guint i;

  if (!info->dlpi_name || !*info->dlpi_name)
    return 0;
  base = g_path_get_basename (info->dlpi_name);
  for (i = 0; i < d->names->len; i++)
    if (!strcmp (base, g_ptr_array_index (d->names, i)))
      d->mapped++;
  g_free (base);
  return 0;
}

/* --child DESC FILE: SOURCE DESC ! filesink FILE; prints "drivers N" */
static int
child_main (const gchar * desc, const gchar * out)
{
  gchar *line = g_strdup_printf (SOURCE "%s ! filesink location=\"%s\"",
      desc, out);
  DriverCount d = { NULL, 0 };
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
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    ret = 0;
  } else if (msg) {
    gst_message_parse_error (msg, &err, NULL);
    g_print ("error %s\n", err->message);
    g_error_free (err);
    ret = 0;
  } else {
    g_printerr ("no EOS in 60 s\n");
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  d.names = driver_names ();
  dl_iterate_phdr (count_driver, &d);
  g_print ("drivers %u\n", d.mapped);
  g_ptr_array_unref (d.names);
  g_free (line);
  return ret;
}

/* ------------------------------------------------------------------ */
/* the parent */

typedef struct {
  GBytes *out;                  /* NULL where the pipeline posted an error */
  gchar *error;
  gchar *log;                   /* the process's clresample-engine log */
  guint drivers;
} Run;

static gchar *ir_wav;

static void
run_clear (Run * r)
{
  if (r->out)
    g_bytes_unref (r->out);
  g_free (r->error);
  g_free (r->log);
}

/* DESC in a fresh process over the cache in dir; extra: NULL-ended pairs
 * of variables to set ("CLRESAMPLE_CACHE", "0", ...) */
static Run
run_child (const gchar * dir, const gchar * desc, const gchar * const *extra)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *out = g_build_filename (g_get_tmp_dir (), "clr-inventory-XXXXXX",
      NULL);
  gchar **env = g_get_environ ();
  gchar *argv[5], *text = NULL, *errs = NULL, *contents = NULL;
  const gchar *line;
  GError *err = NULL;
  Run r = { NULL, NULL, NULL, 0 };
  gsize len = 0;
  gint status, fd;

  fd = g_mkstemp (out);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  env = g_environ_setenv (env, "CLRESAMPLE_CACHE_DIR", dir, TRUE);
  env = g_environ_unsetenv (env, "CLRESAMPLE_CACHE");
  env = g_environ_unsetenv (env, "CLRESAMPLE_CONV_HOST");
  env = g_environ_unsetenv (env, "CLRESAMPLE_RESAMPLE_HOST");
  env = g_environ_unsetenv (env, "POCL_DEVICES");
  env = g_environ_setenv (env, "GST_DEBUG", "clresample-engine:4", TRUE);
  env = g_environ_setenv (env, "GST_DEBUG_NO_COLOR", "1", TRUE);
  env = g_environ_unsetenv (env, "GST_DEBUG_FILE");
  for (; extra && extra[0]; extra += 2)
    env = g_environ_setenv (env, extra[0], extra[1], TRUE);
  argv[0] = self;
  argv[1] = (gchar *) "--child";
  argv[2] = (gchar *) desc;
  argv[3] = out;
  argv[4] = NULL;
  g_assert_true (g_spawn_sync (NULL, argv, env, G_SPAWN_DEFAULT, NULL, NULL,
          &text, &errs, &status, &err));
  g_assert_no_error (err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the pipeline's process failed:\n%s", errs);
  line = strstr (text, "drivers ");
  g_assert_nonnull (line);
  r.drivers = (guint) g_ascii_strtoull (line + 8, NULL, 10);
  if ((line = strstr (text, "error ")))
    r.error = g_strndup (line + 6, strcspn (line + 6, "\n"));
  else if (g_file_get_contents (out, &contents, &len, NULL))
    r.out = g_bytes_new_take (contents, len);
  g_unlink (out);
  g_test_message ("%s: %u driver(s) mapped, %s", desc, r.drivers, r.error ?
      r.error : "EOS");
  r.log = errs;
  g_free (text);
  g_strfreev (env);
  g_free (out);
  g_free (self);
  return r;
}

static gchar *
cache_dir_new (void)
{
  GError *err = NULL;
  gchar *dir = g_dir_make_tmp ("clr-inventory-XXXXXX", &err);

  g_assert_no_error (err);
  return dir;
}

static void
cache_dir_free (gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);

    g_unlink (path);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
}

/* the devices entry of dir's cache (free it), NULL if none */
static gchar *
devices_entry (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  gchar *path = NULL;

  while (d && !path && (name = g_dir_read_name (d)))
    if (g_str_has_prefix (name, "devices-") && g_str_has_suffix (name,
            ".entry"))
      path = g_build_filename (dir, name, NULL);
  if (d)
    g_dir_close (d);
  return path;
}

static gchar *
fir_desc (void)
{
  return g_strdup_printf ("clfirfilter device=cpu location=\"%s\"", ir_wav);
}

/* A first run in dir that lists the devices: FALSE (the test skipped)
 * where device=cpu names no device here */
static gboolean
first_run (const gchar * dir, const gchar * desc, Run * r)
{
  gchar *entry;

  *r = run_child (dir, desc, NULL);
  if (r->error && strstr (r->error, "No usable OpenCL device")) {
    g_test_skip ("no CPU OpenCL device here");
    return FALSE;
  }
  g_assert_null (r->error);
  g_assert_cmpuint (r->drivers, >, 0);
  entry = devices_entry (dir);
  g_assert_nonnull (entry);
  g_free (entry);
  return TRUE;
}

static void
test_unopened (void)
{
  gchar *dir = cache_dir_new (), *fir = fir_desc ();
  const gchar *off[] = { "CLRESAMPLE_CACHE", "0", NULL };
  const gchar *xo = "clcrossover device=cpu";
  Run first, again, r_off;

  if (!first_run (dir, fir, &first))
    goto out;
  again = run_child (dir, fir, NULL);
  g_assert_null (again.error);
  g_assert_cmpuint (again.drivers, ==, 0);
  g_assert_true (g_bytes_equal (again.out, first.out));
  run_clear (&again);

  r_off = run_child (dir, xo, off);
  g_assert_null (r_off.error);
  g_assert_cmpuint (r_off.drivers, >, 0);
  again = run_child (dir, xo, NULL);
  g_assert_null (again.error);
  g_assert_cmpuint (again.drivers, ==, 0);
  g_assert_true (g_bytes_equal (again.out, r_off.out));
  run_clear (&again);
  run_clear (&r_off);
  run_clear (&first);
out:
  g_free (fir);
  cache_dir_free (dir);
}

static void
test_spoiled_and_keys (void)
{
  gchar *dir = cache_dir_new (), *fir = fir_desc (), *entry, *data = NULL;
  const gchar *off[] = { "CLRESAMPLE_CACHE", "0", NULL };
  const gchar *pocl[] = { "POCL_DEVICES", "pthread", NULL };
  gsize len = 0;
  Run first, r;

  if (!first_run (dir, fir, &first))
    goto out;
  /* off: listed (nothing read), the same output */
  r = run_child (dir, fir, off);
  g_assert_cmpuint (r.drivers, >, 0);
  g_assert_true (g_bytes_equal (r.out, first.out));
  run_clear (&r);

  /* a byte of the listing flipped: refused, listed again, kept again */
  entry = devices_entry (dir);
  g_assert_true (g_file_get_contents (entry, &data, &len, NULL));
  g_assert_cmpuint (len, >, 200);
  data[len - 40] ^= 0x10;
  g_assert_true (g_file_set_contents (entry, data, len, NULL));
  r = run_child (dir, fir, NULL);
  g_assert_cmpuint (r.drivers, >, 0);
  g_assert_true (g_bytes_equal (r.out, first.out));
  run_clear (&r);
  r = run_child (dir, fir, NULL);
  g_assert_cmpuint (r.drivers, ==, 0);
  g_assert_true (g_bytes_equal (r.out, first.out));
  run_clear (&r);

  /* another key: listed under it, then kept under it */
  r = run_child (dir, fir, pocl);
  if (r.error && strstr (r.error, "No usable OpenCL device")) {
    /* not PoCL: its CPU device is not there under POCL_DEVICES */
    run_clear (&r);
    goto done;
  }
  g_assert_cmpuint (r.drivers, >, 0);
  g_assert_true (g_bytes_equal (r.out, first.out));
  run_clear (&r);
  r = run_child (dir, fir, pocl);
  g_assert_cmpuint (r.drivers, ==, 0);
  g_assert_true (g_bytes_equal (r.out, first.out));
  run_clear (&r);
done:
  g_free (entry);
  g_free (data);
  run_clear (&first);
out:
  g_free (fir);
  cache_dir_free (dir);
}

static void
test_opened_when_needed (void)
{
  gchar *dir = cache_dir_new (), *fir = fir_desc (), *chain;
  const gchar *off[] = { "CLRESAMPLE_CACHE", "0", NULL };
  const gchar *kernels[] = { "CLRESAMPLE_CONV_HOST", "0", NULL };
  /* no prefetch: the resampler's would list the devices before the
   * filter starts */
  const gchar *no_prefetch[] = { "CLRESAMPLE_PREFETCH", "0", NULL };
  const gchar *resampler_kernels[] = { "CLRESAMPLE_PREFETCH", "0",
    "CLRESAMPLE_RESAMPLE_HOST", "0", NULL
  };
  Run first, r, r_off;

  if (!first_run (dir, fir, &first))
    goto out;
  /* the resampler before the filter, in one process: its sums on the
   * host too, nothing opened; on its kernels (CLRESAMPLE_RESAMPLE_HOST=0)
   * the filter starts first (downstream first), its device described,
   * then opened by the resampler's acquire. The output is the same to
   * the bit all three ways (the host's sums are the kernels' own). */
  chain = g_strdup_printf ("clresample device=cpu ! audio/x-raw,rate=96000 "
      "! %s", fir);
  r_off = run_child (dir, chain, off);
  g_assert_null (r_off.error);
  r = run_child (dir, chain, no_prefetch);
  g_assert_null (r.error);
  g_assert_cmpuint (r.drivers, ==, 0);
  g_assert_true (g_bytes_equal (r.out, r_off.out));
  run_clear (&r);
  r = run_child (dir, chain, resampler_kernels);
  g_assert_null (r.error);
  g_assert_cmpuint (r.drivers, >, 0);
  g_assert_nonnull (strstr (r.log, "served by the host, opened only if"));
  g_assert_nonnull (strstr (r.log, "opened OpenCL device"));
  g_assert_true (g_bytes_equal (r.out, r_off.out));
  run_clear (&r);
  run_clear (&r_off);
  g_free (chain);

  /* the convolution on the device's kernels: opened for them */
  r = run_child (dir, fir, kernels);
  g_assert_null (r.error);
  g_assert_cmpuint (r.drivers, >, 0);
  g_assert_cmpuint (g_bytes_get_size (r.out), ==,
      g_bytes_get_size (first.out));
  run_clear (&r);
  run_clear (&first);
out:
  g_free (fir);
  cache_dir_free (dir);
}

/* an 8190-tap white-noise filter as a WAV file (the same for every run
 * of the test) */
static gchar *
write_ir (void)
{
  gchar *path = g_build_filename (g_get_tmp_dir (), "clr-inventory-ir-XXXXXX",
      NULL), *line;
  GError *err = NULL;
  GstElement *p;
  GstMessage *msg;
  gint fd = g_mkstemp (path);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  line = g_strdup_printf ("audiotestsrc num-buffers=1 samplesperbuffer=8190 "
      "wave=white-noise volume=0.05 ! audio/x-raw,format=F32LE,rate=48000,"
      "channels=1 ! wavenc ! filesink location=\"%s\"", path);
  p = gst_parse_launch (line, &err);
  g_assert_no_error (err);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_true (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (line);
  return path;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc == 4 && !strcmp (argv[1], "--child"))
    return child_main (argv[2], argv[3]);
  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  ir_wav = write_ir ();
  g_test_add_func ("/inventory/unopened", test_unopened);
  g_test_add_func ("/inventory/spoiled-and-keys", test_spoiled_and_keys);
  g_test_add_func ("/inventory/opened-when-needed", test_opened_when_needed);
  ret = g_test_run ();
  g_unlink (ir_wav);
  g_free (ir_wav);
  return ret;
}
