/* clresample: the OpenCL devices of this machine as an earlier process
 * listed them, kept in the cache on disk (clr-disk-cache.h).
 *
 * Listing the devices loads every OpenCL driver: on a CPU with PoCL that
 * is the dynamic linker relocating LLVM, 20-100 ms before the first
 * buffer of a stream that, on a CPU device, never runs a kernel (the
 * convolution elements run there on the host's own transforms). With the
 * listing remembered such a stream learns what its device is (a CPU, with
 * or without doubles, its largest allocation) without loading a driver,
 * and the device is opened only if something asks for its OpenCL objects.
 *
 * The entry is keyed by what decides the listing: the ICD loader's vendor
 * files (OCL_ICD_VENDORS or /etc/OpenCL/vendors: each file's name and
 * text, and the size and time of the library it names where that is a
 * path), the dynamic linker's cache (a driver installed or upgraded runs
 * ldconfig), the device nodes of GPUs (/dev/dri, /dev/nvidia*, /dev/kfd),
 * the machine (/etc/machine-id and the host name: a home folder shared by
 * several machines) and every variable of the environment that drivers
 * and the ICD loader read (OCL_*, POCL_*, CUDA_*, LD_PRELOAD, ...). Any
 * change there is another key, so another listing. GStreamer-free. */
#ifndef __CLR_DEVICE_INVENTORY_H__
#define __CLR_DEVICE_INVENTORY_H__

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint platform_index;
  guint device_index;
  guint64 type;                 /* cl_device_type */
  gboolean fp64;                /* it has cl_khr_fp64 */
  guint64 max_alloc;            /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
  guint64 local_mem;            /* CL_DEVICE_LOCAL_MEM_SIZE */
  guint32 compute_units;        /* CL_DEVICE_MAX_COMPUTE_UNITS */
  guint64 max_items_z;          /* CL_DEVICE_MAX_WORK_ITEM_SIZES[2] */
  char name[256];
} ClrInventoryDevice;

/* The devices (ClrInventoryDevice, in ICD order) an earlier process
 * listed under the same key, or NULL: none kept, the cache off
 * (CLRESAMPLE_CACHE=0), an entry found bad. */
GArray *clr_device_inventory_load (void);

/* Keeps a whole listing (every platform's devices, each with its type
 * and name) for later processes: on the cache's own thread, the caller
 * may hold locks. */
void clr_device_inventory_store (const ClrInventoryDevice * devices,
    guint n);

G_END_DECLS
#endif
