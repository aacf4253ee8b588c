#!/usr/bin/env bash
# Many streams in one process on the GPU machine (issue 25's GPU rows),
# after
#   . .gpu-bundle/enter.sh build && bench/run-gpu-streams.sh [BASELINE_DIR]
# bench/clr-streams-bench's table: N branches of 44.1 -> 48 kHz stereo F32
# in 10 ms buffers (clresample q4 and q10 beside audioresample q10 and the
# source alone), then clfirfilter 8192 taps beside audiofirfilter, then
# drifting ratios (rate-adjust a stream, follow-drift) beside q4's; on a
# machine of several GPUs, 256 and 512 streams on one card and spread. With
# BASELINE_DIR (a folder holding another build's gst/libgstclresample.so)
# the clresample rows run again with that plugin, in the same lease.
# STREAMS_SECONDS sets the audio a stream (default 30, the layout;
# 120 shows a long run's rate: the start of a fresh process, most of it
# the GPU driver's, is a quarter of a 30 s run at N = 256, as the table's
# start column says). The raw output goes to $OUT/gpu-streams.txt (or
# ./bench-out).
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
b=build/bench/clr-streams-bench
secs=${STREAMS_SECONDS:-30}
{
  $b -s "$secs" -n 1,16,64,256,1024 \
    -w source,clresample-q4,clresample-q10,clresample-q10-nohold,audioresample-q10
  $b -s 20 -n 1,16,64 -w clfirfilter-256,clfirfilter-1024,audiofirfilter
  # drifting ratios, each stream its own, against the fixed ratio (issue
  # 48, item 5: 256 streams at >= 0.7x)
  $b -s "$secs" -n 16,64,256 \
    -w clresample-q4,clresample-q4-adjust,clresample-q4-follow
  # several GPUs: every instance on the first card, then device=auto
  # (the least used card: the streams spread over all of them)
  if [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -gt 1 ]; then
    for d in 0 auto; do
      echo "== device=$d"
      $b -s "$secs" -n 256,512 -w clresample-q10 -d "$d"
    done
  fi
  if [ -n "${1:-}" ]; then
    echo "== baseline plugin: $1"
    GST_PLUGIN_PATH_1_0=$(cd "$1" && pwd) GST_REGISTRY_1_0=/tmp/reg-base.bin \
      $b -s "$secs" -n 16,64,256 -w clresample-q4,clresample-q10
  fi
} 2>&1 | tee "$out/gpu-streams.txt"
