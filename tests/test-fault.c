/* clresample: OpenCL faults injected into real pipelines (issue 47).
 *
 * Each check runs this program again as a child process with the fault
 * shim (tests/fault/clr-fault-shim.c, its path in CLR_FAULT_SHIM)
 * preloaded and told in CLR_FAULT which call to fail, over the real ICD
 * loader and PoCL: no mock of the device. The test itself runs without
 * the shim. In the child, several clfirfilter pipelines (an 8190-tap
 * filter, its convolution on the device's kernels: CLRESAMPLE_CONV_HOST=0)
 * run at once in one process, and each reports whether it ended in EOS or
 * an ERROR and a SHA-256 of its output.
 *
 * What it checks, and why:
 * - without a fault every pipeline ends in EOS, all with the same output
 *   (the shim passes calls through untouched);
 * - one failed kernel launch mid-stream: exactly one pipeline posts an
 *   ERROR, and every other one ends in EOS with output bit for bit that
 *   of the run without a fault. A fault must stay in the stream it hit;
 *   a shared device scheduler that failed or corrupted its neighbours
 *   would show here;
 * - the device lost mid-stream (every wrapped call failing from its own
 *   K-th on): every pipeline still ends, in EOS or ERROR, at least one in
 *   ERROR, and the process exits cleanly: no crash, no hang in a state
 *   change to NULL;
 * - clresample's pipelines, whose jobs share the scheduler's batches: one
 *   failed launch, flush, wait or event query fails none of them (the
 *   failed batch's jobs run again one by one), every output bit for bit
 *   that of the run without a fault; a lost device fails them all, and
 *   the process ends cleanly;
 * - on two devices (POCL_DEVICES="pthread pthread"), device 0 lost
 *   (CLR_FAULT_DEVICE=0): clresample's streams on device=auto move to
 *   device 1, each with one warning, every one ending in EOS whole,
 *   contiguous, without DISCONT and bit for bit the output without a
 *   fault (the loss at the first launch and at the drain too; on the FFT
 *   path whole and contiguous); streams on device=0 each post an error
 *   naming the device and the call within a second; streams on device=1
 *   see nothing. A stream on a lost device must neither stop where it
 *   could go on nor hang where it cannot;
 * - the shim itself on plain OpenCL calls: clFinish:2 fails exactly the
 *   second clFinish, N+ every later one too, CLR_FAULT_CODE chooses the
 *   code, and CLR_FAULT_RANDOM gives the same faults for the same seed;
 *   CLR_FAULT_DEVICE fails only the calls on its device. */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CL/cl.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include "clr-lowpass.h"

#define N_PIPELINES 16
#define N_BUFFERS 60
#define TAPS 8190
/* how long every pipeline of a child may take to end */
#define END_TIMEOUT_S 30
/* the child's own watchdog: a hang anywhere, set_state NULL included */
#define WATCHDOG_S 90

/* The faults, mid-stream: the 16 pipelines make about 2900 kernel
 * launches and 25000 clSetKernelArg calls in all here, but fewer than 200
 * calls of any function only their set-up makes (CLR_FAULT_STATS=1
 * counts them); by the 300th launch, and the 2000th call of any one
 * function, every pipeline has output */
#define ONE_FAULT "clEnqueueNDRangeKernel:300"
#define LOST_DEVICE "*:2000+"

/* ------------------------------------------------------------------ */
/* the child: pipelines */

typedef struct
{
  GstElement *pipeline;
  GChecksum *sum;
  gsize bytes;
  const gchar *end;
} Stream;

static void
handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Stream * s)
{
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_checksum_update (s->sum, map.data, map.size);
  s->bytes += map.size;
  gst_buffer_unmap (buf, &map);
}

/* How a child's pipeline ended by `deadline`: "eos", "error" (its message
 * printed after `said`) or "timeout" */
static const gchar *
wait_end (GstElement * pipeline, gint64 deadline, const gchar * said)
{
  const gint64 left = MAX (deadline - g_get_monotonic_time (), 0);
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
      left * GST_USECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  const gchar *end = "eos";

  if (!msg)
    return "timeout";
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;

    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    g_printerr ("%s%s\n", said, err->message);
    /* on one line of its own: the checks count the lines above */
    if (debug)
      g_strdelimit (debug, "\n", ' ');
    g_printerr ("  debug: %s\n", debug ? debug : "");
    g_error_free (err);
    g_free (debug);
    end = "error";
  }
  gst_message_unref (msg);
  return end;
}

/* How many calls of the OpenCL function name the shim counted so far
 * (clr_fault_calls ()); 0 without it */
static gulong
shim_calls (const gchar * name)
{
  unsigned long (*calls) (const char *) = (unsigned long (*)(const char *))
      dlsym (RTLD_DEFAULT, "clr_fault_calls");

  return calls ? calls (name) : 0;
}

/* Stream i's pipeline through element, its output summed in s */
static gboolean
pipeline_make (Stream * s, const gchar * element, guint buffers)
{
  gboolean fir = !strcmp (element, "clfirfilter");
  gchar *line = g_strdup_printf ("audiotestsrc num-buffers=%u "
      "samplesperbuffer=1024 wave=sine ! "
      "audio/x-raw,format=F32LE,rate=44100,channels=2 ! %s name=e ! %s"
      "fakesink name=s sync=false signal-handoffs=true", buffers, element,
      fir ? "" : "audio/x-raw,rate=48000 ! ");
  GError *err = NULL;
  GstElement *e, *sink;

  s->pipeline = gst_parse_launch (line, &err);
  if (!s->pipeline) {
    g_printerr ("%s: %s\n", line, err->message);
    return FALSE;
  }
  g_free (line);
  if (fir) {
    e = gst_bin_get_by_name (GST_BIN (s->pipeline), "e");
    clr_test_set_lowpass (e, TAPS);
    gst_object_unref (e);
  }
  sink = gst_bin_get_by_name (GST_BIN (s->pipeline), "s");
  s->sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_signal_connect (sink, "handoff", G_CALLBACK (handoff), s);
  gst_object_unref (sink);
  return TRUE;
}

/* --pipelines ELEMENT N BUFFERS: N pipelines through ELEMENT
 * (clfirfilter, or clresample to 48 kHz) at once; --serial the same, each
 * pipeline and its element made once the one before has ended (an element
 * added to a process whose first one played). One line a pipeline on
 * stdout, "pipeline I eos|error|timeout SHA256 BYTES" (--serial: after
 * each pipeline's end, "after pipeline I: clGetPlatformIDs CALLS", the
 * calls so far); exits 0 where every pipeline ended, 2 where one did not */
static int
pipelines_main (const gchar * element, guint n, guint buffers,
    gboolean serial)
{
  Stream *s = g_new0 (Stream, n);
  gint64 deadline = 0;
  guint i, ended = 0;

  alarm (WATCHDOG_S);
  gst_init (NULL, NULL);
  for (i = 0; i < n; i++) {
    gchar *said = g_strdup_printf ("pipeline %u: error: ", i);

    if (!pipeline_make (&s[i], element, buffers))
      return 1;
    if (serial) {
      gst_element_set_state (s[i].pipeline, GST_STATE_PLAYING);
      deadline = g_get_monotonic_time () + END_TIMEOUT_S * G_TIME_SPAN_SECOND;
      s[i].end = wait_end (s[i].pipeline, deadline, said);
      ended += strcmp (s[i].end, "timeout") != 0;
      g_print ("after pipeline %u: clGetPlatformIDs %lu\n", i,
          shim_calls ("clGetPlatformIDs"));
    }
    g_free (said);
  }
  if (!serial) {
    for (i = 0; i < n; i++)
      gst_element_set_state (s[i].pipeline, GST_STATE_PLAYING);
    deadline = g_get_monotonic_time () + END_TIMEOUT_S * G_TIME_SPAN_SECOND;
  }
  for (i = 0; i < n && !serial; i++) {
    gchar *said = g_strdup_printf ("pipeline %u: error: ", i);

    s[i].end = wait_end (s[i].pipeline, deadline, said);
    ended += strcmp (s[i].end, "timeout") != 0;
    g_free (said);
  }
  for (i = 0; i < n; i++) {
    gst_element_set_state (s[i].pipeline, GST_STATE_NULL);
    g_print ("pipeline %u %s %s %" G_GSIZE_FORMAT "\n", i, s[i].end,
        g_checksum_get_string (s[i].sum), s[i].bytes);
    gst_object_unref (s[i].pipeline);
    g_checksum_free (s[i].sum);
  }
  g_free (s);
  return ended == n ? 0 : 2;
}

/* ------------------------------------------------------------------ */
/* the child: streams a lost device moves to another device, or stops */

typedef struct
{
  GstElement *pipeline;
  GChecksum *sum;
  gsize bytes;
  /* where the next buffer must start, if contiguous */
  GstClockTime next_pts;
  guint64 next_offset;
  guint buffers, disconts, holes;
  /* posted on the bus: when the first warning (a move to another device)
   * and the error came, g_get_monotonic_time (); 0: none */
  guint warnings;
  gint64 warned_us, failed_us;
  guint before;                 /* buffers out before the first warning */
  const gchar *end;
} Watched;

static void
watch_buffer (GstElement * sink, GstBuffer * buf, GstPad * pad, Watched * w)
{
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_checksum_update (w->sum, map.data, map.size);
  w->bytes += map.size;
  gst_buffer_unmap (buf, &map);
  /* the first buffer starts the run */
  if (w->buffers > 0 && GST_BUFFER_IS_DISCONT (buf))
    w->disconts++;
  if (GST_BUFFER_PTS (buf) != w->next_pts
      || GST_BUFFER_OFFSET (buf) != w->next_offset
      || !GST_BUFFER_DURATION_IS_VALID (buf))
    w->holes++;
  w->next_pts = GST_BUFFER_PTS (buf) + GST_BUFFER_DURATION (buf);
  w->next_offset = GST_BUFFER_OFFSET_END (buf);
  w->buffers++;
}

/* On the streaming thread that posts: the time it came */
static GstBusSyncReply
watch_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  Watched *w = data;
  GError *err = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
    if (!w->warnings++) {
      w->warned_us = g_get_monotonic_time ();
      w->before = w->buffers;
    }
    gst_message_parse_warning (msg, &err, NULL);
    g_printerr ("posted warning: %s\n", err->message);
    g_error_free (err);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !w->failed_us) {
    w->failed_us = g_get_monotonic_time ();
  }
  return GST_BUS_PASS;
}

/* When the shim injected its first fault (clr_fault_first_us ()), in
 * g_get_monotonic_time ()'s clock; 0: none, or no shim */
static gint64
first_fault_us (void)
{
  long long (*first) (void) = (long long (*)(void))
      dlsym (RTLD_DEFAULT, "clr_fault_first_us");

  return first ? (gint64) first () : 0;
}

/* Milliseconds from the first fault to t (-1: t or the fault never came) */
static gdouble
since_fault_ms (gint64 t, gint64 fault)
{
  return t && fault ? (t - fault) / 1000.0 : -1.0;
}

/* --failover SPECS BUFFERS [RATE [PROPS]]: a clresample pipeline to 48
 * kHz (to RATE, with PROPS: "taps=2048") for each device spec of the
 * comma-separated SPECS (auto, 0, 1, ...), every buffer its own job
 * (max-hold=0), all at once; one line a pipeline on stdout, "stream I
 * eos|error|timeout SHA256 BYTES WARNINGS DISCONTS HOLES BEFORE SWITCH_MS
 * ERROR_MS" (HOLES: buffers not where the one before ended, in time or
 * offset; BEFORE: buffers out before the first warning; the times from
 * the first fault injected, -1: none). Exits 0 where every pipeline
 * ended, 2 where one did not. */
static int
failover_main (const gchar * list, guint buffers, guint rate,
    const gchar * props)
{
  gchar **specs = g_strsplit (list, ",", -1);
  const guint n = g_strv_length (specs);
  Watched *w = g_new0 (Watched, n);
  gint64 deadline, fault;
  guint i, ended = 0;

  alarm (WATCHDOG_S);
  gst_init (NULL, NULL);
  for (i = 0; i < n; i++) {
    gchar *line = g_strdup_printf ("audiotestsrc num-buffers=%u "
        "samplesperbuffer=1024 wave=sine ! "
        "audio/x-raw,format=F32LE,rate=44100,channels=2 ! "
        "clresample device=%s max-hold=0 %s ! audio/x-raw,rate=%u ! "
        "fakesink name=s sync=false signal-handoffs=true", buffers,
        specs[i], props, rate);
    GError *err = NULL;
    GstElement *sink;
    GstBus *bus;

    w[i].pipeline = gst_parse_launch (line, &err);
    if (!w[i].pipeline) {
      g_printerr ("%s: %s\n", line, err->message);
      return 1;
    }
    g_free (line);
    sink = gst_bin_get_by_name (GST_BIN (w[i].pipeline), "s");
    w[i].sum = g_checksum_new (G_CHECKSUM_SHA256);
    g_signal_connect (sink, "handoff", G_CALLBACK (watch_buffer), &w[i]);
    gst_object_unref (sink);
    bus = gst_element_get_bus (w[i].pipeline);
    gst_bus_set_sync_handler (bus, watch_message, &w[i], NULL);
    gst_object_unref (bus);
  }
  /* every stream set up and its first buffer through (prerolled) before
   * any plays on: a loss placed at a launch (NAME:N! past the first
   * buffers' launches) then comes mid-stream in every stream, whichever
   * thread ran first. A set-up on a lost device has its own test
   * (test_resample_failover_setup ()). */
  deadline = g_get_monotonic_time () + END_TIMEOUT_S * G_TIME_SPAN_SECOND;
  for (i = 0; i < n; i++)
    gst_element_set_state (w[i].pipeline, GST_STATE_PAUSED);
  for (i = 0; i < n; i++)
    gst_element_get_state (w[i].pipeline, NULL, NULL,
        MAX (deadline - g_get_monotonic_time (), 0) * GST_USECOND);
  for (i = 0; i < n; i++)
    gst_element_set_state (w[i].pipeline, GST_STATE_PLAYING);

  for (i = 0; i < n; i++) {
    w[i].end = wait_end (w[i].pipeline, deadline, "posted error: ");
    ended += strcmp (w[i].end, "timeout") != 0;
  }
  fault = first_fault_us ();
  for (i = 0; i < n; i++) {
    gst_element_set_state (w[i].pipeline, GST_STATE_NULL);
    g_print ("stream %u %s %s %" G_GSIZE_FORMAT " %u %u %u %u %.1f %.1f\n",
        i, w[i].end, g_checksum_get_string (w[i].sum), w[i].bytes,
        w[i].warnings, w[i].disconts, w[i].holes, w[i].before,
        since_fault_ms (w[i].warned_us, fault),
        since_fault_ms (w[i].failed_us, fault));
    gst_object_unref (w[i].pipeline);
    g_checksum_free (w[i].sum);
  }
  g_free (w);
  g_strfreev (specs);
  return ended == n ? 0 : 2;
}

/* ------------------------------------------------------------------ */
/* the child: the shim on plain OpenCL calls */

#define SHIM_FINISHES 16

/* --shim: the codes of the set-up's calls and of SHIM_FINISHES clFinish
 * calls on one queue of the default device, on one line */
static int
shim_main (void)
{
  cl_platform_id platform = NULL;
  cl_device_id device = NULL;
  cl_context ctx;
  cl_command_queue queue;
  cl_int r[4];
  guint i;

  r[0] = clGetPlatformIDs (1, &platform, NULL);
  r[1] = clGetDeviceIDs (platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, NULL);
  ctx = clCreateContext (NULL, 1, &device, NULL, NULL, &r[2]);
  queue = clCreateCommandQueue (ctx, device, 0, &r[3]);
  g_print ("setup %d %d %d %d finish", r[0], r[1], r[2], r[3]);
  for (i = 0; i < SHIM_FINISHES; i++)
    g_print (" %d", queue ? clFinish (queue) : -999);
  g_print ("\n");
  if (queue)
    clReleaseCommandQueue (queue);
  if (ctx)
    clReleaseContext (ctx);
  return 0;
}

/* --shim-devices: the codes of SHIM_FINISHES clFinish calls on a queue of
 * each of the first two devices, in turn (device 0's, device 1's, ...),
 * then clGetDeviceInfo on each, on one line */
static int
shim_devices_main (void)
{
  cl_platform_id platform = NULL;
  cl_device_id devices[2] = { NULL, NULL };
  cl_context ctx[2] = { NULL, NULL };
  cl_command_queue queue[2] = { NULL, NULL };
  cl_uint n = 0, d, i;

  clGetPlatformIDs (1, &platform, NULL);
  clGetDeviceIDs (platform, CL_DEVICE_TYPE_ALL, 2, devices, &n);
  if (n < 2) {
    g_print ("devices %u\n", n);
    return 0;
  }
  for (d = 0; d < 2; d++) {
    ctx[d] = clCreateContext (NULL, 1, &devices[d], NULL, NULL, NULL);
    queue[d] = ctx[d] ? clCreateCommandQueue (ctx[d], devices[d], 0, NULL)
        : NULL;
  }
  g_print ("finish");
  for (i = 0; i < SHIM_FINISHES; i++)
    for (d = 0; d < 2; d++)
      g_print (" %d", queue[d] ? clFinish (queue[d]) : -999);
  g_print (" info");
  for (d = 0; d < 2; d++) {
    cl_device_type type;

    g_print (" %d", clGetDeviceInfo (devices[d], CL_DEVICE_TYPE,
            sizeof type, &type, NULL));
  }
  g_print ("\n");
  for (d = 0; d < 2; d++) {
    if (queue[d])
      clReleaseCommandQueue (queue[d]);
    if (ctx[d])
      clReleaseContext (ctx[d]);
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* the test: children */

typedef struct
{
  gchar *out, *err;
  gint status;
} Child;

static void
child_free (Child * c)
{
  g_free (c->out);
  g_free (c->err);
  g_free (c);
}

/* The sanitizer's runtime where this program is built with
 * AddressSanitizer as a shared library (GCC's libasan.so, which it then
 * has loaded: found in /proc/self/maps), else NULL. It must come first in
 * a child's LD_PRELOAD, before the shim, or it refuses to start ("ASan
 * runtime does not come first in initial library list"); the sanitizer
 * pass of scripts/run-tests.sh runs this test too. */
static const gchar *
sanitizer_runtime (void)
{
#ifdef __SANITIZE_ADDRESS__
  static gchar *runtime;
  static gboolean looked;
  gchar *maps = NULL, **lines, **l;

  if (looked)
    return runtime;
  looked = TRUE;
  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (l = lines; *l && !runtime; l++) {
    const gchar *path = strchr (*l, '/');

    if (path && g_str_has_prefix (strrchr (path, '/') + 1, "libasan.so"))
      runtime = g_strdup (path);
  }
  g_strfreev (lines);
  g_free (maps);
  return runtime;
#else
  return NULL;
#endif
}

/* A folder holding the machine's ICD file of PoCL alone, for the
 * children on PoCL's two devices (POCL_DEVICES): on a GPU machine the
 * driver's platform comes first, and its device is no twin of PoCL's
 * that would give the same output. NULL where no such file is found (the
 * machine's list then). Removed at the end (main ()). */
static gchar *pocl_vendors_dir;

static const gchar *
pocl_vendors (void)
{
  static gboolean looked;
  const gchar *env = g_getenv ("OCL_ICD_VENDORS");
  const gchar *folder = env && g_file_test (env, G_FILE_TEST_IS_DIR) ? env :
      "/etc/OpenCL/vendors";
  GDir *d;
  const gchar *name;

  if (looked)
    return pocl_vendors_dir;
  looked = TRUE;
  if (!(d = g_dir_open (folder, 0, NULL)))
    return NULL;
  while (!pocl_vendors_dir && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (folder, name, NULL), *text = NULL;

    if (g_str_has_suffix (name, ".icd")
        && g_file_get_contents (path, &text, NULL, NULL)
        && strstr (text, "pocl")) {
      gchar *dir = g_dir_make_tmp ("clr-fault-icd-XXXXXX", NULL);
      gchar *copy = dir ? g_build_filename (dir, name, NULL) : NULL;

      if (copy && g_file_set_contents (copy, text, -1, NULL))
        pocl_vendors_dir = g_strdup (dir);
      g_free (copy);
      g_free (dir);
    }
    g_free (text);
    g_free (path);
  }
  g_dir_close (d);
  return pocl_vendors_dir;
}

static void
pocl_vendors_remove (void)
{
  GDir *d;
  const gchar *name;

  if (!pocl_vendors_dir || !(d = g_dir_open (pocl_vendors_dir, 0, NULL)))
    return;
  while ((name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (pocl_vendors_dir, name, NULL);

    g_unlink (path);
    g_free (path);
  }
  g_dir_close (d);
  g_rmdir (pocl_vendors_dir);
}

/* This program again with args, the shim preloaded and CLR_FAULT and
 * friends from extra (NAME, VALUE, ..., NULL), PoCL's ICD alone where
 * extra names POCL_DEVICES (pocl_vendors ()); the sanitizer's runtime
 * first in LD_PRELOAD where there is one (sanitizer_runtime ()) */
static const gchar *conv_shared = "0";

static Child *
run_child (const gchar * const *args, const gchar * first, ...)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar **env = g_get_environ ();
  GPtrArray *argv = g_ptr_array_new ();
  Child *c = g_new0 (Child, 1);
  GError *err = NULL;
  const gchar *name;
  va_list ap;

  g_assert_nonnull (self);
  env = g_environ_setenv (env, "LD_PRELOAD", g_getenv ("CLR_FAULT_SHIM"),
      TRUE);
  env = g_environ_unsetenv (env, "CLR_FAULT");
  env = g_environ_unsetenv (env, "CLR_FAULT_RANDOM");
  env = g_environ_unsetenv (env, "CLR_FAULT_SEED");
  env = g_environ_unsetenv (env, "CLR_FAULT_CODE");
  env = g_environ_unsetenv (env, "CLR_FAULT_STATS");
  env = g_environ_setenv (env, "CLR_FAULT_LOG", "1", TRUE);
  /* the convolution on the device's kernels, not the host's transforms,
   * on its own queue (as a CPU device has it) or in the scheduler's
   * batches (as GPUs have it for small blocks) as conv_shared says */
  env = g_environ_setenv (env, "CLRESAMPLE_CONV_HOST", "0", TRUE);
  env = g_environ_setenv (env, "CLRESAMPLE_CONV_SHARED", conv_shared, TRUE);
  va_start (ap, first);
  for (name = first; name; name = va_arg (ap, const gchar *))
    env = g_environ_setenv (env, name, va_arg (ap, const gchar *), TRUE);
  va_end (ap);
  if (g_environ_getenv (env, "POCL_DEVICES") && pocl_vendors ())
    env = g_environ_setenv (env, "OCL_ICD_VENDORS", pocl_vendors (), TRUE);
  if (sanitizer_runtime ()) {
    gchar *preload = g_strjoin (":", sanitizer_runtime (),
        g_environ_getenv (env, "LD_PRELOAD"), NULL);

    env = g_environ_setenv (env, "LD_PRELOAD", preload, TRUE);
    g_free (preload);
  }

  g_ptr_array_add (argv, self);
  for (; *args; args++)
    g_ptr_array_add (argv, (gpointer) * args);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, env,
          G_SPAWN_DEFAULT, NULL, NULL, &c->out, &c->err, &c->status, &err));
  g_assert_no_error (err);
  g_ptr_array_free (argv, TRUE);
  g_strfreev (env);
  g_free (self);
  return c;
}

/* How many lines of s contain needle */
static guint
count_lines (const gchar * s, const gchar * needle)
{
  gchar **lines = g_strsplit (s, "\n", -1);
  guint i, n = 0;

  for (i = 0; lines[i]; i++)
    if (strstr (lines[i], needle))
      n++;
  g_strfreev (lines);
  return n;
}

/* How many lines of s start with `start` and contain `needle` */
static guint
count_posted (const gchar * s, const gchar * start, const gchar * needle)
{
  gchar **lines = g_strsplit (s, "\n", -1);
  guint i, n = 0;

  for (i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], start) && strstr (lines[i], needle))
      n++;
  g_strfreev (lines);
  return n;
}

static void
assert_exited_0 (Child * c)
{
  /* a wait status (g_spawn_check_wait_status is GLib 2.70) */
  if (!WIFEXITED (c->status) || WEXITSTATUS (c->status) != 0)
    g_error ("the child failed (%s %d):\n%s\n%s",
        WIFEXITED (c->status) ? "exit" : "signal",
        WIFEXITED (c->status) ? WEXITSTATUS (c->status)
        : WTERMSIG (c->status), c->out, c->err);
}

typedef struct
{
  guint eos, error;
  gchar *sums[N_PIPELINES];     /* where EOS, else NULL */
} Result;

/* The bytes a pipeline through element gives: stereo F32, every frame of
 * the input's (44.1 kHz; clresample's at 48 kHz, ceil (N 48000 / 44100)) */
static gsize
expected_bytes (const gchar * element)
{
  const guint64 in = (guint64) N_BUFFERS * 1024;

  return (gsize) (!g_str_has_prefix (element, "clresample") ? in :
      (in * 48000 + 44100 - 1) / 44100) * 2 * sizeof (float);
}

/* n pipelines through element in a child with the shim (without where
 * !shim), CLR_FAULT as fault (none where NULL), all at once or, with
 * mode "--serial", one after the other, the elements' devices opened
 * ahead on threads of their own unless !prefetch; every pipeline ended
 * and the child exited 0 */
static Child *
run_some (const gchar * mode, guint n, const gchar * element,
    const gchar * fault, gboolean shim, gboolean prefetch, Result * r)
{
  gchar ns[16], b[16];
  const gchar *args[] = { mode, element, ns, b, NULL };
  Child *c;
  gchar **lines;
  guint i;

  g_assert_cmpuint (n, <=, N_PIPELINES);
  g_snprintf (ns, sizeof ns, "%u", n);
  g_snprintf (b, sizeof b, "%u", N_BUFFERS);
  if (!fault)
    fault = "";
  c = shim ? run_child (args, "CLR_FAULT", fault, "CLRESAMPLE_PREFETCH",
      prefetch ? "1" : "0", NULL)
      : run_child (args, "CLR_FAULT", fault, "CLRESAMPLE_PREFETCH",
      prefetch ? "1" : "0", "LD_PRELOAD", "", NULL);
  g_test_message ("%s, CLR_FAULT=%s:\n%s%s", mode, fault ? fault : "",
      c->out, c->err);
  assert_exited_0 (c);

  memset (r, 0, sizeof *r);
  lines = g_strsplit (c->out, "\n", -1);
  for (i = 0; lines[i]; i++) {
    guint k;
    gchar end[16], sum[65];
    gsize bytes;

    if (sscanf (lines[i], "pipeline %u %15s %64s %" G_GSIZE_FORMAT, &k, end,
            sum, &bytes) != 4)
      continue;
    g_assert_cmpuint (k, <, n);
    if (!strcmp (end, "eos")) {
      r->eos++;
      r->sums[k] = g_strdup (sum);
      g_assert_cmpuint (bytes, ==, expected_bytes (element));
    } else {
      g_assert_cmpstr (end, ==, "error");
      r->error++;
    }
  }
  g_strfreev (lines);
  g_assert_cmpuint (r->eos + r->error, ==, n);
  return c;
}

/* N_PIPELINES pipelines through element at once (run_some ()) */
static Child *
run_pipelines (const gchar * element, const gchar * fault, gboolean shim,
    Result * r)
{
  return run_some ("--pipelines", N_PIPELINES, element, fault, shim, TRUE,
      r);
}

static void
result_clear (Result * r)
{
  guint i;

  for (i = 0; i < N_PIPELINES; i++)
    g_free (r->sums[i]);
}

/* The output of every pipeline through element without a fault (they
 * are alike), with the shim and without it */
static GHashTable *clean_sums;

static const gchar *
fault_free_sum (const gchar * element)
{
  gchar *key = g_strconcat (element, " shared=", conv_shared, NULL);
  gchar *clean = NULL;
  guint i, pass;

  if (!clean_sums)
    clean_sums = g_hash_table_new (g_str_hash, g_str_equal);
  if ((clean = g_hash_table_lookup (clean_sums, key))) {
    g_free (key);
    return clean;
  }
  /* pass 0 with the shim, pass 1 without */
  for (pass = 0; pass < 2; pass++) {
    Result r;
    Child *c = run_pipelines (element, NULL, pass == 0, &r);

    g_assert_cmpuint (count_lines (c->err, "clr-fault:"), ==, 0);
    g_assert_cmpuint (r.eos, ==, N_PIPELINES);
    if (pass == 0)
      clean = g_strdup (r.sums[0]);
    for (i = 0; i < N_PIPELINES; i++)
      g_assert_cmpstr (r.sums[i], ==, clean);
    result_clear (&r);
    child_free (c);
  }
  g_hash_table_insert (clean_sums, key, clean);
  return clean;
}

static gboolean
have_shim (void)
{
  if (!g_getenv ("CLR_FAULT_SHIM")) {
    g_test_skip ("CLR_FAULT_SHIM is not set");
    return FALSE;
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* the checks */

static void
test_shim (void)
{
  const gchar *args[] = { "--shim", NULL };
  Child *c, *c2;

  if (!have_shim ())
    return;
  /* nothing told: nothing fails */
  c = run_child (args, NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "setup 0 0 0 0 finish 0 0 0 0 0 0 0 0 0 0 "
      "0 0 0 0 0 0\n");
  g_assert_cmpuint (count_lines (c->err, "clr-fault:"), ==, 0);
  child_free (c);

  /* the second clFinish alone, CL_OUT_OF_RESOURCES, logged once */
  c = run_child (args, "CLR_FAULT", "clFinish:2", NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "setup 0 0 0 0 finish 0 -5 0 0 0 0 0 0 0 0 "
      "0 0 0 0 0 0\n");
  g_assert_cmpuint (count_lines (c->err, "clr-fault:"), ==, 1);
  g_assert_cmpuint (count_lines (c->err,
          "clr-fault: failing clFinish call 2"), ==, 1);
  child_free (c);

  /* the third and every later one, with the code chosen; two of one
   * function; and a rule for another function that is never reached */
  c = run_child (args, "CLR_FAULT", "clFinish:14+,clFlush:1,clFinish:3",
      "CLR_FAULT_CODE", "-36", NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "setup 0 0 0 0 finish 0 0 -36 0 0 0 0 0 0 0 "
      "0 0 0 -36 -36 -36\n");
  g_assert_cmpuint (count_lines (c->err, "clr-fault:"), ==, 4);
  child_free (c);

  /* every function from its own second call: the set-up's are first
   * calls each */
  c = run_child (args, "CLR_FAULT", "*:2+", NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "setup 0 0 0 0 finish 0 -5 -5 -5 -5 -5 -5 -5 "
      "-5 -5 -5 -5 -5 -5 -5 -5\n");
  child_free (c);

  /* random faults: some, not all, the same ones for the same seed, and
   * others for another (seeds 2 and 11 leave the set-up alone at 0.3) */
  c = run_child (args, "CLR_FAULT_RANDOM", "0.3", "CLR_FAULT_SEED", "2",
      NULL);
  c2 = run_child (args, "CLR_FAULT_RANDOM", "0.3", "CLR_FAULT_SEED", "2",
      NULL);
  assert_exited_0 (c);
  assert_exited_0 (c2);
  g_test_message ("random, seed 2: %s", c->out);
  g_assert_cmpstr (c->out, ==, c2->out);
  g_assert_cmpstr (c->err, ==, c2->err);
  g_assert_true (g_str_has_prefix (c->out, "setup 0 0 0 0 finish "));
  g_assert_nonnull (strstr (c->out, " -5"));
  g_assert_nonnull (strstr (c->out, " 0 0"));
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing clFinish"), >,
      0);
  child_free (c2);
  c2 = run_child (args, "CLR_FAULT_RANDOM", "0.3", "CLR_FAULT_SEED", "11",
      NULL);
  assert_exited_0 (c2);
  g_test_message ("random, seed 11: %s", c2->out);
  g_assert_true (g_str_has_prefix (c2->out, "setup 0 0 0 0 finish "));
  g_assert_cmpstr (c->out, !=, c2->out);
  child_free (c);
  child_free (c2);
}

static void
test_fault_free (void)
{
  if (!have_shim ())
    return;
  g_assert_nonnull (fault_free_sum ("clfirfilter"));
  g_assert_nonnull (fault_free_sum ("clresample"));
}

static void
test_one_fault (void)
{
  const gchar *clean;
  Result r;
  Child *c;
  guint i;

  if (!have_shim ())
    return;
  /* on its own queue: the fault fails its pipeline alone */
  clean = fault_free_sum ("clfirfilter");
  c = run_pipelines ("clfirfilter", ONE_FAULT, TRUE, &r);
  /* the fault was injected, once */
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), ==, 1);
  /* it took effect in one pipeline alone */
  g_assert_cmpuint (r.error, ==, 1);
  /* and the others are untouched, bit for bit */
  for (i = 0; i < N_PIPELINES; i++)
    if (r.sums[i])
      g_assert_cmpstr (r.sums[i], ==, clean);
  result_clear (&r);
  child_free (c);

  /* in the scheduler's batches: the failed batch runs again whole, so
   * a one-off fault fails no pipeline at all */
  conv_shared = "1";
  clean = fault_free_sum ("clfirfilter");
  c = run_pipelines ("clfirfilter", ONE_FAULT, TRUE, &r);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), ==, 1);
  g_assert_cmpuint (r.eos, ==, N_PIPELINES);
  for (i = 0; i < N_PIPELINES; i++)
    g_assert_cmpstr (r.sums[i], ==, clean);
  result_clear (&r);
  child_free (c);
  conv_shared = "0";
}

static void
test_lost_device (void)
{
  const gchar *clean;
  Result r;
  Child *c;
  guint i;

  if (!have_shim ())
    return;
  clean = fault_free_sum ("clfirfilter");
  /* every pipeline ended and the child exited 0: run_pipelines */
  c = run_pipelines ("clfirfilter", LOST_DEVICE, TRUE, &r);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), >, 0);
  g_assert_cmpuint (r.error, >=, 1);
  /* any that ended in EOS did so with all its output right */
  for (i = 0; i < N_PIPELINES; i++)
    if (r.sums[i])
      g_assert_cmpstr (r.sums[i], ==, clean);
  result_clear (&r);
  child_free (c);
}

/* clresample's streams share the device's scheduler: its batches hold
 * every stream's job, so one failed launch, flush or wait used to fail
 * every stream of its batch (3 to 9 of 16). A failed batch now drains
 * the queue and runs its jobs again one by one: a transient fault fails
 * no stream, and every output is bit for bit that of the run without a
 * fault. */
static void
test_resample_one_fault (void)
{
  static const gchar *faults[] = { "clEnqueueNDRangeKernel:30",
    "clEnqueueNDRangeKernel:10", "clFlush:20", "clWaitForEvents:5",
    "clGetEventInfo:40"
  };
  const gchar *clean;
  guint f, i;

  if (!have_shim ())
    return;
  clean = fault_free_sum ("clresample");
  for (f = 0; f < G_N_ELEMENTS (faults); f++) {
    Result r;
    Child *c = run_pipelines ("clresample", faults[f], TRUE, &r);

    g_test_message ("%s: %u EOS, %u errors", faults[f], r.eos, r.error);
    g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), ==, 1);
    g_assert_cmpuint (r.error, ==, 0);
    for (i = 0; i < N_PIPELINES; i++)
      g_assert_cmpstr (r.sums[i], ==, clean);
    result_clear (&r);
    child_free (c);
  }
}

/* Every launch failing from one on (a device lost under clresample's
 * batches): the batch's jobs fail one by one too, so every stream posts
 * its error, and the process ends cleanly. The device is named: with
 * `auto` the streams would move to another device where there is one (a
 * GPU machine's CPU; /fault/resample-failover tests that). Every buffer is
 * a job of its own (max-hold=0), so a stream needs a launch a buffer and
 * none can end before the 30th: with the input gathered (0.5 s a job), a
 * stream's four jobs all went in the first 29 launches once, beside the
 * rest of the test suite, and it ended well. */
static void
test_resample_lost_device (void)
{
  Result r;
  Child *c;

  if (!have_shim ())
    return;
  g_assert_cmpuint (N_BUFFERS, >, 30);
  c = run_pipelines ("clresample device=0:0 max-hold=0",
      "clEnqueueNDRangeKernel:30+", TRUE, &r);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), >, 1);
  g_assert_cmpuint (r.error, ==, N_PIPELINES);
  /* each pipeline's error (the child's line for it, not the debug log's)
   * names the device and the call that failed its own run; the device
   * still answers (only launches fail), so it is not called lost */
  g_assert_cmpuint (count_posted (c->err, "pipeline ", "error: OpenCL "
          "resampling failed on device 0:0 '"), ==, N_PIPELINES);
  g_assert_cmpuint (count_posted (c->err, "pipeline ", " is lost"), ==, 0);
  g_assert_cmpuint (count_posted (c->err, "pipeline ", "Running a batch on the "
          "device: clEnqueueNDRangeKernel failed"), ==, N_PIPELINES);
  result_clear (&r);
  child_free (c);
}

/* An element made once another has played lists no devices anew: the
 * process's listing serves (clr-device.c, list_candidates ()). The soak
 * found a fresh listing at every acquire failing a swapped-in element on
 * one failed clGetPlatformIDs, its device open and answering. Here every
 * clGetPlatformIDs after those the first pipeline made fails (counted in
 * a run without a fault: the listing's two, the count and the platforms,
 * and before the fix as many again for each acquire): the second
 * pipeline's element, made after the first pipeline's end, plays all the
 * same, bit for bit as without a fault. Where the very first listing
 * fails there is nothing to fall back on: that element posts the error it
 * always did, naming the call, and the next element lists again and
 * plays. */
static void
test_platform_list_fault (void)
{
  const gchar *clean;
  gchar *fault;
  Result r;
  Child *c;
  gulong first = 0;

  if (!have_shim ())
    return;
  clean = fault_free_sum ("clresample");
  c = run_some ("--serial", 2, "clresample", NULL, TRUE, TRUE, &r);
  g_assert_cmpuint (r.eos, ==, 2);
  g_assert_nonnull (strstr (c->out, "after pipeline 0: clGetPlatformIDs "));
  first = strtoul (strstr (c->out, "after pipeline 0: clGetPlatformIDs ")
      + strlen ("after pipeline 0: clGetPlatformIDs "), NULL, 10);
  /* the first element listed the platforms */
  g_assert_cmpuint (first, >=, 2);
  result_clear (&r);
  child_free (c);

  fault = g_strdup_printf ("clGetPlatformIDs:%lu+", first + 1);
  c = run_some ("--serial", 2, "clresample", fault, TRUE, TRUE, &r);
  g_assert_cmpuint (r.eos, ==, 2);
  g_assert_cmpstr (r.sums[0], ==, clean);
  g_assert_cmpstr (r.sums[1], ==, clean);
  /* nothing listed again: the fault's calls never came */
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), ==, 0);
  result_clear (&r);
  child_free (c);
  g_free (fault);

  /* no device opened ahead, on a thread of its own: the element's own
   * acquire makes the first listing */
  c = run_some ("--serial", 2, "clresample", "clGetPlatformIDs:1", TRUE,
      FALSE, &r);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "
          "clGetPlatformIDs call 1"), ==, 1);
  g_assert_null (r.sums[0]);
  g_assert_cmpuint (count_posted (c->err, "pipeline 0: error: ",
          "No usable OpenCL device for clresample"), ==, 1);
  g_assert_cmpuint (count_posted (c->err, "  debug: ",
          "clGetPlatformIDs failed: CL_OUT_OF_RESOURCES (-5)"), ==, 1);
  g_assert_cmpstr (r.sums[1], ==, clean);
  result_clear (&r);
  child_free (c);
}

/* ------------------------------------------------------------------ */
/* a lost device among two: its streams move to the other, or stop */

/* PoCL's CPU driver twice: two devices that give the same results */
#define TWO_DEVICES "pthread pthread"
/* Device 0 lost at its 30th kernel launch: from there every call on it
 * fails, clGetDeviceInfo too. The streams are set up and prerolled first
 * (failover_main ()), at most one launch each; each launch runs at most
 * one buffer of a stream, so by the 30th every stream on device 0 has
 * had output and none has run its N_BUFFERS, whichever way their jobs
 * met in launches */
#define LOST_DEVICE_0 "clEnqueueNDRangeKernel:30!"
/* the longest a named device's stream may take to post its error */
#define ERROR_WITHIN_MS 1000.0
#define MAX_STREAMS 16

typedef struct
{
  gchar end[16], sum[65];
  gsize bytes;
  guint warnings, disconts, holes, before;
  gdouble switch_ms, error_ms;
} Seen;

/* --failover specs buffers rate props in a child on two devices, with
 * CLR_FAULT fault on device 0 (CLR_FAULT_DEVICE=0; no fault where NULL);
 * the child exited 0, and every stream's line is in seen[], in order */
static Child *
run_failover (const gchar * specs, guint buffers, guint rate,
    const gchar * props, const gchar * fault, Seen * seen)
{
  gchar b[16], r[16];
  const gchar *args[] = { "--failover", specs, b, r, props, NULL };
  gchar **lines, **each = g_strsplit (specs, ",", -1);
  Child *c;
  guint i, n = 0;

  g_snprintf (b, sizeof b, "%u", buffers);
  g_snprintf (r, sizeof r, "%u", rate);
  c = fault ? run_child (args, "POCL_DEVICES", TWO_DEVICES,
      "CLR_FAULT_DEVICE", "0", "CLR_FAULT", fault, NULL)
      : run_child (args, "POCL_DEVICES", TWO_DEVICES, NULL);
  g_test_message ("%s, CLR_FAULT=%s on device 0:\n%s%s", specs,
      fault ? fault : "", c->out, c->err);
  assert_exited_0 (c);
  lines = g_strsplit (c->out, "\n", -1);
  for (i = 0; lines[i]; i++) {
    Seen *x = &seen[n];
    guint k;

    if (sscanf (lines[i], "stream %u %15s %64s %" G_GSIZE_FORMAT
            " %u %u %u %u %lf %lf", &k, x->end, x->sum, &x->bytes,
            &x->warnings, &x->disconts, &x->holes, &x->before,
            &x->switch_ms, &x->error_ms) != 10)
      continue;
    g_assert_cmpuint (k, ==, n);
    n++;
    g_assert_cmpuint (n, <=, MAX_STREAMS);
  }
  g_assert_cmpuint (n, ==, g_strv_length (each));
  g_strfreev (lines);
  g_strfreev (each);
  return c;
}

/* A stream that ended in EOS with all its frames (clresample's count for
 * `buffers` buffers in at 44.1 kHz, out at rate) and output `sum`, its
 * buffers contiguous in time and offset, no DISCONT after the first */
static void
assert_whole (const Seen * x, guint buffers, guint rate, const gchar * sum)
{
  const guint64 in = (guint64) buffers * 1024;

  g_assert_cmpstr (x->end, ==, "eos");
  g_assert_cmpuint (x->bytes, ==, (in * rate + 44100 - 1) / 44100 * 2
      * sizeof (float));
  g_assert_cmpuint (x->disconts, ==, 0);
  g_assert_cmpuint (x->holes, ==, 0);
  g_assert_cmpstr (x->sum, ==, sum);
}


/* The output of a stream alone on device 0 without a fault */
static gchar *
failover_clean_sum (guint buffers, guint rate, const gchar * props)
{
  Seen seen[MAX_STREAMS];
  Child *c = run_failover ("auto", buffers, rate, props, NULL, seen);
  gchar *sum = g_strdup (seen[0].sum);

  assert_whole (&seen[0], buffers, rate, sum);
  g_assert_cmpuint (seen[0].warnings, ==, 0);
  g_assert_cmpuint (count_lines (c->err, "clr-fault:"), ==, 0);
  child_free (c);
  return sum;
}

/* Six streams on device=auto (all on device 0: auto takes the first of
 * two CPU devices) and two on device=1 while device 0 is lost: each auto
 * stream posts one warning and goes on on device 1, its failed buffer
 * run again there from the host's input; every stream ends in EOS with
 * every frame once, contiguous, no DISCONT, bit for bit the output of the
 * run without a fault (the two devices give the same results: the
 * device=1 streams show it); the device=1 streams see nothing */
static void
test_resample_failover (void)
{
  static const gchar *specs = "auto,auto,auto,auto,auto,auto,1,1";
  gchar *clean;
  Seen seen[MAX_STREAMS];
  Child *c;
  guint i, moved_mid = 0;
  gdouble slowest = 0;

  if (!have_shim ())
    return;
  clean = failover_clean_sum (N_BUFFERS, 48000, "");
  c = run_failover (specs, N_BUFFERS, 48000, "", LOST_DEVICE_0, seen);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), >, 0);
  for (i = 0; i < 8; i++) {
    assert_whole (&seen[i], N_BUFFERS, 48000, clean);
    g_assert_cmpuint (seen[i].warnings, ==, i < 6 ? 1 : 0);
    if (i < 6) {
      g_assert_cmpfloat (seen[i].switch_ms, >=, 0);
      slowest = MAX (slowest, seen[i].switch_ms);
      moved_mid += seen[i].before > 0;
    }
  }
  /* the loss came mid-stream: a stream had output before it */
  g_assert_cmpuint (moved_mid, >, 0);
  /* each warning names the lost device, the call that fails on it, and
   * the device the stream went on on */
  g_assert_cmpuint (count_posted (c->err, "posted warning: OpenCL device "
          "0:0 ", "clGetDeviceInfo (CL_DEVICE_AVAILABLE) failed"), ==, 6);
  g_assert_cmpuint (count_posted (c->err, "posted warning: ",
          "goes on on device 0:1 "), ==, 6);
  g_test_message ("moved to device 1 at most %.1f ms after the loss",
      slowest);
  child_free (c);
  g_free (clean);
}

/* Device 0 lost while a stream on device=auto is being set up (at its
 * first kernel's creation, before any output): the stream starts on
 * device 1 with one warning naming the lost device and the one it starts
 * on, and ends in EOS whole, bit for bit the run without a fault; a
 * device=1 stream beside it sees nothing. A named device's stream posts
 * an error naming the device instead. */
static void
test_resample_failover_setup (void)
{
  gchar *clean;
  Seen seen[MAX_STREAMS];
  Child *c;
  guint i;

  if (!have_shim ())
    return;
  clean = failover_clean_sum (N_BUFFERS, 48000, "");
  c = run_failover ("auto,1", N_BUFFERS, 48000, "", "clCreateKernel:1!",
      seen);
  for (i = 0; i < 2; i++) {
    assert_whole (&seen[i], N_BUFFERS, 48000, clean);
    g_assert_cmpuint (seen[i].warnings, ==, i == 0 ? 1 : 0);
  }
  g_assert_cmpuint (seen[0].before, ==, 0);
  g_assert_cmpuint (count_posted (c->err, "posted warning: OpenCL device "
          "0:0 ", "is lost: clCreateKernel failed"), ==, 1);
  g_assert_cmpuint (count_posted (c->err, "posted warning: OpenCL device "
          "0:0 ", "; the stream starts on device 0:1 "), ==, 1);
  child_free (c);

  c = run_failover ("0,1", N_BUFFERS, 48000, "", "clCreateKernel:1!", seen);
  g_assert_cmpstr (seen[0].end, ==, "error");
  g_assert_cmpuint (seen[0].bytes, ==, 0);
  assert_whole (&seen[1], N_BUFFERS, 48000, clean);
  g_assert_cmpuint (seen[1].warnings, ==, 0);
  g_assert_cmpuint (count_posted (c->err, "posted error: Could not set up "
          "OpenCL resampling 44100 -> 48000 Hz on ", "OpenCL device 0:0 "),
      ==, 1);
  child_free (c);
  g_free (clean);
}

/* A failed buffer is run again on the new device whichever it was: the
 * first launch, and the drain at EOS (20 buffers: 20 launches, one a
 * buffer, then the drain's) */
static void
test_resample_failover_edges (void)
{
  static const gchar *faults[] = { "clEnqueueNDRangeKernel:1+",
    "clEnqueueNDRangeKernel:21+"
  };
  gchar *clean;
  guint f;

  if (!have_shim ())
    return;
  clean = failover_clean_sum (20, 48000, "");
  for (f = 0; f < G_N_ELEMENTS (faults); f++) {
    Seen seen[MAX_STREAMS];
    Child *c = run_failover ("auto", 20, 48000, "", faults[f], seen);

    assert_whole (&seen[0], 20, 48000, clean);
    g_assert_cmpuint (seen[0].warnings, ==, 1);
    /* device 0 still answers (only its launches fail): the stream moves,
     * but the device is not called lost */
    g_assert_cmpuint (count_posted (c->err, "posted warning: OpenCL device "
            "0:0 ", "failed this stream's work (it still answers)"), ==, 1);
    g_assert_cmpuint (count_posted (c->err, "posted warning: ", " is lost"),
        ==, 0);
    child_free (c);
  }
  g_free (clean);
}

/* clresample's FFT path (2048 taps, 2x up: the convolution engine) moves
 * as well, its stream continued from the history on the host: every
 * frame once, contiguous. The new convolution's blocks start at the
 * history it is primed with, not where the old one's fell, so a moved
 * stream's output is the old device's within the transforms' rounding
 * (bit for bit where the move came late enough for the history to start
 * on the old grid: 4 buffers in, say), as at a live change of the device
 * property; the device=1 stream's is untouched */
static void
test_resample_failover_fft (void)
{
  gchar *clean;
  Seen seen[MAX_STREAMS];
  Child *c;
  guint i;

  if (!have_shim ())
    return;
  clean = failover_clean_sum (N_BUFFERS, 88200, "taps=2048");
  c = run_failover ("auto,auto,1", N_BUFFERS, 88200, "taps=2048",
      LOST_DEVICE_0, seen);
  for (i = 0; i < 3; i++) {
    assert_whole (&seen[i], N_BUFFERS, 88200, i < 2 ? seen[i].sum : clean);
    g_assert_cmpuint (seen[i].warnings, ==, i < 2 ? 1 : 0);
  }
  child_free (c);
  g_free (clean);
}

/* A variable ratio (rate-adjust, issue 48) moves as well: its position,
 * step and filter go with the stream (clr_engine_continue_from ()), and
 * the call that failed is finished on the new device
 * (clr_engine_process_rest (), clr_engine_drain_rest ()). At the first
 * launch, mid-stream and at the drain (20 buffers: 20 launches, then the
 * drain's), each moved stream ends in EOS with the variable ratio's count
 * (the output frames whose position m * D / 2^32 lies before the input's
 * end), contiguous, bit for bit the run without a fault; a device=1
 * stream beside them sees nothing. */
static void
test_resample_failover_variable (void)
{
  static const gchar *faults[] = { "clEnqueueNDRangeKernel:1+",
    "clEnqueueNDRangeKernel:9+", "clEnqueueNDRangeKernel:21+"
  };
  static const gchar *props = "rate-adjust=1.0001";
  const guint64 step = (guint64) llround (4294967296.0 * 44100 / (48000 *
          1.0001));
  const guint64 frames = (((guint64) 20 * 1024 << 32) + step - 1) / step;
  gchar *clean;
  Seen seen[MAX_STREAMS];
  Child *c;
  guint f;

  if (!have_shim ())
    return;
  c = run_failover ("auto", 20, 48000, props, NULL, seen);
  g_assert_cmpstr (seen[0].end, ==, "eos");
  g_assert_cmpuint (seen[0].bytes, ==, frames * 2 * sizeof (float));
  g_assert_cmpuint (seen[0].warnings, ==, 0);
  clean = g_strdup (seen[0].sum);
  child_free (c);
  for (f = 0; f < G_N_ELEMENTS (faults); f++) {
    guint i;

    c = run_failover ("auto,1", 20, 48000, props, faults[f], seen);
    for (i = 0; i < 2; i++) {
      g_assert_cmpstr (seen[i].end, ==, "eos");
      g_assert_cmpuint (seen[i].bytes, ==, frames * 2 * sizeof (float));
      g_assert_cmpuint (seen[i].disconts, ==, 0);
      g_assert_cmpuint (seen[i].holes, ==, 0);
      g_assert_cmpstr (seen[i].sum, ==, clean);
      g_assert_cmpuint (seen[i].warnings, ==, i == 0 ? 1 : 0);
    }
    child_free (c);
  }
  g_free (clean);
}

/* CLR_FAULT_DEVICE: the rules count and fail only the calls on that
 * device, its queue's and its own; all:N+ counts every call together */
static void
test_shim_device (void)
{
  const gchar *args[] = { "--shim-devices", NULL };
  Child *c;

  if (!have_shim ())
    return;
  /* the second and every later clFinish of device 1's queue, its own
   * count: device 0's run on */
  c = run_child (args, "POCL_DEVICES", TWO_DEVICES, "CLR_FAULT_DEVICE", "1",
      "CLR_FAULT", "clFinish:2+", NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "finish 0 0 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 "
      "-5 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 info 0 0\n");
  child_free (c);
  /* device 0 lost at its 5th call of any function (its context and
   * queue were the first two, then its clFinish calls): its later ones,
   * clGetDeviceInfo included, fail; device 1's calls, and the set-up's
   * clGetPlatformIDs and clGetDeviceIDs, which belong to no device, pass
   * uncounted */
  c = run_child (args, "POCL_DEVICES", TWO_DEVICES, "CLR_FAULT_DEVICE", "0",
      "CLR_FAULT", "all:5+", NULL);
  assert_exited_0 (c);
  g_assert_cmpstr (c->out, ==, "finish 0 0 0 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 "
      "0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 -5 0 info -5 0\n");
  child_free (c);
}

/* Streams on device=0, named, while it is lost: each posts its error,
 * naming the device and the call that fails, within ERROR_WITHIN_MS of
 * the loss; none moves; the process ends cleanly; the device=1 streams
 * go on untouched */
static void
test_resample_named_lost (void)
{
  static const gchar *specs = "0,0,0,0,1,1";
  gchar *clean;
  Seen seen[MAX_STREAMS];
  Child *c;
  guint i;
  gdouble slowest = 0;

  if (!have_shim ())
    return;
  clean = failover_clean_sum (N_BUFFERS, 48000, "");
  c = run_failover (specs, N_BUFFERS, 48000, "", LOST_DEVICE_0, seen);
  for (i = 0; i < 4; i++) {
    g_assert_cmpstr (seen[i].end, ==, "error");
    g_assert_cmpuint (seen[i].warnings, ==, 0);
    g_assert_cmpfloat (seen[i].error_ms, >=, 0);
    g_assert_cmpfloat (seen[i].error_ms, <, ERROR_WITHIN_MS);
    slowest = MAX (slowest, seen[i].error_ms);
  }
  for (i = 4; i < 6; i++) {
    assert_whole (&seen[i], N_BUFFERS, 48000, clean);
    g_assert_cmpuint (seen[i].warnings, ==, 0);
  }
  g_assert_cmpuint (count_posted (c->err, "posted error: OpenCL device 0:0 ",
          "clGetDeviceInfo (CL_DEVICE_AVAILABLE) failed"), ==, 4);
  g_test_message ("errors at most %.1f ms after the loss", slowest);
  child_free (c);
  g_free (clean);
}

int
main (int argc, char **argv)
{
  int rc;

  /* a child: the shim (and the sanitizer's runtime) are loaded already;
   * the programs PoCL starts (its linker, for a kernel not yet in its
   * cache) must not inherit them, or the sanitizer's runtime fails the
   * link and PoCL aborts the child */
  if (argc >= 2 && (!strcmp (argv[1], "--pipelines")
          || !strcmp (argv[1], "--serial")
          || g_str_has_prefix (argv[1], "--shim")
          || !strcmp (argv[1], "--failover")))
    g_unsetenv ("LD_PRELOAD");
  if (argc == 5 && (!strcmp (argv[1], "--pipelines")
          || !strcmp (argv[1], "--serial")))
    return pipelines_main (argv[2], atoi (argv[3]), atoi (argv[4]),
        !strcmp (argv[1], "--serial"));
  if (argc == 2 && !strcmp (argv[1], "--shim"))
    return shim_main ();
  if (argc == 2 && !strcmp (argv[1], "--shim-devices"))
    return shim_devices_main ();
  if (argc >= 4 && argc <= 6 && !strcmp (argv[1], "--failover"))
    return failover_main (argv[2], atoi (argv[3]), argc > 4 ? atoi (argv[4])
        : 48000, argc > 5 ? argv[5] : "");

  g_test_init (&argc, &argv, NULL);
  /* the registry brought up to date here, without the shim, so that the
   * children find it so and scan nothing */
  gst_init (NULL, NULL);
  g_test_add_func ("/fault/shim", test_shim);
  g_test_add_func ("/fault/fault-free", test_fault_free);
  g_test_add_func ("/fault/one-fault", test_one_fault);
  g_test_add_func ("/fault/lost-device", test_lost_device);
  g_test_add_func ("/fault/resample-one-fault", test_resample_one_fault);
  g_test_add_func ("/fault/resample-lost-device",
      test_resample_lost_device);
  g_test_add_func ("/fault/shim-device", test_shim_device);
  g_test_add_func ("/fault/platform-list-fault", test_platform_list_fault);
  g_test_add_func ("/fault/resample-failover", test_resample_failover);
  g_test_add_func ("/fault/resample-failover-setup",
      test_resample_failover_setup);
  g_test_add_func ("/fault/resample-failover-edges",
      test_resample_failover_edges);
  g_test_add_func ("/fault/resample-failover-fft",
      test_resample_failover_fft);
  g_test_add_func ("/fault/resample-named-lost", test_resample_named_lost);
  g_test_add_func ("/fault/resample-failover-variable",
      test_resample_failover_variable);
  rc = g_test_run ();
  pocl_vendors_remove ();
  g_free (pocl_vendors_dir);
  return rc;
}
