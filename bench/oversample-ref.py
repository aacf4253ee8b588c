#!/usr/bin/python3
"""oversample-ref.py: a CPU FFT-convolution reference for clresample's
oversampling (issue 12), from what `clr-oversample-bench --dump DIR` wrote.

The reference is the textbook form: the input zero-stuffed to the output
rate, u[j I] = x[j], convolved with the full-rate prototype g[n] =
h((n - c) / I), n = 0 .. K I, c = K I / 2, by scipy.signal.oaconvolve in
float64; then y[m] = (u * g)[m + c] is clresample's output frame m,
y[m] = sum_j x[j] h(m / I - j) (integer upsampling, D = 1). The same in
float32 is timed too, and its error shown beside clresample's.

Prints: method, seconds, multiple of real time, and the error against the
float64 reference as relative RMS (RMS of the difference over the
reference's) and in dB (20 log10), with the worst sample's error re the
reference's RMS. scipy.fft runs on one thread here (oaconvolve's default).

usage: /usr/bin/python3 bench/oversample-ref.py DIR [--runs N] [--csv FILE]
(Debian's numpy and scipy belong to /usr/bin/python3.)
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
from scipy import signal


def load(d, name, count=None):
    v = np.fromfile(os.path.join(d, name), dtype=np.float64)
    if count is not None and v.size != count:
        sys.exit("%s: %d values, expected %d" % (name, v.size, count))
    return v


def reference(x, g, I, c, out_frames, dtype):
    """Every channel zero-stuffed, convolved with g, aligned: (frames, ch)."""
    frames, channels = x.shape
    g = g.astype(dtype)
    y = np.empty((out_frames, channels), dtype=dtype)
    for ch in range(channels):
        u = np.zeros(frames * I, dtype=dtype)
        u[::I] = x[:, ch]
        full = signal.oaconvolve(u, g)
        y[:, ch] = full[c:c + out_frames]
    return y


def timed(runs, fn):
    best, out = math.inf, None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def errors(y, ref):
    d = y.astype(np.float64) - ref
    rms_ref = math.sqrt(np.mean(ref * ref))
    rel = math.sqrt(np.mean(d * d)) / rms_ref
    peak = float(np.max(np.abs(d))) / rms_ref
    return rel, peak


def db(v):
    return 20.0 * math.log10(v) if v > 0 else -math.inf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--runs", type=int, default=2,
                    help="runs of each scipy method, the best counting")
    ap.add_argument("--csv", help="also write table,row,column,value lines")
    a = ap.parse_args()

    m = json.load(open(os.path.join(a.dir, "meta.json")))
    I, D, K, c = m["I"], m["D"], m["K"], m["c"]
    frames, channels, out_frames = m["frames"], m["channels"], m["out_frames"]
    if D != 1:
        sys.exit("only integer upsampling (D = 1) is compared here")
    audio_s = frames / m["in_rate"]
    x = load(a.dir, m["input"], frames * channels).reshape(frames, channels)
    g = load(a.dir, m["proto"], m["proto_len"])
    outs = {"F32": m["out_f32"], "F64": m.get("out_f64")}

    t64, ref = timed(a.runs, lambda: reference(x, g, I, c, out_frames,
                                               np.float64))
    t32, ref32 = timed(a.runs, lambda: reference(x, g, I, c, out_frames,
                                                 np.float32))

    print("== reference: %d -> %d Hz (I = %d), %d taps per phase (%d at the "
          "output rate), %d ch, %.2f s of noise"
          % (m["in_rate"], m["out_rate"], I, K, g.size, channels, audio_s))
    print("   scipy %s, numpy %s; errors against scipy.signal.oaconvolve in "
          "float64 of the zero-stuffed input"
          % (sys.modules["scipy"].__version__, np.__version__))
    print("   clresample: FFT path, engine level (process + drain, set-up "
          "excluded), calls of %d frames, device '%s'"
          % (m["call_frames"], m["device"]))
    print("%-30s %9s %8s | %11s %8s %11s" % ("method", "seconds", "x real",
                                            "rel RMS err", "dB",
                                            "peak err dB"))
    rows = []
    for fmt in ("F32", "F64"):
        if not outs[fmt]:
            continue
        y = load(a.dir, outs[fmt], out_frames * channels).reshape(
            out_frames, channels)
        rel, peak = errors(y, ref)
        rows.append(("clresample %s (FFT path)" % fmt,
                     m["seconds_" + fmt.lower()], rel, peak))
    rows.append(("scipy oaconvolve float64", t64, 0.0, 0.0))
    rel, peak = errors(ref32, ref)
    rows.append(("scipy oaconvolve float32", t32, rel, peak))
    csv = open(a.csv, "w") if a.csv else None
    if csv:
        csv.write("table,row,column,value\n")
    for name, secs, rel, peak in rows:
        ref_row = name.endswith("float64")
        print("%-30s %9.3f %8.1f | %11s %8s %11s"
              % (name, secs, audio_s / secs,
                 "(reference)" if ref_row else "%.3g" % rel,
                 "" if ref_row else "%.1f" % db(rel),
                 "" if ref_row else "%.1f" % db(peak)))
        if csv:
            for col, v in (("seconds", secs), ("x_real", audio_s / secs),
                           ("rel_rms", rel), ("peak_re_rms", peak)):
                csv.write("reference,%s,%s,%.6g\n" % (name, col, v))
    if csv:
        csv.close()
    # the alignment check: F64 through the FFT path in double must agree
    # with the float64 reference to rounding; anything larger is an
    # indexing (time alignment) error, not precision
    f64 = [r for r in rows if r[0].startswith("clresample F64")]
    if f64 and f64[0][2] > 1e-9:
        print("oversample-ref.py: F64 error %.3g: the alignment is off"
              % f64[0][2], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
