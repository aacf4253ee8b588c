/* clr-quality: measures clresample side by side with the stock audioresample
 * and libsoxr, prints one table (a row per metric, a column per contestant),
 * optionally writes every figure as JSON / CSV and the raw outputs for
 * plotting, and in --check mode asserts the project's targets.
 *
 * Contestants:
 *   clresample:Q:FMT[:ni][:cutoff=C][:phase=minimum|intermediate]
 *                             appsrc ! clresample quality=Q [cutoff=C]
 *                             [phase=P] ! capsfilter ! appsink
 *   audioresample:Q:FMT[:ni]  the same with the stock element
 *   soxr:RECIPE[:min|:int][:F32LE|F64LE]
 *                             libsoxr called directly (default float64 I/O,
 *                             one thread, whole signal then drained; :min
 *                             and :int its minimum and intermediate phase)
 * Q may be a range (0-10) or "all"; FMT is F32LE, F64LE, S16LE, S32LE or
 * S24_32LE; ":ni" asks for layout=non-interleaved. A format or layout the
 * element refuses gives "n/a" in the table, nothing worse.
 *
 * Every test signal is generated in double with exactly reduced phases
 * (clr-analysis.c) and converted to the contestant's format (integers with
 * round-to-nearest-even and clipping, scale 2^(bits-1)); outputs are
 * converted back to double. Output frame m is taken to sit at time
 * m / out_rate, input frame 0 at time 0: a resampler that is late or early
 * shows it in the time-offset row. The first and last SKIP_S seconds of every
 * output are left out of the analysis (switch-on / switch-off transients of
 * the abrupt test signals).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/audio/audio.h>
#include <soxr.h>

#include "clr-analysis.h"

/* seconds left out at each end of an output before analysis: 0.1 s plus a
 * margin, far longer than the longest filter here (~800 taps at 96 kHz) */
#define SKIP_S 0.12
#define RUN_TIMEOUT_S 300
#define DEFAULT_CONTESTANTS \
  "clresample:4:F32LE,clresample:10:F32LE,clresample:10:F64LE," \
  "audioresample:4:F32LE,audioresample:10:F32LE,audioresample:10:F64LE," \
  "soxr:vhq"
#define DEFAULT_METRICS "a,b,c,d,e,f,g,h,stereo"

static double
from_db (double db)
{
  return pow (10.0, db / 20.0);
}

/* ------------------------------------------------------------------------ */
/* rows of the table                                                         */

typedef enum
{
  ROW_THDN,
  ROW_ALIAS,
  ROW_IMAGES,
  ROW_GAIN,
  ROW_ALIAS23,
  ROW_IMD,
  ROW_FRAMES,
  ROW_OFFSET,
  ROW_STEREO,
  ROW_SPEED,
  ROW_RESP_PASS,
  ROW_RESP_STOP,
  ROW_PRERING,
  ROW_RINGING,
  ROW_LATENCY,
  N_ROWS
} Row;

typedef enum
{
  SENSE_LOWER,                  /* lower is better */
  SENSE_LOWER_ABS,              /* smaller magnitude is better */
  SENSE_HIGHER,                 /* higher is better */
} Sense;

typedef struct
{
  const char *key;
  const char *title;
  const char *unit;
  const char *fmt;
  Sense sense;
} RowInfo;

static const RowInfo rows[N_ROWS] = {
  [ROW_THDN] = {"thdn", "a. THD+N 1k -1dBFS 44.1>48k", "dB", "%.1f",
      SENSE_LOWER},
  [ROW_ALIAS] = {"alias", "b. worst alias 23-40k 96>44.1k", "dB", "%.1f",
      SENSE_LOWER},
  [ROW_IMAGES] = {"images", "c. images >24k, 15k 44.1>192k", "dB", "%.1f",
      SENSE_LOWER},
  [ROW_GAIN] = {"gain", "d. gain err max 0.1-20k 96>44.1k", "dB", "%.6f",
      SENSE_LOWER_ABS},
  [ROW_ALIAS23] = {"alias23", "e. alias of 23k@-4dBFS 96>44.1k", "dBFS",
      "%.1f", SENSE_LOWER},
  [ROW_IMD] = {"imd", "e. IMD 64.59+6998 resid 44.1>48k", "dBFS", "%.1f",
      SENSE_LOWER},
  [ROW_FRAMES] = {"frames", "f. frames out, 44100 in 44.1>48k", "frames",
      "%.0f", SENSE_LOWER_ABS},
  [ROW_OFFSET] = {"offset", "g. time offset worst (4 pairs)", "out samples",
      "%.6f", SENSE_LOWER_ABS},
  [ROW_STEREO] = {"stereo", "stereo THD+N worst ch 44.1>48k", "dB", "%.1f",
      SENSE_LOWER},
  [ROW_SPEED] = {"speed", "h. speed stereo 44.1>48k", "x realtime", "%.0f",
      SENSE_HIGHER},
  [ROW_RESP_PASS] = {"resp_pass", "response: max |gain err| to 20k",
      "dB", "%.5f", SENSE_LOWER_ABS},
  [ROW_RESP_STOP] = {"resp_stop", "response: worst gain >= 22.05k", "dB",
      "%.1f", SENSE_LOWER},
  [ROW_PRERING] = {"prering", "j. energy before impulse peak 44.1>48k",
      "dB", "%.1f", SENSE_LOWER},
  [ROW_RINGING] = {"ringing", "j. energy >0.25 ms before the peak",
      "dB", "%.1f", SENSE_LOWER},
  [ROW_LATENCY] = {"latency", "k. latency reported 44.1>48k", "ms", "%.3f",
      SENSE_LOWER},
};

/* metric groups selectable with --metrics */
enum
{
  MET_A = 1 << 0, MET_B = 1 << 1, MET_C = 1 << 2, MET_D = 1 << 3,
  MET_E = 1 << 4, MET_F = 1 << 5, MET_G = 1 << 6, MET_H = 1 << 7,
  MET_STEREO = 1 << 8,
  MET_SWEEP = 1 << 9, MET_RESPONSE = 1 << 10, MET_IMPULSE = 1 << 11
};

static const struct
{
  const char *letter;
  const char *name;
  guint flag;
} metric_names[] = {
  {"a", "thdn", MET_A},
  {"b", "alias", MET_B},
  {"c", "images", MET_C},
  {"d", "gain", MET_D},
  {"e", "alias23", MET_E},
  {"e", "imd", MET_E},
  {"f", "frames", MET_F},
  {"g", "offset", MET_G},
  {"h", "speed", MET_H},
  {"i", "stereo", MET_STEREO},
  {"sweep", "sweep", MET_SWEEP},
  {"response", "response", MET_RESPONSE},
  {"j", "impulse", MET_IMPULSE},
};

static guint
row_metric (Row r)
{
  switch (r) {
    case ROW_THDN:
      return MET_A;
    case ROW_ALIAS:
      return MET_B;
    case ROW_IMAGES:
      return MET_C;
    case ROW_GAIN:
      return MET_D;
    case ROW_ALIAS23:
    case ROW_IMD:
      return MET_E;
    case ROW_FRAMES:
      return MET_F;
    case ROW_OFFSET:
      return MET_G;
    case ROW_STEREO:
      return MET_STEREO;
    case ROW_SPEED:
      return MET_H;
    case ROW_PRERING:
    case ROW_RINGING:
    case ROW_LATENCY:
      return MET_IMPULSE;
    default:
      return MET_RESPONSE;
  }
}

/* ------------------------------------------------------------------------ */
/* the checks of --check: edit this table to change the targets              */

typedef enum
{
  CHK_LE,                       /* value <= limit (magnitude for *_ABS rows) */
  CHK_EQ,                       /* value == limit */
  CHK_BETTER,                   /* strictly better than contestant `other` */
} CheckOp;

typedef struct
{
  const char *group;
  const char *contestant;
  Row row;
  CheckOp op;
  double limit;
  const char *other;
} Check;

#define CLR_Q4 "clresample:4:F32LE"
#define CLR_Q10 "clresample:10:F32LE"
#define CLR_Q10_F64 "clresample:10:F64LE"
#define AR_Q4 "audioresample:4:F32LE"

static const Check checks[] = {
  /* (1) the default quality beats the stock element's default, same run */
  {"(1)", CLR_Q4, ROW_THDN, CHK_BETTER, 0, AR_Q4},
  {"(1)", CLR_Q4, ROW_ALIAS, CHK_BETTER, 0, AR_Q4},
  {"(1)", CLR_Q4, ROW_IMAGES, CHK_BETTER, 0, AR_Q4},
  {"(1)", CLR_Q4, ROW_GAIN, CHK_BETTER, 0, AR_Q4},
  {"(1)", CLR_Q4, ROW_ALIAS23, CHK_BETTER, 0, AR_Q4},
  {"(1)", CLR_Q4, ROW_IMD, CHK_BETTER, 0, AR_Q4},
  /* (2) quality 10, float32: every quality row <= -140 dB */
  {"(2)", CLR_Q10, ROW_THDN, CHK_LE, -140.0, NULL},
  {"(2)", CLR_Q10, ROW_ALIAS, CHK_LE, -140.0, NULL},
  {"(2)", CLR_Q10, ROW_IMAGES, CHK_LE, -140.0, NULL},
  /* (3) quality 10, float64: libsoxr VHQ's class */
  {"(3)", CLR_Q10_F64, ROW_THDN, CHK_LE, -185.0, NULL},
  {"(3)", CLR_Q10_F64, ROW_ALIAS, CHK_LE, -185.0, NULL},
  {"(3)", CLR_Q10_F64, ROW_IMAGES, CHK_LE, -185.0, NULL},
  {"(3)", CLR_Q10_F64, ROW_GAIN, CHK_LE, 0.001, NULL},
  /* (4) exact output length: ceil (44100 * 48000 / 44100) */
  {"(4)", CLR_Q4, ROW_FRAMES, CHK_EQ, 48000, NULL},
  {"(4)", CLR_Q10, ROW_FRAMES, CHK_EQ, 48000, NULL},
  /* (5) time alignment within 0.001 output samples */
  {"(5)", CLR_Q4, ROW_OFFSET, CHK_LE, 0.001, NULL},
  {"(5)", CLR_Q10, ROW_OFFSET, CHK_LE, 0.001, NULL},
  /* (6) stereo works (channels kept apart, same quality as the stock one) */
  {"(6)", CLR_Q4, ROW_STEREO, CHK_BETTER, 0, AR_Q4},
  /* (7) non-interleaved audio meets the same targets */
  {"(7)", "clresample:10:F32LE:ni", ROW_THDN, CHK_LE, -140.0, NULL},
  {"(7)", "clresample:10:F32LE:ni", ROW_ALIAS, CHK_LE, -140.0, NULL},
  {"(7)", "clresample:10:F32LE:ni", ROW_IMAGES, CHK_LE, -140.0, NULL},
  {"(7)", "clresample:10:F64LE:ni", ROW_THDN, CHK_LE, -185.0, NULL},
  {"(7)", "clresample:10:F64LE:ni", ROW_ALIAS, CHK_LE, -185.0, NULL},
  {"(7)", "clresample:10:F64LE:ni", ROW_IMAGES, CHK_LE, -185.0, NULL},
  /* (8) integer formats: S32 keeps the float32 class (its input is exact
   * to 2^-31, far below the targets); S16 is bounded by its own rounding
   * (about -94 dB) but still beats the stock element in the same format */
  {"(8)", "clresample:10:S32LE", ROW_THDN, CHK_LE, -140.0, NULL},
  {"(8)", "clresample:10:S32LE", ROW_ALIAS, CHK_LE, -140.0, NULL},
  {"(8)", "clresample:10:S32LE", ROW_IMAGES, CHK_LE, -140.0, NULL},
  {"(8)", "clresample:4:S16LE:ni", ROW_THDN, CHK_BETTER, 0,
      "audioresample:4:S16LE"},
  {"(8)", "clresample:4:S16LE:ni", ROW_ALIAS, CHK_BETTER, 0,
      "audioresample:4:S16LE"},
  {"(8)", "clresample:4:S16LE:ni", ROW_IMAGES, CHK_BETTER, 0,
      "audioresample:4:S16LE"},
};

/* ------------------------------------------------------------------------ */
/* contestants and results                                                   */

typedef enum
{
  KIND_CLR,
  KIND_AR,
  KIND_SOXR,
} Kind;

typedef struct
{
  char *key;
  double value;
} Detail;

typedef struct
{
  gboolean measured;
  double value;                 /* NAN: n/a */
  char *note;
  GArray *details;              /* of Detail */
} Result;

typedef struct
{
  char *name;
  Kind kind;
  int quality;
  double cutoff;                /* clresample's; 0: the quality's */
  const char *phase;            /* clresample's phase's nick; NULL linear */
  unsigned long soxr_phase;     /* libsoxr's phase flags */
  GstAudioFormat format;
  gboolean planar;
  unsigned long soxr_recipe;
  gboolean soxr_f32;
  char *device_name;
  char *refused;                /* set once refused: later runs skip */
  Result res[N_ROWS];
} Contestant;

typedef struct
{
  double *data;                 /* interleaved, frames * channels */
  gsize frames;
  guint channels;
  GstClockTime first_pts;
  double seconds;               /* wall clock, first push to last output */
  double latency_s;             /* what the element reported; NAN: none */
} RunOut;

typedef struct
{
  GPtrArray *contestants;
  guint metrics;
  gchar *dump_dir;
  gchar *device;
  gint buffer_frames;
  gint speed_runs;
  gdouble speed_seconds;
  gboolean verbose;
  GstElement *keeper;           /* holds the OpenCL device between runs */
} Ctx;

static void
result_set (Contestant * c, Row r, double value, const char *note)
{
  Result *res = &c->res[r];

  res->measured = TRUE;
  res->value = value;
  g_free (res->note);
  res->note = note ? g_strdup (note) : NULL;
}

static void
result_detail (Contestant * c, Row r, const char *key, double value)
{
  Detail d;

  if (!c->res[r].details)
    c->res[r].details = g_array_new (FALSE, FALSE, sizeof (Detail));
  d.key = g_strdup (key);
  d.value = value;
  g_array_append_val (c->res[r].details, d);
}

static void
run_out_clear (RunOut * o)
{
  g_free (o->data);
  memset (o, 0, sizeof (*o));
}

static const char *
format_short (GstAudioFormat f)
{
  return gst_audio_format_to_string (f);
}

static gboolean
format_supported_here (GstAudioFormat f)
{
  return f == GST_AUDIO_FORMAT_F32LE || f == GST_AUDIO_FORMAT_F64LE
      || f == GST_AUDIO_FORMAT_S16LE || f == GST_AUDIO_FORMAT_S32LE
      || f == GST_AUDIO_FORMAT_S24_32LE;
}

/* Parses one contestant spec, expanding quality ranges; appends to arr. */
static gboolean
parse_contestant (const char *spec, GPtrArray * arr)
{
  gchar **p = g_strsplit (spec, ":", -1);
  guint n = g_strv_length (p);
  gboolean ok = FALSE;

  if (n >= 1 && (!strcmp (p[0], "clresample") || !strcmp (p[0], "clr")
          || !strcmp (p[0], "audioresample") || !strcmp (p[0], "ar"))) {
    Kind kind = (p[0][0] == 'c') ? KIND_CLR : KIND_AR;
    int q0 = 4, q1 = 4, q;
    GstAudioFormat fmt = GST_AUDIO_FORMAT_F32LE;
    gboolean planar = FALSE;
    double cutoff = 0.0;
    const char *phase = NULL;
    guint i;

    if (n >= 2 && *p[1]) {
      if (!strcmp (p[1], "all")) {
        q0 = 0;
        q1 = 10;
      } else if (sscanf (p[1], "%d-%d", &q0, &q1) == 2) {
      } else if (sscanf (p[1], "%d", &q0) == 1) {
        q1 = q0;
      } else
        goto out;
    }
    if (q0 < 0 || q1 > 10 || q0 > q1)
      goto out;
    if (n >= 3 && *p[2]) {
      gchar *up = g_ascii_strup (p[2], -1);
      if (!g_str_has_suffix (up, "LE") && !g_str_has_suffix (up, "BE")) {
        gchar *t = g_strconcat (up, "LE", NULL);
        g_free (up);
        up = t;
      }
      fmt = gst_audio_format_from_string (up);
      g_free (up);
      if (!format_supported_here (fmt))
        goto out;
    }
    for (i = 3; i < n; i++) {
      if (!strcmp (p[i], "ni") || !strcmp (p[i], "non-interleaved"))
        planar = TRUE;
      else if (kind == KIND_CLR && sscanf (p[i], "cutoff=%lf", &cutoff) == 1)
        continue;
      else if (kind == KIND_CLR && !strcmp (p[i], "phase=minimum"))
        phase = "minimum";
      else if (kind == KIND_CLR && !strcmp (p[i], "phase=intermediate"))
        phase = "intermediate";
      else if (strcmp (p[i], "i") && strcmp (p[i], "interleaved"))
        goto out;
    }
    for (q = q0; q <= q1; q++) {
      Contestant *c = g_new0 (Contestant, 1);
      c->kind = kind;
      c->quality = q;
      c->cutoff = cutoff;
      c->phase = phase;
      c->format = fmt;
      c->planar = planar;
      c->name = g_strdup_printf ("%s:%d:%s%s%s",
          kind == KIND_CLR ? "clresample" : "audioresample", q,
          format_short (fmt), planar ? ":ni" : "", cutoff > 0 ? ":cutoff=" :
          "");
      if (cutoff > 0) {
        gchar *named = g_strdup_printf ("%s%g", c->name, cutoff);
        g_free (c->name);
        c->name = named;
      }
      if (phase) {
        gchar *named = g_strconcat (c->name, ":phase=", phase, NULL);
        g_free (c->name);
        c->name = named;
      }
      g_ptr_array_add (arr, c);
    }
    ok = TRUE;
  } else if (n >= 1 && !strcmp (p[0], "soxr")) {
    static const struct
    {
      const char *name;
      unsigned long recipe;
    } recipes[] = {
      {"qq", SOXR_QQ}, {"lq", SOXR_LQ}, {"mq", SOXR_MQ}, {"hq", SOXR_HQ},
      {"vhq", SOXR_VHQ}, {"16", SOXR_16_BITQ}, {"20", SOXR_20_BITQ},
      {"24", SOXR_24_BITQ}, {"28", SOXR_28_BITQ}, {"32", SOXR_32_BITQ},
    };
    Contestant *c;
    const char *rn = n >= 2 ? p[1] : "vhq";
    const char *phase_name = "";
    unsigned long phase = SOXR_LINEAR_PHASE;
    guint i, k;
    gboolean f32 = FALSE;

    for (i = 0; i < G_N_ELEMENTS (recipes); i++)
      if (!g_ascii_strcasecmp (rn, recipes[i].name))
        break;
    if (i == G_N_ELEMENTS (recipes))
      goto out;
    for (k = 2; k < n; k++) {
      if (!g_ascii_strcasecmp (p[k], "F32LE") || !g_ascii_strcasecmp (p[k],
              "F32"))
        f32 = TRUE;
      else if (!strcmp (p[k], "min")) {
        phase = SOXR_MINIMUM_PHASE;
        phase_name = ":min";
      } else if (!strcmp (p[k], "int")) {
        phase = SOXR_INTERMEDIATE_PHASE;
        phase_name = ":int";
      } else if (g_ascii_strcasecmp (p[k], "F64LE")
          && g_ascii_strcasecmp (p[k], "F64"))
        goto out;
    }
    c = g_new0 (Contestant, 1);
    c->kind = KIND_SOXR;
    c->soxr_recipe = recipes[i].recipe;
    c->soxr_phase = phase;
    c->soxr_f32 = f32;
    c->format = f32 ? GST_AUDIO_FORMAT_F32LE : GST_AUDIO_FORMAT_F64LE;
    c->name = g_strdup_printf ("soxr:%s%s%s", recipes[i].name, phase_name,
        f32 ? ":F32LE" : "");
    g_ptr_array_add (arr, c);
    ok = TRUE;
  }
out:
  g_strfreev (p);
  return ok;
}

static Contestant *
find_contestant (Ctx * ctx, const char *name)
{
  guint i;

  for (i = 0; i < ctx->contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx->contestants, i);
    if (!strcmp (c->name, name))
      return c;
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* sample conversion                                                         */

static gint64
quantize (double v, int bits)
{
  double s = nearbyint (ldexp (v, bits));
  double hi = ldexp (1.0, bits) - 1.0, lo = -ldexp (1.0, bits);

  if (s > hi)
    s = hi;
  if (s < lo)
    s = lo;
  return (gint64) s;
}

static void
put_sample (guint8 * p, GstAudioFormat fmt, double v)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F32LE:
      GST_WRITE_FLOAT_LE (p, (float) v);
      break;
    case GST_AUDIO_FORMAT_F64LE:
      GST_WRITE_DOUBLE_LE (p, v);
      break;
    case GST_AUDIO_FORMAT_S16LE:
      GST_WRITE_UINT16_LE (p, (guint16) (gint16) quantize (v, 15));
      break;
    case GST_AUDIO_FORMAT_S32LE:
      GST_WRITE_UINT32_LE (p, (guint32) (gint32) quantize (v, 31));
      break;
    case GST_AUDIO_FORMAT_S24_32LE:
      GST_WRITE_UINT32_LE (p, (guint32) (gint32) quantize (v, 23));
      break;
    default:
      g_assert_not_reached ();
  }
}

static double
get_sample (const guint8 * p, GstAudioFormat fmt)
{
  switch (fmt) {
    case GST_AUDIO_FORMAT_F32LE:
      return GST_READ_FLOAT_LE (p);
    case GST_AUDIO_FORMAT_F64LE:
      return GST_READ_DOUBLE_LE (p);
    case GST_AUDIO_FORMAT_S16LE:
      return (gint16) GST_READ_UINT16_LE (p) / 32768.0;
    case GST_AUDIO_FORMAT_S32LE:
      return (gint32) GST_READ_UINT32_LE (p) / 2147483648.0;
    case GST_AUDIO_FORMAT_S24_32LE:{
      gint32 v = (gint32) (GST_READ_UINT32_LE (p) << 8) >> 8;
      return v / 8388608.0;
    }
    default:
      g_assert_not_reached ();
  }
  return 0.0;
}

/* ------------------------------------------------------------------------ */
/* running a GStreamer pipeline                                              */

static GstAudioInfo
make_info (const Contestant * c, gint rate, guint channels)
{
  GstAudioInfo info;

  gst_audio_info_init (&info);
  gst_audio_info_set_format (&info, c->format, rate, channels, NULL);
  info.layout = c->planar ? GST_AUDIO_LAYOUT_NON_INTERLEAVED :
      GST_AUDIO_LAYOUT_INTERLEAVED;
  return info;
}

static GstBuffer *
make_buffer (const Contestant * c, GstAudioInfo * info, const double *in,
    guint ch, gsize off, gsize n, gint rate)
{
  gint bps = GST_AUDIO_INFO_WIDTH (info) / 8;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, n * ch * bps, NULL);
  GstMapInfo map;
  gsize i;
  guint k;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < n; i++)
    for (k = 0; k < ch; k++) {
      gsize pos = c->planar ? (k * n + i) : (i * ch + k);
      put_sample (map.data + pos * bps, c->format, in[(off + i) * ch + k]);
    }
  gst_buffer_unmap (buf, &map);
  if (c->planar)
    gst_buffer_add_audio_meta (buf, info, n, NULL);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale_int (off, GST_SECOND, rate);
  GST_BUFFER_DURATION (buf) =
      gst_util_uint64_scale_int (off + n, GST_SECOND, rate) -
      GST_BUFFER_PTS (buf);
  GST_BUFFER_OFFSET (buf) = off;
  GST_BUFFER_OFFSET_END (buf) = off + n;
  if (off == 0)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

static GstElement *
make_resampler (Ctx * ctx, const Contestant * c)
{
  GstElement *e = gst_element_factory_make (c->kind == KIND_CLR ?
      "clresample" : "audioresample", NULL);

  if (!e)
    return NULL;
  g_object_set (e, "quality", c->quality, NULL);
  if (c->kind == KIND_CLR && c->cutoff > 0)
    g_object_set (e, "cutoff", c->cutoff, NULL);
  if (c->kind == KIND_CLR && c->phase)
    gst_util_set_object_arg (G_OBJECT (e), "phase", c->phase);
  if (c->kind == KIND_CLR && ctx->device)
    g_object_set (e, "device", ctx->device, NULL);
  return e;
}

/* Pops the first error on the bus, if any, into *error. */
static gboolean
bus_error (GstBus * bus, const Contestant * c, gchar ** error,
    gboolean * refused)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *e = NULL;
  gchar *dbg = NULL;

  if (!m)
    return FALSE;
  gst_message_parse_error (m, &e, &dbg);
  if ((dbg && strstr (dbg, "not-negotiated"))
      || g_error_matches (e, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION)) {
    gboolean own = g_error_matches (e, GST_CORE_ERROR,
        GST_CORE_ERROR_NEGOTIATION);
    *error = g_strdup_printf ("%s%s not supported by element "
        "(not-negotiated%s%s)", format_short (c->format),
        c->planar ? " non-interleaved" : "", own ? ": " : "",
        own ? e->message : "");
    *refused = TRUE;
  } else {
    *error = g_strdup_printf ("%s (%s)", e->message, dbg ? dbg : "");
  }
  g_error_free (e);
  g_free (dbg);
  gst_message_unref (m);
  return TRUE;
}

static gboolean
run_gst (Ctx * ctx, Contestant * c, const double *in, guint ch, gsize frames,
    gint in_rate, gint out_rate, RunOut * o, gchar ** error,
    gboolean * refused)
{
  GstAudioInfo iinfo = make_info (c, in_rate, ch);
  GstAudioInfo oinfo = make_info (c, out_rate, ch), got;
  GstElement *pipeline, *src, *rs, *cf, *sink;
  GstCaps *icaps, *ocaps;
  GPtrArray *bufs, *samples;
  GstBus *bus;
  gint64 t0, t1, deadline;
  gsize off, total = 0, pos = 0;
  gboolean ok = FALSE, have_info = FALSE;
  guint i;

  *refused = FALSE;
  memset (o, 0, sizeof (*o));
  o->latency_s = NAN;
  rs = make_resampler (ctx, c);
  if (!rs) {
    *error = g_strdup_printf ("no element '%s' (GST_PLUGIN_PATH?)",
        c->kind == KIND_CLR ? "clresample" : "audioresample");
    *refused = TRUE;
    return FALSE;
  }
  pipeline = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("appsrc", NULL);
  cf = gst_element_factory_make ("capsfilter", NULL);
  sink = gst_element_factory_make ("appsink", NULL);
  icaps = gst_audio_info_to_caps (&iinfo);
  ocaps = gst_audio_info_to_caps (&oinfo);
  g_object_set (src, "caps", icaps, "format", GST_FORMAT_TIME, "is-live",
      FALSE, "max-bytes", (guint64) 0, "block", FALSE, "emit-signals", FALSE,
      NULL);
  g_object_set (cf, "caps", ocaps, NULL);
  g_object_set (sink, "sync", FALSE, "emit-signals", FALSE, "max-buffers", 0,
      "enable-last-sample", FALSE, NULL);
  gst_caps_unref (icaps);
  gst_caps_unref (ocaps);
  gst_bin_add_many (GST_BIN (pipeline), src, rs, cf, sink, NULL);
  if (!gst_element_link_many (src, rs, cf, sink, NULL)) {
    /* the pad templates already exclude the format or layout */
    *error = g_strdup_printf ("%s%s not supported by element (caps refused "
        "at link time)", format_short (c->format),
        c->planar ? " non-interleaved" : "");
    *refused = TRUE;
    gst_object_unref (pipeline);
    return FALSE;
  }

  /* all input buffers are made before the clock starts */
  bufs = g_ptr_array_new ();
  for (off = 0; off < frames; off += ctx->buffer_frames) {
    gsize n = MIN ((gsize) ctx->buffer_frames, frames - off);
    g_ptr_array_add (bufs, make_buffer (c, &iinfo, in, ch, off, n, in_rate));
  }
  samples = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_sample_unref);

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *m;
    bus = gst_element_get_bus (pipeline);
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (m) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      *error = g_strdup_printf ("could not start: %s", e->message);
      g_error_free (e);
      gst_message_unref (m);
    } else
      *error = g_strdup ("could not start the pipeline");
    *refused = TRUE;
    gst_object_unref (bus);
    g_ptr_array_free (bufs, TRUE);
    goto done;
  }
  bus = gst_element_get_bus (pipeline);

  t0 = g_get_monotonic_time ();
  for (i = 0; i < bufs->len; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src), g_ptr_array_index (bufs, i));
  g_ptr_array_free (bufs, TRUE);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  deadline = t0 + (gint64) RUN_TIMEOUT_S * G_USEC_PER_SEC;
  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_MSECOND);
    gboolean eos = FALSE;

    if (s) {
      g_ptr_array_add (samples, s);
      continue;
    }
    /* a source that fails to negotiate posts its error and then still sends
     * EOS downstream: look at the bus after EOS too */
    eos = gst_app_sink_is_eos (GST_APP_SINK (sink));
    if (bus_error (bus, c, error, refused)) {
      gst_object_unref (bus);
      goto done;
    }
    if (eos)
      break;
    if (g_get_monotonic_time () > deadline) {
      *error = g_strdup ("timed out");
      gst_object_unref (bus);
      goto done;
    }
  }
  t1 = g_get_monotonic_time ();
  gst_object_unref (bus);
  o->seconds = (t1 - t0) / 1e6;
  /* the element's own latency: its answer on its source pad, upstream
   * (a non-live appsrc) adding none */
  {
    GstQuery *q = gst_query_new_latency ();
    GstPad *pad = gst_element_get_static_pad (rs, "src");
    GstClockTime min = 0;

    if (gst_pad_query (pad, q)) {
      gst_query_parse_latency (q, NULL, &min, NULL);
      o->latency_s = min / 1e9;
    }
    gst_query_unref (q);
    gst_object_unref (pad);
  }

  if (c->kind == KIND_CLR && !c->device_name)
    g_object_get (rs, "device-name", &c->device_name, NULL);

  /* convert the output back to double */
  for (i = 0; i < samples->len; i++) {
    GstBuffer *b = gst_sample_get_buffer (g_ptr_array_index (samples, i));
    total += gst_buffer_get_size (b);
  }
  o->channels = ch;
  o->first_pts = GST_CLOCK_TIME_NONE;
  o->data = g_new0 (double, total / (GST_AUDIO_INFO_BPF (&oinfo) / ch) + 1);
  for (i = 0; i < samples->len; i++) {
    GstSample *s = g_ptr_array_index (samples, i);
    GstBuffer *b = gst_sample_get_buffer (s);
    GstAudioBuffer ab;
    gint bps;
    gsize j;
    guint k;

    if (!have_info) {
      if (!gst_audio_info_from_caps (&got, gst_sample_get_caps (s))
          || GST_AUDIO_INFO_FORMAT (&got) != c->format
          || GST_AUDIO_INFO_RATE (&got) != out_rate
          || GST_AUDIO_INFO_CHANNELS (&got) != (gint) ch
          || GST_AUDIO_INFO_LAYOUT (&got) != GST_AUDIO_INFO_LAYOUT (&oinfo)) {
        *error = g_strdup ("unexpected output caps");
        goto done;
      }
      have_info = TRUE;
      o->first_pts = GST_BUFFER_PTS (b);
    }
    if (!gst_audio_buffer_map (&ab, &got, b, GST_MAP_READ)) {
      *error = g_strdup ("could not map an output buffer");
      goto done;
    }
    bps = GST_AUDIO_INFO_WIDTH (&got) / 8;
    for (j = 0; j < ab.n_samples; j++)
      for (k = 0; k < ch; k++) {
        const guint8 *p = c->planar ?
            (const guint8 *) ab.planes[k] + j * bps :
            (const guint8 *) ab.planes[0] + (j * ch + k) * bps;
        o->data[(pos + j) * ch + k] = get_sample (p, c->format);
      }
    pos += ab.n_samples;
    gst_audio_buffer_unmap (&ab);
  }
  o->frames = pos;
  ok = TRUE;

done:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_ptr_array_free (samples, TRUE);
  if (!ok)
    run_out_clear (o);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* running libsoxr                                                           */

static gboolean
run_soxr (Contestant * c, const double *in, guint ch, gsize frames,
    gint in_rate, gint out_rate, RunOut * o, gchar ** error)
{
  soxr_datatype_t t = c->soxr_f32 ? SOXR_FLOAT32_I : SOXR_FLOAT64_I;
  soxr_io_spec_t io = soxr_io_spec (t, t);
  soxr_quality_spec_t q = soxr_quality_spec (c->soxr_recipe | c->soxr_phase,
      0);
  soxr_runtime_spec_t rt = soxr_runtime_spec (1);
  gsize bps = c->soxr_f32 ? 4 : 8, cap, pos = 0, done_in = 0, i;
  const void *ibuf = in;
  float *fin = NULL;
  guint8 *obuf;
  soxr_error_t e = NULL;
  soxr_t s;
  gint64 t0, t1;

  memset (o, 0, sizeof (*o));
  o->latency_s = NAN;
  if (c->soxr_f32) {
    fin = g_new (float, frames * ch);
    for (i = 0; i < frames * ch; i++)
      fin[i] = (float) in[i];
    ibuf = fin;
  }
  cap = (gsize) ceil ((double) frames * out_rate / in_rate) + 65536;
  obuf = g_malloc (cap * ch * bps);

  t0 = g_get_monotonic_time ();
  s = soxr_create (in_rate, out_rate, ch, &e, &io, &q, &rt);
  if (!s || e) {
    *error = g_strdup_printf ("soxr_create: %s", e ? e : "failed");
    g_free (obuf);
    g_free (fin);
    return FALSE;
  }
  while (done_in < frames) {
    size_t idone = 0, odone = 0;
    if (cap - pos < 4096) {
      cap *= 2;
      obuf = g_realloc (obuf, cap * ch * bps);
    }
    e = soxr_process (s, (const guint8 *) ibuf + done_in * ch * bps,
        frames - done_in, &idone, obuf + pos * ch * bps, cap - pos, &odone);
    if (e)
      break;
    done_in += idone;
    pos += odone;
  }
  while (!e) {
    size_t odone = 0;
    if (cap - pos < 4096) {
      cap *= 2;
      obuf = g_realloc (obuf, cap * ch * bps);
    }
    e = soxr_process (s, NULL, 0, NULL, obuf + pos * ch * bps, cap - pos,
        &odone);
    pos += odone;
    if (odone == 0)
      break;
  }
  soxr_delete (s);
  t1 = g_get_monotonic_time ();
  g_free (fin);
  if (e) {
    *error = g_strdup_printf ("soxr_process: %s", e);
    g_free (obuf);
    return FALSE;
  }
  o->seconds = (t1 - t0) / 1e6;
  o->frames = pos;
  o->channels = ch;
  o->first_pts = 0;
  o->data = g_new (double, pos * ch + 1);
  for (i = 0; i < pos * ch; i++)
    o->data[i] = c->soxr_f32 ? ((float *) obuf)[i] : ((double *) obuf)[i];
  g_free (obuf);
  return TRUE;
}

/* Runs contestant c on in (interleaved doubles). On failure *note gets the
 * reason (free it). A refused format/layout is remembered so that later
 * runs of the same contestant fail at once with the same reason. */
static gboolean
run (Ctx * ctx, Contestant * c, const double *in, guint ch, gsize frames,
    gint in_rate, gint out_rate, RunOut * o, gchar ** note)
{
  gboolean refused = FALSE, ok;
  gchar *err = NULL;

  memset (o, 0, sizeof (*o));
  o->latency_s = NAN;
  if (c->refused) {
    *note = g_strdup (c->refused);
    return FALSE;
  }
  if (c->kind == KIND_SOXR)
    ok = run_soxr (c, in, ch, frames, in_rate, out_rate, o, &err);
  else
    ok = run_gst (ctx, c, in, ch, frames, in_rate, out_rate, o, &err,
        &refused);
  if (!ok) {
    *note = g_strdup_printf ("n/a: %s", err);
    if (refused)
      c->refused = g_strdup (*note);
    g_free (err);
  }
  if (ctx->verbose && ok)
    g_printerr ("  %-24s %6d -> %6d Hz, %u ch: %" G_GSIZE_FORMAT " -> %"
        G_GSIZE_FORMAT " frames, %.3f s\n", c->name, in_rate, out_rate, ch,
        frames, o->frames, o->seconds);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* dumps for plotting                                                        */

static gchar *
file_safe (const char *s)
{
  gchar *r = g_strdup (s), *p;

  for (p = r; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '.')
      *p = '_';
  return r;
}

/* Writes DIR/<metric>-<tag>-<contestant>.raw (the array, float64 LE) and a
 * .json describing it. extra_json: more "key": value pairs (may be NULL). */
static void
dump_array (Ctx * ctx, Contestant * c, const char *metric, const char *tag,
    const double *data, gsize frames, guint columns, gint in_rate,
    gint out_rate, gsize in_frames, GstClockTime first_pts,
    const char *signal, const char *extra_json)
{
  gchar *cn, *base, *raw, *json, *txt;
  GError *err = NULL;

  if (!ctx->dump_dir)
    return;
  cn = file_safe (c->name);
  base = g_strdup_printf ("%s/%s-%s-%s", ctx->dump_dir, metric, tag, cn);
  raw = g_strconcat (base, ".raw", NULL);
  json = g_strconcat (base, ".json", NULL);
  if (!g_file_set_contents (raw, (const gchar *) data,
          frames * columns * sizeof (double), &err)) {
    g_printerr ("dump: %s\n", err->message);
    g_clear_error (&err);
  }
  txt = g_strdup_printf ("{\n  \"contestant\": \"%s\",\n"
      "  \"metric\": \"%s\",\n  \"tag\": \"%s\",\n"
      "  \"file\": \"%s-%s-%s.raw\",\n  \"dtype\": \"float64le\",\n"
      "  \"columns\": %u,\n  \"frames\": %" G_GSIZE_FORMAT ",\n"
      "  \"in_rate\": %d,\n  \"out_rate\": %d,\n  \"in_frames\": %"
      G_GSIZE_FORMAT ",\n  \"first_pts_ns\": %" G_GINT64_FORMAT ",\n"
      "  \"signal\": \"%s\"%s%s\n}\n", c->name, metric, tag, metric, tag, cn,
      columns, frames, in_rate, out_rate, in_frames,
      first_pts == GST_CLOCK_TIME_NONE ? (gint64) - 1 : (gint64) first_pts,
      signal, extra_json ? ",\n  " : "", extra_json ? extra_json : "");
  if (!g_file_set_contents (json, txt, -1, &err)) {
    g_printerr ("dump: %s\n", err->message);
    g_clear_error (&err);
  }
  g_free (txt);
  g_free (cn);
  g_free (base);
  g_free (raw);
  g_free (json);
}

static void
dump_run (Ctx * ctx, Contestant * c, const char *metric, const char *tag,
    const RunOut * o, gint in_rate, gint out_rate, gsize in_frames,
    const char *signal)
{
  dump_array (ctx, c, metric, tag, o->data, o->frames, o->channels, in_rate,
      out_rate, in_frames, o->first_pts, signal, NULL);
}

/* ------------------------------------------------------------------------ */
/* signals                                                                   */

typedef struct
{
  ClrFreq f;
  double amp;
  double phi;
} Tone;

/* frames x ch, the tones of channel k being t[k * nt .. k * nt + nt) */
static double *
make_tones (gsize frames, guint ch, gint fs, const Tone * t, int nt)
{
  double *x = g_new0 (double, frames * ch);
  guint k;
  int j;

  for (k = 0; k < ch; k++)
    for (j = 0; j < nt; j++)
      clr_tone_add (x + k, frames, ch, fs, t[k * nt + j].f, t[k * nt + j].amp,
          t[k * nt + j].phi, 0);
  return x;
}

static Tone
tone (double hz, double db, double phi)
{
  Tone t;

  t.f = clr_freq_from_double (hz);
  t.amp = from_db (db);
  t.phi = phi;
  return t;
}

/* Runs one mono tone set; on failure stores the note in row r (if r >= 0). */
static gboolean
run_tones (Ctx * ctx, Contestant * c, const Tone * t, int nt, guint ch,
    gsize frames, gint in_rate, gint out_rate, RunOut * o, gchar ** note)
{
  double *x = make_tones (frames, ch, in_rate, t, nt);
  gboolean ok = run (ctx, c, x, ch, frames, in_rate, out_rate, o, note);

  g_free (x);
  return ok;
}

static gboolean
steady (const RunOut * o, gint fs, size_t * start, size_t * len,
    gchar ** note)
{
  if (clr_steady_range (o->frames, fs, SKIP_S, start, len) < 0) {
    *note = g_strdup_printf ("n/a: output too short (%" G_GSIZE_FORMAT
        " frames)", o->frames);
    return FALSE;
  }
  return TRUE;
}

static void
fail_rows (Contestant * c, const Row * r, int nr, gchar * note)
{
  int i;

  for (i = 0; i < nr; i++)
    result_set (c, r[i], NAN, note);
  g_free (note);
}

/* ------------------------------------------------------------------------ */
/* metrics                                                                   */

/* a. THD+N of 1 kHz at -1 dBFS, 44.1 -> 48 kHz, 1 s; f. frames out for
 * 44100 frames in (the same run) */
static void
metric_thdn_frames (Ctx * ctx, Contestant * c)
{
  Tone t = tone (1000, -1.0, 0.3);
  RunOut o;
  gchar *note = NULL;
  size_t s, l;
  double amp, thd;

  if (!run_tones (ctx, c, &t, 1, 1, 44100, 44100, 48000, &o, &note)) {
    Row r[2] = { ROW_THDN, ROW_FRAMES };
    fail_rows (c, r, 2, note);
    return;
  }
  if (ctx->metrics & MET_F) {
    result_set (c, ROW_FRAMES, (double) o.frames, NULL);
    result_detail (c, ROW_FRAMES, "expected", 48000);
    result_detail (c, ROW_FRAMES, "first_pts_ns", o.first_pts ==
        GST_CLOCK_TIME_NONE ? -1.0 : (double) o.first_pts);
  }
  if (ctx->metrics & MET_A) {
    if (!steady (&o, 48000, &s, &l, &note)) {
      result_set (c, ROW_THDN, NAN, note);
      g_free (note);
    } else {
      thd = clr_thdn_db (o.data, 1, s, l, 48000, t.f, &amp);
      result_set (c, ROW_THDN, thd, NULL);
      result_detail (c, ROW_THDN, "fit_gain_db", clr_db (amp / t.amp));
    }
  }
  dump_run (ctx, c, "thdn", "1000Hz-44100to48000", &o, 44100, 48000, 44100,
      "1000 Hz sine, -1 dBFS, phase 0.3 rad");
  run_out_clear (&o);
}

/* j. an impulse (0.5 at frame 22050), 44.1 -> 48 kHz: the energy that
 * comes out before the response's peak, over all of it, within 0.1 s of
 * the peak (dB), and the energy more than 0.25 ms (12 output samples)
 * before the peak (the ringing, the main lobe's rise left out); k. the
 * latency the element reports, in ms (NAN for libsoxr, a library: where
 * its output lands is row g) */
static void
metric_impulse (Ctx * ctx, Contestant * c)
{
  const gsize frames = 44100, at = 22050, span = 4800;
  double *x = g_new0 (double, frames), before = 0.0, all = 0.0, peak = 0.0;
  double far = 0.0;
  gchar *note = NULL;
  gsize m, top = 0, lo, hi;
  RunOut o;

  x[at] = 0.5;
  if (!run (ctx, c, x, 1, frames, 44100, 48000, &o, &note)) {
    Row r[3] = { ROW_PRERING, ROW_RINGING, ROW_LATENCY };
    g_free (x);
    fail_rows (c, r, 3, note);
    return;
  }
  for (m = 0; m < o.frames; m++)
    if (fabs (o.data[m]) > peak) {
      peak = fabs (o.data[m]);
      top = m;
    }
  lo = top > span ? top - span : 0;
  hi = MIN (o.frames, top + span);
  for (m = lo; m < hi; m++) {
    all += o.data[m] * o.data[m];
    if (m < top)
      before += o.data[m] * o.data[m];
    if (m + 12 < top)
      far += o.data[m] * o.data[m];
  }
  result_set (c, ROW_PRERING, 10.0 * log10 (MAX (before / all, 1e-30)),
      NULL);
  /* none at all reads as -300 dB */
  result_set (c, ROW_RINGING, 10.0 * log10 (MAX (far / all, 1e-30)), NULL);
  result_detail (c, ROW_PRERING, "peak_frame", (double) top);
  result_detail (c, ROW_PRERING, "peak_late_frames", (double) top - 24000.0);
  result_set (c, ROW_LATENCY, o.latency_s * 1000.0, isnan (o.latency_s) ?
      "n/a: no latency query" : NULL);
  dump_run (ctx, c, "impulse", "44100to48000", &o, 44100, 48000, frames,
      "impulse of 0.5 at input frame 22050 (output time 24000)");
  run_out_clear (&o);
  g_free (x);
}

/* b. aliases: 23, 25, 30, 40 kHz alone at -1 dBFS, 96 -> 44.1 kHz; output
 * RMS of the steady part relative to the input tone's RMS */
static void
metric_alias (Ctx * ctx, Contestant * c)
{
  static const int freqs[] = { 23000, 25000, 30000, 40000 };
  double worst = -INFINITY;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (freqs); i++) {
    Tone t = tone (freqs[i], -1.0, 0.1 * i);
    RunOut o;
    gchar *note = NULL, *key, *tag;
    size_t s, l;
    double db;

    if (!run_tones (ctx, c, &t, 1, 1, 96000, 96000, 44100, &o, &note)
        || !steady (&o, 44100, &s, &l, &note)) {
      result_set (c, ROW_ALIAS, NAN, note);
      g_free (note);
      run_out_clear (&o);
      return;
    }
    db = clr_db (clr_rms (o.data, 1, s, l) / (t.amp / G_SQRT2));
    key = g_strdup_printf ("%dHz", freqs[i]);
    result_detail (c, ROW_ALIAS, key, db);
    tag = g_strdup_printf ("%dHz-96000to44100", freqs[i]);
    dump_run (ctx, c, "alias", tag, &o, 96000, 44100, 96000,
        "sine, -1 dBFS");
    g_free (tag);
    g_free (key);
    worst = MAX (worst, db);
    run_out_clear (&o);
  }
  result_set (c, ROW_ALIAS, worst, NULL);
}

/* c. images: 15 kHz at -1 dBFS, 44.1 -> 192 kHz; energy above 24 kHz in a
 * Kaiser-windowed (beta 38, sidelobes ~-290 dB) spectrum of the steady part,
 * relative to the tone's power */
static void
metric_images (Ctx * ctx, Contestant * c)
{
  Tone t = tone (15000, -1.0, 0.2);
  RunOut o;
  gchar *note = NULL;
  size_t s, l, n, start;
  double *ps, p_img, p_tone;

  if (!run_tones (ctx, c, &t, 1, 1, 44100, 44100, 192000, &o, &note)
      || !steady (&o, 192000, &s, &l, &note)) {
    result_set (c, ROW_IMAGES, NAN, note);
    g_free (note);
    run_out_clear (&o);
    return;
  }
  n = clr_pow2_floor (l);
  start = s + (l - n) / 2;
  ps = clr_power_spectrum (o.data, 1, start, n, CLR_SPECTRUM_BETA);
  p_img = clr_band_power (ps, n, 192000, 24000, 96000);
  p_tone = clr_band_power (ps, n, 192000, 14000, 16000);
  result_set (c, ROW_IMAGES, 10.0 * log10 (p_img / (t.amp * t.amp / 2)),
      NULL);
  result_detail (c, ROW_IMAGES, "tone_db",
      10.0 * log10 (p_tone / (t.amp * t.amp / 2)));
  result_detail (c, ROW_IMAGES, "fft_size", (double) n);
  dump_run (ctx, c, "images", "15000Hz-44100to192000", &o, 44100, 192000,
      44100, "15000 Hz sine, -1 dBFS");
  free (ps);
  run_out_clear (&o);
}

/* d. gain error: tones 100 Hz .. 20 kHz alone at -1 dBFS, 96 -> 44.1 kHz,
 * fitted amplitude vs input amplitude; the row is the largest |dB| */
static void
metric_gain (Ctx * ctx, Contestant * c)
{
  static const int freqs[] =
      { 100, 1000, 5000, 10000, 15000, 18000, 19000, 20000 };
  double worst = 0.0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (freqs); i++) {
    Tone t = tone (freqs[i], -1.0, 0.5);
    RunOut o;
    gchar *note = NULL, *key;
    size_t s, l;
    double amp, db;

    if (!run_tones (ctx, c, &t, 1, 1, 96000, 96000, 44100, &o, &note)
        || !steady (&o, 44100, &s, &l, &note)) {
      result_set (c, ROW_GAIN, NAN, note);
      g_free (note);
      run_out_clear (&o);
      return;
    }
    clr_thdn_db (o.data, 1, s, l, 44100, t.f, &amp);
    db = clr_db (amp / t.amp);
    key = g_strdup_printf ("%dHz", freqs[i]);
    result_detail (c, ROW_GAIN, key, db);
    g_free (key);
    if (fabs (db) > fabs (worst))
      worst = db;
    run_out_clear (&o);
  }
  result_set (c, ROW_GAIN, fabs (worst), NULL);
  result_detail (c, ROW_GAIN, "worst_signed", worst);
}

/* e. a 23 kHz tone at -4 dBFS, 96 -> 44.1 kHz: amplitude of its alias at
 * 21.1 kHz (dBFS); the IMD pair 64.59 Hz -6 dBFS + 6998 Hz -18 dBFS,
 * 44.1 -> 48 kHz: RMS residual after a two-tone fit, relative to a
 * full-scale sine */
static void
metric_e (Ctx * ctx, Contestant * c)
{
  Tone t = tone (23000, -4.0, 0.0);
  Tone pair[2] = { tone (64.59, -6.0, 0.0), tone (6998, -18.0, 1.0) };
  ClrFreq alias = clr_freq_hz (44100 - 23000), fp[2] = { pair[0].f,
    pair[1].f
  };
  ClrToneFit fit[2];
  RunOut o;
  gchar *note = NULL;
  size_t s, l;
  double resid;

  if (!run_tones (ctx, c, &t, 1, 1, 96000, 96000, 44100, &o, &note)
      || !steady (&o, 44100, &s, &l, &note)) {
    result_set (c, ROW_ALIAS23, NAN, note);
    g_clear_pointer (&note, g_free);
  } else {
    clr_fit_tones (o.data, 1, s, l, 44100, &alias, 1, fit, NULL, NULL);
    result_set (c, ROW_ALIAS23, clr_db (fit[0].amp), NULL);
    result_detail (c, ROW_ALIAS23, "total_rms_dbfs",
        clr_db (clr_rms (o.data, 1, s, l) * G_SQRT2));
    dump_run (ctx, c, "alias23", "23000Hz-96000to44100", &o, 96000, 44100,
        96000, "23000 Hz sine, -4 dBFS");
  }
  run_out_clear (&o);

  if (!run_tones (ctx, c, pair, 2, 1, 44100, 44100, 48000, &o, &note)
      || !steady (&o, 48000, &s, &l, &note)) {
    result_set (c, ROW_IMD, NAN, note);
    g_free (note);
  } else {
    clr_fit_tones (o.data, 1, s, l, 48000, fp, 2, fit, NULL, &resid);
    result_set (c, ROW_IMD, clr_db (resid * G_SQRT2), NULL);
    result_detail (c, ROW_IMD, "gain_64.59Hz_db", clr_db (fit[0].amp /
            pair[0].amp));
    result_detail (c, ROW_IMD, "gain_6998Hz_db", clr_db (fit[1].amp /
            pair[1].amp));
    dump_run (ctx, c, "imd", "64.59+6998Hz-44100to48000", &o, 44100, 48000,
        44100, "64.59 Hz -6 dBFS + 6998 Hz -18 dBFS");
  }
  run_out_clear (&o);
}

/* g. time offset by sine fit (1 kHz, -1 dBFS, 1 s) for four rate pairs;
 * the row is the offset of largest magnitude, in output samples */
static void
metric_offset (Ctx * ctx, Contestant * c)
{
  static const int pairs[][2] = {
    {44100, 48000}, {22050, 48000}, {48000, 44100}, {44100, 192000}
  };
  double worst = 0.0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pairs); i++) {
    gint ir = pairs[i][0], or = pairs[i][1];
    Tone t = tone (1000, -1.0, 0.7);
    RunOut o;
    gchar *note = NULL, *key;
    size_t s, l;
    double d;

    if (!run_tones (ctx, c, &t, 1, 1, ir, ir, or, &o, &note)
        || !steady (&o, or, &s, &l, &note)) {
      result_set (c, ROW_OFFSET, NAN, note);
      g_free (note);
      run_out_clear (&o);
      return;
    }
    d = clr_time_offset (o.data, 1, s, l, or, t.f, t.phi, NULL);
    key = g_strdup_printf ("%dto%d", ir, or);
    result_detail (c, ROW_OFFSET, key, d);
    g_free (key);
    if (fabs (d) > fabs (worst))
      worst = d;
    run_out_clear (&o);
  }
  result_set (c, ROW_OFFSET, worst, NULL);
}

/* stereo: 1 kHz left, 2.5 kHz right, 44.1 -> 48 kHz; worst THD+N of the two
 * channels (a swap or a mix shows up as ~0 dB) */
static void
metric_stereo (Ctx * ctx, Contestant * c)
{
  Tone t[2] = { tone (1000, -1.0, 0.3), tone (2500, -1.0, 1.1) };
  RunOut o;
  gchar *note = NULL;
  size_t s, l;
  double l_db, r_db;

  if (!run_tones (ctx, c, t, 1, 2, 44100, 44100, 48000, &o, &note)
      || !steady (&o, 48000, &s, &l, &note)) {
    result_set (c, ROW_STEREO, NAN, note);
    g_free (note);
    run_out_clear (&o);
    return;
  }
  l_db = clr_thdn_db (o.data, 2, s, l, 48000, t[0].f, NULL);
  r_db = clr_thdn_db (o.data + 1, 2, s, l, 48000, t[1].f, NULL);
  result_set (c, ROW_STEREO, MAX (l_db, r_db), NULL);
  result_detail (c, ROW_STEREO, "left_1000Hz", l_db);
  result_detail (c, ROW_STEREO, "right_2500Hz", r_db);
  result_detail (c, ROW_STEREO, "frames", (double) o.frames);
  run_out_clear (&o);
}

/* h. speed: stereo 44.1 -> 48 kHz, ctx->speed_seconds of audio; a 1 s
 * warm-up run first (device, kernel build, page faults), then the best of
 * ctx->speed_runs timed runs, wall clock from the first input buffer to the
 * last output buffer (input made and pipeline started before) */
static void
metric_speed (Ctx * ctx, Contestant * c)
{
  Tone t[2] = { tone (1000, -1.0, 0.3), tone (2500, -1.0, 1.1) };
  gsize frames = (gsize) (ctx->speed_seconds * 44100);
  double *x = make_tones (frames, 2, 44100, t, 1), best = INFINITY;
  RunOut o;
  gchar *note = NULL;
  int i;

  if (!run (ctx, c, x, 2, 44100, 44100, 48000, &o, &note)) {
    result_set (c, ROW_SPEED, NAN, note);
    g_free (note);
    g_free (x);
    return;
  }
  run_out_clear (&o);
  for (i = 0; i < ctx->speed_runs; i++) {
    if (!run (ctx, c, x, 2, frames, 44100, 48000, &o, &note)) {
      result_set (c, ROW_SPEED, NAN, note);
      g_free (note);
      g_free (x);
      return;
    }
    best = MIN (best, o.seconds);
    run_out_clear (&o);
  }
  result_set (c, ROW_SPEED, ctx->speed_seconds / best, NULL);
  result_detail (c, ROW_SPEED, "best_seconds", best);
  result_detail (c, ROW_SPEED, "audio_seconds", ctx->speed_seconds);
  g_free (x);
}

/* sweep: a 5 s log sweep 20 Hz - 48 kHz at -1 dBFS, 96 -> 44.1 kHz, dumped
 * for plot.py's spectrograms (nothing goes into the table) */
static void
metric_sweep (Ctx * ctx, Contestant * c)
{
  gsize frames = 5 * 96000;
  double *x = g_new0 (double, frames);
  RunOut o;
  gchar *note = NULL;

  clr_log_sweep_add (x, frames, 1, 96000.0, 20.0, 48000.0, from_db (-1.0));
  if (!run (ctx, c, x, 1, frames, 96000, 44100, &o, &note)) {
    g_printerr ("sweep: %s: %s\n", c->name, note);
    g_free (note);
  } else {
    dump_run (ctx, c, "sweep", "20-48000Hz-96000to44100", &o, 96000, 44100,
        frames, "log sweep 20 Hz - 48 kHz over 5 s, -1 dBFS, "
        "x = A sin (2 pi f1 T / ln (f2 / f1) (exp (t ln (f2 / f1) / T) - 1))");
    run_out_clear (&o);
  }
  g_free (x);
}

/* response: magnitude response for 96 -> 44.1 kHz, in one run.
 *
 * Method: the input is a sum of ~960 integer-Hz sines (Schroeder phases, so
 * the sum stays below full scale) on three disjoint 50 Hz grids chosen so
 * that every input tone lands, after the resampler, on its own output
 * frequency: f = 13 + 50 k below 22.05 kHz stays at f; 22.05-44.1 kHz tones
 * (the same grid) alias to 44100 - f = 37 + 50 k; 44.1-48 kHz tones use
 * 25 + 50 k and alias to f - 44100 = 25 + 50 k. The analysis window is
 * exactly RESP_WINDOW_S seconds of the steady output, so every output tone
 * has an integer number of cycles in it: the tones are exactly orthogonal
 * over the window and a plain correlation (clr_tone_correlate) gives each
 * tone's amplitude with no leakage from the others, however strong. The
 * gain of input frequency f is then |out(f')| / |in(f)|. The floor of the
 * method is the contestant's own arithmetic error per bin. The input is
 * periodic (1 s) and so is that error; rounding being an odd function, the
 * error lands on odd integer-Hz bins only (odd sums of the odd tone
 * frequencies), so the floor is estimated from the unused odd bins
 * 51 + 50 k Hz and dumped as "floor_db" (relative to one tone): about
 * -170 dB for float32 (its error RMS spread over ~11000 odd bins), far
 * lower for float64. Multiples of 50 Hz, being even, stay empty.
 */
#define RESP_WINDOW_S 2

static void
metric_response (Ctx * ctx, Contestant * c)
{
  const gint in_rate = 96000, out_rate = 44100;
  gsize frames = (gsize) ((RESP_WINDOW_S + 2 * SKIP_S + 0.05) * in_rate);
  GArray *fin = g_array_new (FALSE, FALSE, sizeof (int));
  GArray *fout = g_array_new (FALSE, FALSE, sizeof (ClrFreq));
  ClrFreq *fempty;
  double *x, *amp, *eamp, *table, peak = 0.0, a, floor_p = 0.0;
  double pass_worst = 0.0, stop_worst = -INFINITY;
  RunOut o;
  gchar *note = NULL, *extra;
  size_t s, l, len = (size_t) RESP_WINDOW_S * out_rate;
  int f, k, n, nempty = 0;
  gsize i;

  for (f = 13; f < out_rate; f += 50) {
    int g = f < out_rate / 2 ? f : out_rate - f;
    ClrFreq fo = clr_freq_hz (g);
    g_array_append_val (fin, f);
    g_array_append_val (fout, fo);
  }
  for (f = out_rate + 25; f < in_rate / 2; f += 50) {
    ClrFreq fo = clr_freq_hz (f - out_rate);
    g_array_append_val (fin, f);
    g_array_append_val (fout, fo);
  }
  n = fin->len;
  x = g_new0 (double, frames);
  {
    gint64 *hz = g_new (gint64, n);
    double *ones = g_new (double, n), *phi = g_new (double, n);
    for (k = 0; k < n; k++) {
      hz[k] = g_array_index (fin, int, k);
      ones[k] = 1.0;
      phi[k] = M_PI * (double) k * k / n;       /* Schroeder phases */
    }
    clr_tones_add_int (x, frames, 1, in_rate, hz, ones, phi, n, 0);
    g_free (hz);
    g_free (ones);
    g_free (phi);
  }
  for (i = 0; i < frames; i++)
    peak = MAX (peak, fabs (x[i]));
  a = 0.89 / peak;
  for (i = 0; i < frames; i++)
    x[i] *= a;

  if (!run (ctx, c, x, 1, frames, in_rate, out_rate, &o, &note)
      || !steady (&o, out_rate, &s, &l, &note) || l < len) {
    if (!note)
      note = g_strdup ("n/a: output too short");
    result_set (c, ROW_RESP_PASS, NAN, note);
    result_set (c, ROW_RESP_STOP, NAN, note);
    g_free (note);
    g_free (x);
    g_array_free (fin, TRUE);
    g_array_free (fout, TRUE);
    run_out_clear (&o);
    return;
  }
  amp = g_new (double, n);
  clr_tone_correlate (o.data, 1, s, len, out_rate, (ClrFreq *) fout->data, n,
      amp, NULL);
  /* unused bins 51 + 50 k Hz: see the comment above metric_response */
  fempty = g_new (ClrFreq, 440);
  for (f = 51; f < 22050 && nempty < 440; f += 50)
    fempty[nempty++] = clr_freq_hz (f);
  eamp = g_new (double, nempty);
  clr_tone_correlate (o.data, 1, s, len, out_rate, fempty, nempty, eamp,
      NULL);
  for (k = 0; k < nempty; k++)
    floor_p += eamp[k] * eamp[k];
  floor_p /= nempty;

  table = g_new (double, 3 * n);
  for (k = 0; k < n; k++) {
    int fi = g_array_index (fin, int, k);
    double db = clr_db (amp[k] / a);
    table[3 * k] = fi;
    table[3 * k + 1] = clr_freq_to_double (g_array_index (fout, ClrFreq, k));
    table[3 * k + 2] = db;
    if (fi <= 20000 && fabs (db) > fabs (pass_worst))
      pass_worst = db;
    if (fi >= out_rate / 2)
      stop_worst = MAX (stop_worst, db);
  }
  result_set (c, ROW_RESP_PASS, fabs (pass_worst), NULL);
  result_set (c, ROW_RESP_STOP, stop_worst, NULL);
  result_detail (c, ROW_RESP_STOP, "floor_db", 10.0 * log10 (floor_p) -
      clr_db (a));
  result_detail (c, ROW_RESP_STOP, "tones", n);
  extra = g_strdup_printf ("\"column_names\": [\"f_in_hz\", \"f_out_hz\", "
      "\"gain_db\"],\n  \"floor_db\": %.3f,\n  \"tone_amplitude\": %.9g,\n"
      "  \"window_frames\": %" G_GSIZE_FORMAT ",\n  \"quality\": %d",
      10.0 * log10 (floor_p) - clr_db (a), a, len,
      c->kind == KIND_SOXR ? -1 : c->quality);
  dump_array (ctx, c, "response", "96000to44100", table, n, 3, in_rate,
      out_rate, frames, o.first_pts, "multitone, see clr-quality.c", extra);
  g_free (extra);
  g_free (table);
  g_free (amp);
  g_free (eamp);
  g_free (fempty);
  g_free (x);
  g_array_free (fin, TRUE);
  g_array_free (fout, TRUE);
  run_out_clear (&o);
}

/* ------------------------------------------------------------------------ */
/* output                                                                    */

static gchar *
format_value (Row r, const Result * res)
{
  if (!res->measured)
    return g_strdup ("-");
  if (isnan (res->value))
    return g_strdup ("n/a");
  return g_strdup_printf (rows[r].fmt, res->value);
}

static const char *
short_name (const char *name, gchar * buf, gsize n)
{
  if (g_str_has_prefix (name, "clresample:"))
    g_snprintf (buf, n, "clr:%s", name + 11);
  else if (g_str_has_prefix (name, "audioresample:"))
    g_snprintf (buf, n, "ar:%s", name + 14);
  else
    g_snprintf (buf, n, "%s", name);
  return buf;
}

static void
print_table (Ctx * ctx)
{
  guint i, j;
  int r;
  gchar buf[64];

  printf ("\n%-36s %-11s", "metric", "unit");
  for (i = 0; i < ctx->contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx->contestants, i);
    printf (" %14s", short_name (c->name, buf, sizeof (buf)));
  }
  printf ("\n");
  for (r = 0; r < N_ROWS; r++) {
    gboolean any = FALSE;
    for (i = 0; i < ctx->contestants->len; i++)
      any |= ((Contestant *) g_ptr_array_index (ctx->contestants,
              i))->res[r].measured;
    if (!any)
      continue;
    printf ("%-36s %-11s", rows[r].title, rows[r].unit);
    for (i = 0; i < ctx->contestants->len; i++) {
      Contestant *c = g_ptr_array_index (ctx->contestants, i);
      gchar *v = format_value (r, &c->res[r]);
      printf (" %14s", v);
      g_free (v);
    }
    printf ("\n");
  }
  /* notes, one per contestant and distinct text */
  for (i = 0; i < ctx->contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx->contestants, i);
    GPtrArray *seen = g_ptr_array_new ();
    for (r = 0; r < N_ROWS; r++) {
      gboolean dup = FALSE;
      if (!c->res[r].note)
        continue;
      for (j = 0; j < seen->len; j++)
        dup |= !strcmp (g_ptr_array_index (seen, j), c->res[r].note);
      if (dup)
        continue;
      g_ptr_array_add (seen, c->res[r].note);
      printf ("  note: %s: %s\n", c->name, c->res[r].note);
    }
    g_ptr_array_free (seen, TRUE);
    if (c->device_name)
      printf ("  %s ran on OpenCL device '%s'\n", c->name, c->device_name);
  }
  fflush (stdout);
}

static void
json_number (GString * s, double v)
{
  if (isnan (v) || isinf (v))
    g_string_append (s, "null");
  else
    g_string_append_printf (s, "%.17g", v);
}

static gchar *
json_escape (const char *t)
{
  GString *s = g_string_new (NULL);

  for (; *t; t++) {
    if (*t == '"' || *t == '\\')
      g_string_append_printf (s, "\\%c", *t);
    else if ((guchar) * t < 0x20)
      g_string_append_printf (s, "\\u%04x", *t);
    else
      g_string_append_c (s, *t);
  }
  return g_string_free (s, FALSE);
}

static gboolean
write_json (Ctx * ctx, const char *path)
{
  GString *s = g_string_new ("{\n  \"tool\": \"clr-quality\",\n");
  GError *err = NULL;
  guint i, j;
  int r;
  gboolean ok;

  g_string_append_printf (s, "  \"skip_s\": %.3f,\n  \"buffer_frames\": %d,\n"
      "  \"contestants\": [\n", SKIP_S, ctx->buffer_frames);
  for (i = 0; i < ctx->contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx->contestants, i);
    gboolean first = TRUE;
    g_string_append_printf (s, "    {\"name\": \"%s\", \"kind\": \"%s\", ",
        c->name, c->kind == KIND_CLR ? "clresample" : c->kind == KIND_AR ?
        "audioresample" : "soxr");
    if (c->kind != KIND_SOXR)
      g_string_append_printf (s, "\"quality\": %d, \"layout\": \"%s\", ",
          c->quality, c->planar ? "non-interleaved" : "interleaved");
    g_string_append_printf (s, "\"format\": \"%s\", \"device\": ",
        format_short (c->format));
    if (c->device_name) {
      gchar *e = json_escape (c->device_name);
      g_string_append_printf (s, "\"%s\"", e);
      g_free (e);
    } else
      g_string_append (s, "null");
    g_string_append (s, ",\n     \"results\": {");
    for (r = 0; r < N_ROWS; r++) {
      Result *res = &c->res[r];
      if (!res->measured)
        continue;
      g_string_append_printf (s, "%s\n       \"%s\": {\"value\": ",
          first ? "" : ",", rows[r].key);
      first = FALSE;
      json_number (s, res->value);
      g_string_append_printf (s, ", \"unit\": \"%s\"", rows[r].unit);
      if (res->note) {
        gchar *e = json_escape (res->note);
        g_string_append_printf (s, ", \"note\": \"%s\"", e);
        g_free (e);
      }
      if (res->details) {
        g_string_append (s, ", \"details\": {");
        for (j = 0; j < res->details->len; j++) {
          Detail *d = &g_array_index (res->details, Detail, j);
          g_string_append_printf (s, "%s\"%s\": ", j ? ", " : "", d->key);
          json_number (s, d->value);
        }
        g_string_append (s, "}");
      }
      g_string_append (s, "}");
    }
    g_string_append_printf (s, "\n     }}%s\n",
        i + 1 < ctx->contestants->len ? "," : "");
  }
  g_string_append (s, "  ]\n}\n");
  ok = g_file_set_contents (path, s->str, s->len, &err);
  if (!ok) {
    g_printerr ("--json: %s\n", err->message);
    g_error_free (err);
  }
  g_string_free (s, TRUE);
  return ok;
}

static gboolean
write_csv (Ctx * ctx, const char *path)
{
  GString *s = g_string_new ("contestant,metric,detail,value,unit,note\n");
  GError *err = NULL;
  guint i, j;
  int r;
  gboolean ok;

  for (i = 0; i < ctx->contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx->contestants, i);
    for (r = 0; r < N_ROWS; r++) {
      Result *res = &c->res[r];
      if (!res->measured)
        continue;
      g_string_append_printf (s, "%s,%s,,", c->name, rows[r].key);
      if (!isnan (res->value))
        g_string_append_printf (s, "%.17g", res->value);
      g_string_append_printf (s, ",%s,\"%s\"\n", rows[r].unit,
          res->note ? res->note : "");
      for (j = 0; res->details && j < res->details->len; j++) {
        Detail *d = &g_array_index (res->details, Detail, j);
        g_string_append_printf (s, "%s,%s,%s,%.17g,,\n", c->name,
            rows[r].key, d->key, d->value);
      }
    }
  }
  ok = g_file_set_contents (path, s->str, s->len, &err);
  if (!ok) {
    g_printerr ("--csv: %s\n", err->message);
    g_error_free (err);
  }
  g_string_free (s, TRUE);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* checks                                                                    */

static double
cmp_value (Row r, double v)
{
  return rows[r].sense == SENSE_LOWER_ABS ? fabs (v) : v;
}

static int
run_checks (Ctx * ctx)
{
  int n_pass = 0, n_fail = 0;
  guint i;

  printf ("\nchecks:\n");
  for (i = 0; i < G_N_ELEMENTS (checks); i++) {
    const Check *k = &checks[i];
    Contestant *c = find_contestant (ctx, k->contestant);
    Contestant *o = k->other ? find_contestant (ctx, k->other) : NULL;
    Result *res = c ? &c->res[k->row] : NULL;
    gchar *desc = NULL, *v = NULL;
    gboolean ok = FALSE;

    if (!res || !res->measured) {
      desc = g_strdup ("not measured");
    } else if (isnan (res->value)) {
      desc = g_strdup (res->note ? res->note : "n/a");
    } else {
      double a = cmp_value (k->row, res->value);
      v = g_strdup_printf (rows[k->row].fmt, res->value);
      switch (k->op) {
        case CHK_LE:{
          gchar *lim = g_strdup_printf (rows[k->row].fmt, k->limit);
          ok = a <= k->limit;
          desc = g_strdup_printf ("%s%s%s %s %s", rows[k->row].sense ==
              SENSE_LOWER_ABS ? "|" : "", v, rows[k->row].sense ==
              SENSE_LOWER_ABS ? "|" : "", ok ? "<=" : ">", lim);
          g_free (lim);
          break;
        }
        case CHK_EQ:{
          gchar *lim = g_strdup_printf (rows[k->row].fmt, k->limit);
          ok = res->value == k->limit;
          desc = g_strdup_printf ("%s %s %s", v, ok ? "==" : "!=", lim);
          g_free (lim);
          break;
        }
        case CHK_BETTER:{
          Result *ores = o ? &o->res[k->row] : NULL;
          if (!ores || !ores->measured || isnan (ores->value)) {
            desc = g_strdup_printf ("%s, but %s: %s", v, k->other,
                ores && ores->note ? ores->note : "not measured");
          } else {
            gchar *ov = g_strdup_printf (rows[k->row].fmt, ores->value);
            double b = cmp_value (k->row, ores->value);
            ok = rows[k->row].sense == SENSE_HIGHER ? a > b : a < b;
            desc = g_strdup_printf ("%s %s %s of %s", v, ok ? "better than" :
                "not better than", ov, k->other);
            g_free (ov);
          }
          break;
        }
      }
    }
    printf ("%s  %-4s %-22s %-34s %s%s%s\n", ok ? "PASS" : "FAIL", k->group,
        k->contestant, rows[k->row].title, desc, v ? " " : "",
        v ? rows[k->row].unit : "");
    g_free (desc);
    g_free (v);
    if (ok)
      n_pass++;
    else
      n_fail++;
  }
  printf ("%d passed, %d failed\n", n_pass, n_fail);
  fflush (stdout);
  return n_fail ? 1 : 0;
}

/* ------------------------------------------------------------------------ */

static guint
parse_metrics (const char *list)
{
  gchar **p = g_strsplit (list, ",", -1);
  guint flags = 0, i, j;

  for (i = 0; p[i]; i++) {
    gboolean found = FALSE;
    gchar *m = g_strstrip (p[i]);
    if (!*m)
      continue;
    if (!strcmp (m, "default")) {
      flags |= parse_metrics (DEFAULT_METRICS);
      continue;
    }
    if (!strcmp (m, "all")) {
      flags |= ~0u;
      continue;
    }
    for (j = 0; j < G_N_ELEMENTS (metric_names); j++)
      if (!strcmp (m, metric_names[j].letter) || !strcmp (m,
              metric_names[j].name)) {
        flags |= metric_names[j].flag;
        found = TRUE;
      }
    if (!found) {
      g_printerr ("unknown metric '%s'\n", m);
      g_strfreev (p);
      return 0;
    }
  }
  g_strfreev (p);
  return flags;
}

static gboolean
add_contestants (Ctx * ctx, const char *list)
{
  gchar **p = g_strsplit (list, ",", -1);
  GPtrArray *tmp = g_ptr_array_new ();
  guint i, j;

  for (i = 0; p[i]; i++) {
    gchar *s = g_strstrip (p[i]);
    if (!*s)
      continue;
    if (!parse_contestant (s, tmp)) {
      g_printerr ("bad contestant '%s' (want clresample:Q:FMT[:ni][:cutoff=C], "
          "audioresample:Q:FMT[:ni] or soxr:RECIPE[:min|:int][:F32LE])\n", s);
      g_strfreev (p);
      g_ptr_array_free (tmp, TRUE);
      return FALSE;
    }
  }
  for (j = 0; j < tmp->len; j++) {
    Contestant *c = g_ptr_array_index (tmp, j);
    if (find_contestant (ctx, c->name)) {
      g_free (c->name);
      g_free (c);
    } else
      g_ptr_array_add (ctx->contestants, c);
  }
  g_ptr_array_free (tmp, TRUE);
  g_strfreev (p);
  return TRUE;
}

/* A started clresample holds a reference on the shared OpenCL device, so
 * the device and its built programs outlive each measured pipeline. */
static void
start_keeper (Ctx * ctx)
{
  GstElement *p = gst_parse_launch ("appsrc ! clresample name=r ! fakesink",
      NULL);

  if (!p)
    return;
  if (ctx->device) {
    GstElement *r = gst_bin_get_by_name (GST_BIN (p), "r");
    g_object_set (r, "device", ctx->device, NULL);
    gst_object_unref (r);
  }
  if (gst_element_set_state (p, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    return;
  }
  ctx->keeper = p;
}

int
main (int argc, char **argv)
{
  Ctx ctx = { 0 };
  gchar *contestants = NULL, *metrics = NULL, *json = NULL, *csv = NULL;
  gboolean check = FALSE;
  GError *err = NULL;
  GOptionContext *oc;
  gint64 t0;
  int ret = 0;
  guint i;
  GOptionEntry entries[] = {
    {"contestants", 'c', 0, G_OPTION_ARG_STRING, &contestants,
        "Comma-separated contestants (default " DEFAULT_CONTESTANTS ")",
        "LIST"},
    {"metrics", 'm', 0, G_OPTION_ARG_STRING, &metrics,
          "Comma-separated metrics: a|thdn b|alias c|images d|gain "
          "e|alias23|imd f|frames g|offset h|speed i|stereo sweep response "
          "default all (default " DEFAULT_METRICS ")", "LIST"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &json, "Write all figures as JSON",
        "FILE"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "Write all figures as CSV",
        "FILE"},
    {"dump", 'd', 0, G_OPTION_ARG_FILENAME, &ctx.dump_dir,
        "Write raw outputs (float64 .raw + .json) for plot.py", "DIR"},
    {"check", 0, 0, G_OPTION_ARG_NONE, &check,
        "Measure and assert the targets; non-zero exit on failure", NULL},
    {"device", 0, 0, G_OPTION_ARG_STRING, &ctx.device,
        "clresample's device property", "SPEC"},
    {"buffer-frames", 'b', 0, G_OPTION_ARG_INT, &ctx.buffer_frames,
        "Frames per pushed buffer (default 4096)", "N"},
    {"speed-runs", 0, 0, G_OPTION_ARG_INT, &ctx.speed_runs,
        "Timed runs per contestant for speed, best taken (default 5)", "N"},
    {"speed-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &ctx.speed_seconds,
        "Seconds of audio for speed (default 10)", "S"},
    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &ctx.verbose,
        "Print every run", NULL},
    {NULL}
  };

  ctx.buffer_frames = 4096;
  ctx.speed_runs = 5;
  ctx.speed_seconds = 10.0;
  oc = g_option_context_new ("- measure clresample against audioresample "
      "and libsoxr");
  g_option_context_add_main_entries (oc, entries, NULL);
  g_option_context_add_group (oc, gst_init_get_option_group ());
  if (!g_option_context_parse (oc, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (oc);
  gst_init (&argc, &argv);
  if (ctx.buffer_frames < 1 || ctx.speed_runs < 1 || ctx.speed_seconds <= 0) {
    g_printerr ("bad --buffer-frames, --speed-runs or --speed-seconds\n");
    return 2;
  }

  ctx.contestants = g_ptr_array_new ();
  if (check) {
    /* the contestants and metrics the check table needs, plus any asked */
    for (i = 0; i < G_N_ELEMENTS (checks); i++) {
      add_contestants (&ctx, checks[i].contestant);
      if (checks[i].other)
        add_contestants (&ctx, checks[i].other);
      ctx.metrics |= row_metric (checks[i].row);
    }
    if (contestants && !add_contestants (&ctx, contestants))
      return 2;
    if (metrics)
      ctx.metrics |= parse_metrics (metrics);
  } else {
    if (!add_contestants (&ctx, contestants ? contestants :
            DEFAULT_CONTESTANTS))
      return 2;
    ctx.metrics = parse_metrics (metrics ? metrics : DEFAULT_METRICS);
  }
  if (!ctx.metrics || !ctx.contestants->len)
    return 2;
  if (ctx.dump_dir && g_mkdir_with_parents (ctx.dump_dir, 0755) < 0) {
    g_printerr ("--dump %s: %s\n", ctx.dump_dir, g_strerror (errno));
    return 2;
  }
  if ((ctx.metrics & MET_SWEEP) && !ctx.dump_dir)
    g_printerr ("note: the sweep metric only writes dumps; add --dump DIR\n");

  for (i = 0; i < ctx.contestants->len; i++)
    if (((Contestant *) g_ptr_array_index (ctx.contestants, i))->kind ==
        KIND_CLR)
      break;
  if (i < ctx.contestants->len)
    start_keeper (&ctx);

  t0 = g_get_monotonic_time ();
  for (i = 0; i < ctx.contestants->len; i++) {
    Contestant *c = g_ptr_array_index (ctx.contestants, i);
    gint64 tc = g_get_monotonic_time ();

    g_printerr ("measuring %s ...", c->name);
    if (ctx.metrics & (MET_A | MET_F))
      metric_thdn_frames (&ctx, c);
    if (ctx.metrics & MET_B)
      metric_alias (&ctx, c);
    if (ctx.metrics & MET_C)
      metric_images (&ctx, c);
    if (ctx.metrics & MET_D)
      metric_gain (&ctx, c);
    if (ctx.metrics & MET_E)
      metric_e (&ctx, c);
    if (ctx.metrics & MET_G)
      metric_offset (&ctx, c);
    if (ctx.metrics & MET_STEREO)
      metric_stereo (&ctx, c);
    if (ctx.metrics & MET_H)
      metric_speed (&ctx, c);
    if (ctx.metrics & MET_SWEEP)
      metric_sweep (&ctx, c);
    if (ctx.metrics & MET_RESPONSE)
      metric_response (&ctx, c);
    if (ctx.metrics & MET_IMPULSE)
      metric_impulse (&ctx, c);
    g_printerr (" %.1f s%s%s\n", (g_get_monotonic_time () - tc) / 1e6,
        c->refused ? " - " : "", c->refused ? c->refused : "");
  }
  g_printerr ("total %.1f s\n", (g_get_monotonic_time () - t0) / 1e6);

  print_table (&ctx);
  if (json && !write_json (&ctx, json))
    ret = 2;
  if (csv && !write_csv (&ctx, csv))
    ret = 2;
  if (check && run_checks (&ctx))
    ret = 1;

  if (ctx.keeper) {
    gst_element_set_state (ctx.keeper, GST_STATE_NULL);
    gst_object_unref (ctx.keeper);
  }
  return ret;
}
