#!/usr/bin/env bash
# Kernel variants side by side on one device, data already on the device
# (build/bench/clr-kernel-bench): frames a work-item (CLRESAMPLE_FPI),
# channels a work-item (CLRESAMPLE_CPI) and work-group size
# (CLRESAMPLE_LOCAL_SIZE), over the W5 configurations and stereo.
#
#   bench/gpu-kernel-sweep.sh [DEV]        DEV: gpu (default), cpu, ...
#
# Prints one line a variant: G output samples/s and GMAC/s.
set -u
dev=${1:-gpu}
kb=build/bench/clr-kernel-bench
configs=(
  "64 44100 48000 10 441000"
  "64 44100 192000 10 110250"
  "64 48000 44100 10 480000"
  "2 44100 48000 10 4410000"
  "2 44100 192000 10 1102500"
)
variants=(
  "CLRESAMPLE_FPI=1"
  "CLRESAMPLE_FPI=2"
  "CLRESAMPLE_FPI=4"
  "CLRESAMPLE_FPI=6"
  "CLRESAMPLE_FPI=8"
  "CLRESAMPLE_FPI=4 CLRESAMPLE_CPI=4"
  "CLRESAMPLE_FPI=4 CLRESAMPLE_LOCAL_SIZE=128"
  "CLRESAMPLE_FPI=4 CLRESAMPLE_LOCAL_SIZE=64"
  "CLRESAMPLE_FPI=8 CLRESAMPLE_CPI=4"
)
for c in "${configs[@]}"; do
  for v in "${variants[@]}"; do
    r=$(env $v DEV=$dev $kb $c 2>&1 | sed 's/^.*: [0-9]* ch/ch/')
    printf '%-44s %s\n' "$v" "$r"
  done
done
