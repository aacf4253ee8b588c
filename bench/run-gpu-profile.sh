#!/usr/bin/env bash
# Where a block's time goes on the GPU machine, for issue 10's 64-channel
# row: the convolution's device time stage by stage (CLRESAMPLE_PROFILE,
# OpenCL event profiling), the engine alone against clfirfilter around it,
# and the one-block sum's shape (slices x outputs a work-item). After
# `. .gpu-bundle/enter.sh build`.
set -u
c=build/bench/clr-conv-bench
f=build/bench/clr-fir-bench
lscpu | grep -E "Model name|^CPU\(s\)" || true
export CLRESAMPLE_PROFILE=1
echo "## the one-block sum, 64 ch x 262144, B = 1024: slices x outputs a work-item"
for s in 2 4 8 16; do
  for o in 1 2 4 8; do
    printf "slices %2d opw %d: " $s $o
    CLRESAMPLE_CONV_SLICES=$s CLRESAMPLE_CONV_OPW=$o $c --device gpu -s 2 \
      -t 262144 -b 1024 -c 64 2>&1 | grep "1.00 blocks" | head -1 | sed 's/.*us a batch: //'
  done
done
echo "## engine alone, 64 ch, B = 1024"
$c --device gpu -s 5 -t 64,262144 -b 1024 -c 64 2>&1
echo "## clfirfilter (harness and pipeline), the same"
$f --device gpu -s 5 -t 64,262144 -c 64 -b 1024 -e clfirfilter 2>&1
echo "## stereo 1M taps, B = 256"
$f --device gpu -s 5 -t 1048576 -c 2 -b 256 -e clfirfilter 2>&1
