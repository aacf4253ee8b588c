/* clresample: the drift-following loop alone (gst/core/resample/
 * clr-drift-loop.h; issue 48, items 2, 4 and 7), in simulated time: an
 * hour of a stream runs in a fraction of a second.
 *
 * The stream: buffers of 441 frames (10 ms at 44.1 kHz) from a source
 * whose clock runs eps off the pipeline's, so their timestamps step
 * 441 / (44100 (1 + eps)) seconds; the resampler at the loop's factor f
 * moves its output timeline on by 441 f / 44100 seconds a buffer (its
 * output frames over its output rate), and the loop is told the delay e
 * of the output's timeline behind the input's timestamps after each
 * buffer, as the element measures it. What is checked, against the eps
 * the source really runs at:
 * - lock-in: within 5 s of the start, and of a step of 200 ppm, the drift
 *   read is within 1 % of the change (2 ppm where that is more) and e
 *   within 0.1 ms of the set point, and stays there;
 * - for the whole hour at +100, -100, +500 and -500 ppm (and a set point
 *   of 0 and of 5 ms): e within 1 ms of the set point from start to end
 *   (within 0.1 ms after lock-in), and the output's length, the sum of
 *   its buffers' frames, within one frame of what the measured drift
 *   says it must be;
 * - bad input: timestamps with 1 ms of jitter move e by less than 1 ms
 *   and the factor by less than 2500 ppm; a source that stops for 2 s and
 *   goes on with timestamps 2 s on (a new run), one whose buffers come in
 *   bursts (timestamped on arrival: 10 at once every 100 ms), and one
 *   whose timestamps are garbage (NaN, +-30 s off) never take the factor
 *   beyond 1 +- CLR_DRIFT_LOOP_LIMIT, and the loop locks again after. */
#include <math.h>
#include <string.h>
#include <glib.h>
#include "resample/clr-drift-loop.h"

#define IN_RATE 44100.0
#define OUT_RATE 48000.0
#define FRAMES 441

typedef struct
{
  ClrDriftLoop loop;
  double eps;                   /* the source's clock, now */
  double in_time;               /* the next buffer's true timestamp */
  double out_time;              /* the output timeline's end */
  double out_frames;            /* output frames made, fractional */
  double t;                     /* seconds of the stream */
  double worst_e, worst_factor; /* |e - set point|, |f - 1| seen */
} Sim;

static void
sim_init (Sim * s, double eps, double setpoint)
{
  memset (s, 0, sizeof *s);
  clr_drift_loop_init (&s->loop, setpoint);
  s->eps = eps;
  /* the element stamps a run's output from its first timestamp plus the
   * set point */
  s->out_time = setpoint;
}

/* One buffer: its timestamp (the true one plus `jitter`) read, converted
 * at the factor in effect, and the delay after it given to the loop */
static void
sim_buffer (Sim * s, double jitter)
{
  const double dur = FRAMES / (IN_RATE * (1.0 + s->eps));
  const double f = clr_drift_loop_get_factor (&s->loop);
  double e;

  s->out_frames += FRAMES * OUT_RATE * f / IN_RATE;
  s->out_time += FRAMES * f / IN_RATE;
  s->in_time += dur;
  s->t += dur;
  /* the delay of the output's end behind the input's end */
  e = s->out_time - (s->in_time + jitter);
  clr_drift_loop_update (&s->loop, e, dur);
  s->worst_factor = MAX (s->worst_factor,
      fabs (clr_drift_loop_get_factor (&s->loop) - 1.0));
}

/* seconds of buffers, their timestamps off by up to jitter_amp at random
 * (rand: a generator of the case's own, seeded, so that every run checks
 * the same input), or on time */
static void
sim_run (Sim * s, double seconds, double jitter_amp, GRand * rand)
{
  const double end = s->t + seconds;

  while (s->t < end)
    sim_buffer (s, jitter_amp > 0 ? g_rand_double_range (rand, -jitter_amp,
            jitter_amp) : 0.0);
}

/* the true delay, less the set point */
static double
sim_error (Sim * s)
{
  return s->out_time - s->in_time - s->loop.setpoint;
}

/* runs until the loop is locked on eps (the drift read within 1 % of
 * the change since `from`, or 2 ppm where that is more, and e within 0.1
 * ms): the seconds that took */
static double
sim_lock (Sim * s, double from, double limit)
{
  const double start = s->t;
  const double within = MAX (2.0, 0.01 * fabs (s->eps - from) * 1e6);

  while (s->t - start < limit
      && !(fabs (clr_drift_loop_get_drift_ppm (&s->loop) - s->eps * 1e6) <
          within && fabs (sim_error (s)) < 100e-6))
    sim_buffer (s, 0.0);
  return s->t - start;
}

static void
run_hour (double ppm, double setpoint)
{
  Sim s, fresh;
  double lock, worst_start = 0, worst_after = 0, start_frames, start_time;

  /* lock-in from a fresh loop, timed */
  sim_init (&fresh, ppm * 1e-6, setpoint);
  lock = sim_lock (&fresh, 0.0, 30.0);
  g_assert_cmpfloat (lock, <, 5.0);
  /* the first 5 s: within 1 ms of the set point throughout */
  sim_init (&s, ppm * 1e-6, setpoint);
  while (s.t < 5.0) {
    sim_buffer (&s, 0.0);
    worst_start = MAX (worst_start, fabs (sim_error (&s)));
  }
  g_assert_cmpfloat (worst_start, <, 1e-3);
  /* then the hour: within 0.1 ms, and the output's length as the drift
   * measured says (f = 1 / (1 + eps): 48000 / (1 + eps) frames a second
   * of the source's 44100 (1 + eps)) */
  start_frames = s.out_frames;
  start_time = s.in_time;
  while (s.t < 3600.0) {
    sim_buffer (&s, 0.0);
    worst_after = MAX (worst_after, fabs (sim_error (&s)));
  }
  g_assert_cmpfloat (worst_after, <, 100e-6);
  {
    const double eps = clr_drift_loop_get_drift_ppm (&s.loop) * 1e-6;
    const double in_frames = (s.in_time - start_time) * IN_RATE *
        (1.0 + s.eps);
    const double expect = in_frames * OUT_RATE / (IN_RATE * (1.0 + eps));

    g_assert_cmpfloat (fabs (s.out_frames - start_frames - expect), <, 1.0);
    g_assert_cmpfloat (fabs (eps - s.eps) * 1e6, <, 0.01);
  }
  g_test_message ("%+.0f ppm, set point %.0f ms: locked in %.2f s, "
      "worst error %.1f us in the first 5 s, %.3f us over the hour, "
      "drift read %+.4f ppm", ppm, setpoint * 1e3, lock, worst_start * 1e6,
      worst_after * 1e6, clr_drift_loop_get_drift_ppm (&s.loop));
}

static void
test_hour_plus_100 (void)
{
  run_hour (100, 0);
}

static void
test_hour_minus_100 (void)
{
  run_hour (-100, 0);
}

static void
test_hour_plus_500 (void)
{
  run_hour (500, 0);
}

static void
test_hour_minus_500 (void)
{
  run_hour (-500, 0);
}

static void
test_hour_set_point (void)
{
  run_hour (300, 5e-3);
}

/* A step of 200 ppm after lock-in: locked again within 5 s, e never
 * further than 0.1 ms */
static void
test_step_200 (void)
{
  Sim s;
  double worst = 0, lock;
  const double steps[] = { 200e-6, -200e-6, 400e-6 };
  guint i;

  sim_init (&s, 0.0, 0.0);
  sim_run (&s, 10.0, 0.0, NULL);
  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    const double until = s.t + 5.0;

    s.eps += steps[i];
    lock = sim_lock (&s, s.eps - steps[i], 30.0);
    g_assert_cmpfloat (lock, <, 5.0);
    while (s.t < until + 5.0) {
      sim_buffer (&s, 0.0);
      worst = MAX (worst, fabs (sim_error (&s)));
    }
    g_test_message ("step to %+.0f ppm: locked again in %.2f s",
        s.eps * 1e6, lock);
  }
  g_assert_cmpfloat (worst, <, 100e-6);
}

/* timestamps with 1 ms of jitter (uniform, +-1 ms each buffer: arrival
 * times, not a source's timestamps): e stays within 1 ms, the factor
 * within 2500 ppm of 1 / (1 + eps) (seen: 1700-1900 ppm), and the drift
 * read is eps on average, within 2 ppm over ten minutes (a moment's read
 * is 50-130 ppm off). The loop's bandwidth, which locks within 5 s,
 * passes that much of such jitter on; a source's timestamps (alsasrc's,
 * rtpjitterbuffer's) are smooth to microseconds. */
static void
test_jitter (void)
{
  GRand *rand = g_rand_new_with_seed (1);
  Sim s;
  double worst = 0, worst_f = 0, sum = 0;
  guint n = 0;

  sim_init (&s, 250e-6, 0.0);
  sim_run (&s, 10.0, 1e-3, rand);
  while (s.t < 600.0) {
    sim_buffer (&s, g_rand_double_range (rand, -1e-3, 1e-3));
    sum += clr_drift_loop_get_drift_ppm (&s.loop);
    n++;
    worst = MAX (worst, fabs (sim_error (&s)));
    worst_f = MAX (worst_f, fabs (clr_drift_loop_get_factor (&s.loop) *
            (1.0 + s.eps) - 1.0));
  }
  g_test_message ("1 ms of jitter: worst error %.0f us, factor within %.0f "
      "ppm, drift read %.1f ppm on average", worst * 1e6, worst_f * 1e6,
      sum / n);
  g_assert_cmpfloat (worst, <, 1e-3);
  g_assert_cmpfloat (worst_f, <, 2500e-6);
  g_assert_cmpfloat (fabs (sum / n - 250), <, 2.0);
  g_rand_free (rand);
}

/* a source that stops for 2 s and goes on with timestamps 2 s on: the
 * element's discontinuity, a new run (clr_drift_loop_restart (), the
 * output's timeline anchored at the new timestamp): the factor within its
 * limit, the drift kept, locked again within 5 s */
static void
test_stop_and_jump (void)
{
  Sim s;
  double before;

  sim_init (&s, -300e-6, 0.0);
  sim_run (&s, 20.0, 0.0, NULL);
  before = clr_drift_loop_get_drift_ppm (&s.loop);
  s.in_time += 2.0;
  s.out_time = s.in_time;
  clr_drift_loop_restart (&s.loop);
  sim_run (&s, 5.0, 0.0, NULL);
  g_assert_cmpfloat (s.worst_factor, <=, CLR_DRIFT_LOOP_LIMIT + 1e-12);
  g_assert_cmpfloat (fabs (clr_drift_loop_get_drift_ppm (&s.loop) - before),
      <, 1.0);
  g_assert_true (clr_drift_loop_is_locked (&s.loop));
}

/* buffers in bursts, each timestamped on arrival: 10 at once every 100 ms
 * (e swings by 90 ms a burst): the factor stays within its limit and the
 * loop does not run away; a source that then comes evenly is locked again
 * 10 s later */
static void
test_bursts (void)
{
  Sim s;
  guint b, k;

  sim_init (&s, 100e-6, 0.0);
  sim_run (&s, 10.0, 0.0, NULL);
  for (b = 0; b < 600; b++)
    for (k = 0; k < 10; k++)
      /* the true timestamps step 10 ms; arrival stamps them all at the
       * burst's end */
      sim_buffer (&s, (9 - k) * FRAMES / IN_RATE);
  g_assert_cmpfloat (s.worst_factor, <=, CLR_DRIFT_LOOP_LIMIT + 1e-12);
  /* even again: the bursts' mean lead (45 ms, under a jump) is steered
   * back at the factor's limit, 10 ms a second; then locked, at the
   * drift */
  sim_run (&s, 10.0, 0.0, NULL);
  g_assert_true (clr_drift_loop_is_locked (&s.loop));
  g_assert_cmpfloat (fabs (clr_drift_loop_get_drift_ppm (&s.loop) - 100), <,
      2.0);
}

/* garbage: NaN and infinite errors and negative durations are ignored;
 * timestamps up to 30 s off at random for 10 s (errors the element's
 * discontinuity check would have taken as a new run) count as 50 ms: the
 * factor at its limit at most; back on time, locked again at the drift
 * within 10 s. Each input its own seeded generator, so that a run checks
 * the same inputs every time: seeds 1-100, and 391, the worst of the
 * first 3000 before the integral stopped for garbage (clr-drift-loop.c:
 * the drift read 5.4 ppm off at the end; 2 seeds of 3000 failed, and the
 * suite's own random seed hit one in a fresh-clone run) */
static void
garbage_run (guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  Sim s;
  double f;

  sim_init (&s, 50e-6, 0.0);
  sim_run (&s, 10.0, 0.0, NULL);
  f = clr_drift_loop_get_factor (&s.loop);
  g_assert_cmpfloat (clr_drift_loop_update (&s.loop, NAN, 0.01), ==, f);
  g_assert_cmpfloat (clr_drift_loop_update (&s.loop, INFINITY, 0.01), ==, f);
  g_assert_cmpfloat (clr_drift_loop_update (&s.loop, 0.0, -1.0), ==, f);
  g_assert_cmpfloat (clr_drift_loop_update (&s.loop, 0.0, NAN), ==, f);
  sim_run (&s, 10.0, 30.0, rand);
  g_assert_cmpfloat (s.worst_factor, <=, CLR_DRIFT_LOOP_LIMIT + 1e-12);
  sim_run (&s, 10.0, 0.0, NULL);
  if (!clr_drift_loop_is_locked (&s.loop)
      || fabs (clr_drift_loop_get_drift_ppm (&s.loop) - 50) >= 2.0)
    g_error ("seed %u: locked %d, drift %.3f ppm 10 s after the garbage",
        seed, clr_drift_loop_is_locked (&s.loop),
        clr_drift_loop_get_drift_ppm (&s.loop));
  g_rand_free (rand);
}

static void
test_garbage (void)
{
  guint32 seed;

  for (seed = 1; seed <= 100; seed++)
    garbage_run (seed);
  garbage_run (391);
}

/* a restart (a seek) keeps the drift, drops the error's history */
static void
test_restart (void)
{
  Sim s;
  double drift;

  sim_init (&s, 400e-6, 0.0);
  sim_run (&s, 20.0, 0.0, NULL);
  drift = clr_drift_loop_get_drift_ppm (&s.loop);
  clr_drift_loop_restart (&s.loop);
  g_assert_false (clr_drift_loop_is_locked (&s.loop));
  g_assert_cmpfloat (clr_drift_loop_get_drift_ppm (&s.loop), ==, drift);
  /* the new run's timeline starts at its first buffer's timestamp */
  s.out_time = s.in_time + 123.0;
  s.in_time += 123.0;
  sim_run (&s, 2.0, 0.0, NULL);
  g_assert_cmpfloat (fabs (sim_error (&s)), <, 10e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/drift-loop/hour+100", test_hour_plus_100);
  g_test_add_func ("/drift-loop/hour-100", test_hour_minus_100);
  g_test_add_func ("/drift-loop/hour+500", test_hour_plus_500);
  g_test_add_func ("/drift-loop/hour-500", test_hour_minus_500);
  g_test_add_func ("/drift-loop/hour-set-point", test_hour_set_point);
  g_test_add_func ("/drift-loop/step-200", test_step_200);
  g_test_add_func ("/drift-loop/jitter", test_jitter);
  g_test_add_func ("/drift-loop/stop-and-jump", test_stop_and_jump);
  g_test_add_func ("/drift-loop/bursts", test_bursts);
  g_test_add_func ("/drift-loop/garbage", test_garbage);
  g_test_add_func ("/drift-loop/restart", test_restart);
  return g_test_run ();
}
