/* clresample: the CLRESAMPLE_* environment variables, GStreamer-free.
 *
 * The only place in gst/ that reads the environment: once a process, on
 * first use, into a ClrTuning that the device and the engine then consult.
 * Users need two of the variables; the others are switches for the tests,
 * the benchmarks and kernel tuning, each forcing a code path the defaults
 * (clr-kernel-plan.h) would not take on this device.
 *
 * variable                  for     values   forces
 * CLRESAMPLE_DEVICE_MEMORY  users   bytes    a device-memory budget for each
 *                                            engine (shared GPUs); past it, a
 *                                            clear error (0, unset: none)
 * CLRESAMPLE_BUILD_OPTIONS  users,  text     OpenCL build options appended to
 *                           tuning           the kernels' own (a driver's
 *                                            compiler; -DCLR_BLK=1|2|4)
 * CLRESAMPLE_NO_FP64        tests   set      devices look as if they had no
 *                                            cl_khr_fp64 (even when set to 0):
 *                                            float-only kernels, F64 refused
 * CLRESAMPLE_KERNELS        tests   cpu|gpu  that kernel family on any device
 *                                            (anything but gpu reads as cpu)
 * CLRESAMPLE_PINNED         tests,  0|1      staging through page-locked
 *                           bench            memory or not (default: on GPUs)
 * CLRESAMPLE_SVM            tests,  0|1      0: CPU devices copy to device
 *                           bench            buffers even where they could
 *                                            share memory with the host
 *                                            (the resampler's kernels and
 *                                            the convolution's)
 * CLRESAMPLE_IV             tests,  0|1      GPU kernels: the interleaved
 *                           tuning           window (_iv) for every multiple
 *                                            of 4 channels, or never
 * CLRESAMPLE_IV_SHIFTED     tuning  0|1      0: _iv without its four shifted
 *                                            table copies
 * CLRESAMPLE_IV_DW          tests,  0..64    _iv sums the taps within n of
 *                           tuning           each frame's centre in double
 * CLRESAMPLE_CPI            tuning  1..8     channels a work-item (the CPU
 *                                            kernels: 1..2)
 * CLRESAMPLE_FPI            tests,  1..8     GPU kernels: output frames a
 *                           tuning           work-item however far apart
 *                                            they lie, by _tcf (not _tc2)
 * CLRESAMPLE_LOCAL_SIZE     tuning  frames   work-group size (default 256 on GPUs,
 *                                            16 on CPUs; 0: the driver's)
 * CLRESAMPLE_CONV_SLICES    tests,  1..256   convolution: the partition sum
 *                           tuning           cut into that many runs (a
 *                                            power of two; default 1 on CPUs,
 *                                            what fills a GPU)
 * CLRESAMPLE_CONV_OPW       tests,  1..16    convolution: outputs a work-item
 *                           tuning           of a one-block partition sum
 *                                            (a power of two dividing the
 *                                            outputs; default 1 on CPUs)
 * CLRESAMPLE_CONV_VEC       tests,  0|1      convolution: 1: transforms of one
 *                           tuning           work-item each in vectors (the
 *                                            default on CPUs, B >= 64); 0:
 *                                            one work-group each (GPUs)
 * CLRESAMPLE_CONV_FUSED    tests,  0|1      convolution, vector transforms
 *                           tuning           with one partition: 0: the sum
 *                                            as its own kernel instead of in
 *                                            the inverse transform (default 1)
 * CLRESAMPLE_CONV_AHEAD    tests,  0|1      convolution, work-group
 *                           tuning           transforms: a stream's next
 *                                            block's partition sum launched
 *                                            right after its call (default:
 *                                            from 8 MiB of delay line a sum)
 *                                            or never
 * CLRESAMPLE_CONV_BLOCK    tests,  0|1      convolution, one partition on
 *                           tuning           CPUs: 1: both transforms in one
 *                                            launch; 0: two (default: one
 *                                            where the channels are at
 *                                            least the compute units)
 * CLRESAMPLE_CONV_SHARED    tests,  0|1      convolution: 1: its blocks run
 *                           bench            in the device's scheduler's
 *                                            batches with every other
 *                                            stream's (work-group
 *                                            transforms); 0: on its own
 *                                            queue (default: 1 on GPUs)
 * CLRESAMPLE_CONV_SEATS     tests   1..64    convolution, shared mode: seats
 *                                            of a key's first group (each
 *                                            next one twice the last's;
 *                                            default: as 64 MiB holds)
 * CLRESAMPLE_CONV_DIRECT    tests,  taps     convolution: filters of at most
 *                           tuning           that many taps summed in direct
 *                                            form on the host, not
 *                                            transformed (default
 *                                            CLR_CONV_DIRECT_TAPS; 0: never)
 * CLRESAMPLE_CONV_LEVELS    tests,  0|1|2^k  convolution: 1: long filters in
 *                           tuning           levels of non-uniform
 *                                            partitions where the cost
 *                                            model finds them cheaper, on
 *                                            any device; 2, 4, ...: levels
 *                                            growing by that factor
 *                                            whatever the model says; 0:
 *                                            uniform ones (default: the
 *                                            model's, on CPUs)
 * CLRESAMPLE_XO_PLANES      tests,  0|1      clcrossover: the lower bands
 *                                            from the convolution in planes
 *                                            (1, the default on CPUs) or in
 *                                            interleaved rows (0, GPUs)
 * CLRESAMPLE_RESAMPLE_HOST tests,  0|1      the resampler's sums on a CPU
 *                           bench            device: 1 on the host
 *                                            (clr-resample-host.h), 0 in
 *                                            the device's kernels through
 *                                            its scheduler (default: the
 *                                            host, but the kernels where
 *                                            CLRESAMPLE_KERNELS, _NO_FP64,
 *                                            _PINNED, _SVM, _IV, _CPI,
 *                                            _FPI or _LOCAL_SIZE shape
 *                                            them)
 * CLRESAMPLE_FFT           tests,  0|1      0: never the FFT path; 1: the FFT
 *                           bench            path for every integer ratio
 *                                            (default: past the crossover in
 *                                            taps, clr-kernel-plan.c)
 * CLRESAMPLE_FFT_BLOCK      tuning  frames   the FFT path's block (a power
 *                                            of two; default from the taps)
 * CLRESAMPLE_OFFLINE_FOURSTEP tests, 0|1   the offline convolution's
 *                           bench            transforms: 1 its own
 *                                            four-step ones where they
 *                                            apply, 0 VkFFT's (default:
 *                                            clr-conv-offline.c's choice)
 * CLRESAMPLE_SCHED_DEPTH    tuning  1..16    batches of the resampler's
 *                           bench            scheduler on the device at
 *                                            once, each on its own queue
 *                                            (clr-sched.c; default 2)
 * CLRESAMPLE_SCHED_SPIN     tests,  0|1      1: a job's thread waits for its
 *                           bench            batch yielding its core (up to
 *                                            CLR_SCHED_SPIN_US) on any device
 *                                            and load; 0: asleep (default:
 *                                            on GPUs under load, clr-sched.c)
 * CLRESAMPLE_SCHED_WINDOW   tests,  us       how long an open batch of paced
 *                           bench            streams' jobs may wait for more
 *                                            (clr-sched.c; 0: never; default
 *                                            CLR_SCHED_WINDOW_US)
 * CLRESAMPLE_PROFILE        tuning  set      the resampler's scheduler logs
 *                                            its batches' device times
 *                                            when it goes; the convolution
 *                                            times its
 *                                            device commands (OpenCL event
 *                                            profiling) and prints what a
 *                                            batch cost, stage by stage, to
 *                                            stderr at each reset and when
 *                                            it is freed
 *
 * Numbers are read with g_ascii_strtoull: text that is no number reads as
 * 0. docs/performance.md has the measurements the tuning switches served.
 */
#ifndef __CLR_TUNING_H__
#define __CLR_TUNING_H__

#include <glib.h>

G_BEGIN_DECLS

/* One numeric switch: whether its variable is set, and its value. */
typedef struct {
  gboolean set;
  guint64 value;
} ClrKnob;

typedef struct {
  /* for users */
  guint64 device_memory;        /* bytes; 0: no budget */
  const char *build_options;    /* NULL: none */
  /* for tests, benchmarks and tuning */
  gboolean no_fp64;             /* read by the device (one a process) */
  gboolean profile;             /* read by the device and the convolution */
  ClrKnob kernels;              /* 1: the GPU family, 0: the CPU one */
  ClrKnob pinned;
  ClrKnob svm;
  ClrKnob iv;
  ClrKnob iv_shifted;
  ClrKnob iv_dw;
  ClrKnob cpi;
  ClrKnob fpi;
  ClrKnob local_size;
  ClrKnob conv_slices;
  ClrKnob conv_opw;
  ClrKnob conv_vec;
  ClrKnob conv_fused;
  ClrKnob conv_ahead;
  ClrKnob conv_block;
  ClrKnob conv_shared;
  ClrKnob conv_seats;
  ClrKnob conv_direct;
  ClrKnob conv_levels;
  ClrKnob conv_host;
  ClrKnob resample_host;
  ClrKnob conv_threads;
  ClrKnob xo_planes;
  ClrKnob fft;
  ClrKnob fft_block;
  ClrKnob offline_fourstep;
  ClrKnob sched_depth;
  ClrKnob sched_spin;
  ClrKnob sched_window;
} ClrTuning;

/* The environment's settings, read on the first call; thread-safe. Tests
 * that need other settings within one process copy it and hand the copy
 * to clr_engine_new_tuned(). */
const ClrTuning *clr_tuning_get (void);

/* The settings of an environment list (as of g_get_environ()); the strings
 * in `t` point into it. */
void clr_tuning_read (ClrTuning * t, gchar ** envp);

/* Whether the resampler's streams on a CPU device run on the host
 * (CLRESAMPLE_RESAMPLE_HOST above) */
gboolean clr_tuning_resample_host (const ClrTuning * t);

/* The knob's value where it is set, else `fallback`. */
guint64 clr_knob_or (ClrKnob knob, guint64 fallback);

G_END_DECLS
#endif
