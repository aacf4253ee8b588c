/* The leak check's own check: run by tests/lsan-canary.py in the sanitizer
 * build only. It does what the element tests do (a real pipeline through
 * clresample on the OpenCL device, so PoCL's and GStreamer's threads and
 * LLVM's thread-local storage are all there when LeakSanitizer runs at
 * exit), then loses one block of CANARY_BYTES on purpose. The leak check
 * is alive, under exactly the options the sanitizer pass uses, only if
 * LeakSanitizer reports that block. */
#include <gst/gst.h>

#define CANARY_BYTES 4242

/* volatile: the compiler may not drop the allocation or keep a copy of the
 * pointer that LeakSanitizer would find */
static gpointer volatile canary;

static gboolean
run_pipeline (void)
{
  GError *err = NULL;
  GstElement *pipe;
  GstMessage *msg;
  gboolean ok;

  pipe = gst_parse_launch ("audiotestsrc num-buffers=8 samplesperbuffer=1024"
      " ! audio/x-raw,format=F32LE,rate=44100,channels=2 ! clresample"
      " ! audio/x-raw,rate=48000 ! fakesink", &err);
  if (!pipe) {
    g_printerr ("canary: %s\n", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok)
    g_printerr ("canary: the pipeline did not reach EOS\n");
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return ok;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (!run_pipeline ())
    return 2;
  canary = g_malloc0 (CANARY_BYTES);
  canary = NULL;
  g_print ("canary: lost %d bytes on purpose\n", CANARY_BYTES);
  return 0;
}
