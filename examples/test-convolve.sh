#!/bin/sh
# Test of clfirfilter-convolve.sh: a 1 s stereo tone through a mono and a
# stereo impulse response, the output checked sample by sample (python's
# wave module; the IRs are delays and gains, so the expected output is
# exact up to the last bit); then the error paths.
#
# Usage: test-convolve.sh CLFIRFILTER-CONVOLVE.SH [WORKDIR]
# GST_PLUGIN_PATH must point at the folder holding libgstclresample.so.
set -eu

script=$1
workdir=${2:-.}
python=${PYTHON:-python3}

tmp=$(mktemp -d "$workdir/test-convolve.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail () {
  echo "FAIL: $*" >&2
  exit 1
}

echo "== generating $tmp/in.wav and the impulse responses"
gst-launch-1.0 -q audiotestsrc num-buffers=100 samplesperbuffer=480 \
  freq=997 volume=0.7 ! audio/x-raw,rate=48000,channels=2,format=S16LE \
  ! wavenc ! filesink location="$tmp/in.wav"
"$python" - "$tmp" <<'PYEOF'
import struct
import sys
import wave

def write(path, channels):
    frames = max(len(c) for c in channels)
    with wave.open(path, "wb") as w:
        w.setnchannels(len(channels))
        w.setsampwidth(2)
        w.setframerate(48000)
        data = b"".join(struct.pack("<" + "h" * len(channels),
                                    *[round(c[i] * 32768) if i < len(c)
                                      else 0 for c in channels])
                        for i in range(frames))
        w.writeframes(data)

d = sys.argv[1]
write(d + "/ir-mono.wav", [[0, 0, 0, 0.5]])
write(d + "/ir-stereo.wav", [[0, 0, 0, 0.5], [-0.25]])
write(d + "/ir-three.wav", [[0.5], [0.5], [0.5]])
PYEOF

for ir in mono stereo; do
  echo "== convolving with ir-$ir.wav"
  status=0
  sh "$script" --bits 16 "$tmp/in.wav" "$tmp/ir-$ir.wav" "$tmp/out-$ir.wav" \
    >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
  cat "$tmp/stdout" "$tmp/stderr"
  [ "$status" -eq 0 ] || fail "convolution exited with status $status"
  grep -q '^done: ' "$tmp/stdout" || fail "no closing line on stdout"
  grep -q 'progressreport' "$tmp/stdout" || fail "no progress on stdout"
done

"$python" - "$tmp" <<'PYEOF'
import struct
import sys
import wave

d = sys.argv[1]

def read(path):
    with wave.open(path) as w:
        n, ch = w.getnframes(), w.getnchannels()
        assert w.getsampwidth() == 2 and w.getframerate() == 48000, path
        s = struct.unpack("<%dh" % (n * ch), w.readframes(n))
    return [s[c::ch] for c in range(ch)]

x = read(d + "/in.wav")
errors = []
# mono IR: 0.5 x[t - 3] on both channels; stereo: 0.5 x[t - 3], -0.25 x[t]
for name, taps in (("mono", [(3, 0.5), (3, 0.5)]),
                   ("stereo", [(3, 0.5), (0, -0.25)])):
    y = read(d + "/out-%s.wav" % name)
    if len(y) != 2 or len(y[0]) != len(x[0]):
        errors.append("%s: %d channels of %d frames, expected 2 of %d"
                      % (name, len(y), len(y[0]), len(x[0])))
        continue
    worst = 0
    for c, (delay, gain) in enumerate(taps):
        for t in range(len(x[c])):
            want = gain * x[c][t - delay] if t >= delay else 0.0
            worst = max(worst, abs(y[c][t] - want))
    # the output is rounded: within half an LSB, and a hair for the FFT
    print("%s IR: %d frames, max |error| %.3f LSB" % (name, len(y[0]), worst))
    if worst > 0.51:
        errors.append("%s: max error %.3f LSB" % (name, worst))
if errors:
    print("FAIL: " + "; ".join(errors))
    sys.exit(1)
PYEOF

echo "== errors"
status=0
sh "$script" --quiet "$tmp/in.wav" "$tmp/ir-three.wav" "$tmp/bad.wav" \
  >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stderr"
[ "$status" -eq 1 ] || fail "a 3-channel IR on stereo: status $status, not 1"
grep -q '3 channels' "$tmp/stderr" || fail "the error does not name the channels"
status=0
sh "$script" --bits 12 "$tmp/in.wav" "$tmp/ir-mono.wav" "$tmp/bad.wav" \
  >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--bits 12: status $status, not 2"
status=0
sh "$script" "$tmp/in.wav" >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "missing arguments: status $status, not 2"
echo "PASS"
