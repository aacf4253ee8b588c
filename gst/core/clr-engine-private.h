/* clresample: the engine's internals, shared by clr-engine.c and
 * clr-engine-svm.c (the shared-memory path of CPU devices). Not installed,
 * not for the element. */
#ifndef __CLR_ENGINE_PRIVATE_H__
#define __CLR_ENGINE_PRIVATE_H__

/* for clSVMAlloc and clSetKernelArgSVMPointer, called only after checking
 * at run time that the device has OpenCL 2.0 and fine-grained SVM */
#define CL_TARGET_OPENCL_VERSION 200
#include "clr-budget.h"
#include "clr-engine.h"
#include "clr-history.h"
#include "clr-kernel-plan.h"

G_BEGIN_DECLS

/* Host memory for staging transfers: page-locked (clr-hostmem.h) on GPUs,
 * where DMA from pageable memory goes through an extra driver copy at a
 * fraction of the bus speed; plain memory on CPU devices, where it makes no
 * difference. */
typedef struct _ClrFftPath ClrFftPath;

typedef struct {
  char *ptr;
  size_t size;
  gboolean pinned;
} ClrHostBuf;


struct _ClrEngine {
  ClrDevice *dev;
  ClrEngineConfig cfg;
  ClrRatio ratio;
  ClrFilter filter;
  ClrBankLayout bank;
  cl_command_queue queue;
  cl_kernel kernel;
  cl_mem coef;
  cl_mem win[2];
  int active;
  size_t win_cap;               /* frames per window buffer */
  cl_mem out;
  size_t out_cap;               /* frames */
  size_t ssize;                 /* bytes per sample */
  gboolean zeroed;              /* the active window buffer is all zeros */
  size_t chunk_in;              /* most input frames one launch takes */
  ClrHostBuf in_stage;          /* input split into planes, for upload */
  ClrHostBuf out_stage;         /* output on its way back (GPUs only) */
  ClrBudget budget;             /* device bytes held, and the budget */
  ClrKernelPlan plan;           /* the kernel and how it runs */
  char *svm_win;                /* the window: planes of win_cap frames */
  size_t svm_base;              /* where frame win_start sits in each plane */
  char *svm_out;                /* the output, laid out as e->out would be */
  cl_event svm_done;            /* the last launch */

  int64_t in_total;
  uint64_t out_total;
  int64_t win_start;
  size_t win_len;
  uint64_t silent_tail;         /* trailing frames of the window known to be 0 */
  gboolean drained;
  uint32_t lag;                 /* input frames of delay: K/2, or K/2 + B
                                 * on the FFT path */
  ClrHistory hist;              /* the last max (history, K on the FFT
                                 * path) input frames, or none */
  ClrFftPath *fft;              /* the FFT path (clr-engine-fft.c), or NULL:
                                 * the kernels of resample.cl */
};

/* Refuses an allocation past the budget or past what the device can
 * allocate at once, with a message that says what to change. */
gboolean clr_engine_check_alloc (ClrEngine * e, size_t bytes,
    const char *what, GError ** error);
/* Waits for one command, polling briefly before blocking. */
cl_int clr_engine_wait_event (ClrEngine * e, cl_event ev);
/* n frames of ch interleaved samples of ss bytes into ch planes. */
void clr_engine_deinterleave (char *const *planes, const void *src, size_t n,
    size_t ch, size_t ss);

/* The shared-memory path (clr-engine-svm.c) */
char *clr_svm_plane (ClrEngine * e, size_t c);
gboolean clr_svm_ensure_window (ClrEngine * e, size_t frames,
    GError ** error);
gboolean clr_svm_ensure_out (ClrEngine * e, size_t frames, GError ** error);
gboolean clr_svm_zero (ClrEngine * e);
void clr_svm_write_zeros (ClrEngine * e, size_t from, size_t n);
void clr_svm_write_input (ClrEngine * e, const void *const *in,
    size_t n_in);
cl_event *clr_svm_event (ClrEngine * e);
gboolean clr_svm_read_output (ClrEngine * e, void *const *out,
    size_t n_out, GError ** error);
void clr_svm_get_history (ClrEngine * e, char *host, size_t len);
void clr_svm_put_history (ClrEngine * e, const char *host, size_t pad,
    size_t len);

/* The FFT path (clr-engine-fft.c): the engine's filter as I long FIRs
 * through the convolution engine, blocks of `block` frames, fed from
 * e->hist. */
gboolean clr_fft_new (ClrEngine * e, uint32_t block,
    const ClrTuning * tuning, GError ** error);
void clr_fft_free (ClrEngine * e);
uint32_t clr_fft_lag (ClrEngine * e);
void clr_fft_reset (ClrEngine * e);
gboolean clr_fft_is_silent (ClrEngine * e);
/* Trailing frames of silence in the input. */
uint64_t clr_fft_zero_run (ClrEngine * e);
gboolean clr_fft_push (ClrEngine * e, const void *const *in, size_t n_in,
    size_t max_out, void *const *out, size_t * out_frames, GError ** error);
/* Continues a stream: in_total, out_total and e->hist set, the history
 * from input frame `start`. */
gboolean clr_fft_continue (ClrEngine * e, int64_t start,
    uint64_t silent_tail, GError ** error);

G_END_DECLS
#endif
