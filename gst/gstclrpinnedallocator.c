/* clresample: a GstAllocator of page-locked host memory.
 *
 * On a GPU the resampled audio comes back by DMA. Into ordinary memory the
 * driver copies it through a page-locked bounce buffer of its own (or the
 * engine through its staging buffer), one more pass over every output byte
 * than needed. Large output buffers from this allocator are page-locked
 * themselves, so the transfer lands in them directly; their blocks are
 * recycled by clr-hostmem when downstream frees them. Small ones (10 ms
 * of audio, a server's many streams) are ordinary memory: their output
 * shares a batch's one download (clr-sched.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstclrpinnedallocator.h"
#include "core/resample/clr-engine.h"
#include "core/device/clr-hostmem.h"

GST_DEBUG_CATEGORY_STATIC (clr_pinned_debug);
#define GST_CAT_DEFAULT clr_pinned_debug

struct _GstClrPinnedAllocator {
  GstAllocator parent;
  ClrDevice *dev;
};

typedef struct {
  GstMemory mem;
  guint8 *block;                /* the whole block: maxsize bytes */
} GstClrPinnedMemory;

G_DEFINE_TYPE (GstClrPinnedAllocator, gst_clr_pinned_allocator,
    GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstClrPinnedAllocator *self = GST_CLR_PINNED_ALLOCATOR (allocator);
  gsize align = params->align | gst_memory_alignment;
  gsize maxsize = size + params->prefix + params->padding;
  GstClrPinnedMemory *m;
  GError *err = NULL;
  guint8 *block;

  /* a small buffer's output comes through the scheduler's staging anyway,
   * and hundreds of streams' small page-locked blocks cost more to find
   * and map than they save */
  if (size < CLR_ENGINE_DIRECT_MIN_BYTES)
    return gst_allocator_alloc (NULL, size, params);

  /* blocks are page-aligned mappings, which any alignment mask below a
   * page (all that audio asks for) satisfies */
  block = clr_host_alloc (self->dev, maxsize, &err);
  if (!block) {
    /* page-locked memory is a limited resource: ordinary memory still
     * works, the engine then stages the transfer */
    GST_WARNING_OBJECT (self, "%s; using ordinary memory", err->message);
    g_error_free (err);
    return gst_allocator_alloc (NULL, size, params);
  }
  m = g_slice_new (GstClrPinnedMemory);
  m->block = block;
  gst_memory_init (GST_MEMORY_CAST (m), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && params->prefix)
    memset (block, 0, params->prefix);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED) && params->padding)
    memset (block + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (m);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * mem)
{
  GstClrPinnedMemory *m = (GstClrPinnedMemory *) mem;

  if (!mem->parent)
    clr_host_free (m->block);
  g_slice_free (GstClrPinnedMemory, m);
}

static gpointer
pinned_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstClrPinnedMemory *) mem)->block;
}

static void
pinned_unmap (GstMemory * mem)
{
}

static GstMemory *
pinned_share (GstMemory * mem, gssize offset, gssize size)
{
  GstClrPinnedMemory *m = (GstClrPinnedMemory *) mem, *sub;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  sub = g_slice_new (GstClrPinnedMemory);
  sub->block = m->block;
  /* a share is read-only; the block goes back when the parent does */
  gst_memory_init (GST_MEMORY_CAST (sub), GST_MINI_OBJECT_FLAGS (parent) |
      GST_MINI_OBJECT_FLAG_LOCK_READONLY, mem->allocator, parent,
      mem->maxsize, mem->align, mem->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static gboolean
pinned_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  if (offset)
    *offset = mem1->offset - mem1->parent->offset;
  return ((GstClrPinnedMemory *) mem1)->block ==
      ((GstClrPinnedMemory *) mem2)->block
      && mem1->offset + mem1->size == mem2->offset;
}

static void
gst_clr_pinned_allocator_finalize (GObject * object)
{
  GstClrPinnedAllocator *self = GST_CLR_PINNED_ALLOCATOR (object);

  clr_device_unref (self->dev);
  G_OBJECT_CLASS (gst_clr_pinned_allocator_parent_class)->finalize (object);
}

static void
gst_clr_pinned_allocator_class_init (GstClrPinnedAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (clr_pinned_debug, "clresample-pinned", 0,
      "clresample page-locked output buffers");
  gobject_class->finalize = gst_clr_pinned_allocator_finalize;
  allocator_class->alloc = GST_DEBUG_FUNCPTR (pinned_alloc);
  allocator_class->free = GST_DEBUG_FUNCPTR (pinned_free);
}

static void
gst_clr_pinned_allocator_init (GstClrPinnedAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = GST_CLR_PINNED_MEMORY_TYPE;
  alloc->mem_map = pinned_map;
  alloc->mem_unmap = pinned_unmap;
  alloc->mem_share = pinned_share;
  alloc->mem_is_span = pinned_is_span;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_clr_pinned_allocator_new (ClrDevice * dev)
{
  GstClrPinnedAllocator *self =
      g_object_new (GST_TYPE_CLR_PINNED_ALLOCATOR, NULL);

  gst_object_ref_sink (self);
  self->dev = clr_device_ref (dev);
  return GST_ALLOCATOR_CAST (self);
}
