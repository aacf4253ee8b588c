#!/usr/bin/env bash
# Many files converted, as a batch job or a transcoding farm runs them:
# the clresample-convert example with --output-dir (every file a pipeline
# of one process, their clresample instances sharing the device's
# scheduler) against one process a file, and against the same pipelines
# with audioresample. Whole processes, timed from the shell, alternating,
# ROUNDS rounds:
#
#   bench/run-convert-batch.sh [FILES] [SECONDS] [RATE] [ROUNDS]
#
# FILES WAV files (default 16) of SECONDS (default 30) of 44.1 kHz stereo
# S16 white noise, each converted to RATE Hz (default 48000) as 32-bit
# float WAV, clresample at quality CLR_QUALITY (default 4: THD+N -147 dB,
# which beats audioresample's best, docs/quality.md) and audioresample at
# quality 10 (its best, -136 dB). Rows:
#   batch -j FILES   clresample-convert -o DIR -j FILES (all at once)
#   batch -j 16      the same, 16 at a time, where
#                    FILES is more
#   batch -j 1       clresample-convert -o DIR -j 1 (one after another)
#   procs seq        clresample-convert IN OUT, one process a file in turn
#   procs par        the same, every process at once
#                    (SKIP_PROCS=1 leaves these two out)
#   audioresample par / one   gst-launch-1.0, a process a file at once / one
#                    process with every file a branch
# The clresample plugin is found through GST_PLUGIN_PATH (default
# build/gst); CONVERT names the example (default
# build/examples/clresample-convert); CLR_DEVICE sets its --device (e.g.
# cpu on a GPU machine: the host's sums, no GPU driver). Prints a table: wall seconds and
# the audio converted a wall second (x real time), each round.
set -eu

files=${1:-16}
secs=${2:-30}
rate=${3:-48000}
rounds=${4:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
convert=${CONVERT:-$root/build/examples/clresample-convert}
q=${CLR_QUALITY:-4}
dev=${CLR_DEVICE:+--device=$CLR_DEVICE}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$root/build/gst}
work=$(mktemp -d "${TMPDIR:-/tmp}/convert-batch.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/in"
gst-launch-1.0 -q audiotestsrc wave=white-noise num-buffers=$((secs * 10)) \
  samplesperbuffer=4410 ! audio/x-raw,rate=44100,channels=2,format=S16LE \
  ! wavenc ! filesink location="$work/in/f0.wav"
for i in $(seq 1 $((files - 1))); do
  cp "$work/in/f0.wav" "$work/in/f$i.wav"
done
inputs=$(for i in $(seq 0 $((files - 1))); do echo "$work/in/f$i.wav"; done)

pipeline () {   # the example's pipeline with audioresample, for file $1
  echo "uridecodebin uri=file://$1 ! audioconvert ! audioresample quality=10" \
    "! audio/x-raw,rate=$rate ! audioconvert ! audio/x-raw,format=F32LE" \
    "! wavenc ! filesink location=$2"
}

run () {        # row name, then the command; prints the row
  local name=$1 t0 t1
  shift
  rm -rf "$work/out"
  mkdir -p "$work/out"
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$work/err" || {
    echo "$name failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  t1=$(date +%s.%N)
  awk -v n="$name" -v a="$t0" -v b="$t1" -v audio=$((files * secs)) \
    'BEGIN { printf "| %-20s | %7.2f | %8.1f |\n", n, b - a, audio / (b - a) }'
}

batch () {
  # shellcheck disable=SC2086
  "$convert" $dev --quiet -q "$q" -r "$rate" -j "$1" -o "$work/out" $inputs
}

procs_seq () {
  for f in $inputs; do
    # shellcheck disable=SC2086
    "$convert" $dev --quiet -q "$q" -r "$rate" "$f" "$work/out/$(basename "$f")"
  done
}

procs_par () {
  local pids="" p
  for f in $inputs; do
    # shellcheck disable=SC2086
    "$convert" $dev --quiet -q "$q" -r "$rate" "$f" "$work/out/$(basename "$f")" &
    pids="$pids $!"
  done
  for p in $pids; do wait "$p"; done
}

audioresample_par () {
  local pids="" p
  for f in $inputs; do
    # shellcheck disable=SC2046
    gst-launch-1.0 -q $(pipeline "$f" "$work/out/$(basename "$f")") &
    pids="$pids $!"
  done
  for p in $pids; do wait "$p"; done
}

audioresample_one () {
  local branches=""
  for f in $inputs; do
    branches="$branches $(pipeline "$f" "$work/out/$(basename "$f")")"
  done
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $branches
}

echo "# $files files of $secs s, 44.1 kHz stereo S16 -> $rate Hz F32 WAV," \
  "clresample quality $q, audioresample quality 10; $(nproc) cores"
# shellcheck disable=SC2086
echo "# device: $("$convert" $dev --quiet -r "$rate" "$work/in/f0.wav" \
  "$work/probe.wav" | sed -n 's/^device: //p')"
echo "| way | wall s | x real time |"
echo "|---|---|---|"
for r in $(seq 1 "$rounds"); do
  run "batch -j $files" batch "$files"
  [ "$files" -le 16 ] || run "batch -j 16" batch 16
  run "batch -j 1" batch 1
  if [ -z "${SKIP_PROCS:-}" ]; then
    run "procs seq" procs_seq
    run "procs par" procs_par
  fi
  run "audioresample par" audioresample_par
  run "audioresample one" audioresample_one
done
