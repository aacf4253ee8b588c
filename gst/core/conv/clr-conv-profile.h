/* clresample: CLRESAMPLE_PROFILE's account of a convolution's batches,
 * GStreamer-free: the device's time in each of a batch's commands (from
 * their events), the host's wall time around the batch and in the
 * caller's source and sink callbacks, summed and printed as microseconds
 * a batch when the stream ends. Kept out of clr-conv.c, which only calls
 * it where profiling is on. */
#ifndef __CLR_CONV_PROFILE_H__
#define __CLR_CONV_PROFILE_H__

#include <glib.h>
#include "device/clr-device.h"

G_BEGIN_DECLS

/* a batch's device commands: upload, forward, sum, inverse, read-back */
#define CLR_CONV_STAGES 5
/* the host's slots after them */
#define CLR_CONV_PROFILE_WALL CLR_CONV_STAGES
#define CLR_CONV_PROFILE_SOURCE (CLR_CONV_STAGES + 1)
#define CLR_CONV_PROFILE_SINK (CLR_CONV_STAGES + 2)
#define CLR_CONV_PROFILE_SLOTS (CLR_CONV_STAGES + 3)

typedef struct
{
  gboolean on;                  /* CLRESAMPLE_PROFILE: events are taken */
  guint64 ns[CLR_CONV_PROFILE_SLOTS];
  guint64 batches, blocks;
} ClrConvProfile;

/* Adds a finished batch of `blocks` blocks: the device times of its
 * commands' events (NULL: a command the batch did not run), which it
 * releases and clears, and the host's wall time around it. */
void clr_conv_profile_batch (ClrConvProfile * p,
    cl_event ev[CLR_CONV_STAGES], size_t blocks, gint64 wall_us);

/* Adds the wall time since t0_us (g_get_monotonic_time ()) to a slot. */
void clr_conv_profile_since (ClrConvProfile * p, guint slot, gint64 t0_us);

/* Prints the account as microseconds a batch, each slot under its name
 * (CLR_CONV_PROFILE_SLOTS of them), after `what` (the convolution's
 * shape), and starts a new one. Nothing when no batch ran. */
void clr_conv_profile_report (ClrConvProfile * p, const char *what,
    const char *const names[CLR_CONV_PROFILE_SLOTS]);

G_END_DECLS
#endif
