/* clresample: input frames held back to be resampled in one device launch.
 *
 * Every device launch costs a hand-off to the driver's threads (on PoCL,
 * waking a core that had gone idle while the upstream element worked: 20 to
 * 40 us on the 2-core CPU, more than the kernel's work for a 1024-frame
 * buffer). When a stream runs well ahead of the pipeline clock and nothing
 * downstream is waiting on each buffer, the element gathers small buffers
 * here and converts them together. See gst_cl_resample_may_hold(). */
#ifndef __GST_CLR_INPUT_BATCH_H__
#define __GST_CLR_INPUT_BATCH_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gboolean planar;              /* channel planes, not interleaved frames */
  guint channels;
  gsize sample_size;            /* bytes per sample */
  gsize frames;                 /* frames held */
  gsize cap;                    /* frames the storage holds (per plane) */
  gsize bytes;                  /* bytes allocated */
  guint8 *data;
} GstClrInputBatch;

void gst_clr_input_batch_configure (GstClrInputBatch * batch, gboolean planar,
    guint channels, gsize sample_size);
/* Appends n frames: planes[0] interleaved, or one plane per channel. */
void gst_clr_input_batch_append (GstClrInputBatch * batch,
    void *const *planes, gsize n);
/* The held frames as the engine takes them (planes has one pointer per
 * channel, or one for interleaved frames). */
void gst_clr_input_batch_planes (GstClrInputBatch * batch, void **planes);
void gst_clr_input_batch_clear (GstClrInputBatch * batch);
/* Frees the storage (configure keeps it, for the next format or run). */
void gst_clr_input_batch_free (GstClrInputBatch * batch);

G_END_DECLS
#endif
