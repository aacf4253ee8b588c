#!/usr/bin/env bash
# Issue 10's bench rows beside torch's cuFFT (bench/torch_fir.py) in one
# lease of the GPU machine, after `. .gpu-bundle/enter.sh build`: torch's
# offline overlap-save and its block-by-block partitioned convolver, then
# clr-offline-bench (data on the device) and clfirfilter (harness and
# pipeline) on the same rows. Raw output to $OUT/gpu-torch-fir.txt (or
# ./bench-out); docs/bench/gpu-torch-fir-2026-11-25.txt is one.
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
  echo "## \$ python3 bench/torch_fir.py"
  python3 bench/torch_fir.py
  echo "## \$ build/bench/clr-offline-bench -d gpu -s 60 -c 2,32 -t 8192,65536,262144,1048576 --device-only"
  build/bench/clr-offline-bench -d gpu -s 60 -c 2,32 \
    -t 8192,65536,262144,1048576 --device-only
  echo "## \$ build/bench/clr-fir-bench --device gpu -s 10 -t 65536,1048576 -c 2 -b 256,1024 -e clfirfilter"
  build/bench/clr-fir-bench --device gpu -s 10 -t 65536,1048576 -c 2 \
    -b 256,1024 -e clfirfilter
  echo "## \$ build/bench/clr-fir-bench --device gpu -s 10 -t 262144 -c 64 -b 1024 -e clfirfilter"
  build/bench/clr-fir-bench --device gpu -s 10 -t 262144 -c 64 -b 1024 \
    -e clfirfilter
} 2>&1 | tee "$out/gpu-torch-fir.txt"
