/* clresample tests: a gate for threads that must meet. A counter that
 * threads bump and others wait on, and a door that stays shut until
 * opened: streams started together, a stalled one counted, and a pad
 * probe that stalls a stream at a gate. */
#ifndef __CLR_GATE_H__
#define __CLR_GATE_H__

#include <gst/gst.h>

typedef struct
{
  GMutex lock;
  GCond cond;
  guint count;
  gboolean open;
} Gate;

void gate_init (Gate * g);
void gate_clear (Gate * g);
/* Counts this thread in. */
void gate_arrive (Gate * g);
/* Counts this thread in, then waits until the gate is opened. */
void gate_pass (Gate * g);
void gate_open (Gate * g);
/* Whether the count reached n before `deadline` (monotonic). */
gboolean gate_wait_count (Gate * g, guint n, gint64 deadline);
guint gate_count (Gate * g);

/* A pad probe (user data: a Stall) that shuts the streaming thread in at
 * the first buffer whose offset reaches `at`, until the gate opens. */
typedef struct
{
  Gate gate;
  guint64 at;
} Stall;

GstPadProbeReturn stall_probe (GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data);

#endif
