/* clresample: the last input frames of a stream. See clr-history.h. */
#include <string.h>
#include "device/clr-device.h"
#include "clr-format.h"
#include "clr-history.h"

void
clr_history_init (ClrHistory * h, size_t channels, size_t ssize)
{
  memset (h, 0, sizeof (*h));
  h->channels = channels;
  h->ssize = ssize;
}

void
clr_history_clear (ClrHistory * h)
{
  g_free (h->data);
  h->data = NULL;
  h->cap = 0;
  h->head = 0;
  h->len = 0;
}

void
clr_history_reset (ClrHistory * h, int64_t start)
{
  h->start = start;
  h->head = 0;
  h->len = 0;
}

/* The ring's storage of channel c: 2 cap frames, frame i mirrored at
 * i + cap. */
static char *
ring (ClrHistory * h, size_t c)
{
  return h->data + c * 2 * h->cap * h->ssize;
}

static void mirror (ClrHistory * h, size_t at, size_t n);

void
clr_history_set_lazy (ClrHistory * h, gboolean lazy)
{
  h->lazy = lazy;
}

char *
clr_history_plane (ClrHistory * h, size_t c)
{
  /* lazy: the frames that wrapped to the ring's start, copied after its
   * end, every channel's at once, once after each append */
  if (h->lazy && !h->unwrapped) {
    if (h->head + h->len > h->cap)
      mirror (h, 0, h->head + h->len - h->cap);
    h->unwrapped = TRUE;
  }
  return ring (h, c) + h->head * h->ssize;
}

/* Copies frames [at, at + n) of every channel's storage (at < cap, n <=
 * cap) to their mirror, which the first write put in one half only. */
static void
mirror (ClrHistory * h, size_t at, size_t n)
{
  const size_t ss = h->ssize, cap = h->cap;
  const size_t low = MIN (at + n, cap) - at, high = n - low;
  size_t c;

  for (c = 0; c < h->channels; c++) {
    char *r = ring (h, c);

    if (low)
      memcpy (r + (at + cap) * ss, r + at * ss, low * ss);
    if (high)
      memcpy (r, r + cap * ss, high * ss);
  }
}

gboolean
clr_history_make_room (ClrHistory * h, size_t keep, size_t n,
    GError ** error)
{
  const size_t ss = h->ssize;
  /* the storage for all `keep` frames at once, not for those there yet:
   * a history filling up to a long filter's length otherwise grew a
   * quarter at a time, each step copying all of it (26 ms at once for 64
   * channels x 262144 frames) */
  const size_t want = keep + n;
  size_t drop, cap, c;
  char *d;

  keep = MIN (keep, h->len);
  drop = h->len - keep;
  if (h->len + n <= h->cap)
    return TRUE;                /* room behind what is there */
  if (keep + n <= h->cap) {
    /* a ring: dropping frames moves nothing, so no push ever pays for
     * moving the whole history (a 64-channel, 262144-tap clfirfilter
     * moved 67 MB every 128 blocks: 11 ms at once) */
    h->start += (int64_t) drop;
    h->head = h->cap ? (h->head + drop) % h->cap : 0;
    h->len = keep;
    return TRUE;
  }
  /* and an eighth more, so that calls of other sizes rarely grow it */
  cap = want + MAX (want / 8, n);
  d = g_try_malloc (h->channels * 2 * cap * ss);
  if (!d) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "Out of host memory for %" G_GSIZE_FORMAT " frames of input "
        "history", want);
    return FALSE;
  }
  for (c = 0; c < h->channels && keep > 0; c++)
    memcpy (d + c * 2 * cap * ss, clr_history_plane (h, c) + drop * ss,
        keep * ss);
  g_free (h->data);
  h->data = d;
  h->cap = cap;
  h->head = 0;
  h->start += (int64_t) drop;
  h->len = keep;
  if (!h->lazy)
    mirror (h, 0, keep);
  return TRUE;
}

/* n frames (in NULL: silence) written at storage frame `at` of every
 * channel's ring, nothing mirrored */
static void
write_frames (ClrHistory * h, const void *const *in, gboolean planar,
    size_t at, size_t n)
{
  const size_t ss = h->ssize, ch = h->channels;
  char *to[CLR_CHANNELS_MAX];
  size_t c;

  for (c = 0; c < ch; c++)
    to[c] = ring (h, c) + at * ss;
  if (!in)
    for (c = 0; c < ch; c++)
      memset (to[c], 0, n * ss);
  else if (planar || ch == 1)
    for (c = 0; c < ch; c++)
      memcpy (to[c], in[c], n * ss);
  else if (h->lazy)
    /* read only when a successor starts, if ever: past the caches (256
     * stereo streams on an H200, three rounds: 1.03x) */
    clr_deinterleave_stream (to, in[0], n, ch, ss);
  else
    clr_deinterleave (to, in[0], n, ch, ss);
}

void
clr_history_append (ClrHistory * h, const void *const *in, gboolean planar,
    size_t n)
{
  const size_t step = planar ? h->ssize : h->channels * h->ssize;
  size_t at, first, c;
  const void *rest[CLR_CHANNELS_MAX];

  g_assert (h->len + n <= h->cap);
  if (n == 0)
    return;                     /* an empty buffer's planes may be NULL */
  at = (h->head + h->len) % h->cap;
  h->len += n;
  h->unwrapped = FALSE;
  if (!h->lazy) {
    /* written once where the frames follow the history contiguously
     * (into the mirror half past cap), then mirrored */
    write_frames (h, in, planar, at, n);
    mirror (h, at, n);
    return;
  }
  /* lazy: into the first half only, to the ring's end and the rest from
   * its start */
  first = MIN (n, h->cap - at);
  write_frames (h, in, planar, at, first);
  if (first == n)
    return;
  for (c = 0; in && c < (planar ? h->channels : 1); c++)
    rest[c] = (const char *) in[c] + first * step;
  write_frames (h, in ? rest : NULL, planar, 0, n - first);
}

gboolean
clr_history_push (ClrHistory * h, size_t keep, const void *const *in,
    gboolean planar, size_t n, GError ** error)
{
  const size_t skip = n > keep ? n - keep : 0;
  const size_t step = planar ? h->ssize : h->channels * h->ssize;
  const void *tail[CLR_CHANNELS_MAX];
  size_t c;

  for (c = 0; in && c < (planar ? h->channels : 1); c++)
    tail[c] = (const char *) in[c] + skip * step;
  if (skip > 0)
    clr_history_reset (h, h->start + (int64_t) (h->len + skip));
  if (!clr_history_make_room (h, keep, n - skip, error))
    return FALSE;
  clr_history_append (h, in ? tail : NULL, planar, n - skip);
  return TRUE;
}

gboolean
clr_history_push_laid_out (ClrHistory * h, size_t keep, const void *base,
    size_t pitch, size_t step, size_t n, GError ** error)
{
  const void *planes[CLR_CHANNELS_MAX];
  const gboolean planar = step == 1 || h->channels == 1;
  size_t c;

  g_assert (planar || (pitch == 1 && step == h->channels));
  for (c = 0; base && c < (planar ? h->channels : 1); c++)
    planes[c] = (const char *) base + c * pitch * h->ssize;
  return clr_history_push (h, keep, base ? planes : NULL, planar, n, error);
}

void
clr_history_drop_last (ClrHistory * h, size_t n)
{
  /* the ring and its mirror hold the frames kept where they were */
  g_assert (n <= h->len);
  h->len -= n;
}

void
clr_history_read (ClrHistory * h, size_t len, char *host)
{
  const size_t ss = h->ssize;
  size_t c;

  g_assert (len <= h->len);
  for (c = 0; c < h->channels; c++)
    memcpy (host + c * len * ss, clr_history_plane (h, c) + (h->len - len) *
        ss, len * ss);
}

gboolean
clr_history_set (ClrHistory * h, int64_t start, const char *host, size_t pad,
    size_t len, GError ** error)
{
  const void *planes[CLR_CHANNELS_MAX];
  size_t c;

  clr_history_reset (h, start);
  if (!clr_history_make_room (h, 0, pad + len, error))
    return FALSE;
  for (c = 0; c < h->channels; c++)
    planes[c] = host + c * len * h->ssize;
  clr_history_append (h, NULL, TRUE, pad);
  clr_history_append (h, planes, TRUE, len);
  return TRUE;
}
