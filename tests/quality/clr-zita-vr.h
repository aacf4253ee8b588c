/* A C API over zita-resampler's VResampler (a C++ class), for
 * clr-drift-quality: float32 interleaved in and out. */
#ifndef __CLR_ZITA_VR_H__
#define __CLR_ZITA_VR_H__

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ClrZitaVr ClrZitaVr;

/* ratio = output rate / input rate; hlen 8..96 (half the filter length
 * in input frames at ratio >= 1). NULL when VResampler refuses. */
ClrZitaVr *clr_zita_vr_new (double ratio, unsigned nchan, unsigned hlen);
void clr_zita_vr_free (ClrZitaVr * z);
/* A factor on the ratio (VResampler::set_rratio). */
void clr_zita_vr_set_rratio (ClrZitaVr * z, double r);
/* Input frames of delay: inpsize () / 2, the filter's half length. */
double clr_zita_vr_latency (const ClrZitaVr * z);
/* Reads up to *in_frames (NULL input: zeros), writes up to *out_frames;
 * both are updated to what is left, as VResampler's inp_count and
 * out_count are. */
void clr_zita_vr_process (ClrZitaVr * z, const float *in,
    unsigned *in_frames, float *out, unsigned *out_frames);

#ifdef __cplusplus
}
#endif
#endif
