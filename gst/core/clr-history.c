/* clresample: the last input frames of a stream. See clr-history.h. */
#include <string.h>
#include "clr-engine-private.h"
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
  h->len = 0;
}

void
clr_history_reset (ClrHistory * h, int64_t start)
{
  h->start = start;
  h->len = 0;
}

char *
clr_history_plane (ClrHistory * h, size_t c)
{
  return h->data + c * h->cap * h->ssize;
}

gboolean
clr_history_make_room (ClrHistory * h, size_t keep, size_t n,
    GError ** error)
{
  const size_t ss = h->ssize;
  size_t drop, c;

  keep = MIN (keep, h->len);
  drop = h->len - keep;
  if (keep + n <= h->cap && h->len + n <= h->cap) {
    /* room behind what is there: nothing moves */
    return TRUE;
  }
  if (keep + n <= h->cap) {
    for (c = 0; c < h->channels && keep > 0; c++)
      memmove (clr_history_plane (h, c), clr_history_plane (h, c) + drop * ss,
          keep * ss);
  } else {
    /* half as much again: a move every keep / 2 frames at most, each
     * frame moved about twice in all */
    size_t cap = keep + n + MAX (keep / 2, n);
    char *d = g_try_malloc (h->channels * cap * ss);

    if (!d) {
      g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
          "Out of host memory for %" G_GSIZE_FORMAT " frames of input "
          "history", keep + n);
      return FALSE;
    }
    for (c = 0; c < h->channels && keep > 0; c++)
      memcpy (d + c * cap * ss, clr_history_plane (h, c) + drop * ss,
          keep * ss);
    g_free (h->data);
    h->data = d;
    h->cap = cap;
  }
  h->start += drop;
  h->len = keep;
  return TRUE;
}

void
clr_history_append (ClrHistory * h, const void *const *in, gboolean planar,
    size_t n)
{
  const size_t ss = h->ssize, ch = h->channels;
  char *at[CLR_CHANNELS_MAX];
  size_t c;

  g_assert (h->len + n <= h->cap);
  if (n == 0)
    return;                     /* an empty buffer's planes may be NULL */
  for (c = 0; c < ch; c++)
    at[c] = clr_history_plane (h, c) + h->len * ss;
  if (!in)
    for (c = 0; c < ch; c++)
      memset (at[c], 0, n * ss);
  else if (planar || ch == 1)
    for (c = 0; c < ch; c++)
      memcpy (at[c], in[c], n * ss);
  else
    clr_engine_deinterleave (at, in[0], n, ch, ss);
  h->len += n;
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
  const size_t ss = h->ssize;
  size_t c;

  clr_history_reset (h, start);
  if (!clr_history_make_room (h, 0, pad + len, error))
    return FALSE;
  for (c = 0; c < h->channels; c++) {
    memset (clr_history_plane (h, c), 0, pad * ss);
    memcpy (clr_history_plane (h, c) + pad * ss, host + c * len * ss,
        len * ss);
  }
  h->len = pad + len;
  return TRUE;
}
