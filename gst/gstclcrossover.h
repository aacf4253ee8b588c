/* clresample: GStreamer element splitting audio into bands with a
 * linear-phase multi-band FIR crossover on OpenCL devices. */
#ifndef __GST_CL_CROSSOVER_H__
#define __GST_CL_CROSSOVER_H__

#include <gst/gst.h>
#include "gstclrfirbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_CROSSOVER (gst_cl_crossover_get_type ())
G_DECLARE_FINAL_TYPE (GstClCrossover, gst_cl_crossover, GST, CL_CROSSOVER,
    GstClrFirBase);

GST_ELEMENT_REGISTER_DECLARE (clcrossover);

G_END_DECLS
#endif
