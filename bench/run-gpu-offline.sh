#!/usr/bin/env bash
# The offline convolution on the GPU machine (issue 10's offline target,
# >= 20 G samples/s on the H100), after
#   . .gpu-bundle/enter.sh build
# The test first, then the bench: the rows with the default (on a
# GPU, the four-step transforms) and with VkFFT's, F32 and F64, float
# transforms, stereo at 1M taps alternating, and the stage profile. Raw
# output to $OUT/gpu-offline-*.txt (or ./bench-out);
# docs/bench/gpu-offline-fourstep-2026-11-25.txt is one.
# usage: bench/run-gpu-offline.sh [BUILD_DIR] [SECONDS]
set -u
build=${1:-build}
s=${2:-60}
out=${OUT:-./bench-out}
mkdir -p "$out"
b1="$build/bench/clr-offline-bench -d gpu -s $s"
b="$b1 -c 2,32"
t=8192,65536,262144,1048576
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$out/gpu-offline-test.txt"
$build/tests/test-conv-offline --tap 2>&1 | tee -a "$out/gpu-offline-test.txt" | grep -v "^# \(Start\|End\)" | grep "worst\|ok"
{
  $b -t $t
  echo "## VkFFT's transforms (CLRESAMPLE_OFFLINE_FOURSTEP=0), same rows"
  CLRESAMPLE_OFFLINE_FOURSTEP=0 $b -t $t --device-only | grep "^| [0-9]"
  echo "## F64"
  $b -t $t --f64
  echo "## F64, VkFFT's transforms"
  CLRESAMPLE_OFFLINE_FOURSTEP=0 $b -t $t --f64 --device-only | grep "^| [0-9]"
  echo "## float transforms (VkFFT's)"
  $b -t $t --float-transforms --device-only | grep "^| [0-9]"
  echo "## stereo 1M taps again: four-step, VkFFT, four-step, VkFFT"
  for v in 1 0 1 0; do
    CLRESAMPLE_OFFLINE_FOURSTEP=$v $b1 -c 2 -t 1048576 --device-only | grep "^| [0-9]"
  done
  echo "## CLRESAMPLE_PROFILE=1 (four-step stages)"
  CLRESAMPLE_PROFILE=1 $b -t $t --device-only 2>&1 | grep "us a run\|^| [0-9]"
} 2>&1 | tee "$out/gpu-offline-bench.txt"
