/* clresample: tests of the long-FIR convolution engine (clr-conv.h) against
 * a float64 direct convolution computed here. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "clr-conv-check.h"
#include "conv/clr-conv.h"

static ClrDevice *device;

/* Max error over the output RMS: F32 with transforms and partition sums in
 * double (measured 1.7-3.3e-7, docs/convolution.md); F32 on a device
 * without fp64, all in float (measured up to 1.7e-6); F64. */
#define F32_MAX 1e-6
#define F32_FLOAT_MAX 3e-6
#define F64_MAX 1e-12

typedef struct {
  const char *name;
  size_t taps;
  unsigned channels;
  gboolean per_channel;         /* one filter a channel, else one for all */
  unsigned block;
  ClrConvFormat format;
  size_t frames;
  double max_error;             /* max |error| / RMS of the output */
  unsigned outputs;             /* outputs a channel (bands); 0: one */
  gboolean interleaved;         /* the engine's own samples interleaved */
  gboolean planar_outputs;      /* ... but its outputs in planes */
  /* through the transforms, however short the filter (without it, filters
   * of up to CLR_CONV_DIRECT_TAPS taps are summed in direct form) */
  gboolean transformed;
  /* in direct form: every output sample the float64 reference's sum, in
   * the same order, rounded once to the format */
  gboolean exact;
  /* in levels of non-uniform partitions on any device (checked: more than
   * one level): 1 as the cost model cuts them, 2, 4, ... growing by that
   * factor */
  unsigned levels;
} ConvCase;

/* output planes: channels x outputs, band-major */
static unsigned
n_outputs (const ConvCase * tc)
{
  return tc->channels * MAX (tc->outputs, 1);
}

/* filters: one (or one a channel) for each output a channel */
static unsigned
n_filters_of (const ConvCase * tc)
{
  return (tc->per_channel ? tc->channels : 1) * MAX (tc->outputs, 1);
}

/* the filter of output plane o (band o / channels of channel
 * o % channels) */
static unsigned
filter_of (const ConvCase * tc, unsigned o)
{
  return tc->per_channel ? o : o / tc->channels;
}

/* Noise planes in the engine's format, and the same values as doubles. */
static void **
make_input (const ConvCase * tc, size_t frames, double ***as_double)
{
  void **in = g_new (void *, tc->channels);
  double **d = g_new (double *, tc->channels);
  unsigned ch;
  size_t n;

  for (ch = 0; ch < tc->channels; ch++) {
    guint64 state = 77 + ch;
    d[ch] = g_new (double, frames);
    in[ch] = g_malloc (frames * (tc->format == CLR_CONV_F64 ? 8 : 4));
    for (n = 0; n < frames; n++) {
      double v = 0.5 * clr_check_uniform (&state);
      if (tc->format == CLR_CONV_F64) {
        ((double *) in[ch])[n] = v;
      } else {
        ((float *) in[ch])[n] = (float) v;
        v = (float) v;
      }
      d[ch][n] = v;
    }
  }
  *as_double = d;
  return in;
}

static ClrConv *
conv_for (const ConvCase * tc, double **h)
{
  ClrConvConfig cfg = { 0, };
  GError *err = NULL;
  ClrConv *c;

  cfg.channels = tc->channels;
  cfg.block = tc->block;
  cfg.format = tc->format;
  cfg.taps = (const double *const *) h;
  cfg.n_taps = tc->taps;
  cfg.n_filters = n_filters_of (tc);
  cfg.outputs = tc->outputs;
  cfg.interleaved = tc->interleaved;
  cfg.planar_outputs = tc->planar_outputs;
  if (tc->transformed || tc->levels) {
    ClrTuning tuning = *clr_tuning_get ();

    tuning.conv_direct.set = tc->transformed;
    tuning.conv_direct.value = 0;
    tuning.conv_levels.set = tc->levels > 0;
    tuning.conv_levels.value = tc->levels;
    c = clr_conv_new_tuned (device, &cfg, &tuning, &err);
  } else {
    c = clr_conv_new (device, &cfg, &err);
  }
  g_assert_no_error (err);
  g_assert_nonnull (c);
  if (tc->levels)
    g_assert_cmpuint (clr_conv_get_plan (c)->n, >, 1);
  return c;
}

/* A case set up: its filters, its input (as given to the engine and as
 * doubles) and an engine. */
typedef struct {
  const ConvCase *tc;
  unsigned n_filters;
  double **h, **x;
  void **in;
  ClrConv *c;
} Setup;

static void
setup_init (Setup * s, const ConvCase * tc)
{
  s->tc = tc;
  s->n_filters = n_filters_of (tc);
  s->h = clr_check_filters (s->n_filters, tc->taps);
  s->in = make_input (tc, tc->frames, &s->x);
  s->c = conv_for (tc, s->h);
}

static void
setup_clear (Setup * s)
{
  clr_conv_free (s->c);
  clr_check_free_planes (s->in, s->tc->channels);
  clr_check_free_planes (s->x, s->tc->channels);
  clr_check_free_planes (s->h, s->n_filters);
}

/* Runs `frames` input frames through c in calls of chunks[i] frames
 * (cycled; NULL: one call), then drains. Returns the output planes, of
 * frames + clr_conv_get_drain_frames() frames, in the engine's format. */
static char **
run_conv (ClrConv * c, const ConvCase * tc, void **in, size_t frames,
    const size_t * chunks, size_t n_chunks)
{
  const size_t ss = tc->format == CLR_CONV_F64 ? 8 : 4;
  const size_t total = frames + clr_conv_get_drain_frames (c);
  char **out = g_new (char *, n_outputs (tc));
  const void *ip[CLR_CONV_CHANNELS_MAX];
  void *op[CLR_CONV_OUTPUTS_MAX];
  GError *err = NULL;
  size_t done = 0, i = 0, len;
  unsigned ch;

  g_assert_cmpuint (clr_conv_get_outputs (c), ==, n_outputs (tc));
  for (ch = 0; ch < n_outputs (tc); ch++)
    out[ch] = g_malloc (total * ss);
  while (done < frames) {
    len = chunks ? MIN (chunks[i++ % n_chunks], frames - done) : frames;
    for (ch = 0; ch < tc->channels; ch++)
      ip[ch] = (const char *) in[ch] + done * ss;
    for (ch = 0; ch < n_outputs (tc); ch++)
      op[ch] = out[ch] + done * ss;
    g_assert_true (clr_conv_process (c, ip, len, op, &err));
    g_assert_no_error (err);
    done += len;
  }
  for (ch = 0; ch < n_outputs (tc); ch++)
    op[ch] = out[ch] + frames * ss;
  g_assert_true (clr_conv_drain (c, op, &err));
  g_assert_no_error (err);
  return out;
}

static double
sample_at (const ConvCase * tc, char *const *out, unsigned ch, size_t t)
{
  return tc->format == CLR_CONV_F64 ? ((double *) out[ch])[t] :
      ((float *) out[ch])[t];
}

/* Whether the device's local memory takes the case's transforms (a
 * block that is no power of two needs B with 2B >= block + taps - 1:
 * 16384 for the crossover's 20480, more than GPUs' 48 KiB hold); skips
 * the test where it does not. */
static gboolean
fits_device (const ConvCase * tc)
{
  guint64 half = tc->block;

  if (tc->block & (tc->block - 1))
    for (half = 16; 2 * half < (guint64) tc->block + tc->taps - 1; half *= 2);
  if (half <= clr_conv_max_block (device))
    return TRUE;
  g_test_skip ("the device's local memory is too small for these "
      "transforms");
  return FALSE;
}

/* Every output frame against the direct convolution, or every `stride`-th
 * when that would take long; the first L frames must be exact zeros. */
static void
test_reference (gconstpointer data)
{
  const ConvCase *tc = data;
  double err_max = 0.0, sum_sq = 0.0, err_sq = 0.0;
  char **out;
  size_t total, latency, t, stride, n_checked = 0, n_inexact = 0;
  unsigned ch;
  ClrCheckRun ref = { NULL, };
  Setup s;

  if (tc->format == CLR_CONV_F64 && !clr_device_has_fp64 (device)) {
    g_test_skip ("no fp64 on this device");
    return;
  }
  if (!fits_device (tc))
    return;
  setup_init (&s, tc);
  latency = clr_conv_get_latency (s.c);
  g_assert_cmpuint (latency, ==, tc->block);
  g_assert_cmpuint (clr_conv_get_drain_frames (s.c), ==,
      latency + tc->taps - 1);
  total = tc->frames + clr_conv_get_drain_frames (s.c);
  out = run_conv (s.c, tc, s.in, tc->frames, NULL, 0);
  /* ~ 3e8 multiply-adds at most */
  stride = MAX (1, (guint64) total * tc->taps * n_outputs (tc) / 300000000);
  for (ch = 0; ch < n_outputs (tc); ch++) {
    const double *hc = s.h[filter_of (tc, ch)];
    const double *xc = s.x[ch % tc->channels];
    for (t = 0; t < latency; t++)
      g_assert_cmpfloat (sample_at (tc, out, ch, t), ==, 0.0);
    /* both ends of the output, and the middle sampled */
    for (t = latency; t < total; t += t < 4 * latency
        || t + 2 * latency > total ? 1 : stride) {
      double want = clr_check_direct_at (&ref, hc, tc->taps, xc, tc->frames,
          t - latency);
      double got = sample_at (tc, out, ch, t);

      if (tc->exact && got != (tc->format == CLR_CONV_F64 ? want :
              (double) (float) want))
        n_inexact++;
      err_max = MAX (err_max, fabs (got - want));
      err_sq += (got - want) * (got - want);
      sum_sq += want * want;
      n_checked++;
    }
  }
  {
    double rms = sqrt (sum_sq / n_checked), rel = err_max / rms;
    g_test_message ("%s: %" G_GSIZE_FORMAT " frames checked, max error %.3g "
        "= %.3g x RMS (%.1f dB), RMS error %.3g x RMS", tc->name, n_checked,
        err_max, rel, 20 * log10 (rel), sqrt (err_sq / sum_sq));
    g_assert_cmpfloat (rel, <=, clr_device_has_fp64 (device) ?
        tc->max_error : F32_FLOAT_MAX);
    g_assert_cmpuint (n_inexact, ==, 0);
  }
  clr_check_free_planes (out, n_outputs (tc));
  setup_clear (&s);
}

static gboolean
outputs_equal (const ConvCase * tc, char **a, char **b, size_t total)
{
  const size_t ss = tc->format == CLR_CONV_F64 ? 8 : 4;
  unsigned ch;

  for (ch = 0; ch < n_outputs (tc); ch++)
    if (memcmp (a[ch], b[ch], total * ss))
      return FALSE;
  return TRUE;
}

/* The input cut into calls of 1, 7, 100 or 3000 frames, or a mix, gives
 * the same output, bit for bit, as one call. */
static void
test_chunking (gconstpointer data)
{
  const ConvCase *tc = data;
  static const size_t sizes[][4] = { {1}, {7}, {100}, {3000},
  {1, 7, 3000, 100}
  };
  static const size_t n_sizes[] = { 1, 1, 1, 1, 4 };
  char **whole, **cut;
  size_t i, total;
  Setup s;

  if (!fits_device (tc))
    return;
  setup_init (&s, tc);
  total = tc->frames + clr_conv_get_drain_frames (s.c);
  whole = run_conv (s.c, tc, s.in, tc->frames, NULL, 0);
  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    clr_conv_reset (s.c);
    cut = run_conv (s.c, tc, s.in, tc->frames, sizes[i], n_sizes[i]);
    g_assert_true (outputs_equal (tc, whole, cut, total));
    clr_check_free_planes (cut, n_outputs (tc));
  }
  clr_check_free_planes (whole, n_outputs (tc));
  setup_clear (&s);
}

/* A filter of one non-zero tap k: an impulse at input frame j comes out at
 * frame L + j + k, and nowhere else. */
static void
test_latency (void)
{
  const ConvCase tc = { "latency", 300, 1, FALSE, 128, CLR_CONV_F32, 1000 };
  const size_t taps_at[] = { 0, 1, 127, 128, 299 };
  const size_t impulses_at[] = { 0, 5, 700 };
  double *h = g_new0 (double, tc.taps);
  const double *hp[1] = { h };
  float *in = g_new0 (float, tc.frames);
  void *ip[1] = { in };
  size_t i, j, t;

  for (i = 0; i < G_N_ELEMENTS (taps_at); i++) {
    ClrConv *c;
    char **out;

    memset (h, 0, tc.taps * sizeof (double));
    h[taps_at[i]] = 1.0;
    c = conv_for (&tc, (double **) hp);
    g_assert_cmpuint (clr_conv_get_latency (c), ==, 128);
    for (j = 0; j < G_N_ELEMENTS (impulses_at); j++) {
      memset (in, 0, tc.frames * sizeof (float));
      in[impulses_at[j]] = 1.0f;
      clr_conv_reset (c);
      out = run_conv (c, &tc, ip, tc.frames, NULL, 0);
      for (t = 0; t < tc.frames + clr_conv_get_drain_frames (c); t++) {
        float v = ((float *) out[0])[t];
        if (t == 128 + impulses_at[j] + taps_at[i])
          g_assert_cmpfloat (fabs (v - 1.0), <, 1e-6);
        else
          g_assert_cmpfloat (fabs (v), <, 1e-6);
      }
      clr_check_free_planes (out, 1);
    }
    clr_conv_free (c);
  }
  g_free (in);
  g_free (h);
}

/* A reset stream gives the same output as a fresh engine; a drained one
 * refuses input until reset. */
static void
test_reset (void)
{
  static const ConvCase tc = { "reset", 1000, 2, TRUE, 64, CLR_CONV_F32,
    5000, 0
  };
  static const size_t odd[] = { 333 };
  char **first, **again;
  GError *err = NULL;
  float o[2][10];
  void *op[2] = { o[0], o[1] };
  Setup s;

  setup_init (&s, &tc);
  first = run_conv (s.c, &tc, s.in, tc.frames, NULL, 0);
  /* drained: input is refused */
  g_assert_false (clr_conv_process (s.c, (const void *const *) s.in, 10, op,
          &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);
  /* a stream cut off half-way, then a reset */
  clr_conv_reset (s.c);
  g_assert_true (clr_conv_process (s.c, (const void *const *) s.in, 10, op,
          &err));
  clr_conv_reset (s.c);
  again = run_conv (s.c, &tc, s.in, tc.frames, odd, 1);
  g_assert_true (outputs_equal (&tc, first, again,
          tc.frames + clr_conv_get_drain_frames (s.c)));
  clr_check_free_planes (again, 2);
  clr_check_free_planes (first, 2);
  setup_clear (&s);
}

/* A configuration must fail with code `code`, and say so. */
static void
expect_error_tuned (const ClrConvConfig * cfg, const ClrTuning * tuning,
    int code)
{
  GError *err = NULL;

  g_assert_null (clr_conv_new_tuned (device, cfg, tuning, &err));
  g_assert_error (err, CLR_ERROR, code);
  g_assert_cmpuint (strlen (err->message), >, 10);
  g_test_message ("refused: %s", err->message);
  g_error_free (err);
}

static void
expect_error (const ClrConvConfig * cfg, int code)
{
  expect_error_tuned (cfg, clr_tuning_get (), code);
}

/* clr_conv_workable_block (): the block asked for where it serves, else
 * the nearest below that the device's largest block (its local memory on
 * a GPU: 2048 on an H100, CLR_CONV_BLOCK_MAX on CPUs) allows */
static void
test_workable_block (void)
{
  /* valid as asked */
  g_assert_cmpuint (clr_conv_workable_block (1024, 65536, 16384), ==, 1024);
  g_assert_cmpuint (clr_conv_workable_block (1040, 1000, 2048), ==, 1040);
  /* no power of two: a multiple of 16 below whose transform holds the
   * filter, where the device takes that transform */
  g_assert_cmpuint (clr_conv_workable_block (1000, 8191, 16384), ==, 992);
  g_assert_cmpuint (clr_conv_workable_block (1000, 8191, 2048), ==, 512);
  g_assert_cmpuint (clr_conv_workable_block (1040, 65536, 16384), ==, 1024);
  /* past the device's largest, or past the engine's */
  g_assert_cmpuint (clr_conv_workable_block (4096, 100, 2048), ==, 2048);
  g_assert_cmpuint (clr_conv_workable_block (65536, 100, 16384), ==, 16384);
  g_assert_cmpuint (clr_conv_workable_block (17, 100, 16384), ==, 16);
  g_assert_cmpuint (clr_conv_workable_block (8, 100, 16384), ==, 16);
}

static void
test_errors (void)
{
  double taps[64] = { 1.0, 0.5 };
  const double *hp[2] = { taps, taps }, *none[2] = { NULL, NULL };
  double **big = clr_check_filters (1, 65536);
  ClrConvConfig cfg = { 2, 64, CLR_CONV_F32, hp, 64, 1 }, bad;
  ClrTuning tuning;

  bad = cfg;
  bad.n_taps = 0;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.n_taps = CLR_CONV_TAPS_MAX + 1;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.taps = NULL;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.taps = none;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  taps[17] = NAN;
  expect_error (&bad, CLR_ERROR_INVALID);
  taps[17] = INFINITY;
  expect_error (&bad, CLR_ERROR_INVALID);
  taps[17] = 0.0;
  bad.block = 100;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.block = 8;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.block = 1u << 20;
  expect_error (&bad, CLR_ERROR_INVALID);
  /* no power of two: past the largest, or a filter that does not fit one
   * transform with the block (16384 + 16385 - 1 > 32768) */
  bad.block = CLR_CONV_HOP_MAX + 2 * CLR_CONV_BLOCK_MIN;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.block = 2 * CLR_CONV_BLOCK_MAX;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.taps = (const double *const *) big;
  bad.n_taps = 16385;
  bad.block = 16400;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.n_filters = 3;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.n_filters = 0;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.channels = 0;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.format = (ClrConvFormat) 7;
  expect_error (&bad, CLR_ERROR_INVALID);
  if (!clr_device_has_fp64 (device)) {
    bad = cfg;
    bad.format = CLR_CONV_F64;
    expect_error (&bad, CLR_ERROR_INVALID);
  }
  /* 65536 taps: 64 partitions of 1024 complex bins, far over 100 kB */
  bad = cfg;
  bad.taps = (const double *const *) big;
  bad.n_taps = 65536;
  tuning = *clr_tuning_get ();
  tuning.device_memory = 100000;
  expect_error_tuned (&bad, &tuning, CLR_ERROR_RESOURCES);
  clr_check_free_planes (big, 1);
}

/* Several outputs a channel (a crossover's bands): each output plane is,
 * bit for bit, what an engine of that one filter gives (the input's
 * transforms are shared, the sums and inverse transforms the same), where
 * both sum in the same number of slices (CPUs; or slices forced). */
static void
test_outputs_alone (gconstpointer data)
{
  const ConvCase *tc = data;
  ConvCase one = *tc;
  const size_t ss = tc->format == CLR_CONV_F64 ? 8 : 4;
  char **all, **alone;
  unsigned o, k;
  size_t total;
  Setup s;

  if (clr_device_is_gpu (device) && !clr_tuning_get ()->conv_slices.set) {
    g_test_skip ("the slices of the sum depend on the outputs on GPUs");
    return;
  }
  if (!fits_device (tc))
    return;
  setup_init (&s, tc);
  total = tc->frames + clr_conv_get_drain_frames (s.c);
  all = run_conv (s.c, tc, s.in, tc->frames, NULL, 0);
  one.outputs = 0;
  for (k = 0; k < MAX (tc->outputs, 1); k++) {
    ClrConv *c1 = conv_for (&one, s.h + k * (tc->per_channel ?
            tc->channels : 1));
    alone = run_conv (c1, &one, s.in, tc->frames, NULL, 0);
    for (o = 0; o < tc->channels; o++)
      g_assert_true (memcmp (all[k * tc->channels + o], alone[o],
              total * ss) == 0);
    clr_check_free_planes (alone, tc->channels);
    clr_conv_free (c1);
  }
  clr_check_free_planes (all, n_outputs (tc));
  setup_clear (&s);
}

/* outputs: refused counts */
static void
test_outputs_errors (void)
{
  double taps[64] = { 1.0, 0.5 };
  const double *hp[8] = { taps, taps, taps, taps, taps, taps, taps, taps };
  ClrConvConfig cfg = { 2, 64, CLR_CONV_F32, hp, 64, 4, 4 }, bad;
  GError *err = NULL;
  ClrConv *c;

  /* 4 filters (one a band) and 8 (one a band and channel) are fine */
  c = clr_conv_new (device, &cfg, &err);
  g_assert_no_error (err);
  g_assert_cmpuint (clr_conv_get_outputs (c), ==, 8);
  clr_conv_free (c);
  cfg.n_filters = 8;
  c = clr_conv_new (device, &cfg, &err);
  g_assert_no_error (err);
  clr_conv_free (c);
  bad = cfg;
  bad.n_filters = 2;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad.n_filters = 1;
  expect_error (&bad, CLR_ERROR_INVALID);
  bad = cfg;
  bad.n_filters = 5;
  bad.outputs = 5;
  bad.channels = 256;
  expect_error (&bad, CLR_ERROR_INVALID);
}

static const ConvCase outputs_cases[] = {
  /* name, taps, channels, per channel, B, format, frames, max, outputs */
  {"4x8191taps-2ch-f32", 8191, 2, FALSE, 256, CLR_CONV_F32, 20000, F32_MAX,
      4},
  {"3x500taps-3ch-each-f32", 500, 3, TRUE, 64, CLR_CONV_F32, 5000, F32_MAX,
      3},
  {"4x8191taps-2ch-f64", 8191, 2, FALSE, 512, CLR_CONV_F64, 20000, F64_MAX,
      4},
  {"2x127taps-1ch-f64", 127, 1, FALSE, 16, CLR_CONV_F64, 3000, F64_MAX, 2},
  /* blocks that are no power of two (one partition): a crossover's
   * 8191 taps in 32768-point transforms, 20480 frames a block */
  {"4x8191taps-2ch-hop20480-f32", 8191, 2, FALSE, 20480, CLR_CONV_F32,
      70000, F32_MAX, 4},
  {"3x100taps-2ch-each-hop48-f64", 100, 2, TRUE, 48, CLR_CONV_F64, 3000,
      F64_MAX, 3},
  /* as clcrossover runs on CPUs: interleaved input, the bands in planes */
  {"3x1000taps-2ch-hop1040-f32-planar-outputs", 1000, 2, FALSE, 1040,
      CLR_CONV_F32, 10000, F32_MAX, 3, TRUE, TRUE},
  /* in direct form */
  {"3x32taps-2ch-hop1040-f32-planar-outputs-direct", 32, 2, FALSE, 1040,
      CLR_CONV_F32, 10000, F32_MAX, 3, TRUE, TRUE, FALSE, TRUE},
  {"2x64taps-3ch-each-f64-direct", 64, 3, TRUE, 16, CLR_CONV_F64, 3000,
      F64_MAX, 2, FALSE, FALSE, FALSE, TRUE},
  /* in levels */
  {"3x20000taps-2ch-f32-levels", 20000, 2, FALSE, 256, CLR_CONV_F32, 30000,
      F32_MAX, 3, FALSE, FALSE, FALSE, FALSE, TRUE},
  {"3x5000taps-2ch-f32-planar-outputs-levels-x4", 5000, 2, FALSE, 64,
      CLR_CONV_F32, 10000, F32_MAX, 3, TRUE, TRUE, FALSE, FALSE, 4},
};

static const ConvCase outputs_chunking_cases[] = {
  {"f32", 1000, 2, FALSE, 64, CLR_CONV_F32, 10000, 0, 4},
  {"f64", 300, 3, TRUE, 128, CLR_CONV_F64, 10000, 0, 2},
  {"f32-interleaved", 1000, 2, FALSE, 64, CLR_CONV_F32, 10000, 0, 4, TRUE},
  {"f32-hop1040", 1000, 2, FALSE, 1040, CLR_CONV_F32, 10000, 0, 4},
  {"f32-hop1040-planar-outputs", 1000, 2, FALSE, 1040, CLR_CONV_F32, 10000,
      0, 4, TRUE, TRUE},
  {"f32-interleaved-direct", 40, 2, FALSE, 64, CLR_CONV_F32, 10000, 0, 4,
      TRUE},
};

static const ConvCase reference_cases[] = {
  {"1tap-1ch-f32", 1, 1, FALSE, 64, CLR_CONV_F32, 3000, F32_MAX, 0, FALSE,
      FALSE, TRUE},
  {"2taps-2ch-each-f32", 2, 2, TRUE, 64, CLR_CONV_F32, 3000, F32_MAX, 0,
      FALSE, FALSE, TRUE},
  {"127taps-6ch-f32", 127, 6, FALSE, 64, CLR_CONV_F32, 5000, F32_MAX},
  {"127taps-6ch-f32-interleaved", 127, 6, FALSE, 64, CLR_CONV_F32, 5000,
      F32_MAX, 0, TRUE},
  {"1000taps-3ch-each-f64-interleaved", 1000, 3, TRUE, 128, CLR_CONV_F64,
      5000, F64_MAX, 0, TRUE},
  {"127taps-6ch-each-f64", 127, 6, TRUE, 128, CLR_CONV_F64, 5000, F64_MAX},
  {"8192taps-2ch-each-f32", 8192, 2, TRUE, 256, CLR_CONV_F32, 20000,
      F32_MAX},
  {"8192taps-1ch-f64", 8192, 1, FALSE, 512, CLR_CONV_F64, 20000, F64_MAX},
  {"65536taps-2ch-each-f32", 65536, 2, TRUE, 1024, CLR_CONV_F32, 70000,
      F32_MAX},
  {"65536taps-6ch-f64", 65536, 6, FALSE, 1024, CLR_CONV_F64, 40000,
      F64_MAX},
  /* blocks that are no power of two: the filter in one transform of the
   * next power of two that holds a block and the filter (2B >= H + taps
   * - 1), the block longer or shorter than B */
  {"1tap-1ch-hop80-f32", 1, 1, FALSE, 80, CLR_CONV_F32, 3000, F32_MAX, 0,
      FALSE, FALSE, TRUE},
  {"127taps-3ch-each-hop48-f32", 127, 3, TRUE, 48, CLR_CONV_F32, 3000,
      F32_MAX},
  {"1000taps-2ch-hop1040-f32-interleaved", 1000, 2, FALSE, 1040,
      CLR_CONV_F32, 10000, F32_MAX, 0, TRUE},
  {"8191taps-2ch-hop24576-f32", 8191, 2, FALSE, 24576, CLR_CONV_F32,
      60000, F32_MAX},
  {"8191taps-1ch-hop20480-f64", 8191, 1, FALSE, 20480, CLR_CONV_F64,
      50000, F64_MAX},
  /* short filters in direct form, exact against the reference: every
   * layout, block and filter count, up to the longest (64 taps) */
  {"1tap-1ch-f32-direct", 1, 1, FALSE, 64, CLR_CONV_F32, 3000, F32_MAX, 0,
      FALSE, FALSE, FALSE, TRUE},
  {"6taps-1ch-f64-direct", 6, 1, FALSE, 64, CLR_CONV_F64, 3000, F64_MAX, 0,
      FALSE, FALSE, FALSE, TRUE},
  {"64taps-2ch-each-f32-direct", 64, 2, TRUE, 16, CLR_CONV_F32, 5000,
      F32_MAX, 0, FALSE, FALSE, FALSE, TRUE},
  {"33taps-6ch-f32-interleaved-direct", 33, 6, FALSE, 64, CLR_CONV_F32, 5000,
      F32_MAX, 0, TRUE, FALSE, FALSE, TRUE},
  {"17taps-3ch-each-hop48-f64-direct", 17, 3, TRUE, 48, CLR_CONV_F64, 3000,
      F64_MAX, 0, FALSE, FALSE, FALSE, TRUE},
  {"64taps-2ch-f64-interleaved-direct", 64, 2, FALSE, 1024, CLR_CONV_F64,
      5000, F64_MAX, 0, TRUE, FALSE, FALSE, TRUE},
  /* long filters in levels of non-uniform partitions (on GPUs too) */
  {"70000taps-2ch-each-f32-levels", 70000, 2, TRUE, 256, CLR_CONV_F32,
      80000, F32_MAX, 0, FALSE, FALSE, FALSE, FALSE, TRUE},
  {"70000taps-1ch-f64-levels", 70000, 1, FALSE, 256, CLR_CONV_F64, 80000,
      F64_MAX, 0, FALSE, FALSE, FALSE, FALSE, TRUE},
  {"5000taps-3ch-f32-interleaved-levels-x2", 5000, 3, FALSE, 16,
      CLR_CONV_F32, 8000, F32_MAX, 0, TRUE, FALSE, FALSE, FALSE, 2},
};

static const ConvCase chunking_cases[] = {
  {"f32", 1000, 2, TRUE, 64, CLR_CONV_F32, 10000, 0},
  {"f64", 300, 1, FALSE, 128, CLR_CONV_F64, 10000, 0},
  {"f32-hop1040", 1000, 2, TRUE, 1040, CLR_CONV_F32, 10000, 0},
  {"f64-hop48", 100, 1, FALSE, 48, CLR_CONV_F64, 10000, 0},
  {"f32-direct", 48, 2, TRUE, 64, CLR_CONV_F32, 10000, 0},
  {"f64-hop48-direct", 20, 1, FALSE, 48, CLR_CONV_F64, 10000, 0, 0, TRUE},
  {"f32-levels-x4", 20000, 2, TRUE, 64, CLR_CONV_F32, 30000, 0, 0, FALSE,
      FALSE, FALSE, FALSE, 4},
  {"f64-interleaved-levels-x8", 5000, 2, FALSE, 16, CLR_CONV_F64, 10000, 0,
      0, TRUE, FALSE, FALSE, FALSE, 8},
};

/* The input history (ClrConvConfig.history): fed in uneven calls past
 * several wraps of its device ring (1000 frames kept, B = 64: a ring of
 * 1024), the last frames read back at every step must be the input, bit
 * for bit, whether they lie on the device (in one run or across the wrap)
 * or still pending on the host, planar or interleaved; a reset forgets
 * them. */
typedef struct {
  gboolean interleaved;
  unsigned block;
  size_t taps;                  /* up to CLR_CONV_DIRECT_TAPS: direct form */
} HistoryCase;

static void
test_history (gconstpointer data)
{
  const HistoryCase *hc = data;
  const gboolean interleaved = hc->interleaved;
  static const size_t calls[] = { 1, 63, 64, 65, 700, 1000, 5, 2048, 31 };
  const ConvCase tc = { "history", hc->taps, 3, FALSE, hc->block,
    CLR_CONV_F32, 0, 0
  };
  const size_t keep = 1000, frames = 12000;
  double **h = clr_check_filters (1, tc.taps), **xd;
  void **in = make_input (&tc, frames, &xd);
  void **out = g_new (void *, tc.channels), **got = g_new (void *,
      tc.channels);
  const void *at[3];
  ClrConvConfig cfg = { 0, };
  GError *err = NULL;
  size_t pos = 0, i = 0, back, n, k;
  unsigned ch, reads = 0;
  ClrConv *c;

  cfg.channels = tc.channels;
  cfg.block = tc.block;
  cfg.format = tc.format;
  cfg.taps = (const double *const *) h;
  cfg.n_taps = tc.taps;
  cfg.n_filters = 1;
  cfg.history = keep;
  cfg.interleaved = interleaved;
  c = clr_conv_new (device, &cfg, &err);
  g_assert_no_error (err);
  for (ch = 0; ch < tc.channels; ch++) {
    out[ch] = g_malloc (2048 * sizeof (float));
    got[ch] = g_malloc (keep * sizeof (float));
  }
  g_assert_cmpuint (clr_conv_get_history_len (c), ==, 0);
  while (pos < frames) {
    n = MIN (calls[i++ % G_N_ELEMENTS (calls)], frames - pos);
    for (ch = 0; ch < tc.channels; ch++)
      at[ch] = (const float *) in[ch] + pos;
    g_assert_true (clr_conv_process (c, at, n, out, &err));
    g_assert_no_error (err);
    pos += n;
    g_assert_cmpuint (clr_conv_get_history_len (c), ==, MIN (pos, keep));
    /* all it holds, then a piece from its middle */
    for (k = 0; k < 2; k++) {
      back = MIN (pos, keep) - k * MIN (pos, keep) / 3;
      n = k ? back / 2 : back;
      g_assert_true (clr_conv_read_history (c, back, n, got, &err));
      g_assert_no_error (err);
      for (ch = 0; ch < tc.channels; ch++)
        g_assert_true (memcmp (got[ch], (const float *) in[ch] + pos - back,
                n * sizeof (float)) == 0);
      reads++;
    }
  }
  g_assert_cmpuint (reads, >, 30);
  clr_conv_reset (c);
  g_assert_cmpuint (clr_conv_get_history_len (c), ==, 0);
  clr_conv_free (c);
  clr_check_free_planes (in, tc.channels);
  clr_check_free_planes (out, tc.channels);
  clr_check_free_planes (got, tc.channels);
  clr_check_free_planes (xd, tc.channels);
  clr_check_free_planes (h, 1);
}

static const HistoryCase history_cases[] = { {FALSE, 64, 100},
{TRUE, 64, 100}, {FALSE, 80, 100}, {FALSE, 64, 40}, {TRUE, 80, 40},
{FALSE, 16, 5000}
};

/* Every tap next to a level's first (and the filter's first and last)
 * alone: a filter of one 1.0 at tap k gives the input back at output
 * frame L + j + k and nothing anywhere else, in levels of non-uniform
 * partitions from a thousand taps to a million. F64 where the device has
 * doubles. */
typedef struct {
  size_t taps;
  unsigned block;
  unsigned levels;              /* as ConvCase's */
} LevelsCase;

/* A mono conv of the case's filter h under `tuning`. */
static ClrConv *
levels_conv (const LevelsCase * lc, ClrConvFormat fmt, const double *h,
    const ClrTuning * tuning)
{
  const double *hp[1] = { h };
  ClrConvConfig cfg = { 0, };
  GError *err = NULL;
  ClrConv *c;

  cfg.channels = 1;
  cfg.block = lc->block;
  cfg.format = fmt;
  cfg.taps = hp;
  cfg.n_taps = lc->taps;
  cfg.n_filters = 1;
  c = clr_conv_new_tuned (device, &cfg, tuning, &err);
  g_assert_no_error (err);
  return c;
}

static void
check_one_tap (const LevelsCase * lc, size_t k, const ClrTuning * tuning)
{
  const gboolean f64 = clr_device_has_fp64 (device);
  const ClrConvFormat fmt = f64 ? CLR_CONV_F64 : CLR_CONV_F32;
  const double tol = f64 ? 1e-12 : 3e-6;
  const size_t n_x = 1500, ss = f64 ? 8 : 4;
  const ConvCase tc = { "one tap", lc->taps, 1, FALSE, lc->block, fmt, n_x };
  double *h = g_new0 (double, lc->taps), **xd, got, want, worst = 0.0;
  void **x = make_input (&tc, n_x, &xd);
  GError *err = NULL;
  size_t frames, t, L, done = 0, len;
  char *out;
  ClrConv *c;

  h[k] = 1.0;
  c = levels_conv (lc, fmt, h, tuning);
  L = clr_conv_get_latency (c);
  frames = L + k + n_x + 100;
  out = g_malloc (frames * ss);
  /* the input, then silence, in calls of up to 7000 frames */
  while (done < frames) {
    const void *in[1] = { NULL };
    void *op[1] = { out + done * ss };

    len = MIN (7000, frames - done);
    if (done < n_x) {
      len = MIN (len, n_x - done);
      in[0] = (const char *) x[0] + done * ss;
    }
    g_assert_true (clr_conv_process (c, done < n_x ? in : NULL, len, op,
            &err));
    g_assert_no_error (err);
    done += len;
  }
  for (t = 0; t < frames; t++) {
    got = f64 ? ((double *) out)[t] : ((float *) out)[t];
    want = t >= L + k && t < L + k + n_x ? xd[0][t - L - k] : 0.0;
    worst = MAX (worst, fabs (got - want));
  }
  if (worst > tol)
    g_error ("%" G_GSIZE_FORMAT " taps in blocks of %u: tap %" G_GSIZE_FORMAT
        " alone is off by %g", lc->taps, lc->block, k, worst);
  clr_conv_free (c);
  g_free (out);
  g_free (h);
  clr_check_free_planes (x, 1);
  clr_check_free_planes (xd, 1);
}

static void
test_levels_boundaries (gconstpointer data)
{
  const LevelsCase *lc = data;
  ClrTuning tuning = *clr_tuning_get ();
  const ClrConvLevelPlan *plan;
  double *h = g_new0 (double, lc->taps);
  ClrConv *c;
  unsigned i;
  int d;

  tuning.conv_levels.set = TRUE;
  tuning.conv_levels.value = lc->levels;
  h[0] = 1.0;
  c = levels_conv (lc, CLR_CONV_F32, h, &tuning);
  plan = clr_conv_get_plan (c);
  g_assert_cmpuint (plan->n, >, 1);
  g_assert_cmpuint (plan->block[0], ==, lc->block);
  g_assert_cmpuint (plan->start[0], ==, 0);
  for (i = 0; i < plan->n; i++) {
    g_test_message ("level %u: taps %" G_GSIZE_FORMAT " .. %" G_GSIZE_FORMAT
        " in blocks of %u", i, plan->start[i], plan->start[i] +
        plan->taps[i], plan->block[i]);
    /* contiguous, each level's output due no sooner than it comes */
    if (i > 0) {
      g_assert_cmpuint (plan->start[i], ==, plan->start[i - 1] +
          plan->taps[i - 1]);
      g_assert_cmpuint (plan->start[i] + lc->block, >=, plan->block[i]);
      /* on the host, two blocks of the level's own to spare
       * (clr-conv-async.h) */
      if (clr_knob_or (tuning.conv_host, !clr_device_is_gpu (device)))
        g_assert_cmpuint (plan->start[i] + lc->block, >=,
            3 * (size_t) plan->block[i]);
    }
  }
  g_assert_cmpuint (plan->start[plan->n - 1] + plan->taps[plan->n - 1], ==,
      lc->taps);
  for (i = 1; i < plan->n; i++)
    for (d = -1; d <= 1; d++)
      check_one_tap (lc, plan->start[i] + d, &tuning);
  check_one_tap (lc, 0, &tuning);
  check_one_tap (lc, lc->taps - 1, &tuning);
  clr_conv_free (c);
  g_free (h);
}

/* A level that cannot be made (a device-memory budget that the head fits
 * and a later level does not, somewhere in the range tried) fails the
 * whole conv with a resources error, and frees what was made; one that
 * is made keeps the head and all its levels within the one budget. */
static void
test_levels_budget (void)
{
  const LevelsCase lc = { 70000, 256, 1 };
  ClrTuning tuning = *clr_tuning_get ();
  double **h = clr_check_filters (1, lc.taps);
  const double *hp[1] = { h[0] };
  ClrConvConfig cfg = { 0, };
  guint64 budget;
  unsigned failed = 0, made = 0;

  tuning.conv_levels.set = TRUE;
  tuning.conv_levels.value = 1;
  cfg.channels = 2;
  cfg.block = lc.block;
  cfg.format = CLR_CONV_F32;
  cfg.taps = hp;
  cfg.n_taps = lc.taps;
  cfg.n_filters = 1;
  for (budget = 16 << 10; budget <= (256u << 20); budget *= 2) {
    GError *err = NULL;
    ClrConv *c;

    tuning.device_memory = budget;
    c = clr_conv_new_tuned (device, &cfg, &tuning, &err);
    if (c) {
      g_assert_no_error (err);
      g_assert_cmpuint (clr_conv_get_plan (c)->n, >, 1);
      g_assert_cmpuint (clr_conv_get_device_memory (c), <=, budget);
      made++;
      clr_conv_free (c);
    } else {
      g_assert_error (err, CLR_ERROR, CLR_ERROR_RESOURCES);
      g_test_message ("%" G_GUINT64_FORMAT " bytes: %s", budget,
          err->message);
      failed++;
      g_error_free (err);
    }
  }
  g_test_message ("%u budgets refused, %u made", failed, made);
  g_assert_cmpuint (failed, >, 0);
  g_assert_cmpuint (made, >, 0);
  clr_check_free_planes (h, 1);
}

/* The host's convolution with its workers (clr-workers.h: a stream's
 * channels side by side, the levels after the head apart from it, each on
 * its own schedule) gives the same output, bit for bit, as without them:
 * in calls of 1 frame to whole batches, after a reset, for F32 and F64,
 * planes and interleaved frames, several outputs a channel. Where the
 * device is not the host's (CLRESAMPLE_CONV_HOST=0), the knob changes
 * nothing and the comparison still holds. */
static void
test_threads_same (gconstpointer data)
{
  const ConvCase *tc = data;
  static const size_t chunks[] = { 1, 255, 4096, 17, 16384, 300 };
  const size_t ss = tc->format == CLR_CONV_F64 ? 8 : 4;
  ClrTuning tuning = *clr_tuning_get ();
  ClrConvConfig cfg = { 0, };
  char **out[3];
  size_t total = 0;
  unsigned run, ch;
  Setup s;

  setup_init (&s, tc);
  cfg.channels = tc->channels;
  cfg.block = tc->block;
  cfg.format = tc->format;
  cfg.taps = (const double *const *) s.h;
  cfg.n_taps = tc->taps;
  cfg.n_filters = s.n_filters;
  cfg.outputs = tc->outputs;
  cfg.interleaved = tc->interleaved;
  tuning.conv_levels.set = TRUE;
  tuning.conv_levels.value = 1;
  for (run = 0; run < 3; run++) {
    GError *err = NULL;
    ClrConv *c;

    /* inline, then on the workers twice: the second after a reset of a
     * conv that ran */
    tuning.conv_threads.set = TRUE;
    tuning.conv_threads.value = run > 0;
    c = clr_conv_new_tuned (device, &cfg, &tuning, &err);
    g_assert_no_error (err);
    g_assert_cmpuint (clr_conv_get_plan (c)->n, >, 1);
    if (run == 2) {
      clr_check_free_planes (run_conv (c, tc, s.in, tc->frames / 3, chunks,
              G_N_ELEMENTS (chunks)), n_outputs (tc));
      clr_conv_reset (c);
    }
    out[run] = run_conv (c, tc, s.in, tc->frames, chunks,
        G_N_ELEMENTS (chunks));
    total = tc->frames + clr_conv_get_drain_frames (c);
    clr_conv_free (c);
  }
  for (run = 1; run < 3; run++) {
    for (ch = 0; ch < n_outputs (tc); ch++)
      g_assert_cmpmem (out[run][ch], total * ss, out[0][ch], total * ss);
  }
  for (run = 0; run < 3; run++)
    clr_check_free_planes (out[run], n_outputs (tc));
  setup_clear (&s);
}

static const ConvCase threads_cases[] = {
  {"stereo-70000-b256-f32", 70000, 2, TRUE, 256, CLR_CONV_F32, 120000},
  {"mono-300000-b64-f32", 300000, 1, FALSE, 64, CLR_CONV_F32, 80000},
  {"stereo-20000-b128-f64-interleaved-3out", 20000, 2, FALSE, 128,
      CLR_CONV_F64, 50000, 0.0, 3, TRUE},
};

static const LevelsCase levels_cases[] = { {100, 16, 2}, {1000, 16, 4},
{70000, 256, 1}, {1048576, 1024, 1}
};

int
main (int argc, char **argv)
{
  GError *err = NULL;
  size_t i;
  int ret;

  g_test_init (&argc, &argv, NULL);
  device = clr_device_acquire ("auto", &err);
  if (!device)
    g_error ("no OpenCL device for the tests: %s", err->message);

  for (i = 0; i < G_N_ELEMENTS (reference_cases); i++) {
    char *name = g_strdup_printf ("/conv/reference/%s",
        reference_cases[i].name);
    g_test_add_data_func (name, &reference_cases[i], test_reference);
    g_free (name);
  }
  for (i = 0; i < G_N_ELEMENTS (chunking_cases); i++) {
    char *name = g_strdup_printf ("/conv/chunking/%s",
        chunking_cases[i].name);
    if (chunking_cases[i].format == CLR_CONV_F32
        || clr_device_has_fp64 (device))
      g_test_add_data_func (name, &chunking_cases[i], test_chunking);
    g_free (name);
  }
  for (i = 0; i < G_N_ELEMENTS (outputs_cases); i++) {
    char *name;
    if (outputs_cases[i].format == CLR_CONV_F64
        && !clr_device_has_fp64 (device))
      continue;
    name = g_strdup_printf ("/conv/outputs/reference/%s",
        outputs_cases[i].name);
    g_test_add_data_func (name, &outputs_cases[i], test_reference);
    g_free (name);
    name = g_strdup_printf ("/conv/outputs/alone/%s", outputs_cases[i].name);
    g_test_add_data_func (name, &outputs_cases[i], test_outputs_alone);
    g_free (name);
  }
  for (i = 0; i < G_N_ELEMENTS (outputs_chunking_cases); i++) {
    char *name = g_strdup_printf ("/conv/outputs/chunking/%s",
        outputs_chunking_cases[i].name);
    if (outputs_chunking_cases[i].format == CLR_CONV_F32
        || clr_device_has_fp64 (device))
      g_test_add_data_func (name, &outputs_chunking_cases[i], test_chunking);
    g_free (name);
  }
  g_test_add_func ("/conv/outputs/errors", test_outputs_errors);
  g_test_add_func ("/conv/latency", test_latency);
  g_test_add_func ("/conv/reset", test_reset);
  g_test_add_data_func ("/conv/history/planar", &history_cases[0],
      test_history);
  g_test_add_data_func ("/conv/history/interleaved", &history_cases[1],
      test_history);
  /* a ring of 1040 frames, 13 blocks of 80 */
  g_test_add_data_func ("/conv/history/hop80", &history_cases[2],
      test_history);
  g_test_add_data_func ("/conv/history/planar-direct", &history_cases[3],
      test_history);
  g_test_add_data_func ("/conv/history/interleaved-hop80-direct",
      &history_cases[4], test_history);
  g_test_add_data_func ("/conv/history/planar-levels", &history_cases[5],
      test_history);
  g_test_add_func ("/conv/errors", test_errors);
  g_test_add_func ("/conv/workable-block", test_workable_block);
  g_test_add_func ("/conv/levels/budget", test_levels_budget);
  for (i = 0; i < G_N_ELEMENTS (levels_cases); i++) {
    char *name = g_strdup_printf ("/conv/levels/boundaries/%" G_GSIZE_FORMAT
        "taps-b%u-%s%u", levels_cases[i].taps, levels_cases[i].block,
        levels_cases[i].levels > 1 ? "x" : "model", levels_cases[i].levels);
    g_test_add_data_func (name, &levels_cases[i], test_levels_boundaries);
    g_free (name);
  }
  for (i = 0; i < G_N_ELEMENTS (threads_cases); i++) {
    char *name = g_strdup_printf ("/conv/threads/same/%s",
        threads_cases[i].name);
    if (threads_cases[i].format == CLR_CONV_F32
        || clr_device_has_fp64 (device))
      g_test_add_data_func (name, &threads_cases[i], test_threads_same);
    g_free (name);
  }
  ret = g_test_run ();
  clr_device_unref (device);
  clr_device_clear_cache ();
  return ret;
}
