#!/usr/bin/env bash
# Regenerates the measurements and plots of docs/quality.md: clresample beside
# the stock audioresample and libsoxr, same signals, same run, on the default
# OpenCL device. Usage: scripts/quality-report.sh [OUTDIR] (default docs/img)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${1:-docs/img}
tool=build/tests/quality/clr-quality
export GST_PLUGIN_PATH=$root/build/gst
[ -x "$tool" ] || { echo "build first: bash scripts/setup-debian.sh" >&2; exit 1; }
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
mkdir -p "$out"

echo "== quality table (default metrics, all contestants)"
"$tool" --json "$out/quality.json"
echo "== targets"
"$tool" --check
echo "== speed cost of each quality (stereo 44.1 -> 48 kHz)"
"$tool" -m h --speed-seconds 5 --speed-runs 2 \
  -c clresample:all:F32LE,clresample:10:F64LE,audioresample:4:F32LE,audioresample:10:F32LE,soxr:vhq
echo "== plots"
"$tool" -m sweep --dump "$dump" \
  -c clresample:4:F32LE,clresample:10:F64LE,audioresample:4:F32LE,soxr:vhq >/dev/null
"$tool" -m response --dump "$dump" \
  -c clresample:all:F32LE,clresample:all:F64LE >/dev/null
/usr/bin/python3 tests/quality/plot.py "$dump" "$out"
