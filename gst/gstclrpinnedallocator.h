/* clresample: a GstAllocator of page-locked host memory (clr-hostmem.h). */
#ifndef __GST_CLR_PINNED_ALLOCATOR_H__
#define __GST_CLR_PINNED_ALLOCATOR_H__

#include <gst/gst.h>
#include "core/device/clr-device.h"

G_BEGIN_DECLS

#define GST_CLR_PINNED_MEMORY_TYPE "ClrPinnedMemory"
#define GST_TYPE_CLR_PINNED_ALLOCATOR (gst_clr_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstClrPinnedAllocator, gst_clr_pinned_allocator,
    GST, CLR_PINNED_ALLOCATOR, GstAllocator)

/* Memory the device's transfers can reach by DMA, so the element's output
 * buffers take the result straight from the device. */
GstAllocator *gst_clr_pinned_allocator_new (ClrDevice * dev);

G_END_DECLS
#endif
