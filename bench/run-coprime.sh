#!/usr/bin/env bash
# Coprime fixed ratios (issue 48, item 6): clresample against audioresample
# quality=10, as whole gst-launch-1.0 processes timed from the shell, at
# 48000 -> 48001 and 44100 -> 44101 (tens of thousands of phases: the
# interpolated bank) and, for comparison, 44100 -> 48000:
#
#   bench/run-coprime.sh [ROUNDS] [SECONDS] [QUALITIES]
#
# Each input is SECONDS (default 60) of stereo F32 white noise in a WAV;
# each pipeline is
#   gst-launch-1.0 -q filesrc location=in.wav ! wavparse ! ELEMENT
#       ! audio/x-raw,rate=R ! fakesink
# with ELEMENT clresample quality=Q (QUALITIES, default "4 10") or
# audioresample quality=10. A round runs every row's processes one after
# another, the audioresample run of a ratio beside each clresample run
# (A B A B ...), so that a busy machine spreads its noise over both; ROUNDS
# (default 5) rounds. Prints each row's median wall seconds of both, the
# median and range of the per-round ratios (audioresample's time over
# clresample's: above 1, clresample is faster), and the same for the CPU
# time (user + system) of each process: where other work shares the cores
# the wall times swing with it, the CPU times much less. The plugin is found
# through GST_PLUGIN_PATH (default build-coprime/gst, then build/gst).
# The caches the element keeps (PoCL's kernels, the designed banks) are
# whatever the user's are; the first run of a ratio fills them, and is
# run once before the rounds and not counted.
set -eu

rounds=${1:-5}
secs=${2:-60}
qualities=${3:-4 10}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${GST_PLUGIN_PATH:-}" ]; then
  GST_PLUGIN_PATH=$root/build-coprime/gst
  [ -d "$GST_PLUGIN_PATH" ] || GST_PLUGIN_PATH=$root/build/gst
fi
export GST_PLUGIN_PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/coprime.XXXXXX")
trap 'rm -rf "$work"' EXIT

ratios="48000:48001 44100:44101 44100:48000"
for r in 48000 44100; do
  gst-launch-1.0 -q audiotestsrc wave=white-noise num-buffers=$((secs * 10)) \
    samplesperbuffer=$((r / 10)) ! audio/x-raw,rate=$r,channels=2,format=F32LE \
    ! wavenc ! filesink location="$work/in-$r.wav"
done

pipe () {       # in rate, out rate, element: one timed process, "wall cpu"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S" -o "$work/time" gst-launch-1.0 -q \
    filesrc location="$work/in-$1.wav" ! wavparse ! $3 \
    ! audio/x-raw,rate="$2" ! fakesink >/dev/null 2>"$work/err" || {
    echo "$3 at $1 -> $2 failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/time"
}

for ratio in $ratios; do        # warm the caches
  for q in $qualities; do
    pipe "${ratio%:*}" "${ratio#*:}" "clresample quality=$q" >/dev/null
  done
done

for round in $(seq 1 "$rounds"); do
  for ratio in $ratios; do
    for q in $qualities; do
      a=$(pipe "${ratio%:*}" "${ratio#*:}" "clresample quality=$q")
      b=$(pipe "${ratio%:*}" "${ratio#*:}" "audioresample quality=10")
      echo "$ratio $q $a $b" >>"$work/times"
    done
  done
  echo "round $round of $rounds done" >&2
done

echo "$(nproc) cores, ${secs} s of stereo F32, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| in -> out | clresample | clr wall s | ar q10 wall s | wall ratio | range | clr CPU s | ar CPU s | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for ratio in $ratios; do
  for q in $qualities; do
    awk -v r="$ratio" -v q="$q" '
      function median(v, n,   i, j, t) {
        for (i = 1; i <= n; i++)
          for (j = i + 1; j <= n; j++)
            if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
      }
      $1 == r && $2 == q {
        n++; a[n] = $3; b[n] = $5; x[n] = $5 / $3
        ca[n] = $4; cb[n] = $6; cx[n] = $6 / $4
      }
      END {
        split(r, io, ":")
        ma = median(a, n); mb = median(b, n); mx = median(x, n)
        mca = median(ca, n); mcb = median(cb, n); mcx = median(cx, n)
        printf "| %s -> %s | q%s | %.2f | %.2f | %.2fx | %.2f-%.2f | %.2f | %.2f | %.2fx |\n",
          io[1], io[2], q, ma, mb, mx, x[1], x[n], mca, mcb, mcx
      }' "$work/times"
  done
done
