/* clresample tests: a gate for threads that must meet. See clr-gate.h. */
#include "clr-gate.h"


void
gate_init (Gate * g)
{
  g_mutex_init (&g->lock);
  g_cond_init (&g->cond);
  g->count = 0;
  g->open = FALSE;
}

void
gate_clear (Gate * g)
{
  g_mutex_clear (&g->lock);
  g_cond_clear (&g->cond);
}

void
gate_arrive (Gate * g)
{
  g_mutex_lock (&g->lock);
  g->count++;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

void
gate_pass (Gate * g)
{
  gate_arrive (g);
  g_mutex_lock (&g->lock);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
}

void
gate_open (Gate * g)
{
  g_mutex_lock (&g->lock);
  g->open = TRUE;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

gboolean
gate_wait_count (Gate * g, guint n, gint64 deadline)
{
  gboolean reached;

  g_mutex_lock (&g->lock);
  while (g->count < n)
    if (!g_cond_wait_until (&g->cond, &g->lock, deadline))
      break;
  reached = g->count >= n;
  g_mutex_unlock (&g->lock);
  return reached;
}

guint
gate_count (Gate * g)
{
  guint n;

  g_mutex_lock (&g->lock);
  n = g->count;
  g_mutex_unlock (&g->lock);
  return n;
}

GstPadProbeReturn
stall_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Stall *stall = user_data;

  if (GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info)) >= stall->at)
    gate_pass (&stall->gate);
  return GST_PAD_PROBE_OK;
}
