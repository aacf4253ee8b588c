#!/bin/sh
# Builds clresample (via setup-debian.sh) and converts one file with the
# clresample-convert example.
#
# Usage: scripts/run-main-job.sh [INPUT] [RATE]
#   INPUT  audio file path or URI; default: a generated 10 s 44.1 kHz stereo
#          test tone in out/tone-44k1.wav
#   RATE   output sample rate in Hz; default 192000
# The result is out/<input name>-<rate>.wav.
set -eu

say () {
  echo "run-main-job: $*"
}

root=$(cd "$(dirname "$0")/.." && pwd)

"$root/scripts/setup-debian.sh"

cd "$root"
rate=${2:-192000}
case "$rate" in
  '' | *[!0-9]*)
    say "error: RATE must be a whole number of Hz (got '$rate')" >&2
    exit 2
    ;;
esac

mkdir -p out
if [ $# -ge 1 ] && [ -n "$1" ]; then
  input=$1
else
  # 1 kHz sine plus a 5 kHz sine 14 dB lower: two clear peaks to look at in
  # a spectrum of the result. 100 buffers of 4410 frames are 10 s.
  input=out/tone-44k1.wav
  say "generating $input (10 s, 44.1 kHz stereo, 1 kHz + 5 kHz sines)"
  gst-launch-1.0 -q audiomixer name=mix \
    ! audio/x-raw,rate=44100,channels=2,format=S16LE \
    ! wavenc ! filesink location="$input" \
    audiotestsrc wave=sine freq=1000 volume=0.5 num-buffers=100 \
      samplesperbuffer=4410 \
    ! audio/x-raw,rate=44100,channels=2 ! mix. \
    audiotestsrc wave=sine freq=5000 volume=0.1 num-buffers=100 \
      samplesperbuffer=4410 \
    ! audio/x-raw,rate=44100,channels=2 ! mix.
fi

# out/<name without folder, URI query or extension>-<rate>.wav
name=$(basename "${input%%[?#]*}")
name=${name%.*}
[ -n "$name" ] || name=input
output=out/$name-$rate.wav

say "converting $input -> $output"
log=out/$name-$rate.log
# stdout goes to a log first (progress still shows on stderr) so that the
# device line can be picked out of it and the exit status is not lost in a
# pipe.
status=0
GST_PLUGIN_PATH="$root/build/gst" \
  build/examples/clresample-convert --rate "$rate" "$input" "$output" \
  >"$log" || status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  say "error: clresample-convert failed (exit status $status)" >&2
  exit "$status"
fi

say "result: $root/$output"
grep '^device: ' "$log" | sed 's/^/run-main-job: /'
