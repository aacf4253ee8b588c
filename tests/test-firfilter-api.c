/* clresample: clfirfilter as a drop-in for audiofirfilter (issue 26): the
 * rate-changed signal, the properties audiofirfilter has, `location` read
 * off the caller's thread, the latency the element reports and the one it
 * has. Real pipelines (appsrc ! filter ! appsink) on the default OpenCL
 * device; every expectation exact: sample counts, timestamps, samples
 * against a float64 direct convolution and audiofirfilter's output. */
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gsttestclock.h>
#include <gst/audio/audio.h>
#include "clr-audio-check.h"

/* F32 against the float64 reference, absolute (full scale 1.0): the
 * output's own rounding to float is at most 3e-8 at the levels here
 * (|y| < 0.5), the engine's float transforms add about 2.5e-7 of the RMS
 * (docs/elements.md: 1.8e-7 ... 3.0e-7 measured), 5e-8 at an RMS of 0.2. 1e-6 holds
 * that ten times over; a filter not used from the first frame, a
 * crossfade, a frame's misalignment or a wrong filter are 1e-2 and more. */
#define F32_ABS 1e-6
/* F64: double transforms, errors of 1e-14 of the RMS (docs/elements.md) */
#define F64_ABS 1e-12

/* CLRESAMPLE_NO_FP64 (or a device without doubles): F32 where F64 would
 * be exact to the last bits */
static gboolean no_fp64;

/* ---- signals ------------------------------------------------------------ */

/* ---- appsrc ! filter ! appsink ------------------------------------------ */

typedef struct
{
  GstElement *pipe, *src, *filter, *sink;
  Fmt f;
  Out o;
  guint latency_messages;       /* from the filter, so far */
} Pipe;

/* appsrc ! factory ! appsink, not started: the caller sets the filter up */
static void
pipe_init (Pipe * p, const gchar * factory, const Fmt * f, gboolean live)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time ! %s "
      "name=filter ! appsink name=sink sync=false", factory);
  gchar *caps_str = caps_string (f);
  GstCaps *caps = gst_caps_from_string (caps_str);

  memset (p, 0, sizeof (*p));
  p->f = *f;
  p->pipe = gst_parse_launch (desc, NULL);
  fail_unless (p->pipe != NULL, "%s", desc);
  p->src = gst_bin_get_by_name (GST_BIN (p->pipe), "src");
  p->filter = gst_bin_get_by_name (GST_BIN (p->pipe), "filter");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipe), "sink");
  g_object_set (p->src, "caps", caps, "is-live", live, NULL);
  p->o.buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  gst_caps_unref (caps);
  g_free (caps_str);
  g_free (desc);
}

static void
pipe_start (Pipe * p)
{
  fail_if (gst_element_set_state (p->pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
}

/* frames off..off + n of x into appsrc, in buffers of `piece` frames */
static void
pipe_push (Pipe * p, const double *x, gsize off, gsize n, gsize piece)
{
  gsize pos;

  for (pos = off; pos < off + n; pos += piece) {
    GstBuffer *buf = make_buffer (&p->f, x, pos, MIN (piece, off + n - pos),
        0);
    GstFlowReturn ret;

    g_signal_emit_by_name (p->src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
}

/* The next sample from appsink into p->o; FALSE when none came within
 * timeout. */
static gboolean
pipe_pull (Pipe * p, GstClockTime timeout)
{
  GstSample *sample = NULL;
  GstAudioBuffer ab;
  GstAudioInfo info;
  GstBuffer *buf;
  gsize i, base;

  g_signal_emit_by_name (p->sink, "try-pull-sample", timeout, &sample);
  if (!sample)
    return FALSE;
  buf = gst_buffer_ref (gst_sample_get_buffer (sample));
  gst_sample_unref (sample);
  fmt_info (&p->f, &info);
  fail_unless (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ));
  base = p->o.frames * p->f.channels;
  p->o.data = g_renew (double, p->o.data, base + ab.n_samples *
      p->f.channels);
  for (i = 0; i < ab.n_samples * p->f.channels; i++)
    p->o.data[base + i] = get (ab.planes[0], i, p->f.format);
  p->o.frames += ab.n_samples;
  gst_audio_buffer_unmap (&ab);
  g_ptr_array_add (p->o.buffers, buf);
  return TRUE;
}

/* Pulls until `frames` output frames have come: with N frames in, that
 * many come out only once all N went through the filter (N - D of them,
 * D its latency in frames). */
static void
pipe_wait_frames (Pipe * p, gsize frames)
{
  while (p->o.frames < frames)
    fail_unless (pipe_pull (p, 20 * GST_SECOND), "%" G_GSIZE_FORMAT " of %"
        G_GSIZE_FORMAT " frames came out", p->o.frames, frames);
}

/* The messages on the bus so far: none an error; the filter's LATENCY
 * messages counted. */
static void
pipe_messages (Pipe * p)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop (GST_ELEMENT_BUS (p->pipe)))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      fail ("error: %s", err->message);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_LATENCY
        && GST_MESSAGE_SRC (msg) == GST_OBJECT (p->filter))
      p->latency_messages++;
    gst_message_unref (msg);
  }
}

/* EOS, everything pulled, no error on the bus */
static void
pipe_finish (Pipe * p)
{
  GstFlowReturn ret;
  gboolean eos = FALSE;

  g_signal_emit_by_name (p->src, "end-of-stream", &ret);
  fail_unless_equals_int (ret, GST_FLOW_OK);
  while (pipe_pull (p, 20 * GST_SECOND));
  g_object_get (p->sink, "eos", &eos, NULL);
  fail_unless (eos, "no EOS after %" G_GSIZE_FORMAT " frames", p->o.frames);
  pipe_messages (p);
}

static void
pipe_clear (Pipe * p)
{
  gst_element_set_state (p->pipe, GST_STATE_NULL);
  gst_object_unref (p->src);
  gst_object_unref (p->filter);
  gst_object_unref (p->sink);
  gst_object_unref (p->pipe);
  out_clear (&p->o);
}

/* max |o - reference| over frames t0..t1 of channel 0 (mono streams): the
 * reference is y[t + latency] of h over x[x0 .. x0 + n), the stream's
 * frame t being frame t - x0 of that run */
static double
run_error (const Out * o, gsize t0, gsize t1, const double *h, gsize taps,
    const double *x, gsize x0, gsize n, guint64 latency)
{
  double worst = 0.0;
  gsize t;

  for (t = t0; t < t1; t++)
    worst = MAX (worst, fabs (o->data[t] - direct (h, taps, x + x0, n, 1, 0,
                t - x0 + latency)));
  return worst;
}

/* The filter's own latency in frames, by the query (upstream's taken
 * away) */
static guint64
latency_of (Pipe * p)
{
  GstPad *sinkpad = gst_element_get_static_pad (p->filter, "sink");
  GstPad *srcpad = gst_element_get_static_pad (p->filter, "src");
  GstClockTime up_min, up_max, min, max;
  gboolean up_live, live;
  GstQuery *q = gst_query_new_latency ();

  fail_unless (gst_pad_peer_query (sinkpad, q));
  gst_query_parse_latency (q, &up_live, &up_min, &up_max);
  gst_query_unref (q);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_query (srcpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  gst_query_unref (q);
  gst_object_unref (sinkpad);
  gst_object_unref (srcpad);
  return gst_util_uint64_scale_int_round (min - up_min, RATE, GST_SECOND);
}

/* ---- (a) an application written for audiofirfilter ----------------------- */

typedef struct
{
  guint calls;
  gint rate;
  double *h;
  gsize taps;
} AppState;

/* What an audiofirfilter application does (its firfilter-example): a
 * linear-phase low-pass designed in the handler for the rate it is given
 * (a Hamming-windowed sinc, 4 kHz, 2 ms long), its delay as `latency`. */
static void
on_rate_changed (GstElement * e, gint rate, AppState * st)
{
  gsize n = 2 * (rate / 1000) + 1, k;
  double fc = 4000.0 / rate, m = (n - 1) / 2.0;

  st->calls++;
  st->rate = rate;
  g_free (st->h);
  st->h = g_new (double, n);
  st->taps = n;
  for (k = 0; k < n; k++) {
    double d = k - m;
    double s = d == 0.0 ? 2 * fc : sin (2 * G_PI * fc * d) / (G_PI * d);
    st->h[k] = s * (0.54 - 0.46 * cos (2 * G_PI * k / (n - 1)));
  }
  set_kernel (e, st->h, n);
  g_object_set (e, "latency", (guint64) (n - 1) / 2, NULL);
}

static void
run_app (const gchar * factory, const double *x, gsize frames, AppState * st,
    Pipe * p)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };

  pipe_init (p, factory, &f, FALSE);
  g_signal_connect (p->filter, "rate-changed", G_CALLBACK (on_rate_changed),
      st);
  pipe_start (p);
  pipe_push (p, x, 0, frames, 700);
  pipe_finish (p);
}

/* The handler runs once, with the stream's rate, and the filter it sets is
 * the one the first frame gets (no crossfade from the default filter, no
 * delay added): the same frames, timestamps and samples as audiofirfilter
 * with the same handler, and as the float64 reference. */
GST_START_TEST (test_rate_changed_app)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 20000;
  double *x = make_input (&f, frames, 0.5, 26), worst_ref, worst_af = 0.0;
  AppState ours = { 0 }, theirs = { 0 };
  GstBuffer *a0, *b0, *a1, *b1;
  Pipe a, b;
  gsize t;

  run_app ("clfirfilter", x, frames, &ours, &a);
  run_app ("audiofirfilter", x, frames, &theirs, &b);
  fail_unless_equals_int (ours.calls, 1);
  fail_unless_equals_int (ours.rate, RATE);
  fail_unless_equals_int (theirs.calls, 1);
  fail_unless_equals_int (theirs.rate, RATE);
  fail_unless_equals_uint64 (ours.taps, 97);
  /* one LATENCY message, for B + the handler's latency: the stream was
   * set up with the handler's filter and latency, not set up with the
   * default ones and changed at the first buffer */
  fail_unless_equals_int (a.latency_messages, 1);
  fail_unless_equals_uint64 (latency_of (&a), 1024 + 48);

  fail_unless_equals_uint64 (a.o.frames, frames);
  fail_unless_equals_uint64 (b.o.frames, frames);
  check_stamps (&a.o, 0);
  a0 = g_ptr_array_index (a.o.buffers, 0);
  b0 = g_ptr_array_index (b.o.buffers, 0);
  a1 = g_ptr_array_index (a.o.buffers, a.o.buffers->len - 1);
  b1 = g_ptr_array_index (b.o.buffers, b.o.buffers->len - 1);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (a0), GST_BUFFER_PTS (b0));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (a0), GST_BUFFER_OFFSET (b0));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET_END (a1),
      GST_BUFFER_OFFSET_END (b1));

  /* every frame, the first block (where a crossfade from the default
   * filter would be) included */
  worst_ref = run_error (&a.o, 0, frames, ours.h, ours.taps, x, 0, frames,
      (ours.taps - 1) / 2);
  for (t = 0; t < frames; t++)
    worst_af = MAX (worst_af, fabs (a.o.data[t] - b.o.data[t]));
  g_print ("# rate-changed app, %" G_GSIZE_FORMAT " taps: max |error| %.2e "
      "against the reference, %.2e against audiofirfilter\n", ours.taps,
      worst_ref, worst_af);
  fail_unless (worst_ref <= F32_ABS, "error %g", worst_ref);
  fail_unless (worst_af <= F32_ABS, "difference %g", worst_af);

  pipe_clear (&a);
  pipe_clear (&b);
  g_free (ours.h);
  g_free (theirs.h);
  g_free (x);
}

GST_END_TEST;

/* ---- (b) audiofirfilter's properties and signal ------------------------- */

GST_START_TEST (test_same_api)
{
  GstElement *ours = gst_element_factory_make ("clfirfilter", NULL);
  GstElement *theirs = gst_element_factory_make ("audiofirfilter", NULL);
  GParamSpec **specs;
  GSignalQuery qa, qb;
  guint n, i, checked = 0;

  fail_unless (ours != NULL && theirs != NULL);
  specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (theirs), &n);
  for (i = 0; i < n; i++) {
    GParamSpec *t = specs[i], *o =
        g_object_class_find_property (G_OBJECT_GET_CLASS (ours), t->name);
    GValue vo = G_VALUE_INIT, vt = G_VALUE_INIT;

    fail_unless (o != NULL, "clfirfilter has no '%s'", t->name);
    fail_unless (G_PARAM_SPEC_VALUE_TYPE (o) == G_PARAM_SPEC_VALUE_TYPE (t),
        "'%s' is a %s, audiofirfilter's a %s", t->name,
        g_type_name (G_PARAM_SPEC_VALUE_TYPE (o)),
        g_type_name (G_PARAM_SPEC_VALUE_TYPE (t)));
    fail_unless ((o->flags & t->flags & G_PARAM_READWRITE) ==
        (t->flags & G_PARAM_READWRITE), "'%s' is not as readable and "
        "writable as audiofirfilter's", t->name);
    if (!strcmp (t->name, "name") || !strcmp (t->name, "parent"))
      continue;
    /* the same value on a new element (the default; the kernel's is the
     * identity, <1.0>, for both) */
    g_value_init (&vo, G_PARAM_SPEC_VALUE_TYPE (o));
    g_value_init (&vt, G_PARAM_SPEC_VALUE_TYPE (t));
    g_object_get_property (G_OBJECT (ours), t->name, &vo);
    g_object_get_property (G_OBJECT (theirs), t->name, &vt);
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
    if (G_VALUE_HOLDS (&vo, g_value_array_get_type ())) {
      GValueArray *ao = g_value_get_boxed (&vo), *at = g_value_get_boxed (&vt);
      guint k;

      fail_unless (ao != NULL && at != NULL);
      fail_unless_equals_int (ao->n_values, at->n_values);
      for (k = 0; k < at->n_values; k++)
        fail_unless_equals_float (g_value_get_double (g_value_array_get_nth
                (ao, k)), g_value_get_double (g_value_array_get_nth (at, k)));
    } else {
      fail_unless (g_param_values_cmp (o, &vo, &vt) == 0, "'%s' differs on "
          "a new element", t->name);
    }
    G_GNUC_END_IGNORE_DEPRECATIONS;
    g_value_unset (&vo);
    g_value_unset (&vt);
    checked++;
  }
  /* kernel, latency, drain-on-changes, low-latency and basetransform's
   * qos */
  fail_unless_equals_int (checked, 5);
  g_free (specs);

  /* rate-changed: void (GstElement *, gint, gpointer), run last */
  fail_unless (g_signal_lookup ("rate-changed", G_OBJECT_TYPE (ours)) != 0,
      "clfirfilter has no rate-changed signal");
  g_signal_query (g_signal_lookup ("rate-changed", G_OBJECT_TYPE (ours)),
      &qa);
  g_signal_query (g_signal_lookup ("rate-changed", G_OBJECT_TYPE (theirs)),
      &qb);
  fail_unless (qa.return_type == qb.return_type);
  fail_unless (qa.return_type == G_TYPE_NONE);
  fail_unless_equals_int (qa.n_params, qb.n_params);
  fail_unless_equals_int (qa.n_params, 1);
  fail_unless (qa.param_types[0] == qb.param_types[0]);
  fail_unless (qa.param_types[0] == G_TYPE_INT);
  fail_unless_equals_int (qa.signal_flags & G_SIGNAL_RUN_LAST,
      qb.signal_flags & G_SIGNAL_RUN_LAST);
  gst_object_unref (ours);
  gst_object_unref (theirs);
}

GST_END_TEST;

/* The kernel read back is the kernel set: doubles to the bit (read
 * straight, not kept as given), other numbers as the types they were set
 * as, and a value that is no number kept so that the error can name it. */
GST_START_TEST (test_kernel_round_trip)
{
  const double taps[] = { 0.5, -0.25, 1e-300, 3.0, -0.0, 1.0 / 3.0 };
  GstElement *e = gst_element_factory_make ("clfirfilter", NULL);
  GValueArray *set, *got = NULL;
  GValue v = G_VALUE_INIT;
  guint k;

  fail_unless (e != NULL);
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  set = g_value_array_new (G_N_ELEMENTS (taps));
  g_value_init (&v, G_TYPE_DOUBLE);
  for (k = 0; k < G_N_ELEMENTS (taps); k++) {
    g_value_set_double (&v, taps[k]);
    g_value_array_append (set, &v);
  }
  g_value_unset (&v);
  g_object_set (e, "kernel", set, NULL);
  g_value_array_free (set);
  g_object_get (e, "kernel", &got, NULL);
  fail_unless (got != NULL);
  fail_unless_equals_int (got->n_values, G_N_ELEMENTS (taps));
  for (k = 0; k < got->n_values; k++) {
    const GValue *g = g_value_array_get_nth (got, k);
    double back;

    fail_unless (G_VALUE_HOLDS_DOUBLE (g), "tap %u came back a %s", k,
        G_VALUE_TYPE_NAME (g));
    back = g_value_get_double (g);
    fail_unless (memcmp (&back, &taps[k], sizeof (double)) == 0,
        "tap %u: %.17g set, %.17g read back", k, taps[k], back);
  }
  g_value_array_free (got);

  /* ints, and a string among them */
  set = g_value_array_new (3);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 2);
  g_value_array_append (set, &v);
  g_value_set_int (&v, -7);
  g_value_array_append (set, &v);
  g_value_unset (&v);
  g_object_set (e, "kernel", set, NULL);
  g_object_get (e, "kernel", &got, NULL);
  fail_unless_equals_int (got->n_values, 2);
  fail_unless (G_VALUE_HOLDS_INT (g_value_array_get_nth (got, 0)));
  fail_unless_equals_int (g_value_get_int (g_value_array_get_nth (got, 1)),
      -7);
  g_value_array_free (got);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "loud");
  g_value_array_append (set, &v);
  g_value_unset (&v);
  g_object_set (e, "kernel", set, NULL);
  g_value_array_free (set);
  g_object_get (e, "kernel", &got, NULL);
  fail_unless_equals_int (got->n_values, 3);
  fail_unless_equals_string (g_value_get_string (g_value_array_get_nth (got,
              2)), "loud");
  g_value_array_free (got);

  /* empty stays empty, NULL stays NULL */
  set = g_value_array_new (0);
  g_object_set (e, "kernel", set, NULL);
  g_value_array_free (set);
  g_object_get (e, "kernel", &got, NULL);
  fail_unless (got != NULL);
  fail_unless_equals_int (got->n_values, 0);
  g_value_array_free (got);
  g_object_set (e, "kernel", NULL, NULL);
  g_object_get (e, "kernel", &got, NULL);
  fail_unless (got == NULL);
  G_GNUC_END_IGNORE_DEPRECATIONS;
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- (c) `location` off the caller's thread ------------------------------ */

/* The element's load threads, watched and held through the log lines they
 * write (category clfirfilter, INFO): "loading the filter file '<path>'"
 * first thing, "the filter file '<path>' is loaded ..." once its filter
 * is the element's (written after the filter is handed over: a stream
 * waiting for it may go on first, so a test waits for the line), "the
 * load of '<path>' was superseded or stopped" otherwise. A load held at
 * its first line has read nothing. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean active;              /* between watch_begin () and watch_end () */
  GThread *caller;
  const gchar *path[2];
  gboolean hold[2];
  guint started[2], on_caller[2], loaded[2], dropped[2];
  guint built[2];               /* its convolution built, off the stream */
} LoadWatch;

/* Static, never freed: a test case that fails jumps out of its function
 * (CK_FORK=no in the sanitizer pass) without watch_end (), and a thread
 * of its elements may still be logging; a watch on its stack would then
 * be read, dead, by the next case's log lines. The case's teardown ends
 * the watch instead. */
static LoadWatch watch;

static void
watch_log (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer user_data)
{
  LoadWatch *w = &watch;
  const gchar *text;
  guint i;

  if (level != GST_LEVEL_INFO
      || strcmp (gst_debug_category_get_name (cat), "clfirfilter") != 0)
    return;
  text = gst_debug_message_get (message);
  g_mutex_lock (&w->lock);
  for (i = 0; w->active && i < 2; i++) {
    gchar *quoted;

    if (!w->path[i])
      continue;
    quoted = g_strdup_printf ("'%s'", w->path[i]);
    if (strstr (text, quoted)) {
      if (g_str_has_prefix (text, "loading the filter file ")) {
        if (g_thread_self () == w->caller) {
          w->on_caller[i]++;
        } else {
          gint64 end = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

          w->started[i]++;
          g_cond_broadcast (&w->cond);
          while (w->active && w->hold[i]
              && g_cond_wait_until (&w->cond, &w->lock, end));
        }
      } else if (g_str_has_prefix (text, "the filter file ")
          && strstr (text, " is loaded")) {
        w->loaded[i]++;
      } else if (g_str_has_prefix (text, "the load of ")) {
        w->dropped[i]++;
      } else if (g_str_has_prefix (text, "the convolution of ")) {
        w->built[i]++;
      }
      g_cond_broadcast (&w->cond);
    }
    g_free (quoted);
  }
  g_mutex_unlock (&w->lock);
}

static LoadWatch *
watch_begin (void)
{
  static gsize added = 0;
  LoadWatch *w = &watch;

  /* never removed: a load thread may be in it */
  if (g_once_init_enter (&added)) {
    gst_debug_set_threshold_for_name ("clfirfilter", GST_LEVEL_INFO);
    gst_debug_add_log_function (watch_log, NULL, NULL);
    g_once_init_leave (&added, 1);
  }
  g_mutex_lock (&w->lock);
  memset (w->path, 0, sizeof (w->path));
  memset (w->hold, 0, sizeof (w->hold));
  memset (w->started, 0, sizeof (w->started));
  memset (w->on_caller, 0, sizeof (w->on_caller));
  memset (w->loaded, 0, sizeof (w->loaded));
  memset (w->dropped, 0, sizeof (w->dropped));
  memset (w->built, 0, sizeof (w->built));
  w->caller = g_thread_self ();
  w->active = TRUE;
  g_mutex_unlock (&w->lock);
  return w;
}

/* after every element that loaded is gone (its loads joined); also every
 * case's teardown, for a case that failed before it: a load it held goes
 * on, and no path it named is read again */
static void
watch_end (void)
{
  g_mutex_lock (&watch.lock);
  watch.active = FALSE;
  memset (watch.path, 0, sizeof (watch.path));
  g_cond_broadcast (&watch.cond);
  g_mutex_unlock (&watch.lock);
}

static guint
watch_get (LoadWatch * w, const guint * counter)
{
  guint v;

  g_mutex_lock (&w->lock);
  v = *counter;
  g_mutex_unlock (&w->lock);
  return v;
}

/* until *counter is n; FALSE after 20 s */
static gboolean
watch_wait (LoadWatch * w, const guint * counter, guint n)
{
  gint64 end = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  gboolean ok;

  g_mutex_lock (&w->lock);
  while (*counter < n && g_cond_wait_until (&w->cond, &w->lock, end));
  ok = *counter >= n;
  g_mutex_unlock (&w->lock);
  return ok;
}

static void
watch_release (LoadWatch * w, guint i)
{
  g_mutex_lock (&w->lock);
  w->hold[i] = FALSE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

/* Set before the stream starts: set_property returns with the file not
 * read (its load held before it reads a byte, in a thread of its own),
 * the stream waits for it, and its first frame is filtered by it. */
GST_START_TEST (test_location_before_start)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 12000, taps = 700;
  double *h = make_filter (taps, 3), *x = make_input (&f, frames, 0.5, 4);
  gchar *wav = write_wav (&h, 1, taps);
  double worst;
  LoadWatch *w;
  Pipe p;

  w = watch_begin ();
  w->path[0] = wav;
  w->hold[0] = TRUE;
  pipe_init (&p, "clfirfilter", &f, FALSE);
  g_object_set (p.filter, "block-size", 256, NULL);
  g_object_set (p.filter, "location", wav, NULL);
  fail_unless_equals_int (watch_get (w, &w->on_caller[0]), 0);
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 0);
  fail_unless (watch_wait (w, &w->started[0], 1), "no load thread");

  /* nothing comes out while the load is held */
  pipe_start (&p);
  pipe_push (&p, x, 0, frames, 480);
  fail_if (pipe_pull (&p, 300 * GST_MSECOND));
  watch_release (w, 0);
  pipe_finish (&p);
  fail_unless (watch_wait (w, &w->loaded[0], 1), "never loaded");
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 1);
  fail_unless_equals_uint64 (p.o.frames, frames);
  check_stamps (&p.o, 0);
  worst = run_error (&p.o, 0, frames, h, taps, x, 0, frames, 0);
  fail_unless (worst <= F32_ABS, "error %g", worst);
  pipe_clear (&p);

  watch_end ();
  g_unlink (wav);
  g_free (wav);
  g_free (h);
  g_free (x);
}

GST_END_TEST;

static gpointer
release_later (gpointer data)
{
  g_usleep (300 * G_TIME_SPAN_MILLISECOND);
  watch_release (data, 0);
  return NULL;
}

/* Stopped while the stream waits for a load: the state change lets the
 * wait go, cancels the load and joins its thread; the next start loads
 * the file again and filters the first frame with it. An element dropped
 * while a load runs joins it before it goes. */
GST_START_TEST (test_location_stop_finalize)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 6000, taps = 400;
  double *h = make_filter (taps, 5), *x = make_input (&f, frames, 0.5, 6);
  gchar *wav = write_wav (&h, 1, taps);
  GstElement *e;
  GThread *th;
  double worst;
  LoadWatch *w;
  Pipe p;

  w = watch_begin ();
  w->path[0] = wav;
  w->hold[0] = TRUE;
  pipe_init (&p, "clfirfilter", &f, FALSE);
  g_object_set (p.filter, "location", wav, NULL);
  fail_unless (watch_wait (w, &w->started[0], 1));
  pipe_start (&p);
  pipe_push (&p, x, 0, frames, 480);
  fail_if (pipe_pull (&p, 200 * GST_MSECOND));
  th = g_thread_new ("release", release_later, w);
  fail_unless_equals_int (gst_element_set_state (p.pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  g_thread_join (th);
  /* joined: its last line came before the state change returned */
  fail_unless_equals_int (watch_get (w, &w->dropped[0]), 1);
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 0);

  gst_bus_set_flushing (GST_ELEMENT_BUS (p.pipe), TRUE);
  gst_bus_set_flushing (GST_ELEMENT_BUS (p.pipe), FALSE);
  out_clear (&p.o);
  p.o.buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  pipe_start (&p);
  pipe_push (&p, x, 0, frames, 480);
  pipe_finish (&p);
  fail_unless_equals_int (watch_get (w, &w->started[0]), 2);
  fail_unless (watch_wait (w, &w->loaded[0], 1), "never loaded");
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 1);
  fail_unless_equals_uint64 (p.o.frames, frames);
  check_stamps (&p.o, 0);
  worst = run_error (&p.o, 0, frames, h, taps, x, 0, frames, 0);
  fail_unless (worst <= F32_ABS, "error %g", worst);
  pipe_clear (&p);

  e = gst_element_factory_make ("clfirfilter", NULL);
  g_object_set (e, "location", wav, NULL);
  gst_object_unref (e);
  fail_unless_equals_int (watch_get (w, &w->started[0]), 3);
  fail_unless_equals_int (watch_get (w, &w->loaded[0]) + watch_get (w,
          &w->dropped[0]), 3);

  watch_end ();
  g_unlink (wav);
  g_free (wav);
  g_free (h);
  g_free (x);
}

GST_END_TEST;

/* Set while PLAYING, a second file set during the first's load: the first
 * is superseded and, ending after the second, dropped; the second takes
 * over, crossfaded over one block as any filter change (F64: exact to the
 * last bits). In real time (every buffer due: the pipeline's test clock
 * set 1000 s on) the filter playing goes on while the files load and
 * while the second's convolution is built off the streaming thread (from
 * the first buffer after its load), and it takes over at the first buffer
 * after that; with no clock (nobody waiting in real time: a file
 * conversion) the next buffer waits for the load and the build, and the
 * second takes over there. */
static void
check_location_while_playing (gboolean realtime)
{
  Fmt f = { no_fp64 ? GST_AUDIO_FORMAT_F32 : GST_AUDIO_FORMAT_F64, FALSE, 1 };
  const double limit = no_fp64 ? F32_ABS : F64_ABS;
  const guint B = 256;
  const gsize frames = 14400, set_at = 4800, t_old = 300, t_a = 500,
      t_b = 900;
  /* where the new filter takes over: in real time the first buffer after
   * its convolution was built, 10080 unless the builder's thread was slow
   * to hand it over after its log line (then a later buffer's start) */
  gsize change = realtime ? 10080 : set_at;
  double *r_old = g_new (double, frames), *r_new = g_new (double, frames);
  double *h0 = make_filter (t_old, 7), *ha = make_filter (t_a, 8),
      *hb = make_filter (t_b, 9), *x = make_input (&f, frames, 0.5, 10);
  gchar *wav_a = write_wav (&ha, 1, t_a), *wav_b = write_wav (&hb, 1, t_b);
  GstClock *clock = gst_test_clock_new ();
  double worst = 0.0;
  LoadWatch *w;
  Pipe p;
  gsize t;

  w = watch_begin ();
  w->path[0] = wav_a;
  w->path[1] = wav_b;
  w->hold[0] = w->hold[1] = TRUE;
  pipe_init (&p, "clfirfilter", &f, FALSE);
  gst_pipeline_use_clock (GST_PIPELINE (p.pipe), realtime ? clock : NULL);
  g_object_set (p.filter, "block-size", B, NULL);
  set_kernel (p.filter, h0, t_old);
  pipe_start (&p);
  pipe_push (&p, x, 0, set_at, 480);
  pipe_wait_frames (&p, set_at - B);
  if (realtime) {
    /* PLAYING, its base time taken: every buffer is 1000 s late */
    fail_unless_equals_int (gst_element_get_state (p.pipe, NULL, NULL,
            GST_CLOCK_TIME_NONE), GST_STATE_CHANGE_SUCCESS);
    gst_test_clock_set_time (GST_TEST_CLOCK (clock), 1000 * GST_SECOND);
  }

  g_object_set (p.filter, "location", wav_a, NULL);
  g_object_set (p.filter, "location", wav_b, NULL);
  fail_unless_equals_int (watch_get (w, &w->on_caller[0]), 0);
  fail_unless_equals_int (watch_get (w, &w->on_caller[1]), 0);
  fail_unless (watch_wait (w, &w->started[0], 1));
  fail_unless (watch_wait (w, &w->started[1], 1));
  pipe_push (&p, x, set_at, 9600 - set_at, 480);
  if (realtime) {
    /* the filter playing goes on */
    pipe_wait_frames (&p, 9600 - B);
  } else {
    /* the next buffer waits for the load */
    fail_if (pipe_pull (&p, 300 * GST_MSECOND));
  }
  /* B ends first, A after it */
  watch_release (w, 1);
  fail_unless (watch_wait (w, &w->loaded[1], 1));
  watch_release (w, 0);
  fail_unless (watch_wait (w, &w->dropped[0], 1));
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 0);
  if (realtime) {
    /* the first buffer after the load hands the filter to the builder and
     * goes on with the old one; the one after it is built takes it */
    pipe_push (&p, x, 9600, 480, 480);
    pipe_wait_frames (&p, 10080 - B);
    fail_unless (watch_wait (w, &w->built[1], 1), "never built");
    g_usleep (50000);
    pipe_push (&p, x, 10080, frames - 10080, 480);
  } else {
    pipe_push (&p, x, 9600, frames - 9600, 480);
  }
  pipe_finish (&p);

  fail_unless_equals_uint64 (p.o.frames, frames);
  check_stamps (&p.o, 0);
  for (t = 0; t < frames; t++) {
    r_old[t] = direct (h0, t_old, x, frames, 1, 0, t);
    r_new[t] = direct (hb, t_b, x, frames, 1, 0, t);
  }
  for (;; change += 480) {
    worst = 0.0;
    for (t = 0; t < frames; t++) {
      double r = r_old[t];

      if (t >= change - B) {
        double wgt = MIN (1.0, (double) (t - (change - B)) / B);
        r = (1.0 - wgt) * r + wgt * r_new[t];
      }
      worst = MAX (worst, fabs (p.o.data[t] - r));
    }
    if (!realtime || worst <= limit || change + 480 + B >= frames)
      break;
  }
  g_print ("# location set while playing (%s, %s): the new filter at frame "
      "%" G_GSIZE_FORMAT ", max |error| %.2e\n",
      gst_audio_format_to_string (f.format), realtime ? "real time" :
      "no clock", change, worst);
  fail_unless (worst <= limit, "error %g", worst);
  g_free (r_old);
  g_free (r_new);
  pipe_clear (&p);

  watch_end ();
  gst_object_unref (clock);
  g_unlink (wav_a);
  g_unlink (wav_b);
  g_free (wav_a);
  g_free (wav_b);
  g_free (h0);
  g_free (ha);
  g_free (hb);
  g_free (x);
}

GST_START_TEST (test_location_while_playing)
{
  check_location_while_playing (TRUE);
  check_location_while_playing (FALSE);
}

GST_END_TEST;

/* The stream's first caps wait for a `location` still loading (holding
 * the stream lock); a flushing seek meanwhile must not wait for the load
 * (up to 120 s): FLUSH_START ends the wait, FLUSH_STOP then returns at
 * once, the load going on. After the flush the stream starts again, waits
 * for the file once more and filters its first frame with it. */
typedef struct
{
  GstHarness *h;
  gchar *caps;
} CapsPush;

/* (a sticky event: its push says TRUE whether taken or kept for later) */
static gpointer
push_caps (gpointer data)
{
  CapsPush *c = data;

  gst_harness_push_event (c->h, gst_event_new_caps (gst_caps_from_string
          (c->caps)));
  return NULL;
}

GST_START_TEST (test_location_flush)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 4800, taps = 300;
  double *h = make_filter (taps, 12), *x = make_input (&f, frames, 0.5, 13);
  gchar *wav = write_wav (&h, 1, taps);
  GstElement *e = gst_element_factory_make ("clfirfilter", NULL);
  CapsPush c = { NULL, caps_string (&f) };
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GThread *pusher;
  LoadWatch *w;
  Out o = { 0 };
  gsize piece_len = 480, piece = 0;
  gint64 t;
  double worst;

  w = watch_begin ();
  w->path[0] = wav;
  w->hold[0] = TRUE;
  g_object_set (e, "location", wav, "block-size", 256, NULL);
  fail_unless (watch_wait (w, &w->started[0], 1), "no load thread");
  c.h = gst_harness_new_with_element (e, "sink", "src");
  gst_harness_set_sink_caps_str (c.h, c.caps);
  /* the caps wait for the load, on a thread of their own */
  pusher = g_thread_new ("caps", push_caps, &c);
  g_usleep (200000);
  t = g_get_monotonic_time ();
  fail_unless (gst_harness_push_event (c.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (c.h, gst_event_new_flush_stop (TRUE)));
  t = g_get_monotonic_time () - t;
  g_thread_join (pusher);
  g_print ("# a flush while the first caps wait for the file: %.1f ms\n",
      t / 1000.0);
  fail_unless (t < 2 * G_TIME_SPAN_SECOND, "the flush waited %.1f ms for "
      "the load", t / 1000.0);
  fail_if (gst_pad_has_current_caps (sink), "caps taken without the file");
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 0);

  /* the stream again: its caps wait for the file, released later */
  pusher = g_thread_new ("release", release_later, w);
  gst_harness_set_src_caps_str (c.h, c.caps);
  g_thread_join (pusher);
  fail_unless (gst_pad_has_current_caps (sink));
  fail_unless (watch_wait (w, &w->loaded[0], 1), "never loaded");
  fail_unless_equals_int (watch_get (w, &w->loaded[0]), 1);
  push_range (c.h, &f, x, 0, frames, &piece_len, 1, &piece);
  fail_unless (gst_harness_push_event (c.h, gst_event_new_eos ()));
  collect (c.h, &f, &o);
  fail_unless_equals_uint64 (o.frames, frames);
  check_stamps (&o, 0);
  worst = run_error (&o, 0, frames, h, taps, x, 0, frames, 0);
  fail_unless (worst <= F32_ABS, "error %g", worst);
  out_clear (&o);
  gst_object_unref (sink);
  gst_harness_teardown (c.h);

  watch_end ();
  g_free (c.caps);
  g_unlink (wav);
  g_free (wav);
  g_free (h);
  g_free (x);
}

GST_END_TEST;

/* ---- (d) latency --------------------------------------------------------- */

/* In a live pipeline: a LATENCY message once the caps are known (a live
 * pipeline asks before them), the query answers upstream's latency and
 * D = B + latency frames more, and the element holds back exactly D
 * frames: N in, N - D out until EOS, then the rest. With low-latency, B is
 * 16 whatever block-size says. */
GST_START_TEST (test_latency)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  const gsize frames = 6000, taps = 300;
  static const struct
  {
    gboolean low;
    guint64 d;
  } cases[] = { {FALSE, 512 + 100}, {TRUE, 16 + 100} };
  double *h = make_filter (taps, 11), *x = make_input (&f, frames, 0.5, 12);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstClockTime up_min, up_max, min, max;
    gboolean up_live, live;
    GstPad *sinkpad, *appsinkpad;
    GstQuery *q;
    double worst;
    Pipe p;

    pipe_init (&p, "clfirfilter", &f, TRUE);
    g_object_set (p.filter, "block-size", 512, "latency", (guint64) 100,
        "low-latency", cases[i].low, NULL);
    set_kernel (p.filter, h, taps);
    pipe_start (&p);
    pipe_push (&p, x, 0, frames, 480);
    pipe_wait_frames (&p, frames - cases[i].d);
    fail_unless_equals_uint64 (p.o.frames, frames - cases[i].d);
    fail_if (pipe_pull (&p, 200 * GST_MSECOND));
    pipe_messages (&p);
    fail_unless_equals_int (p.latency_messages, 1);

    sinkpad = gst_element_get_static_pad (p.filter, "sink");
    appsinkpad = gst_element_get_static_pad (p.sink, "sink");
    q = gst_query_new_latency ();
    fail_unless (gst_pad_peer_query (sinkpad, q));
    gst_query_parse_latency (q, &up_live, &up_min, &up_max);
    gst_query_unref (q);
    q = gst_query_new_latency ();
    fail_unless (gst_pad_peer_query (appsinkpad, q));
    gst_query_parse_latency (q, &live, &min, &max);
    gst_query_unref (q);
    fail_unless (live && up_live);
    fail_unless_equals_uint64 (min, up_min +
        gst_util_uint64_scale_int_round (cases[i].d, GST_SECOND, RATE));
    if (GST_CLOCK_TIME_IS_VALID (up_max)) {
      fail_unless_equals_uint64 (max, up_max +
          gst_util_uint64_scale_int_round (cases[i].d, GST_SECOND, RATE));
    } else {
      fail_unless_equals_uint64 (max, GST_CLOCK_TIME_NONE);
    }
    gst_object_unref (sinkpad);
    gst_object_unref (appsinkpad);

    pipe_finish (&p);
    fail_unless_equals_uint64 (p.o.frames, frames);
    check_stamps (&p.o, 0);
    worst = run_error (&p.o, 0, frames, h, taps, x, 0, frames, 100);
    fail_unless (worst <= F32_ABS, "error %g", worst);
    pipe_clear (&p);
  }
  g_free (h);
  g_free (x);
}

GST_END_TEST;

/* ---- changes that end the run, as audiofirfilter's ---------------------- */

typedef struct
{
  GstElement *e;
  guint64 at;                   /* input frame the change comes before */
  void (*change) (GstElement * e, gpointer data);
  gpointer data;
  gboolean done;
} ChangeAt;

static GstPadProbeReturn
change_probe (GstPad * pad, GstPadProbeInfo * info, ChangeAt * c)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);

  if (!c->done && GST_BUFFER_OFFSET (buf) == c->at) {
    c->change (c->e, c->data);
    c->done = TRUE;
  }
  return GST_PAD_PROBE_OK;
}

typedef struct
{
  const double *h[2];
  gsize taps[2];
  guint64 latency[2];
  gboolean drain_on_changes;
} Restart;

static void
change_latency (GstElement * e, gpointer data)
{
  g_object_set (e, "latency", ((Restart *) data)->latency[1], NULL);
}

static void
change_kernel (GstElement * e, gpointer data)
{
  set_kernel (e, ((Restart *) data)->h[1], ((Restart *) data)->taps[1]);
}

/* The change comes from the streaming thread, before the buffer that
 * starts at frame `at`: the run ends there (its frames owed pushed: the
 * first `at` output frames are filter 0 over x[0, at)), and a new run
 * starts with the new filter or latency on silence. Returns the largest
 * error; *out takes the output. */
static double
run_restart (const gchar * factory, Restart * r, void (*change) (GstElement *
        e, gpointer data), const double *x, gsize frames, gsize at, Out * out)
{
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  ChangeAt c = { NULL, at, change, r, FALSE };
  GstPad *pad;
  double worst;
  Pipe p;

  pipe_init (&p, factory, &f, FALSE);
  g_object_set (p.filter, "latency", r->latency[0], "drain-on-changes",
      r->drain_on_changes, NULL);
  set_kernel (p.filter, r->h[0], r->taps[0]);
  c.e = p.filter;
  pad = gst_element_get_static_pad (p.filter, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER,
      (GstPadProbeCallback) change_probe, &c, NULL);
  gst_object_unref (pad);
  pipe_start (&p);
  pipe_push (&p, x, 0, frames, 480);
  pipe_finish (&p);
  fail_unless (c.done);
  fail_unless_equals_uint64 (p.o.frames, frames);
  worst = MAX (run_error (&p.o, 0, at, r->h[0], r->taps[0], x, 0, at,
          r->latency[0]), run_error (&p.o, at, frames, r->h[1], r->taps[1],
          x, at, frames - at, r->latency[1]));
  *out = p.o;
  memset (&p.o, 0, sizeof (p.o));
  pipe_clear (&p);
  return worst;
}

/* A latency change while PLAYING (audiofirfilter: the residue pushed, a
 * new start with it); and a kernel change with drain-on-changes=FALSE
 * (the same). clfirfilter against the reference and against
 * audiofirfilter; its new run starts with a DISCONT buffer stamped at the
 * change, and a LATENCY message said the new latency. */
GST_START_TEST (test_restarts)
{
  const gsize frames = 9600, at = 4800;
  Fmt f = { GST_AUDIO_FORMAT_F32, FALSE, 1 };
  double *h1 = make_filter (200, 13), *h2 = make_filter (300, 14),
      *x = make_input (&f, frames, 0.5, 15);
  Restart cases[] = {
    {{h1, h1}, {200, 200}, {100, 40}, TRUE},
    {{h1, h2}, {200, 300}, {20, 20}, FALSE},
  };
  guint i, b;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    void (*change) (GstElement *, gpointer) = i == 0 ? change_latency :
        change_kernel;
    Out a, o;
    double ours = run_restart ("clfirfilter", &cases[i], change, x, frames,
        at, &o);
    double theirs = run_restart ("audiofirfilter", &cases[i], change, x,
        frames, at, &a);
    double diff = 0.0;
    guint64 pos = 0;
    gsize t;

    for (t = 0; t < frames; t++)
      diff = MAX (diff, fabs (o.data[t] - a.data[t]));
    g_print ("# %s while PLAYING: max |error| %.2e against the reference, "
        "%.2e against audiofirfilter (its own error %.2e)\n",
        i == 0 ? "latency change" : "kernel change, drain-on-changes=FALSE",
        ours, diff, theirs);
    fail_unless (ours <= F32_ABS, "error %g", ours);
    fail_unless (diff <= F32_ABS, "difference %g", diff);
    /* the new run's first buffer: at the change, DISCONT */
    for (b = 0; b < o.buffers->len; b++) {
      GstBuffer *buf = g_ptr_array_index (o.buffers, b);

      fail_unless_equals_uint64 (GST_BUFFER_PTS (buf),
          gst_util_uint64_scale_int (pos, GST_SECOND, RATE));
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (buf,
              GST_BUFFER_FLAG_DISCONT), pos == 0 || pos == at);
      fail_unless (pos >= at || GST_BUFFER_OFFSET_END (buf) <= at);
      pos = GST_BUFFER_OFFSET_END (buf);
    }
    fail_unless_equals_uint64 (pos, frames);
    out_clear (&o);
    out_clear (&a);
  }
  g_free (h1);
  g_free (h2);
  g_free (x);
}

GST_END_TEST;

/* ---- gst-plugins-good's own audiofirfilter check ------------------------ */

static void
delay_kernel (GstElement * e, gint rate, gpointer user_data)
{
  static const double h[] = { 0.0, 0.0, 0.0, 0.0, 0.0, 1.0 };

  fail_unless (rate > 0);
  set_kernel (e, h, G_N_ELEMENTS (h));
}

static void
first_buffer_delayed (GstElement * sink, GstBuffer * buffer, GstPad * pad,
    gpointer user_data)
{
  gboolean *seen = user_data;
  GstMapInfo map;
  const gdouble *data;

  if (*seen)
    return;
  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_READ));
  data = (const gdouble *) map.data;
  fail_unless (map.size > 5 * sizeof (gdouble));
  fail_unless (data[0] == 0.0);
  fail_unless (data[1] == 0.0);
  fail_unless (data[2] == 0.0);
  fail_unless (data[3] == 0.0);
  fail_unless (data[4] == 0.0);
  fail_unless (data[5] != 0.0);
  gst_buffer_unmap (buffer, &map);
  *seen = TRUE;
}

/* audiofirfilter's test_pipeline (gst-plugins-good,
 * tests/check/elements/audiofirfilter.c) with clfirfilter in its place:
 * audiotestsrc ! F64 ! filter ! fakesink (the check reads doubles; left
 * alone, audiotestsrc and clfirfilter settle on S16), the kernel a
 * 5-frame delay set in rate-changed, and the first five samples out
 * exactly zero, the sixth not; no error or warning, and EOS. FFT round-off
 * left them ~1e-17: short filters are summed in direct form. */
GST_START_TEST (test_audiofirfilter_check)
{
  GstElement *pipe = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("audiotestsrc", NULL);
  GstElement *f64 = gst_element_factory_make ("capsfilter", NULL);
  GstElement *filter = gst_element_factory_make ("clfirfilter", NULL);
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);
  gboolean seen = FALSE;
  GstMessage *msg;

  fail_unless (pipe && src && f64 && filter && sink);
  gst_bin_add_many (GST_BIN (pipe), src, f64, filter, sink, NULL);
  if (no_fp64) {
    /* the check reads doubles: F64 is refused without fp64 */
    gst_object_unref (pipe);
    return;
  }
  gst_util_set_object_arg (G_OBJECT (f64), "caps",
      "audio/x-raw,format=F64LE");
  g_object_set (src, "num-buffers", 1000, NULL);
  g_signal_connect (filter, "rate-changed", G_CALLBACK (delay_kernel), NULL);
  g_object_set (sink, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (first_buffer_delayed), &seen);
  fail_unless (gst_element_link_many (src, f64, filter, sink, NULL));
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  fail_unless (msg != NULL);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (seen);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* Short filters, summed in direct form: the whole stream exact. A delay
 * gives the input back, shifted, bit for bit; a 64-tap filter gives the
 * float64 reference's sums (tap 0 first) rounded once to the format;
 * every sample, in F32 and F64, 2 channels, with the block chosen and a
 * block of 256, in uneven buffers. */
GST_START_TEST (test_direct_form_exact)
{
  static const double delay[] = { 0.0, 0.0, 0.0, 0.0, 0.0, 1.0 };
  const gsize frames = 6000;
  gsize *pieces = random_pieces (40, 700, 5), t;
  double *h64 = make_filter (64, 64);
  guint fm, k, b, c;

  for (fm = 0; fm < 2; fm++)
    for (k = 0; k < 2; k++)
      for (b = 0; b < 2; b++) {
        Fmt f = { fm ? GST_AUDIO_FORMAT_F64 : GST_AUDIO_FORMAT_F32, FALSE, 2 };
        const double *h = k ? h64 : delay;
        const gsize taps = k ? 64 : G_N_ELEMENTS (delay);
        double *x = make_input (&f, frames, 0.5, 31 + fm);
        GstElement *e = gst_element_factory_make ("clfirfilter", NULL);
        Out o = { 0 };
        gsize wrong = 0;

        if (fm && no_fp64) {
          g_free (x);
          gst_object_unref (e);
          continue;
        }
        g_object_set (e, "block-size", b ? 256 : 0, NULL);
        set_kernel (e, h, taps);
        run_stream (e, &f, x, frames, pieces, 40, &o);
        fail_unless_equals_uint64 (o.frames, frames);
        check_stamps (&o, 0);
        for (t = 0; t < frames; t++)
          for (c = 0; c < f.channels; c++) {
            double want = direct (h, taps, x, frames, f.channels, c, t);

            if (!fm)
              want = (float) want;
            if (o.data[t * f.channels + c] != want)
              wrong++;
          }
        fail_unless (wrong == 0, "%s, %" G_GSIZE_FORMAT " taps, block-size "
            "%u: %" G_GSIZE_FORMAT " samples not exact",
            gst_audio_format_to_string (f.format), taps, b ? 256 : 0, wrong);
        g_free (x);
        out_clear (&o);
      }
  g_free (h64);
  g_free (pieces);
}

GST_END_TEST;

static Suite *
firfilter_api_suite (void)
{
  Suite *s = suite_create ("clfirfilter-api");
  TCase *tc = tcase_create ("general");

  no_fp64 = g_getenv ("CLRESAMPLE_NO_FP64") != NULL;
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, NULL, watch_end);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_same_api);
  tcase_add_test (tc, test_kernel_round_trip);
  tcase_add_test (tc, test_rate_changed_app);
  tcase_add_test (tc, test_location_before_start);
  tcase_add_test (tc, test_location_stop_finalize);
  tcase_add_test (tc, test_location_while_playing);
  tcase_add_test (tc, test_location_flush);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_restarts);
  tcase_add_test (tc, test_audiofirfilter_check);
  tcase_add_test (tc, test_direct_form_exact);
  return s;
}

GST_CHECK_MAIN (firfilter_api);
