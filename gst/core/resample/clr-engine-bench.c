/* clresample: the resampling kernel's own time, for benchmarks
 * (clr_engine_bench_kernel () in clr-engine.h); kept out of the streaming
 * code. */
#include "clr-engine-private.h"

/* The kernel's own time, without the transfers around it: a job that
 * launches it 1 + iterations times less one that launches it once. */
gboolean
clr_engine_bench_kernel (ClrEngine * e, const void *const *in,
    size_t in_frames, unsigned iterations, void *const *out,
    size_t * out_frames, double *seconds_per_launch, GError ** error)
{
  size_t n_out;
  gint64 t0, t1, t2;
  gboolean ok = FALSE;

  *out_frames = 0;
  if (e->fft) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "The FFT path has no kernel of its own to time: bench the stream");
    return FALSE;
  }
  clr_engine_reset (e);
  n_out = clr_engine_out_frames (e, in_frames);
  if (n_out == 0) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_INVALID,
        "%" G_GSIZE_FORMAT " input frames complete no output", in_frames);
    return FALSE;
  }
  if (!clr_engine_append (e, in, in_frames, error))
    goto out;
  /* one warm-up job: first-use costs stay out of the figure */
  if (!clr_engine_run_job (e, in_frames, n_out, out, 1, error))
    goto out;
  t0 = g_get_monotonic_time ();
  if (!clr_engine_run_job (e, in_frames, n_out, out,
          1 + MAX (iterations, 1), error))
    goto out;
  t1 = g_get_monotonic_time ();
  if (!clr_engine_run_job (e, in_frames, n_out, out, 1, error))
    goto out;
  t2 = g_get_monotonic_time ();
  *seconds_per_launch = MAX ((t1 - t0) - (t2 - t1), 1) / 1e6 /
      MAX (iterations, 1);
  *out_frames = n_out;
  ok = TRUE;
out:
  clr_engine_reset (e);
  return ok;
}
