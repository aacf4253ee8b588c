#!/usr/bin/env bash
# clfirfilter, clcrossover and clresample's FFT path on the GPU machine
# (the H100 targets of issues 10, 11 and 12), after
#   . .gpu-bundle/enter.sh build && bench/run-gpu-tests.sh
# Harness and whole-process pipeline rows from bench/clr-fir-bench; the
# raw output goes to $OUT/gpu-fir-bench.txt (or ./bench-out).
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
b=build/bench/clr-fir-bench
{
  # stereo, the lengths, clfirfilter beside audiofirfilter
  $b --device gpu -s 10 -t 65536,1048576 -c 2 -b 256,1024,0
  # 64 channels x 262144 taps at B = 1024 (audiofirfilter: 32 channels is
  # its row in the CPU table; here only the GPU element)
  $b --device gpu -s 10 -t 262144 -c 64 -b 1024,0 -e clfirfilter
  $b --device gpu -s 10 -t 1048576 -c 2 -b 256,1024 -e clfirfilter --f64
} 2>&1 | tee "$out/gpu-fir-bench.txt"
# clcrossover: issue 11's H100 target (4 bands x 65536 taps x 8 channels,
# 256-frame blocks), and the 4 x 8192 stereo case beside audiofirfilter
{
  build/bench/clr-crossover-bench --device gpu -s 10 -t 65535 -c 8 -b 256,1024 \
    -e clcrossover
  build/bench/clr-crossover-bench --device gpu -s 10 -t 8191 -c 2 -b 256,1024
} 2>&1 | tee "$out/gpu-crossover-bench.txt"
# clresample's FFT path: issue 12's H100 rows (stereo 44.1 -> 705.6 kHz,
# 63488 taps a phase, 1024-frame and 1 s buffers, >= 100x and >= 300x real
# time) beside the direct kernels, the GPU crossover in taps (to set
# clr-kernel-plan.c's provisional GPU thresholds), and scipy's reference
# where the machine has it
# (docs/performance.md's figures: the 30 min pipelines and the crossover)
OUT="$out" bench/run-oversample.sh --device gpu --pipeline-seconds 1800 \
    --taps 63488 --ratios 44100:705600 \
  2>&1 | tee "$out/gpu-oversample-bench.txt"
build/bench/clr-oversample-bench --device gpu -s 5 -r 1 --no-pipelines \
    --taps 256,512,1024,2048,4096 --ratios 44100:88200,44100:176400,44100:705600,192000:48000,96000:48000,48000:32000,32000:48000 \
  2>&1 | tee "$out/gpu-oversample-crossover.txt"
