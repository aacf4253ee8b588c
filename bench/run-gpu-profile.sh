#!/usr/bin/env bash
# Where a block's time goes on the GPU machine, for issue 10's 64-channel
# row: the convolution's device time stage by stage and the element's
# copies around it (CLRESAMPLE_PROFILE: OpenCL event profiling and host
# clocks), in the harness and in whole pipelines. After
# `. .gpu-bundle/enter.sh build`.
set -u
f=build/bench/clr-fir-bench
lscpu | grep -E "Model name|^CPU\(s\)" || true
export CLRESAMPLE_PROFILE=1
echo "## clfirfilter, 64 ch, B = 1024"
$f --device gpu -s 5 -t 64,262144 -c 64 -b 1024 -e clfirfilter --no-pipelines 2>&1
for so in "4 2" "8 4" "16 2"; do
  set -- $so
  echo "## clfirfilter 64 ch x 262144, slices $1, opw $2"
  CLRESAMPLE_CONV_SLICES=$1 CLRESAMPLE_CONV_OPW=$2 $f --device gpu -s 5 \
    -t 262144 -c 64 -b 1024 -e clfirfilter --no-pipelines 2>&1 | grep -E "profile|^clfir"
done
unset CLRESAMPLE_PROFILE
echo "## pipelines"
$f --device gpu -s 10 -t 262144 -c 64 -b 1024 -e clfirfilter 2>&1
$f --device gpu -s 10 -t 1048576 -c 2 -b 256 -e clfirfilter 2>&1
