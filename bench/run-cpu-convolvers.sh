#!/usr/bin/env bash
# Long FIR convolution on the CPU by the convolvers a user would otherwise
# reach for, side by side with clfirfilter (through PoCL where the machine
# has no GPU): whole processes, a stereo 48 kHz F32 WAV of white noise in,
# a WAV out, timed from the shell, the contenders taking turns within each
# of ROUNDS rounds (their order rotated a round):
#
#   bench/run-cpu-convolvers.sh [SECONDS] [ROUNDS]
#
# SECONDS of audio (whole seconds, default 20), ROUNDS rounds (default 3).
# Cases (CASES, default "65536:256:8192 65536:8192:8192
# 1048576:1024:32768"), each TAPS:L[:MAXP]: a mono white-noise impulse
# response of TAPS taps, the same on both channels, at a latency of L
# frames:
#   ffmpeg          ffmpeg's afir (Debian 12: 5.1) with gtype=none,
#                   minp=L, maxp=MAXP (default 8192, 32768 above 65536
#                   taps), given the stereo copy of the IR (with the mono
#                   IR, irfmt=mono did not give the convolution, and the
#                   default upmix changes the gain by 3 dB). Even with
#                   gtype=none its output is the convolution times 2
#                   (+6.02 dB): the checks report that gain
#   peconvolver     PulseEffects' GStreamer convolver
#                   (gstreamer1.0-convolver-pulseeffects: zita-convolver,
#                   partitions from its buffer size up to 8192, FFTW,
#                   threads of its own) given the stereo IR; its partition
#                   is the size of the buffers it gets, so audiobuffersplit
#                   (plugins-bad) cuts them to L frames
#                   (output-buffer-duration=L/48000, strict-buffer-size:
#                   a shorter last buffer would make it start over, so the
#                   last partial one is dropped). The check run counts the
#                   buffers that reach it (identity silent=false). It lets
#                   buffers through unfiltered while it loads the IR (the
#                   first one; more on a busy machine) and scales the IR
#                   to an RMS of its own (autogain): the checks report
#                   both; at times (3 of 11 million-tap checks here) its
#                   output right after those buffers is off too (a
#                   residual of -30 to -47 dB, -9 dB in the worst 8192
#                   frames), which the check column then shows
#   audiofirfilter  gst-plugins-good's, its taps set from a small
#                   /usr/bin/python3 pipeline (python3-gst-1.0): one FFT
#                   block of its own choosing (no latency knob), so it runs
#                   only where TAPS <= AFIRFILTER_MAX_TAPS (default 65536);
#                   its output is exact up to its last FFT blocks, then
#                   off, then zeros where the convolution goes on (the
#                   checks count and measure them)
#   clfirfilter     this project's element, location=IR block-size=L
# Installs what is missing (ffmpeg, gstreamer1.0-convolver-pulseeffects,
# gstreamer1.0-plugins-bad, python3-gst-1.0) with apt-get (as root).
# Before timing, each contender filters once a case CHECK_SECONDS (default
# 4) of noise followed by silence as long as the IR, and its whole output
# (the IR's tail included: every tap counts) is compared with a float64
# FFT convolution (numpy): lag, gain and residual after the best gain
# (relative to the signal; also over the silence alone), frames passed
# through unfiltered, zero frames where the convolution goes on; anything
# but lag 0, gain 1, residual below -90 dB shows in the table's check
# column. ffmpeg's output is also compared with clfirfilter's.
# Rows: case, contender, round, wall seconds, x real time (seconds of
# audio / wall seconds), check. Then a summary a case: medians over the
# rounds, and clfirfilter's speed over each contender's (the median over
# rounds of that round's contender wall / clfirfilter wall: above 1,
# clfirfilter is faster). At 20 s most runs take under a second, so
# process start-up (OpenCL/PoCL initialisation, reading the IR, FFT
# plans) weighs in; a larger SECONDS measures throughput more than that.
# Knobs: CASES; LONG_SECONDS (seconds of audio for cases above 65536 taps,
# default SECONDS); CHECK_SECONDS; CONTENDERS (default "ffmpeg peconvolver
# audiofirfilter clfirfilter"); AFIRFILTER_MAX_TAPS; CLFIR_PROPS (more
# clfirfilter properties, e.g. device=cpu); PYTHON (default
# /usr/bin/python3, with numpy and gi); GST_PLUGIN_PATH (default
# build/gst).
set -eu

secs=${1:-20}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$root/build/gst}
cases=${CASES:-65536:256:8192 65536:8192:8192 1048576:1024:32768}
long_secs=${LONG_SECONDS:-$secs}
check_secs=${CHECK_SECONDS:-4}
contenders=${CONTENDERS:-ffmpeg peconvolver audiofirfilter clfirfilter}
afir_max=${AFIRFILTER_MAX_TAPS:-65536}
clprops=${CLFIR_PROPS:-}
py=${PYTHON:-/usr/bin/python3}
rate=48000
unset CPUCONV_CHECK   # set for the check runs only

# what is missing, installed
need=""
command -v ffmpeg >/dev/null 2>&1 || need="$need ffmpeg"
gst-inspect-1.0 peconvolver >/dev/null 2>&1 ||
  need="$need gstreamer1.0-convolver-pulseeffects"
gst-inspect-1.0 audiobuffersplit >/dev/null 2>&1 ||
  need="$need gstreamer1.0-plugins-bad"
"$py" -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null ||
  need="$need python3-gst-1.0"
"$py" -c 'import numpy' 2>/dev/null || need="$need python3-numpy"
if [ -n "$need" ]; then
  echo "installing:$need" >&2
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $need >&2 || {
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends $need >&2
  }
fi
gst-inspect-1.0 clfirfilter >/dev/null 2>&1 || {
  echo "clfirfilter not found in GST_PLUGIN_PATH=$GST_PLUGIN_PATH" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/cpu-convolvers.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- helpers in python: the check, audiofirfilter's driver, the summary
cat >"$work/wav.py" <<'EOF'
import struct
import numpy as np


def read_wav(path):
    """Frames x channels, float64, of a PCM or IEEE-float WAV (the stdlib
    wave module refuses format 3)."""
    b = open(path, 'rb').read()
    if b[:4] != b'RIFF' or b[8:12] != b'WAVE':
        raise SystemExit(path + ': not a WAV file')
    i, fmt, data = 12, None, None
    while i + 8 <= len(b):
        cid, n = b[i:i + 4], struct.unpack('<I', b[i + 4:i + 8])[0]
        if cid == b'fmt ':
            fmt = b[i + 8:i + 8 + n]
        elif cid == b'data':
            data = b[i + 8:i + 8 + n]
        i += 8 + n + (n & 1)
    tag, ch, _, _, _, bits = struct.unpack('<HHIIHH', fmt[:16])
    if tag == 0xFFFE:                      # WAVE_FORMAT_EXTENSIBLE
        tag = struct.unpack('<H', fmt[24:26])[0]
    dt = {(3, 32): '<f4', (3, 64): '<f8', (1, 16): '<i2', (1, 32): '<i4'}
    fr = ch * bits // 8
    a = np.frombuffer(data[:len(data) // fr * fr], dt[(tag, bits)])
    a = a.reshape(-1, ch).astype(np.float64)
    if tag == 1:
        a /= 2.0 ** (bits - 1)
    return a


def write_wav(path, a, rate=48000):
    """a (frames x channels) as a 32-bit float WAV (format tag 3)"""
    a = np.ascontiguousarray(a, dtype='<f4')
    ch, d = a.shape[1], a.tobytes()
    open(path, 'wb').write(
        b'RIFF' + struct.pack('<I', 36 + len(d)) + b'WAVE' + b'fmt ' +
        struct.pack('<IHHIIHH', 16, 3, ch, rate, rate * 4 * ch, 4 * ch, 32) +
        b'data' + struct.pack('<I', len(d)) + d)


if __name__ == '__main__':
    # wav.py OUT NOISE TOTAL: stereo, NOISE frames of white noise (uniform,
    # +-0.5, as audiotestsrc volume=0.5), then silence up to TOTAL frames
    import sys
    out, n, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    a = np.zeros((total, 2), np.float32)
    a[:n] = np.random.default_rng(1).uniform(-0.5, 0.5, (n, 2))
    write_wav(out, a)
EOF

cat >"$work/check.py" <<'EOF'
# check.py IN NOISE IR NAME=OUT... : each output against the float64
# convolution of IN (NOISE frames of noise, then silence at least as long
# as IR) with IR's first channel, over all of it, the IR's tail included;
# one line a NAME: "NAME|short verdict|details"; then "pair|details":
# ffmpeg against clfirfilter where both are given
import sys
import numpy as np
sys.path.insert(0, sys.argv[0].rsplit('/', 1)[0])
from wav import read_wav

x = read_wav(sys.argv[1])
W = int(sys.argv[2])
h = read_wav(sys.argv[3])[:, 0]
T = len(x)
end = min(T, W + len(h) - 1)    # the convolution's frames within the file
nf = 1 << int(np.ceil(np.log2(W + len(h))))
H = np.fft.rfft(h, nf)


def conv(xx):
    y = np.stack([np.fft.irfft(np.fft.rfft(xx[:W, c], nf) * H, nf)
                  for c in range(xx.shape[1])], 1)[:T]
    return np.pad(y, ((0, T - len(y)), (0, 0)))


def align(y, r, lo, hi):
    """y[t] ~ g r[t - lag] over [lo, hi): lag (by cross-correlation of the
    first channel), gain, residual after the gain in dB (of the signal),
    and the residual over [W, hi) alone (the taps past the noise's length)"""
    a, b = y[lo:hi, 0], r[lo:hi, 0]
    n2 = 1 << int(np.ceil(np.log2(2 * len(a))))
    xc = np.fft.irfft(np.fft.rfft(a, n2) * np.conj(np.fft.rfft(b, n2)), n2)
    k = int(np.argmax(np.abs(xc)))
    lag = k if k < n2 // 2 else k - n2
    ya = np.zeros((hi - lo, y.shape[1]))
    ra = r[lo:hi]
    s0, s1 = max(lo + lag, 0), min(hi + lag, len(y))
    ya[s0 - lo - lag:s1 - lo - lag] = y[s0:s1]
    g = float((ya * ra).sum() / (ra * ra).sum())
    e = ya - g * ra

    def db(e, r):
        return 10 * np.log10((e * e).sum() / (g * g * (r * r).sum()))
    t = max(W - lo, 0)
    # the worst 8192 frames
    eb = np.add.reduceat((e * e).sum(1), np.arange(0, len(e), 8192))
    rb = np.add.reduceat((ra * ra).sum(1), np.arange(0, len(e), 8192))
    k = int(np.argmax(eb / np.maximum(rb, 1e-300)))
    worst = (lo + k * 8192, 10 * np.log10(eb[k] / (g * g * rb[k])))
    return (lag, g, db(e, ra), db(e[t:], ra[t:]) if t < len(e) else None,
            worst)


ref = conv(x)
outs = {}
for arg in sys.argv[4:]:
    name, path = arg.split('=', 1)
    y = read_wav(path)
    outs[name] = y
    flags = []
    m = min(len(y), T)
    if y.shape[1] != x.shape[1]:
        print('%s|DIFFERS: %d channels|%d channels out' % (name, y.shape[1],
                                                          y.shape[1]))
        continue
    # frames passed through unfiltered (equal to the noise in): left out
    # of the reference's input, and of the comparison
    eq = np.all(y[:m] == x[:m], axis=1) & np.any(x[:m] != 0, axis=1)
    npass = int(eq.sum())
    if npass >= min(m, W):
        print('%s|DIFFERS: not filtered|the output is the input' % name)
        continue
    p = int(np.argmin(eq))          # the first filtered frame
    r = ref
    if npass:
        xx = x.copy()
        xx[:m][eq] = 0
        r = conv(xx)
        y = y.copy()
        y[:m][eq] = 0
        r[:m][eq] = 0
        ii = np.nonzero(eq)[0]
        flags.append('%d frames unfiltered' % npass + (
            ' (the first %d)' % npass if ii[-1] == npass - 1 else
            ' (frames %d-%d)' % (ii[0], ii[-1])))
    # zeros where the convolution goes on
    hi = min(m, end)
    nz = np.nonzero(np.any(y[:hi] != 0, axis=1))[0]
    tz = hi - 1 - int(nz[-1]) if len(nz) else hi
    if tz:
        flags.append('last %d frames zero' % tz)
    if m < end:
        flags.append('%d frames short' % (end - m))
    hi -= tz
    lag, g, res, tail, worst = align(y, r, p, hi)
    if lag:
        flags.append('lag %d' % lag)
    if abs(g - 1) > 1e-3:
        flags.append('gain %+.2f dB' % (20 * np.log10(abs(g))))
    if res > -90 or (tail is not None and tail > -90):
        flags.append('residual %.1f dB' % max(res, tail or res))
    det = 'lag %d, gain %+.2f dB (x%.4g), residual %.1f dB over frames ' \
          '%d-%d' % (lag, 20 * np.log10(abs(g)), g, res, p, hi)
    if tail is not None:
        det += ' (%.1f dB over %d-%d, past the noise)' % (tail, max(W, p), hi)
    det += ', worst 8192 frames from %d: %.1f dB' % worst
    if len(y) != T:
        det += ', %d frames out of %d' % (len(y), T)
    print('%s|%s|%s' % (name, 'differs: ' + ', '.join(flags) if flags
                        else 'ok', det + ('; ' + ', '.join(flags)
                                          if flags else '')))
if 'clfirfilter' in outs and 'ffmpeg' in outs:
    a, b = outs['clfirfilter'], outs['ffmpeg']
    hi = min(len(a), len(b), end)
    lag, g, res, tail, worst = align(b, a, 0, hi)
    print('pair|ffmpeg against clfirfilter: lag %d, gain %+.2f dB, '
          'residual %.1f dB over frames 0-%d' % (lag, 20 * np.log10(abs(g)),
                                                 res, hi))
EOF

cat >"$work/afirfilter.py" <<'EOF'
# afirfilter.py IN IR OUT: IN through audiofirfilter with IR's first
# channel as its kernel, to OUT (a WAV)
import sys
import gi
gi.require_version('Gst', '1.0')
from gi.repository import Gst
sys.path.insert(0, sys.argv[0].rsplit('/', 1)[0])
from wav import read_wav

Gst.init(None)
src, ir, out = sys.argv[1:4]
taps = [float(v) for v in read_wav(ir)[:, 0]]
p = Gst.parse_launch('filesrc name=src ! wavparse ! audioconvert '
                     '! audiofirfilter name=f ! audioconvert ! wavenc '
                     '! filesink name=sink')
p.get_by_name('src').set_property('location', src)
p.get_by_name('sink').set_property('location', out)
p.get_by_name('f').set_property('kernel', taps)
p.set_state(Gst.State.PLAYING)
msg = p.get_bus().timed_pop_filtered(
    Gst.CLOCK_TIME_NONE, Gst.MessageType.EOS | Gst.MessageType.ERROR)
p.set_state(Gst.State.NULL)
if msg.type == Gst.MessageType.ERROR:
    err, dbg = msg.parse_error()
    sys.exit('audiofirfilter: %s (%s)' % (err.message, dbg))
EOF

cat >"$work/summary.py" <<'EOF'
# summary.py ROWS: medians a case and contender, clfirfilter's speed over
# each contender's (median over rounds of contender wall / clfirfilter wall)
import sys
from statistics import median
rows = [l.rstrip('\n').split('|') for l in open(sys.argv[1]) if l.strip()]
cases = []
t = {}
for case, who, rnd, wall, audio in rows:
    if case not in cases:
        cases.append(case)
    t.setdefault(case, {}).setdefault(who, {})[rnd] = (float(wall),
                                                        float(audio))
print('| case | contender | median wall s | median x real time '
      '| clfirfilter speed / its |')
print('|---|---|---|---|---|')
for case in cases:
    cl = t[case].get('clfirfilter', {})
    for who, byr in t[case].items():
        walls = [w for w, _ in byr.values()]
        xrt = [a / w for w, a in byr.values()]
        rs = [byr[r][0] / cl[r][0] for r in byr if r in cl]
        ratio = '%.2f' % median(rs) if rs and who != 'clfirfilter' else '-'
        print('| %s | %s | %.2f | %.1f | %s |' % (case, who, median(walls),
                                                  median(xrt), ratio))
EOF

# ---- inputs: stereo white noise, mono white-noise IRs and stereo copies
noise () {      # seconds, file
  gst-launch-1.0 -q audiotestsrc wave=white-noise volume=0.5 \
    num-buffers=$(($1 * 10)) samplesperbuffer=$((rate / 10)) \
    ! audio/x-raw,format=F32LE,rate=$rate,channels=2 \
    ! wavenc ! filesink location="$2"
}
ir () {         # taps: $work/ir-TAPS.wav and $work/ir-TAPS-st.wav
  local spb=$1 nb=1 vol
  [ -e "$work/ir-$1.wav" ] && return 0
  if [ "$1" -gt 65536 ]; then
    [ $(($1 % 65536)) -eq 0 ] || {
      echo "taps above 65536 must be a multiple of 65536" >&2
      exit 1
    }
    spb=65536
    nb=$(($1 / 65536))
  fi
  # output RMS about 0.04 (input RMS 0.29): nowhere near clipping
  vol=$(awk -v n="$1" 'BEGIN { printf "%.8f", 0.256 / sqrt(n) }')
  gst-launch-1.0 -q audiotestsrc wave=white-noise volume="$vol" \
    num-buffers="$nb" samplesperbuffer="$spb" \
    ! audio/x-raw,format=F32LE,rate=$rate,channels=1 \
    ! wavenc ! filesink location="$work/ir-$1.wav"
  gst-launch-1.0 -q filesrc location="$work/ir-$1.wav" ! wavparse \
    ! audioconvert ! audio/x-raw,format=F32LE,channels=2 \
    ! wavenc ! filesink location="$work/ir-$1-st.wav"
}

# ---- the contenders: name, taps, L, maxp, input, output
contend () {
  local who=$1 taps=$2 l=$3 maxp=$4 in=$5 out=$6 q=-q
  [ -z "${CPUCONV_CHECK:-}" ] || q=-v   # gst-launch-1.0 -q silences -v too
  case $who in
    ffmpeg)
      ffmpeg -hide_banner -loglevel error -nostdin -y -i "$in" \
        -i "$work/ir-$taps-st.wav" \
        -lavfi "[0:a][1:a]afir=gtype=none:minp=$l:maxp=$maxp" \
        -c:a pcm_f32le "$out" ;;
    peconvolver)
      # shellcheck disable=SC2086
      gst-launch-1.0 "$q" filesrc location="$in" ! wavparse \
        ! audioconvert \
        ! audio/x-raw,format=F32LE,channels=2,layout=interleaved \
        ! audiobuffersplit output-buffer-duration=$l/$rate \
          strict-buffer-size=true \
        ${CPUCONV_CHECK:+! identity silent=false} \
        ! peconvolver kernel-path="$work/ir-$taps-st.wav" \
        ! audioconvert ! wavenc ! filesink location="$out" ;;
    audiofirfilter)
      "$py" "$work/afirfilter.py" "$in" "$work/ir-$taps.wav" "$out" ;;
    clfirfilter)
      # shellcheck disable=SC2086
      gst-launch-1.0 "$q" filesrc location="$in" ! wavparse \
        ! clfirfilter location="$work/ir-$taps.wav" block-size="$l" \
          $clprops \
        ! wavenc ! filesink location="$out" ;;
    *)
      echo "unknown contender $who" >&2
      return 1 ;;
  esac
}
runs () {       # contender, taps: whether it runs in that case
  [ "$1" != audiofirfilter ] || [ "$2" -le "$afir_max" ]
}

needs_long=""
for c in $cases; do
  taps=${c%%:*}
  ir "$taps"
  [ "$taps" -le 65536 ] || needs_long=1
done
noise "$secs" "$work/in-$secs.wav"
if [ -n "$needs_long" ] && [ ! -e "$work/in-$long_secs.wav" ]; then
  noise "$long_secs" "$work/in-$long_secs.wav"
fi

echo "# long FIR convolution on the CPU: stereo 48 kHz F32 white noise," \
  "$secs s ($long_secs s above 65536 taps), $rounds rounds; $(nproc) cores" \
  "($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1))"
echo "# $(ffmpeg -hide_banner -version | head -1 | cut -d' ' -f1-3);" \
  "peconvolver $(dpkg-query -W -f '${Version}' \
    gstreamer1.0-convolver-pulseeffects 2>/dev/null || echo '?');" \
  "GStreamer $(gst-launch-1.0 --version | sed -n 's/^GStreamer //p')"

# ---- the checks, once a case, before timing
declare -A verdict
for c in $cases; do
  IFS=: read -r taps l maxp <<<"$c"
  [ -n "${maxp:-}" ] || { [ "$taps" -gt 65536 ] && maxp=32768 || maxp=8192; }
  [ "$maxp" -ge "$l" ] || maxp=$l
  # CHECK_SECONDS of noise, then silence for the IR's tail (and a margin
  # for peconvolver's dropped last partial buffer)
  check_frames=$((check_secs * rate))
  "$py" "$work/wav.py" "$work/check.wav" "$check_frames" \
    $((check_frames + taps + 8192))
  args=()
  for who in $contenders; do
    runs "$who" "$taps" || continue
    out="$work/check-$who.wav"
    if [ "$who" = peconvolver ]; then
      CPUCONV_CHECK=1 contend "$who" "$taps" "$l" "$maxp" "$work/check.wav" \
        "$out" >"$work/pe.log" 2>&1 || { cat "$work/pe.log" >&2; exit 1; }
      # the buffers peconvolver got, by size in frames
      echo "# check $taps:$l peconvolver's buffers (frames x count):" \
        "$(sed -n 's/.*(identity0:sink) (\([0-9]*\) bytes.*/\1/p' \
            "$work/pe.log" | awk '{ n[$1 / 8]++ }
              END { for (k in n) printf "%s x %d ", k, n[k] }')"
    elif [ "$who" = clfirfilter ]; then
      CPUCONV_CHECK=1 contend "$who" "$taps" "$l" "$maxp" "$work/check.wav" \
        "$out" >"$work/cl.log" 2>&1 || { cat "$work/cl.log" >&2; exit 1; }
      echo "# check $taps:$l clfirfilter's device:" \
        "$(sed -n 's/.*device-name = //p' "$work/cl.log" | head -1)"
    else
      contend "$who" "$taps" "$l" "$maxp" "$work/check.wav" "$out" \
        >"$work/err" 2>&1 || { cat "$work/err" >&2; exit 1; }
    fi
    args+=("$who=$out")
  done
  while IFS='|' read -r who short det; do
    if [ "$who" = pair ]; then
      echo "# check $taps:$l $short"
    else
      echo "# check $taps:$l $who: $det"
      verdict[$c:$who]=$short
    fi
  done < <("$py" "$work/check.py" "$work/check.wav" "$check_frames" \
             "$work/ir-$taps.wav" "${args[@]}")
  rm -f "$work"/check-*.wav
done

# ---- the rounds
echo "| case | contender | round | wall s | x real time | check |"
echo "|---|---|---|---|---|---|"
: >"$work/rows"
for r in $(seq 1 "$rounds"); do
  for c in $cases; do
    IFS=: read -r taps l maxp <<<"$c"
    [ -n "${maxp:-}" ] || { [ "$taps" -gt 65536 ] && maxp=32768 || maxp=8192; }
    [ "$maxp" -ge "$l" ] || maxp=$l
    s=$secs
    [ "$taps" -le 65536 ] || s=$long_secs
    # this round's order: the contenders rotated by the round
    # shellcheck disable=SC2086
    set -- $contenders
    order=""
    for i in $(seq 0 $(($# - 1))); do
      j=$(( (i + r - 1) % $# + 1 ))
      order="$order ${!j}"
    done
    for who in $order; do
      runs "$who" "$taps" || continue
      t0=$(date +%s.%N)
      if contend "$who" "$taps" "$l" "$maxp" "$work/in-$s.wav" \
           "$work/out.wav" >/dev/null 2>"$work/err"; then
        t1=$(date +%s.%N)
        awk -v c="$taps:$l" -v w="$who" -v r="$r" -v a="$t0" -v b="$t1" \
          -v s="$s" -v v="${verdict[$c:$who]:-unchecked}" \
          -v f="$work/rows" \
          'BEGIN { printf "| %s | %s | %d | %.2f | %.1f | %s |\n",
                     c, w, r, b - a, s / (b - a), v
                   printf "%s|%s|%d|%.6f|%s\n", c, w, r, b - a, s >> f }'
      else
        echo "| $taps:$l | $who | $r | failed | - | $(head -c 200 "$work/err" |
          tr '\n|' '  ') |"
      fi
      rm -f "$work/out.wav"
    done
  done
done

echo
echo "# summary: medians over $rounds rounds; clfirfilter speed / its:" \
  "the median over rounds of its wall / clfirfilter's wall (above 1:" \
  "clfirfilter faster)"
"$py" "$work/summary.py" "$work/rows"
