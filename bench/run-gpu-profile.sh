#!/usr/bin/env bash
# Where a block's time goes on the GPU machine, for issue 10's 64-channel
# row: the convolution's device time stage by stage and the element's
# conversions around it (CLRESAMPLE_PROFILE: OpenCL event profiling and
# host clocks), with the staging page-locked or not, and the one-block
# sum's shape (slices x outputs a work-item). After
# `. .gpu-bundle/enter.sh build`.
set -u
f=build/bench/clr-fir-bench
lscpu | grep -E "Model name|^CPU\(s\)" || true
export CLRESAMPLE_PROFILE=1
for pinned in 1 0; do
  echo "## clfirfilter, 64 ch, B = 1024, CLRESAMPLE_PINNED=$pinned"
  CLRESAMPLE_PINNED=$pinned $f --device gpu -s 5 -t 64,262144 -c 64 -b 1024 \
    -e clfirfilter --no-pipelines 2>&1
done
for so in "2 1" "4 1" "8 1" "8 2" "16 2"; do
  set -- $so
  echo "## clfirfilter 64 ch x 262144, slices $1, opw $2"
  CLRESAMPLE_CONV_SLICES=$1 CLRESAMPLE_CONV_OPW=$2 $f --device gpu -s 5 \
    -t 262144 -c 64 -b 1024 -e clfirfilter --no-pipelines 2>&1 | grep -E "profile|^clfir"
done
echo "## pipelines"
$f --device gpu -s 10 -t 262144 -c 64 -b 1024 -e clfirfilter 2>&1
$f --device gpu -s 10 -t 1048576 -c 2 -b 256 -e clfirfilter 2>&1
