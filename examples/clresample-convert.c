/* clresample-convert: convert an audio file to a WAV file at another sample
 * rate, resampling with the clresample element on an OpenCL device.
 *
 * Pipeline:
 *   uridecodebin ! audioconvert ! clresample ! audio/x-raw,rate=HZ
 *       ! audioconvert ! audio/x-raw,format=FMT ! wavenc ! filesink
 *
 * Exit status: 0 done, 1 runtime error, 2 bad arguments, 130 stopped early
 * by Ctrl-C (the output then holds what was converted so far).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <signal.h>
#include <string.h>

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

#define DEFAULT_RATE 192000
#define DEFAULT_QUALITY 4
#define PROGRESS_INTERVAL_MS 500

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  GstElement *inconv;           /* audioconvert in front of clresample */
  GstElement *resampler;

  gboolean show_progress;
  gboolean progress_shown;
  gboolean failed;
  gint interrupted;             /* SIGINTs seen */
  gint linked_audio;            /* atomic: set from a streaming thread */

  /* Written by the pad probe on clresample's sink pad (streaming thread),
   * read after the pipeline has reached EOS or been shut down. */
  gint probe_rate;
  gint probe_bpf;
  guint64 in_frames;

  /* Read at EOS, while clresample still runs: it drops its device and its
   * negotiated caps when it stops. */
  gchar *device_name;
  gint in_rate;
  gint in_channels;
  gint out_rate;
} App;

/* Which package provides each element, for the "missing element" hint. */
static const struct
{
  const gchar *factory;
  const gchar *package;
} element_packages[] = {
  {"uridecodebin", "gstreamer1.0-plugins-base"},
  {"audioconvert", "gstreamer1.0-plugins-base"},
  {"capsfilter", "libgstreamer1.0-0 (GStreamer core)"},
  {"wavenc", "gstreamer1.0-plugins-good"},
  {"filesink", "libgstreamer1.0-0 (GStreamer core)"},
};

static GstElement *
make_element (const gchar * factory, const gchar * name)
{
  GstElement *e;
  guint i;

  e = gst_element_factory_make (factory, name);
  if (e)
    return e;

  if (strcmp (factory, "clresample") == 0) {
    g_printerr ("error: GStreamer element 'clresample' not found.\n"
        "Set GST_PLUGIN_PATH to the build/gst folder of the clresample "
        "build tree (e.g. GST_PLUGIN_PATH=$PWD/build/gst) or run "
        "'meson install'.\n"
        "If it is set, 'gst-inspect-1.0 clresample' shows why the plugin "
        "did not load.\n");
    return NULL;
  }
  for (i = 0; i < G_N_ELEMENTS (element_packages); i++) {
    if (strcmp (factory, element_packages[i].factory) == 0) {
      g_printerr ("error: GStreamer element '%s' not found; install %s.\n",
          factory, element_packages[i].package);
      return NULL;
    }
  }
  g_printerr ("error: GStreamer element '%s' not found.\n", factory);
  return NULL;
}

static void
print_error_message (GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;
  gchar *src;

  gst_message_parse_error (msg, &err, &debug);
  src = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  g_printerr ("error: %s\n", err->message);
  g_printerr ("  from: %s\n", src);
  g_printerr ("  debug: %s\n", debug ? debug : "(none)");
  g_free (src);
  g_free (debug);
  g_error_free (err);
}

static void
print_warning_message (GstMessage * msg)
{
  GError *err = NULL;
  gchar *debug = NULL;

  gst_message_parse_warning (msg, &err, &debug);
  g_printerr ("warning: %s\n  debug: %s\n", err->message,
      debug ? debug : "(none)");
  g_free (debug);
  g_error_free (err);
}

/* Ends the \r progress line so that later messages start on their own. */
static void
end_progress_line (App * app)
{
  if (app->progress_shown) {
    g_printerr ("\n");
    app->progress_shown = FALSE;
  }
}

static void
post_app_error (GstElement * from, GQuark domain, gint code,
    const gchar * text, const gchar * debug)
{
  GError *err = g_error_new_literal (domain, code, text);

  gst_element_post_message (from,
      gst_message_new_error (GST_OBJECT (from), err, debug));
  g_error_free (err);
}

static void
on_pad_added (GstElement * decoder, GstPad * pad, App * app)
{
  GstCaps *caps;
  const gchar *media;
  GstPad *sinkpad;
  GstPadLinkReturn ret;

  caps = gst_pad_get_current_caps (pad);
  if (!caps)
    caps = gst_pad_query_caps (pad, NULL);
  if (gst_caps_is_empty (caps) || gst_caps_is_any (caps)) {
    gst_caps_unref (caps);
    return;
  }
  media = gst_structure_get_name (gst_caps_get_structure (caps, 0));

  /* Video or subtitle streams of the input are left unlinked: decodebin
   * only fails when none of its outputs is linked. */
  if (!g_str_has_prefix (media, "audio/")) {
    gst_caps_unref (caps);
    return;
  }
  gst_caps_unref (caps);

  sinkpad = gst_element_get_static_pad (app->inconv, "sink");
  if (gst_pad_is_linked (sinkpad)) {
    /* Only one output file, so only the first audio stream is used. */
    gst_object_unref (sinkpad);
    return;
  }
  ret = gst_pad_link (pad, sinkpad);
  gst_object_unref (sinkpad);
  if (GST_PAD_LINK_FAILED (ret)) {
    gchar *debug = g_strdup_printf ("gst_pad_link returned %s",
        gst_pad_link_get_name (ret));

    post_app_error (decoder, GST_CORE_ERROR, GST_CORE_ERROR_PAD,
        "Could not link the decoded audio stream to audioconvert", debug);
    g_free (debug);
    return;
  }
  g_atomic_int_set (&app->linked_audio, 1);
}

static void
on_no_more_pads (GstElement * decoder, App * app)
{
  if (!g_atomic_int_get (&app->linked_audio))
    post_app_error (decoder, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
        "The input has no audio stream", "uridecodebin exposed no audio/* pad");
}

/* Counts the frames that enter clresample, for the "x real time" figure:
 * the pipeline's position is only as exact as the demuxer makes it. */
static GstPadProbeReturn
count_frames (GstPad * pad, GstPadProbeInfo * info, App * app)
{
  gsize size = 0;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
      GstCaps *caps;
      GstAudioInfo ainfo;

      gst_event_parse_caps (event, &caps);
      if (gst_audio_info_from_caps (&ainfo, caps)) {
        app->probe_rate = GST_AUDIO_INFO_RATE (&ainfo);
        app->probe_bpf = GST_AUDIO_INFO_BPF (&ainfo);
      }
    }
    return GST_PAD_PROBE_OK;
  }

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    size = gst_buffer_list_calculate_size (GST_PAD_PROBE_INFO_BUFFER_LIST
        (info));
  if (app->probe_bpf > 0)
    app->in_frames += size / app->probe_bpf;
  return GST_PAD_PROBE_OK;
}

static void
read_pad_caps (GstElement * element, const gchar * padname, gint * rate,
    gint * channels)
{
  GstPad *pad = gst_element_get_static_pad (element, padname);
  GstCaps *caps = gst_pad_get_current_caps (pad);

  if (caps) {
    GstStructure *s = gst_caps_get_structure (caps, 0);

    if (rate)
      gst_structure_get_int (s, "rate", rate);
    if (channels)
      gst_structure_get_int (s, "channels", channels);
    gst_caps_unref (caps);
  }
  gst_object_unref (pad);
}

static void
collect_stream_info (App * app)
{
  g_free (app->device_name);
  g_object_get (app->resampler, "device-name", &app->device_name, NULL);
  read_pad_caps (app->resampler, "sink", &app->in_rate, &app->in_channels);
  read_pad_caps (app->resampler, "src", &app->out_rate, NULL);
}

static gboolean
print_progress (gpointer user_data)
{
  App *app = user_data;
  gint64 pos, dur;

  if (!gst_element_query_position (app->pipeline, GST_FORMAT_TIME, &pos))
    return G_SOURCE_CONTINUE;

  if (gst_element_query_duration (app->pipeline, GST_FORMAT_TIME, &dur) &&
      dur > 0) {
    g_printerr ("\r%9.1f / %.1f s (%5.1f %%)  ", pos / (gdouble) GST_SECOND,
        dur / (gdouble) GST_SECOND, 100.0 * pos / dur);
  } else {
    g_printerr ("\r%9.1f s  ", pos / (gdouble) GST_SECOND);
  }
  app->progress_shown = TRUE;
  return G_SOURCE_CONTINUE;
}

static gboolean
on_bus_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  App *app = user_data;

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      end_progress_line (app);
      print_error_message (msg);
      app->failed = TRUE;
      g_main_loop_quit (app->loop);
      break;
    case GST_MESSAGE_WARNING:
      end_progress_line (app);
      print_warning_message (msg);
      break;
    case GST_MESSAGE_EOS:
      /* One last update, so that the line ends on the final position. */
      if (app->show_progress)
        print_progress (app);
      collect_stream_info (app);
      g_main_loop_quit (app->loop);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* The first Ctrl-C sends EOS so that wavenc still writes a valid header for
 * what has been converted; a second one gives up at once. */
static gboolean
on_sigint (gpointer user_data)
{
  App *app = user_data;

  end_progress_line (app);
  if (app->interrupted++ == 0) {
    g_printerr ("interrupted: finishing the output file "
        "(Ctrl-C again to abort)\n");
    gst_element_send_event (app->pipeline, gst_event_new_eos ());
  } else {
    g_printerr ("interrupted: aborting\n");
    app->failed = TRUE;
    g_main_loop_quit (app->loop);
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
check_int_property (GstElement * element, const gchar * prop, gint64 value)
{
  GParamSpec *pspec;
  gint64 min, max;

  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element), prop);
  if (!pspec)
    return TRUE;
  if (G_IS_PARAM_SPEC_INT (pspec)) {
    min = G_PARAM_SPEC_INT (pspec)->minimum;
    max = G_PARAM_SPEC_INT (pspec)->maximum;
  } else if (G_IS_PARAM_SPEC_UINT (pspec)) {
    min = G_PARAM_SPEC_UINT (pspec)->minimum;
    max = G_PARAM_SPEC_UINT (pspec)->maximum;
  } else {
    return TRUE;
  }
  if (value < min || value > max) {
    g_printerr ("error: --%s must be between %" G_GINT64_FORMAT " and %"
        G_GINT64_FORMAT " (got %" G_GINT64_FORMAT ")\n", prop, min, max,
        value);
    return FALSE;
  }
  return TRUE;
}

/* Asks the element's own src template rather than repeating its limits. */
static gboolean
check_rate (GstElement * resampler, gint rate)
{
  GstPad *pad = gst_element_get_static_pad (resampler, "src");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  GstCaps *want = gst_caps_new_simple ("audio/x-raw", "rate", G_TYPE_INT,
      rate, NULL);
  gboolean ok = gst_caps_can_intersect (want, tmpl);

  if (!ok)
    g_printerr ("error: clresample cannot output at --rate %d Hz\n", rate);
  gst_caps_unref (want);
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  return ok;
}

static const gchar *
format_for_bits (const gchar * bits)
{
  if (bits == NULL || strcmp (bits, "32f") == 0)
    return "F32LE";
  if (strcmp (bits, "16") == 0)
    return "S16LE";
  if (strcmp (bits, "24") == 0)
    return "S24LE";
  return NULL;
}

static void
set_filter_caps (GstElement * filter, GstCaps * caps)
{
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
}

int
main (int argc, char **argv)
{
  gint rate = DEFAULT_RATE, quality = DEFAULT_QUALITY, taps = 0;
  gchar *device = NULL, *bits = NULL;
  gchar **files = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    {"rate", 'r', 0, G_OPTION_ARG_INT, &rate,
        "Output sample rate in Hz (default 192000)", "HZ"},
    {"quality", 'q', 0, G_OPTION_ARG_INT, &quality,
        "Filter quality 0-10 (default 4)", "Q"},
    {"taps", 't', 0, G_OPTION_ARG_INT, &taps,
        "Filter taps per phase; 0 takes them from --quality (default 0)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device: auto, gpu, cpu, N, P:D or part of its name "
        "(default auto)", "SPEC"},
    {"bits", 'b', 0, G_OPTION_ARG_STRING, &bits,
        "Output sample format: 16, 24 or 32f (default 32f)", "16|24|32f"},
    {"quiet", 0, 0, G_OPTION_ARG_NONE, &quiet,
        "Do not print progress", NULL},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
        "INPUT OUTPUT.wav"},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  App app = { 0 };
  GstElement *decoder, *ratefilter, *outconv, *fmtfilter, *encoder, *sink;
  GstElement *pipeline = NULL;
  const gchar *format;
  gchar *uri = NULL;
  GstBus *bus;
  GstPad *pad;
  GstStateChangeReturn sret;
  gint64 t_start = 0, t_end;
  guint progress_id = 0, sigint_id;
  gint ret = EXIT_RUNTIME;
  gboolean output_existed = FALSE;

  /* So that GLib's messages come out in the user's language and charset. */
  setlocale (LC_ALL, "");

  /* The G_OPTION_REMAINING entry supplies "INPUT OUTPUT.wav" in --help. */
  ctx = g_option_context_new (NULL);
  g_option_context_set_summary (ctx,
      "Resample an audio file (path or URI) with the clresample OpenCL "
      "element and write it as WAV.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  /* Also sets up GStreamer and takes its --gst-* options. */
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("error: %s\nRun '%s --help' for usage.\n", err->message,
        g_get_prgname ());
    g_error_free (err);
    g_option_context_free (ctx);
    return EXIT_USAGE;
  }
  g_option_context_free (ctx);

  if (files == NULL || g_strv_length (files) != 2) {
    g_printerr ("error: expected INPUT and OUTPUT.wav\n"
        "Usage: %s [--rate HZ] [--quality Q] [--taps N] [--device SPEC] "
        "[--bits 16|24|32f] INPUT OUTPUT.wav\n", g_get_prgname ());
    ret = EXIT_USAGE;
    goto done;
  }
  format = format_for_bits (bits);
  if (!format) {
    g_printerr ("error: --bits must be 16, 24 or 32f (got '%s')\n", bits);
    ret = EXIT_USAGE;
    goto done;
  }
  if (rate <= 0) {
    g_printerr ("error: --rate must be positive (got %d)\n", rate);
    ret = EXIT_USAGE;
    goto done;
  }
  if (strcmp (files[0], files[1]) == 0) {
    g_printerr ("error: INPUT and OUTPUT are the same file\n");
    ret = EXIT_USAGE;
    goto done;
  }

  if (gst_uri_is_valid (files[0])) {
    uri = g_strdup (files[0]);
  } else {
    uri = gst_filename_to_uri (files[0], &err);
    if (!uri) {
      g_printerr ("error: cannot make a URI of '%s': %s\n", files[0],
          err->message);
      g_clear_error (&err);
      ret = EXIT_USAGE;
      goto done;
    }
  }

  /* clresample first: it is the one most likely to be missing. */
  app.resampler = make_element ("clresample", "resampler");
  if (!app.resampler)
    goto done;
  pipeline = gst_pipeline_new ("clresample-convert");
  gst_bin_add (GST_BIN (pipeline), app.resampler);

  decoder = make_element ("uridecodebin", "decoder");
  app.inconv = make_element ("audioconvert", "inconv");
  ratefilter = make_element ("capsfilter", "ratefilter");
  outconv = make_element ("audioconvert", "outconv");
  fmtfilter = make_element ("capsfilter", "fmtfilter");
  encoder = make_element ("wavenc", "encoder");
  sink = make_element ("filesink", "sink");
  if (!decoder || !app.inconv || !ratefilter || !outconv || !fmtfilter ||
      !encoder || !sink) {
    /* The ones that were made are floating; sink them to free them. */
    GstElement *made[] = { decoder, app.inconv, ratefilter, outconv,
      fmtfilter, encoder, sink
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (made); i++)
      if (made[i])
        gst_object_unref (gst_object_ref_sink (made[i]));
    goto done;
  }
  gst_bin_add_many (GST_BIN (pipeline), decoder, app.inconv, ratefilter,
      outconv, fmtfilter, encoder, sink, NULL);

  /* Checked against the element itself, so that the limits stay right when
   * the element changes. */
  if (!check_int_property (app.resampler, "quality", quality) ||
      !check_int_property (app.resampler, "taps", taps) ||
      !check_rate (app.resampler, rate)) {
    ret = EXIT_USAGE;
    goto done;
  }

  g_object_set (app.resampler, "quality", quality, "taps", (guint) taps,
      NULL);
  if (device)
    g_object_set (app.resampler, "device", device, NULL);
  g_object_set (decoder, "uri", uri, NULL);
  set_filter_caps (ratefilter, gst_caps_new_simple ("audio/x-raw",
          "rate", G_TYPE_INT, rate, NULL));
  set_filter_caps (fmtfilter, gst_caps_new_simple ("audio/x-raw",
          "format", G_TYPE_STRING, format, NULL));
  g_object_set (sink, "location", files[1], NULL);

  if (!gst_element_link_many (app.inconv, app.resampler, ratefilter, outconv,
          fmtfilter, encoder, sink, NULL)) {
    g_printerr ("error: could not link the elements of the pipeline\n");
    goto done;
  }
  g_signal_connect (decoder, "pad-added", G_CALLBACK (on_pad_added), &app);
  g_signal_connect (decoder, "no-more-pads", G_CALLBACK (on_no_more_pads),
      &app);

  pad = gst_element_get_static_pad (app.resampler, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) count_frames, &app, NULL);
  gst_object_unref (pad);

  app.pipeline = pipeline;
  app.show_progress = !quiet;
  app.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_bus_message, &app);

  output_existed = g_file_test (files[1], G_FILE_TEST_EXISTS);
  t_start = g_get_monotonic_time ();
  sret = gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (sret == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg;

    /* The element that failed (clresample without an OpenCL device, the
     * source without its file) has posted an error; the main loop has not
     * run yet, so it is still queued on the bus. */
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      print_error_message (msg);
      gst_message_unref (msg);
    } else {
      g_printerr ("error: the pipeline could not be started\n");
    }
    gst_bus_remove_watch (bus);
    gst_object_unref (bus);
    goto done;
  }

  if (app.show_progress)
    progress_id = g_timeout_add (PROGRESS_INTERVAL_MS, print_progress, &app);
  sigint_id = g_unix_signal_add (SIGINT, on_sigint, &app);
  g_main_loop_run (app.loop);
  t_end = g_get_monotonic_time ();

  if (progress_id)
    g_source_remove (progress_id);
  g_source_remove (sigint_id);
  end_progress_line (&app);
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  /* Stops the streaming threads, so the counters are final after this. */
  gst_element_set_state (pipeline, GST_STATE_NULL);

  if (app.failed)
    goto done;

  {
    gdouble wall_s = (t_end - t_start) / (gdouble) G_USEC_PER_SEC;
    gdouble audio_s = 0.0;

    if (app.probe_rate > 0)
      audio_s = app.in_frames / (gdouble) app.probe_rate;

    g_print ("device: %s\n", app.device_name ? app.device_name : "(unknown)");
    if (app.in_rate > 0)
      g_print ("input: %d Hz, %d ch\n", app.in_rate, app.in_channels);
    else
      g_print ("input: (no audio reached clresample)\n");
    g_print ("output: %d Hz -> %s\n", app.out_rate > 0 ? app.out_rate : rate,
        files[1]);
    g_print ("audio: %.3f s in %.3f s: %.1f x real time\n", audio_s, wall_s,
        wall_s > 0.0 ? audio_s / wall_s : 0.0);
  }
  ret = app.interrupted ? EXIT_INTERRUPTED : EXIT_SUCCESS;

done:
  if (pipeline) {
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
  } else if (app.resampler) {
    gst_object_unref (gst_object_ref_sink (app.resampler));
  }
  /* A failed run leaves a WAV with no valid header behind; remove it, but
   * only if this run created it (never a file or device that was there). */
  if (ret == EXIT_RUNTIME && t_start != 0 && !output_existed &&
      g_file_test (files[1], G_FILE_TEST_IS_REGULAR))
    g_unlink (files[1]);
  if (app.loop)
    g_main_loop_unref (app.loop);
  g_free (app.device_name);
  g_free (uri);
  g_free (device);
  g_free (bits);
  g_strfreev (files);
  return ret;
}
