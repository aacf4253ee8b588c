#!/usr/bin/env bash
# How long a player waits for the first filtered audio with a long filter:
# whole processes that stop at their first output, timed from the shell,
# alternating, ROUNDS rounds:
#
#   bench/run-first-output.sh [TAPS] [LATENCY] [ROUNDS]
#
# A 10 s stereo F32 48 kHz WAV of white noise, a white-noise IR of TAPS
# taps (default 1048576) at a latency of LATENCY frames (default 1024):
#   clfirfilter     filesrc ! wavparse ! clfirfilter location=IR
#                   block-size=LATENCY ! identity eos-after=1 ! fakesink
#                   (the mono IR), and the same with uniform partitions
#                   (CLRESAMPLE_CONV_LEVELS=0)
#   ffmpeg afir     ffmpeg 5.1 -lavfi afir=minp=LATENCY:maxp=32768
#                   -frames:a 1 -f null - (the stereo copy of the IR, as
#                   bench/run-cpu-convolvers.sh gives it)
#   audioresample   filesrc ! wavparse ! audioresample ! identity
#                   eos-after=1 ! fakesink: what a pipeline of stock
#                   elements costs to start
# Prints each round's milliseconds and the medians. The plugin is found
# through GST_PLUGIN_PATH (default build/gst); ffmpeg is installed if
# missing (apt-get, as root).
set -eu

taps=${1:-1048576}
latency=${2:-1024}
rounds=${3:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$root/build/gst}
command -v ffmpeg >/dev/null || apt-get install -y --no-install-recommends \
  ffmpeg >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/first-output.XXXXXX")
trap 'rm -rf "$work"' EXIT

gst-launch-1.0 -q audiotestsrc wave=white-noise num-buffers=100 \
  samplesperbuffer=4800 ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
  ! wavenc ! filesink location="$work/in.wav"
for ch in 1 2; do
  gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.001 num-buffers=1 \
    samplesperbuffer="$taps" ! audio/x-raw,format=F32LE,rate=48000,channels=$ch \
    ! wavenc ! filesink location="$work/ir$ch.wav"
done

ms () {          # the command's wall milliseconds
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

clfir () {
  gst-launch-1.0 -q filesrc location="$work/in.wav" ! wavparse \
    ! clfirfilter location="$work/ir1.wav" block-size="$latency" \
    ! identity eos-after=1 ! fakesink
}

afir () {
  ffmpeg -hide_banner -loglevel error -y -i "$work/in.wav" \
    -i "$work/ir2.wav" -lavfi \
    "[0:a][1:a]afir=gtype=none:minp=$latency:maxp=32768" -frames:a 1 -f null -
}

stock () {
  gst-launch-1.0 -q filesrc location="$work/in.wav" ! wavparse \
    ! audioresample ! identity eos-after=1 ! fakesink
}

median () { sort -n | awk '{ v[NR] = $1 } END {
  print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# first output, $taps taps at a latency of $latency frames, ms"
printf '%6s %12s %14s %12s %14s\n' round clfirfilter "(uniform)" "ffmpeg afir" audioresample
a="" u="" f="" s=""
for r in $(seq 1 "$rounds"); do
  x=$(ms clfir); y=$(CLRESAMPLE_CONV_LEVELS=0 ms clfir); z=$(ms afir); w=$(ms stock)
  printf '%6d %12d %14d %12d %14d\n' "$r" "$x" "$y" "$z" "$w"
  a="$a$x\n" u="$u$y\n" f="$f$z\n" s="$s$w\n"
done
printf '%6s %12s %14s %12s %14s\n' median "$(printf "$a" | median)" \
  "$(printf "$u" | median)" "$(printf "$f" | median)" "$(printf "$s" | median)"
