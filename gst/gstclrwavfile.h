/* clresample: a filter's WAV file read straight from its bytes.
 *
 * clfirfilter reads any audio file GStreamer decodes through decodebin;
 * in a player that pipeline's set-up (typefinding among every installed
 * plugin) cost 240 ms of the first buffer's wait for a 64k-tap WAV on the
 * 2-core CPU. The common case, a RIFF WAVE file of PCM or float samples,
 * is read here instead in a few ms; anything else (another container, a
 * compressed or unusual format, a malformed header) is left to
 * decodebin.
 */
#ifndef __GST_CLR_WAV_FILE_H__
#define __GST_CLR_WAV_FILE_H__

#include <glib.h>

G_BEGIN_DECLS

/* The samples of the RIFF WAVE file at `location`, as doubles,
 * interleaved (*frames x *channels), scaled as GStreamer's unpacking of
 * them is (integers over 2^(bits - 1), unsigned 8-bit about 128, floats as
 * they are), with its rate. FALSE where the file is not such a WAV or
 * cannot be read: the caller then tries decodebin, which says why. */
gboolean gst_clr_wav_file_read (const gchar * location, double **samples,
    gsize * frames, guint * channels, gint * rate);

G_END_DECLS
#endif
