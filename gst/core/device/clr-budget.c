/* clresample: device memory with a budget. See clr-budget.h. */
/* for clSVMAlloc, called only after checking at run time that the device
 * has OpenCL 2.0 and fine-grained SVM */
#define CL_TARGET_OPENCL_VERSION 200
#include "clr-budget.h"

void
clr_budget_init (ClrBudget * b, ClrDevice * dev, guint64 limit)
{
  b->dev = dev;
  b->limit = limit;
  b->used = 0;
}

gboolean
clr_budget_check (ClrBudget * b, size_t bytes, const char *what,
    GError ** error)
{
  if (b->limit && b->used + bytes > b->limit) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "The %s needs %" G_GSIZE_FORMAT " bytes of device memory, over the "
        "budget of %" G_GUINT64_FORMAT " bytes (CLRESAMPLE_DEVICE_MEMORY, %"
        G_GUINT64_FORMAT " bytes already in use); use fewer channels or "
        "taps", what, bytes, b->limit, b->used);
    return FALSE;
  }
  if (bytes > clr_device_get_max_alloc (b->dev)) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_RESOURCES,
        "The %s needs %" G_GSIZE_FORMAT " bytes, more than '%s' can allocate "
        "at once (%" G_GUINT64_FORMAT "); use fewer channels, fewer taps or "
        "smaller buffers",
        what, bytes, clr_device_get_name (b->dev),
        (guint64) clr_device_get_max_alloc (b->dev));
    return FALSE;
  }
  return TRUE;
}

/* An allocation's failure, with what and how much it was */
static void
set_alloc_error (GError ** error, cl_int status, const char *what,
    size_t bytes, const char *kind)
{
  char *what_call = g_strdup_printf ("Allocating the %s (%" G_GSIZE_FORMAT
      " bytes%s)", what, bytes, kind);

  clr_set_cl_error (error, status, what_call);
  g_free (what_call);
}

cl_mem
clr_budget_alloc (ClrBudget * b, cl_mem_flags flags, size_t bytes,
    void *host, const char *what, GError ** error)
{
  cl_int status;
  cl_mem mem;

  if (!clr_budget_check (b, bytes, what, error))
    return NULL;
  mem = clCreateBuffer (clr_device_get_context (b->dev), flags, bytes, host,
      &status);
  if (status != CL_SUCCESS) {
    set_alloc_error (error, status, what, bytes, "");
    return NULL;
  }
  b->used += bytes;
  return mem;
}

void
clr_budget_free (ClrBudget * b, cl_mem * mem)
{
  size_t bytes = 0;

  if (!*mem)
    return;
  clGetMemObjectInfo (*mem, CL_MEM_SIZE, sizeof (bytes), &bytes, NULL);
  b->used -= MIN (b->used, bytes);
  clReleaseMemObject (*mem);
  *mem = NULL;
}

/* Whether host and kernels can share memory on this device: fine-grained
 * SVM buffers (OpenCL 2.0), CPU devices only. */
gboolean
clr_budget_svm_supported (ClrDevice * dev)
{
  cl_device_id id = clr_device_get_id (dev);
  cl_device_svm_capabilities caps = 0;
  size_t len = 0;
  char *version;
  guint64 major = 0;

  /* GPUs stage through page-locked memory: SVM there may put every access
   * of the kernel across the bus */
  if (clr_device_is_gpu (dev))
    return FALSE;
  if (clGetDeviceInfo (id, CL_DEVICE_VERSION, 0, NULL, &len) != CL_SUCCESS)
    return FALSE;
  version = g_malloc0 (len + 1);
  if (clGetDeviceInfo (id, CL_DEVICE_VERSION, len, version, NULL) ==
      CL_SUCCESS && g_str_has_prefix (version, "OpenCL "))
    major = g_ascii_strtoull (version + 7, NULL, 10);
  g_free (version);
  /* SVM came with OpenCL 2.0; asking a 1.2 device is an error */
  if (major < 2 || clGetDeviceInfo (id, CL_DEVICE_SVM_CAPABILITIES,
          sizeof (caps), &caps, NULL) != CL_SUCCESS)
    return FALSE;
  return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

char *
clr_budget_svm_alloc (ClrBudget * b, size_t bytes, const char *what,
    GError ** error)
{
  char *ptr;

  if (!clr_budget_check (b, bytes, what, error))
    return NULL;
  ptr = clSVMAlloc (clr_device_get_context (b->dev),
      CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
  if (!ptr) {
    set_alloc_error (error, CL_MEM_OBJECT_ALLOCATION_FAILURE, what, bytes,
        " of shared virtual memory");
    return NULL;
  }
  b->used += bytes;
  return ptr;
}

void
clr_budget_svm_free (ClrBudget * b, char **ptr, size_t bytes)
{
  if (!*ptr)
    return;
  clSVMFree (clr_device_get_context (b->dev), *ptr);
  b->used -= MIN (b->used, bytes);
  *ptr = NULL;
}
