/* clresample: the CLRESAMPLE_* environment variables. See clr-tuning.h. */
#include "clr-tuning.h"

static ClrKnob
knob (gchar ** envp, const char *name)
{
  const char *v = g_environ_getenv (envp, name);
  ClrKnob k = { v != NULL, v ? g_ascii_strtoull (v, NULL, 10) : 0 };

  return k;
}

void
clr_tuning_read (ClrTuning * t, gchar ** envp)
{
  const char *kernels = g_environ_getenv (envp, "CLRESAMPLE_KERNELS");

  t->device_memory = knob (envp, "CLRESAMPLE_DEVICE_MEMORY").value;
  t->build_options = g_environ_getenv (envp, "CLRESAMPLE_BUILD_OPTIONS");
  t->no_fp64 = g_environ_getenv (envp, "CLRESAMPLE_NO_FP64") != NULL;
  t->profile = g_environ_getenv (envp, "CLRESAMPLE_PROFILE") != NULL;
  t->kernels.set = kernels != NULL;
  t->kernels.value = !g_strcmp0 (kernels, "gpu");
  t->pinned = knob (envp, "CLRESAMPLE_PINNED");
  t->svm = knob (envp, "CLRESAMPLE_SVM");
  t->iv = knob (envp, "CLRESAMPLE_IV");
  t->iv_shifted = knob (envp, "CLRESAMPLE_IV_SHIFTED");
  t->iv_dw = knob (envp, "CLRESAMPLE_IV_DW");
  t->cpi = knob (envp, "CLRESAMPLE_CPI");
  t->fpi = knob (envp, "CLRESAMPLE_FPI");
  t->local_size = knob (envp, "CLRESAMPLE_LOCAL_SIZE");
  t->conv_slices = knob (envp, "CLRESAMPLE_CONV_SLICES");
  t->conv_opw = knob (envp, "CLRESAMPLE_CONV_OPW");
  t->conv_vec = knob (envp, "CLRESAMPLE_CONV_VEC");
  t->conv_fused = knob (envp, "CLRESAMPLE_CONV_FUSED");
  t->conv_ahead = knob (envp, "CLRESAMPLE_CONV_AHEAD");
  t->conv_block = knob (envp, "CLRESAMPLE_CONV_BLOCK");
  t->conv_shared = knob (envp, "CLRESAMPLE_CONV_SHARED");
  t->conv_seats = knob (envp, "CLRESAMPLE_CONV_SEATS");
  t->conv_direct = knob (envp, "CLRESAMPLE_CONV_DIRECT");
  t->conv_levels = knob (envp, "CLRESAMPLE_CONV_LEVELS");
  t->conv_host = knob (envp, "CLRESAMPLE_CONV_HOST");
  t->resample_host = knob (envp, "CLRESAMPLE_RESAMPLE_HOST");
  t->conv_threads = knob (envp, "CLRESAMPLE_CONV_THREADS");
  t->xo_planes = knob (envp, "CLRESAMPLE_XO_PLANES");
  t->fft = knob (envp, "CLRESAMPLE_FFT");
  t->fft_block = knob (envp, "CLRESAMPLE_FFT_BLOCK");
  t->offline_fourstep = knob (envp, "CLRESAMPLE_OFFLINE_FOURSTEP");
  t->sched_depth = knob (envp, "CLRESAMPLE_SCHED_DEPTH");
  t->sched_spin = knob (envp, "CLRESAMPLE_SCHED_SPIN");
  t->sched_window = knob (envp, "CLRESAMPLE_SCHED_WINDOW");
}

static gpointer
read_environment (gpointer data)
{
  ClrTuning *t = data;
  gchar **envp = g_get_environ ();

  clr_tuning_read (t, envp);
  /* the snapshot goes; the one string the tuning keeps must outlive it, and
   * an interned string stays reachable (so leak checkers see it) for good */
  t->build_options = g_intern_string (t->build_options);
  g_strfreev (envp);
  return t;
}

const ClrTuning *
clr_tuning_get (void)
{
  static ClrTuning tuning;
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, read_environment, &tuning);
}

guint64
clr_knob_or (ClrKnob knob, guint64 fallback)
{
  return knob.set ? knob.value : fallback;
}

gboolean
clr_tuning_resample_host (const ClrTuning * t)
{
  /* a switch that shapes the kernels asks for them */
  const gboolean kernels = t->kernels.set || t->no_fp64 || t->pinned.set
      || t->svm.set || t->iv.set || t->cpi.set || t->fpi.set
      || t->local_size.set;

  return clr_knob_or (t->resample_host, !kernels) != 0;
}
