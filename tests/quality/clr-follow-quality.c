/* clr-follow-quality: a drifting source's tone through follow-drift,
 * beside drop and repeat (issue 48, item 4).
 *
 * The source: a 1 kHz tone at -1 dBFS, mono, counted at 44.1 kHz on its
 * own clock, which runs eps off the pipeline's (+100, -100, +500, -500
 * ppm): buffers of 441 frames stamped with the pipeline-clock time they
 * were captured at, k / (44100 (1 + eps)). On the pipeline's clock its
 * tone is at 1000 (1 + eps) Hz. Into a 48 kHz sink synced to the pipeline
 * clock, two ways:
 *   follow   appsrc ! clresample follow-drift=true quality=Q ! 48 kHz:
 *            the ratio steered so that the output keeps to the
 *            timestamps, 48000 frames a second of the pipeline clock;
 *   drop     appsrc ! clresample quality=Q (the exact 44.1 -> 48 kHz
 *            ratio) ! 48 kHz, then what audiobasesink's ring buffer does
 *            to such a stream to keep it on the clock (the commit's
 *            FWD_UP_SAMPLES / FWD_DOWN_SAMPLES in gstaudioringbuffer.c):
 *            sample j of the sink's is the stream's nearest, j (1 + eps),
 *            a whole sample dropped or repeated every 1 / (48000 |eps|) s.
 * And the fixed ratio's own figure (eps = 0, the exact path), today's
 * baseline.
 *
 * Metric: THD+N of the tone, on windows of 8192 frames (0.17 s, Kaiser
 * beta 38, half overlapping) from 5 s (after lock-in) to 0.25 s before
 * the end: everything but +-48 bins around the tone's peak, over those
 * bins (tests/quality/clr-analysis.h, clr_window_thdn ()); the worst
 * window and the mean. Also the delay of the output's timeline behind
 * the timestamps as the element reports it (its last clresample-drift
 * message) and the drift it read.
 *
 * --check: follow within 6 dB of the fixed ratio's figure (the steady
 * target of item 3) at every eps, and the drift read within 0.1 ppm.
 *
 * usage: clr-follow-quality [--check] [-s SECONDS] [-q Q,...]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include "clr-analysis.h"

#define IN_RATE 44100
#define OUT_RATE 48000
#define FRAMES 441
#define TONE_HZ 1000.0
#define AMP 0.8912509381337456  /* -1 dBFS */
#define WINDOW 8192
#define GUARD_BINS 48
#define LOCKED_S 5.0
#define SKIP_END_S 0.25

typedef struct
{
  float *y;                     /* the output, whole (NULL: not kept) */
  gsize n, cap;
  double drift;                 /* ppm, read at the end */
  /* --hour: the delay at the output's zero crossings as it comes */
  double eps, tone;
  GstClockTime first_pts;
  float prev;
  guint64 m;                    /* output frames so far */
  GArray *worst;                /* the worst |delay| (s) of each second */
} Output;

/* An output buffer: kept, or its zero crossings' delays behind the
 * source's (crossing n of the tone at n / (2 tone (1 + eps)) s of the
 * pipeline clock) noted in the second they fall in */
static void
take (Output * o, GstBuffer * b)
{
  GstMapInfo map;
  const float *y;
  gsize n, i;

  gst_buffer_map (b, &map, GST_MAP_READ);
  y = (const float *) map.data;
  n = map.size / sizeof (float);
  if (o->m == 0)
    o->first_pts = GST_BUFFER_PTS (b);
  if (o->y) {
    if (o->n + n <= o->cap) {
      memcpy (o->y + o->n, y, map.size);
      o->n += n;
    }
  } else {
    for (i = 0; i < n; i++, o->m++) {
      /* (doubles: a float's sum with the frame count would round it
       * past 2^24 frames, 350 s) */
      const double a = o->prev, c = y[i];

      o->prev = c;
      /* past the filter's fade-in */
      if (o->m < OUT_RATE / 100 || (a < 0) == (c < 0) || a == 0)
        continue;
      {
        const double t = (double) o->first_pts / GST_SECOND +
            (o->m - 1 + a / (a - c)) / OUT_RATE;
        const double per = 2 * o->tone * (1 + o->eps);
        const double src = llround (t * per) / per;
        const guint sec = (guint) src;
        double d = fabs (t - src);

        if (sec >= o->worst->len)
          g_array_set_size (o->worst, sec + 1);
        g_array_index (o->worst, double, sec) =
            MAX (g_array_index (o->worst, double, sec), d);
      }
    }
    o->n += n;
  }
  gst_buffer_unmap (b, &map);
}

/* seconds of the source at eps through clresample (follow-drift or not)
 * at quality q: the output, whole */
static gboolean
run_pipeline (double eps, gboolean follow, gint q, double seconds,
    double tone, gboolean keep, Output * o)
{
  gchar *line = g_strdup_printf ("appsrc name=src format=time "
      "caps=audio/x-raw,format=F32LE,layout=interleaved,rate=%d,channels=1 "
      "! clresample name=r quality=%d follow-drift=%s ! "
      "audio/x-raw,rate=%d ! appsink name=sink sync=false", IN_RATE, q,
      follow ? "true" : "false", OUT_RATE);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (line, &err), *src, *sink, *r;
  guint64 k = 0, total = (guint64) (seconds * IN_RATE);
  GstSample *sample;

  g_free (line);
  if (!pipe) {
    fprintf (stderr, "%s\n", err->message);
    g_error_free (err);
    return FALSE;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  memset (o, 0, sizeof *o);
  o->eps = eps;
  o->tone = tone;
  if (keep) {
    o->cap = (gsize) (seconds * OUT_RATE * 1.01) + 65536;
    o->y = g_new (float, o->cap);
  } else {
    o->worst = g_array_new (FALSE, TRUE, sizeof (double));
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (k < total) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, FRAMES * sizeof (float),
        NULL);
    GstMapInfo map;
    guint i;
    /* the pipeline-clock time the source captured frame k at; without
     * follow-drift, the sample count's (the fixed path as a file plays) */
    double t = follow ? k / (IN_RATE * (1.0 + eps)) : (double) k / IN_RATE;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    for (i = 0; i < FRAMES; i++)
      ((float *) map.data)[i] = (float) (AMP * sin (2 * G_PI *
              fmod (tone * (k + i) / IN_RATE, 1.0)));
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = (GstClockTime) llround (t * GST_SECOND);
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
    k += FRAMES;
    /* keep what the sink holds small */
    while ((sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0))) {
      take (o, gst_sample_get_buffer (sample));
      gst_sample_unref (sample);
    }
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    take (o, gst_sample_get_buffer (sample));
    gst_sample_unref (sample);
  }
  g_object_get (r, "drift", &o->drift, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (r);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return TRUE;
}

/* THD+N of x (n frames at OUT_RATE, the tone at f Hz) over windows from
 * LOCKED_S: the worst and the mean, in dB */
static void
thdn (const double *x, gsize n, double f, double *worst, double *mean)
{
  gsize s, start = (gsize) (LOCKED_S * OUT_RATE),
      end = n - (gsize) (SKIP_END_S * OUT_RATE);
  double w = 0, sum = 0;
  guint k = 0;

  for (s = start; s + WINDOW <= end; s += WINDOW / 2) {
    double r = clr_window_thdn (x, 1, s, WINDOW, OUT_RATE, f * 0.995,
        f * 1.005, GUARD_BINS, CLR_SPECTRUM_BETA, NULL);

    w = MAX (w, r);
    sum += r;
    k++;
  }
  *worst = clr_db (w) / 2;
  *mean = clr_db (k ? sum / k : 0) / 2;
}

static double *
to_double (const float *y, gsize n)
{
  double *x = g_new (double, n);
  gsize i;

  for (i = 0; i < n; i++)
    x[i] = y[i];
  return x;
}

/* --hour: the delay of the output behind the source at its 50 Hz tone's
 * zero crossings (+-5 ms unambiguous), for `seconds` of each drift, in
 * one process after another; the worst of each second to `trace` */
static int
run_hour (double seconds, const gchar * trace, gboolean check)
{
  static const double ppms[] = { 100, -100, 500, -500 };
  GArray *worst[G_N_ELEMENTS (ppms)];
  guint i, sec, failed = 0;
  FILE *f = NULL;

  printf ("follow-drift at quality 4, 44.1 -> 48 kHz, %.0f s of a 50 Hz "
      "tone a drift; the delay behind the source at its zero crossings "
      "(us)\n", seconds);
  printf ("%8s %14s %14s %12s %8s\n", "eps ppm", "worst, 0-5 s",
      "worst after", "drift read", "wall s");
  for (i = 0; i < G_N_ELEMENTS (ppms); i++) {
    Output o;
    double before = 0, after = 0;
    gint64 t0 = g_get_monotonic_time ();

    if (!run_pipeline (ppms[i] * 1e-6, TRUE, 4, seconds, 50.0, FALSE, &o))
      return 1;
    /* the last second holds the drained tail's fade */
    for (sec = 0; sec + 1 < o.worst->len; sec++) {
      double d = g_array_index (o.worst, double, sec);

      if (sec < LOCKED_S)
        before = MAX (before, d);
      else
        after = MAX (after, d);
    }
    printf ("%+8.0f %14.2f %14.3f %+12.4f %8.1f\n", ppms[i], before * 1e6,
        after * 1e6, o.drift, (g_get_monotonic_time () - t0) / 1e6);
    if (check && (before > 1e-3 || after > 100e-6)) {
      printf ("  FAIL: the delay must stay within 1 ms, 0.1 ms after "
          "lock-in\n");
      failed++;
    }
    worst[i] = o.worst;
  }
  if (trace && (f = fopen (trace, "w"))) {
    fprintf (f, "second");
    for (i = 0; i < G_N_ELEMENTS (ppms); i++)
      fprintf (f, ",%+.0f ppm", ppms[i]);
    fprintf (f, "\n");
    for (sec = 0; sec + 1 < worst[0]->len; sec++) {
      fprintf (f, "%u", sec);
      for (i = 0; i < G_N_ELEMENTS (ppms); i++)
        fprintf (f, ",%.6f", sec + 1 < worst[i]->len ?
            g_array_index (worst[i], double, sec) * 1e6 : NAN);
      fprintf (f, "\n");
    }
    fclose (f);
  }
  for (i = 0; i < G_N_ELEMENTS (ppms); i++)
    g_array_unref (worst[i]);
  if (check)
    printf ("%s\n", failed ? "check FAILED" : "check passed");
  return failed ? 1 : 0;
}

int
main (int argc, char **argv)
{
  static const double ppms[] = { 100, -100, 500, -500 };
  gboolean check = FALSE;
  gdouble seconds = 30.0, hour = 0.0;
  gchar *qs = NULL, **qv, *trace = NULL;
  GOptionEntry entries[] = {
    {"check", 'c', 0, G_OPTION_ARG_NONE, &check,
        "Assert the targets (follow within 6 dB of the fixed ratio)", NULL},
    {"seconds", 's', 0, G_OPTION_ARG_DOUBLE, &seconds,
        "Seconds of audio a run (default 30)", "S"},
    {"quality", 'q', 0, G_OPTION_ARG_STRING, &qs,
        "Qualities (default 4,10)", "Q,.."},
    {"hour", 0, 0, G_OPTION_ARG_DOUBLE, &hour,
          "Instead: follow each drift for S seconds (3600: an hour) at "
          "quality 4, a 50 Hz tone, its delay at every zero crossing",
        "S"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, &trace,
        "With --hour: the worst delay of each second to FILE (CSV)", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- follow-drift's THD+N");
  GError *err = NULL;
  guint qi, i, failed = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  gst_init (&argc, &argv);
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    fprintf (stderr, "%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  qv = g_strsplit (qs ? qs : "4,10", ",", -1);
  if (hour > 0)
    return run_hour (hour, trace, check);

  printf ("1 kHz at -1 dBFS, 44.1 -> 48 kHz, F32, %.0f s; THD+N (dB) on "
      "%d-frame windows from %.0f s: worst / mean\n", seconds, WINDOW,
      LOCKED_S);
  printf ("%-4s %8s %18s %18s %18s %12s\n", "q", "eps ppm", "fixed (eps 0)",
      "follow-drift", "drop/repeat", "drift read");
  for (qi = 0; qv[qi]; qi++) {
    gint q = atoi (qv[qi]);
    Output fixed;
    double *xf, fw, fm;

    if (!run_pipeline (0.0, FALSE, q, seconds, TONE_HZ, TRUE, &fixed))
      return 1;
    xf = to_double (fixed.y, fixed.n);
    thdn (xf, fixed.n, TONE_HZ, &fw, &fm);
    for (i = 0; i < G_N_ELEMENTS (ppms); i++) {
      const double eps = ppms[i] * 1e-6;
      Output fo;
      double *x, *d, ow, om, dw, dm;
      gsize j, nd = (gsize) floor ((fixed.n - 1) / (1.0 + eps));

      if (!run_pipeline (eps, TRUE, q, seconds, TONE_HZ, TRUE, &fo))
        return 1;
      x = to_double (fo.y, fo.n);
      thdn (x, fo.n, TONE_HZ * (1.0 + eps), &ow, &om);
      /* the sink's nearest sample of the fixed ratio's stream */
      d = g_new (double, nd);
      for (j = 0; j < nd; j++)
        d[j] = fixed.y[(gsize) llround (j * (1.0 + eps))];
      thdn (d, nd, TONE_HZ * (1.0 + eps), &dw, &dm);
      printf ("%-4d %+8.0f %8.1f / %7.1f %8.1f / %7.1f %8.1f / %7.1f "
          "%+12.4f\n", q, ppms[i], fw, fm, ow, om, dw, dm, fo.drift);
      if (check && (ow > fw + 6.0 || fabs (fo.drift - ppms[i]) > 0.1)) {
        printf ("  FAIL: follow-drift %.1f dB against the fixed ratio's "
            "%.1f (+6 allowed), drift %+.4f ppm\n", ow, fw, fo.drift);
        failed++;
      }
      g_free (x);
      g_free (d);
      g_free (fo.y);
    }
    g_free (xf);
    g_free (fixed.y);
  }
  g_strfreev (qv);
  g_free (qs);
  if (check)
    printf ("%s\n", failed ? "check FAILED" : "check passed");
  return failed ? 1 : 0;
}
