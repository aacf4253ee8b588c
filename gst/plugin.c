/* clresample: plugin entry point. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include "gstclresample.h"
#include "gstclfirfilter.h"
#include "gstclcrossover.h"
#include "gstclrcommon.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok;

  gst_clr_core_log_init ();
  ok = GST_ELEMENT_REGISTER (clresample, plugin);
  ok &= GST_ELEMENT_REGISTER (clfirfilter, plugin);
  ok &= GST_ELEMENT_REGISTER (clcrossover, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, clresample,
    "Audio resampling, FIR filtering and crossovers on OpenCL devices",
    plugin_init, PACKAGE_VERSION, "LGPL", PACKAGE_NAME, PACKAGE_ORIGIN)
