/* clresample tests: GstHarness helpers shared by the element tests. */
#include <gst/check/gstcheck.h>
#include <math.h>
#include "design/clr-filter.h"
#include "design/clr-rate.h"
#include "clr-reference.h"
#include "clr-signal.h"
#include "clr-harness.h"

GstHarness *
clr_make_harness (const char *launch, int in_rate, int out_rate, int channels)
{
  GstHarness *h = gst_harness_new_parse (launch);
  char *in = g_strdup_printf (CAPS_FMT, in_rate, channels);
  char *out = g_strdup_printf (CAPS_FMT, out_rate, channels);

  /* sink caps first: the src caps negotiate at once */
  gst_harness_set_sink_caps_str (h, out);
  gst_harness_set_src_caps_str (h, in);
  g_free (in);
  g_free (out);
  return h;
}

GstBuffer *
clr_make_buffer (const float *data, size_t frames, int channels, int rate,
    GstClockTime start, guint64 offset)
{
  GstBuffer *buf = gst_buffer_new_memdup (data,
      frames * channels * sizeof (float));

  GST_BUFFER_PTS (buf) = start + gst_util_uint64_scale_int (offset,
      GST_SECOND, rate);
  GST_BUFFER_DURATION (buf) = start + gst_util_uint64_scale_int (offset +
      frames, GST_SECOND, rate) - GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = offset;
  GST_BUFFER_OFFSET_END (buf) = offset + frames;
  return buf;
}

/* Pushes in[0..frames) cut into pieces (sizes cycled; NULL: 1024 each),
 * timestamped from `start`. */
void
clr_push_stream (GstHarness * h, const float *in, size_t frames, int channels,
    int rate, GstClockTime start, const size_t * pieces, size_t n_pieces)
{
  size_t pos = 0, i = 0;

  while (pos < frames) {
    size_t len = pieces ? pieces[i++ % n_pieces] : 1024;
    len = MIN (len, frames - pos);
    fail_unless_equals_int (gst_harness_push (h, clr_make_buffer (in + pos *
                channels, len, channels, rate, start, pos)), GST_FLOW_OK);
    pos += len;
  }
}


void
clr_collected_free (Collected * c)
{
  g_free (c->data);
  g_ptr_array_unref (c->buffers);
}

void
clr_assert_samples (const float *got, const float *want, size_t n,
    const char *what)
{
  size_t i;

  for (i = 0; i < n; i++)
    if (!(fabs ((double) got[i] - (want ? want[i] : 0.0)) < CLR_SAME_SAMPLE))
      break;
  fail_unless (i == n, "%s: sample %" G_GSIZE_FORMAT " is %.9g, not %.9g",
      what, i, i < n ? got[i] : 0.0, i < n && want ? want[i] : 0.0);
}

/* Pulls every buffer waiting in the harness. */
void
clr_collect (GstHarness * h, int channels, Collected * c)
{
  GstBuffer *buf;
  GByteArray *bytes = g_byte_array_new ();

  c->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  while ((buf = gst_harness_try_pull (h))) {
    GstMapInfo map;
    gst_buffer_map (buf, &map, GST_MAP_READ);
    g_byte_array_append (bytes, map.data, map.size);
    gst_buffer_unmap (buf, &map);
    g_ptr_array_add (c->buffers, buf);
  }
  c->frames = bytes->len / (channels * sizeof (float));
  c->data = (float *) g_byte_array_free (bytes, FALSE);
}

void
clr_run_stream (const char *launch, int in_rate, int out_rate, int channels,
    const float *in, size_t frames, const size_t * pieces, size_t n_pieces,
    Collected * c)
{
  GstHarness *h = clr_make_harness (launch, in_rate, out_rate, channels);

  clr_push_stream (h, in, frames, channels, in_rate, 0, pieces, n_pieces);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  clr_collect (h, channels, c);
  gst_harness_teardown (h);
}

void
clr_check_reference (const char *launch, guint taps, double cutoff,
    double phase, int in_rate, int out_rate, int channels)
{
  size_t frames = 4000, n_ref, i;
  float *in = g_new (float, frames * channels);
  ClrRatio r;
  ClrFilter f;
  Collected c;
  double *ref, worst = 0.0;

  clr_signal_noise (in, frames * channels, 0.5, in_rate ^ out_rate);
  clr_run_stream (launch, in_rate, out_rate, channels, in, frames, NULL, 0,
      &c);
  clr_ratio_init (&r, in_rate, out_rate);
  clr_filter_design_cut (&f, &r, CLR_QUALITY_DEFAULT, taps, cutoff);
  fail_unless (clr_filter_set_phase (&f, &r, phase));
  ref = clr_reference_resample (&r, &f, in, frames, channels, &n_ref);
  fail_unless_equals_uint64 (c.frames, n_ref);
  for (i = 0; i < n_ref * channels; i++)
    worst = MAX (worst, fabs (c.data[i] - ref[i]));
  GST_INFO ("%d -> %d Hz, %d ch: max error %g", in_rate, out_rate, channels,
      worst);
  fail_unless (worst <= 1e-5, "%d -> %d Hz, %d ch: error %g > 1e-5",
      in_rate, out_rate, channels, worst);
  g_free (ref);
  g_free (in);
  clr_collected_free (&c);
}

/* Output frame m is the input evaluated at m / out_rate: a sine comes out
 * with the phase it went in with, to 0.001 of an output sample. */
double
clr_time_offset (const char *launch, int in_rate, int out_rate)
{
  const size_t frames = in_rate;        /* one second */
  const unsigned f = 997;
  const double phase = 0.3;
  float *in = g_new (float, frames);
  ClrSineFit fit;
  Collected c;
  double d, skip = out_rate / 5;

  clr_signal_sine (in, frames, 1, f, in_rate, 0.5, phase);
  clr_run_stream (launch, in_rate, out_rate, 1, in, frames, NULL, 0, &c);
  clr_sine_fit (c.data, skip, c.frames - 2 * skip, 1, 0, f, out_rate, &fit);
  d = remainder (fit.phase - phase, 2.0 * M_PI);
  d = d / (2.0 * M_PI * f / out_rate);
  g_printerr ("time offset %d -> %d Hz, %s: %+.6f output samples\n",
      in_rate, out_rate, launch, d);
  g_free (in);
  clr_collected_free (&c);
  return d;
}

