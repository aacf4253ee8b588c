/* clresample: the engine's FFT path for very long filters
 * (clr-engine-fft.c) against its direct kernels with the same designed
 * filter: the same output within float precision, the same lengths and
 * time alignment, whatever the cut of the input, across a hand-over
 * between the paths mid-stream; and the plan's choice of path. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "conv/clr-conv.h"
#include "resample/clr-engine.h"
#include "resample/clr-kernel-plan.h"
#include "clr-signal.h"

static ClrDevice *device;
static ClrTuning tuning;

/* Input pieces, cycled: odd sizes around the FFT path's blocks, and
 * negative ones for silence (in == NULL: the GAP path). */
static const int pieces_a[] = { 1000, 37, 4096, 1, 2500, -3000, 777, 9000 };
static const int pieces_b[] = { 8192 };

static ClrEngine *
engine_new (const ClrEngineConfig * cfg, gboolean fft, guint block)
{
  ClrTuning t = tuning;
  GError *err = NULL;
  ClrEngine *e;

  t.fft.set = TRUE;
  t.fft.value = fft;
  t.fft_block.set = block > 0;
  t.fft_block.value = block;
  e = clr_engine_new_tuned (device, cfg, &t, &err);
  g_assert_no_error (err);
  g_assert_nonnull (e);
  return e;
}

static size_t
frame_bytes (const ClrEngineConfig * cfg)
{
  return clr_format_size (cfg->format) * cfg->channels;
}

/* The stream `in` (interleaved or planes one after the other) through
 * engine a, cut by `pieces`; from input frame `hand_over` on (if below n_in)
 * engine b continues it. Checks that every call returns what
 * clr_engine_out_frames() promised and that the whole stream gives
 * ceil (n_in I / D) frames. Frees the engines. */
static char *
run (const ClrEngineConfig * cfg, ClrEngine * a, ClrEngine * b,
    size_t hand_over, const char *in, size_t n_in, const int *pieces,
    size_t n_pieces, size_t * n_out)
{
  const size_t ss = clr_format_size (cfg->format), ch = cfg->channels;
  ClrEngine *e = a;
  size_t total = clr_ratio_out_total (clr_engine_get_ratio (a), n_in);
  char *out = g_malloc0 ((total + 1) * ch * ss);
  size_t pos = 0, got = 0, i = 0, c, n;
  GError *err = NULL;

  size_t left = 0;               /* of the current piece */
  int piece = 0;

  while (pos < n_in) {
    const void *ip[CLR_CHANNELS_MAX];
    void *op[CLR_CHANNELS_MAX];
    size_t len;

    if (left == 0) {
      piece = pieces[i++ % n_pieces];
      left = ABS (piece);
    }
    len = MIN (left, n_in - pos);
    /* the hand-over cuts a piece in two: the same sound and silence */
    if (b && pos < hand_over && pos + len > hand_over)
      len = hand_over - pos;
    left -= len;
    if (b && pos == hand_over) {
      g_assert_true (clr_engine_continue_from (b, e, &err));
      g_assert_no_error (err);
      clr_engine_free (e);
      e = b;
    }
    for (c = 0; c < (cfg->planar ? ch : 1); c++) {
      ip[c] = in + (cfg->planar ? c * n_in + pos : pos * ch) * ss;
      op[c] = out + (cfg->planar ? c * total + got : got * ch) * ss;
    }
    size_t want = clr_engine_out_frames (e, len);
    g_assert_true (clr_engine_process (e, piece > 0 ? ip : NULL, len, op,
            &n, &err));
    g_assert_no_error (err);
    g_assert_cmpuint (n, ==, want);
    got += n;
    pos += len;
  }
  {
    void *op[CLR_CHANNELS_MAX];
    size_t want = clr_engine_drain_frames (e);

    for (c = 0; c < (cfg->planar ? ch : 1); c++)
      op[c] = out + (cfg->planar ? c * total + got : got * ch) * ss;
    g_assert_true (clr_engine_drain (e, op, &n, &err));
    g_assert_no_error (err);
    g_assert_cmpuint (n, ==, want);
    got += n;
  }
  g_assert_cmpuint (got, ==, total);
  clr_engine_free (e);
  *n_out = total;
  return out;
}

static double
sample (const ClrEngineConfig * cfg, const char *buf, size_t i)
{
  return cfg->format == CLR_FORMAT_F64 ? ((const double *) buf)[i] :
      ((const float *) buf)[i];
}

/* RMS of a - b over the RMS of b. */
static double
relative_rms (const ClrEngineConfig * cfg, const char *a, const char *b,
    size_t n)
{
  double e2 = 0, r2 = 0;
  size_t i;

  for (i = 0; i < n; i++) {
    double d = sample (cfg, a, i) - sample (cfg, b, i);
    e2 += d * d;
    r2 += sample (cfg, b, i) * sample (cfg, b, i);
  }
  return sqrt (e2 / r2);
}

/* Noise plus a sine, in the configured float format and layout. */
static char *
make_input (const ClrEngineConfig * cfg, size_t n)
{
  const size_t ch = cfg->channels, total = n * ch;
  float *noise = g_new (float, total), *tone = g_new (float, total);
  char *in = g_malloc (total * clr_format_size (cfg->format));
  size_t i;

  clr_signal_noise (noise, total, 0.4, 7);
  clr_signal_sine (tone, n, ch, 997, cfg->in_rate, 0.5, 0.3);
  for (i = 0; i < total; i++) {
    double v = noise[i] + tone[i];
    /* planar: the same values, plane by plane */
    size_t at = cfg->planar ? (i % ch) * n + i / ch : i;
    if (cfg->format == CLR_FORMAT_F64)
      ((double *) in)[at] = v;
    else
      ((float *) in)[at] = (float) v;
  }
  g_free (noise);
  g_free (tone);
  return in;
}

typedef struct {
  uint32_t in_rate, out_rate;
} Ratio;

static const Ratio ratios[] = {
  {44100, 88200}, {44100, 176400}, {44100, 705600}, {192000, 48000},
  /* and two rational ratios with small I and D: 3/2 and 2/3 */
  {32000, 48000}, {48000, 32000},
};

/* The acceptance: FFT path = direct path within 1e-6 relative RMS
 * in F32 and 1e-12 in F64, at 2x, 4x and 16x up and 4x down; lengths
 * exact; and, the direct path being aligned (test-core), so is this. */
static void
test_equals_direct (void)
{
  const size_t n_in = 30000;
  size_t r, f;

  for (r = 0; r < G_N_ELEMENTS (ratios); r++)
    for (f = 0; f < 4; f++) {
      ClrEngineConfig cfg = { ratios[r].in_rate, ratios[r].out_rate,
        1 + f % 2, 10, 1024, f < 2 ? CLR_FORMAT_F32 : CLR_FORMAT_F64, f == 1,
        0
      };
      const double limit = cfg.format == CLR_FORMAT_F64 ? 1e-12 : 1e-6;
      size_t n_a, n_b;
      char *in, *direct, *fft;
      double err;

      if (cfg.format == CLR_FORMAT_F64 && !clr_device_has_fp64 (device))
        continue;
      in = make_input (&cfg, n_in);
      direct = run (&cfg, engine_new (&cfg, FALSE, 0), NULL, 0, in, n_in,
          pieces_a, G_N_ELEMENTS (pieces_a), &n_a);
      /* blocks of 128: 8 partitions a phase */
      fft = run (&cfg, engine_new (&cfg, TRUE, 128), NULL, 0, in, n_in,
          pieces_a, G_N_ELEMENTS (pieces_a), &n_b);
      g_assert_cmpuint (n_a, ==, n_b);
      err = relative_rms (&cfg, fft, direct, n_a * cfg.channels);
      g_test_message ("%u -> %u Hz, %u ch, %s%s: FFT vs direct %.3g",
          cfg.in_rate, cfg.out_rate, cfg.channels, cfg.format ==
          CLR_FORMAT_F64 ? "F64" : "F32", cfg.planar ? " planar" : "", err);
      g_assert_cmpfloat (err, <=, limit);
      g_free (in);
      g_free (direct);
      g_free (fft);
    }
}

/* Output does not depend on how the input is cut (bit for bit), at the
 * taps where the plan switches to the FFT path, with its own block. */
static void
test_chunk_invariance (void)
{
  ClrEngineConfig cfg = { 44100, 176400, 2, 10, 0, CLR_FORMAT_F32, FALSE, 0
  };
  ClrKernelFacts facts = { 0, };
  ClrKernelPlan plan;
  const size_t n_in = 40000;
  size_t n_a, n_b;
  char *in, *a, *b;

  facts.format = cfg.format;
  facts.channels = cfg.channels;
  facts.has_fp64 = clr_device_has_fp64 (device);
  facts.is_gpu = clr_device_is_gpu (device);
  facts.I = 4;
  facts.D = 1;
  facts.fft_block_max = clr_conv_max_block (device);
  /* the least taps the FFT path takes */
  for (facts.taps = 4; facts.taps <= CLR_TAPS_MAX; facts.taps += 4) {
    clr_kernel_plan_choose (&facts, &tuning, &plan);
    if (plan.fft_block)
      break;
  }
  g_assert_cmpuint (plan.fft_block, >, 0);
  cfg.taps = facts.taps;
  g_test_message ("FFT path from %u taps, blocks of %u", cfg.taps,
      plan.fft_block);

  in = make_input (&cfg, n_in);
  a = run (&cfg, engine_new (&cfg, TRUE, 0), NULL, 0, in, n_in, pieces_a,
      G_N_ELEMENTS (pieces_a), &n_a);
  b = run (&cfg, engine_new (&cfg, TRUE, 0), NULL, 0, in, n_in, pieces_b,
      G_N_ELEMENTS (pieces_b), &n_b);
  g_assert_cmpuint (n_a, ==, n_b);
  /* pieces_a has silence where pieces_b has sound: compare up to it */
  g_assert_cmpint (memcmp (a, b, 1000 * 4 * frame_bytes (&cfg)), ==, 0);
  g_free (a);
  g_free (b);
  {
    /* same cut of sound and silence, other piece sizes */
    static const int pieces_c[] = { 5000, 1, 4999, -500, -2499, -1, 13,
      26987
    };
    static const int pieces_d[] = { 10000, -3000, 27000 };
    a = run (&cfg, engine_new (&cfg, TRUE, 0), NULL, 0, in, n_in, pieces_c,
        G_N_ELEMENTS (pieces_c), &n_a);
    b = run (&cfg, engine_new (&cfg, TRUE, 0), NULL, 0, in, n_in, pieces_d,
        G_N_ELEMENTS (pieces_d), &n_b);
    g_assert_cmpuint (n_a, ==, n_b);
    /* equal values (a silent stretch may give 0 one way, -0 the other) */
    for (size_t i = 0; i < n_a * cfg.channels; i++)
      if (((float *) a)[i] != ((float *) b)[i])
        g_error ("sample %zu: %.9g against %.9g", i, ((float *) a)[i],
            ((float *) b)[i]);
    g_free (a);
    g_free (b);
  }
  g_free (in);
}

/* A stream handed from one path to the other mid-stream (the element's
 * live change of taps) gives what one engine would have: no glitch. */
static void
test_hand_over (void)
{
  const size_t n_in = 40000, at[] = { 1, 9001, 20000 };
  size_t r, i, w;

  for (r = 0; r < G_N_ELEMENTS (ratios); r++) {
    ClrEngineConfig cfg = { ratios[r].in_rate, ratios[r].out_rate, 2, 10,
      1024, CLR_FORMAT_F32, FALSE, 0
    };
    size_t n_a;
    char *in = make_input (&cfg, n_in);
    /* the stream through one direct engine, which every hand-over of this
     * ratio must give */
    char *one = run (&cfg, engine_new (&cfg, FALSE, 0), NULL, 0, in, n_in,
        pieces_a, G_N_ELEMENTS (pieces_a), &n_a);

    for (i = 0; i < G_N_ELEMENTS (at); i++)
      for (w = 0; w < 3; w++) {
        /* direct -> FFT, FFT -> direct, FFT -> FFT with another block */
        const gboolean from_fft = w > 0, to_fft = w != 1;
        size_t n_b;
        char *two;
        double err;

        two = run (&cfg, engine_new (&cfg, from_fft, 256),
            engine_new (&cfg, to_fft, w == 2 ? 64 : 0), at[i], in, n_in,
            pieces_a, G_N_ELEMENTS (pieces_a), &n_b);
        g_assert_cmpuint (n_a, ==, n_b);
        err = relative_rms (&cfg, two, one, n_a * cfg.channels);
        g_test_message ("%u -> %u Hz, %s -> %s at frame %zu: %.3g",
            cfg.in_rate, cfg.out_rate, from_fft ? "FFT" : "direct",
            to_fft ? "FFT" : "direct", at[i], err);
        g_assert_cmpfloat (err, <=, 1e-6);
        g_free (two);
      }
    g_free (in);
    g_free (one);
  }
}

/* A longer filter joining a stream (a live change of taps) reads input
 * the running one never needed: the engines keep it (history), so the
 * joiner gives what it would have from the start. */
static void
test_longer_filter (void)
{
  static const guint taps[][2] = { {256, 4096}, {1024, 8192}, {4096, 256} };
  const size_t n_in = 40000;
  size_t i;

  for (i = 0; i < G_N_ELEMENTS (taps); i++) {
    ClrEngineConfig a = { 44100, 176400, 2, 4, taps[i][0], CLR_FORMAT_F32,
      FALSE, 16384
    };
    ClrEngineConfig b = a;
    size_t n_a, n_b;
    char *in, *whole, *joined;
    double err;

    b.taps = taps[i][1];
    in = make_input (&a, n_in);
    whole = run (&b, clr_engine_new_tuned (device, &b, &tuning, NULL), NULL,
        0, in, n_in, pieces_b, G_N_ELEMENTS (pieces_b), &n_a);
    {
      ClrEngine *ea = clr_engine_new_tuned (device, &a, &tuning, NULL);
      /* the joiner's first output: the first old had not given at frame
       * 20000 */
      const size_t from = clr_ratio_out_upto (clr_engine_get_ratio (ea),
          20000 - 1 - (int64_t) clr_engine_get_latency (ea)) * a.channels;

      joined = run (&a, ea, clr_engine_new_tuned (device, &b, &tuning, NULL),
          20000, in, n_in, pieces_b, G_N_ELEMENTS (pieces_b), &n_b);
      g_assert_cmpuint (n_a, ==, n_b);
      err = relative_rms (&a, joined + from * sizeof (float),
          whole + from * sizeof (float), n_a * a.channels - from);
    }
    g_test_message ("taps %u -> %u: %.3g", taps[i][0], taps[i][1], err);
    g_assert_cmpfloat (err, <=, 1e-6);
    g_free (in);
    g_free (whole);
    g_free (joined);
  }
}

/* Integer formats round and saturate as the kernels do. */
static void
test_integer_formats (void)
{
  static const ClrFormat formats[] = { CLR_FORMAT_S16, CLR_FORMAT_S32,
    CLR_FORMAT_S24_32
  };
  const size_t n_in = 20000;
  size_t f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    ClrEngineConfig cfg = { 48000, 96000, 2, 10, 1024, formats[f], FALSE, 0 };
    const double full = formats[f] == CLR_FORMAT_S16 ? 32768.0 :
        formats[f] == CLR_FORMAT_S32 ? 2147483648.0 : 8388608.0;
    float *noise = g_new (float, n_in * 2);
    char *in = g_malloc (n_in * 2 * 4), *a, *b;
    size_t n_a, n_b;
    double worst = 0;

    /* past full scale: the output must saturate, not wrap */
    clr_signal_noise (noise, n_in * 2, 1.0, 3);
    for (i = 0; i < n_in * 2; i++) {
      double v = CLAMP (noise[i] * full, -full, full - 1);
      if (formats[f] == CLR_FORMAT_S16)
        ((int16_t *) in)[i] = (int16_t) v;
      else
        ((int32_t *) in)[i] = (int32_t) v;
    }
    a = run (&cfg, engine_new (&cfg, FALSE, 0), NULL, 0, in, n_in, pieces_a,
        G_N_ELEMENTS (pieces_a), &n_a);
    b = run (&cfg, engine_new (&cfg, TRUE, 0), NULL, 0, in, n_in, pieces_a,
        G_N_ELEMENTS (pieces_a), &n_b);
    g_assert_cmpuint (n_a, ==, n_b);
    for (i = 0; i < n_a * 2; i++) {
      double x = formats[f] == CLR_FORMAT_S16 ? ((int16_t *) a)[i] :
          ((int32_t *) a)[i];
      double y = formats[f] == CLR_FORMAT_S16 ? ((int16_t *) b)[i] :
          ((int32_t *) b)[i];
      worst = MAX (worst, fabs (x - y) / full);
    }
    g_test_message ("format %d: largest difference %.3g of full scale",
        formats[f], worst);
    /* one LSB where a sum falls near a rounding boundary, and the direct
     * kernels' precision: the GPU family keeps float coefficients
     * (-140 dB of full scale), and without doubles both paths run S32
     * and S24 in float, a few LSB of 24 bits apart */
    g_assert_cmpfloat (worst, <=, 1.0 / full +
        (clr_device_has_fp64 (device) ? 1e-7 : 5e-7));
    g_free (noise);
    g_free (in);
    g_free (a);
    g_free (b);
  }
}

/* The FFT path's block the plan picks for ratio I/D at `taps` taps a phase
 * (0: the direct kernels), the other facts as f has them. */
static uint32_t
block_at (ClrKernelFacts * f, const ClrTuning * t, uint32_t I, uint32_t D,
    uint32_t taps)
{
  ClrKernelPlan p;

  f->I = I;
  f->D = D;
  f->taps = taps;
  clr_kernel_plan_choose (f, t, &p);
  return p.fft_block;
}

/* The plan: direct kernels below the crossover and for ratios that are
 * no integer; the FFT path past it; CLRESAMPLE_FFT forces either. */
static void
test_plan (void)
{
  ClrKernelFacts f = { 0, };
  ClrTuning none = { 0, }, t = { 0, };

  f.has_fp64 = TRUE;
  f.format = CLR_FORMAT_F32;
  f.channels = 2;
  f.fft_block_max = 16384;
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 63488), ==, 4096);
  f.is_gpu = TRUE;
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 63488), >, 0);
  /* GPUs (the H100's crossover): up from 2048 taps, down from 512 x D */
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 2048), ==, 128);
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 1024), ==, 0);
  g_assert_cmpuint (block_at (&f, &none, 1, 4, 2048), ==, 128);
  /* q10's length at 4x down (1492 taps) stays on the kernels */
  g_assert_cmpuint (block_at (&f, &none, 1, 4, 1492), ==, 0);
  f.is_gpu = FALSE;
  /* the default lengths of every quality stay direct (q10: 376 taps at
   * 44.1 -> 48 kHz, 812 at 96 -> 44.1 kHz) */
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 400), ==, 0);
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 1024), ==, 64);
  t.fft.set = TRUE;
  t.fft.value = 1;
  g_assert_cmpuint (block_at (&f, &t, 16, 1, 400), ==, 32);
  t.fft_block.set = TRUE;
  t.fft_block.value = 100;
  g_assert_cmpuint (block_at (&f, &t, 16, 1, 400), ==, 64);
  /* 44.1 -> 48 kHz: every phase of 160 a frame for 1 in 147 used */
  g_assert_cmpuint (block_at (&f, &none, 160, 147, 63488), ==, 0);
  g_assert_cmpuint (block_at (&f, &t, 160, 147, 63488), ==, 0);
  /* 32 -> 48 kHz (3/2): from 2 x 1024 taps */
  g_assert_cmpuint (block_at (&f, &none, 3, 2, 2048), ==, 128);
  g_assert_cmpuint (block_at (&f, &none, 3, 2, 1024), ==, 0);
  /* 9 -> 8: past CLR_FFT_RATIONAL_MAX, forced or not */
  g_assert_cmpuint (block_at (&f, &t, 8, 9, 63488), ==, 0);
  g_assert_cmpuint (block_at (&f, &t, 8, 7, 63488), >, 0);
  /* decimation by 4: from 8192 taps, and never where forced off */
  t.fft.value = 0;
  g_assert_cmpuint (block_at (&f, &none, 1, 4, 63488), ==, 4096);
  g_assert_cmpuint (block_at (&f, &none, 1, 4, 4096), ==, 0);
  g_assert_cmpuint (block_at (&f, &t, 1, 4, 63488), ==, 0);
  /* past the convolution's planes: channels x I > 1024 */
  f.channels = 128;
  g_assert_cmpuint (block_at (&f, &none, 16, 1, 63488), ==, 0);
}

/* Past the device-memory budget: a clear error, not a crash. */
static void
test_memory_budget (void)
{
  ClrEngineConfig cfg = { 44100, 705600, 2, 10, 63488, CLR_FORMAT_F32,
    FALSE, 0
  };
  ClrTuning t = tuning;
  GError *err = NULL;
  ClrEngine *e;

  t.fft.set = TRUE;
  t.fft.value = 1;
  t.device_memory = 4u << 20;
  e = clr_engine_new_tuned (device, &cfg, &t, &err);
  g_assert_null (e);
  g_assert_error (err, CLR_ERROR, CLR_ERROR_RESOURCES);
  g_test_message ("%s", err->message);
  g_assert_nonnull (strstr (err->message, "CLRESAMPLE_DEVICE_MEMORY"));
  g_error_free (err);
}

/* n frames of in (interleaved) from frame `from` through e; its output
 * appended to out (frames of ch samples) at *got. */
static void
push_frames (const ClrEngineConfig * cfg, ClrEngine * e, const char *in,
    size_t from, size_t n, char *out, size_t * got)
{
  const size_t fb = frame_bytes (cfg);
  const void *ip[1] = { in + from * fb };
  void *op[1] = { out + *got * fb };
  GError *err = NULL;
  size_t want = clr_engine_out_frames (e, n), k;

  g_assert_true (clr_engine_process (e, ip, n, op, &k, &err));
  g_assert_no_error (err);
  g_assert_cmpuint (k, ==, want);
  *got += k;
}

/* A live filter change primed off the streaming thread: the successor
 * continued from a snapshot of the running engine, then caught up with
 * the input the running engine took since, continues the stream as one
 * continued in one step at the switch does: the same lengths and, where
 * both histories reach back to the same frame (so the FFT path's blocks
 * fall alike), the same samples to the bit. */
static void
test_catch_up (void)
{
  const size_t n_in = 30000, snap_at = 9000, switch_at = 14321;
  guint f, path;

  /* path 0: direct kernels (they catch up by continuing afresh); 1: the
   * FFT path, whose convolution runs only the 5321 frames since */
  for (path = 0; path < 2; path++)
    for (f = 0; f < 2; f++) {
      ClrEngineConfig cfg = { 44100, 176400, 1, 10, 1024,
        f ? CLR_FORMAT_F64 : CLR_FORMAT_F32, FALSE,
        40000
      };
      ClrEngineConfig cfg2 = cfg;
      ClrEngine *a, *b, *c;
      ClrEngineSnapshot *snap;
      GError *err = NULL;
      size_t total, got_b, got_c, n;
      char *in, *out_b, *out_c, *out_a;
      void *op[1];

      if (cfg.format == CLR_FORMAT_F64 && !clr_device_has_fp64 (device))
        continue;
      /* the new filter: twice the taps */
      cfg2.taps = 2048;
      in = make_input (&cfg, n_in);
      a = engine_new (&cfg, path > 0, 128);
      total = clr_ratio_out_total (clr_engine_get_ratio (a), n_in);
      out_a = g_malloc0 ((total + 1) * frame_bytes (&cfg));
      out_b = g_malloc0 ((total + 1) * frame_bytes (&cfg));
      out_c = g_malloc0 ((total + 1) * frame_bytes (&cfg));
      got_b = 0;
      push_frames (&cfg, a, in, 0, snap_at, out_a, &got_b);
      snap = clr_engine_snapshot (a, &err);
      g_assert_no_error (err);
      push_frames (&cfg, a, in, snap_at, switch_at - snap_at, out_a, &got_b);
      memcpy (out_b, out_a, got_b * frame_bytes (&cfg));
      memcpy (out_c, out_a, got_b * frame_bytes (&cfg));
      got_c = got_b;

      b = engine_new (&cfg2, path > 0, 128);
      g_assert_true (clr_engine_continue_from_snapshot (b, snap, &err));
      g_assert_no_error (err);
      g_assert_true (clr_engine_catch_up (b, a, &err));
      g_assert_no_error (err);
      c = engine_new (&cfg2, path > 0, 128);
      g_assert_true (clr_engine_continue_from (c, a, &err));
      g_assert_no_error (err);
      g_assert_cmpuint (clr_engine_get_out_total (b), ==,
          clr_engine_get_out_total (c));
      g_assert_cmpuint (clr_engine_get_in_total (b), ==,
          clr_engine_get_in_total (c));
      push_frames (&cfg, b, in, switch_at, n_in - switch_at, out_b, &got_b);
      push_frames (&cfg, c, in, switch_at, n_in - switch_at, out_c, &got_c);
      op[0] = out_b + got_b * frame_bytes (&cfg);
      g_assert_true (clr_engine_drain (b, op, &n, &err));
      got_b += n;
      op[0] = out_c + got_c * frame_bytes (&cfg);
      g_assert_true (clr_engine_drain (c, op, &n, &err));
      got_c += n;
      g_assert_cmpuint (got_b, ==, total);
      g_assert_cmpuint (got_c, ==, total);
      g_assert_cmpmem (out_b, total * frame_bytes (&cfg), out_c,
          total * frame_bytes (&cfg));
      clr_engine_snapshot_free (snap);
      clr_engine_free (a);
      clr_engine_free (b);
      clr_engine_free (c);
      g_free (in);
      g_free (out_a);
      g_free (out_b);
      g_free (out_c);
    }
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  int ret;

  g_test_init (&argc, &argv, NULL);
  tuning = *clr_tuning_get ();
  device = clr_device_acquire ("auto", &err);
  g_assert_no_error (err);
  g_test_add_func ("/fft/plan", test_plan);
  g_test_add_func ("/fft/equals-direct", test_equals_direct);
  g_test_add_func ("/fft/integer-formats", test_integer_formats);
  g_test_add_func ("/fft/chunk-invariance", test_chunk_invariance);
  g_test_add_func ("/fft/hand-over", test_hand_over);
  g_test_add_func ("/fft/catch-up", test_catch_up);
  g_test_add_func ("/fft/longer-filter", test_longer_filter);
  g_test_add_func ("/fft/memory-budget", test_memory_budget);
  ret = g_test_run ();
  clr_device_unref (device);
  return ret;
}
