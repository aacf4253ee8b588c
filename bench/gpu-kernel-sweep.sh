#!/usr/bin/env bash
# Kernel variants side by side on one device, data already on the device
# (build/bench/clr-kernel-bench): frames a work-item (CLRESAMPLE_FPI),
# channels a work-item (CLRESAMPLE_CPI), window layout (CLRESAMPLE_IV), _iv's
# shifted table copies (CLRESAMPLE_IV_SHIFTED) and
# work-group size (CLRESAMPLE_LOCAL_SIZE), over the W5 configurations and
# stereo.
#
#   bench/gpu-kernel-sweep.sh [DEV] [CONFIG...]   DEV: gpu (default), cpu
#
# CONFIG: "CHANNELS IN_RATE OUT_RATE QUALITY IN_FRAMES". Prints one line a
# variant: G output samples/s and GMAC/s.
set -u
dev=${1:-gpu}
shift
kb=build/bench/clr-kernel-bench
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=(
    "64 44100 48000 10 441000"
    "64 44100 192000 10 110250"
    "64 48000 44100 10 480000"
    "2 44100 48000 10 4410000"
  )
fi
variants=(
  "CLRESAMPLE_IV=0"
  "CLRESAMPLE_IV=0 CLRESAMPLE_FPI=8"
  "CLRESAMPLE_IV=1 CLRESAMPLE_IV_SHIFTED=0 CLRESAMPLE_FPI=6"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=4"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=5"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=6"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=7"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=8"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=6 CLRESAMPLE_LOCAL_SIZE=128"
  "CLRESAMPLE_IV=1 CLRESAMPLE_FPI=6 CLRESAMPLE_LOCAL_SIZE=512"
)
for c in "${configs[@]}"; do
  for v in "${variants[@]}"; do
    r=$(env $v DEV=$dev $kb $c 2>&1 | sed 's/^.*: [0-9]* ch/ch/')
    printf '%-58s %s\n' "$v" "$r"
  done
done
