#!/usr/bin/env bash
# The offline convolution on VkFFT on the GPU machine (issue 10's offline
# target, >= 20 G samples/s on the H100), after
#   . .gpu-bundle/enter.sh build-offline
# The test first, then the bench: the rows at the core's FFT size,
# an FFT-size sweep (the choice in clr-conv-offline.c), float transforms
# and F64. Raw output to $OUT/gpu-offline-*.txt (or ./bench-out).
# usage: bench/run-gpu-offline.sh [BUILD_DIR] [SECONDS]
set -u
build=${1:-build-offline}
s=${2:-60}
out=${OUT:-./bench-out}
mkdir -p "$out"
b=$build/bench/clr-offline-bench
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$out/gpu-offline-test.txt"
$build/tests/test-conv-offline --tap 2>&1 | tee -a "$out/gpu-offline-test.txt" | grep -v "^# \(Start\|End\)" | tail -16
{
  $b --device gpu -s "$s" -c 2,32 -t 8192,65536,262144,1048576
  $b --device gpu -s "$s" -c 2,32 -t 8192 --fft 16384,65536,131072
  $b --device gpu -s "$s" -c 2,32 -t 65536 --fft 131072,524288,1048576
  $b --device gpu -s "$s" -c 2,32 -t 262144 --fft 524288,2097152,4194304
  $b --device gpu -s "$s" -c 2,32 -t 1048576 --fft 2097152,8388608
  $b --device gpu -s "$s" -c 2,32 -t 8192,65536,262144,1048576 --float-transforms
  $b --device gpu -s "$s" -c 2,32 -t 8192,65536,262144,1048576 --f64
} 2>&1 | tee "$out/gpu-offline-bench.txt"
