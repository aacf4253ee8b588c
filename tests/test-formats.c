/* clresample tests: every raw format audioresample takes, through each of
 * the three elements (issue 26).
 *
 * A format the engines do not run natively is carried by one they do
 * (gstclredge.h): the test runs the same quantised signal through the
 * element in the format itself and in its carrier, and asserts that the
 * two outputs are the same samples (integers of the carrier's depth equal,
 * the 8/18/20-bit ones the float carrier's rounded to nearest and
 * saturated), in both layouts and, for clresample, up and down; and that
 * the format's output lies within half its last bit of the float64
 * stream's, plus the float path's own measured error. Then 8/16/24/32-bit
 * WAV files through `filesrc ! wavparse ! ELEMENT` without audioconvert, and
 * `identity check-imperfect-*` behind clresample for every format at
 * qualities 0, 5 and 10.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

/* what a fakesink's handoffs saw */
typedef struct
{
  guint64 frames;
  gchar *format;
  gint channels;
} Seen;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Seen * seen)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstAudioInfo info;

  fail_unless (caps && gst_audio_info_from_caps (&info, caps));
  g_free (seen->format);
  seen->format = g_strdup (gst_audio_format_to_string
      (GST_AUDIO_INFO_FORMAT (&info)));
  seen->channels = GST_AUDIO_INFO_CHANNELS (&info);
  seen->frames += gst_buffer_get_size (buf) / GST_AUDIO_INFO_BPF (&info);
  gst_caps_unref (caps);
}

#define CH 2
#define FRAMES 4800
#define PIECE 1000

typedef struct
{
  const char *launch;
  int in_rate, out_rate;
  int bands;                    /* output channels a channel */
} Case;

static const Case cases[] = {
  {"clresample", 44100, 48000, 1},
  {"clresample", 48000, 44100, 1},
  {"clfirfilter kernel-from-test", 48000, 48000, 1},
  {"clcrossover frequencies=1500", 48000, 48000, 2},
};

/* the test signal, every value exact in every format of `depth` bits */
static double *
make_signal (int depth)
{
  double *x = g_new (double, FRAMES * CH);
  double scale = ldexp (1.0, depth - 1);
  GRand *r = g_rand_new_with_seed (26);
  gsize i;

  for (i = 0; i < FRAMES * CH; i++) {
    double v = 0.45 * sin (2 * G_PI * 997.0 * (i / CH) / 48000.0 + i % CH)
        + g_rand_double_range (r, -0.45, 0.45);
    x[i] = depth >= 53 ? v : nearbyint (v * scale) / scale;
  }
  g_rand_free (r);
  return x;
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
static GstElement *
make_element (const Case * c)
{
  GstElement *e;

  if (g_str_has_prefix (c->launch, "clfirfilter")) {
    /* a 31-tap low-pass, set as audiofirfilter users do */
    GValueArray *va = g_value_array_new (31);
    GValue v = G_VALUE_INIT;
    int k;

    g_value_init (&v, G_TYPE_DOUBLE);
    for (k = 0; k < 31; k++) {
      double t = k - 15, h = t == 0 ? 0.25 : sin (G_PI * 0.25 * t) / (G_PI *
          t);
      g_value_set_double (&v, h * (0.54 + 0.46 * cos (G_PI * t / 16)));
      g_value_array_append (va, &v);
    }
    g_value_unset (&v);
    e = gst_element_factory_make ("clfirfilter", NULL);
    g_object_set (e, "kernel", va, "block-size", 256, NULL);
    g_value_array_free (va);
    return e;
  }
  return gst_parse_launch (c->launch, NULL);
}

G_GNUC_END_IGNORE_DEPRECATIONS;

static void
info_for (GstAudioInfo * info, GstAudioFormat fmt, int rate, int ch,
    gboolean planar)
{
  gst_audio_info_set_format (info, fmt, rate, ch, NULL);
  info->layout = planar ? GST_AUDIO_LAYOUT_NON_INTERLEAVED :
      GST_AUDIO_LAYOUT_INTERLEAVED;
}

/* n values (floats as double, integers of `depth` bits as integers) into
 * the unpack format's samples: S32 with zeros below the depth, or F64 */
static void
to_unpacked (const GstAudioFormatInfo * f, const double *v, gpointer dst,
    gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (f))
      ((double *) dst)[i] = v[i];
    else
      ((guint32 *) dst)[i] = (guint32) (gint32) v[i] << (32 -
          GST_AUDIO_FORMAT_INFO_DEPTH (f));
  }
}

/* The buffer of frames [from, from + n) of x (values as to_unpacked ()) */
static GstBuffer *
pack_buffer (const GstAudioInfo * info, const double *x, gsize from, gsize n)
{
  const GstAudioFormatInfo *f = info->finfo;
  const int ch = GST_AUDIO_INFO_CHANNELS (info);
  const gsize w = GST_AUDIO_FORMAT_INFO_WIDTH (f) / 8;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * ch * w, NULL);
  gpointer tmp = g_malloc (n * ch * 8);
  double *plane = g_new (double, n);
  GstMapInfo map;
  int c;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_INTERLEAVED) {
    to_unpacked (f, x + from * ch, tmp, n * ch);
    f->pack_func (f, 0, tmp, map.data, (gint) (n * ch));
  } else {
    for (c = 0; c < ch; c++) {
      for (i = 0; i < n; i++)
        plane[i] = x[(from + i) * ch + c];
      to_unpacked (f, plane, tmp, n);
      f->pack_func (f, 0, tmp, map.data + c * n * w, (gint) n);
    }
  }
  gst_buffer_unmap (buf, &map);
  if (GST_AUDIO_INFO_LAYOUT (info) == GST_AUDIO_LAYOUT_NON_INTERLEAVED)
    gst_buffer_add_audio_meta (buf, info, n, NULL);
  g_free (tmp);
  g_free (plane);
  return buf;
}

/* A buffer's samples appended to out (interleaved; values as above) */
static void
unpack_buffer (const GstAudioInfo * info, GstBuffer * buf, GArray * out)
{
  const GstAudioFormatInfo *f = info->finfo;
  const int ch = GST_AUDIO_INFO_CHANNELS (info);
  GstAudioBuffer ab;
  gsize n, i;
  int c, p;
  gpointer tmp;
  guint base = out->len;

  fail_unless (gst_audio_buffer_map (&ab, info, buf, GST_MAP_READ));
  n = ab.n_samples;
  g_array_set_size (out, base + n * ch);
  tmp = g_malloc (MAX (1, n * ch * 8));
  for (p = 0; p < ab.n_planes; p++) {
    gsize cnt = ab.n_planes == 1 ? n * ch : n;

    f->unpack_func (f, GST_AUDIO_PACK_FLAG_TRUNCATE_RANGE, tmp, ab.planes[p],
        (gint) cnt);
    for (i = 0; i < cnt; i++) {
      double v = GST_AUDIO_FORMAT_INFO_IS_FLOAT (f) ? ((double *) tmp)[i] :
          (double) (((gint32 *) tmp)[i] >> (32 -
              GST_AUDIO_FORMAT_INFO_DEPTH (f)));
      c = ab.n_planes == 1 ? (int) (i % ch) : p;
      g_array_index (out, double, base + (ab.n_planes == 1 ? i : i * ch + c))
          = v;
    }
  }
  g_free (tmp);
  gst_audio_buffer_unmap (&ab);
}

/* x (FRAMES frames, values as to_unpacked ()) through the case's element
 * in `fmt`: the output's values, interleaved */
static GArray *
run (const Case * c, GstAudioFormat fmt, gboolean planar, const double *x)
{
  GstAudioInfo in, out;
  GstHarness *h;
  GstCaps *ic, *oc;
  GstBuffer *buf;
  GArray *res = g_array_new (FALSE, FALSE, sizeof (double));
  gsize at;

  info_for (&in, fmt, c->in_rate, CH, planar);
  info_for (&out, fmt, c->out_rate, CH * c->bands, planar);
  h = gst_harness_new_with_element (make_element (c), "sink", "src");
  ic = gst_audio_info_to_caps (&in);
  oc = gst_audio_info_to_caps (&out);
  gst_harness_set_caps (h, ic, oc);
  for (at = 0; at < FRAMES; at += PIECE) {
    gsize n = MIN (PIECE, FRAMES - at);

    buf = pack_buffer (&in, x, at, n);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int_round (at, GST_SECOND,
        c->in_rate);
    GST_BUFFER_DURATION (buf) = gst_util_uint64_scale_int_round (at + n,
        GST_SECOND, c->in_rate) - GST_BUFFER_PTS (buf);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((buf = gst_harness_try_pull (h))) {
    unpack_buffer (&out, buf, res);
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  /* N in, ceil (N out / in) out, every channel's band */
  fail_unless_equals_int (res->len, gst_util_uint64_scale_int_ceil (FRAMES,
          c->out_rate, c->in_rate) * CH * c->bands);
  return res;
}

static gboolean
skip_f64 (GstAudioFormat fmt)
{
  /* a device without doubles refuses F64 in negotiation (test-element) */
  return g_getenv ("CLRESAMPLE_NO_FP64") &&
      GST_AUDIO_FORMAT_INFO_WIDTH (gst_audio_format_get_info (fmt)) == 64 &&
      GST_AUDIO_FORMAT_INFO_IS_FLOAT (gst_audio_format_get_info (fmt));
}

/* the native format carrying fmt: as gstclredge.c chooses, restated */
static GstAudioFormat
carrier (const GstAudioFormatInfo * f)
{
  if (GST_AUDIO_FORMAT_INFO_IS_FLOAT (f))
    return GST_AUDIO_FORMAT_INFO_WIDTH (f) == 64 ? GST_AUDIO_FORMAT_F64 :
        GST_AUDIO_FORMAT_F32;
  switch (GST_AUDIO_FORMAT_INFO_DEPTH (f)) {
    case 16:
      return GST_AUDIO_FORMAT_S16;
    case 24:
      return GST_AUDIO_FORMAT_S24_32;
    case 32:
      return GST_AUDIO_FORMAT_S32;
    default:
      return GST_AUDIO_FORMAT_F32;
  }
}

static void
check_case (const Case * c)
{
  guint n_formats, i, k;
  const GstAudioFormat *all = gst_audio_formats_raw (&n_formats);
  /* without doubles on the device there is no float64 stream to hold the
   * formats to: only to their carriers */
  const gboolean fp64 = !g_getenv ("CLRESAMPLE_NO_FP64");
  double f32_err = 0;

  if (fp64) {
    /* the float path's own error against float64 */
    double *x64 = make_signal (64), *x32 = g_new (double, FRAMES * CH);
    GArray *ref = run (c, GST_AUDIO_FORMAT_F64, FALSE, x64), *f32_out;

    for (i = 0; i < FRAMES * CH; i++)
      x32[i] = (float) x64[i];
    f32_out = run (c, GST_AUDIO_FORMAT_F32, FALSE, x32);
    for (k = 0; k < f32_out->len; k++)
      f32_err = MAX (f32_err, fabs (g_array_index (f32_out, double, k) -
              g_array_index (ref, double, k)));
    g_array_unref (ref);
    g_array_unref (f32_out);
    g_free (x32);
    g_free (x64);
  }

  for (i = 0; i < n_formats; i++) {
    const GstAudioFormatInfo *f = gst_audio_format_get_info (all[i]);
    const int depth = GST_AUDIO_FORMAT_INFO_DEPTH (f);
    const gboolean is_float = GST_AUDIO_FORMAT_INFO_IS_FLOAT (f);
    const GstAudioFormat w = carrier (f);
    const gboolean w_float = w == GST_AUDIO_FORMAT_F32 ||
        w == GST_AUDIO_FORMAT_F64;
    const double scale = is_float ? 1.0 : ldexp (1.0, depth - 1);
    double *q = make_signal (is_float ? (depth == 64 ? 64 : 24) : depth);
    double *xq = g_new (double, FRAMES * CH);
    double *xw = g_new (double, FRAMES * CH);
    GArray *wout, *refq = NULL;
    gboolean planar;

    if (skip_f64 (all[i]))
      continue;
    /* the input in the format's units, and in the carrier's */
    for (k = 0; k < FRAMES * CH; k++) {
      xq[k] = is_float ? (depth == 32 ? (float) q[k] : q[k]) : q[k] * scale;
      xw[k] = w_float ? q[k] : q[k] * ldexp (1.0,
          GST_AUDIO_FORMAT_INFO_DEPTH (gst_audio_format_get_info (w)) - 1);
    }
    wout = run (c, w, FALSE, xw);
    /* the float64 stream of this same input */
    if (fp64)
      refq = run (c, GST_AUDIO_FORMAT_F64, FALSE, q);
    for (planar = FALSE; planar <= TRUE; planar++) {
      GArray *o = run (c, all[i], planar, xq);
      double worst = 0;

      for (k = 0; k < o->len; k++) {
        double got = g_array_index (o, double, k);
        double wv = g_array_index (wout, double, k), want, r;

        if (is_float || depth == GST_AUDIO_FORMAT_INFO_DEPTH
            (gst_audio_format_get_info (w)))
          want = is_float && depth == 32 ? (float) wv : wv;
        else                    /* rounded and saturated from the float */
          want = CLAMP (nearbyint (wv * scale), -scale, scale - 1);
        if (got != want)
          fail ("%s %s %s: sample %u is %.17g, its carrier %s gives %.17g",
              c->launch, gst_audio_format_to_string (all[i]),
              planar ? "non-interleaved" : "interleaved", k, got,
              gst_audio_format_to_string (w), want);
        if (!refq)
          continue;
        /* saturated where the filter's overshoot passes full scale */
        r = g_array_index (refq, double, k);
        if (!is_float)
          r = CLAMP (r, -1.0, (scale - 1) / scale);
        worst = MAX (worst, fabs (got / scale - r));
      }
      /* within half the format's last bit of float64, plus what the
       * float path itself is off by (and the float carrier's own error
       * where it carries more bits than float holds) */
      fail_unless (!refq || worst <= (is_float ? 0 : 0.5 / scale) +
          2 * f32_err +
          1e-12, "%s %s: %.3g off float64 (half a bit %.3g, float path "
          "%.3g)", c->launch, gst_audio_format_to_string (all[i]), worst,
          is_float ? 0 : 0.5 / scale, f32_err);
      g_array_unref (o);
    }
    g_array_unref (wout);
    if (refq)
      g_array_unref (refq);
    g_free (q);
    g_free (xq);
    g_free (xw);
  }
}

GST_START_TEST (test_every_format)
{
  check_case (&cases[__i__]);
}

GST_END_TEST;

/* The integer kernels' stores round to nearest and saturate (the device's
 * own conversion without fp64, the FPU's rounding with it): a full-scale
 * square wave overshoots both rails after the filter (Gibbs, about 9 %).
 * Every S16, S24_32 and S32 output is an integer within half a bit of the
 * float64 stream's output, scaled and clamped, plus what the float path
 * is off by (f32_err: a GPU's float coefficients, about 2^-24 of full
 * scale, half a bit of S24 and more of S32; next to nothing for S16); so
 * for S16 it is that value rounded, but where it lies by a half-way
 * point. Without fp64 the float stream stands in for float64, for S16
 * alone (float holds 24 bits). */
GST_START_TEST (test_integer_rounding_and_saturation)
{
  static const Case c = { "clresample", 44100, 48000, 1 };
  static const GstAudioFormat formats[] = { GST_AUDIO_FORMAT_S16,
    GST_AUDIO_FORMAT_S24_32, GST_AUDIO_FORMAT_S32
  };
  static const int depths[] = { 16, 24, 32 };
  const gboolean fp64 = !g_getenv ("CLRESAMPLE_NO_FP64");
  double *unit = g_new (double, FRAMES * CH), *x = g_new (double,
      FRAMES * CH);
  guint i, k;

  for (i = 0; i < (fp64 ? G_N_ELEMENTS (formats) : 1); i++) {
    const double scale = ldexp (1.0, depths[i] - 1);
    guint top = 0, bottom = 0, off = 0;
    double f32_err = 0, worst = 0;
    GArray *o, *ref;

    /* 22 frames at the top rail, 22 at the bottom: about 1 kHz */
    for (k = 0; k < FRAMES * CH; k++) {
      x[k] = (k / CH / 22) % 2 ? -scale : scale - 1;
      unit[k] = x[k] / scale;
    }
    ref = run (&c, fp64 ? GST_AUDIO_FORMAT_F64 : GST_AUDIO_FORMAT_F32,
        FALSE, unit);
    if (fp64) {
      GArray *f32_out = run (&c, GST_AUDIO_FORMAT_F32, FALSE, unit);

      for (k = 0; k < f32_out->len; k++)
        f32_err = MAX (f32_err, fabs (g_array_index (f32_out, double, k) -
                g_array_index (ref, double, k)));
      g_array_unref (f32_out);
    }
    o = run (&c, formats[i], FALSE, x);
    fail_unless_equals_int (o->len, ref->len);
    for (k = 0; k < o->len; k++) {
      const double got = g_array_index (o, double, k);
      const double v = CLAMP (g_array_index (ref, double, k) * scale,
          -scale, scale - 1);

      top += got == scale - 1;
      bottom += got == -scale;
      off += got != nearbyint (v);
      worst = MAX (worst, fabs (got - v));
      fail_unless (got == floor (got) && fabs (got - v) <= 0.5 + 2 * f32_err
          * scale + 1e-9, "%s: output %u is %.17g, the reference %.17g "
          "(the float path off by %.3g bits)",
          gst_audio_format_to_string (formats[i]), k, got, v,
          f32_err * scale);
    }
    g_print ("# %s: %u outputs at the top rail, %u at the bottom; %u not "
        "the reference rounded, at most %.3f bits off it (the float path "
        "%.3g)\n", gst_audio_format_to_string (formats[i]), top, bottom,
        off, worst, f32_err * scale);
    /* the overshoot of every edge, on both channels */
    fail_unless (top > 100 && bottom > 100, "%s: %u outputs at the top "
        "rail, %u at the bottom", gst_audio_format_to_string (formats[i]),
        top, bottom);
    g_array_unref (o);
    g_array_unref (ref);
  }
  g_free (unit);
  g_free (x);
}

GST_END_TEST;

/* ---- WAV files straight from wavparse ------------------------------- */

static const char *wav_formats[] = { "U8", "S16LE", "S24LE", "S32LE" };

GST_START_TEST (test_wavparse)
{
  const char *elements[] = {
    "clresample ! audio/x-raw,rate=48000",
    "clcrossover frequencies=1500",
    "clresample quality=10 ! audio/x-raw,rate=96000",
    /* its default kernel, audiofirfilter's: one tap of 1 */
    "clfirfilter block-size=256",
  };
  /* ceil (N out / in) */
  const guint64 out_frames[] = { 24000ull * 48000 / 44100 + 1, 24000,
    24000ull * 96000 / 44100 + 1, 24000
  };
  const int out_ch[] = { 2, 4, 2, 2 };
  gchar *path = g_build_filename (g_get_tmp_dir (), "clr-test-formats.wav",
      NULL);
  guint e;
  gchar *launch;
  GstElement *p;
  GstMessage *m;

  launch = g_strdup_printf ("audiotestsrc num-buffers=24 samplesperbuffer="
      "1000 wave=white-noise ! audio/x-raw,format=F32LE,rate=44100,"
      "channels=2 ! audioconvert ! audio/x-raw,format=%s ! wavenc ! "
      "filesink location=%s", wav_formats[__i__], path);
  p = gst_parse_launch (launch, NULL);
  g_free (launch);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless_equals_int (GST_MESSAGE_TYPE (m), GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *sink;
    Seen seen = { 0 };

    launch = g_strdup_printf ("filesrc location=%s ! wavparse ! %s ! "
        "fakesink name=out sync=false signal-handoffs=true", path,
        elements[e]);
    p = gst_parse_launch (launch, NULL);
    g_free (launch);
    sink = gst_bin_get_by_name (GST_BIN (p), "out");
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &seen);
    gst_element_set_state (p, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS, "%s from %s: error "
        "from %s", elements[e], wav_formats[__i__],
        GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    gst_message_unref (m);
    /* no audioconvert: the file's own format all the way */
    fail_unless_equals_string (seen.format, wav_formats[__i__]);
    fail_unless_equals_int (seen.channels, out_ch[e]);
    fail_unless_equals_uint64 (seen.frames, out_frames[e]);
    g_free (seen.format);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (p);
  }
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* ---- identity check-imperfect-* behind clresample ---------------------- */

GST_START_TEST (test_no_imperfection)
{
  static const int qualities[] = { 0, 5, 10 };
  static const int rates[][2] = { {44100, 48000}, {48000, 44100} };
  guint n_formats, i, q, r;
  const GstAudioFormat *all = gst_audio_formats_raw (&n_formats);

  for (i = 0; i < n_formats; i++) {
    if (skip_f64 (all[i]))
      continue;
    for (q = 0; q < G_N_ELEMENTS (qualities); q++)
      for (r = 0; r < G_N_ELEMENTS (rates); r++) {
        gchar *launch = g_strdup_printf ("audiotestsrc num-buffers=6 "
            "samplesperbuffer=1000 ! audio/x-raw,format=%s,rate=%d,"
            "channels=2 ! clresample quality=%d ! audio/x-raw,rate=%d ! "
            "identity check-imperfect-timestamp=TRUE "
            "check-imperfect-offset=TRUE ! fakesink",
            gst_audio_format_to_string (all[i]), rates[r][0], qualities[q],
            rates[r][1]);
        GstElement *p = gst_parse_launch (launch, NULL);
        GstMessage *m;

        gst_element_set_state (p, GST_STATE_PLAYING);
        while ((m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p),
                    GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
                    GST_MESSAGE_ELEMENT))) {
          GstMessageType t = GST_MESSAGE_TYPE (m);
          const GstStructure *st = gst_message_get_structure (m);

          fail_if (t == GST_MESSAGE_ERROR, "%s: error", launch);
          fail_if (t == GST_MESSAGE_ELEMENT && st &&
              g_str_has_prefix (gst_structure_get_name (st), "imperfect"),
              "%s: %" GST_PTR_FORMAT, launch, st);
          gst_message_unref (m);
          if (t == GST_MESSAGE_EOS)
            break;
        }
        gst_element_set_state (p, GST_STATE_NULL);
        gst_object_unref (p);
        g_free (launch);
      }
  }
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("formats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_every_format, 0, G_N_ELEMENTS (cases));
  tcase_add_loop_test (tc, test_wavparse, 0, G_N_ELEMENTS (wav_formats));
  tcase_add_test (tc, test_integer_rounding_and_saturation);
  tcase_add_test (tc, test_no_imperfection);
  return s;
}

GST_CHECK_MAIN (formats);
