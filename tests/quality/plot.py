#!/usr/bin/python3
"""Plots from clr-quality --dump output.

Usage (run with Debian's /usr/bin/python3, which has numpy and matplotlib):

    clr-quality --metrics sweep --dump DUMP \
        [--contestants clresample:4:F32LE,audioresample:4:F32LE,soxr:vhq,...]
    clr-quality --metrics response --dump DUMP \
        --contestants clresample:all:F32LE,clresample:all:F64LE[,soxr:vhq,...]
    /usr/bin/python3 tests/quality/plot.py DUMP OUTDIR

Writes into OUTDIR:
  sweep-spectrograms.png         (i) spectrogram of the 5 s log sweep
                                 20 Hz - 48 kHz at 96 kHz resampled to 44.1 kHz,
                                 one panel per contestant, 0 to -200 dB
  response-clresample-FMT.png    (ii) magnitude response 96 -> 44.1 kHz of
                                 clresample at every quality found, per format
                                 (-cutoff.png: the runs of a format where
                                 some had a cutoff, clresample:Q:FMT:cutoff=C)
  response-others.png            the same for the other contestants, if any
  impulse-step.png               (iii) impulse and step responses 44.1 ->
                                 48 kHz of every contestant run with
                                 --metrics impulse

How the response is measured (in clr-quality.c, metric_response): one run
per contestant whose input is ~960 integer-Hz sines on three disjoint 50 Hz
grids, chosen so that every input frequency (0-48 kHz) lands on its own
output frequency after resampling (aliases included). The analysis window is
exactly 2 s of steady output, an integer number of cycles of every tone, so
the tones are exactly orthogonal over it and a plain correlation gives each
tone's amplitude with no leakage between tones at all. No window, no FFT
leakage: the only floor is the contestant's own arithmetic error per bin
(about -162 dB for float32, about -310 dB for float64), estimated from unused
bins and drawn as a dotted line.
"""
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

DB_FLOOR = -200.0


def load_dumps(folder, metric):
    """Returns a list of (description dict, numpy array [frames, columns])."""
    out = []
    for js in sorted(glob.glob(os.path.join(folder, metric + "-*.json"))):
        with open(js) as f:
            d = json.load(f)
        raw = os.path.join(folder, d["file"])
        a = np.fromfile(raw, dtype="<f8")
        cols = int(d.get("columns", 1))
        out.append((d, a.reshape(-1, cols)))
    return out


def kaiser(n, beta):
    return np.kaiser(n, beta)


def contestant_key(name):
    """clresample first, then audioresample, then the rest; by format, then
    by quality as a number."""
    p = name.split(":")
    order = {"clresample": 0, "audioresample": 1}.get(p[0], 2)
    q = int(p[1]) if len(p) > 1 and p[1].isdigit() else -1
    return (order, ":".join(p[2:]), q, name)


def spectrogram_db(x, fs, nfft=2048, hop=256, beta=38.0):
    """STFT magnitude in dB relative to a full-scale sine (0 dB = a sine of
    amplitude 1). Kaiser beta 38: sidelobes near -290 dB, well below the
    -200 dB color floor; main lobe about +-12 bins."""
    w = kaiser(nfft, beta)
    norm = w.sum() / 2.0
    nfr = max(1, 1 + (len(x) - nfft) // hop)
    idx = np.arange(nfft)[None, :] + hop * np.arange(nfr)[:, None]
    frames = x[idx] * w[None, :]
    spec = np.abs(np.fft.rfft(frames, axis=1)) / norm
    with np.errstate(divide="ignore"):
        db = 20.0 * np.log10(np.maximum(spec, 1e-300))
    t = (np.arange(nfr) * hop + nfft / 2) / fs
    f = np.fft.rfftfreq(nfft, 1.0 / fs)
    return t, f, db.T


def plot_sweeps(dumps, outdir):
    if not dumps:
        print("no sweep dumps (run clr-quality --metrics sweep --dump DIR)")
        return
    dumps = sorted(dumps, key=lambda da: contestant_key(da[0]["contestant"]))
    n = len(dumps)
    ncols = min(3, n)
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.8 * nrows),
                             squeeze=False, sharey=True)
    im = None
    for i, (d, a) in enumerate(dumps):
        ax = axes[i // ncols][i % ncols]
        fs = d["out_rate"]
        t, f, db = spectrogram_db(a[:, 0], fs)
        im = ax.imshow(np.clip(db, DB_FLOOR, 0.0), origin="lower",
                       aspect="auto", interpolation="nearest",
                       extent=(t[0], t[-1], 0.0, f[-1] / 1000.0),
                       vmin=DB_FLOOR, vmax=0.0, cmap="inferno")
        ax.set_title(d["contestant"], fontsize=10)
        ax.set_xlabel("time (s)")
        if i % ncols == 0:
            ax.set_ylabel("frequency (kHz)")
        ax.set_ylim(0, fs / 2000.0)
    for j in range(n, nrows * ncols):
        axes[j // ncols][j % ncols].axis("off")
    fig.suptitle("Log sweep 20 Hz - 48 kHz at 96 kHz, resampled to 44.1 kHz "
                 "(anything but the rising line is error)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 0.92, 0.95))
    cax = fig.add_axes((0.93, 0.12, 0.015, 0.76))
    fig.colorbar(im, cax=cax, label="dB re full-scale sine")
    path = os.path.join(outdir, "sweep-spectrograms.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def response_panels(curves, title, path):
    """curves: list of (label, f_in, gain_db, floor_db)."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(15, 5.5),
                                   gridspec_kw={"width_ratios": [3, 2]})
    cmap = plt.get_cmap("viridis")
    worst_floor = max(c[3] for c in curves)
    for i, (label, f, g, _) in enumerate(curves):
        color = cmap(i / max(1, len(curves) - 1))
        ax1.plot(f / 1000.0, np.maximum(g, -300.0), lw=0.9, color=color,
                 label=label)
        ax2.plot(f / 1000.0, g, lw=0.9, color=color, label=label)
    ax1.axhline(worst_floor, ls=":", color="gray", lw=1.0,
                label="measurement floor (worst) %.0f dB" % worst_floor)
    ax1.axvline(22.05, ls="--", color="red", lw=0.6)
    ax1.set_xlim(0, 48)
    ax1.set_ylim(-220, 5)
    ax1.set_xlabel("input frequency (kHz)")
    ax1.set_ylabel("gain (dB)")
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=7, ncol=2, loc="lower left")
    ax1.set_title("magnitude response 96 -> 44.1 kHz (red: output Nyquist)",
                  fontsize=10)
    ax2.set_xlim(0, 22.05)
    ax2.set_ylim(-0.01, 0.01)
    ax2.set_xlabel("input frequency (kHz)")
    ax2.set_ylabel("gain (dB)")
    ax2.grid(alpha=0.3)
    ax2.set_title("passband, +-0.01 dB", fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def plot_responses(dumps, outdir):
    if not dumps:
        print("no response dumps (run clr-quality --metrics response "
              "--contestants clresample:all:F32LE --dump DIR)")
        return
    groups = {}
    others = []
    for d, a in dumps:
        c = (d["contestant"], a[:, 0], a[:, 2], d.get("floor_db", -999.0))
        parts = d["contestant"].split(":")
        if parts[0] == "clresample":
            # runs with a cutoff (clresample:Q:FMT[:ni]:cutoff=C) get a
            # figure of their own per format, beside the quality's own edge
            cut = [x for x in parts[3:] if x.startswith("cutoff=")]
            plain = [x for x in parts[2:] if not x.startswith("cutoff=")]
            key = ":".join(plain)
            cutoff = float(cut[0].split("=")[1]) if cut else 0.0
            groups.setdefault(key, []).append((int(parts[1]), cutoff, c))
        else:
            others.append(c)
    for key, lst in sorted(groups.items()):
        lst.sort(key=lambda qc: (qc[0], qc[1]))
        cut = any(x[1] > 0 for x in lst)
        curves = [("q=%d%s" % (q, ", cutoff=%g" % co if co else ""), f, g,
                   fl) for q, co, (_, f, g, fl) in lst]
        response_panels(curves, "clresample %s, %s" % (
            key, "with and without cutoff" if cut else "each quality"),
            os.path.join(outdir, "response-clresample-%s%s.png" % (
                key.replace(":", "-"), "-cutoff" if cut else "")))
    if others:
        others.sort(key=lambda c: contestant_key(c[0]))
        response_panels(others, "other contestants",
                        os.path.join(outdir, "response-others.png"))


def plot_impulses(dumps, outdir):
    """Impulse responses (a panel each) and step responses (together)
    around the input impulse's time."""
    if not dumps:
        return
    dumps = sorted(dumps, key=lambda da: da[0]["contestant"])
    n = len(dumps)
    fig = plt.figure(figsize=(15, 1.9 * n + 1.0))
    grid = fig.add_gridspec(n, 2)
    step_ax = fig.add_subplot(grid[:, 1])
    cmap = plt.get_cmap("viridis")
    for i, (d, a) in enumerate(dumps):
        y = a[:, 0] / 0.5
        # output frame 24000 is the impulse's own time (input frame 22050)
        m = np.arange(len(y)) - 24000
        sel = (m >= -48) & (m <= 96)
        t_ms = m[sel] / 48.0
        color = cmap(i / max(1, n - 1))
        ax = fig.add_subplot(grid[i, 0])
        ax.axhline(0.0, color="gray", lw=0.5)
        ax.axvline(0.0, ls="--", color="red", lw=0.6)
        ax.plot(t_ms, y[sel], lw=1.0, color=color, marker=".", ms=2)
        ax.set_ylabel(d["contestant"], fontsize=7)
        ax.grid(alpha=0.3)
        if i == 0:
            ax.set_title("impulse response 44.1 -> 48 kHz, output samples "
                         "(red: the impulse's time)", fontsize=10)
        if i == n - 1:
            ax.set_xlabel("time after the input impulse (ms)")
        # the step: the running sum from well before any pre-ringing,
        # scaled to settle at 1 (an input sample spreads over 48 / 44.1
        # output samples)
        wide = (m >= -960) & (m <= 96)
        step = np.cumsum(y[wide]) * 44100.0 / 48000.0
        step_ax.plot(t_ms, step[-sel.sum():], lw=1.0, color=color,
                     label=d["contestant"])
    step_ax.axvline(0.0, ls="--", color="red", lw=0.6)
    step_ax.set_xlabel("time after the input step (ms)")
    step_ax.set_ylabel("step response")
    step_ax.grid(alpha=0.3)
    step_ax.legend(fontsize=7, loc="lower right")
    step_ax.set_title("step response 44.1 -> 48 kHz", fontsize=10)
    fig.tight_layout()
    path = os.path.join(outdir, "impulse-step.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote", path)


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    dump, outdir = argv[1], argv[2]
    os.makedirs(outdir, exist_ok=True)
    plot_sweeps(load_dumps(dump, "sweep"), outdir)
    plot_responses(load_dumps(dump, "response"), outdir)
    plot_impulses(load_dumps(dump, "impulse"), outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
