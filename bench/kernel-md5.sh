#!/usr/bin/env bash
# Fingerprints kernels/resample.cl's output: builds the tree, runs a fixed
# matrix of deterministic pipelines through clresample and writes one md5
# of the raw output per pipeline, with the kernel each one ran. Run it before
# and after a change to the kernels and diff the two lists: a refactor that
# is meant to keep every sample must leave the list unchanged. About 20
# minutes on two shared cores (docs/design.md, "The kernel family, in one
# file").
#
#   bash bench/kernel-md5.sh [LIST]      (default: build/kernel-md5.txt)
#
# env: KMD5_VARIANTS  a grep -E pattern: only the variants whose name matches
#      KMD5_NO_BUILD  1: use the build as it is
#      KMD5_APPEND    1: add to LIST instead of starting it afresh
#      KMD5_FORMATS   the formats to run (default: all five below)
#
# The matrix: every format (F32LE F64LE S16LE S32LE S24_32LE), interleaved
# and non-interleaved, 1, 2, 6, 8 and 16 channels, the ratios and filters in
# `configs` below (polyphase tables up and down, strong decimation with a
# short filter, a tail of 4 taps, and the interpolated bank), under each
# CLRESAMPLE_* variant in `variants` (those the tests run, and the tuning
# switches that reach the remaining kernels and options). The input is a
# generated, seeded signal (sines, noise and a burst past full scale, so
# integer stores saturate), a different one per channel. Non-interleaved
# output is woven back by audioconvert (a reorder, no arithmetic), so the
# md5 does not depend on how clresample cut its buffers. Each kernel's name
# comes from the engine's log (GST_DEBUG=clresample-engine:4).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
list=${1:-build/kernel-md5.txt}
python=/usr/bin/python3         # has numpy

if [ "${KMD5_NO_BUILD:-0}" != 1 ]; then
  [ -f build/build.ninja ] || meson setup build >/dev/null
  ninja -C build -j2 >/dev/null
fi

tmp=$(mktemp -d /tmp/kernel-md5.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

formats=${KMD5_FORMATS:-"F32LE F64LE S16LE S32LE S24_32LE"}
channels="1 2 6 8 16"
frames=6000

# name in-rate out-rate clresample-properties
configs=(
  "up      44100 48000 quality=4"
  "down    48000 44100 quality=4"
  "up2     44100 88200 quality=10"
  "down96  96000 44100 quality=4"
  "near    44100 47999 quality=10"
  "coprime 44100 44101 quality=4"
  "down6   48000 8000  taps=16"
  "up441   8000  44100 taps=36"
)

# name|environment|formats left out (no F64 where fp64 is switched off).
# CLR_BLK=2 divides every filter length and span; 8 would not: its last
# block reads past the table where the length is no multiple of 8 (this
# matrix's F64 run crashed on PoCL with it).
variants=(
  "default||"
  "no-fp64|CLRESAMPLE_NO_FP64=1|F64LE"
  "no-svm|CLRESAMPLE_SVM=0|"
  "cpu-cpi1|CLRESAMPLE_CPI=1|"
  "gpu|CLRESAMPLE_KERNELS=gpu|"
  "gpu-fpi4|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_FPI=4|"
  "gpu-fpi3|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_FPI=3|"
  "gpu-iv-dw8|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_IV=1 CLRESAMPLE_IV_DW=8|"
  "gpu-iv-unshifted|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_IV=1 CLRESAMPLE_IV_SHIFTED=0|"
  "gpu-iv-unshifted-dw8|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_IV=1 CLRESAMPLE_IV_SHIFTED=0 CLRESAMPLE_IV_DW=8|"
  "gpu-iv0|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_IV=0|"
  "gpu-cpi1|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_CPI=1|"
  "gpu-cpi3|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_CPI=3|"
  "gpu-blk2|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_BUILD_OPTIONS=-DCLR_BLK=2|"
  "gpu-no-fp64|CLRESAMPLE_KERNELS=gpu CLRESAMPLE_NO_FP64=1|F64LE"
)

# one raw file per format and channel count
"$python" - "$tmp" "$frames" $channels <<'EOF'
import sys
import numpy as np
out, frames, chans = sys.argv[1], int(sys.argv[2]), [int(c) for c in sys.argv[3:]]
t = np.arange(frames) / 44100.0
for n in chans:
    x = np.empty((frames, n))
    for c in range(n):
        rng = np.random.default_rng(1000 * n + c)
        x[:, c] = (0.3 * np.sin(2 * np.pi * (440 + 97 * c) * t + c)
                   + 0.2 * np.sin(2 * np.pi * (5000 + 1311 * c) * t)
                   + 0.1 * rng.standard_normal(frames))
        # a burst past full scale: the integer stores saturate
        b = (frames // 3 + 300 * c) % (frames - 400)
        x[b:b + 400, c] = np.where(np.arange(400) % 2, 1.2, -1.2)
    x = np.clip(x, -1.5, 1.5)
    x.astype('<f8').tofile(f'{out}/F64LE-{n}.raw')
    x.astype('<f4').tofile(f'{out}/F32LE-{n}.raw')
    np.clip(np.rint(x * 32768), -32768, 32767).astype('<i2').tofile(
        f'{out}/S16LE-{n}.raw')
    np.clip(np.rint(x * 2.0**31), -2**31, 2**31 - 1).astype('<i4').tofile(
        f'{out}/S32LE-{n}.raw')
    np.clip(np.rint(x * 2.0**23), -2**23, 2**23 - 1).astype('<i4').tofile(
        f'{out}/S24_32LE-{n}.raw')
EOF

pcm_format () {
  case $1 in
    S24_32LE) echo s24-32le ;;
    *) echo "$1" | tr 'A-Z' 'a-z' ;;
  esac
}

# written as it goes, so a failed run keeps what it did
[ "${KMD5_APPEND:-0}" = 1 ] || : >"$list"
for v in "${variants[@]}"; do
  IFS='|' read -r vname venv vskip <<<"$v"
  if [ -n "${KMD5_VARIANTS:-}" ] && ! grep -Eq -- "$KMD5_VARIANTS" <<<"$vname"
  then
    continue
  fi
  for fmt in $formats; do
    case " $vskip " in *" $fmt "*) continue ;; esac
    for layout in interleaved non-interleaved; do
      # one gst-launch-1.0 a format and layout: every config and channel
      # count as independent branches of one pipeline
      branches=()
      for cfg in "${configs[@]}"; do
        read -r cname rin rout props <<<"$cfg"
        for ch in $channels; do
          o="$tmp/$vname.$fmt.$layout.$ch.$cname"
          b="filesrc location=$tmp/$fmt-$ch.raw ! rawaudioparse format=pcm"
          b+=" pcm-format=$(pcm_format "$fmt") sample-rate=$rin"
          b+=" num-channels=$ch"
          if [ $layout = non-interleaved ]; then
            b+=" ! audioconvert ! audio/x-raw,layout=non-interleaved"
          fi
          b+=" ! clresample $props ! audio/x-raw,rate=$rout,layout=$layout"
          if [ $layout = non-interleaved ]; then
            b+=" ! audioconvert ! audio/x-raw,format=$fmt,layout=interleaved"
          fi
          b+=" ! filesink location=$o.raw"
          branches+=("$b")
        done
      done
      log="$tmp/$vname.$fmt.$layout.log"
      # shellcheck disable=SC2086
      if ! env $venv GST_PLUGIN_PATH="$root/build/gst" \
          GST_DEBUG=clresample-engine:4 GST_DEBUG_NO_COLOR=1 \
          GST_DEBUG_FILE="$log" \
          gst-launch-1.0 -q ${branches[*]} >"$tmp/launch.out" 2>&1; then
        echo "kernel-md5: $vname $fmt $layout failed:" >&2
        cat "$tmp/launch.out" >&2
        exit 1
      fi
      # md5 and kernel per branch: the engine logs its rates, channels and
      # filter, then (same thread) the kernel it built
      "$python" - "$tmp" "$vname" "$fmt" "$layout" "$log" "$channels" \
          "${configs[@]}" >>"$list" <<'EOF'
import hashlib, re, sys
tmp, vname, fmt, layout, log, chans = sys.argv[1:7]
configs = [c.split() for c in sys.argv[7:]]
kernels = {}
last = {}
for line in open(log, errors='replace'):
    f = line.split()
    if len(f) < 4:
        continue
    thread = f[2]
    m = re.search(r'(\d+) -> (\d+) Hz .*, (\d+) channels', line)
    if m:
        last[thread] = m.groups()
        continue
    m = re.search(r'(clr_resample_\w+) on .*: (\d+) channels and (\d+) output',
                  line)
    if m and thread in last:
        k = '%s/%sch/%sfr' % m.groups()
        kernels.setdefault(last.pop(thread), set()).add(k)
for cname, rin, rout, *props in configs:
    for ch in chans.split():
        o = f'{tmp}/{vname}.{fmt}.{layout}.{ch}.{cname}.raw'
        md5 = hashlib.md5(open(o, 'rb').read()).hexdigest()
        k = ','.join(sorted(kernels.get((rin, rout, ch), {'?'})))
        print(md5, vname, fmt, layout, ch, cname, k)
EOF
    done
  done
  echo "kernel-md5: $vname done" >&2
done
echo "kernel-md5: $(wc -l <"$list") pipelines, list in $list" >&2
echo "kernels run:" >&2
awk '{ n = split($7, k, ","); for (i = 1; i <= n; i++) {
    split(k[i], a, "/"); print a[1] } }' "$list" | sort | uniq -c >&2
