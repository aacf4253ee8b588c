#!/usr/bin/python3
"""Plots clcrossover's bands and their sum as measured through the element.

An impulse (F64, mono, at frame 16384 of 65536) goes through
    filesrc ! wavparse ! clcrossover ! wavenc ! filesink
with gst-launch-1.0; each output channel is a band's impulse response as
the element produced it (the filters' delay compensated, so the response
is centred on frame 16384). Their magnitude responses and that of their
sum are plotted in dB into docs/img/crossover.png.

Usage (from the project root, after a build):
    GST_PLUGIN_PATH=$PWD/build/gst /usr/bin/python3 docs/plot-crossover.py \
        [--frequencies 250,2000,8000] [--taps 8191] [--out docs/img/crossover.png]
Needs numpy, scipy and matplotlib (Debian: python3-numpy python3-scipy
python3-matplotlib).
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

RATE = 48000
N = 65536
AT = 16384


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frequencies", default="250,2000,8000")
    ap.add_argument("--taps", type=int, default=8191)
    ap.add_argument("--stopband", type=float, default=120.0)
    ap.add_argument("--out", default="docs/img/crossover.png")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "impulse.wav"), os.path.join(d, "bands.wav")
        x = np.zeros(N)
        x[AT] = 1.0
        wavfile.write(src, RATE, x)
        cmd = ["gst-launch-1.0", "-q", "filesrc", "location=" + src, "!",
               "wavparse", "!", "audioconvert", "!",
               "audio/x-raw,format=F64LE,channels=1", "!", "clcrossover",
               "frequencies=" + a.frequencies, "taps=%d" % a.taps,
               "stopband=%g" % a.stopband, "!", "wavenc", "!", "filesink",
               "location=" + dst]
        print(" ".join(cmd))
        subprocess.run(cmd, check=True)
        rate, y = wavfile.read(dst)
    assert rate == RATE and y.shape[0] == N, (rate, y.shape)
    y = y.astype(np.float64)
    bands = y.shape[1]
    f = np.fft.rfftfreq(N, 1.0 / RATE)
    spec = np.abs(np.fft.rfft(y, axis=0))
    total = np.abs(np.fft.rfft(y.sum(axis=1)))
    db = lambda v: 20 * np.log10(np.maximum(v, 1e-20))

    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 8), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1]})
    for k in range(bands):
        ax.semilogx(f[1:], db(spec[1:, k]), label="band %d" % k)
    ax.semilogx(f[1:], db(total[1:]), "k--", label="sum of the bands")
    for fc in a.frequencies.split(","):
        ax.axvline(float(fc), color="0.8", lw=0.8)
    ax.axhline(-6.02, color="0.8", lw=0.8)
    ax.set_ylim(-180, 10)
    ax.set_ylabel("dB")
    ax.set_title("clcrossover frequencies=%s taps=%d stopband=%g\nmeasured: "
                 "an impulse through the element, F64, %d Hz"
                 % (a.frequencies, a.taps, a.stopband, RATE))
    ax.legend(loc="lower left")
    ax.grid(True, which="both", alpha=0.3)
    err = np.abs(total - 1.0)
    ax2.semilogx(f[1:], db(err[1:]))
    ax2.set_ylabel("|sum| - 1, dB")
    ax2.set_xlabel("Hz")
    ax2.set_xlim(10, RATE / 2)
    ax2.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print("wrote %s; max ||sum| - 1| = %.3g (%.1f dB)"
          % (a.out, err.max(), db(err.max())))
    for k, fc in enumerate(a.frequencies.split(",")):
        i = np.argmin(np.abs(f - float(fc)))
        print("at %s Hz (bin %.1f Hz): band %d %.3f dB, band %d %.3f dB"
              % (fc, f[i], k, db(spec[i, k]), k + 1, db(spec[i, k + 1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
