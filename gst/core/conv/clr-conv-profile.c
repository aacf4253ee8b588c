/* clresample: a convolution's profile. See clr-conv-profile.h. */
#include <string.h>
#include "clr-conv-profile.h"

void
clr_conv_profile_batch (ClrConvProfile * p, cl_event ev[CLR_CONV_STAGES],
    size_t blocks, gint64 wall_us)
{
  cl_ulong start, end;
  guint i;

  for (i = 0; i < CLR_CONV_STAGES; i++) {
    /* a fused batch runs no sum */
    if (!ev[i])
      continue;
    if (clGetEventProfilingInfo (ev[i], CL_PROFILING_COMMAND_START,
            sizeof (start), &start, NULL) == CL_SUCCESS
        && clGetEventProfilingInfo (ev[i], CL_PROFILING_COMMAND_END,
            sizeof (end), &end, NULL) == CL_SUCCESS && end > start)
      p->ns[i] += end - start;
    clReleaseEvent (ev[i]);
    ev[i] = NULL;
  }
  p->ns[CLR_CONV_PROFILE_WALL] += (guint64) wall_us * 1000;
  p->batches++;
  p->blocks += blocks;
}

void
clr_conv_profile_since (ClrConvProfile * p, guint slot, gint64 t0_us)
{
  p->ns[slot] += (guint64) (g_get_monotonic_time () - t0_us) * 1000;
}

void
clr_conv_profile_report (ClrConvProfile * p, const char *what,
    const char *const names[CLR_CONV_PROFILE_SLOTS])
{
  const double n = (double) p->batches;
  GString *line;
  guint i;

  if (!p->batches)
    return;
  line = g_string_new (NULL);
  g_string_append_printf (line, "clr-conv profile: %s, %" G_GUINT64_FORMAT
      " batches of %.2f blocks; us a batch:", what, p->batches,
      p->blocks / n);
  for (i = 0; i < CLR_CONV_PROFILE_SLOTS; i++)
    g_string_append_printf (line, " %s %.1f", names[i], p->ns[i] / n / 1000.0);
  g_printerr ("%s\n", line->str);
  g_string_free (line, TRUE);
  /* a report a stream: the next one starts from nothing */
  memset (p->ns, 0, sizeof (p->ns));
  p->batches = p->blocks = 0;
}
