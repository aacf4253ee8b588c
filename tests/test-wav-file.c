/* clfirfilter's own WAV reader (gst/gstclrwavfile.c) against GStreamer's
 * wavparse and audioconvert on the same files: every sample equal, for
 * PCM of 8 to 32 bits, float and double, 1 to 6 channels (wavenc writes
 * WAVE_FORMAT_EXTENSIBLE where it needs to); and the files it must leave
 * to decodebin: not RIFF, a truncated header, an unknown format. */
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include "gstclrwavfile.h"

static gchar *
tmp_path (const gchar * name)
{
  return g_build_filename (g_get_tmp_dir (), name, NULL);
}

static void
run_launch (const gchar * line)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (line, &err);
  GstMessage *msg;

  g_assert_no_error (err);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

static void
collect (GstElement * sink, GstBuffer * buf, GstPad * pad, GArray * a)
{
  GstMapInfo map;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  g_array_append_vals (a, map.data, map.size / sizeof (double));
  gst_buffer_unmap (buf, &map);
}

/* The file through wavparse and audioconvert to F64, interleaved. */
static GArray *
reference (const gchar * path, gint * channels)
{
  gchar *line = g_strdup_printf ("filesrc location=\"%s\" ! wavparse ! "
      "audioconvert ! audio/x-raw,format=F64LE,layout=interleaved ! "
      "fakesink name=s signal-handoffs=true sync=false", path);
  GstElement *p = gst_parse_launch (line, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "s");
  GArray *a = g_array_new (FALSE, FALSE, sizeof (double));
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *caps;
  GstMessage *msg;

  g_signal_connect (sink, "handoff", G_CALLBACK (collect), a);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  caps = gst_pad_get_current_caps (pad);
  g_assert_true (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "channels", channels));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (line);
  return a;
}

typedef struct
{
  const gchar *format;
  gint channels;
} WavCase;

/* Noise written by wavenc, read both ways. */
static void
test_same_as_wavparse (gconstpointer data)
{
  const WavCase *wc = data;
  gchar *name = g_strdup_printf ("clr-wav-%s-%d-%d.wav", wc->format,
      wc->channels, (int) getpid ());
  gchar *path = tmp_path (name);
  gchar *line = g_strdup_printf ("audiotestsrc wave=white-noise volume=0.9 "
      "num-buffers=3 samplesperbuffer=1001 ! audio/x-raw,format=F64LE,"
      "rate=44100,channels=%d ! audioconvert dithering=none ! "
      "audio/x-raw,format=%s ! wavenc ! filesink location=\"%s\"",
      wc->channels, wc->format, path);
  double *got = NULL;
  gsize frames = 0, i;
  guint channels = 0;
  gint rate = 0, ref_channels = 0;
  GArray *want;

  run_launch (line);
  want = reference (path, &ref_channels);
  g_assert_true (gst_clr_wav_file_read (path, &got, &frames, &channels,
          &rate));
  g_assert_cmpint (rate, ==, 44100);
  g_assert_cmpuint (channels, ==, (guint) ref_channels);
  g_assert_cmpuint (frames, ==, 3003);
  g_assert_cmpuint (frames * channels, ==, want->len);
  for (i = 0; i < want->len; i++)
    if (got[i] != g_array_index (want, double, i))
      g_error ("%s x %d: sample %" G_GSIZE_FORMAT " is %.17g, wavparse "
          "gives %.17g", wc->format, wc->channels, i, got[i],
          g_array_index (want, double, i));
  g_free (got);
  g_array_unref (want);
  g_unlink (path);
  g_free (path);
  g_free (name);
  g_free (line);
}

static gboolean
read_bytes (const gchar * name, const void *bytes, gsize len)
{
  gchar *path = tmp_path (name);
  double *got = NULL;
  gsize frames = 0;
  guint channels = 0;
  gint rate = 0;
  gboolean ok;

  g_assert_true (g_file_set_contents (path, bytes, len, NULL));
  ok = gst_clr_wav_file_read (path, &got, &frames, &channels, &rate);
  if (ok)
    g_assert_cmpuint (frames, ==, 2);
  g_free (got);
  g_unlink (path);
  g_free (path);
  return ok;
}

/* What decodebin must read instead (FALSE), and a data chunk whose size
 * runs past the file's end (a stream's WAV): the frames there are. */
static void
test_left_to_decodebin (void)
{
  /* a minimal WAV: mono S16 at 8000 Hz, 2 frames */
  guint8 wav[] = { 'R', 'I', 'F', 'F', 40, 0, 0, 0, 'W', 'A', 'V', 'E',
    'f', 'm', 't', ' ', 16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0,
    0x80, 0x3e, 0, 0, 2, 0, 16, 0, 'd', 'a', 't', 'a', 4, 0, 0, 0,
    0x00, 0x40, 0x00, 0xc0
  };
  guint8 bad[sizeof (wav)];

  g_assert_true (read_bytes ("clr-wav-ok.wav", wav, sizeof (wav)));
  memcpy (bad, wav, sizeof (wav));
  bad[0] = 'X';
  g_assert_false (read_bytes ("clr-wav-notriff.wav", bad, sizeof (bad)));
  g_assert_false (read_bytes ("clr-wav-short.wav", wav, 30));
  memcpy (bad, wav, sizeof (wav));
  bad[20] = 2;                  /* ADPCM */
  g_assert_false (read_bytes ("clr-wav-adpcm.wav", bad, sizeof (bad)));
  memcpy (bad, wav, sizeof (wav));
  bad[32] = 3;                  /* a block of 3 bytes for 2-byte samples */
  g_assert_false (read_bytes ("clr-wav-align.wav", bad, sizeof (bad)));
  memcpy (bad, wav, sizeof (wav));
  bad[40] = bad[41] = bad[42] = bad[43] = 0xff;
  g_assert_true (read_bytes ("clr-wav-stream.wav", bad, sizeof (bad)));
  g_assert_false (gst_clr_wav_file_read ("/nonexistent/ir.wav", NULL, NULL,
          NULL, NULL));
}

static const WavCase cases[] = {
  {"U8", 1}, {"S16LE", 1}, {"S16LE", 2}, {"S24LE", 2}, {"S32LE", 2},
  {"F32LE", 1}, {"F32LE", 2}, {"F64LE", 2}, {"S16LE", 3}, {"F32LE", 6},
  {"S24LE", 4},
};

int
main (int argc, char **argv)
{
  guint i;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *name = g_strdup_printf ("/wav-file/same-as-wavparse/%s-%dch",
        cases[i].format, cases[i].channels);
    g_test_add_data_func (name, &cases[i], test_same_as_wavparse);
    g_free (name);
  }
  g_test_add_func ("/wav-file/left-to-decodebin", test_left_to_decodebin);
  return g_test_run ();
}
