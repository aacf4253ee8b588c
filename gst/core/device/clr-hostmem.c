/* clresample: page-locked host memory. See clr-hostmem.h. */
#include "clr-hostmem.h"

/* Free blocks kept for reuse, at most this many bytes in all: a few
 * seconds of 8-channel audio, enough for a pipeline's buffers in flight. */
#define CLR_HOST_IDLE_BYTES (64u * 1024u * 1024u)
/* A free block serves a request of at least half its size, so a small
 * request does not pin a large block. */
#define CLR_HOST_MIN_FILL 2

typedef struct {
  ClrDevice *dev;
  cl_mem mem;
  char *ptr;
  size_t size;
  gboolean in_use;
} ClrHostBlock;

static GMutex host_lock;
static GList *blocks;           /* of ClrHostBlock*, newest first */
static size_t idle_bytes;

static void
block_release (ClrHostBlock * b)
{
  cl_command_queue q = clr_device_get_queue (b->dev);

  clEnqueueUnmapMemObject (q, b->mem, b->ptr, 0, NULL, NULL);
  clFinish (q);
  clReleaseMemObject (b->mem);
  clr_device_unref (b->dev);
  g_free (b);
}

static ClrHostBlock *
block_new (ClrDevice * dev, size_t bytes, GError ** error)
{
  ClrHostBlock *b = g_new0 (ClrHostBlock, 1);
  cl_int status;

  b->mem = clCreateBuffer (clr_device_get_context (dev),
      CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &status);
  if (status != CL_SUCCESS)
    goto failed;
  b->ptr = clEnqueueMapBuffer (clr_device_get_queue (dev), b->mem, CL_TRUE,
      CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &status);
  if (status != CL_SUCCESS) {
    clReleaseMemObject (b->mem);
    goto failed;
  }
  b->dev = clr_device_ref (dev);
  b->size = bytes;
  b->in_use = TRUE;
  return b;

failed:
  g_free (b);
  clr_set_cl_error (error, status, "Allocating page-locked host memory");
  return NULL;
}

void *
clr_host_alloc (ClrDevice * dev, size_t bytes, GError ** error)
{
  ClrHostBlock *b = NULL;
  GList *l;

  bytes = MAX (bytes, 1);
  g_mutex_lock (&host_lock);
  for (l = blocks; l; l = l->next) {
    ClrHostBlock *c = l->data;
    if (!c->in_use && c->dev == dev && c->size >= bytes
        && c->size / CLR_HOST_MIN_FILL <= bytes) {
      b = c;
      b->in_use = TRUE;
      idle_bytes -= b->size;
      break;
    }
  }
  g_mutex_unlock (&host_lock);
  if (b)
    return b->ptr;

  /* round up, so that slightly larger buffers later reuse the block */
  if (!(b = block_new (dev, bytes + bytes / 8, error)))
    return NULL;
  /* idle blocks hold their device: let clr_device_clear_cache () free them */
  clr_device_set_clear_hook (clr_host_release_idle);
  g_mutex_lock (&host_lock);
  blocks = g_list_prepend (blocks, b);
  g_mutex_unlock (&host_lock);
  return b->ptr;
}

void
clr_host_free (void *ptr)
{
  GList *l, *drop = NULL;

  if (!ptr)
    return;
  g_mutex_lock (&host_lock);
  for (l = blocks; l; l = l->next) {
    ClrHostBlock *b = l->data;
    if (b->ptr == ptr) {
      g_assert (b->in_use);
      b->in_use = FALSE;
      idle_bytes += b->size;
      /* most recently freed first: the next request most likely fits */
      blocks = g_list_delete_link (blocks, l);
      blocks = g_list_prepend (blocks, b);
      break;
    }
  }
  /* over the budget: release the oldest free blocks */
  for (l = g_list_last (blocks); l && idle_bytes > CLR_HOST_IDLE_BYTES;) {
    GList *prev = l->prev;
    ClrHostBlock *b = l->data;
    if (!b->in_use) {
      idle_bytes -= b->size;
      blocks = g_list_delete_link (blocks, l);
      drop = g_list_prepend (drop, b);
    }
    l = prev;
  }
  g_mutex_unlock (&host_lock);
  g_list_free_full (drop, (GDestroyNotify) block_release);
}

gboolean
clr_host_is_pinned (ClrDevice * dev, const void *ptr, size_t bytes)
{
  const char *p = ptr;
  gboolean found = FALSE;
  GList *l;

  g_mutex_lock (&host_lock);
  for (l = blocks; l && !found; l = l->next) {
    ClrHostBlock *b = l->data;
    found = b->in_use && b->dev == dev && p >= b->ptr
        && p + bytes <= b->ptr + b->size;
  }
  g_mutex_unlock (&host_lock);
  return found;
}

void
clr_host_release_idle (void)
{
  GList *l, *drop = NULL;

  g_mutex_lock (&host_lock);
  for (l = blocks; l;) {
    GList *next = l->next;
    ClrHostBlock *b = l->data;
    if (!b->in_use) {
      blocks = g_list_delete_link (blocks, l);
      drop = g_list_prepend (drop, b);
    }
    l = next;
  }
  idle_bytes = 0;
  g_mutex_unlock (&host_lock);
  g_list_free_full (drop, (GDestroyNotify) block_release);
}
