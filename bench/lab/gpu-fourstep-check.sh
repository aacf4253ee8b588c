#!/usr/bin/env bash
# After a change to conv-fourstep.cl: the test, then stereo and 32 ch at
# 1M and 65536 taps, four-step and VkFFT alternating.
# usage: bench/lab/gpu-fourstep-check.sh [BUILD_DIR]
set -u
build=${1:-build}
b="$build/bench/clr-offline-bench -d gpu -s 60 --device-only"
$build/tests/test-conv-offline --tap 2>&1 | grep "^not ok\|Bail\|fourstep.*worst" | tail -3
for v in 1 0 1 0; do
  CLRESAMPLE_OFFLINE_FOURSTEP=$v $b -c 2,32 -t 65536,1048576 | grep "^| [0-9]"
done
