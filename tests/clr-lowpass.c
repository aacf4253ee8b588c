/* clresample tests and benchmarks: a windowed-sinc low-pass. See
 * clr-lowpass.h. */
#include <math.h>
#include "clr-lowpass.h"

/* the `kernel` property is a GValueArray, deprecated in GLib */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
void
clr_test_set_lowpass (GstElement * e, guint taps)
{
  GValueArray *va = g_value_array_new (taps);
  GValue v = G_VALUE_INIT;
  guint k;

  g_value_init (&v, G_TYPE_DOUBLE);
  for (k = 0; k < taps; k++) {
    double x = k - (taps - 1) / 2.0, fc = 0.25;
    double sinc = x == 0 ? 2 * fc : sin (2 * G_PI * fc * x) / (G_PI * x);
    double w = 0.5 - 0.5 * cos (2 * G_PI * k / (taps - 1));

    g_value_set_double (&v, sinc * w);
    g_value_array_append (va, &v);
  }
  g_value_unset (&v);
  g_object_set (e, "kernel", va, NULL);
  g_value_array_free (va);
}

G_GNUC_END_IGNORE_DEPRECATIONS;
