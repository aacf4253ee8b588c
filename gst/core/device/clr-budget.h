/* clresample: device memory with a budget.
 *
 * Buffers are counted against a limit (bytes, 0: none; the engines pass
 * CLRESAMPLE_DEVICE_MEMORY, read by clr-tuning.c), for shared GPUs and for
 * testing the out-of-memory path, and against what the device can allocate
 * at once, so that a
 * refusal comes with a message saying what to change instead of an OpenCL
 * status code.
 */
#ifndef __CLR_BUDGET_H__
#define __CLR_BUDGET_H__

#include "clr-device.h"

G_BEGIN_DECLS

typedef struct {
  ClrDevice *dev;               /* not owned */
  guint64 limit;                /* 0: none */
  guint64 used;
} ClrBudget;

void clr_budget_init (ClrBudget * b, ClrDevice * dev, guint64 limit);
/* FALSE, with error set, if `bytes` more would pass the budget or the
 * device's largest allocation; `what` names the buffer in the message. */
gboolean clr_budget_check (ClrBudget * b, size_t bytes, const char *what,
    GError ** error);
cl_mem clr_budget_alloc (ClrBudget * b, cl_mem_flags flags, size_t bytes,
    void *host, const char *what, GError ** error);
/* Releases *mem (if any) and sets it to NULL. */
void clr_budget_free (ClrBudget * b, cl_mem * mem);

/* Shared virtual memory (fine-grained SVM buffers), where host and
 * kernels share memory (CPU devices): host writes need no upload and
 * kernels' outputs no read-back, only the launch and a wait. Counted
 * against the budget like device buffers. */
gboolean clr_budget_svm_supported (ClrDevice * dev);
char *clr_budget_svm_alloc (ClrBudget * b, size_t bytes, const char *what,
    GError ** error);
/* Frees *ptr (if any), `bytes` long, and sets it to NULL. */
void clr_budget_svm_free (ClrBudget * b, char **ptr, size_t bytes);

G_END_DECLS
#endif
