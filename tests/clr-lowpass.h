/* clresample tests and benchmarks: the windowed-sinc low-pass the fault
 * test's and the soak's clfirfilter elements run. */
#ifndef __CLR_LOWPASS_H__
#define __CLR_LOWPASS_H__

#include <gst/gst.h>

/* Sets clfirfilter e's kernel to a windowed-sinc low-pass of `taps` taps,
 * its cut-off at a quarter of the rate, Hann window. */
void clr_test_set_lowpass (GstElement * e, guint taps);

#endif
