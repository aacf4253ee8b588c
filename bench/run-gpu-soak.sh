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
# (`-f -n 512 -s 540`). Output in $OUT (or ./bench-out): fault.log,
# soak.log.
#
# The issue's 10 minutes, with the leak check, outlast the lent machines'
# 10-minute call; the soak then runs detached over two calls:
#
#   SOAK_DETACH=1 SOAK_LSAN=build-lsan bench/run-gpu-soak.sh -f -n 512 -s 600
#       starts it in a session of its own (it outlives the call), waits
#       SOAK_WAIT seconds (560) and prints how far it got;
#   SOAK_COLLECT=1 bench/run-gpu-soak.sh
#       the next call, on the same warm machine: waits for its end (at
#       most SOAK_WAIT seconds) and prints the result, soak.log.gz in $OUT.
#
# CLR_SOAK_DEBUG=1000 (the environment passes it on) prints every action,
# fault and stall, and every buffer more than 1 s late, with its stream:
# what H52's and H53's one stream 7.8-9.8 s late, untraced, needs.
#
# SOAK_LSAN names a build folder configured with -Db_sanitize=leak (only
# its bench/clr-soak is used, `ninja -C build-lsan bench/clr-soak`):
# LeakSanitizer in the soak and its child, which load the plugin of
# `build`, their leaks judged at exit with tests/lsan.supp. The GPU
# machine has no liblsan: copy the build machine's liblsan.so.0 into
# SOAK_LSAN/lib. LeakSanitizer alone costs the streams little, where
# AddressSanitizer's 256 streams fell behind real time (H55).
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
shim=$PWD/build/tests/libclrfaultshim.so
state=/tmp/clr-gpu-soak
wait_s=${SOAK_WAIT:-560}
export GST_DEBUG=clresample*:2 CK_DEFAULT_TIMEOUT=300

if [ -n "${SOAK_COLLECT:-}" ]; then
  for _ in $(seq "$wait_s"); do
    [ -f $state/rc ] && break
    sleep 1
  done
  if [ ! -f $state/rc ]; then
    echo "the soak has not ended (still running, or never started)"
    tail -c 2000 $state/soak.log 2>/dev/null
    exit 1
  fi
  gzip -c $state/soak.log > "$out/soak.log.gz"
  grep -v '^\[with faults\] clr-fault' $state/soak.log | tail -60
  echo "clr-soak exit $(cat $state/rc), $(($(cat $state/t1) - $(cat $state/t0))) s"
  exit "$(cat $state/rc)"
fi

if [ -z "${SOAK_DETACH:-}" ]; then
  if CLR_FAULT_SHIM=$shim build/tests/test-fault > "$out/fault.log" 2>&1; then
    echo "ok    fault"
  else
    echo "FAIL  fault (see fault.log)"
  fi
fi
[ $# -gt 0 ] || set -- -f -n 512 -s 540
soak=build/bench/clr-soak
if [ -n "${SOAK_LSAN:-}" ]; then
  soak=$SOAK_LSAN/bench/clr-soak
  [ -d "$SOAK_LSAN/lib" ] &&
    export LD_LIBRARY_PATH=$PWD/$SOAK_LSAN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # the registry first, without the leak check: its one-off scan of the
  # bundle's plugins is not ours to judge
  gst-inspect-1.0 clresample > /dev/null 2>&1
  export GST_REGISTRY_FORK=no
  export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=1
fi

if [ -n "${SOAK_DETACH:-}" ]; then
  rm -rf $state
  mkdir -p $state
  printf '%q ' "$soak" --shim "$shim" "$@" > $state/cmd
  setsid bash -c "date +%s > $state/t0; $(cat $state/cmd) > $state/soak.log 2>&1;
      echo \$? > $state/rc; date +%s > $state/t1" < /dev/null > /dev/null 2>&1 &
  sleep "$wait_s"
  echo "after $wait_s s: $(cat $state/cmd)"
  grep -v '^\[with faults\] clr-fault' $state/soak.log | tail -20
  exit 0
fi

$soak --shim "$shim" "$@" > "$out/soak.log" 2>&1
rc=$?
tail -40 "$out/soak.log"
echo "clr-soak exit $rc"
exit $rc
