#!/usr/bin/env bash
# Where a block's time goes on the GPU machine, for issue 10's 64-channel
# row: the convolution's device time stage by stage (CLRESAMPLE_PROFILE,
# OpenCL event profiling), the engine alone against clfirfilter around it,
# and the partition sum's slices. After `. .gpu-bundle/enter.sh build`.
set -u
c=build/bench/clr-conv-bench
f=build/bench/clr-fir-bench
lscpu | grep -E "Model name|^CPU\(s\)|MHz" || true
export CLRESAMPLE_PROFILE=1
echo "## engine alone, 64 ch, B = 1024"
$c --device gpu -s 5 -t 64,262144 -b 1024 -c 64 2>&1
echo "## clfirfilter (harness), the same"
$f --device gpu -s 5 -t 64,262144 -c 64 -b 1024 -e clfirfilter --no-pipelines 2>&1
echo "## the sum's slices, 64 ch x 262144, B = 1024"
for s in 1 2 4 8 16 32; do
  echo "# CLRESAMPLE_CONV_SLICES=$s"
  CLRESAMPLE_CONV_SLICES=$s $c --device gpu -s 3 -t 262144 -b 1024 -c 64 2>&1 | tail -2
done
echo "## stereo 1M taps, B = 256"
$c --device gpu -s 5 -t 1048576 -b 256 -c 2 2>&1
