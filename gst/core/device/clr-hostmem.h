/* clresample: page-locked host memory for fast transfers to and from a
 * device.
 *
 * GPUs copy from and to page-locked memory by DMA at bus speed; from
 * ordinary (pageable) memory the driver first copies through a bounce buffer
 * of its own. Page-locked memory is an ALLOC_HOST_PTR buffer kept mapped;
 * allocating one costs about a millisecond on an H100, so freed blocks are
 * kept and handed out again (by any engine or element on the device) until
 * clr_host_release_idle(). All functions are thread-safe.
 */
#ifndef __CLR_HOSTMEM_H__
#define __CLR_HOSTMEM_H__

#include "clr-device.h"

G_BEGIN_DECLS

/* At least `bytes` of page-locked memory for transfers with dev, aligned
 * for any sample type (the mapping is page-aligned in practice). */
void *clr_host_alloc (ClrDevice * dev, size_t bytes, GError ** error);
void clr_host_free (void *ptr);

/* TRUE if [ptr, ptr + bytes) lies within one block allocated for dev. */
gboolean clr_host_is_pinned (ClrDevice * dev, const void *ptr, size_t bytes);

/* Releases every free block (clr_device_clear_cache () calls it, once a
 * block was ever made). */
void clr_host_release_idle (void);

G_END_DECLS
#endif
