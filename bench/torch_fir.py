#!/usr/bin/env python3
"""Issue 10's torch rows: FIR filtering with torch's cuFFT on the GPU, written
as a Python user would, beside clfirfilter and clr-offline-bench in the same
lease (bench/run-gpu-torch-fir.sh).

offline   overlap-save of a whole signal already on the GPU: the input cut
          into overlapping segments of N = the power of two >= 4 x taps,
          at least 65536 (Tensor.unfold), one batched rfft, the product with the filter's
          spectrum, one batched irfft, the valid N - taps + 1 samples of each
          segment kept. Timed with CUDA events, median of >= 5 runs after a
          warm-up; G samples/s = channels x input frames / time, as
          clr-offline-bench counts them.
stream    a uniformly partitioned convolver, block by block from host
          memory, as a real-time user would write it: B frames of every
          channel to the GPU, rfft of the last 2B frames into a ring of
          spectra (the frequency-domain delay line), the sum over the
          partitions (one einsum against the filter's partition spectra in
          the ring's order), irfft, the last B samples back to the host
          (which waits). Wall time a block with time.perf_counter, median and
          p99 over the run (first 10 blocks left out); x real time = the
          block's duration / the mean time a block.

Filter and input as clr-fir-bench: noise decaying by 60 dB over the filter's
length, the same filter on every channel; uniform noise in [-0.5, 0.5).
Error: max |error| over the RMS of the output, against the same algorithm in
float64 on the GPU (cuFFT double; its own error is ~1e-15), in dB.

Usage: python3 bench/torch_fir.py [--quick]
"""
import argparse
import math
import statistics
import time

import torch

RATE = 48000


def make_filter(taps, gen):
    n = torch.arange(taps, dtype=torch.float64)
    u = torch.rand(taps, generator=gen, dtype=torch.float64) * 2 - 1
    return u * torch.exp(-6.9 * n / taps) * 4.0 / math.sqrt(taps)


def make_input(channels, frames, gen):
    return torch.rand(channels, frames, generator=gen,
                      dtype=torch.float64) - 0.5


def next_pow2(n):
    return 1 << (n - 1).bit_length()


def overlap_save(x, h, n_fft):
    """x: (C, L) on the GPU, h: (taps,) same dtype; returns (C, L) = the
    first L samples of the linear convolution."""
    taps = h.shape[0]
    hop = n_fft - taps + 1
    c, length = x.shape
    segments = (length + hop - 1) // hop
    # taps - 1 zeros before (the history of the first segment), zeros after
    padded = torch.nn.functional.pad(
        x, (taps - 1, (segments - 1) * hop + n_fft - (taps - 1) - length))
    frames = padded.unfold(1, n_fft, hop)                 # (C, S, N)
    hf = torch.fft.rfft(h, n=n_fft)
    y = torch.fft.irfft(torch.fft.rfft(frames, dim=-1) * hf, n=n_fft,
                        dim=-1)
    return y[..., taps - 1:].reshape(c, -1)[:, :length]


def error_db(got, want):
    err = (got.double() - want).abs().max().item()
    rms = want.pow(2).mean().sqrt().item()
    return 20 * math.log10(max(err, 1e-300) / rms)


def offline_row(channels, taps, seconds, gen, runs):
    dev = "cuda"
    frames = int(seconds * RATE)
    x64 = make_input(channels, frames, gen).to(dev)
    h64 = make_filter(taps, gen).to(dev)
    n_fft = max(next_pow2(4 * taps), 65536)
    x, h = x64.float(), h64.float()
    want = overlap_save(x64, h64, n_fft)
    got = overlap_save(x, h, n_fft)
    db = error_db(got, want)
    del want, got
    times = []
    start, end = torch.cuda.Event(enable_timing=True), \
        torch.cuda.Event(enable_timing=True)
    for _ in range(runs + 1):
        torch.cuda.synchronize()
        start.record()
        y = overlap_save(x, h, n_fft)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
        del y
    t = statistics.median(times[1:])
    return {"us": t * 1e6, "gsps": channels * frames / t / 1e9, "db": db,
            "n_fft": n_fft}


class Partitioned:
    """UPOLS with a ring of spectra; block B, filter h (taps,) on dev."""

    def __init__(self, h, channels, block, dtype):
        dev = h.device
        self.B = block
        taps = h.shape[0]
        self.P = (taps + block - 1) // block
        hp = torch.nn.functional.pad(h.to(dtype), (0, self.P * block - taps))
        self.H = torch.fft.rfft(hp.reshape(self.P, block), n=2 * block)
        cdtype = self.H.dtype
        self.ring = torch.zeros(self.P, channels, block + 1, dtype=cdtype,
                                device=dev)
        self.prev = torch.zeros(channels, block, dtype=dtype, device=dev)
        self.pos = 0
        self.order = torch.arange(self.P, device=dev)

    def block(self, xb):
        """xb: (C, B) on the device; returns (C, B) on the device."""
        window = torch.cat((self.prev, xb), dim=1)
        self.prev = xb
        self.ring[self.pos] = torch.fft.rfft(window, dim=-1)
        # ring slot (pos - p) % P holds the spectrum of p blocks ago: the
        # filter's partitions in the ring's order, so one einsum sums them
        hr = self.H[(self.pos - self.order) % self.P]
        y = torch.einsum("pcb,pb->cb", self.ring, hr)
        self.pos = (self.pos + 1) % self.P
        return torch.fft.irfft(y, n=2 * self.B, dim=-1)[:, self.B:]


def stream_row(channels, taps, block, seconds, gen):
    dev = "cuda"
    frames = int(seconds * RATE) // block * block
    x64 = make_input(channels, frames, gen)
    h64 = make_filter(taps, gen).to(dev)
    x32 = x64.float().numpy()
    conv = Partitioned(h64, channels, block, torch.float32)
    out = torch.empty(channels, frames, dtype=torch.float32)
    times = []
    for i in range(frames // block):
        t0 = time.perf_counter()
        xb = torch.from_numpy(x32[:, i * block:(i + 1) * block]).to(dev)
        out[:, i * block:(i + 1) * block] = conv.block(xb).cpu()
        times.append(time.perf_counter() - t0)
    # the same in float64, for the error (an excerpt at the end)
    ref = Partitioned(h64, channels, block, torch.float64)
    n_blocks = frames // block
    excerpt = min(n_blocks, max(8, (4 * taps) // block + 8))
    # the reference needs the whole history: run it on the GPU from the
    # start, only the excerpt kept
    want = []
    xd = x64.to(dev)
    for i in range(n_blocks):
        y = ref.block(xd[:, i * block:(i + 1) * block])
        if i >= n_blocks - excerpt:
            want.append(y)
    want = torch.cat(want, dim=1).cpu()
    db = error_db(out[:, (n_blocks - excerpt) * block:], want)
    steady = times[10:]
    steady_sorted = sorted(steady)
    mean = sum(steady) / len(steady)
    return {"median": statistics.median(steady) * 1e6,
            "p99": steady_sorted[int(0.99 * (len(steady) - 1))] * 1e6,
            "xrt": block / RATE / mean, "db": db}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true",
                    help="short runs, to check the script")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    gen = torch.Generator().manual_seed(1)
    print("torch %s, %s" % (torch.__version__,
                            torch.cuda.get_device_name(0)))
    off_s = 5 if a.quick else 60
    print("## offline overlap-save, F32, data on the GPU, %g s of noise a "
          "channel" % off_s)
    print("| ch | taps | N (fft) | median us | G samples/s | err dB |")
    print("|---|---|---|---|---|---|")
    for ch in (2, 32):
        for taps in (8192, 65536, 262144, 1048576):
            r = offline_row(ch, taps, off_s, gen, 3 if a.quick else 9)
            print("| %d | %d | %d | %.0f | %.2f | %.1f |" % (
                ch, taps, r["n_fft"], r["us"], r["gsps"], r["db"]),
                flush=True)
            torch.cuda.empty_cache()
    st_s = 2 if a.quick else 10
    print("## partitioned, block by block from host memory, F32, %g s" %
          st_s)
    print("| ch | taps | B | x real time | median us | p99 us | err dB |")
    print("|---|---|---|---|---|---|---|")
    for ch, taps, block in ((2, 65536, 256), (2, 65536, 1024),
                            (2, 1048576, 256), (2, 1048576, 1024),
                            (64, 262144, 1024)):
        r = stream_row(ch, taps, block, st_s, gen)
        print("| %d | %d | %d | %.1f | %.0f | %.0f | %.1f |" % (
            ch, taps, block, r["xrt"], r["median"], r["p99"], r["db"]),
            flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
