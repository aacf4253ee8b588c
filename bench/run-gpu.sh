#!/usr/bin/env bash
# Everything to measure on the GPU machine, in one go. Run from the project
# root, after making the bundled GStreamer runtime usable:
#
#   . .gpu-bundle/enter.sh build && bench/run-gpu.sh [clr-bench options]
#
# Writes to $OUT if set (the device runner collects it), else ./bench-out:
#   machine.txt           GPU, driver, OpenCL platforms, CPU
#   clr-bench.txt/.csv    build/bench/clr-bench --device gpu, all workloads
#   clr-bench.log         its progress lines (stderr)
#   torchaudio-w5.txt/.csv, torchaudio-w5.log   bench/torchaudio_w5.py
# Extra arguments go to clr-bench (e.g. --quick, --workloads W4,W5).
# clr-bench is built on the development machine; it needs only the bundle's
# runtime libraries here (GStreamer with libgstcheck, libsoxr0, OpenCL ICD).
set -u

out=${OUT:-./bench-out}
mkdir -p "$out"
status=0

if [ ! -x build/bench/clr-bench ]; then
  echo "run-gpu.sh: build/bench/clr-bench missing; build it first" >&2
  exit 1
fi
if [ -z "${GST_PLUGIN_PATH_1_0:-}${GST_PLUGIN_PATH:-}" ]; then
  echo "run-gpu.sh: GST_PLUGIN_PATH_1_0 is not set; source" \
    ".gpu-bundle/enter.sh build first" >&2
fi

{
  echo "== date"; date -u
  echo "== nvidia-smi"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm \
    --format=csv 2>&1
  echo "== OpenCL"; clinfo -l 2>&1
  echo "== CPU"; grep -m1 'model name' /proc/cpuinfo; nproc
  echo "== git"
  git rev-parse HEAD 2>/dev/null || echo "(not a git checkout here)"
} > "$out/machine.txt"
cat "$out/machine.txt"

echo "== clr-bench --device gpu $*"
build/bench/clr-bench --device gpu --csv "$out/clr-bench.csv" "$@" \
  2> "$out/clr-bench.log" | tee "$out/clr-bench.txt"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "run-gpu.sh: clr-bench exited with $rc; see clr-bench.log:" >&2
  tail -20 "$out/clr-bench.log" >&2
  status=1
fi

echo "== torchaudio_w5.py"
python3 bench/torchaudio_w5.py --csv "$out/torchaudio-w5.csv" \
  2> "$out/torchaudio-w5.log" | tee "$out/torchaudio-w5.txt"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "run-gpu.sh: torchaudio_w5.py exited with $rc; see" \
    "torchaudio-w5.log:" >&2
  tail -20 "$out/torchaudio-w5.log" >&2
  status=1
fi

echo "run-gpu.sh: results in $out"
exit $status
