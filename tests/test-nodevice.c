/* clresample: with no OpenCL platform at all (the ICD loader pointed at an
 * empty vendor folder by meson), the element must fail to start with an
 * error that tells the user what to install, not crash or hang. */
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>

GST_START_TEST (test_no_platform)
{
  GstElement *pipe;
  GstBus *bus;
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  fail_unless (g_getenv ("OCL_ICD_VENDORS") != NULL);
  pipe = gst_parse_launch ("audiotestsrc num-buffers=4 ! "
      "audio/x-raw,format=F32LE,rate=44100 ! clresample ! "
      "audio/x-raw,rate=48000 ! fakesink", &err);
  fail_unless (pipe != NULL && err == NULL);
  bus = gst_element_get_bus (pipe);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  fail_unless (g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          "clresample"));
  gst_message_parse_error (msg, &err, &debug);
  GST_INFO ("error: %s / %s", err->message, debug);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (err->message, "OpenCL") != NULL, "%s", err->message);
  fail_unless (strstr (debug, "pocl-opencl-icd") != NULL, "%s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

static Suite *
nodevice_suite (void)
{
  Suite *s = suite_create ("clresample-nodevice");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_no_platform);
  return s;
}

GST_CHECK_MAIN (nodevice);
