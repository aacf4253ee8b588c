/* clresample: device memory with a budget. See clr-budget.h. */
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
    char *what_call = g_strdup_printf ("Allocating the %s (%" G_GSIZE_FORMAT
        " bytes)", what, bytes);
    clr_set_cl_error (error, status, what_call);
    g_free (what_call);
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
