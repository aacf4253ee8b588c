#!/usr/bin/env bash
# Where direct form stops paying: clfirfilter with short filters summed on
# the host in direct form (CLRESAMPLE_CONV_DIRECT set past the taps) against
# the same filter through the FFT engine (CLRESAMPLE_CONV_DIRECT=0), whole
# processes timed from the shell, alternating, ROUNDS rounds:
#
#   bench/run-direct-crossover.sh [SECONDS] [ROUNDS] [TAPS...]
#
# SECONDS (default 60) of 48 kHz stereo F32 white noise in a WAV file,
# `filesrc ! wavparse ! clfirfilter location=IR ! fakesink` (wavparse's
# buffers, the block the element picks: the power of two at least the
# taps), IR a mono white-noise filter of each TAPS (default 16 32 64 128
# 256). Prints wall seconds and the audio filtered a wall second
# (x real time) for each round, then the median ratio direct / FFT. The
# plugin is found through GST_PLUGIN_PATH (default build/gst). The
# default limit, CLR_CONV_DIRECT_TAPS in gst/core/conv/clr-conv.c, is the
# last length at which direct form is ahead on the machine measured
# (docs/convolution.md, "Short filters in direct form").
set -eu

secs=${1:-60}
rounds=${2:-3}
shift $(($# < 2 ? $# : 2))
taps_list=${*:-16 32 64 128 256}
root=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$root/build/gst}
work=$(mktemp -d "${TMPDIR:-/tmp}/direct-crossover.XXXXXX")
trap 'rm -rf "$work"' EXIT

gst-launch-1.0 -q audiotestsrc wave=white-noise num-buffers=$((secs * 10)) \
  samplesperbuffer=4800 ! audio/x-raw,format=F32LE,rate=48000,channels=2 \
  ! wavenc ! filesink location="$work/in.wav"
for taps in $taps_list; do
  gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.05 num-buffers=1 \
    samplesperbuffer="$taps" ! audio/x-raw,format=F32LE,rate=48000,channels=1 \
    ! wavenc ! filesink location="$work/ir$taps.wav"
done

run () {        # taps, CLRESAMPLE_CONV_DIRECT; prints the wall seconds
  local t0 t1
  t0=$(date +%s.%N)
  CLRESAMPLE_CONV_DIRECT=$2 gst-launch-1.0 -q filesrc location="$work/in.wav" \
    ! wavparse ! clfirfilter location="$work/ir$1.wav" ! fakesink
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

printf '%6s %6s %8s %10s\n' taps round scheme "wall s"
results=""
for round in $(seq 1 "$rounds"); do
  for taps in $taps_list; do
    fft=$(run "$taps" 0)
    direct=$(run "$taps" 1000000000)
    printf '%6d %6d %8s %10.3f  (%6.0fx real time)\n' "$taps" "$round" fft \
      "$fft" "$(echo "$secs / $fft" | bc -l)"
    printf '%6d %6d %8s %10.3f  (%6.0fx real time)\n' "$taps" "$round" \
      direct "$direct" "$(echo "$secs / $direct" | bc -l)"
    results="$results$taps $(echo "$fft / $direct" | bc -l)\n"
  done
done
echo
echo "median speed of direct form against the FFT engine (>1: direct faster)"
for taps in $taps_list; do
  printf '%6d taps: %.2fx\n' "$taps" "$(printf "$results" | awk -v t="$taps" \
    '$1 == t { print $2 }' | sort -g | awk '{ v[NR] = $1 } END {
      print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
done
