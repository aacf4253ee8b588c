/* clresample: the drift-following loop (clr-drift-loop.h). */
#include "clr-drift-loop.h"

#include <math.h>

static double
clamp (double x, double limit)
{
  return x > limit ? limit : x < -limit ? -limit : x;
}

void
clr_drift_loop_init (ClrDriftLoop * loop, double setpoint)
{
  const double w = 2.0 * M_PI * CLR_DRIFT_LOOP_HZ;

  loop->setpoint = setpoint;
  /* critically damped: s^2 + 2 w s + w^2 */
  loop->kp = 2.0 * w;
  loop->ki = w * w;
  loop->integral = 0.0;
  loop->factor = 1.0;
  clr_drift_loop_restart (loop);
}

void
clr_drift_loop_restart (ClrDriftLoop * loop)
{
  loop->started = false;
  loop->e_1 = loop->e_f = 0.0;
  loop->settled = 0.0;
}

double
clr_drift_loop_update (ClrDriftLoop * loop, double e, double dt)
{
  double err, u, u_free, a;
  bool garbage;

  if (!isfinite (e) || !(dt >= 0.0) || !isfinite (dt))
    return loop->factor;
  /* the element starts a new run where the timestamps jump (a source
   * that stopped and went on further on): an error this large is
   * garbage, which must not run the ratio away */
  garbage = fabs (e - loop->setpoint) > CLR_DRIFT_LOOP_ERROR_MAX;
  err = clamp (e - loop->setpoint, CLR_DRIFT_LOOP_ERROR_MAX);
  if (!loop->started) {
    /* the run's start: no history to filter against */
    loop->started = true;
    loop->e_1 = loop->e_f = err;
  } else {
    /* two one-pole low-passes, exact for any dt */
    a = 1.0 - exp (-dt / CLR_DRIFT_LOOP_TAU);
    loop->e_1 += a * (err - loop->e_1);
    loop->e_f += a * (loop->e_1 - loop->e_f);
  }
  u_free = loop->kp * loop->e_f + loop->integral;
  /* the integral stops where the factor is at its limit and would go
   * further (no wind-up: a long way to a far set point, or a source that
   * stopped, ends without an overshoot of its own length), and while the
   * error is garbage: timestamps off by up to 30 s, at random, for 10 s
   * had wound it to 2565 ppm, and 10 s after they were right again the
   * drift still read 4.5 ppm off (test-drift-loop's garbage case, 1 seed
   * in some hundreds) */
  if (!garbage && (fabs (u_free) < CLR_DRIFT_LOOP_LIMIT
          || u_free * loop->e_f < 0.0))
    loop->integral = clamp (loop->integral + loop->ki * loop->e_f * dt,
        CLR_DRIFT_LOOP_LIMIT);
  u = loop->kp * loop->e_f + loop->integral;
  loop->factor = 1.0 + clamp (1.0 / (1.0 + u) - 1.0, CLR_DRIFT_LOOP_LIMIT);
  if (fabs (loop->e_f) < CLR_DRIFT_LOOP_LOCK_ERROR)
    loop->settled += dt;
  else
    loop->settled = 0.0;
  return loop->factor;
}

double
clr_drift_loop_get_factor (const ClrDriftLoop * loop)
{
  return loop->factor;
}

double
clr_drift_loop_get_drift_ppm (const ClrDriftLoop * loop)
{
  return loop->integral * 1e6;
}

double
clr_drift_loop_get_error (const ClrDriftLoop * loop)
{
  return loop->e_f;
}

bool
clr_drift_loop_is_locked (const ClrDriftLoop * loop)
{
  return loop->settled >= CLR_DRIFT_LOOP_LOCK_TIME;
}
