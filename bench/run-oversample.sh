#!/usr/bin/env bash
# Issue 12 in one go: bench/clr-oversample-bench (the crossover in taps,
# the gst-launch-1.0 pipelines, and the --dump of the short case), then
# bench/oversample-ref.py on that dump (scipy's oaconvolve of the zero-
# stuffed input: speed, and the error of clresample's F32 and F64 output).
# Run from anywhere; extra arguments go to clr-oversample-bench, e.g.
#
#   bench/run-oversample.sh --quick
#   bench/run-oversample.sh --device gpu          (on the GPU machine, after
#                                                  . .gpu-bundle/enter.sh build)
#
# BUILD=DIR picks the build directory (default: build). The dump goes to a
# temporary directory, removed at exit; OUT=DIR also keeps the CSVs there.
# The Python part needs /usr/bin/python3 with numpy and scipy (Debian's):
# without them it is skipped with a note.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$root/build}
bench=$build/bench/clr-oversample-bench
py=/usr/bin/python3

if [ ! -x "$bench" ]; then
  echo "run-oversample.sh: $bench missing; build it first (or set BUILD)" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clr-ovs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
csv=()
ref_csv=()
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  csv=(--csv "$OUT/oversample-bench.csv")
  ref_csv=(--csv "$OUT/oversample-ref.csv")
fi

"$bench" --dump "$tmp" "${csv[@]}" "$@"
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "run-oversample.sh: clr-oversample-bench exited with $rc" >&2
  exit "$rc"
fi
if [ ! -f "$tmp/meta.json" ]; then
  echo "run-oversample.sh: no dump written; reference skipped" >&2
  exit 1
fi
if [ -x "$py" ] && "$py" -c 'import numpy, scipy.signal' 2>/dev/null; then
  "$py" "$root/bench/oversample-ref.py" "$tmp" "${ref_csv[@]}"
  rc=$?
else
  echo "== reference: skipped ($py has no numpy/scipy)"
  rc=0
fi
exit "$rc"
