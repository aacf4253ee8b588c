#!/usr/bin/env bash
# The one-block sum run ahead (CLRESAMPLE_CONV_AHEAD, default 1) against
# the sum in the block's own commands (0), alternating in one lease, for
# issue 10's pipeline rows; after `. .gpu-bundle/enter.sh build`.
set -u
f=build/bench/clr-fir-bench
out=${OUT:-./bench-out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader || true
echo "## the convolution's tests on the GPU"
build/tests/test-conv > "$out/test-conv.log" 2>&1; echo "test-conv rc $?"
CLRESAMPLE_CONV_AHEAD=0 build/tests/test-conv > "$out/test-conv-inline.log" 2>&1
echo "test-conv (inline sum) rc $?"
build/tests/test-firfilter > "$out/test-firfilter.log" 2>&1; echo "test-firfilter rc $?"
tail -3 "$out/test-conv.log"
for r in 1 2 3; do
  for a in 1 0; do
    echo "## 64 ch x 262144, B 1024, ahead $a, run $r"
    CLRESAMPLE_CONV_AHEAD=$a $f --device gpu -s 10 -t 262144 -c 64 -b 1024 \
      -e clfirfilter 2>&1 | grep -v "^#"
  done
done
for a in 1 0; do
  echo "## stereo x 1048576, B 256, ahead $a"
  CLRESAMPLE_CONV_AHEAD=$a $f --device gpu -s 10 -t 1048576 -c 2 -b 256 \
    -e clfirfilter 2>&1 | grep -v "^#"
done
for a in 1 0; do
  echo "## profile, 64 ch, ahead $a"
  CLRESAMPLE_PROFILE=1 CLRESAMPLE_CONV_AHEAD=$a $f --device gpu -s 5 \
    -t 262144 -c 64 -b 1024 -e clfirfilter 2>&1 | grep -E "profile|^clfir"
done
