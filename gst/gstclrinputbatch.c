/* clresample: input frames held back to be resampled in one device launch.
 * See gstclrinputbatch.h. */
#include <string.h>
#include "gstclrinputbatch.h"

/* The storage outlives formats and state changes: allocated again each run
 * it left the heap of a player that cycles its pipeline a few KiB larger
 * every time (test-robust.c test_state_cycles). */
void
gst_clr_input_batch_configure (GstClrInputBatch * batch, gboolean planar,
    guint channels, gsize sample_size)
{
  batch->planar = planar;
  batch->channels = channels;
  batch->sample_size = sample_size;
  batch->frames = 0;
  batch->cap = batch->bytes / (channels * sample_size);
}

/* Planes move when the storage grows, so growing copies plane by plane. */
static void
grow (GstClrInputBatch * batch, gsize frames)
{
  gsize cap = MAX (MAX (frames, batch->cap * 2), 4096), c;
  gsize frame_bytes = batch->channels * batch->sample_size;
  guint8 *data = g_malloc (cap * frame_bytes);

  if (batch->frames && batch->planar) {
    for (c = 0; c < batch->channels; c++)
      memcpy (data + c * cap * batch->sample_size,
          batch->data + c * batch->cap * batch->sample_size,
          batch->frames * batch->sample_size);
  } else if (batch->frames) {
    memcpy (data, batch->data, batch->frames * frame_bytes);
  }
  g_free (batch->data);
  batch->data = data;
  batch->cap = cap;
  batch->bytes = cap * frame_bytes;
}

void
gst_clr_input_batch_append (GstClrInputBatch * batch, void *const *planes,
    gsize n)
{
  gsize ss = batch->sample_size, c;

  if (batch->frames + n > batch->cap)
    grow (batch, batch->frames + n);
  if (batch->planar) {
    for (c = 0; c < batch->channels; c++)
      memcpy (batch->data + (c * batch->cap + batch->frames) * ss, planes[c],
          n * ss);
  } else {
    memcpy (batch->data + batch->frames * batch->channels * ss, planes[0],
        n * batch->channels * ss);
  }
  batch->frames += n;
}

void
gst_clr_input_batch_planes (GstClrInputBatch * batch, void **planes)
{
  gsize c;

  if (!batch->planar) {
    planes[0] = batch->data;
    return;
  }
  for (c = 0; c < batch->channels; c++)
    planes[c] = batch->data + c * batch->cap * batch->sample_size;
}

void
gst_clr_input_batch_clear (GstClrInputBatch * batch)
{
  batch->frames = 0;
}

void
gst_clr_input_batch_free (GstClrInputBatch * batch)
{
  g_clear_pointer (&batch->data, g_free);
  batch->frames = batch->cap = batch->bytes = 0;
}
