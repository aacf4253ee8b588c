/* clresample: filters built off the streaming thread.
 *
 * A live change of a filter's settings needs a new filter designed and set
 * up on the device, which for the longest filters takes longer than an
 * audio sink's buffer lasts (a million taps: 110-180 ms on two CPU cores).
 * The element hands that work to a GstClrBuilder, whose thread builds one
 * job at a time while the streaming thread plays on with the old filter,
 * and takes the result at the start of a later buffer, for the seamless
 * switch it always made. A newer job supersedes an older one: the job not
 * yet started is dropped, the one under way finishes and is thrown away.
 *
 * Where nobody is waiting for the output in real time (a file conversion,
 * a test harness, PAUSED), gst_clr_builder_wait () lets the streaming
 * thread wait for the job instead: the new filter then takes over at the
 * buffer after the change, as it did when it was built in line, and the
 * output does not depend on how fast the thread ran.
 */
#ifndef __GST_CLR_BUILDER_H__
#define __GST_CLR_BUILDER_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/* A buffer is waited for while its running time lies this far ahead of
 * the clock, or further: what is left for converting it and for the
 * elements downstream when the waiting ends. */
#define GST_CLR_BUILDER_MARGIN (50 * GST_MSECOND)

/* Builds `job` in place, on the builder's thread (or the caller's). It
 * must not touch the element: everything it needs is in the job. */
typedef void (*GstClrBuildFunc) (gpointer job);

typedef struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;              /* the last one started, to be joined */
  gboolean active;              /* the thread builds or is about to */
  gboolean cancel;
  gpointer queued;              /* the next job, not started */
  gpointer done;                /* the latest job, built, not taken */
  GstClrBuildFunc build;
  GDestroyNotify free_job;
  const gchar *name;            /* of the thread */
} GstClrBuilder;

void gst_clr_builder_init (GstClrBuilder * b, const gchar * name,
    GstClrBuildFunc build, GDestroyNotify free_job);
/* Cancels (gst_clr_builder_cancel ()) and frees the lock. */
void gst_clr_builder_clear (GstClrBuilder * b);

/* Takes `job` and builds it on the thread, superseding any job before. */
void gst_clr_builder_submit (GstClrBuilder * b, gpointer job);

/* TRUE while a job is queued or being built. */
gboolean gst_clr_builder_busy (GstClrBuilder * b);

/* The latest job once built (the caller owns it), or NULL. */
gpointer gst_clr_builder_take (GstClrBuilder * b);

/* While a job is being built, waits for it as long as `buf`, about to go
 * through `trans`, is GST_CLR_BUILDER_MARGIN or more ahead of the
 * pipeline clock, or to the end where no clock runs (not PLAYING, no
 * clock) or the buffer has no running time. TRUE if the job is done. */
gboolean gst_clr_builder_wait (GstClrBuilder * b, GstBaseTransform * trans,
    GstBuffer * buf);

/* Drops the queued and the built job, and waits for (and drops) the one
 * under way: afterwards no job is left and the thread has ended. */
void gst_clr_builder_cancel (GstClrBuilder * b);

G_END_DECLS
#endif
