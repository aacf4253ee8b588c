/* clresample: the input history (clr-history.h) alone, against a plain
 * array of every frame pushed: random pushes, drops, silences, sets and
 * reads, interleaved and planar, through many wraps of the ring; every
 * frame the history claims to hold reads back exactly, as one contiguous
 * plane a channel. */
#include <string.h>
#include <glib.h>
#include "conv/clr-history.h"

#define CH 3

/* sample of stream frame t, channel c: distinct for every (t, c) */
static float
sample (int64_t t, size_t c)
{
  return (float) (t * CH + (int64_t) c + 1);
}

/* the stream so far, frame t at index t - base */
typedef struct
{
  GArray *frames;               /* CH floats a frame */
  int64_t base;
} Ref;

static void
ref_append (Ref * r, int64_t t0, size_t n, gboolean silence)
{
  size_t i, c;

  for (i = 0; i < n; i++)
    for (c = 0; c < CH; c++) {
      float v = silence ? 0.0f : sample (t0 + (int64_t) i, c);
      g_array_append_val (r->frames, v);
    }
}

static float
ref_at (const Ref * r, int64_t t, size_t c)
{
  return g_array_index (r->frames, float, (t - r->base) * CH + c);
}

/* Every frame the history holds equals the stream's, read through its
 * planes, and at least `least` of the latest are there. */
static void
check (ClrHistory * h, const Ref * r, int64_t end, size_t least)
{
  size_t i, c;

  g_assert_cmpint (h->start + (int64_t) h->len, ==, end);
  g_assert_cmpuint (h->len, >=, least);
  g_assert_cmpuint (h->len, <=, h->cap);
  for (c = 0; c < CH; c++) {
    const float *p = (const float *) clr_history_plane (h, c);

    for (i = 0; i < h->len; i++)
      if (p[i] != ref_at (r, h->start + (int64_t) i, c))
        g_error ("frame %" G_GINT64_FORMAT " channel %" G_GSIZE_FORMAT
            ": %g, not %g", h->start + (int64_t) i, c, p[i],
            ref_at (r, h->start + (int64_t) i, c));
  }
}

/* data: 1 planar input, 2 a lazy history (clr_history_set_lazy ()), read
 * only after some of the pushes */
static void
test_random (gconstpointer data)
{
  const gboolean planar = GPOINTER_TO_INT (data) & 1;
  const gboolean lazy = (GPOINTER_TO_INT (data) & 2) != 0;
  GRand *rand = g_rand_new_with_seed (planar ? 7 : 11);
  Ref r = { g_array_new (FALSE, FALSE, sizeof (float)), 0 };
  ClrHistory h;
  int64_t end = 0;
  size_t keep = 1000;
  guint step;

  clr_history_init (&h, CH, sizeof (float));
  clr_history_set_lazy (&h, lazy);
  clr_history_reset (&h, 0);
  for (step = 0; step < 3000; step++) {
    const size_t n = g_rand_int_range (rand, 0, 700);
    const gboolean silence = g_rand_int_range (rand, 0, 8) == 0;
    float *buf = g_new (float, n * CH + 1);
    const void *in[CH];
    const size_t before = h.len;
    GError *err = NULL;
    size_t i, c;

    /* now and then another keep: the ring grows, or keeps its size */
    if (g_rand_int_range (rand, 0, 200) == 0)
      keep = g_rand_int_range (rand, 1, 4000);
    for (i = 0; i < n; i++)
      for (c = 0; c < CH; c++)
        buf[planar ? c * n + i : i * CH + c] = sample (end + (int64_t) i, c);
    for (c = 0; c < CH; c++)
      in[c] = planar ? (const void *) (buf + c * n) : (const void *) buf;
    g_assert_true (clr_history_push (&h, keep, silence ? NULL : in, planar,
            n, &err));
    g_assert_no_error (err);
    ref_append (&r, end, n, silence);
    end += (int64_t) n;
    /* it keeps `keep` frames of what it held and was given (lazy: read
     * after one push in three, several wraps at times between reads) */
    if (!lazy || g_rand_int_range (rand, 0, 3) == 0)
      check (&h, &r, end, MIN (keep, before + n));
    g_free (buf);
  }
  g_assert_cmpuint (h.cap, <, 2 * (4000 + 700));
  clr_history_clear (&h);
  g_array_unref (r.frames);
  g_rand_free (rand);
}

/* set() then appends across the wrap; read() gives the last frames */
static void
test_set_read (gconstpointer data)
{
  const gboolean lazy = GPOINTER_TO_INT (data);
  ClrHistory h;
  float host[CH * 50], back[CH * 40];
  Ref r = { g_array_new (FALSE, FALSE, sizeof (float)), 100 };
  GError *err = NULL;
  int64_t end;
  size_t i, c;

  for (c = 0; c < CH; c++)
    for (i = 0; i < 50; i++)
      host[c * 50 + i] = sample (110 + (int64_t) i, c);
  clr_history_init (&h, CH, sizeof (float));
  clr_history_set_lazy (&h, lazy);
  g_assert_true (clr_history_set (&h, 100, (const char *) host, 10, 50,
          &err));
  ref_append (&r, 100, 10, TRUE);
  ref_append (&r, 110, 50, FALSE);
  end = 160;
  check (&h, &r, end, 60);
  /* many small pushes keeping 60: the ring wraps again and again */
  for (i = 0; i < 500; i++) {
    float buf[CH * 7];
    const void *in[1] = { buf };
    size_t k;

    for (k = 0; k < 7; k++)
      for (c = 0; c < CH; c++)
        buf[k * CH + c] = sample (end + (int64_t) k, c);
    g_assert_true (clr_history_push (&h, 60, in, FALSE, 7, &err));
    ref_append (&r, end, 7, FALSE);
    end += 7;
    if (!lazy || i % 5 == 0)
      check (&h, &r, end, 60);
  }
  clr_history_read (&h, 40, (char *) back);
  for (c = 0; c < CH; c++)
    for (i = 0; i < 40; i++)
      g_assert_cmpfloat (back[c * 40 + i], ==, sample (end - 40 + (int64_t) i,
              c));
  g_assert_no_error (err);
  clr_history_clear (&h);
  g_array_unref (r.frames);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/history/random/interleaved", GINT_TO_POINTER (0),
      test_random);
  g_test_add_data_func ("/history/random/planar", GINT_TO_POINTER (1),
      test_random);
  g_test_add_data_func ("/history/random/interleaved-lazy",
      GINT_TO_POINTER (2), test_random);
  g_test_add_data_func ("/history/random/planar-lazy", GINT_TO_POINTER (3),
      test_random);
  g_test_add_data_func ("/history/set-read", GINT_TO_POINTER (0),
      test_set_read);
  g_test_add_data_func ("/history/set-read-lazy", GINT_TO_POINTER (1),
      test_set_read);
  return g_test_run ();
}
