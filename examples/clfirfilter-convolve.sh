#!/bin/sh
# Convolves an audio file with an impulse response (room correction,
# reverb, a FIR equaliser) through clfirfilter, printing progress, and
# writes a WAV file:
#
#   filesrc ! decodebin ! audioconvert ! clfirfilter location=IR
#       ! progressreport ! audioconvert ! wavenc ! filesink
#
# Usage: clfirfilter-convolve.sh [options] INPUT IR OUTPUT.wav
#   --bits 16|24|32f|64f  output samples (default 32f); 64f also convolves
#                         in double precision (devices with cl_khr_fp64)
#   --latency N           frames of the IR's own delay to take out (a
#                         linear-phase filter of n taps: (n - 1) / 2)
#   --block-size N        frames a partition (default 0: one block as long
#                         as the IR, up to 16384: the fastest offline)
#   --device SPEC         OpenCL device (auto, gpu, cpu, N, P:D, a name)
#   --dither              TPDF dither on 16 and 24-bit output (default: none,
#                         the convolution's samples rounded to nearest)
#   --quiet               no progress lines
# The IR file holds 1 channel (the same filter on every channel) or as many
# channels as INPUT (one filter a channel). INPUT and IR: anything
# GStreamer decodes. GST_PLUGIN_PATH must find libgstclresample.so when
# the plugin is not installed. Exit status: 0 done, 1 GStreamer error
# (printed), 2 bad arguments.
set -eu

bits=32f
latency=0
block=0
device=auto
quiet=0
dither=none
usage () {
  sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
    --bits) [ $# -ge 2 ] || usage; bits=$2; shift 2 ;;
    --latency) [ $# -ge 2 ] || usage; latency=$2; shift 2 ;;
    --block-size) [ $# -ge 2 ] || usage; block=$2; shift 2 ;;
    --device) [ $# -ge 2 ] || usage; device=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --dither) dither=tpdf; shift ;;
    -h|--help) usage ;;
    --*) echo "unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -eq 3 ] || usage
input=$1 ir=$2 output=$3
case $bits in
  16) outfmt=S16LE; procfmt=F32LE ;;
  24) outfmt=S24LE; procfmt=F32LE ;;
  32f) outfmt=F32LE; procfmt=F32LE ;;
  64f) outfmt=F64LE; procfmt=F64LE ;;
  *) echo "--bits: 16, 24, 32f or 64f, not '$bits'" >&2; exit 2 ;;
esac
for n in "$latency" "$block"; do
  case $n in ''|*[!0-9]*) echo "not a number: '$n'" >&2; exit 2 ;; esac
done
[ -r "$input" ] || { echo "cannot read $input" >&2; exit 2; }
[ -r "$ir" ] || { echo "cannot read $ir" >&2; exit 2; }

# progressreport prints a line every second to stdout (-q keeps
# gst-launch's own chatter out)
silent=false
[ "$quiet" = 1 ] && silent=true
start=$(date +%s.%N)
errlog=$(mktemp "${TMPDIR:-/tmp}/clfirfilter-convolve.XXXXXX")
trap 'rm -f "$errlog"' EXIT
gst-launch-1.0 -q filesrc location="$input" ! decodebin ! audioconvert \
  ! audio/x-raw,format=$procfmt \
  ! clfirfilter location="$ir" latency="$latency" block-size="$block" \
    device="$device" \
  ! progressreport update-freq=1 silent=$silent \
  ! audioconvert dithering=$dither ! audio/x-raw,format=$outfmt \
  ! wavenc ! filesink location="$output" 2>"$errlog" &
pid=$!
# gst-launch-1.0 1.22 can hang after reporting an error during preroll (its
# bus handler may quit the main loop before the loop runs): once it has
# printed ERROR, give it 3 s to exit, then end it
while kill -0 $pid 2>/dev/null; do
  if grep -q '^ERROR' "$errlog"; then
    i=0
    while [ $i -lt 30 ] && kill -0 $pid 2>/dev/null; do
      sleep 0.1
      i=$((i + 1))
    done
    kill $pid 2>/dev/null || true
    break
  fi
  sleep 0.1
done
status=0
wait $pid || status=$?
cat "$errlog" >&2
end=$(date +%s.%N)
if [ $status -ne 0 ]; then
  echo "clfirfilter-convolve: GStreamer failed (status $status)" >&2
  exit 1
fi
if [ "$quiet" != 1 ]; then
  awk -v a="$start" -v b="$end" -v o="$output" \
    'BEGIN { printf "done: %s in %.2f s\n", o, b - a }'
fi
