#!/usr/bin/env bash
# The offline convolution's four-step transforms against VkFFT's on the
# GPU machine, side by side in one lease, after
#   . .gpu-bundle/enter.sh build
# The test on the GPU first (the default there is the four-step path),
# then the bench's device-only rows with CLRESAMPLE_OFFLINE_FOURSTEP=1 and
# =0, F32 and F64, and the four-step stage profile at 1M taps.
# usage: bench/lab/gpu-fourstep.sh [BUILD_DIR] [SECONDS]
set -u
build=${1:-build}
s=${2:-60}
out=${OUT:-./bench-out}
mkdir -p "$out"
b="$build/bench/clr-offline-bench -d gpu -s $s --device-only"
t=8192,65536,262144,1048576
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
  $build/tests/test-conv-offline --tap 2>&1 | grep -v "^# \(Start\|End\)" | grep "worst\|ok\|refused"
  for v in 1 0; do
    echo "## CLRESAMPLE_OFFLINE_FOURSTEP=$v, F32"
    CLRESAMPLE_OFFLINE_FOURSTEP=$v $b -c 2,32 -t $t
  done
  for v in 1 0; do
    echo "## CLRESAMPLE_OFFLINE_FOURSTEP=$v, F64"
    CLRESAMPLE_OFFLINE_FOURSTEP=$v $b -c 2,32 -t $t --f64 | grep "^| [0-9]"
  done
  echo "## again, stereo 1M: four-step, VkFFT, four-step"
  for v in 1 0 1; do
    CLRESAMPLE_OFFLINE_FOURSTEP=$v $b -c 2 -t 1048576 | grep "^| [0-9]"
  done
  echo "## CLRESAMPLE_PROFILE=1, four-step, stereo and 32 ch at 1M taps"
  CLRESAMPLE_PROFILE=1 CLRESAMPLE_OFFLINE_FOURSTEP=1 $b -c 2,32 -t 1048576 2>&1 | grep "clr-conv-offline\|^| [0-9]"
} 2>&1 | tee "$out/gpu-fourstep.txt"
