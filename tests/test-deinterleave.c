/* clresample: interleaved frames into planes (clr_deinterleave () and
 * clr_deinterleave_stream (), clr-format.h) against a plain loop: every
 * sample size and channel count up to 8, lengths around the vector steps,
 * sources and planes at every offset of four-byte samples from 16-byte
 * alignment; random bit patterns (NaNs among them) must come through
 * bit for bit, and nothing around the planes may be written. */
#include <string.h>
#include <glib.h>
#include "clr-format.h"

#define GUARD 32                /* bytes checked on each side of a plane */
#define POISON 0xa5

static void
check_one (GRand * rand, size_t ch, size_t ss, size_t n, size_t src_off,
    size_t dst_off, gboolean stream)
{
  const size_t plane = n * ss;
  guint8 *src = g_malloc (n * ch * ss + 16 + 1);
  guint8 *dst[CLR_CHANNELS_MAX];
  char *planes[CLR_CHANNELS_MAX];
  size_t i, c, k;

  for (i = 0; i < n * ch * ss + 16; i++)
    src[i] = (guint8) g_rand_int (rand);
  for (c = 0; c < ch; c++) {
    /* g_malloc gives 16-byte alignment; planes at the offset asked, and
     * at half the offsets the second channel one sample further on, so
     * that the planes' alignments differ */
    const size_t off = dst_off + (c == 1 && (dst_off & 4) ? ss : 0);

    dst[c] = g_malloc (GUARD + off + plane + GUARD);
    memset (dst[c], POISON, GUARD + off + plane + GUARD);
    planes[c] = (char *) dst[c] + GUARD + off;
  }
  if (stream)
    clr_deinterleave_stream (planes, src + src_off, n, ch, ss);
  else
    clr_deinterleave (planes, src + src_off, n, ch, ss);
  for (c = 0; c < ch; c++) {
    for (i = 0; i < n; i++)
      if (memcmp (planes[c] + i * ss, src + src_off + (i * ch + c) * ss,
              ss) != 0)
        g_error ("ch %" G_GSIZE_FORMAT " ss %" G_GSIZE_FORMAT " n %"
            G_GSIZE_FORMAT " offsets %" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT
            " stream %d: frame %" G_GSIZE_FORMAT " channel %" G_GSIZE_FORMAT
            " differs", ch, ss, n, src_off, dst_off, stream, i, c);
    for (k = 0; k < GUARD; k++) {
      g_assert_cmpuint (((guint8 *) planes[c])[-1 - (gssize) k], ==, POISON);
      g_assert_cmpuint (((guint8 *) planes[c])[plane + k], ==, POISON);
    }
    g_free (dst[c]);
  }
  g_free (src);
}

static void
test_layouts (gconstpointer data)
{
  const gboolean stream = GPOINTER_TO_INT (data);
  static const size_t sizes[] = { 2, 4, 8 };
  GRand *rand = g_rand_new_with_seed (stream ? 3 : 5);
  size_t ch, s, n, src_off, dst_off;

  for (ch = 1; ch <= 8; ch++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (n = 0; n <= 37; n++)
        for (src_off = 0; src_off < 16; src_off += 4)
          for (dst_off = 0; dst_off < 16; dst_off += 4)
            check_one (rand, ch, sizes[s], n, src_off, dst_off, stream);
  /* a long run through the vector loop, unaligned */
  check_one (rand, 2, 4, 4099, 4, 8, stream);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/deinterleave/cached", GINT_TO_POINTER (0),
      test_layouts);
  g_test_add_data_func ("/deinterleave/stream", GINT_TO_POINTER (1),
      test_layouts);
  return g_test_run ();
}
