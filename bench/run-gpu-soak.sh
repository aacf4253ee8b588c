#!/usr/bin/env bash
# Issue 47's soak on the GPU machine (no meson, no GStreamer install there):
# from the project root,
#
#   . .gpu-bundle/enter.sh build && bench/run-gpu-soak.sh [clr-soak args]
#
# first the fault test (tests/test-fault.c: one stream's fault in a batch
# of 16 fails that stream alone, a lost device ends all cleanly) on the
# GPU, then the soak (bench/clr-soak.c) with the given arguments, by
# default 512 live streams for 540 s with 1 OpenCL call in 10^4 failing
# (`-f -n 512 -s 540`: the 10-minute call limit of the lent machines
# holds one run, not the compare mode's two). Output in $OUT (or
# ./bench-out): fault.log, soak.log.
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
shim=$PWD/build/tests/libclrfaultshim.so
export GST_DEBUG=clresample*:2 CK_DEFAULT_TIMEOUT=300
if CLR_FAULT_SHIM=$shim build/tests/test-fault > "$out/fault.log" 2>&1; then
  echo "ok    fault"
else
  echo "FAIL  fault (see fault.log)"
fi
[ $# -gt 0 ] || set -- -f -n 512 -s 540
build/bench/clr-soak --shim "$shim" "$@" > "$out/soak.log" 2>&1
rc=$?
tail -40 "$out/soak.log"
echo "clr-soak exit $rc"
exit $rc
