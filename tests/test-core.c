/* clresample: unit tests of the GStreamer-free core (rate math, filter
 * design, and the OpenCL engine against the float64 reference). */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "design/clr-design-cache.h"
#include "design/clr-fft-host.h"
#include "resample/clr-engine.h"
#include "resample/clr-kernel-plan.h"
#include "clr-reference.h"
#include "clr-signal.h"

static ClrDevice *device;
/* the environment's overrides (the test variants of meson.build), which
 * some tests change for the engines they make */
static ClrTuning tuning;

static ClrEngine *
engine_new (const ClrEngineConfig * cfg, GError ** error)
{
  return clr_engine_new_tuned (device, cfg, &tuning, error);
}

static void
test_ratio_reduce (void)
{
  ClrRatio r;

  g_assert_cmpint (clr_ratio_init (&r, 44100, 48000), ==, 0);
  g_assert_cmpuint (r.I, ==, 160);
  g_assert_cmpuint (r.D, ==, 147);
  clr_ratio_init (&r, 44100, 44101);
  g_assert_cmpuint (r.I, ==, 44101);
  g_assert_cmpuint (r.D, ==, 44100);
  clr_ratio_init (&r, 96000, 48000);
  g_assert_cmpuint (r.I, ==, 1);
  g_assert_cmpuint (r.D, ==, 2);
  g_assert_cmpint (clr_ratio_init (&r, 0, 48000), ==, -1);
}

static void
test_ratio_positions (void)
{
  ClrRatio r;
  uint64_t m, p;
  int64_t n;

  clr_ratio_init (&r, 44100, 48000);
  for (m = 0; m < 100000; m += 7) {
    clr_ratio_position (&r, m, &n, &p);
    g_assert_cmpint (n, ==, (int64_t) (m * 147 / 160));
    g_assert_cmpuint (p, ==, (m * 147) % 160);
  }
  /* ten days at 768 kHz from a coprime rate: m * D passes 2^64, the split
   * arithmetic must not; check against 128-bit math */
  clr_ratio_init (&r, 2147483629u, 768000);
  for (m = 663552000000ull; m < 663552000000ull + 1000; m++) {
    unsigned __int128 md = (unsigned __int128) m * r.D;
    clr_ratio_position (&r, m, &n, &p);
    g_assert_cmpuint ((uint64_t) n, ==, (uint64_t) (md / r.I));
    g_assert_cmpuint (p, ==, (uint64_t) (md % r.I));
  }
}

static void
test_ratio_totals (void)
{
  ClrRatio r;

  clr_ratio_init (&r, 44100, 48000);
  g_assert_cmpuint (clr_ratio_out_total (&r, 44100), ==, 48000);
  g_assert_cmpuint (clr_ratio_out_total (&r, 1), ==, 2);    /* t = 0, 0.92 */
  g_assert_cmpuint (clr_ratio_out_total (&r, 0), ==, 0);
  g_assert_cmpuint (clr_ratio_out_total (&r, 147), ==, 160);
  g_assert_cmpuint (clr_ratio_out_total (&r, 148), ==, 162);    /* ceil(161.09) */
  clr_ratio_init (&r, 48000, 44100);
  g_assert_cmpuint (clr_ratio_out_total (&r, 1000), ==, 919);   /* ceil(918.75) */
  g_assert_cmpuint (clr_ratio_out_upto (&r, -1), ==, 0);
  g_assert_cmpuint (clr_ratio_out_upto (&r, 0), ==, 1);
}

static void
test_filter_design (void)
{
  ClrRatio r;
  ClrFilter f, f10;
  double t, sum;
  uint64_t p;
  int k;

  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, CLR_QUALITY_DEFAULT, 0);
  g_assert_cmpuint (f.taps % 4, ==, 0);
  g_assert_cmpfloat (f.fc, <, 0.5);
  clr_filter_design (&f10, &r, 10, 0);
  g_assert_cmpuint (f10.taps, >, f.taps);
  /* symmetric: zero phase */
  for (t = 0.01; t < f.half_width; t += 0.37)
    g_assert_cmpfloat (fabs (clr_filter_eval (&f, t) - clr_filter_eval (&f,
                -t)), <, 1e-15);
  /* every phase passes DC with unit gain, to the designed ripple */
  for (p = 0; p < r.I; p += 13) {
    sum = 0.0;
    for (k = 0; k < (int) f.taps; k++)
      sum += clr_filter_eval (&f, (double) p / r.I + f.half_width - 1 - k);
    g_assert_cmpfloat (fabs (sum - 1.0), <, pow (10.0, -f.stop_db / 20.0));
  }
  /* decimation widens the kernel by D/I */
  clr_ratio_init (&r, 96000, 44100);
  clr_filter_design (&f10, &r, CLR_QUALITY_DEFAULT, 0);
  g_assert_cmpuint (f10.taps, >, 2 * f.taps);
  /* an explicit taps count is rounded up to a multiple of 4 */
  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, 4, 101);
  g_assert_cmpuint (f.taps, ==, 104);
  /* but never below what decimation needs */
  clr_ratio_init (&r, 192000, 8000);
  clr_filter_design (&f, &r, 4, 8);
  g_assert_cmpuint (f.taps, >=, 4 * 24);
}

static void
test_bank_cap (void)
{
  ClrRatio r;
  ClrFilter f;
  ClrBankLayout b;

  clr_ratio_init (&r, 44100, 48000);
  clr_filter_design (&f, &r, 10, 0);
  clr_bank_layout (&b, &f, &r, sizeof (float));
  g_assert_false (b.interpolated);
  g_assert_cmpuint (b.rows, ==, 160);

  clr_ratio_init (&r, 44100, 44101);
  clr_filter_design (&f, &r, 10, 0);
  clr_bank_layout (&b, &f, &r, sizeof (float));
  g_assert_true (b.interpolated);
  g_assert_cmpuint ((uint64_t) b.rows * b.taps * sizeof (float), <=,
      CLR_BANK_CAP_BYTES);
  clr_ratio_init (&r, 8000, 44101);
  clr_filter_design (&f, &r, 10, 0);
  clr_bank_layout (&b, &f, &r, sizeof (double));
  g_assert_true (b.interpolated);
  g_assert_cmpuint ((uint64_t) b.rows * b.taps * sizeof (double), <=,
      CLR_BANK_CAP_BYTES);
}

/* The interpolated bank's grid: the fewest points an input sample (64 to
 * 1024, a power of two) whose cubic errs 44 dB below the stopband,
 * measured here at every quality that takes a grid at 44.1 -> 44.101 kHz
 * (128 points at quality 4: -177.6 dB; 1024 at quality 10: -249.2); half of a linear kernel's rows are the other
 * half's, reversed (clr_bank_mirror_row ()), and the design cache's copies
 * are the doubles clr_bank_row () computes, bit for bit; past the
 * kernel's ends the rows hold its smooth continuation, which the cubic
 * through four rows follows to its interior accuracy, and phase 0 has a
 * row of its own, the table's. */
static void
test_bank_grid (void)
{
  static const struct {
    unsigned in_rate, out_rate;
    int quality;
    uint32_t taps;
    double cutoff, phase;
    uint32_t grid;
    gboolean mirrored;
  } cases[] = {
    {48000, 48001, 4, 0, 0.0, 0.0, 128, TRUE},
    {44100, 44101, 10, 0, 0.0, 0.0, 1024, TRUE},
    {44100, 44101, 4, 0, 0.0, 0.0, 128, TRUE},
    {44100, 44101, 5, 0, 0.0, 0.0, 256, TRUE},
    {44100, 44101, 6, 0, 0.0, 0.0, 256, TRUE},
    {44100, 44101, 7, 0, 0.0, 0.0, 256, TRUE},
    {44100, 44101, 8, 0, 0.0, 0.0, 512, TRUE},
    {44100, 44101, 9, 0, 0.0, 0.0, 512, TRUE},
    {44100, 44101, 7, 1000, 0.0, 0.0, 256, TRUE},
    {8000, 44101, 6, 0, 0.0, 0.0, 256, TRUE},
    {44101, 44100, 4, 0, 0.97, 0.0, 128, TRUE},
    {44100, 44101, 4, 0, 0.0, 1.0, 512, FALSE},
    {44100, 44101, 8, 0, 0.0, 0.5, 512, FALSE},
  };
  guint c;

  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    ClrRatio r;
    ClrFilter f;
    ClrBankLayout b;
    ClrDesign *d;
    double *row, worst = 0.0;
    uint32_t q, k, mirrored = 0;
    uint64_t p;

    clr_ratio_init (&r, cases[c].in_rate, cases[c].out_rate);
    clr_filter_design_cut (&f, &r, cases[c].quality, cases[c].taps,
        cases[c].cutoff);
    g_assert_true (clr_filter_set_phase (&f, &r, cases[c].phase));
    clr_bank_layout (&b, &f, &r, sizeof (double));
    g_assert_true (b.interpolated);
    g_assert_cmpuint (b.grid, ==, cases[c].grid);
    g_assert_cmpuint (b.rows, ==, b.grid + 4);
    clr_design_cache_clear ();
    d = clr_design_get (&b, &f, &r);
    g_assert_nonnull (d);
    row = g_new (double, b.taps);
    for (q = 0; q < b.rows; q++) {
      mirrored += clr_bank_mirror_row (&b, &f, q) < q;
      clr_bank_row (&b, &f, &r, q, row);
      g_assert_cmpmem (clr_design_row (d, q), b.taps * sizeof (double), row,
          b.taps * sizeof (double));
    }
    g_assert_cmpuint (mirrored, ==, cases[c].mirrored ? b.grid / 2 + 1 : 0);
    {
      const ClrBankLayout table = { 0, (uint32_t) r.I, b.taps, 0 };

      clr_bank_row (&table, &f, &r, 0, row);
      g_assert_cmpmem (clr_design_row (d, b.grid + 3), b.taps *
          sizeof (double), row, b.taps * sizeof (double));
    }
    /* linear kernels: every phase within the cubic's interior error of
     * h (phase 0 from its own row); a phase every 97 */
    if (cases[c].phase == 0.0) {
      for (p = 0; p < r.I; p += 97) {
        const uint64_t pg = p * b.grid, q0 = pg / r.I;
        const double u = (double) (pg - q0 * r.I) / r.I;
        const double w[4] = { -u * (u - 1) * (u - 2) / 6,
          (u + 1) * (u - 1) * (u - 2) / 2, -(u + 1) * u * (u - 2) / 2,
          (u + 1) * u * (u - 1) / 6
        };
        for (k = 0; k < b.taps; k++) {
          double v = 0.0;
          unsigned j;

          for (j = 0; j < 4; j++)
            v += w[j] * clr_design_row (d, p == 0 && j == 1 ? b.grid + 3 :
                (uint32_t) q0 + j)[k];
          worst = MAX (worst, fabs (v - clr_filter_eval (&f,
                      (double) p / r.I + f.half_width - 1 - k)));
        }
      }
      g_test_message ("%u -> %u q%d: grid %u, worst coefficient error %.3g "
          "(%.1f dB, stopband %.0f dB)", cases[c].in_rate, cases[c].out_rate,
          cases[c].quality, b.grid, worst, 20 * log10 (worst), f.stop_db);
      g_assert_cmpfloat (20 * log10 (worst), <, -(f.stop_db +
              CLR_BANK_GRID_MARGIN_DB));
    }
    g_free (row);
    clr_design_unref (d);
  }
  clr_design_cache_clear ();
}

/* Runs the engine over `in` cut into pieces of the given sizes (cycled;
 * NULL = one piece), then drains. Returns all output. */
static float *
run_engine (ClrEngine * e, const float *in, size_t n_in, unsigned ch,
    const size_t * pieces, size_t n_pieces, size_t * n_out)
{
  size_t total = clr_ratio_out_total (clr_engine_get_ratio (e), n_in);
  float *out = g_new0 (float, (total + 1) * ch);
  size_t pos = 0, got = 0, i = 0, n;
  GError *err = NULL;

  while (pos < n_in) {
    size_t len = pieces ? pieces[i++ % n_pieces] : n_in;
    size_t want;

    len = MIN (len, n_in - pos);
    want = clr_engine_out_frames (e, len);
    g_assert_cmpuint (got + want, <=, total);
    const void *ip[1] = { in + pos * ch };
    void *op[1] = { out + got * ch };

    g_assert_true (clr_engine_process (e, ip, len, op, &n, &err));
    g_assert_no_error (err);
    g_assert_cmpuint (n, ==, want);
    got += n;
    pos += len;
  }
  g_assert_cmpuint (got + clr_engine_drain_frames (e), ==, total);
  {
    void *op[1] = { out + got * ch };
    g_assert_true (clr_engine_drain (e, op, &n, &err));
  }
  g_assert_no_error (err);
  *n_out = got + n;
  return out;
}

typedef struct {
  unsigned in_rate, out_rate, channels;
} RateCase;

static void
test_engine_reference (gconstpointer data)
{
  const RateCase *rc = data;
  ClrEngineConfig cfg = { rc->in_rate, rc->out_rate, rc->channels,
    CLR_QUALITY_DEFAULT, 0
  };
  GError *err = NULL;
  ClrEngine *e = engine_new (&cfg, &err);
  size_t n_in = 3000, n_out, n_ref, i;
  float *in, *out;
  double *ref, worst = 0.0;
  const size_t pieces[] = { 1000, 17, 1, 512, 333 };

  g_assert_no_error (err);
  in = g_new (float, n_in * rc->channels);
  clr_signal_noise (in, n_in * rc->channels, 0.5, rc->in_rate + rc->channels);
  out = run_engine (e, in, n_in, rc->channels, pieces, G_N_ELEMENTS (pieces),
      &n_out);
  ref = clr_reference_resample (clr_engine_get_ratio (e),
      clr_engine_get_filter (e), in, n_in, rc->channels, &n_ref);
  g_assert_cmpuint (n_out, ==, n_ref);
  for (i = 0; i < n_out * rc->channels; i++)
    worst = MAX (worst, fabs (out[i] - ref[i]));
  g_test_message ("%u -> %u Hz, %u ch: %" G_GSIZE_FORMAT " frames, max error "
      "%.3g (%s bank)", rc->in_rate, rc->out_rate, rc->channels, n_out, worst,
      clr_engine_get_bank (e)->interpolated ? "interpolated" : "polyphase");
  g_assert_cmpfloat (worst, <=, 1e-5);
  g_free (ref);
  g_free (out);
  g_free (in);
  clr_engine_free (e);
}

/* Output must not depend on how the input is cut: every output sample is the
 * same arithmetic on the same window, whatever the buffer sizes. */
static void
test_engine_chunking (void)
{
  ClrEngineConfig cfg = { 44100, 48000, 2, CLR_QUALITY_DEFAULT, 0 };
  GError *err = NULL;
  ClrEngine *e = engine_new (&cfg, &err);
  size_t n_in = 20000, n_a, n_b, i, *pieces;
  float *in, *a, *b;
  double worst = 0.0;
  GRand *rand = g_rand_new_with_seed (42);

  g_assert_no_error (err);
  in = g_new (float, n_in * 2);
  clr_signal_noise (in, n_in * 2, 0.9, 7);
  a = run_engine (e, in, n_in, 2, NULL, 0, &n_a);
  clr_engine_reset (e);
  pieces = g_new (size_t, 64);
  for (i = 0; i < 64; i++)
    pieces[i] = g_rand_int_range (rand, 1, 3001);
  b = run_engine (e, in, n_in, 2, pieces, 64, &n_b);
  g_assert_cmpuint (n_a, ==, n_b);
  g_assert_cmpuint (n_a, ==, 21769);    /* ceil (20000 * 160 / 147) */
  for (i = 0; i < n_a * 2; i++)
    worst = MAX (worst, fabs (a[i] - b[i]));
  g_assert_cmpfloat (worst, <=, 1e-6);
  g_rand_free (rand);
  g_free (pieces);
  g_free (a);
  g_free (b);
  g_free (in);
  clr_engine_free (e);
}

/* Silence after silence is free and exact; silence after sound is computed. */
static void
test_engine_silence (void)
{
  ClrEngineConfig cfg = { 48000, 44100, 1, CLR_QUALITY_DEFAULT, 0 };
  GError *err = NULL;
  ClrEngine *e = engine_new (&cfg, &err);
  float in[4096], out[8192];
  const void *ip[1] = { in };
  void *op[1] = { out };
  size_t n, i;

  g_assert_no_error (err);
  g_assert_true (clr_engine_is_silent (e));
  clr_signal_noise (in, 4096, 0.5, 1);
  g_assert_true (clr_engine_process (e, ip, 4096, op, &n, &err));
  g_assert_false (clr_engine_is_silent (e));
  /* the filter tail rings into the silence */
  g_assert_true (clr_engine_process (e, NULL, 4096, op, &n, &err));
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpfloat (fabs (out[0]), >, 0.0);
  g_assert_true (clr_engine_is_silent (e));
  g_assert_true (clr_engine_process (e, NULL, 4096, op, &n, &err));
  g_assert_no_error (err);
  for (i = 0; i < n; i++)
    g_assert_cmpfloat (out[i], ==, 0.0f);
  clr_engine_free (e);
}

/* Runs one whole stream of any format and layout through an engine.
 * in/out are interleaved; planar runs de- and re-interleave around it. */
static void *
run_format (ClrEngineConfig * cfg, const void *in, size_t n_in,
    size_t piece, size_t * n_out)
{
  GError *err = NULL;
  ClrEngine *e = engine_new (cfg, &err);
  size_t ss = clr_format_size (cfg->format), ch = cfg->channels;
  size_t total, pos = 0, got = 0, n, c, i;
  char *out, *pin = NULL, *pout = NULL;

  g_assert_no_error (err);
  total = clr_ratio_out_total (clr_engine_get_ratio (e), n_in);
  out = g_malloc0 ((total + 1) * ch * ss);
  if (cfg->planar) {
    pin = g_malloc (piece * ch * ss);
    pout = g_malloc ((total + 1) * ch * ss);
  }
  while (TRUE) {
    size_t len = MIN (piece, n_in - pos);
    const void *ip[CLR_CHANNELS_MAX];
    void *op[CLR_CHANNELS_MAX];
    size_t want = len ? clr_engine_out_frames (e, len) :
        clr_engine_drain_frames (e);

    if (cfg->planar) {
      for (c = 0; c < ch; c++) {
        for (i = 0; i < len; i++)
          memcpy (pin + (c * len + i) * ss,
              (const char *) in + ((pos + i) * ch + c) * ss, ss);
        ip[c] = pin + c * len * ss;
        op[c] = pout + c * want * ss;
      }
    } else {
      ip[0] = (const char *) in + pos * ch * ss;
      op[0] = out + got * ch * ss;
    }
    if (len)
      g_assert_true (clr_engine_process (e, ip, len, op, &n, &err));
    else
      g_assert_true (clr_engine_drain (e, op, &n, &err));
    g_assert_no_error (err);
    g_assert_cmpuint (n, ==, want);
    if (cfg->planar)
      for (c = 0; c < ch; c++)
        for (i = 0; i < n; i++)
          memcpy (out + ((got + i) * ch + c) * ss, pout + (c * n + i) * ss,
              ss);
    got += n;
    pos += len;
    if (!len)
      break;
  }
  g_assert_cmpuint (got, ==, total);
  *n_out = got;
  g_free (pin);
  g_free (pout);
  clr_engine_free (e);
  return out;
}

/* F64 runs double kernels with double coefficients: it must match the
 * float64 reference far beyond what float could. */
static void
test_engine_f64 (void)
{
  static const unsigned pairs[][2] = { {44100, 48000}, {96000, 44100},
  {44100, 44101}
  };
  unsigned p;

  if (!clr_device_has_fp64 (device)) {
    /* refused, never run in float behind the user's back */
    ClrEngineConfig cfg = { 44100, 48000, 2, 4, 0, CLR_FORMAT_F64, FALSE };
    GError *err = NULL;
    g_assert_null (engine_new (&cfg, &err));
    g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
    g_error_free (err);
    return;
  }
  for (p = 0; p < G_N_ELEMENTS (pairs); p++) {
    ClrEngineConfig cfg = { pairs[p][0], pairs[p][1], 2, 10, 0,
      CLR_FORMAT_F64, FALSE
    };
    size_t n_in = 3000, n_out, n_ref, i;
    float *inf = g_new (float, n_in * 2);
    double *in = g_new (double, n_in * 2), *out, *ref, worst = 0.0;
    ClrRatio r;
    ClrFilter f;

    clr_signal_noise (inf, n_in * 2, 0.5, 77);
    for (i = 0; i < n_in * 2; i++)
      in[i] = inf[i];
    out = run_format (&cfg, in, n_in, 700, &n_out);
    clr_ratio_init (&r, cfg.in_rate, cfg.out_rate);
    clr_filter_design (&f, &r, cfg.quality, 0);
    ref = clr_reference_resample (&r, &f, inf, n_in, 2, &n_ref);
    g_assert_cmpuint (n_out, ==, n_ref);
    for (i = 0; i < n_out * 2; i++)
      worst = MAX (worst, fabs (out[i] - ref[i]));
    g_test_message ("F64 %u -> %u Hz: max error %.3g", cfg.in_rate,
        cfg.out_rate, worst);
    /* table banks: double rounding only; the interpolated grid adds its
     * cubic interpolation error, ~1e-11 */
    g_assert_cmpfloat (worst, <=, r.I > 4096 ? 1e-9 : 1e-13);
    g_free (inf);
    g_free (in);
    g_free (out);
    g_free (ref);
  }
}

/* The interpolated bank's kernels, one channel a work-item
 * (clr_resample_interp) and two (clr_resample_interp_c2, where the plan
 * gives it: CPU devices with fp64), at 1, 2, 3 and 8 channels: within an
 * exact bound of the float64 reference, and the two kernels alike to the
 * bit (each channel's sum is the same arithmetic). F64 shows the bank's
 * own error, the grid's cubic: 44 dB below the stopband a coefficient
 * (test_bank_grid (): 1.3e-9 at quality 4's 128 points, 3.5e-13 at
 * quality 10's 1024). F32 adds the output's rounding. */
static void
test_engine_interp_channels (void)
{
  static const struct {
    unsigned in_rate, out_rate;
    int quality;
    ClrFormat format;
    /* the worst error, dB of full scale, with fp64 (measured -142 to
     * -146 in F32, -142 with the GPU kernels' float coefficients; F64
     * -169 at q4, 44 dB past its 125 dB stopband (-217 with the 512
     * points it had), -241 at q10) and without (float sums: -134 to
     * -137) */
    double bound_db, bound_no_fp64_db;
  } runs[] = {
    {44100, 44101, 4, CLR_FORMAT_F32, -138.0, -130.0},
    {48000, 48001, 10, CLR_FORMAT_F32, -138.0, -130.0},
    {48000, 48001, 4, CLR_FORMAT_F64, -165.0, 0.0},
    {44100, 44101, 10, CLR_FORMAT_F64, -230.0, 0.0},
  };
  static const unsigned channels[] = { 1, 2, 3, 8 };
  const size_t n_in = 2000;
  ClrTuning one = tuning, saved = tuning;
  unsigned r, c;

  one.cpi = (ClrKnob) { TRUE, 1 };
  for (r = 0; r < G_N_ELEMENTS (runs); r++) {
    const gboolean f64 = runs[r].format == CLR_FORMAT_F64;

    if (f64 && !clr_device_has_fp64 (device))
      continue;
    for (c = 0; c < G_N_ELEMENTS (channels); c++) {
      const unsigned ch = channels[c];
      ClrEngineConfig cfg = { runs[r].in_rate, runs[r].out_rate, ch,
        runs[r].quality, 0, runs[r].format, FALSE
      };
      const size_t ss = clr_format_size (cfg.format);
      float *noise = g_new (float, n_in * ch);
      void *in = g_malloc (n_in * ch * ss), *a, *b;
      double *ref, worst = 0.0, worst_db;
      size_t n_a, n_b, n_ref, i;
      GError *err = NULL;
      ClrEngine *e = engine_new (&cfg, &err);
      ClrRatio ratio;
      ClrFilter f;
      gchar *kernel;

      g_assert_no_error (err);
      g_assert_true (clr_engine_get_bank (e)->interpolated);
      kernel = g_strdup (clr_engine_get_kernel (e));
      /* two channels a work-item wherever the CPU kernels run with fp64 */
      if (ch >= 2 && clr_device_has_fp64 (device)
          && !clr_device_is_gpu (device) && !tuning.kernels.set
          && !tuning.cpi.set)
        g_assert_cmpstr (kernel, ==, "clr_resample_interp_c2");
      clr_engine_free (e);

      clr_signal_noise (noise, n_in * ch, 0.9, 31 * ch + r);
      for (i = 0; i < n_in * ch; i++) {
        if (f64)
          ((double *) in)[i] = noise[i];
        else
          ((float *) in)[i] = noise[i];
      }
      a = run_format (&cfg, in, n_in, 777, &n_a);
      tuning = one;
      e = engine_new (&cfg, &err);
      g_assert_no_error (err);
      g_assert_cmpstr (clr_engine_get_kernel (e), ==, "clr_resample_interp");
      clr_engine_free (e);
      b = run_format (&cfg, in, n_in, 333, &n_b);
      tuning = saved;
      g_assert_cmpuint (n_a, ==, n_b);
      g_assert_cmpint (memcmp (a, b, n_a * ch * ss), ==, 0);

      clr_ratio_init (&ratio, cfg.in_rate, cfg.out_rate);
      clr_filter_design (&f, &ratio, cfg.quality, 0);
      ref = clr_reference_resample (&ratio, &f, noise, n_in, ch, &n_ref);
      g_assert_cmpuint (n_a, ==, n_ref);
      for (i = 0; i < n_a * ch; i++)
        worst = MAX (worst, fabs ((f64 ? ((double *) a)[i] :
                    ((float *) a)[i]) - ref[i]));
      worst_db = 20.0 * log10 (MAX (worst, 1e-300));
      g_test_message ("%u -> %u Hz q%d %s, %u ch, %s: worst error %.3g "
          "(%.1f dB)", cfg.in_rate, cfg.out_rate, cfg.quality, f64 ? "F64" :
          "F32", ch, kernel, worst, worst_db);
      g_assert_cmpfloat (worst_db, <=, clr_device_has_fp64 (device) ?
          runs[r].bound_db : runs[r].bound_no_fp64_db);
      g_free (kernel);
      g_free (ref);
      g_free (a);
      g_free (b);
      g_free (in);
      g_free (noise);
    }
  }
}

/* Integer formats: converted on the device with round-to-nearest and
 * saturation, within one LSB of the rounded float64 reference. */
static void
test_engine_integer (gconstpointer data)
{
  ClrFormat fmt = GPOINTER_TO_INT (data);
  double scale = fmt == CLR_FORMAT_S16 ? 32768.0 :
      fmt == CLR_FORMAT_S24_32 ? 8388608.0 : 2147483648.0;
  ClrEngineConfig cfg = { 48000, 44100, 2, 4, 0, fmt, FALSE };
  size_t n_in = 4000, n_out, n_ref, i, clipped = 0;
  float *inf = g_new (float, n_in * 2);
  void *in = g_malloc (n_in * 2 * 4), *out;
  double *ref, worst = 0.0;
  ClrRatio r;
  ClrFilter f;

  /* noise, then a full-scale square wave whose Gibbs overshoot must clip */
  clr_signal_noise (inf, n_in * 2, 0.5, 5);
  for (i = n_in; i < n_in * 2; i++)
    inf[i] = ((i / 2 / 50) % 2) ? -0.99f : 0.99f;
  for (i = 0; i < n_in * 2; i++) {
    double v = rint (inf[i] * scale);
    if (fmt == CLR_FORMAT_S16)
      ((gint16 *) in)[i] = (gint16) v;
    else
      ((gint32 *) in)[i] = (gint32) v;
    inf[i] = (float) (v / scale);       /* what the element really gets */
  }
  out = run_format (&cfg, in, n_in, 1024, &n_out);
  clr_ratio_init (&r, cfg.in_rate, cfg.out_rate);
  clr_filter_design (&f, &r, cfg.quality, 0);
  ref = clr_reference_resample (&r, &f, inf, n_in, 2, &n_ref);
  g_assert_cmpuint (n_out, ==, n_ref);
  for (i = 0; i < n_out * 2; i++) {
    double want = CLAMP (rint (ref[i] * scale), -scale, scale - 1);
    double got = fmt == CLR_FORMAT_S16 ? ((gint16 *) out)[i] :
        ((gint32 *) out)[i];
    /* rounding may differ from float64 at near-ties: at most one LSB */
    worst = MAX (worst, fabs (got - want));
    if (want == scale - 1 || want == -scale)
      clipped++;
  }
  g_test_message ("format %d: worst %.0f LSB, %" G_GSIZE_FORMAT " clipped",
      fmt, worst, clipped);
  /* S32: the reference sees the input through float (24 bits); without
   * double precision the device's float sums reach 24 bits only to 2 LSB */
  g_assert_cmpfloat (worst, <=, (fmt == CLR_FORMAT_S32 ?
          (clr_device_has_fp64 (device) ? 256.0 : 512.0) :
          fmt == CLR_FORMAT_S24_32 && !clr_device_has_fp64 (device) ? 2.0 :
          1.0));
  g_assert_cmpuint (clipped, >, 10);
  g_free (inf);
  g_free (in);
  g_free (out);
  g_free (ref);
}

/* Planar and interleaved layouts give the same samples. */
static void
test_engine_planar (void)
{
  ClrEngineConfig cfg = { 44100, 96000, 3, 4, 0, CLR_FORMAT_F32, FALSE };
  size_t n_in = 5000, n_a, n_b, i;
  float *in = g_new (float, n_in * 3), *a, *b;

  clr_signal_noise (in, n_in * 3, 0.5, 21);
  a = run_format (&cfg, in, n_in, 999, &n_a);
  cfg.planar = TRUE;
  b = run_format (&cfg, in, n_in, 313, &n_b);
  g_assert_cmpuint (n_a, ==, n_b);
  for (i = 0; i < n_a * 3; i++)
    g_assert_cmpfloat (a[i], ==, b[i]);
  g_free (in);
  g_free (a);
  g_free (b);
}

/* A successor engine continues the stream exactly: after the switch its
 * output equals that of an engine that ran the new settings from the
 * start (quality up, output rate changed), given enough kept history. */
/* Engine a (config c1, CLRESAMPLE_IV as iv1) runs the first 5000 frames,
 * engine b (c2, iv2) continues the stream: from b's first output on, the
 * samples equal those of a c2 engine that ran from the start. */
static void
check_continued (const ClrEngineConfig * c1, ClrKnob iv1,
    const ClrEngineConfig * c2, ClrKnob iv2)
{
  const ClrKnob keep = tuning.iv;
  const size_t ch = c1->channels, n_in = 12000, half = 5000;
  GError *err = NULL;
  ClrEngine *a, *b;
  size_t n_ref, n1, n2, i;
  float *in = g_new (float, n_in * ch), *ref, *out;
  uint64_t k0;

  clr_signal_noise (in, n_in * ch, 0.5, 17);
  tuning.iv = iv2;
  ref = run_format ((ClrEngineConfig *) c2, in, n_in, 4096, &n_ref);
  tuning.iv = iv1;
  a = engine_new (c1, &err);
  g_assert_no_error (err);
  out = g_new0 (float, (n_ref + 16) * ch);
  {
    const void *ip[1] = { in };
    void *op[1] = { out };
    g_assert_true (clr_engine_process (a, ip, half, op, &n1, &err));
  }
  tuning.iv = iv2;
  b = engine_new (c2, &err);
  tuning.iv = keep;
  g_assert_no_error (err);
  g_assert_true (clr_engine_continue_from (b, a, &err));
  g_assert_no_error (err);
  k0 = clr_engine_get_out_total (b);
  g_assert_cmpuint (k0, ==, (n1 * (uint64_t) c2->out_rate + c1->out_rate -
          1) / c1->out_rate);
  clr_engine_free (a);
  {
    const void *ip[1] = { in + half * ch };
    void *op[1] = { out + k0 * ch };
    g_assert_true (clr_engine_process (b, ip, n_in - half, op, &n2, &err));
    op[0] = out + (k0 + n2) * ch;
    g_assert_true (clr_engine_drain (b, op, &n1, &err));
    g_assert_no_error (err);
    n2 += n1;
  }
  g_assert_cmpuint (k0 + n2, ==, n_ref);
  for (i = k0 * ch; i < n_ref * ch; i++)
    g_assert_cmpfloat (out[i], ==, ref[i]);
  clr_engine_free (b);
  g_free (in);
  g_free (out);
  g_free (ref);
}

static void
check_continuation (unsigned out1, int q1, unsigned out2, int q2)
{
  ClrRatio r;
  ClrFilter best;
  ClrEngineConfig c1 = { 44100, out1, 2, q1, 0, CLR_FORMAT_F32, FALSE, 0 };
  ClrEngineConfig c2 = { 44100, out2, 2, q2, 0, CLR_FORMAT_F32, FALSE, 0 };

  clr_ratio_init (&r, 44100, out1);
  clr_filter_design (&best, &r, CLR_QUALITY_MAX, 0);
  c1.history = best.taps;
  check_continued (&c1, tuning.iv, &c2, tuning.iv);
}

static void
test_engine_continuation (void)
{
  check_continuation (48000, 4, 48000, 10);
  check_continuation (48000, 10, 48000, 0);
  check_continuation (48000, 4, 96000, 4);
  check_continuation (48000, 4, 22050, 6);
}

/* Window layouts: planar for the CPU and few-channel GPU kernels,
 * interleaved for many channels (clr_resample_table_iv, chosen when the
 * kernels are the GPU's; CLRESAMPLE_IV=1 extends it to 4 and 8 channels).
 * Any buffering and I/O layout gives the same samples, F32 within the
 * reference's bound, both ways of the rate. */
static void
test_engine_layouts (void)
{
  static const unsigned chans[] = { 4, 8, 16 };
  static const ClrFormat fmts[] = { CLR_FORMAT_F32, CLR_FORMAT_S16,
    CLR_FORMAT_F64
  };
  static const unsigned rates[][2] = { {44100, 48000}, {48000, 44100} };
  size_t n_in = 3000, na, nb, n_ref, i;
  guint ci, fi, ri;

  for (ci = 0; ci < G_N_ELEMENTS (chans); ci++)
    for (fi = 0; fi < G_N_ELEMENTS (fmts); fi++)
      for (ri = 0; ri < G_N_ELEMENTS (rates); ri++) {
        const unsigned ch = chans[ci];
        ClrEngineConfig cfg = { rates[ri][0], rates[ri][1], ch, 4, 0,
          fmts[fi], FALSE, 0
        };
        size_t ss = clr_format_size (cfg.format);
        float *noise = g_new (float, n_in * ch);
        char *in = g_malloc (n_in * ch * ss), *a, *b;

        if (cfg.format == CLR_FORMAT_F64 && !clr_device_has_fp64 (device)) {
          g_free (noise);
          g_free (in);
          continue;
        }
        clr_signal_noise (noise, n_in * ch, 0.5, 40 + ch);
        for (i = 0; i < n_in * ch; i++) {
          if (cfg.format == CLR_FORMAT_S16)
            ((gint16 *) in)[i] = (gint16) rint (noise[i] * 32767.0);
          else if (cfg.format == CLR_FORMAT_F64)
            ((double *) in)[i] = noise[i];
          else
            ((float *) in)[i] = noise[i];
        }
        a = run_format (&cfg, in, n_in, 999, &na);
        cfg.planar = TRUE;
        b = run_format (&cfg, in, n_in, 313, &nb);
        g_assert_cmpuint (na, ==, nb);
        g_assert_cmpmem (a, na * ch * ss, b, nb * ch * ss);
        if (cfg.format == CLR_FORMAT_F32) {
          ClrRatio r;
          ClrFilter f;
          double *ref, worst = 0.0;

          clr_ratio_init (&r, cfg.in_rate, cfg.out_rate);
          clr_filter_design (&f, &r, cfg.quality, 0);
          ref = clr_reference_resample (&r, &f, noise, n_in, ch, &n_ref);
          g_assert_cmpuint (na, ==, n_ref);
          for (i = 0; i < na * ch; i++)
            worst = MAX (worst, fabs (((float *) a)[i] - ref[i]));
          g_test_message ("%u -> %u Hz, %u ch: max error %.3g",
              cfg.in_rate, cfg.out_rate, ch, worst);
          g_assert_cmpfloat (worst, <=, 1e-5);
          g_free (ref);
        }
        g_free (a);
        g_free (b);
        g_free (noise);
        g_free (in);
      }
}

/* A stream continues exactly from an engine of one window layout to one of
 * the other (on the GPU kernels: _iv to _tc2 and back). */
static void
test_engine_layout_continuation (void)
{
  ClrEngineConfig cfg = { 44100, 48000, 8, 4, 0, CLR_FORMAT_F32, FALSE, 0 };
  const ClrKnob on = { TRUE, 1 }, off = { TRUE, 0 };

  check_continued (&cfg, on, &cfg, off);
  check_continued (&cfg, off, &cfg, on);
}

/* Buffers larger than a chunk are cut inside the engine: same samples. */
static void
test_engine_chunks (void)
{
  ClrEngineConfig cfg = { 44100, 48000, 1024, 0, 0, CLR_FORMAT_F64, FALSE,
    0
  };
  size_t n_in = 10000, n_a, n_b, i;
  double *in = g_new (double, n_in * 1024), *a, *b;
  float *f = g_new (float, n_in * 1024);

  if (!clr_device_has_fp64 (device))
    cfg.format = CLR_FORMAT_S32;        /* also 4 bytes: chunks of 8192 */
  clr_signal_noise (f, n_in * 1024, 0.5, 3);
  for (i = 0; i < n_in * 1024; i++)
    in[i] = f[i];
  if (cfg.format == CLR_FORMAT_S32)
    for (i = 0; i < n_in * 1024; i++)
      ((gint32 *) in)[i] = (gint32) (f[i] * 2147483647.0);
  /* 32 MiB chunks of 1024 channels of doubles are 4096 frames */
  a = run_format (&cfg, in, n_in, n_in, &n_a);
  b = run_format (&cfg, in, n_in, 1000, &n_b);
  g_assert_cmpuint (n_a, ==, n_b);
  g_assert_cmpint (memcmp (a, b, n_a * 1024 * clr_format_size (cfg.format)),
      ==, 0);
  g_free (in);
  g_free (f);
  g_free (a);
  g_free (b);
}

/* The ways a CPU device's stream runs: the device's kernels through its
 * scheduler, copying the window (CLRESAMPLE_SVM=0) or sharing it in
 * fine-grained SVM (on a device without it both copy), and the host's
 * sums (clr-resample-host.h) */
typedef enum {
  PATH_COPY,
  PATH_SVM,
  PATH_HOST,
  N_PATHS
} EnginePath;

static ClrEngine *
engine_on_path (const ClrEngineConfig * cfg, EnginePath path)
{
  ClrTuning t = tuning;
  GError *err = NULL;
  ClrEngine *e;

  t.svm.set = path != PATH_HOST;
  t.svm.value = path == PATH_SVM;
  t.resample_host.set = TRUE;
  t.resample_host.value = path == PATH_HOST;
  e = clr_engine_new_tuned (device, cfg, &t, &err);
  g_assert_no_error (err);
  g_assert_cmpint (clr_engine_is_host (e), ==, path == PATH_HOST
      && !clr_device_is_gpu (device));
  return e;
}

/* Sound, silence after sound, a long silence (no device work), sound in
 * pieces of every size (some past the window's slack), then the drain;
 * negative sizes are silence. */
static const int path_pieces[] = { 1, 700, -3000, 4500, -20000, 17, 5000,
  -64, 2500, 1, 9000, 333
};

/* Runs the pieces through an engine on `path`; from piece `hand_over`
 * on (if below the count) an engine on path `next_path` continues the
 * stream. A variable ratio's factor moves before piece 6 (a slew across
 * pieces). Returns the output, planes one after the other when planar. */
static char *
run_paths (const ClrEngineConfig * cfg, const char *in, size_t n_in,
    EnginePath path, size_t hand_over, EnginePath next_path, size_t * n_out)
{
  const size_t ss = clr_format_size (cfg->format), ch = cfg->channels;
  ClrEngine *e = engine_on_path (cfg, path);
  size_t total = cfg->variable ? 0 :
      clr_ratio_out_total (clr_engine_get_ratio (e), n_in);
  size_t cap = cfg->variable ? n_in * 2 : total + 1;
  char *out = g_malloc0 (cap * ch * ss);
  size_t pos = 0, got = 0, i, c, n;
  GError *err = NULL;

  for (i = 0; i <= G_N_ELEMENTS (path_pieces); i++) {
    const void *ip[CLR_CHANNELS_MAX];
    void *op[CLR_CHANNELS_MAX];
    size_t len = i < G_N_ELEMENTS (path_pieces) ? ABS (path_pieces[i]) : 0;

    if (i == hand_over) {
      ClrEngine *next = engine_on_path (cfg, next_path);
      g_assert_true (clr_engine_continue_from (next, e, &err));
      g_assert_no_error (err);
      clr_engine_free (e);
      e = next;
    }
    if (cfg->variable && i == 6)
      g_assert_true (clr_engine_set_adjust (e, 0.9991));
    /* planar: the planes `cap` frames apart, so that a call's output
     * planes lie apart */
    for (c = 0; c < (cfg->planar ? ch : 1); c++) {
      ip[c] = in + (cfg->planar ? c * n_in + pos : pos * ch) * ss;
      op[c] = out + (cfg->planar ? c * cap + got : got * ch) * ss;
    }
    if (len == 0) {
      g_assert_true (clr_engine_drain (e, op, &n, &err));
    } else {
      g_assert_true (clr_engine_process (e, path_pieces[i] > 0 ? ip : NULL,
              len, op, &n, &err));
    }
    g_assert_no_error (err);
    got += n;
    pos += len;
    g_assert_cmpuint (got, <=, cap);
  }
  g_assert_cmpuint (pos, ==, n_in);
  if (!cfg->variable)
    g_assert_cmpuint (got, ==, total);
  clr_engine_free (e);
  *n_out = got;
  return out;
}

/* Where two runs' samples first differ (-1: nowhere), for the message */
static gssize
first_difference (const char *a, const char *b, size_t n, size_t ss)
{
  size_t i;

  for (i = 0; i < n; i++)
    if (memcmp (a + i * ss, b + i * ss, ss))
      return (gssize) i;
  return -1;
}

/* Every path gives the same output to the bit, and so does a stream handed
 * from one to another after the long silence or in the middle of sound:
 * the ratios of each kind of kernel (a table with an odd channel, a grid
 * with two channels, a variable ratio that slews on one), every format,
 * interleaved and planar. The host's sums repeat the kernels' fused
 * multiply-adds; where the OpenCL compiler fuses a grid's weighted rows
 * (clang's FP_CONTRACT) only a CPU with FMA fuses them on both sides, so
 * elsewhere a grid's host output is held to the float64 reference alone
 * (test_engine_reference). */
static void
test_engine_paths (void)
{
  static const ClrFormat formats[] = { CLR_FORMAT_F32, CLR_FORMAT_F64,
    CLR_FORMAT_S16, CLR_FORMAT_S32, CLR_FORMAT_S24_32
  };
  static const struct {
    unsigned in_rate, out_rate, channels;
    gboolean variable;
  } ratios[] = {
    {44100, 48000, 3, FALSE}, {44100, 44101, 2, FALSE},
    {48000, 44100, 1, TRUE},
  };
  /* both clones with FMA (AVX2's and AVX-512's) */
  const gboolean fused = g_str_has_prefix (clr_fft_host_variant (), "x86-v");
  /* the host's sums are the CPU kernels' with fp64: the variants that
   * shape other kernels (CLRESAMPLE_KERNELS, _NO_FP64 ...) hold theirs
   * to the copying path alone */
  const gboolean cpu_kernels = clr_tuning_resample_host (&tuning);
  size_t n_in = 0, i, f, r, n_a, n_b;

  for (i = 0; i < G_N_ELEMENTS (path_pieces); i++)
    n_in += ABS (path_pieces[i]);
  for (r = 0; r < G_N_ELEMENTS (ratios); r++)
    for (f = 0; f < G_N_ELEMENTS (formats) * 2; f++) {
      ClrEngineConfig cfg = { ratios[r].in_rate, ratios[r].out_rate,
        ratios[r].channels, 4, 0, formats[f / 2], f % 2, 0
      };
      const size_t ss = clr_format_size (cfg.format);
      const size_t ch = cfg.channels, n = n_in * ch;
      const gboolean grid = ratios[r].out_rate == 44101;
      char *in, *a, *b;
      float *noise;
      int p;

      cfg.variable = ratios[r].variable;
      cfg.adjust = cfg.variable ? 1.0003 : 0.0;
      cfg.adjust_low = cfg.variable ? 0.999 : 0.0;
      if (cfg.format == CLR_FORMAT_F64 && !clr_device_has_fp64 (device))
        continue;
      noise = g_new (float, n);
      in = g_malloc (n * ss);
      clr_signal_noise (noise, n, 0.9, 11 + f);
      for (i = 0; i < n; i++) {
        switch (cfg.format) {
          case CLR_FORMAT_F32:
            ((float *) in)[i] = noise[i];
            break;
          case CLR_FORMAT_F64:
            ((double *) in)[i] = noise[i];
            break;
          case CLR_FORMAT_S16:
            ((gint16 *) in)[i] = (gint16) (noise[i] * 32767);
            break;
          case CLR_FORMAT_S24_32:
            ((gint32 *) in)[i] = (gint32) (noise[i] * 8388607);
            break;
          default:
            ((gint32 *) in)[i] = (gint32) (noise[i] * 2147483647.0);
            break;
        }
      }
      a = run_paths (&cfg, in, n_in, PATH_COPY, G_MAXSIZE, PATH_COPY, &n_a);
      for (p = PATH_SVM; p < N_PATHS; p++) {
        gssize d;

        if (p == PATH_HOST && (!cpu_kernels || (grid && !fused)))
          continue;
        /* the two kernel paths once, at the first ratio (they share
         * every line but the window's staging) */
        if (p == PATH_SVM && r > 0)
          continue;
        b = run_paths (&cfg, in, n_in, p, G_MAXSIZE, p, &n_b);
        g_assert_cmpuint (n_a, ==, n_b);
        d = first_difference (a, b, n_a * ch, ss);
        if (d >= 0)
          g_error ("%u -> %u Hz, %u ch, format %d, %s: path %d differs from "
              "the copying kernels at sample %" G_GSSIZE_FORMAT " of %"
              G_GSIZE_FORMAT, cfg.in_rate, cfg.out_rate, cfg.channels,
              cfg.format, cfg.planar ? "planar" : "interleaved", p, d,
              n_a * ch);
        g_free (b);
        /* hand over after the long silence and in the middle of sound,
         * both ways */
        b = run_paths (&cfg, in, n_in, PATH_COPY, 5, p, &n_b);
        g_assert_cmpuint (n_a, ==, n_b);
        g_assert_cmpint (first_difference (a, b, n_a * ch, ss), ==, -1);
        g_free (b);
        b = run_paths (&cfg, in, n_in, p, 7, PATH_COPY, &n_b);
        g_assert_cmpuint (n_a, ==, n_b);
        g_assert_cmpint (first_difference (a, b, n_a * ch, ss), ==, -1);
        g_free (b);
      }
      g_free (a);
      g_free (in);
      g_free (noise);
    }
}

static void
test_invalid_configs (void)
{
  ClrEngineConfig cfg = { 1, 2147483647u, 2, 4, 0 };
  ClrTuning small = tuning;
  GError *err = NULL;

  g_assert_false (clr_engine_config_validate (&cfg, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);
  cfg.in_rate = 44100;
  cfg.out_rate = 48000;
  cfg.channels = 0;
  g_assert_null (engine_new (&cfg, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_INVALID);
  g_clear_error (&err);
  /* the device-memory budget refuses cleanly */
  cfg.channels = 2;
  small.device_memory = 100000;
  g_assert_null (clr_engine_new_tuned (device, &cfg, &small, &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_RESOURCES);
  g_assert_nonnull (strstr (err->message, "budget"));
  g_clear_error (&err);
  g_assert_null (clr_device_acquire ("no-such-device-xyz", &err));
  g_assert_error (err, CLR_ERROR, CLR_ERROR_NO_DEVICE);
  g_assert_nonnull (strstr (err->message, "available"));
  g_clear_error (&err);
}

typedef struct {
  const char *env;              /* the overrides, as variables */
  gboolean gpu, fp64;
  ClrFormat format;
  uint32_t channels;
  uint64_t I, D;
  uint32_t taps;
  const char *kernel;           /* what must run */
  unsigned cpi, fpi;
} PlanCase;

/* The kernel selection's table (clr-kernel-plan.c), row by row, and each
 * override forcing what clr-tuning.h says it does. */
static void
test_kernel_plan (void)
{
  static const PlanCase cases[] = {
    /* the defaults; CPU, then GPU */
    {"", FALSE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table_c2", 2, 1},
    {"", FALSE, TRUE, CLR_FORMAT_S16, 1, 160, 147, 64,
        "clr_resample_table", 1, 1},
    {"", FALSE, FALSE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table", 1, 1},
    {"", FALSE, TRUE, CLR_FORMAT_F32, 2, 44101, 44100, 128,
        "clr_resample_interp_c2", 2, 1},
    {"", FALSE, TRUE, CLR_FORMAT_F32, 3, 44101, 44100, 128,
        "clr_resample_interp_c2", 2, 1},
    {"", FALSE, TRUE, CLR_FORMAT_F32, 1, 44101, 44100, 128,
        "clr_resample_interp", 1, 1},
    {"", FALSE, FALSE, CLR_FORMAT_F32, 2, 44101, 44100, 128,
        "clr_resample_interp", 1, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 2, 44101, 44100, 128,
        "clr_resample_interp", 1, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 64, 160, 147, 376,
        "clr_resample_table_iv", 1, 7},
    {"", TRUE, TRUE, CLR_FORMAT_F64, 16, 147, 160, 376,
        "clr_resample_table_iv", 1, 7},
    /* _iv's frames fall back to one where they lie far apart */
    {"", TRUE, TRUE, CLR_FORMAT_F32, 64, 1, 12, 96,
        "clr_resample_table_iv", 1, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 376,
        "clr_resample_table_tc2", 2, 2},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 1, 640, 147, 376,
        "clr_resample_table_tc2", 1, 2},
    {"", TRUE, TRUE, CLR_FORMAT_S16, 18, 160, 147, 376,
        "clr_resample_table_tc2", 8, 2},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 8, 147, 160, 408,
        "clr_resample_table_tcf", 8, 8},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 8, 1, 12, 96,
        "clr_resample_table_tc", 8, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 4, 147, 160, 408,
        "clr_resample_table_tc", 4, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 3, 147, 160, 408,
        "clr_resample_table_tc", 2, 1},
    {"", TRUE, TRUE, CLR_FORMAT_F32, 1, 147, 160, 408,
        "clr_resample_table_t", 1, 1},
    {"", TRUE, FALSE, CLR_FORMAT_F32, 2, 160, 147, 376,
        "clr_resample_table_t", 1, 1},
    {"", TRUE, FALSE, CLR_FORMAT_S16, 64, 160, 147, 376,
        "clr_resample_table_t", 1, 1},
    /* the overrides */
    {"CLRESAMPLE_KERNELS=gpu", FALSE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table_tc2", 2, 2},
    {"CLRESAMPLE_KERNELS=cpu", TRUE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table_c2", 2, 1},
    {"CLRESAMPLE_CPI=1", FALSE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table", 1, 1},
    {"CLRESAMPLE_CPI=9", FALSE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table_c2", 2, 1},
    {"CLRESAMPLE_CPI=1", FALSE, TRUE, CLR_FORMAT_F32, 2, 44101, 44100, 128,
        "clr_resample_interp", 1, 1},
    {"CLRESAMPLE_KERNELS=gpu", FALSE, TRUE, CLR_FORMAT_F32, 2, 44101, 44100,
        128, "clr_resample_interp", 1, 1},
    {"CLRESAMPLE_CPI=1", TRUE, TRUE, CLR_FORMAT_F32, 2, 147, 160, 408,
        "clr_resample_table_t", 1, 1},
    {"CLRESAMPLE_CPI=3", TRUE, TRUE, CLR_FORMAT_F32, 2, 147, 160, 408,
        "clr_resample_table_tc", 3, 1},
    {"CLRESAMPLE_IV=1", TRUE, TRUE, CLR_FORMAT_F32, 4, 160, 147, 376,
        "clr_resample_table_iv", 1, 7},
    {"CLRESAMPLE_IV=1", TRUE, TRUE, CLR_FORMAT_F32, 6, 160, 147, 376,
        "clr_resample_table_tc2", 4, 2},
    {"CLRESAMPLE_IV=1", TRUE, FALSE, CLR_FORMAT_F32, 8, 160, 147, 376,
        "clr_resample_table_t", 1, 1},
    {"CLRESAMPLE_IV=0", TRUE, TRUE, CLR_FORMAT_F32, 64, 160, 147, 376,
        "clr_resample_table_tc2", 8, 2},
    {"CLRESAMPLE_FPI=4", TRUE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 376,
        "clr_resample_table_tcf", 2, 4},
    {"CLRESAMPLE_FPI=2", TRUE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 376,
        "clr_resample_table_tcf", 2, 2},
    {"CLRESAMPLE_FPI=1", TRUE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 376,
        "clr_resample_table_tc", 2, 1},
    {"CLRESAMPLE_FPI=20", TRUE, TRUE, CLR_FORMAT_F32, 8, 1, 12, 96,
        "clr_resample_table_tcf", 8, 8},
    {"CLRESAMPLE_FPI=3", TRUE, TRUE, CLR_FORMAT_F32, 64, 1, 12, 96,
        "clr_resample_table_iv", 1, 3},
    {"CLRESAMPLE_FPI=4", FALSE, TRUE, CLR_FORMAT_F32, 2, 160, 147, 64,
        "clr_resample_table_c2", 2, 1},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const PlanCase *c = &cases[i];
    const ClrKernelFacts f = { c->gpu, c->fp64, TRUE, c->format, c->channels,
      c->I, c->D, c->taps
    };
    gchar **envp = g_strsplit (c->env, " ", -1);
    ClrTuning t;
    ClrKernelPlan p;

    clr_tuning_read (&t, envp);
    clr_kernel_plan_choose (&f, &t, &p);
    g_test_message ("%s %s fp64 %d, %u ch, %" G_GUINT64_FORMAT "/%"
        G_GUINT64_FORMAT ": %s, cpi %u, fpi %u", c->env, c->gpu ? "GPU" :
        "CPU", c->fp64, c->channels, c->I, c->D, p.kernel, p.cpi, p.fpi);
    g_assert_cmpstr (p.kernel, ==, c->kernel);
    g_assert_cmpuint (p.cpi, ==, c->cpi);
    g_assert_cmpuint (p.fpi, ==, c->fpi);
    /* the table's layout goes with the kernel family */
    g_assert_true (p.transposed == (g_str_has_prefix (p.kernel,
                "clr_resample_table_t")));
    g_assert_true (p.iv == !strcmp (p.kernel, "clr_resample_table_iv"));
    g_assert_true (p.pairs == !strcmp (p.kernel, "clr_resample_table_tc2"));
    g_strfreev (envp);
  }
}

/* The overrides of the host paths and the _iv details. */
static void
test_kernel_plan_overrides (void)
{
  const ClrKernelFacts cpu = { FALSE, TRUE, TRUE, CLR_FORMAT_F32, 2, 160,
    147, 64
  };
  const ClrKernelFacts gpu = { TRUE, TRUE, FALSE, CLR_FORMAT_S16, 64, 160,
    147, 376
  };
  ClrTuning none = { 0, }, t;
  ClrKernelPlan p;

  /* CPU devices share memory with the host, in doubles for the CPU
   * kernels, 16-frame groups (never the driver's choice: PoCL compiles
   * again for each new one); GPUs stage through page-locked memory,
   * 256-frame groups */
  clr_kernel_plan_choose (&cpu, &none, &p);
  g_assert_true (p.svm && !p.pinned && p.coef_double);
  g_assert_cmpuint (p.wsize, ==, sizeof (double));
  g_assert_cmpuint (p.local_size, ==, 16);
  clr_kernel_plan_choose (&gpu, &none, &p);
  g_assert_true (!p.svm && p.pinned && !p.coef_double && p.shifted);
  g_assert_cmpuint (p.wsize, ==, 2);
  g_assert_cmpuint (p.local_size, ==, 256);
  g_assert_cmpuint (p.iv_dw, ==, 0);
  /* _iv's window: K + lead taps rounded up to 4, the lead one frame
   * spread of 7 frames plus 3 */
  g_assert_cmpuint (p.pad, ==, 6);
  g_assert_cmpuint (p.lead, ==, 9);
  g_assert_cmpuint (p.span, ==, 388);
  g_assert_cmpuint (p.spare, ==, 12);
  g_assert_cmpuint (p.back, ==, 3);

  t = none;
  t.pinned = (ClrKnob) { TRUE, 1 };
  clr_kernel_plan_choose (&cpu, &t, &p);
  g_assert_true (p.pinned && !p.svm);
  g_assert_cmpuint (p.wsize, ==, sizeof (float));
  t.pinned = (ClrKnob) { TRUE, 0 };
  clr_kernel_plan_choose (&gpu, &t, &p);
  g_assert_false (p.pinned);
  t = none;
  t.svm = (ClrKnob) { TRUE, 0 };
  clr_kernel_plan_choose (&cpu, &t, &p);
  g_assert_true (!p.svm && !p.pinned);
  t = none;
  t.kernels = (ClrKnob) { TRUE, 1 };
  clr_kernel_plan_choose (&cpu, &t, &p);
  g_assert_true (p.svm && !p.pinned && !p.coef_double);
  g_assert_cmpuint (p.wsize, ==, sizeof (float));
  g_assert_cmpuint (p.local_size, ==, 256);
  t = none;
  t.iv_shifted = (ClrKnob) { TRUE, 0 };
  t.iv_dw = (ClrKnob) { TRUE, 100 };
  t.local_size = (ClrKnob) { TRUE, 64 };
  clr_kernel_plan_choose (&gpu, &t, &p);
  g_assert_false (p.shifted);
  g_assert_cmpuint (p.iv_dw, ==, 64);
  g_assert_cmpuint (p.local_size, ==, 64);
}

static void
test_device_sharing (void)
{
  GError *err = NULL;
  ClrDevice *a = clr_device_acquire ("auto", &err), *b;

  g_assert_no_error (err);
  b = clr_device_acquire ("0:0", &err);
  g_assert_no_error (err);
  /* one context and queue per device for everybody */
  g_assert_true (a == device);
  g_assert_true (b == device);
  g_assert_true (clr_device_get_queue (a) == clr_device_get_queue (b));
  clr_device_unref (a);
  clr_device_unref (b);
}

/* The design cache (clr-design-cache.h): the same filter asked twice is
 * one bank, holding exactly the doubles clr_bank_row () gives; another
 * quality, length, ratio or layout is another bank. Past the bound the
 * least recently used goes, and a bank still held stays valid. */
static void
test_design_cache (void)
{
  ClrRatio r, r2;
  ClrFilter f, g, h;
  ClrBankLayout b, bg, b2, grid;
  ClrDesign *d1, *d2, *d3, *d4, *d5, *d6, *more[CLR_DESIGN_CACHE_ENTRIES];
  ClrDesignCacheStats st0, st;
  double *row;
  uint32_t p, differ = 0;
  guint i;

  clr_design_cache_clear ();
  clr_design_cache_stats (&st0);
  g_assert_cmpuint (st0.entries, ==, 0);
  g_assert_cmpuint (st0.bytes, ==, 0);
  clr_ratio_init (&r, 44100, 705600);
  clr_filter_design (&f, &r, 10, 4096);
  b = (ClrBankLayout) { 0, (uint32_t) r.I, f.taps, 0 };
  d1 = clr_design_get (&b, &f, &r);
  d2 = clr_design_get (&b, &f, &r);
  g_assert_nonnull (d1);
  g_assert_true (d1 == d2);
  clr_design_cache_stats (&st);
  g_assert_cmpuint (st.misses, ==, st0.misses + 1);
  g_assert_cmpuint (st.hits, ==, st0.hits + 1);
  g_assert_cmpuint (st.entries, ==, 1);
  g_assert_cmpuint (st.bytes, ==, (size_t) r.I * f.taps * sizeof (double));
  row = g_new (double, f.taps);
  for (p = 0; p < b.rows; p++) {
    clr_bank_row (&b, &f, &r, p, row);
    g_assert_cmpmem (clr_design_row (d1, p), f.taps * sizeof (double), row,
        f.taps * sizeof (double));
  }

  /* another quality: another bank, other numbers */
  clr_filter_design (&g, &r, 9, 4096);
  bg = (ClrBankLayout) { 0, (uint32_t) r.I, g.taps, 0 };
  d3 = clr_design_get (&bg, &g, &r);
  g_assert_true (d3 != d1);
  for (p = 0; p < b.rows; p++)
    differ += memcmp (clr_design_row (d1, p), clr_design_row (d3, p),
        f.taps * sizeof (double)) != 0;
  g_assert_cmpuint (differ, ==, b.rows);
  /* another length */
  clr_filter_design (&h, &r, 10, 4100);
  b2 = (ClrBankLayout) { 0, (uint32_t) r.I, h.taps, 0 };
  d4 = clr_design_get (&b2, &h, &r);
  g_assert_true (d4 != d1 && d4 != d3);
  /* 48000 -> 768000 is the same filter as 44100 -> 705600: the same bank */
  clr_ratio_init (&r2, 48000, 768000);
  clr_filter_design (&h, &r2, 10, 4096);
  d5 = clr_design_get (&b, &h, &r2);
  g_assert_true (d5 == d1);
  clr_design_unref (d5);
  /* the same quality, length and phases at a ratio with another cutoff */
  clr_ratio_init (&r2, 17000, 16000);
  clr_filter_design (&h, &r2, 10, 4096);
  g_assert_cmpuint (r2.I, ==, r.I);
  g_assert_cmpuint (h.taps, ==, f.taps);
  d5 = clr_design_get (&b, &h, &r2);
  g_assert_true (d5 != d1);
  /* the same filter as a grid */
  grid = (ClrBankLayout) { 1, 67, f.taps, 64 };
  d6 = clr_design_get (&grid, &f, &r);
  g_assert_true (d6 != d1);
  clr_bank_row (&grid, &f, &r, 5, row);
  g_assert_cmpmem (clr_design_row (d6, 5), f.taps * sizeof (double), row,
      f.taps * sizeof (double));
  clr_design_cache_stats (&st);
  g_assert_cmpuint (st.entries, ==, 5);

  /* as many more: d1, held, leaves the cache but not the holders */
  for (i = 0; i < CLR_DESIGN_CACHE_ENTRIES; i++) {
    ClrFilter m;
    ClrBankLayout bm;

    clr_filter_design (&m, &r, 4, 64 + 4 * i);
    bm = (ClrBankLayout) { 0, (uint32_t) r.I, m.taps, 0 };
    more[i] = clr_design_get (&bm, &m, &r);
  }
  clr_design_cache_stats (&st);
  g_assert_cmpuint (st.entries, ==, CLR_DESIGN_CACHE_ENTRIES);
  g_assert_cmpuint (st.bytes, <=, CLR_DESIGN_CACHE_BYTES);
  clr_bank_row (&b, &f, &r, 3, row);
  g_assert_cmpmem (clr_design_row (d1, 3), f.taps * sizeof (double), row,
      f.taps * sizeof (double));
  d2 = clr_design_get (&b, &f, &r);
  g_assert_true (d2 != d1);
  clr_design_cache_stats (&st0);
  g_assert_cmpuint (st0.misses, ==, st.misses + 1);
  g_assert_cmpmem (clr_design_row (d2, 3), f.taps * sizeof (double), row,
      f.taps * sizeof (double));

  clr_design_unref (d1);
  clr_design_unref (d1);
  clr_design_unref (d2);
  clr_design_unref (d3);
  clr_design_unref (d4);
  clr_design_unref (d5);
  clr_design_unref (d6);
  for (i = 0; i < CLR_DESIGN_CACHE_ENTRIES; i++)
    clr_design_unref (more[i]);
  clr_design_cache_clear ();
  clr_design_cache_stats (&st);
  g_assert_cmpuint (st.entries, ==, 0);
  g_free (row);
}

/* An engine whose filter came from the cache gives the same samples, bit
 * for bit, as one that designed it: the FFT path (the million-tap filters
 * the cache is for) and the direct kernels. */
static void
test_design_cache_engines (void)
{
  static const struct
  {
    unsigned out_rate;
    uint32_t taps;
  } cases[] = { {176400, 4096}, {48000, 0} };
  const size_t n_in = 20000;
  float *in = g_new (float, n_in * 2);
  ClrDesignCacheStats st0, st;
  guint i;

  clr_signal_noise (in, n_in * 2, 0.5, 23);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    ClrEngineConfig cfg = { 44100, cases[i].out_rate, 2, 10, cases[i].taps,
      CLR_FORMAT_F32, FALSE, 0
    };
    size_t n1, n2;
    float *fresh, *cached;

    clr_design_cache_clear ();
    fresh = run_format (&cfg, in, n_in, 1500, &n1);
    clr_design_cache_stats (&st0);
    cached = run_format (&cfg, in, n_in, 1500, &n2);
    clr_design_cache_stats (&st);
    if (i == 0) {
      /* the FFT path designs at each engine: the second found it */
      g_assert_cmpuint (st.hits, >, st0.hits);
      g_assert_cmpuint (st.misses, ==, st0.misses);
    }
    g_assert_cmpuint (n1, ==, n2);
    g_assert_cmpmem (fresh, n1 * 2 * sizeof (float), cached,
        n2 * 2 * sizeof (float));
    g_free (fresh);
    g_free (cached);
  }
  clr_design_cache_clear ();
  g_free (in);
}

/* The host conversions the convolution elements choose once a stream:
 * integers scaled to [-1, 1), rounded to nearest even and saturated on
 * the way back, NaN to silence, S24_32's top byte ignored, steps kept. */
static void
test_format_samples (void)
{
  const gint16 s16[] = { -32768, -1, 0, 1, 32767 };
  const gint32 s24[] = { (gint32) 0xff800000, 0x7fffffff, 0x00000001 };
  const double back[] = { 0.5 / 32768, 1.5 / 32768, -2.5 / 32768, 1.2, -1.2,
    NAN, 0.25
  };
  const gint16 back_s16[] = { 0, 2, -2, 32767, -32768, 0, 8192 };
  double d[5];
  float f[10];
  gint16 o16[7];
  gint32 o24[2];
  gint32 o32;
  guint i;

  clr_format_sample_in (CLR_FORMAT_S16, TRUE) (s16, 1, d, 1, 5);
  g_assert_cmpfloat (d[0], ==, -1.0);
  g_assert_cmpfloat (d[1], ==, -1.0 / 32768);
  g_assert_cmpfloat (d[4], ==, 32767.0 / 32768);
  /* every other sample in, every other slot out */
  clr_format_sample_in (CLR_FORMAT_S16, FALSE) (s16, 2, f, 2, 3);
  g_assert_cmpfloat (f[0], ==, -1.0f);
  g_assert_cmpfloat (f[2], ==, 0.0f);
  g_assert_cmpfloat (f[4], ==, 32767.0f / 32768);
  /* the low 24 bits, sign-extended */
  clr_format_sample_in (CLR_FORMAT_S24_32, TRUE) (s24, 1, d, 1, 3);
  g_assert_cmpfloat (d[0], ==, -1.0);
  g_assert_cmpfloat (d[1], ==, -1.0 / 8388608);
  g_assert_cmpfloat (d[2], ==, 1.0 / 8388608);

  clr_format_sample_out (CLR_FORMAT_S16, TRUE) (back, 1, o16, 1, 7);
  for (i = 0; i < G_N_ELEMENTS (back_s16); i++)
    g_assert_cmpint (o16[i], ==, back_s16[i]);
  clr_format_sample_out (CLR_FORMAT_S24_32, TRUE) (back + 3, 1, o24, 1, 2);
  g_assert_cmpint (o24[0], ==, 8388607);
  g_assert_cmpint (o24[1], ==, -8388608);
  f[0] = 1.5f;
  clr_format_sample_out (CLR_FORMAT_S32, FALSE) (f, 1, &o32, 1, 1);
  g_assert_cmpint (o32, ==, G_MAXINT32);
}

int
main (int argc, char **argv)
{
  static const RateCase cases[] = {
    {44100, 48000, 1}, {44100, 48000, 2}, {44100, 48000, 6},
    {48000, 44100, 2}, {44100, 192000, 2}, {96000, 44100, 1},
    {96000, 44100, 6}, {8000, 44100, 1}, {44100, 44101, 2},
    {8000, 44101, 1}, {48000, 44100, 64},
  };
  GError *err = NULL;
  unsigned i;
  int ret;

  g_test_init (&argc, &argv, NULL);
  tuning = *clr_tuning_get ();
  device = clr_device_acquire ("auto", &err);
  if (!device)
    g_error ("no OpenCL device for the tests: %s", err->message);

  g_test_add_func ("/rate/reduce", test_ratio_reduce);
  g_test_add_func ("/format/samples", test_format_samples);
  g_test_add_func ("/rate/positions", test_ratio_positions);
  g_test_add_func ("/rate/totals", test_ratio_totals);
  g_test_add_func ("/filter/design", test_filter_design);
  g_test_add_func ("/filter/bank-cap", test_bank_cap);
  g_test_add_func ("/filter/bank-grid", test_bank_grid);
  g_test_add_func ("/filter/design-cache", test_design_cache);
  g_test_add_func ("/filter/design-cache-engines", test_design_cache_engines);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *name = g_strdup_printf ("/engine/reference/%u-%u-%uch",
        cases[i].in_rate, cases[i].out_rate, cases[i].channels);
    g_test_add_data_func (name, &cases[i], test_engine_reference);
    g_free (name);
  }
  g_test_add_func ("/engine/chunking", test_engine_chunking);
  g_test_add_func ("/engine/silence", test_engine_silence);
  g_test_add_func ("/engine/f64", test_engine_f64);
  g_test_add_func ("/engine/interp-channels", test_engine_interp_channels);
  g_test_add_data_func ("/engine/integer/s16",
      GINT_TO_POINTER (CLR_FORMAT_S16), test_engine_integer);
  g_test_add_data_func ("/engine/integer/s24_32",
      GINT_TO_POINTER (CLR_FORMAT_S24_32), test_engine_integer);
  g_test_add_data_func ("/engine/integer/s32",
      GINT_TO_POINTER (CLR_FORMAT_S32), test_engine_integer);
  g_test_add_func ("/engine/planar", test_engine_planar);
  g_test_add_func ("/engine/continuation", test_engine_continuation);
  g_test_add_func ("/engine/chunks", test_engine_chunks);
  g_test_add_func ("/engine/layouts", test_engine_layouts);
  g_test_add_func ("/engine/layout-continuation",
      test_engine_layout_continuation);
  g_test_add_func ("/engine/paths", test_engine_paths);
  g_test_add_func ("/engine/invalid", test_invalid_configs);
  g_test_add_func ("/kernel-plan/table", test_kernel_plan);
  g_test_add_func ("/kernel-plan/overrides", test_kernel_plan_overrides);
  g_test_add_func ("/device/sharing", test_device_sharing);
  ret = g_test_run ();
  clr_device_unref (device);
  return ret;
}
