#!/usr/bin/env bash
# The offline convolution on VkFFT on the GPU machine (issue 10's offline
# target, >= 20 G samples/s on the H100), after
#   . .gpu-bundle/enter.sh build-offline
# The test first, then the bench: the rows at the core's FFT size
# (F32, F64), the power-of-two size at 1M taps, float transforms and a
# sweep of one VkFFT setting. Raw output to $OUT/gpu-offline-*.txt (or
# ./bench-out); docs/bench/gpu-offline-vkfft-2026-11-23-final.txt is one.
# usage: bench/run-gpu-offline.sh [BUILD_DIR] [SECONDS]
set -u
build=${1:-build-offline}
s=${2:-60}
out=${OUT:-./bench-out}
mkdir -p "$out"
b="$build/bench/clr-offline-bench -d gpu -s $s -c 2,32"
t=8192,65536,262144,1048576
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$out/gpu-offline-test.txt"
$build/tests/test-conv-offline --tap 2>&1 | tee -a "$out/gpu-offline-test.txt" | grep -v "^# \(Start\|End\)" | grep "worst\|ok"
{
  $b -t $t
  echo "## pow2 at 1M taps"
  $b -t 1048576 --fft 4194304 --device-only
  echo "## CLRESAMPLE_VKFFT_COALESCED=64 (ours up to a million points)"
  CLRESAMPLE_VKFFT_COALESCED=64 $b -t 1048576 --device-only | grep "^| [0-9]"
  echo "## F64"
  $b -t $t --f64
  echo "## float transforms"
  $b -t $t --float-transforms --device-only | grep "^| [0-9]"
} 2>&1 | tee "$out/gpu-offline-bench.txt"
