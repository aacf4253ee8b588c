#!/usr/bin/env python3
"""W5 for torchaudio: torchaudio.functional.resample on the GPU, beside
clr-bench's W5 (clresample's kernel alone, data on the device).

64 channels of float32 uniform noise in [-1, 1) already on the GPU, resampled
44.1 -> 48 kHz (4 s of input) and 44.1 -> 192 kHz (1 s), the sizes clr-bench
uses (>= 1e7 output samples). Timed with CUDA events: warm-up, then the
median of >= 20 runs; output samples per second = output frames x channels /
median time. Then the same with host <-> device copies of pageable memory
(tensor on the CPU -> GPU -> resample -> CPU), wall clock.

Error, dB re full scale (1.0), against two float64 references:
  vs f64: torchaudio's own resample of the same input as float64 on the GPU
          (every output sample);
  vs exact: a direct float64 (numpy) evaluation of torchaudio's windowed-sinc
          formula for a subset of outputs, which also checks that the f64
          reference is itself exact (the 'f64 vs exact' column).
Both measure arithmetic error against the filter torchaudio designs, as
clr-bench measures clresample's against its own filter.

TF32 is off (torch.backends.cuda.matmul.allow_tf32 = False,
torch.backends.cudnn.allow_tf32 = False); one row turns cuDNN's TF32 back on,
as torch does by default, to show what the default costs in accuracy (with
cudnn.benchmark on, cuDNN may pick a non-TF32 algorithm anyway). The
"Resample module" rows run transforms.Resample, which designs its kernel
once, where functional.resample designs it on every call.

Usage: python3 bench/torchaudio_w5.py [--quick] [--csv FILE]
"""
import argparse
import math
import statistics
import sys
import time

import numpy as np
import torch
import torchaudio
import torchaudio.functional as AF
import torchaudio.transforms as AT

CHANNELS = 64
IN_RATE = 44100
# (output rate, seconds of input): >= 1e7 output samples each
CONVERSIONS = [(48000, 4.0), (192000, 1.0)]
# (label, lowpass_filter_width, rolloff, method, beta, tf32, module):
# functional.resample designs its kernel on every call; module=True runs
# transforms.Resample instead, whose kernel is designed once and kept
CONFIGS = [
    ("width 6 hann (default)", 6, 0.99, "sinc_interp_hann", None, False,
     False),
    ("width 64 hann", 64, 0.99, "sinc_interp_hann", None, False, False),
    ("width 64 kaiser b=20.5", 64, 0.99, "sinc_interp_kaiser", 20.53, False,
     False),
    ("width 6 hann, TF32 on", 6, 0.99, "sinc_interp_hann", None, True, False),
    ("Resample module, width 6", 6, 0.99, "sinc_interp_hann", None, False,
     True),
    ("Resample module, width 64 kaiser", 64, 0.99, "sinc_interp_kaiser",
     20.53, False, True),
]
_modules = {}


def db(x):
    return 20.0 * math.log10(x) if x > 0 else -999.0


def resample(x, out_rate, cfg):
    _, width, rolloff, method, beta, _, module = cfg
    if not module:
        return AF.resample(x, IN_RATE, out_rate, lowpass_filter_width=width,
                           rolloff=rolloff, resampling_method=method,
                           beta=beta)
    key = (out_rate, cfg, x.dtype)
    if key not in _modules:
        _modules[key] = AT.Resample(
            IN_RATE, out_rate, lowpass_filter_width=width, rolloff=rolloff,
            resampling_method=method, beta=beta, dtype=x.dtype).to(x.device)
    return _modules[key](x)


def macs_per_output(out_rate, cfg):
    """Kernel length of torchaudio's conv1d: every output costs this many
    multiply-adds, zeros beyond the window included."""
    width, rolloff = cfg[1], cfg[2]
    g = math.gcd(IN_RATE, out_rate)
    orig, new = IN_RATE // g, out_rate // g
    base = min(orig, new) * rolloff
    w = math.ceil(width * orig / base)
    return 2 * w + orig


def exact_outputs(x64, out_rate, cfg, frames):
    """torchaudio's formula evaluated directly in float64 (numpy) for the
    output frames `frames`, every channel: y[m] = sum_u x[b*orig + u - w]
    k_i[u], i = m mod new, b = m div new (functional.py, resample)."""
    lw, rolloff, method, beta = cfg[1:5]
    g = math.gcd(IN_RATE, out_rate)
    orig, new = IN_RATE // g, out_rate // g
    base = min(orig, new) * rolloff
    w = math.ceil(lw * orig / base)
    u = np.arange(-w, w + orig, dtype=np.float64)
    length = x64.shape[1]
    out = np.empty((x64.shape[0], len(frames)))
    for n, m in enumerate(frames):
        i, b = m % new, m // new
        t = (-i / new + u / orig) * base
        t = np.clip(t, -lw, lw)
        if method == "sinc_interp_hann":
            win = np.cos(t * math.pi / lw / 2) ** 2
        else:
            # torchaudio holds beta in a float32 tensor and takes I0 (beta)
            # in float32: mirror both, so that this evaluates its filter
            if beta is None:
                beta = 14.769656459379492
            b32 = float(np.float32(beta))
            i0_b = float(torch.i0(torch.tensor(float(beta))))
            win = np.i0(b32 * np.sqrt(1 - (t / lw) ** 2)) / i0_b
        tp = t * math.pi
        with np.errstate(invalid="ignore", divide="ignore"):
            k = np.where(tp == 0, 1.0, np.sin(tp) / tp)
        k = k * win * (base / orig)
        j = b * orig + np.arange(-w, w + orig)
        ok = (j >= 0) & (j < length)
        out[:, n] = x64[:, j[ok]] @ k[ok]
    return out


def time_gpu(fn, runs):
    """Median milliseconds of fn() by CUDA events, after warm-up: 0.3 s of
    calls first (clocks up, cuDNN's algorithm chosen), then `runs` calls or
    0.5 s of them, whichever is more."""
    t0, n = time.perf_counter(), 0
    while n < 3 or time.perf_counter() - t0 < 0.3:
        fn()
        torch.cuda.synchronize()
        n += 1
    per_call = (time.perf_counter() - t0) / n
    runs = min(max(runs, int(0.5 / per_call)), 2000)
    times = []
    for _ in range(runs):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def time_wall(fn, runs):
    """Median milliseconds of fn() by the wall clock (fn synchronizes)."""
    for _ in range(2):
        fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def print_table(head, rows):
    w = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    fmt = lambda r: "  ".join(
        (str(c).ljust(w[i]) if i < 2 else str(c).rjust(w[i]))
        for i, c in enumerate(r))
    print(fmt(head))
    print("  ".join("-" * n for n in w))
    for r in rows:
        print(fmt(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="short runs")
    ap.add_argument("--runs", type=int, default=30,
                    help="timed runs per figure (median; default 30)")
    ap.add_argument("--csv", help="also write the table as CSV")
    ap.add_argument("--no-cudnn-benchmark", action="store_true",
                    help="leave torch.backends.cudnn.benchmark off (torch's "
                    "default); by default it is on, so that cuDNN picks its "
                    "fastest convolution for torchaudio")
    args = ap.parse_args()

    if not torch.cuda.is_available():
        print("torchaudio_w5: no CUDA device", file=sys.stderr)
        return 1
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = not args.no_cudnn_benchmark
    dev = torch.device("cuda")
    runs = 5 if args.quick else max(args.runs, 20)
    copy_runs = 3 if args.quick else 10

    print("torchaudio W5: %s, torch %s, torchaudio %s, CUDA %s, cuDNN %s"
          % (torch.cuda.get_device_name(0), torch.__version__,
             torchaudio.__version__, torch.version.cuda,
             torch.backends.cudnn.version()))
    print("64 channels float32 uniform noise in [-1, 1) on the GPU; "
          "median of >= %d runs (CUDA events), %d with copies; TF32 off "
          "unless the row says so; cudnn.benchmark %s"
          % (runs, copy_runs, torch.backends.cudnn.benchmark))
    print()

    head = ["conversion", "config", "MACs/out", "out frames", "ms",
            "G out samples/s", "ms w/ copies", "G/s w/ copies",
            "max err vs f64 dB", "rms err vs f64 dB", "max err vs exact dB",
            "f64 vs exact dB"]
    rows = []
    gen = torch.Generator(device=dev)
    gen.manual_seed(20101)
    for out_rate, seconds in CONVERSIONS:
        if args.quick:
            seconds /= 8
        n_in = int(seconds * IN_RATE)
        x = torch.rand((CHANNELS, n_in), generator=gen, device=dev,
                       dtype=torch.float32) * 2 - 1
        x64 = x.double()
        x_host = x.cpu()          # pageable
        x64_np = x64.cpu().numpy()
        for cfg in CONFIGS:
            label, tf32 = cfg[0], cfg[5]
            torch.backends.cudnn.allow_tf32 = tf32
            y = resample(x, out_rate, cfg)
            torch.cuda.synchronize()
            n_out = y.shape[1]
            ms = time_gpu(lambda: resample(x, out_rate, cfg), runs)
            ms_copy = time_wall(
                lambda: resample(x_host.to(dev), out_rate, cfg).cpu(),
                copy_runs)
            torch.backends.cudnn.allow_tf32 = False
            y64 = resample(x64, out_rate, cfg)
            d = (y.double() - y64).abs()
            max_f64 = d.max().item()
            rms_f64 = d.pow(2).mean().sqrt().item()
            # subset for the exact check: the start (padding read) and
            # frames spread over the rest
            frames = list(range(64)) + list(
                np.linspace(64, n_out - 1, 192).astype(int))
            ex = exact_outputs(x64_np, out_rate, cfg, frames)
            yc = y.cpu().double().numpy()[:, frames]
            y64c = y64.cpu().numpy()[:, frames]
            max_exact = float(np.abs(yc - ex).max())
            f64_exact = float(np.abs(y64c - ex).max())
            rows.append([
                "44.1 -> %g kHz" % (out_rate / 1000), label,
                macs_per_output(out_rate, cfg), n_out, "%.3f" % ms,
                "%.2f" % (n_out * CHANNELS / (ms * 1e-3) / 1e9),
                "%.2f" % ms_copy,
                "%.3f" % (n_out * CHANNELS / (ms_copy * 1e-3) / 1e9),
                "%.1f" % db(max_f64), "%.1f" % db(rms_f64),
                "%.1f" % db(max_exact), "%.1f" % db(f64_exact)])
            print("  done: %s %s" % (rows[-1][0], label), file=sys.stderr)
            del y, y64, d
        del x, x64, x_host
        torch.cuda.empty_cache()
    torch.backends.cudnn.allow_tf32 = False

    print_table(head, rows)
    print()
    print("MACs/out: torchaudio's conv1d kernel length (2 x width' + 147),"
          " zeros beyond the window included.")
    print("vs f64: against torchaudio's float64 resample of the same input "
          "on the GPU (all outputs); vs exact: against numpy float64 "
          "evaluation of the formula (first 64 + 192 spread output frames, "
          "all channels); f64 vs exact: the float64 reference's own error.")
    if args.csv:
        with open(args.csv, "w") as f:
            f.write(",".join(head) + "\n")
            for r in rows:
                f.write(",".join(str(c) for c in r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
