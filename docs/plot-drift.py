#!/usr/bin/python3
"""Plots for docs/quality.md's "Following a source's clock" (issue 48).

    build/tests/quality/clr-follow-quality --hour 3600 --trace /tmp/hour.csv
    build/tests/quality/clr-drift-quality --dump /tmp/dq \
        --contestants clr-q4-F32,clr-q10-F64,soxr-hq,speex-q10,zita-h96
    /usr/bin/python3 docs/plot-drift.py /tmp/hour.csv /tmp/dq docs/img

Writes into the last folder:
  drift-hour.png   the delay of follow-drift's output behind the source's
                   timestamps over the simulated hour, the worst of each
                   second at the 50 Hz tone's zero crossings, per drift
  drift-ramp.png   the spectrum of one window (8192 frames, Kaiser beta 38,
                   as the harness measures) of the 1 kHz tone during the
                   500 ppm/s ramp, 44.1 -> 48 kHz, per contestant
"""
import csv
import os
import sys

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

trace, dump, outdir = sys.argv[1:4]

rows = list(csv.DictReader(open(trace)))
cols = [c for c in rows[0].keys() if c != "second"]
sec = np.array([float(r["second"]) for r in rows])
FLOOR = 1e-4  # us: 0.1 ns, what the trace's six decimals hold
fig, (start, hour) = plt.subplots(1, 2, figsize=(12, 4),
                                  gridspec_kw={"width_ratios": [1, 2]})
for c in cols:
    us = np.array([float(r[c]) for r in rows])
    first = sec < 30
    start.plot(sec[first], us[first], lw=0.8, marker=".", ms=3, label=c)
    hour.plot(sec / 60.0, np.maximum(us, FLOOR), lw=0.5, label=c)
start.set_xlabel("seconds")
start.set_ylabel("worst delay a second (us)")
start.set_title("lock-in: the first 30 s")
start.grid(alpha=0.3)
start.legend(loc="upper right")
hour.set_yscale("log")
hour.set_ylim(FLOOR / 2, 2000)
hour.axhline(1000, color="grey", ls=":", lw=0.8)
hour.axhline(100, color="grey", ls="--", lw=0.8)
hour.set_xlabel("minutes (simulated: the source's timestamps)")
hour.set_title("the hour (1 ms dotted, 0.1 ms dashed; 0.1 ns and below "
               "on the floor)", fontsize=10)
hour.grid(alpha=0.3, which="both")
fig.suptitle("follow-drift, quality 4, 44.1 -> 48 kHz: the output behind "
             "the source at a 50 Hz tone's zero crossings")
fig.tight_layout()
fig.savefig(os.path.join(outdir, "drift-hour.png"), dpi=110)

# the ramp: one window at the same place of every output
N = 8192
RATE = 48000
AT = 7.3  # s: the ramp's steepest stretch, away from its corners
win = np.kaiser(N, 38.0)
fig, ax = plt.subplots(figsize=(10, 4.5))
names = sorted(f[:-len("-thdn-ramp.f64")] for f in os.listdir(dump)
               if f.endswith("-thdn-ramp.f64"))
for name in names:
    y = np.fromfile(os.path.join(dump, name + "-thdn-ramp.f64"),
                    dtype=np.float64)
    s = int(AT * RATE)
    x = y[s:s + N] * win
    p = np.abs(np.fft.rfft(x)) ** 2
    p /= p.max()
    f = np.arange(len(p)) * RATE / N
    ax.plot(f / 1000.0, 10 * np.log10(np.maximum(p, 1e-30)), lw=0.5,
            label=name)
ax.set_xlim(0, 24)
ax.set_ylim(-260, 5)
ax.set_xlabel("kHz")
ax.set_ylabel("dB against the tone")
ax.set_title("1 kHz during a 500 ppm/s ramp, 44.1 -> 48 kHz, one window "
             "at %.1f s" % AT)
ax.grid(alpha=0.3)
ax.legend(loc="upper right", fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(outdir, "drift-ramp.png"), dpi=110)
