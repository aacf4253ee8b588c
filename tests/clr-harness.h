/* clresample tests: GstHarness helpers shared by the element tests. */
#ifndef __CLR_HARNESS_H__
#define __CLR_HARNESS_H__

#include <gst/gst.h>
#include <gst/check/gstharness.h>

#define CAPS_FMT "audio/x-raw,format=F32LE,layout=interleaved,rate=%d," \
  "channels=%d,channel-mask=(bitmask)0"

typedef struct {
  float *data;                  /* every output sample, interleaved */
  size_t frames;
  GPtrArray *buffers;           /* the output buffers, in order */
} Collected;

/* A harness around `launch`, F32 interleaved in_rate -> out_rate. */
GstHarness *clr_make_harness (const char *launch, int in_rate, int out_rate,
    int channels);
/* A buffer of `frames` frames timestamped from start + offset / rate. */
GstBuffer *clr_make_buffer (const float *data, size_t frames, int channels,
    int rate, GstClockTime start, guint64 offset);
/* Pushes in[0..frames) cut into pieces (sizes cycled; NULL: 1024 each). */
void clr_push_stream (GstHarness * h, const float *in, size_t frames,
    int channels, int rate, GstClockTime start, const size_t * pieces,
    size_t n_pieces);
/* Pulls every buffer waiting in the harness. */
void clr_collect (GstHarness * h, int channels, Collected * c);
void clr_collected_free (Collected * c);
/* Fails at the first of got[0..n) that is not want[i] (want NULL: 0)
 * within 1e-7, as fail_unless_equals_float () compares, naming `what`,
 * the index and both values. One check for a whole signal:
 * gst-check records every check that passes (a message through its pipe,
 * allocated), so a check a sample made most of some tests' time, and ten
 * times that under the sanitizers, which unwind every allocation's stack. */
void clr_assert_samples (const float *got, const float *want, size_t n,
    const char *what);
#define CLR_SAME_SAMPLE 1e-7
/* A whole stream through `launch`, EOS included. */
void clr_run_stream (const char *launch, int in_rate, int out_rate,
    int channels, const float *in, size_t frames, const size_t * pieces,
    size_t n_pieces, Collected * c);

/* A stream of noise through `launch` (quality 4 unless taps says
 * otherwise, cutoff and phase as clr_filter_design_cut () and
 * clr_filter_set_phase () take them) against the float64 reference of
 * that filter: exact frame count, every sample within 1e-5. */
void clr_check_reference (const char *launch, guint taps, double cutoff,
    double phase, int in_rate, int out_rate, int channels);
/* Where a 997 Hz sine through `launch` comes out, in output samples
 * (positive: late); printed as well. */
double clr_time_offset (const char *launch, int in_rate, int out_rate);

#endif
