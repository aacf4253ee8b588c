/* clresample: GStreamer element filtering audio with long FIR filters
 * (partitioned FFT convolution) on OpenCL devices. */
#ifndef __GST_CL_FIR_FILTER_H__
#define __GST_CL_FIR_FILTER_H__

#include <gst/gst.h>
#include "gstclrfirbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CL_FIR_FILTER (gst_cl_fir_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstClFirFilter, gst_cl_fir_filter, GST, CL_FIR_FILTER,
    GstClrFirBase);

GST_ELEMENT_REGISTER_DECLARE (clfirfilter);

G_END_DECLS
#endif
