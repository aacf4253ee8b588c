#!/usr/bin/env bash
# Four-step transforms after the twiddle recurrences: the test, then F32
# rows both ways and the stage profile with the kernels' resources.
# usage: bench/lab/gpu-fourstep2.sh [BUILD_DIR] [SECONDS]
set -u
build=${1:-build}
s=${2:-60}
out=${OUT:-./bench-out}
mkdir -p "$out"
b="$build/bench/clr-offline-bench -d gpu -s $s --device-only"
t=8192,65536,262144,1048576
{
  $build/tests/test-conv-offline --tap 2>&1 | grep "^not ok\|Bail\|fourstep.*worst"
  for v in 1 0; do
    echo "## CLRESAMPLE_OFFLINE_FOURSTEP=$v, F32"
    CLRESAMPLE_OFFLINE_FOURSTEP=$v $b -c 2,32 -t $t | grep "^| [0-9]"
  done
  echo "## CLRESAMPLE_PROFILE=1, four-step"
  CLRESAMPLE_PROFILE=1 CLRESAMPLE_OFFLINE_FOURSTEP=1 $b -c 2 -t $t 2>&1 | grep "clr-conv-offline\|^| [0-9]"
} 2>&1 | tee "$out/gpu-fourstep2.txt"
