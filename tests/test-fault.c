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
 * - the shim itself on plain OpenCL calls: clFinish:2 fails exactly the
 *   second clFinish, N+ every later one too, CLR_FAULT_CODE chooses the
 *   code, and CLR_FAULT_RANDOM gives the same faults for the same seed. */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <CL/cl.h>
#include <gst/gst.h>

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

/* A windowed-sinc low-pass (a quarter of the rate), Hann window */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
static void
set_lowpass (GstElement * e, guint taps)
{
  GValueArray *va = g_value_array_new (taps);
  GValue v = G_VALUE_INIT;
  guint k;

  g_value_init (&v, G_TYPE_DOUBLE);
  for (k = 0; k < taps; k++) {
    double x = k - (taps - 1) / 2.0, fc = 0.25;
    double sinc = x == 0 ? 2 * fc : sin (2 * G_PI * fc * x) / (G_PI * x);
    double w = 0.5 - 0.5 * cos (2 * G_PI * k / (taps - 1));

    g_value_set_double (&v, sinc * w);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  g_object_set (e, "kernel", va, NULL);
  g_value_array_free (va);
}

G_GNUC_END_IGNORE_DEPRECATIONS;

/* --pipelines ELEMENT N BUFFERS: N pipelines through ELEMENT
 * (clfirfilter, or clresample to 48 kHz) at once; one line a pipeline on
 * stdout, "pipeline I eos|error|timeout SHA256 BYTES"; exits 0 where every
 * pipeline ended, 2 where one did not */
static int
pipelines_main (const gchar * element, guint n, guint buffers)
{
  Stream *s = g_new0 (Stream, n);
  gint64 deadline;
  guint i, ended = 0;

  alarm (WATCHDOG_S);
  gst_init (NULL, NULL);
  for (i = 0; i < n; i++) {
    gboolean fir = !strcmp (element, "clfirfilter");
    gchar *line = g_strdup_printf ("audiotestsrc num-buffers=%u "
        "samplesperbuffer=1024 wave=sine ! "
        "audio/x-raw,format=F32LE,rate=44100,channels=2 ! %s name=e ! %s"
        "fakesink name=s sync=false signal-handoffs=true", buffers, element,
        fir ? "" : "audio/x-raw,rate=48000 ! ");
    GError *err = NULL;
    GstElement *e, *sink;

    s[i].pipeline = gst_parse_launch (line, &err);
    if (!s[i].pipeline) {
      g_printerr ("%s: %s\n", line, err->message);
      return 1;
    }
    g_free (line);
    if (fir) {
      e = gst_bin_get_by_name (GST_BIN (s[i].pipeline), "e");
      set_lowpass (e, TAPS);
      gst_object_unref (e);
    }
    sink = gst_bin_get_by_name (GST_BIN (s[i].pipeline), "s");
    s[i].sum = g_checksum_new (G_CHECKSUM_SHA256);
    g_signal_connect (sink, "handoff", G_CALLBACK (handoff), &s[i]);
    gst_object_unref (sink);
  }
  for (i = 0; i < n; i++)
    gst_element_set_state (s[i].pipeline, GST_STATE_PLAYING);

  deadline = g_get_monotonic_time () + END_TIMEOUT_S * G_TIME_SPAN_SECOND;
  for (i = 0; i < n; i++) {
    gint64 left = MAX (deadline - g_get_monotonic_time (), 0);
    GstMessage *msg =
        gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (s[i].pipeline),
        left * GST_USECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (!msg) {
      s[i].end = "timeout";
      continue;
    }
    ended++;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      s[i].end = "eos";
    } else {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("pipeline %u: error: %s\n", i, err->message);
      g_error_free (err);
      s[i].end = "error";
    }
    gst_message_unref (msg);
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

/* This program again with args, the shim preloaded and CLR_FAULT and
 * friends from extra (NAME, VALUE, ..., NULL) */
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
  /* the convolution on the device's kernels, not the host's transforms */
  env = g_environ_setenv (env, "CLRESAMPLE_CONV_HOST", "0", TRUE);
  va_start (ap, first);
  for (name = first; name; name = va_arg (ap, const gchar *))
    env = g_environ_setenv (env, name, va_arg (ap, const gchar *), TRUE);
  va_end (ap);

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

  return (gsize) (strcmp (element, "clresample") ? in :
      (in * 48000 + 44100 - 1) / 44100) * 2 * sizeof (float);
}

/* N_PIPELINES pipelines through element in a child with the shim
 * (without where !shim), CLR_FAULT as fault (none where NULL); every
 * pipeline ended and the child exited 0 */
static Child *
run_pipelines (const gchar * element, const gchar * fault, gboolean shim,
    Result * r)
{
  static gchar n[16], b[16];
  const gchar *args[] = { "--pipelines", element, n, b, NULL };
  Child *c;
  gchar **lines;
  guint i;

  g_snprintf (n, sizeof n, "%u", N_PIPELINES);
  g_snprintf (b, sizeof b, "%u", N_BUFFERS);
  c = fault ? run_child (args, "CLR_FAULT", fault, NULL)
      : shim ? run_child (args, NULL)
      : run_child (args, "LD_PRELOAD", "", NULL);
  g_test_message ("CLR_FAULT=%s:\n%s%s", fault ? fault : "", c->out, c->err);
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
    g_assert_cmpuint (k, <, N_PIPELINES);
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
  g_assert_cmpuint (r->eos + r->error, ==, N_PIPELINES);
  return c;
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
  gchar *clean = NULL;
  guint i, pass;

  if (!clean_sums)
    clean_sums = g_hash_table_new (g_str_hash, g_str_equal);
  if ((clean = g_hash_table_lookup (clean_sums, element)))
    return clean;
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
  g_hash_table_insert (clean_sums, (gpointer) element, clean);
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
 * its error, and the process ends cleanly */
static void
test_resample_lost_device (void)
{
  Result r;
  Child *c;

  if (!have_shim ())
    return;
  c = run_pipelines ("clresample", "clEnqueueNDRangeKernel:30+", TRUE, &r);
  g_assert_cmpuint (count_lines (c->err, "clr-fault: failing "), >, 1);
  g_assert_cmpuint (r.error, ==, N_PIPELINES);
  result_clear (&r);
  child_free (c);
}

int
main (int argc, char **argv)
{
  if (argc == 5 && !strcmp (argv[1], "--pipelines"))
    return pipelines_main (argv[2], atoi (argv[3]), atoi (argv[4]));
  if (argc == 2 && !strcmp (argv[1], "--shim"))
    return shim_main ();

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
  return g_test_run ();
}
