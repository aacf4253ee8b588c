/* clresample: OpenCL devices shared by every resampler in the process.
 *
 * One context and one in-order queue per device, reference-counted; programs
 * are built once per device and set of build options, then reused (PoCL runs
 * LLVM on every build, which costs seconds). All functions are thread-safe.
 */
#ifndef __CLR_DEVICE_H__
#define __CLR_DEVICE_H__

/* OpenCL 1.2 is all the core asks of a device; clr-engine.c asks for the
 * 2.0 declarations (shared virtual memory), used after a run-time check */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <glib.h>

G_BEGIN_DECLS

#define CLR_ERROR (clr_error_quark ())
GQuark clr_error_quark (void);

typedef enum {
  CLR_ERROR_NO_PLATFORM,        /* no OpenCL platform at all (no ICD) */
  CLR_ERROR_NO_DEVICE,          /* platforms, but no device matches */
  CLR_ERROR_BUILD,              /* kernel build failed */
  CLR_ERROR_RESOURCES,          /* device memory or resources exhausted */
  CLR_ERROR_INVALID,            /* invalid arguments */
  CLR_ERROR_FAILED,             /* any other OpenCL failure */
  CLR_ERROR_LOST,               /* the device is lost (clr_device_lose ()) */
} ClrErrorCode;

typedef struct _ClrDevice ClrDevice;

/* spec: NULL or "auto" (the GPU with the fewest users, else the first
 * device; of the devices not lost, where there are any:
 * clr_device_set_lost ()), "gpu" (the first GPU), "cpu",
 * "P:D" (platform and device index), "N" (N-th device over all platforms),
 * or a case-insensitive substring of the device name. */
ClrDevice *clr_device_acquire (const char *spec, GError ** error);
/* Opens the device spec names on a thread of its own, ahead of the first
 * clr_device_acquire (spec), which then finds it open or waits for the
 * open under way instead of starting one: an element calls it as soon as
 * it knows it will run (added to a pipeline), so that opening the device
 * overlaps the pipeline's own setup. Once a spec a process; failures are
 * left to the acquire to report. CLRESAMPLE_PREFETCH=0 turns it off. */
void clr_device_prefetch (const char *spec);
/* Whether a prefetch of this process is still under way: its thread may
 * be loading a driver, and while the dynamic loader holds its lock for
 * that, a thread created elsewhere waits in pthread_create (51-57 ms
 * beside a dlopen of libLLVM here; the suspect for 20 ms of a live
 * stream's first buffer on an H100 machine). */
gboolean clr_device_prefetching (void);
/* Waits for every prefetch under way. A process must not exit while one
 * is inside a driver: exit ()'s handlers and the libraries' destructors
 * (NVIDIA's, LLVM's) then run beside a thread still loading and opening
 * them. On an H100 machine a live start that stopped and exited at its
 * first buffer, 5 ms in, while the prefetch was still opening the GPU
 * (0.25 s), died in 4 of 8 processes: signal 11, or glibc's "malloc ():
 * invalid size", and one hung. The elements that prefetch call it at
 * every stop, as they leave their bin and as they are freed
 * (gstclrcommon.h): waiting only as they were freed, 8 of 14 such
 * processes still died, their exit () before the free. */
void clr_device_prefetch_wait (void);
/* For a caller whose work on a CPU device runs on the host alone (the
 * convolution's host form, clr-conv.h; the resampler's host sums,
 * clr-resample-host.h; the caller knows whether its switches,
 * CLRESAMPLE_CONV_HOST and CLRESAMPLE_RESAMPLE_HOST, send it there):
 * where the listing an earlier process kept (clr-device-inventory.h)
 * says spec names a CPU device, that device, described but not opened:
 * no OpenCL driver is loaded until a call asks for its context, queue,
 * id or a program (clr_device_get_context () and the others open it
 * then). Otherwise clr_device_acquire (spec). */
ClrDevice *clr_device_acquire_host (const char *spec, GError ** error);
/* clr_device_prefetch () for such a caller: nothing where
 * clr_device_acquire_host () will describe the device */
void clr_device_prefetch_host (const char *spec);
/* For such a caller whose stream may start on a CPU device and move (a
 * live stream: the first sound should not wait for a GPU driver, which
 * opens in 0.24-0.31 s where the host serves a CPU at once): where spec
 * names a device other than a CPU that is not open yet (a prefetch may
 * be opening it), a CPU device, described (no OpenCL call, no wait: a
 * listing under way is passed by for the one an earlier process kept);
 * else NULL, and the caller acquires spec itself. */
ClrDevice *clr_device_acquire_interim (const char *spec);
/* FALSE for a device described and not yet opened */
gboolean clr_device_is_open (ClrDevice * dev);
ClrDevice *clr_device_ref (ClrDevice * dev);
void clr_device_unref (ClrDevice * dev);

/* A lost device: one whose work failed for good (a stream's job that
 * failed again when run alone after its batch failed, clr-sched.c's
 * isolation: two failures in a row). Marked once, for the process's life
 * of the device: "auto" then picks it only where every device is lost, so
 * that new elements and the streams that move off it go elsewhere. */
void clr_device_set_lost (ClrDevice * dev);
gboolean clr_device_is_lost (ClrDevice * dev);
/* What "auto" gives a stream that leaves the lost device `from`: another
 * device not marked lost (the GPU with the fewest users, else the first),
 * or NULL and an error (CLR_ERROR_NO_DEVICE) where there is none. */
ClrDevice *clr_device_acquire_other (ClrDevice * from, GError ** error);
/* TRUE where spec is "auto" (or NULL, or empty): the streams of such a
 * spec may move to another device. */
gboolean clr_device_spec_is_auto (const char *spec);
/* Whether dev still answers, by calls that never wait for it (a hung
 * device cannot hang the caller): it says it is available
 * (CL_DEVICE_AVAILABLE), and a buffer is made in its context and freed.
 * FALSE with the call that failed in error. */
gboolean clr_device_probe (ClrDevice * dev, GError ** error);
/* A stream's work failed on dev for good (clr_engine_device_failed ()):
 * whether dev is lost, that is no longer answers (clr_device_probe ()).
 * If so, marks it lost ("auto" then passes it by) and makes *error, that
 * failure, the error of a lost device (CLR_ERROR_LOST) that says which
 * device, what failed and the OpenCL call that fails on it now. A device
 * that still answers is not lost for one stream's failure, nor for a
 * fault that came twice by chance: FALSE, *error left as it is. */
gboolean clr_device_lose (ClrDevice * dev, GError ** error);

/* Devices stay open, with their compiled programs, after their last user
 * lets go; this drops the cache's hold, so devices nobody uses are released
 * at once and the others when their last user lets go (tests, leak
 * checkers). */
void clr_device_clear_cache (void);

/* What clr_device_clear_cache () calls first: another module's cache whose
 * entries hold devices lets go of them (clr-hostmem.c's free page-locked
 * blocks). Registered by that module, so that this one needs nothing of
 * it. */
void clr_device_set_clear_hook (void (*hook) (void));

const char *clr_device_get_name (ClrDevice * dev);
/* "P:D": its platform's and its own index, which tell apart devices of
 * one name (two cards of a model) */
const char *clr_device_get_where (ClrDevice * dev);
gboolean clr_device_has_fp64 (ClrDevice * dev);
/* TRUE for GPUs (and other non-CPU devices): they get kernels laid out for
 * wide SIMT execution rather than for CPU vector units. */
gboolean clr_device_is_gpu (ClrDevice * dev);
cl_context clr_device_get_context (ClrDevice * dev);
cl_command_queue clr_device_get_queue (ClrDevice * dev);
cl_device_id clr_device_get_id (ClrDevice * dev);
cl_ulong clr_device_get_max_alloc (ClrDevice * dev);
/* CL_DEVICE_LOCAL_MEM_SIZE, CL_DEVICE_MAX_COMPUTE_UNITS and the third of
 * CL_DEVICE_MAX_WORK_ITEM_SIZES (0 where it has fewer dimensions), read
 * when the devices were listed: without opening a described device */
cl_ulong clr_device_get_local_mem (ClrDevice * dev);
cl_uint clr_device_get_compute_units (ClrDevice * dev);
size_t clr_device_get_max_items_z (ClrDevice * dev);

/* The program built from `source` with `options`, cached per device. The
 * returned program belongs to the device: do not release it. */
cl_program clr_device_get_program (ClrDevice * dev, const char *source,
    const char *options, GError ** error);

/* One kernel argument: its size and where its value lies (value NULL:
 * that many bytes of local memory), or (svm not NULL) a pointer into
 * shared virtual memory, which then takes the place of the buffer. */
typedef struct {
  size_t size;
  const void *value;
  const void *svm;
} ClrKernelArg;

#define CLR_KERNEL_ARG(v) { sizeof (v), &(v), NULL }

/* Sets arguments 0 .. n - 1 of kernel; the first failure's status. */
cl_int clr_kernel_set_args (cl_kernel kernel, const ClrKernelArg * args,
    cl_uint n);
/* ... arguments first .. first + n - 1 */
cl_int clr_kernel_set_args_from (cl_kernel kernel, cl_uint first,
    const ClrKernelArg * args, cl_uint n);

/* Sets error from an OpenCL status code and a description of the call. */
void clr_set_cl_error (GError ** error, cl_int status, const char *what);
const char *clr_cl_status_name (cl_int status);

/* Lists the devices as "P:D name (type)" lines; for messages and tools. */
char *clr_device_describe_all (void);

G_END_DECLS
#endif
