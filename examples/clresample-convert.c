/* clresample-convert: convert audio files to WAV files at another sample
 * rate, resampling with the clresample element on an OpenCL device.
 *
 * One pipeline a file:
 *   uridecodebin ! audioconvert ! clresample ! audio/x-raw,rate=HZ
 *       ! audioconvert ! audio/x-raw,format=FMT ! wavenc ! filesink
 *
 * With --output-dir, many files convert at once in this one process (up to
 * --jobs at a time): their clresample instances share the device, whose
 * scheduler converts the buffers they have pending together, so a batch
 * of files costs the device a launch where each alone would cost one. A
 * file's output is the same, bit for bit, as when it converts alone.
 *
 * Exit status: 0 done, 1 runtime error (any file), 2 bad arguments, 130
 * stopped early by Ctrl-C (the outputs then hold what was converted).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <glib-unix.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <string.h>

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130

#define DEFAULT_RATE 192000
#define DEFAULT_QUALITY 4
#define DEFAULT_JOBS 64
#define PROGRESS_INTERVAL_MS 500

typedef struct _App App;

/* What every conversion is made with. */
typedef struct
{
  gint rate;
  gint quality;
  gint taps;
  const gchar *device;          /* NULL: the element's default */
  const gchar *format;          /* the output's sample format */
} Settings;

/* One file's conversion: its pipeline while it runs, what it found. */
typedef struct
{
  App *app;
  gchar *input;                 /* as the user gave it */
  gchar *uri;
  gchar *output;

  GstElement *pipeline;
  GstElement *inconv;           /* audioconvert in front of clresample */
  GstElement *resampler;
  gboolean output_existed;
  gboolean finished;
  gboolean failed;
  gint linked_audio;            /* atomic: set from a streaming thread */

  /* Written by the pad probe on clresample's sink pad (streaming thread),
   * read once the pipeline has been shut down. */
  gint probe_rate;
  gint probe_bpf;
  guint64 in_frames;

  /* Read at EOS, while clresample still runs: it drops its device and its
   * negotiated caps when it stops. */
  gchar *device_name;
  gint in_rate;
  gint in_channels;
  gint out_rate;
} Conversion;

struct _App
{
  GMainLoop *loop;
  const Settings *settings;
  Conversion **conversions;
  guint n_conversions;
  guint next;                   /* the first not started */
  guint running;
  guint jobs;                   /* at most this many run at once */

  gboolean show_progress;
  gboolean progress_shown;
  gboolean fatal;               /* an element is missing: start no more */
  gint interrupted;             /* SIGINTs seen */
};

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

/* `file`: the input it concerns, named where many convert at once. */
static void
print_error_message (GstMessage * msg, const gchar * file)
{
  GError *err = NULL;
  gchar *debug = NULL;
  gchar *src;

  gst_message_parse_error (msg, &err, &debug);
  src = gst_object_get_path_string (GST_MESSAGE_SRC (msg));
  if (file)
    g_printerr ("error: %s: %s\n", file, err->message);
  else
    g_printerr ("error: %s\n", err->message);
  g_printerr ("  from: %s\n", src);
  g_printerr ("  debug: %s\n", debug ? debug : "(none)");
  g_free (src);
  g_free (debug);
  g_error_free (err);
}

static void
print_warning_message (GstMessage * msg, const gchar * file)
{
  GError *err = NULL;
  gchar *debug = NULL;

  gst_message_parse_warning (msg, &err, &debug);
  g_printerr ("warning: %s%s%s\n  debug: %s\n", file ? file : "",
      file ? ": " : "", err->message, debug ? debug : "(none)");
  g_free (debug);
  g_error_free (err);
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
on_pad_added (GstElement * decoder, GstPad * pad, Conversion * c)
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

  sinkpad = gst_element_get_static_pad (c->inconv, "sink");
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
  g_atomic_int_set (&c->linked_audio, 1);
}

static void
on_no_more_pads (GstElement * decoder, Conversion * c)
{
  if (!g_atomic_int_get (&c->linked_audio))
    post_app_error (decoder, GST_STREAM_ERROR, GST_STREAM_ERROR_WRONG_TYPE,
        "The input has no audio stream", "uridecodebin exposed no audio/* pad");
}

/* Counts the frames that enter clresample, for the "x real time" figure:
 * the pipeline's position is only as exact as the demuxer makes it. */
static GstPadProbeReturn
count_frames (GstPad * pad, GstPadProbeInfo * info, Conversion * c)
{
  gsize size = 0;

  if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
      GstCaps *caps;
      GstAudioInfo ainfo;

      gst_event_parse_caps (event, &caps);
      if (gst_audio_info_from_caps (&ainfo, caps)) {
        c->probe_rate = GST_AUDIO_INFO_RATE (&ainfo);
        c->probe_bpf = GST_AUDIO_INFO_BPF (&ainfo);
      }
    }
    return GST_PAD_PROBE_OK;
  }

  if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
    size = gst_buffer_get_size (GST_PAD_PROBE_INFO_BUFFER (info));
  else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    size = gst_buffer_list_calculate_size (GST_PAD_PROBE_INFO_BUFFER_LIST
        (info));
  if (c->probe_bpf > 0)
    c->in_frames += size / c->probe_bpf;
  return GST_PAD_PROBE_OK;
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

static gboolean
many (App * app)
{
  return app->n_conversions > 1;
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
collect_stream_info (Conversion * c)
{
  g_free (c->device_name);
  g_object_get (c->resampler, "device-name", &c->device_name, NULL);
  read_pad_caps (c->resampler, "sink", &c->in_rate, &c->in_channels);
  read_pad_caps (c->resampler, "src", &c->out_rate, NULL);
}

/* Seconds of input a finished conversion took in. */
static gdouble
audio_seconds (Conversion * c)
{
  return c->probe_rate > 0 ? c->in_frames / (gdouble) c->probe_rate : 0.0;
}

static gboolean
print_progress (gpointer user_data)
{
  App *app = user_data;
  GstElement *pipeline;
  gint64 pos, dur;

  if (many (app)) {
    gdouble audio_s = 0.0;
    guint i, done = 0;

    for (i = 0; i < app->next; i++) {
      Conversion *c = app->conversions[i];

      if (c->finished) {
        done++;
        audio_s += audio_seconds (c);
      } else if (c->pipeline && gst_element_query_position (c->pipeline,
              GST_FORMAT_TIME, &pos)) {
        audio_s += pos / (gdouble) GST_SECOND;
      }
    }
    g_printerr ("\r%u of %u files done, %u converting: %.1f s of audio  ",
        done, app->n_conversions, app->running, audio_s);
    app->progress_shown = TRUE;
    return G_SOURCE_CONTINUE;
  }

  pipeline = app->conversions[0]->pipeline;
  if (!pipeline || !gst_element_query_position (pipeline, GST_FORMAT_TIME,
          &pos))
    return G_SOURCE_CONTINUE;
  if (gst_element_query_duration (pipeline, GST_FORMAT_TIME, &dur) &&
      dur > 0) {
    g_printerr ("\r%9.1f / %.1f s (%5.1f %%)  ", pos / (gdouble) GST_SECOND,
        dur / (gdouble) GST_SECOND, 100.0 * pos / dur);
  } else {
    g_printerr ("\r%9.1f s  ", pos / (gdouble) GST_SECOND);
  }
  app->progress_shown = TRUE;
  return G_SOURCE_CONTINUE;
}

/* The input named in messages where many convert at once, else NULL. */
static const gchar *
conversion_name (Conversion * c)
{
  return many (c->app) ? c->input : NULL;
}

static void start_more (App * app);

/* Shuts a running conversion's pipeline down (its counters are final after
 * this). A failed conversion's output has no valid header: removed, but
 * only if this run created it (never a file or device that was there). */
static void
conversion_stop (Conversion * c, gboolean failed)
{
  GstBus *bus = gst_element_get_bus (c->pipeline);

  c->finished = TRUE;
  c->failed = failed;
  /* also from within the watch itself (on_bus_message ()) */
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_element_set_state (c->pipeline, GST_STATE_NULL);
  gst_object_unref (c->pipeline);
  c->pipeline = NULL;
  c->app->running--;
  if (failed && !c->output_existed &&
      g_file_test (c->output, G_FILE_TEST_IS_REGULAR))
    g_unlink (c->output);
}

/* conversion_stop (), then the next file starts in its place. */
static void
conversion_finish (Conversion * c, gboolean failed)
{
  App *app = c->app;

  conversion_stop (c, failed);
  start_more (app);
  if (app->running == 0)
    g_main_loop_quit (app->loop);
}

static gboolean
on_bus_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Conversion *c = user_data;
  App *app = c->app;
  const gchar *file = conversion_name (c);

  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:
      end_progress_line (app);
      print_error_message (msg, file);
      conversion_finish (c, TRUE);
      return G_SOURCE_REMOVE;
    case GST_MESSAGE_WARNING:
      end_progress_line (app);
      print_warning_message (msg, file);
      break;
    case GST_MESSAGE_EOS:
      /* One last update, so that the line ends on the final position. */
      if (app->show_progress && !many (app))
        print_progress (app);
      collect_stream_info (c);
      conversion_finish (c, FALSE);
      return G_SOURCE_REMOVE;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

/* Makes c's pipeline; FALSE (the error printed) if an element is missing
 * or will not link, which no other file would fare better with. */
static gboolean
conversion_build (Conversion * c, const Settings * set)
{
  GstElement *decoder, *ratefilter, *outconv, *fmtfilter, *encoder, *sink;
  GstPad *pad;

  /* clresample first: it is the one most likely to be missing. */
  c->resampler = make_element ("clresample", "resampler");
  if (!c->resampler)
    return FALSE;
  /* before it joins the bin: from then on the element opens the device it
   * names ahead of the stream, and --device cpu on a GPU machine would
   * otherwise load the GPU's driver for nothing (0.3 s a process) */
  g_object_set (c->resampler, "quality", set->quality, "taps",
      (guint) set->taps, NULL);
  if (set->device)
    g_object_set (c->resampler, "device", set->device, NULL);
  c->pipeline = gst_pipeline_new ("clresample-convert");
  gst_bin_add (GST_BIN (c->pipeline), c->resampler);

  decoder = make_element ("uridecodebin", "decoder");
  c->inconv = make_element ("audioconvert", "inconv");
  ratefilter = make_element ("capsfilter", "ratefilter");
  outconv = make_element ("audioconvert", "outconv");
  fmtfilter = make_element ("capsfilter", "fmtfilter");
  encoder = make_element ("wavenc", "encoder");
  sink = make_element ("filesink", "sink");
  if (!decoder || !c->inconv || !ratefilter || !outconv || !fmtfilter ||
      !encoder || !sink) {
    /* The ones that were made are floating; sink them to free them. */
    GstElement *made[] = { decoder, c->inconv, ratefilter, outconv,
      fmtfilter, encoder, sink
    };
    guint i;

    for (i = 0; i < G_N_ELEMENTS (made); i++)
      if (made[i])
        gst_object_unref (gst_object_ref_sink (made[i]));
    return FALSE;
  }
  gst_bin_add_many (GST_BIN (c->pipeline), decoder, c->inconv, ratefilter,
      outconv, fmtfilter, encoder, sink, NULL);

  g_object_set (decoder, "uri", c->uri, NULL);
  set_filter_caps (ratefilter, gst_caps_new_simple ("audio/x-raw",
          "rate", G_TYPE_INT, set->rate, NULL));
  set_filter_caps (fmtfilter, gst_caps_new_simple ("audio/x-raw",
          "format", G_TYPE_STRING, set->format, NULL));
  g_object_set (sink, "location", c->output, NULL);

  if (!gst_element_link_many (c->inconv, c->resampler, ratefilter, outconv,
          fmtfilter, encoder, sink, NULL)) {
    g_printerr ("error: could not link the elements of the pipeline\n");
    return FALSE;
  }
  g_signal_connect (decoder, "pad-added", G_CALLBACK (on_pad_added), c);
  g_signal_connect (decoder, "no-more-pads", G_CALLBACK (on_no_more_pads), c);

  pad = gst_element_get_static_pad (c->resampler, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
      (GstPadProbeCallback) count_frames, c, NULL);
  gst_object_unref (pad);
  return TRUE;
}

/* Starts c; a file that cannot start (no such file, no OpenCL device) has
 * failed, the others go on. */
static void
conversion_start (Conversion * c)
{
  App *app = c->app;
  GstBus *bus;
  GstStateChangeReturn sret;

  if (!conversion_build (c, app->settings)) {
    app->fatal = TRUE;
    if (c->pipeline)
      gst_object_unref (c->pipeline);
    else if (c->resampler)
      gst_object_unref (gst_object_ref_sink (c->resampler));
    c->pipeline = NULL;
    c->finished = c->failed = TRUE;
    return;
  }
  app->running++;
  c->output_existed = g_file_test (c->output, G_FILE_TEST_EXISTS);
  bus = gst_element_get_bus (c->pipeline);
  gst_bus_add_watch (bus, on_bus_message, c);
  sret = gst_element_set_state (c->pipeline, GST_STATE_PLAYING);
  if (sret == GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg;

    /* The element that failed (clresample without an OpenCL device, the
     * source without its file) has posted an error; the main loop has not
     * dispatched it yet, so it is still queued on the bus. */
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    end_progress_line (app);
    if (msg) {
      print_error_message (msg, conversion_name (c));
      gst_message_unref (msg);
    } else {
      g_printerr ("error: %s%sthe pipeline could not be started\n",
          many (app) ? c->input : "", many (app) ? ": " : "");
    }
    /* the next file starts from start_more ()'s loop, not from within
     * this one's start */
    conversion_stop (c, TRUE);
  }
  gst_object_unref (bus);
}

/* Keeps up to --jobs conversions running. */
static void
start_more (App * app)
{
  while (!app->fatal && !app->interrupted && app->running < app->jobs &&
      app->next < app->n_conversions)
    conversion_start (app->conversions[app->next++]);
}

/* The first Ctrl-C sends EOS to every running conversion so that wavenc
 * still writes a valid header for what has been converted, and starts no
 * more; a second one gives up at once. */
static gboolean
on_sigint (gpointer user_data)
{
  App *app = user_data;
  guint i;

  end_progress_line (app);
  if (app->interrupted++ == 0) {
    g_printerr ("interrupted: finishing the output file%s "
        "(Ctrl-C again to abort)\n", many (app) ? "s" : "");
    for (i = 0; i < app->next; i++)
      if (app->conversions[i]->pipeline)
        gst_element_send_event (app->conversions[i]->pipeline,
            gst_event_new_eos ());
  } else {
    g_printerr ("interrupted: aborting\n");
    /* each finish may quit the loop; the last one does */
    for (i = 0; i < app->next; i++)
      if (app->conversions[i]->pipeline)
        conversion_finish (app->conversions[i], TRUE);
  }
  return G_SOURCE_CONTINUE;
}

/* A path or a URI, as uridecodebin takes it. */
static gchar *
uri_of (const gchar * input)
{
  GError *err = NULL;
  gchar *uri;

  if (gst_uri_is_valid (input))
    return g_strdup (input);
  uri = gst_filename_to_uri (input, &err);
  if (!uri) {
    g_printerr ("error: cannot make a URI of '%s': %s\n", input,
        err->message);
    g_error_free (err);
  }
  return uri;
}

/* DIR/NAME.wav for an input DIR/NAME.EXT (or a URI ending so). */
static gchar *
output_in_dir (const gchar * dir, const gchar * input, const gchar * uri)
{
  GstUri *parsed = gst_uri_is_valid (input) ? gst_uri_from_string (uri) :
      NULL;
  const gchar *path = parsed && gst_uri_get_path (parsed) ?
      gst_uri_get_path (parsed) : input;
  gchar *name = g_path_get_basename (path);
  gchar *dot = strrchr (name, '.');
  gchar *file, *out;

  if (dot && dot != name)
    *dot = '\0';
  if (name[0] == '\0' || strcmp (name, "/") == 0 || strcmp (name, ".") == 0) {
    g_free (name);
    name = g_strdup ("input");
  }
  file = g_strconcat (name, ".wav", NULL);
  out = g_build_filename (dir, file, NULL);
  g_free (file);
  g_free (name);
  if (parsed)
    gst_uri_unref (parsed);
  return out;
}

/* Takes uri and output. */
static Conversion *
conversion_new (App * app, const gchar * input, gchar * uri, gchar * output)
{
  Conversion *c = g_new0 (Conversion, 1);

  c->app = app;
  c->input = g_strdup (input);
  c->uri = uri;
  c->output = output;
  return c;
}

static void
conversion_free (Conversion * c)
{
  g_free (c->input);
  g_free (c->uri);
  g_free (c->output);
  g_free (c->device_name);
  g_free (c);
}

/* The option values against the element itself, so that the limits stay
 * right when the element changes; FALSE if clresample is missing too. */
static gboolean
check_settings (const Settings * set, gint * ret)
{
  GstElement *probe = make_element ("clresample", NULL);
  gboolean ok;

  if (!probe) {
    *ret = EXIT_RUNTIME;
    return FALSE;
  }
  gst_object_ref_sink (probe);
  ok = check_int_property (probe, "quality", set->quality) &&
      check_int_property (probe, "taps", set->taps) &&
      check_rate (probe, set->rate);
  gst_object_unref (probe);
  if (!ok)
    *ret = EXIT_USAGE;
  return ok;
}

/* The conversions the arguments ask for: INPUT OUTPUT.wav, or with
 * --output-dir every argument an input. NULL (the error printed) if they
 * do not make sense. */
static Conversion **
make_conversions (App * app, gchar ** files, const gchar * dir, guint * n)
{
  const guint n_files = files ? g_strv_length (files) : 0;
  Conversion **list;
  GHashTable *outputs;
  guint i, count;
  gboolean ok = TRUE;

  if (dir ? n_files < 1 : n_files != 2) {
    g_printerr ("error: expected %s\n"
        "Usage: %s [--rate HZ] [--quality Q] [--taps N] [--device SPEC] "
        "[--bits 16|24|32f] INPUT OUTPUT.wav\n"
        "       %s [options] [--jobs N] --output-dir DIR INPUT...\n",
        dir ? "one INPUT or more" : "INPUT and OUTPUT.wav",
        g_get_prgname (), g_get_prgname ());
    return NULL;
  }
  count = dir ? n_files : 1;
  list = g_new0 (Conversion *, count + 1);
  outputs = g_hash_table_new (g_str_hash, g_str_equal);
  for (i = 0; i < count && ok; i++) {
    const gchar *input = files[i];
    gchar *uri = uri_of (input);

    if (!uri) {
      ok = FALSE;
      break;
    }
    list[i] = conversion_new (app, input, uri, dir ? output_in_dir (dir,
            input, uri) : g_strdup (files[1]));
    if (strcmp (input, list[i]->output) == 0) {
      g_printerr ("error: INPUT and OUTPUT are the same file: %s\n", input);
      ok = FALSE;
    } else if (g_hash_table_contains (outputs, list[i]->output)) {
      g_printerr ("error: two inputs would both write %s\n",
          list[i]->output);
      ok = FALSE;
    }
    g_hash_table_add (outputs, list[i]->output);
  }
  g_hash_table_destroy (outputs);
  if (!ok) {
    for (i = 0; i < count; i++)
      if (list[i])
        conversion_free (list[i]);
    g_free (list);
    return NULL;
  }
  *n = count;
  return list;
}

static void
print_results (App * app, gdouble wall_s)
{
  gdouble audio_s = 0.0;
  guint i, done = 0;

  if (!many (app)) {
    Conversion *c = app->conversions[0];

    audio_s = audio_seconds (c);
    g_print ("device: %s\n", c->device_name ? c->device_name : "(unknown)");
    if (c->in_rate > 0)
      g_print ("input: %d Hz, %d ch\n", c->in_rate, c->in_channels);
    else
      g_print ("input: (no audio reached clresample)\n");
    g_print ("output: %d Hz -> %s\n", c->out_rate > 0 ? c->out_rate :
        app->settings->rate, c->output);
    g_print ("audio: %.3f s in %.3f s: %.1f x real time\n", audio_s, wall_s,
        wall_s > 0.0 ? audio_s / wall_s : 0.0);
    return;
  }
  for (i = 0; i < app->n_conversions; i++) {
    Conversion *c = app->conversions[i];

    if (!c->finished || c->failed)
      continue;
    done++;
    audio_s += audio_seconds (c);
    g_print ("output: %d Hz -> %s (input %d Hz, %d ch, %.3f s; device: %s)"
        "\n", c->out_rate, c->output, c->in_rate, c->in_channels,
        audio_seconds (c), c->device_name ? c->device_name : "(unknown)");
  }
  g_print ("audio: %.3f s in %.3f s: %.1f x real time (%u of %u files, up "
      "to %u at a time)\n", audio_s, wall_s, wall_s > 0.0 ? audio_s / wall_s :
      0.0, done, app->n_conversions, MIN (app->jobs, app->n_conversions));
}

int
main (int argc, char **argv)
{
  Settings set = { DEFAULT_RATE, DEFAULT_QUALITY, 0, NULL, NULL };
  gint jobs = DEFAULT_JOBS;
  gchar *device = NULL, *bits = NULL, *dir = NULL;
  gchar **files = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    {"rate", 'r', 0, G_OPTION_ARG_INT, &set.rate,
        "Output sample rate in Hz (default 192000)", "HZ"},
    {"quality", 'q', 0, G_OPTION_ARG_INT, &set.quality,
        "Filter quality 0-10 (default 4)", "Q"},
    {"taps", 't', 0, G_OPTION_ARG_INT, &set.taps,
        "Filter taps per phase; 0 takes them from --quality (default 0)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "OpenCL device: auto, gpu, cpu, N, P:D or part of its name "
        "(default auto)", "SPEC"},
    {"bits", 'b', 0, G_OPTION_ARG_STRING, &bits,
        "Output sample format: 16, 24 or 32f (default 32f)", "16|24|32f"},
    {"output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &dir,
        "Convert every INPUT to DIR/NAME.wav, many at once in this process",
        "DIR"},
    {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
        "With --output-dir: files converting at once (default 64)", "N"},
    {"quiet", 0, 0, G_OPTION_ARG_NONE, &quiet,
        "Do not print progress", NULL},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL,
        "INPUT OUTPUT.wav | --output-dir DIR INPUT..."},
    {NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  App app = { 0 };
  gint64 t_start, t_end;
  guint progress_id = 0, sigint_id, i, failed = 0;
  gint ret = EXIT_USAGE;

  /* So that GLib's messages come out in the user's language and charset. */
  setlocale (LC_ALL, "");

  ctx = g_option_context_new (NULL);
  g_option_context_set_summary (ctx,
      "Resample audio files (paths or URIs) with the clresample OpenCL "
      "element and write them as WAV.");
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

  set.device = device;
  set.format = format_for_bits (bits);
  if (!set.format) {
    g_printerr ("error: --bits must be 16, 24 or 32f (got '%s')\n", bits);
    goto done;
  }
  if (set.rate <= 0) {
    g_printerr ("error: --rate must be positive (got %d)\n", set.rate);
    goto done;
  }
  if (jobs < 1) {
    g_printerr ("error: --jobs must be 1 or more (got %d)\n", jobs);
    goto done;
  }
  app.conversions = make_conversions (&app, files, dir, &app.n_conversions);
  if (!app.conversions)
    goto done;
  if (!check_settings (&set, &ret))
    goto done;
  if (dir && g_mkdir_with_parents (dir, 0777) != 0) {
    g_printerr ("error: cannot make the folder %s: %s\n", dir,
        g_strerror (errno));
    ret = EXIT_RUNTIME;
    goto done;
  }

  app.settings = &set;
  app.jobs = jobs;
  app.show_progress = !quiet;
  app.loop = g_main_loop_new (NULL, FALSE);
  t_start = g_get_monotonic_time ();
  start_more (&app);
  if (app.running > 0) {
    if (app.show_progress)
      progress_id = g_timeout_add (PROGRESS_INTERVAL_MS, print_progress,
          &app);
    sigint_id = g_unix_signal_add (SIGINT, on_sigint, &app);
    g_main_loop_run (app.loop);
    if (progress_id)
      g_source_remove (progress_id);
    g_source_remove (sigint_id);
  }
  t_end = g_get_monotonic_time ();
  end_progress_line (&app);

  for (i = 0; i < app.n_conversions; i++)
    if (app.conversions[i]->failed)
      failed++;
  if (!many (&app) ? failed == 0 : !app.fatal)
    print_results (&app, (t_end - t_start) / (gdouble) G_USEC_PER_SEC);
  if (many (&app) && failed > 0 && !app.fatal)
    g_printerr ("error: %u of %u files failed\n", failed, app.n_conversions);
  if (app.interrupted && app.next < app.n_conversions)
    g_printerr ("interrupted: %u file%s not started\n",
        app.n_conversions - app.next,
        app.n_conversions - app.next == 1 ? "" : "s");
  ret = failed > 0 || app.fatal ? EXIT_RUNTIME :
      app.interrupted ? EXIT_INTERRUPTED : EXIT_SUCCESS;

done:
  for (i = 0; i < app.n_conversions; i++)
    conversion_free (app.conversions[i]);
  g_free (app.conversions);
  if (app.loop)
    g_main_loop_unref (app.loop);
  g_free (device);
  g_free (bits);
  g_free (dir);
  g_strfreev (files);
  return ret;
}
