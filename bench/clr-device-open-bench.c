/* clr-device-open-bench: what opening the default OpenCL device costs a
 * process (docs/performance.md, "A fresh process's start"): the first
 * clr_device_acquire () of the process (the ICD loader starting every
 * vendor's driver, a context and a queue), then N - 1 more, as N elements
 * starting in one pipeline make them (each finds the device open).
 *
 * END says how the process ends, to time it from outside (the process's
 * wall less the first acquire; docs/performance.md, "And where its end
 * goes"): keep (the device cached, as the plugin leaves it), clear (the
 * context released first, timed), _exit (no exit handlers at all).
 *
 * usage: clr-device-open-bench [N] [SPEC] [END]     (256 auto keep)
 * e.g. OCL_ICD_VENDORS=/etc/OpenCL/vendors/nvidia.icd
 *        build/bench/clr-device-open-bench  (one vendor's driver alone) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include "device/clr-device.h"

int
main (int argc, char **argv)
{
  const int n = argc > 1 ? MAX (atoi (argv[1]), 1) : 256;
  const char *spec = argc > 2 ? argv[2] : "auto";
  const char *end = argc > 3 ? argv[3] : "keep";
  ClrDevice **devs = g_new0 (ClrDevice *, n);
  GError *error = NULL;
  gint64 t0, t1, t2;
  int i;

  t0 = g_get_monotonic_time ();
  devs[0] = clr_device_acquire (spec, &error);
  t1 = g_get_monotonic_time ();
  if (!devs[0]) {
    fprintf (stderr, "clr-device-open-bench: %s\n", error->message);
    g_error_free (error);
    g_free (devs);
    return 1;
  }
  for (i = 1; i < n; i++)
    devs[i] = clr_device_acquire (spec, NULL);
  t2 = g_get_monotonic_time ();
  printf ("'%s': the first acquire %.1f ms, the next %d %.3f ms each\n",
      clr_device_get_name (devs[0]), (t1 - t0) / 1e3, n - 1,
      n > 1 ? (t2 - t1) / 1e3 / (n - 1) : 0.0);
  for (i = 0; i < n; i++)
    if (devs[i])
      clr_device_unref (devs[i]);
  g_free (devs);
  if (!strcmp (end, "clear")) {
    t0 = g_get_monotonic_time ();
    clr_device_clear_cache ();
    printf ("the context released in %.1f ms\n",
        (g_get_monotonic_time () - t0) / 1e3);
  }
  fflush (stdout);
  if (!strcmp (end, "_exit"))
    _exit (0);
  return 0;
}
