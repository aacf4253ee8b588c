/* clresample: the convolution's shared mode, GStreamer-free.
 *
 * Every ClrConv of a device in shared mode runs its blocks through the
 * device's scheduler (clr-sched.h), so that many streams' blocks go to the
 * device as one upload, three launches (the forward transforms, the
 * partition sums, the inverse transforms) and one download a batch
 * instead of a stream's own commands and wait each buffer: a server's 64
 * room-correction feeds then cost the device about as many launches as
 * one feed. Streams whose shape and filter are the same form a group,
 * which owns the kernels, the filter spectra and pools of device memory:
 * each stream of the group has a seat, its own ring of spectra and its
 * own product spectra in the pools. The kernels (kernels/conv.cl,
 * CLR_CONV_STREAMS) find a stream's seat, block count and buffers in its
 * row of the batch's stream table, so a stream's arithmetic is the same
 * whatever shares the launch: batched output is bit for bit the stream's
 * output alone. Nothing is kept for a stream between its calls but its
 * seat, so a stream that pauses or goes holds up no other.
 */
#ifndef __CLR_CONV_SHARED_H__
#define __CLR_CONV_SHARED_H__

#include <stdint.h>
#include "device/clr-device.h"
#include "device/clr-sched.h"

G_BEGIN_DECLS

/* The words of a call's row in the stream table (kernels/conv.cl: ROW_*;
 * 0 and 1 are the scheduler's CLR_ROW_WIN and CLR_ROW_OUT, in samples) */
enum {
  CLR_CONV_ROW_SEAT = 2,        /* the stream's seat in the pools */
  CLR_CONV_ROW_BLOCK,           /* its blocks before this call's first */
  CLR_CONV_ROW_BLOCKS,          /* the call's blocks */
  CLR_CONV_ROW_IN_CHAN,         /* the window: channel and frame steps */
  CLR_CONV_ROW_IN_FRAME,
  CLR_CONV_ROW_OUT_CHAN,        /* the output: plane and frame steps */
  CLR_CONV_ROW_OUT_FRAME,
};

/* What every stream of a group shares, and what makes its tables. */
typedef struct {
  uint32_t channels, n_out;     /* input channels; output planes */
  uint32_t block, hop, parts;   /* B, H and P (clr-conv.c) */
  uint32_t slots;               /* spectra in a stream's ring */
  uint32_t max_batch;           /* blocks a call, at most */
  uint32_t slices;              /* runs the partition sum is cut into */
  uint32_t filter_div;          /* output o uses filter o / filter_div */
  uint32_t filter_stride;       /* in vectors of 4 bins; 0: one filter */
  size_t bin_stride;            /* B + 1 bins rounded up to 4 */
  size_t csize;                 /* bytes a complex value in memory */
  size_t acc_size;              /* bytes of 4 bins of the sum, re or im */
  size_t fft_items;             /* a transform's work-items, at most */
  size_t mac_items;             /* the sum's work-items a group */
  /* seats of the key's first group, each next one's twice the last's; 0:
   * as many as its pool bytes hold */
  uint32_t first_seats;
  const char *options;          /* the program's build options */
  /* the twiddle table and the filter spectra, made for a new group */
  gboolean (*make_tables) (gpointer user, cl_mem * twiddles,
      cl_mem * spectra, GError ** error);
  gpointer user;
} ClrConvShape;

typedef struct _ClrConvGroup ClrConvGroup;

/* A stream's place: its scheduler, its group (the scheduler's shared
 * kernel) and its seat in the group's pools. */
typedef struct {
  ClrSched *sched;
  ClrSchedKernel *kern;
  ClrConvGroup *group;
  guint seat;
} ClrConvSeat;

/* Takes a seat in the group of `key` (which names the shape and the
 * filter), made from `shape` if it has none free. */
gboolean clr_conv_seat_take (ClrDevice * dev, ClrStaging staging,
    const char *key, const ClrConvShape * shape, ClrConvSeat * seat,
    GError ** error);
/* Gives the seat back (no call of the stream may be running). */
void clr_conv_seat_leave (ClrConvSeat * seat);

/* Device bytes a stream's seat holds: its ring and its products. */
size_t clr_conv_seat_bytes (const ClrConvShape * shape);

G_END_DECLS
#endif
