/* clresample: the drift-following loop (issue 48, item 2).
 *
 * A stream whose samples run on one clock (the source's) and whose
 * timestamps run on another (the pipeline's) drifts: at a fixed ratio the
 * output's sample-count timeline, t0 + m / out_rate, leaves the input's
 * timestamps by the clocks' difference, 100 ppm 0.36 s an hour. The loop
 * measures that lag, the delay e of an output frame's time behind the
 * timestamp of the input it was made from, and steers the variable
 * ratio's factor (ClrEngineConfig.adjust) to hold e at a set point: a
 * second-order loop, proportional and integral, on e low-passed. At rest
 * its integral is the source's rate against the pipeline clock: the drift.
 *
 * With the source's rate (1 + eps) times nominal against the pipeline
 * clock, and factor f on the output rate, e grows at 1 - 1 / (f (1 +
 * eps)) seconds a second of output; the loop sets f = 1 / (1 + u), u =
 * Kp e_f + I, I' = Ki e_f: closed, e'' + Kp e' + Ki e = 0 (e_f's low-pass
 * aside), a critically damped loop of CLR_DRIFT_LOOP_HZ natural
 * frequency. A step of the drift of 200 ppm moves e by 60 us at most, and
 * 3.9 s after it the drift read is within 2 ppm of the new one and e
 * within 0.1 ms of the set point (tests/test-drift-loop.c, which runs it
 * for a simulated hour).
 *
 * GStreamer-free: the element (gstclresample.c) gives it e and the time
 * each measurement covers. */
#ifndef CLR_DRIFT_LOOP_H
#define CLR_DRIFT_LOOP_H

#include <stdbool.h>

/* The loop's natural frequency (critically damped): locked within 5 s of
 * a start or a step of 500 ppm. Timestamps with 1 ms of jitter move the
 * factor by up to 2000 ppm through it: a source's own timestamps are
 * smooth, arrival times are not */
#define CLR_DRIFT_LOOP_HZ 0.3
/* the low-pass on e (two poles), seconds: a buffer's jitter averaged
 * over ~10 buffers of 10 ms */
#define CLR_DRIFT_LOOP_TAU 0.1
/* |f - 1| and |I| at most this: a source that stops, bursts or jumps
 * cannot run the ratio away (the engine takes +-5 %) */
#define CLR_DRIFT_LOOP_LIMIT 0.01
/* an error further than this from the set point counts as this far: the
 * element starts a new run where the input's timestamps jump
 * (gst_clr_is_discont ()), so only garbage comes this far, and it must
 * not run the ratio away */
#define CLR_DRIFT_LOOP_ERROR_MAX 0.05
/* locked: e_f within this of the set point for CLR_DRIFT_LOOP_LOCK_TIME */
#define CLR_DRIFT_LOOP_LOCK_ERROR 100e-6
#define CLR_DRIFT_LOOP_LOCK_TIME 1.0

typedef struct
{
  double setpoint;              /* seconds of delay to hold */
  double kp, ki;
  bool started;
  double e_1, e_f;              /* e low-passed (once, twice), from the set
                                 * point */
  double integral;              /* I: the drift, (1 + eps) - 1 */
  double factor;                /* f, the factor on the output rate */
  double settled;               /* seconds within the lock's error */
} ClrDriftLoop;

/* A loop at rest: factor 1, drift 0, holding e at setpoint seconds. */
void clr_drift_loop_init (ClrDriftLoop * loop, double setpoint);

/* A new run of the stream (a seek, a discontinuity): the error's history
 * goes, the drift stays (the clocks did not change), and the next
 * measurement is the run's first. */
void clr_drift_loop_restart (ClrDriftLoop * loop);

/* One measurement: e seconds of delay, covering dt seconds of the stream
 * since the one before. The factor to set on the output rate, within
 * 1 +- CLR_DRIFT_LOOP_LIMIT. Non-finite e or dt, or dt < 0, are ignored. */
double clr_drift_loop_update (ClrDriftLoop * loop, double e, double dt);

double clr_drift_loop_get_factor (const ClrDriftLoop * loop);
/* The source's clock against the pipeline's, in ppm (+: its samples come
 * faster) */
double clr_drift_loop_get_drift_ppm (const ClrDriftLoop * loop);
/* e low-passed, less the set point: seconds */
double clr_drift_loop_get_error (const ClrDriftLoop * loop);
bool clr_drift_loop_is_locked (const ClrDriftLoop * loop);

#endif
