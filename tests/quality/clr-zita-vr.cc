/* clr-zita-vr.h's C API over zita-resampler's VResampler. */
#include <zita-resampler/vresampler.h>

#include "clr-zita-vr.h"

struct ClrZitaVr
{
  VResampler vr;
};

ClrZitaVr *
clr_zita_vr_new (double ratio, unsigned nchan, unsigned hlen)
{
  ClrZitaVr *z = new ClrZitaVr;

  if (z->vr.setup (ratio, nchan, hlen)) {
    delete z;
    return nullptr;
  }
  /* the documented start: hlen - 1 zeros in, so that the first real
   * input frame sits at the filter's centre and output frame 0 is at
   * input time 0 */
  z->vr.inp_count = z->vr.inpsize () / 2 - 1;
  z->vr.inp_data = nullptr;
  z->vr.out_count = 1 << 30;
  z->vr.out_data = nullptr;
  z->vr.process ();
  return z;
}

void
clr_zita_vr_free (ClrZitaVr * z)
{
  delete z;
}

void
clr_zita_vr_set_rratio (ClrZitaVr * z, double r)
{
  z->vr.set_rratio (r);
}

double
clr_zita_vr_latency (const ClrZitaVr * z)
{
  return z->vr.inpsize () / 2.0;
}

void
clr_zita_vr_process (ClrZitaVr * z, const float *in, unsigned *in_frames,
    float *out, unsigned *out_frames)
{
  z->vr.inp_count = *in_frames;
  z->vr.inp_data = const_cast < float *>(in);
  z->vr.out_count = *out_frames;
  z->vr.out_data = out;
  z->vr.process ();
  *in_frames = z->vr.inp_count;
  *out_frames = z->vr.out_count;
}
