/* clresample: what the element tests share. See clr-audio-check.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "clr-audio-check.h"

guint64
next_u64 (guint64 * s)
{
  *s += 0x9E3779B97F4A7C15ull;
  guint64 z = *s;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double
next_uniform (guint64 * s)
{
  return (next_u64 (s) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* Noise quantised to what `format` holds */
double *
make_input (const Fmt * f, gsize frames, double amp, guint64 seed)
{
  gsize i, n = frames * f->channels;
  double *x = g_new (double, n);

  for (i = 0; i < n; i++) {
    double v = amp * next_uniform (&seed);
    switch (f->format) {
      case GST_AUDIO_FORMAT_F32:
        v = (float) v;
        break;
      case GST_AUDIO_FORMAT_S16:
        v = nearbyint (v * 32768.0) / 32768.0;
        break;
      case GST_AUDIO_FORMAT_S24_32:
        v = nearbyint (v * 8388608.0) / 8388608.0;
        break;
      case GST_AUDIO_FORMAT_S32:
        v = nearbyint (v * 2147483648.0) / 2147483648.0;
        break;
      default:
        break;
    }
    x[i] = v;
  }
  return x;
}

/* y[m] of channel c, y = x * h, x zero outside 0..frames-1 */
double
direct (const double *h, gsize taps, const double *x, gsize frames,
    guint ch, guint c, gint64 m)
{
  gint64 k0 = MAX (0, m - (gint64) frames + 1), k1 = MIN ((gint64) taps - 1,
      m), k;
  double acc = 0.0;

  for (k = k0; k <= k1; k++)
    acc += h[k] * x[(m - k) * ch + c];
  return acc;
}

gchar *
caps_string (const Fmt * f)
{
  return g_strdup_printf ("audio/x-raw,format=%s,layout=%s,rate=%d,"
      "channels=%u,channel-mask=(bitmask)0",
      gst_audio_format_to_string (f->format),
      f->planar ? "non-interleaved" : "interleaved", RATE, f->channels);
}

void
fmt_info (const Fmt * f, GstAudioInfo * info)
{
  gchar *s = caps_string (f);
  GstCaps *caps = gst_caps_from_string (s);

  fail_unless (gst_audio_info_from_caps (info, caps));
  gst_caps_unref (caps);
  g_free (s);
}

void
put (guint8 * p, gsize i, GstAudioFormat fmt, double v)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F32:
      ((float *) p)[i] = v;
      break;
    case GST_AUDIO_FORMAT_F64:
      ((double *) p)[i] = v;
      break;
    case GST_AUDIO_FORMAT_S16:
      ((gint16 *) p)[i] = (gint16) nearbyint (v * 32768.0);
      break;
    case GST_AUDIO_FORMAT_S24_32:
      ((gint32 *) p)[i] = (gint32) nearbyint (v * 8388608.0);
      break;
    default:
      ((gint32 *) p)[i] = (gint32) nearbyint (v * 2147483648.0);
      break;
  }
}

double
get (const guint8 * p, gsize i, GstAudioFormat fmt)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F32:
      return ((const float *) p)[i];
    case GST_AUDIO_FORMAT_F64:
      return ((const double *) p)[i];
    case GST_AUDIO_FORMAT_S16:
      return ((const gint16 *) p)[i] / 32768.0;
    case GST_AUDIO_FORMAT_S24_32:
      return ((const gint32 *) p)[i] / 8388608.0;
    default:
      return ((const gint32 *) p)[i] / 2147483648.0;
  }
}

/* x (interleaved doubles) as a buffer of f, frames off..off + n, stamped
 * from the sample count; NULL x: a GAP buffer of silence */
GstBuffer *
make_buffer (const Fmt * f, const double *x, gsize off, gsize n,
    GstClockTime start)
{
  GstAudioInfo info;
  GstBuffer *buf;
  GstAudioBuffer ab;
  gsize i, bps;
  guint c;

  fmt_info (f, &info);
  bps = GST_AUDIO_INFO_WIDTH (&info) / 8;
  buf = gst_buffer_new_allocate (NULL, n * GST_AUDIO_INFO_BPF (&info), NULL);
  if (f->planar)
    gst_buffer_add_audio_meta (buf, &info, n, NULL);
  fail_unless (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < f->channels; c++)
    for (i = 0; i < n; i++) {
      double v = x ? x[(off + i) * f->channels + c] : 0.0;
      if (f->planar)
        put (ab.planes[c], i, f->format, v);
      else
        put ((guint8 *) ab.planes[0] + c * bps, i * f->channels, f->format,
            v);
    }
  gst_audio_buffer_unmap (&ab);
  GST_BUFFER_PTS (buf) = start + gst_util_uint64_scale_int (off, GST_SECOND,
      RATE);
  GST_BUFFER_DURATION (buf) = start + gst_util_uint64_scale_int (off + n,
      GST_SECOND, RATE) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = off;
  GST_BUFFER_OFFSET_END (buf) = off + n;
  if (!x)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP);
  return buf;
}

GstHarness *
make_harness_io (GstElement * e, const Fmt * in, const Fmt * out)
{
  GstHarness *h;
  gchar *caps = caps_string (out);

  /* e is taken: the harness holds a reference of its own, and e's
   * floating one (gst_element_factory_make ()'s) would outlive it */
  gst_object_ref_sink (e);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);

  gst_harness_set_sink_caps_str (h, caps);
  g_free (caps);
  caps = caps_string (in);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

GstHarness *
make_harness (GstElement * e, const Fmt * f)
{
  return make_harness_io (e, f, f);
}

/* Pushes frames off..off + n cut into pieces (sizes cycled) */
void
push_range (GstHarness * h, const Fmt * f, const double *x, gsize off,
    gsize n, const gsize * pieces, gsize n_pieces, gsize * piece)
{
  gsize pos = off;

  while (pos < off + n) {
    gsize len = pieces[(*piece)++ % n_pieces];

    len = MIN (len, off + n - pos);
    fail_unless_equals_int (gst_harness_push (h, make_buffer (f, x, pos, len,
                0)), GST_FLOW_OK);
    pos += len;
  }
}

void
collect (GstHarness * h, const Fmt * f, Out * o)
{
  GstAudioInfo info;
  GstBuffer *buf;
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  gsize i, bps;
  guint c;

  fmt_info (f, &info);
  bps = GST_AUDIO_INFO_WIDTH (&info) / 8;
  if (!o->buffers)
    o->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gst_buffer_unref);
  else
    g_array_append_vals (a, o->data, o->frames * f->channels);
  while ((buf = gst_harness_try_pull (h))) {
    GstAudioBuffer ab;
    gsize base = a->len;

    fail_unless (gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ));
    g_array_set_size (a, base + ab.n_samples * f->channels);
    for (c = 0; c < f->channels; c++)
      for (i = 0; i < ab.n_samples; i++)
        g_array_index (a, double, base + i * f->channels + c) = f->planar ?
            get (ab.planes[c], i, f->format) :
            get ((guint8 *) ab.planes[0] + c * bps, i * f->channels,
            f->format);
    gst_audio_buffer_unmap (&ab);
    g_ptr_array_add (o->buffers, buf);
  }
  g_free (o->data);
  o->frames = a->len / f->channels;
  o->data = (double *) g_array_free (a, FALSE);
}

void
out_clear (Out * o)
{
  g_free (o->data);
  if (o->buffers)
    g_ptr_array_unref (o->buffers);
  memset (o, 0, sizeof (*o));
}

/* Output buffers stamped from the frame count from `start`, contiguous;
 * DISCONT on the first only */
void
check_stamps (const Out * o, GstClockTime start)
{
  guint64 pos = 0;
  guint i;

  for (i = 0; i < o->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (o->buffers, i);
    gsize n = gst_buffer_get_size (b);
    GstAudioMeta *meta = gst_buffer_get_audio_meta (b);
    guint64 frames = meta ? meta->samples : n;

    if (!meta) {
      /* interleaved: the caller's frame size is not known here, use the
       * offsets */
      frames = GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);
    }
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), start +
        gst_util_uint64_scale_int_round (pos, GST_SECOND, RATE));
    fail_unless_equals_uint64 (GST_BUFFER_OFFSET (b), pos +
        gst_util_uint64_scale_int_round (start, RATE, GST_SECOND));
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), i == 0);
    pos += frames;
  }
  fail_unless_equals_uint64 (pos, o->frames);
}

guint
check_gap_buffers (const Out * o, guint channels)
{
  guint64 pos = 0, t;
  guint i, gaps = 0;

  for (i = 0; i < o->buffers->len; i++) {
    GstBuffer *b = g_ptr_array_index (o->buffers, i);
    gsize n = GST_BUFFER_OFFSET_END (b) - GST_BUFFER_OFFSET (b);

    if (GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_GAP)) {
      gaps++;
      /* one check a buffer (gst-check records each one that passes) */
      for (t = pos * channels; t < (pos + n) * channels; t++)
        if (o->data[t] != 0.0)
          break;
      fail_unless (t == (pos + n) * channels, "GAP buffer %u: sample %"
          G_GUINT64_FORMAT " is %g", i, t, o->data[t]);
    }
    pos += n;
  }
  return gaps;
}

gsize *
random_pieces (gsize n, gsize max, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  gsize *p = g_new (gsize, n), i;

  for (i = 0; i < n; i++)
    p[i] = g_rand_int_range (r, 1, max + 1);
  g_rand_free (r);
  return p;
}

/* Runs x through e (taken), cut into random pieces of 1..3000 frames */
void
run_stream_io (GstElement * e, const Fmt * in, const Fmt * out,
    const double *x, gsize frames, const gsize * pieces, gsize n_pieces,
    Out * o)
{
  GstHarness *h = make_harness_io (e, in, out);
  gsize piece = 0;

  push_range (h, in, x, 0, frames, pieces, n_pieces, &piece);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  collect (h, out, o);
  gst_harness_teardown (h);
}

void
run_stream (GstElement * e, const Fmt * f, const double *x, gsize frames,
    const gsize * pieces, gsize n_pieces, Out * o)
{
  run_stream_io (e, f, f, x, frames, pieces, n_pieces, o);
}

/* Runs audiotestsrc ! FACTORY ! fakesink with `setup` applied; returns
 * the error's message (NULL: EOS) */
gchar *
run_for_error (const gchar * factory, void (*setup) (GstElement * e,
        gpointer data), gpointer data, guint channels)
{
  gchar *desc = g_strdup_printf ("audiotestsrc num-buffers=4 ! "
      "audio/x-raw,format=F32LE,channels=%u,rate=%d ! %s name=f ! "
      "fakesink", channels, RATE, factory);
  GstElement *pipe = gst_parse_launch (desc, NULL), *e;
  GstMessage *msg;
  gchar *text = NULL;

  fail_unless (pipe != NULL);
  e = gst_bin_get_by_name (GST_BIN (pipe), "f");
  setup (e, data);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    text = g_strdup (err->message);
    g_error_free (err);
  }
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (e);
  gst_object_unref (pipe);
  g_free (desc);
  return text;
}

void
expect_error (gchar * text, const gchar * what)
{
  fail_unless (text != NULL, "no error; expected one about '%s'", what);
  GST_INFO ("error: %s", text);
  fail_unless (strstr (text, what) != NULL, "error '%s' does not say '%s'",
      text, what);
  g_free (text);
}

/* ---- filters ------------------------------------------------------------ */

double *
make_filter (gsize taps, guint64 seed)
{
  double *h = g_new (double, taps);
  gsize k;

  for (k = 0; k < taps; k++)
    h[k] = (float) (next_uniform (&seed) * pow (10.0, -3.0 * k / taps) /
        sqrt ((double) MIN (taps, 4096)));
  return h;
}

G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
void
set_kernel (GstElement * e, const double *h, gsize taps)
{
  GValueArray *va = g_value_array_new (taps);
  GValue v = G_VALUE_INIT;
  gsize k;

  g_value_init (&v, G_TYPE_DOUBLE);
  for (k = 0; k < taps; k++) {
    g_value_set_double (&v, h[k]);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  g_object_set (e, "kernel", va, NULL);
  g_value_array_free (va);
}

G_GNUC_END_IGNORE_DEPRECATIONS;

gchar *
write_wav (double *const *h, guint n_filters, gsize taps)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("clfir-XXXXXX.wav", &path, NULL);
  FILE *fp = fdopen (fd, "wb");
  guint32 data = taps * n_filters * 4, u32;
  guint16 u16;
  gsize k;
  guint f;

  fail_unless (fp != NULL);
#define W32(v) (u32 = GUINT32_TO_LE (v), fwrite (&u32, 4, 1, fp))
#define W16(v) (u16 = GUINT16_TO_LE (v), fwrite (&u16, 2, 1, fp))
  fwrite ("RIFF", 1, 4, fp);
  W32 (36 + data);
  fwrite ("WAVEfmt ", 1, 8, fp);
  W32 (16);
  W16 (3);                      /* IEEE float */
  W16 (n_filters);
  W32 (RATE);
  W32 (RATE * 4 * n_filters);
  W16 (4 * n_filters);
  W16 (32);
  fwrite ("data", 1, 4, fp);
  W32 (data);
  for (k = 0; k < taps; k++)
    for (f = 0; f < n_filters; f++) {
      float v = h[f][k];
      fwrite (&v, 4, 1, fp);
    }
#undef W32
#undef W16
  fail_unless (fclose (fp) == 0);
  return path;
}
