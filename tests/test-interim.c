/* A live stream does not wait for a slow device (issue 46, item 3): where
 * the device clresample is to run on is still being opened (a GPU driver
 * opens in 0.24-0.31 s), a live stream plays from its first buffer on a
 * CPU the host serves, and moves to that device once it is open, through
 * the live device change: no gap, timestamps contiguous, each side of the
 * switch bit for bit that device's own output. A stream that is not live
 * waits for the device and gives the same output on every run, and so does
 * a live one with CLRESAMPLE_STAND_IN=0.
 *
 * With no GPU here, PoCL's two CPU drivers stand for the two devices
 * (POCL_DEVICES="pthread basic"), the second listed as a GPU
 * (CLRESAMPLE_TEST_AS_GPU=0:1: it runs the GPU kernels and staging) and
 * opening slowly (CLRESAMPLE_TEST_OPEN_DELAY_MS). Each case is a process
 * of its own (this program again, --child): a device once open stays
 * open for the process.
 */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IN_RATE 44100
#define OUT_RATE 48000
#define SPB 441                 /* 10 ms buffers */
#define N_BUFFERS 300           /* 3 s: well past the open's delay */
#define OPEN_DELAY_MS "600"

typedef struct
{
  GMutex lock;
  GString *devices;             /* a line per output buffer */
  GstElement *resample;
} Probe;

static GstPadProbeReturn
on_output (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gchar *name = NULL;

  /* which device made this buffer: the element's, as it is pushed */
  g_object_get (p->resample, "device-name", &name, NULL);
  g_mutex_lock (&p->lock);
  g_string_append_printf (p->devices, "buffer %" G_GSIZE_FORMAT " %"
      G_GUINT64_FORMAT " %d %s\n", gst_buffer_get_size (buf) / (2 *
          sizeof (float)), GST_BUFFER_PTS (buf),
      GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT), name);
  g_mutex_unlock (&p->lock);
  g_free (name);
  return GST_PAD_PROBE_OK;
}

/* The plugin lists the devices and opens the CPU first, as a process
 * that played before has (the listing then says at once where each spec
 * goes) */
static void
open_cpu_first (void)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("audiotestsrc num-buffers=1 ! "
      "audio/x-raw,rate=44100 ! clresample device=0:0 ! "
      "audio/x-raw,rate=48000 ! fakesink", &err);

  g_assert_no_error (err);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_message_unref (gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p),
          GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* One pipeline through clresample device=`device` from a live source or
 * not; the output's samples to `out`, a line a buffer on stdout */
static int
child_run (const gchar * device, gboolean live, const gchar * out)
{
  gchar *line;
  GstElement *p, *sink;
  GstPad *pad;
  GError *err = NULL;
  Probe probe;
  FILE *f;
  GstSample *sample;

  open_cpu_first ();

  line = g_strdup_printf ("audiotestsrc is-live=%s wave=sine freq=997 "
      "volume=0.5 samplesperbuffer=%d num-buffers=%d ! audio/x-raw,"
      "format=F32LE,layout=interleaved,rate=%d,channels=2 ! clresample "
      "name=r device=%s ! audio/x-raw,rate=%d ! appsink name=s sync=false",
      live ? "true" : "false", SPB, N_BUFFERS, IN_RATE, device, OUT_RATE);
  p = gst_parse_launch (line, &err);
  g_assert_no_error (err);
  g_free (line);
  g_mutex_init (&probe.lock);
  probe.devices = g_string_new (NULL);
  probe.resample = gst_bin_get_by_name (GST_BIN (p), "r");
  pad = gst_element_get_static_pad (probe.resample, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_output, &probe,
      NULL);
  gst_object_unref (pad);
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  f = fopen (out, "wb");
  g_assert_nonnull (f);
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstMapInfo map;
    GstBuffer *buf = gst_sample_get_buffer (sample);

    g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_assert_cmpuint (fwrite (map.data, 1, map.size, f), ==, map.size);
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  fclose (f);
  {
    GstMessage *m = gst_bus_pop_filtered (GST_ELEMENT_BUS (p),
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    if (m) {
      GError *e = NULL;
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
        gst_message_parse_error (m, &e, NULL);
      else
        gst_message_parse_warning (m, &e, NULL);
      g_printerr ("message: %s\n", e->message);
      g_error_free (e);
      gst_message_unref (m);
      return 1;
    }
  }
  gst_element_set_state (p, GST_STATE_NULL);
  g_mutex_lock (&probe.lock);
  fputs (probe.devices->str, stdout);
  g_mutex_unlock (&probe.lock);
  g_string_free (probe.devices, TRUE);
  gst_object_unref (probe.resample);
  gst_object_unref (sink);
  gst_object_unref (p);
  return 0;
}

/* A live pipeline on "auto" stopped and freed at its first buffer, while
 * the GPU still opens: prints the ms from building the pipeline to that
 * buffer and to the pipeline freed. With quit, exit () at that buffer
 * instead, the pipeline still playing, nothing stopped or freed (as a
 * player may quit): prints the first of those. */
static int
child_first (gboolean quit)
{
  GstElement *p, *sink;
  GstSample *sample;
  GError *err = NULL;
  gint64 t0;
  double first, stopped;

  open_cpu_first ();

  t0 = g_get_monotonic_time ();
  p = gst_parse_launch ("audiotestsrc is-live=true samplesperbuffer=441 ! "
      "audio/x-raw,format=F32LE,rate=44100,channels=2 ! clresample ! "
      "audio/x-raw,rate=48000 ! appsink name=s sync=false", &err);
  g_assert_no_error (err);
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  g_assert_nonnull (sample);
  first = (g_get_monotonic_time () - t0) / 1e3;
  if (quit) {
    printf ("%.1f\n", first);
    fflush (stdout);
    exit (0);
  }
  gst_sample_unref (sample);
  gst_element_set_state (p, GST_STATE_NULL);
  stopped = (g_get_monotonic_time () - t0) / 1e3;
  gst_object_unref (sink);
  gst_object_unref (p);
  printf ("%.1f %.1f %.1f\n", first, stopped, (g_get_monotonic_time () - t0)
      / 1e3);
  return 0;
}

/* clresample put in a pipeline naming the CPU, then renamed to the slow
 * "GPU" (as an application that sets `device` after adding the element
 * does), the pipeline played 1.5 open delays later; a file's stream,
 * which waits for its device: prints the ms from PLAYING to the first
 * buffer */
static int
child_renamed (void)
{
  GstElement *p, *r, *sink;
  GstSample *sample;
  GError *err = NULL;
  gint64 t0;

  open_cpu_first ();
  p = gst_parse_launch ("audiotestsrc samplesperbuffer=441 num-buffers=50 ! "
      "audio/x-raw,format=F32LE,rate=44100,channels=2 ! clresample name=r "
      "device=0:0 ! audio/x-raw,rate=48000 ! appsink name=s sync=false",
      &err);
  g_assert_no_error (err);
  r = gst_bin_get_by_name (GST_BIN (p), "r");
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  g_object_set (r, "device", "0:1", NULL);
  g_usleep (atoi (OPEN_DELAY_MS) * 1500);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
  g_assert_nonnull (sample);
  gst_sample_unref (sample);
  printf ("%.1f\n", (g_get_monotonic_time () - t0) / 1e3);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (r);
  gst_object_unref (sink);
  gst_object_unref (p);
  return 0;
}

typedef struct
{
  gchar *out;                   /* stdout: the buffers */
  guint8 *data;                 /* the samples */
  gsize size;
} Run;

static void
run_clear (Run * r)
{
  g_free (r->out);
  g_free (r->data);
}

/* The children's environment: PoCL's two CPU drivers, the second a GPU
 * that opens slowly */
static gchar **
child_env (gboolean stand_in)
{
  gchar **env = g_get_environ ();

  env = g_environ_setenv (env, "POCL_DEVICES", "pthread basic", TRUE);
  env = g_environ_setenv (env, "CLRESAMPLE_TEST_AS_GPU", "0:1", TRUE);
  env = g_environ_setenv (env, "CLRESAMPLE_TEST_OPEN_DELAY_MS", OPEN_DELAY_MS,
      TRUE);
  return g_environ_setenv (env, "CLRESAMPLE_STAND_IN", stand_in ? "1" : "0",
      TRUE);
}

/* This program as a child: one pipeline (child_run ()) */
static void
run_case (const gchar * device, gboolean live, gboolean stand_in, Run * r)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  gchar *path = g_build_filename (g_get_tmp_dir (), "clr-interim-XXXXXX",
      NULL);
  gchar *err = NULL;
  gint status, fd = g_mkstemp (path);
  const gchar *argv[] = { self, "--child", device, live ? "live" : "file",
    path, NULL
  };
  GError *e = NULL;
  gchar **env = child_env (stand_in);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, env, G_SPAWN_DEFAULT,
          NULL, NULL, &r->out, &err, &status, &e));
  g_assert_no_error (e);
  g_test_message ("%s %s:\n%s%s", device, live ? "live" : "file", r->out,
      err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the child failed: %s", err);
  g_assert_true (g_file_get_contents (path, (gchar **) & r->data, &r->size,
          NULL));
  g_unlink (path);
  g_free (path);
  g_free (err);
  g_free (self);
  g_strfreev (env);
}

/* The buffers' lines: frames, pts, discont, device */
typedef struct
{
  guint64 frames, pts;
  gint discont;
  gchar device[256];
} Line;

static GArray *
parse_lines (const gchar * out)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (Line));
  gchar **lines = g_strsplit (out, "\n", -1);
  guint i;

  for (i = 0; lines[i]; i++) {
    Line l = { 0, };

    if (sscanf (lines[i], "buffer %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
            " %d %255[^\n]", &l.frames, &l.pts, &l.discont, l.device) == 4)
      g_array_append_val (a, l);
  }
  g_strfreev (lines);
  return a;
}

/* the frames a run of N_BUFFERS buffers gives: every input frame's */
static guint64
expected_frames (void)
{
  const guint64 in = (guint64) N_BUFFERS * SPB;

  return (in * OUT_RATE + IN_RATE - 1) / IN_RATE;
}

/* Timestamps contiguous from the first at the output rate (to the
 * nanosecond's rounding), no DISCONT past the first buffer, every frame
 * there */
static void
assert_timeline (GArray * lines, gsize bytes)
{
  guint64 frames = 0, t0;
  guint i;

  g_assert_cmpuint (lines->len, >, 0);
  t0 = g_array_index (lines, Line, 0).pts;
  for (i = 0; i < lines->len; i++) {
    const Line *l = &g_array_index (lines, Line, i);
    const guint64 due = t0 + gst_util_uint64_scale_int_round (frames,
        GST_SECOND, OUT_RATE);

    g_assert_cmpuint (l->pts + 1, >=, due);
    g_assert_cmpuint (l->pts, <=, due + 1);
    if (i > 0)
      g_assert_cmpint (l->discont, ==, 0);
    frames += l->frames;
  }
  g_assert_cmpuint (frames, ==, expected_frames ());
  g_assert_cmpuint (bytes, ==, frames * 2 * sizeof (float));
}

static Run ref_cpu, ref_gpu;
static gchar *cpu_name, *gpu_name;

/* Each device's own output, the stream not live (the "GPU" opened at the
 * element's start and waited for) */
static void
references (void)
{
  GArray *l;

  if (cpu_name)
    return;
  run_case ("0:0", FALSE, TRUE, &ref_cpu);
  run_case ("0:1", FALSE, TRUE, &ref_gpu);
  l = parse_lines (ref_cpu.out);
  assert_timeline (l, ref_cpu.size);
  cpu_name = g_strdup (g_array_index (l, Line, 0).device);
  g_array_unref (l);
  l = parse_lines (ref_gpu.out);
  assert_timeline (l, ref_gpu.size);
  gpu_name = g_strdup (g_array_index (l, Line, 0).device);
  g_array_unref (l);
  g_assert_cmpstr (cpu_name, !=, gpu_name);
  /* the two differ (the GPU kernels keep float coefficients): a switch
   * shows in the bytes */
  g_assert_cmpuint (ref_cpu.size, ==, ref_gpu.size);
  g_assert_true (memcmp (ref_cpu.data, ref_gpu.data, ref_cpu.size) != 0);
}

static void
test_live_starts_on_cpu (void)
{
  Run r;
  GArray *l;
  guint i, first_gpu = G_MAXUINT;
  guint64 frame = 0, switch_frame = 0;
  const gsize fb = 2 * sizeof (float);

  references ();
  run_case ("auto", TRUE, TRUE, &r);
  l = parse_lines (r.out);
  assert_timeline (l, r.size);
  /* the first sound from the CPU, the rest from the device asked for,
   * once it is open; no way back */
  g_assert_cmpstr (g_array_index (l, Line, 0).device, ==, cpu_name);
  for (i = 0; i < l->len; i++) {
    const Line *b = &g_array_index (l, Line, i);

    if (first_gpu == G_MAXUINT && !strcmp (b->device, gpu_name)) {
      first_gpu = i;
      switch_frame = frame;
    }
    if (first_gpu != G_MAXUINT)
      g_assert_cmpstr (b->device, ==, gpu_name);
    else
      g_assert_cmpstr (b->device, ==, cpu_name);
    frame += b->frames;
  }
  g_assert_cmpuint (first_gpu, !=, G_MAXUINT);
  g_assert_cmpuint (switch_frame, >, 0);
  g_assert_cmpuint (switch_frame, <, expected_frames ());
  g_test_message ("moved at output frame %" G_GUINT64_FORMAT " (buffer %u)",
      switch_frame, first_gpu);
  /* each side that device's own output, bit for bit */
  g_assert_cmpint (memcmp (r.data, ref_cpu.data, switch_frame * fb), ==, 0);
  g_assert_cmpint (memcmp (r.data + switch_frame * fb,
          ref_gpu.data + switch_frame * fb, r.size - switch_frame * fb), ==,
      0);
  g_array_unref (l);
  run_clear (&r);
}

/* A run on "auto" all on the device asked for, bit for bit its own
 * output */
static void
assert_all_on_gpu (gboolean live, gboolean stand_in)
{
  Run r;
  GArray *l;
  guint i;

  references ();
  run_case ("auto", live, stand_in, &r);
  l = parse_lines (r.out);
  assert_timeline (l, r.size);
  for (i = 0; i < l->len; i++)
    g_assert_cmpstr (g_array_index (l, Line, i).device, ==, gpu_name);
  g_assert_cmpuint (r.size, ==, ref_gpu.size);
  g_assert_cmpint (memcmp (r.data, ref_gpu.data, r.size), ==, 0);
  g_array_unref (l);
  run_clear (&r);
}

/* CLRESAMPLE_STAND_IN=0: the live stream waits for the device too */
static void
test_live_no_stand_in (void)
{
  assert_all_on_gpu (TRUE, FALSE);
}

static void
test_file_waits (void)
{
  assert_all_on_gpu (FALSE, TRUE);
}

/* This program as a child in mode `mode` (--child-first, --child-exit,
 * --child-renamed) beside the slow "GPU": its stdout, the times it
 * measured; `what` names them in the test's log */
static gchar *
run_timed_child (const gchar * mode, const gchar * what)
{
  gchar *self = g_file_read_link ("/proc/self/exe", NULL);
  const gchar *argv[] = { self, mode, NULL };
  gchar **env = child_env (TRUE);
  gchar *out = NULL, *err = NULL;
  GError *e = NULL;
  gint status;

  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, env, G_SPAWN_DEFAULT,
          NULL, NULL, &out, &err, &status, &e));
  g_assert_no_error (e);
  g_test_message ("%s, ms: %s%s", what, out, err);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the child failed: %s", err);
  g_free (err);
  g_free (self);
  g_strfreev (env);
  return out;
}

/* A process that stops and frees a live pipeline at its first buffer
 * (the stand-in's) and exits, while the GPU still opens: stopping the
 * element (set_state (NULL), which an application may follow with exit
 * () at once, freeing nothing) waits for the open, so that the process
 * never exits with a thread inside a driver (clr_device_prefetch_wait
 * ()). On an H100 machine such processes died in 4 of 8 runs with no
 * wait, and in 8 of 14 with the wait at finalize alone (H55:
 * AddressSanitizer saw exit () free LLVM's data under the prefetch's
 * dlopen ()). */
static void
test_stop_while_opening (void)
{
  gchar *out = run_timed_child ("--child-first",
      "first buffer, stopped and freed");
  double first, stopped, freed;

  g_assert_cmpint (sscanf (out, "%lf %lf %lf", &first, &stopped, &freed), ==,
      3);
  /* the first buffer from the stand-in, before the GPU is open */
  g_assert_cmpfloat (first, <, atof (OPEN_DELAY_MS));
  /* stopped only once the open (begun as the pipeline was built) ended */
  g_assert_cmpfloat (stopped, >=, atof (OPEN_DELAY_MS));
  g_assert_cmpfloat (freed, >=, stopped);
  g_free (out);
}

/* A process that exits at its first buffer (the stand-in's) with its
 * pipeline playing, while the GPU still opens: exit () waits for the open
 * (clr-device.c, prefetch_wait_at_exit ()), where nothing else would. A
 * process that exits with a thread inside a driver's first load has its
 * libraries' data freed under that thread (H55, see above); an application
 * may well quit without stopping its pipeline. */
static void
test_exit_while_opening (void)
{
  gint64 t0 = g_get_monotonic_time ();
  gchar *out = run_timed_child ("--child-exit", "first buffer, then exit ()");
  double first, wall = (g_get_monotonic_time () - t0) / 1e3;

  g_test_message ("the child's whole process, ms: %.1f", wall);
  g_assert_cmpint (sscanf (out, "%lf", &first), ==, 1);
  /* exit () called before the open ended */
  g_assert_cmpfloat (first, <, atof (OPEN_DELAY_MS));
  /* and the process ended only after it */
  g_assert_cmpfloat (wall, >=, atof (OPEN_DELAY_MS));
  g_free (out);
}

/* `device` set after the element joined its bin opens the device it now
 * names ahead too (gst_clr_prefetch_renamed ()): the pipeline played once
 * that device's open is over finds it open, where before it began the
 * open only as it started */
static void
test_renamed_in_bin (void)
{
  gchar *out;
  double first;
  Run warm;

  /* the device's programs compiled and kept on disk first, by a process
   * of their own: the time measured is the open's, not a cold build's */
  run_case ("0:1", FALSE, TRUE, &warm);
  run_clear (&warm);
  out = run_timed_child ("--child-renamed", "first buffer after PLAYING");
  g_assert_cmpint (sscanf (out, "%lf", &first), ==, 1);
  g_assert_cmpfloat (first, <, atof (OPEN_DELAY_MS) / 2);
  g_free (out);
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc == 2 && (!strcmp (argv[1], "--child-first")
          || !strcmp (argv[1], "--child-exit")
          || !strcmp (argv[1], "--child-renamed"))) {
    gst_init (NULL, NULL);
    ret = !strcmp (argv[1], "--child-renamed") ? child_renamed () :
        child_first (!strcmp (argv[1], "--child-exit"));
    gst_deinit ();
    return ret;
  }

  if (argc == 5 && !strcmp (argv[1], "--child")) {
    gst_init (NULL, NULL);
    ret = child_run (argv[2], !strcmp (argv[3], "live"), argv[4]);
    gst_deinit ();
    return ret;
  }
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/interim/live-starts-on-cpu", test_live_starts_on_cpu);
  g_test_add_func ("/interim/live-no-stand-in", test_live_no_stand_in);
  g_test_add_func ("/interim/file-waits", test_file_waits);
  g_test_add_func ("/interim/stop-while-opening", test_stop_while_opening);
  g_test_add_func ("/interim/exit-while-opening", test_exit_while_opening);
  g_test_add_func ("/interim/renamed-in-bin", test_renamed_in_bin);
  ret = g_test_run ();
  run_clear (&ref_cpu);
  run_clear (&ref_gpu);
  g_free (cpu_name);
  g_free (gpu_name);
  return ret;
}
