#!/usr/bin/python3
"""Plots the measured response of clresample's 1,015,808-tap oversampling
filter (44.1 -> 705.6 kHz, q10) for docs/quality.md.

    build/tests/quality/clr-brickwall --csv /tmp/brickwall.csv
    /usr/bin/python3 docs/plot-brickwall.py /tmp/brickwall.csv docs/img/brickwall.png
"""
import csv
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
hz = [float(r["hz"]) for r in rows]
db = [float(r["db"]) for r in rows]
fig, (full, edge) = plt.subplots(1, 2, figsize=(11, 4))
full.plot([h / 1000 for h in hz], db, lw=0.6)
full.set_xlabel("kHz")
full.set_ylabel("dB")
full.set_ylim(-320, 10)
full.set_title("0 - 352.8 kHz")
full.grid(alpha=0.3)
near = [(h, d) for h, d in zip(hz, db) if 22000 <= h <= 22100]
edge.plot([h for h, _ in near], [d for _, d in near], lw=0.8)
edge.axvline(22050, color="grey", ls=":", lw=0.8)
edge.set_xlabel("Hz")
edge.set_ylim(-240, 10)
edge.set_title("22.00 - 22.10 kHz (Nyquist of 44.1 kHz dotted)")
edge.grid(alpha=0.3)
fig.suptitle("clresample taps=63488 quality=10, 44.1 -> 705.6 kHz, F64, "
             "measured on the output (FFT path)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
