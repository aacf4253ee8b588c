/* clresample: what the element tests built on GstHarness share (the
 * clfirfilter and clcrossover tests): noise, a float64 direct convolution,
 * buffers of any format and layout from doubles and back, harnesses,
 * stamps checked against the frame count, pipelines run for their error. */
#ifndef __CLR_AUDIO_CHECK_H__
#define __CLR_AUDIO_CHECK_H__

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/audio/audio.h>

#define RATE 48000

typedef struct
{
  GstAudioFormat format;
  gboolean planar;
  guint channels;
} Fmt;

typedef struct
{
  double *data;                 /* every output sample, interleaved */
  gsize frames;
  GPtrArray *buffers;
} Out;

guint64 next_u64 (guint64 * s);
/* uniform in [-1, 1) */
double next_uniform (guint64 * s);
/* noise of amplitude amp, interleaved, quantised to what f's format holds */
double *make_input (const Fmt * f, gsize frames, double amp, guint64 seed);
/* y[m] of channel c of ch, y = x * h, x interleaved and zero outside
 * 0..frames-1 */
double direct (const double *h, gsize taps, const double *x, gsize frames,
    guint ch, guint c, gint64 m);
/* caps of f at RATE, channel-mask 0 */
gchar *caps_string (const Fmt * f);
void fmt_info (const Fmt * f, GstAudioInfo * info);
void put (guint8 * p, gsize i, GstAudioFormat fmt, double v);
double get (const guint8 * p, gsize i, GstAudioFormat fmt);
/* frames off..off + n of x (interleaved doubles; NULL: a GAP buffer) as a
 * buffer of f, stamped from the frame count after start */
GstBuffer *make_buffer (const Fmt * f, const double *x, gsize off, gsize n,
    GstClockTime start);
GstHarness *make_harness (GstElement * e, const Fmt * f);
/* input caps `in`, output caps `out` */
GstHarness *make_harness_io (GstElement * e, const Fmt * in, const Fmt * out);
/* pushes frames off..off + n cut into pieces (sizes cycled) */
void push_range (GstHarness * h, const Fmt * f, const double *x, gsize off,
    gsize n, const gsize * pieces, gsize n_pieces, gsize * piece);
/* every buffer the harness holds, appended to o */
void collect (GstHarness * h, const Fmt * f, Out * o);
void out_clear (Out * o);
/* output buffers stamped from the frame count from start, contiguous,
 * DISCONT on the first only */
void check_stamps (const Out * o, GstClockTime start);
/* Every buffer flagged GAP holds silence (o's frames of `channels`
 * samples); returns how many there are. */
guint check_gap_buffers (const Out * o, guint channels);
gsize *random_pieces (gsize n, gsize max, guint32 seed);
/* Noise filter decaying by 60 dB over its length; values rounded to float
 * so that a float WAV file holds them exactly. */
double *make_filter (gsize taps, guint64 seed);
/* `kernel` of an element (clfirfilter, audiofirfilter) from h */
void set_kernel (GstElement * e, const double *h, gsize taps);
/* A WAV file of float32 samples at RATE, written by hand: n_filters
 * channels of taps (g_free the path) */
gchar *write_wav (double *const *h, guint n_filters, gsize taps);
/* x through e (taken), in pieces, then EOS */
void run_stream (GstElement * e, const Fmt * f, const double *x,
    gsize frames, const gsize * pieces, gsize n_pieces, Out * o);
void run_stream_io (GstElement * e, const Fmt * in, const Fmt * out,
    const double *x, gsize frames, const gsize * pieces, gsize n_pieces,
    Out * o);
/* audiotestsrc ! factory name=f ! fakesink, setup applied to f: the
 * error's message (NULL: EOS) */
gchar *run_for_error (const gchar * factory, void (*setup) (GstElement * e,
        gpointer data), gpointer data, guint channels);
/* text (taken) must exist and contain what */
void expect_error (gchar * text, const gchar * what);

#endif
