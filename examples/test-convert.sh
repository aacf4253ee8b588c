#!/bin/sh
# Test of the clresample-convert example: converts a 2 s 44.1 kHz stereo
# tone to 48 kHz and checks the output WAV; three files at once in one
# process (--output-dir), each the same as converted alone, one missing
# among them; then the error paths.
#
# Usage: test-convert.sh CLRESAMPLE-CONVERT [WORKDIR]
# GST_PLUGIN_PATH must point at the folder holding libgstclresample.so.
set -eu

convert=$1
workdir=${2:-.}
python=${PYTHON:-python3}

tmp=$(mktemp -d "$workdir/test-convert.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail () {
  echo "FAIL: $*" >&2
  exit 1
}

# 200 buffers of 441 frames: 2 s at 44.1 kHz.
echo "== generating $tmp/in.wav"
gst-launch-1.0 -q audiotestsrc num-buffers=200 samplesperbuffer=441 freq=1000 \
  ! audio/x-raw,rate=44100,channels=2,format=S16LE \
  ! wavenc ! filesink location="$tmp/in.wav"

echo "== converting to 48000 Hz, 16 bit"
status=0
"$convert" --quiet --rate 48000 --bits 16 "$tmp/in.wav" "$tmp/out.wav" \
  >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stdout" "$tmp/stderr"
[ "$status" -eq 0 ] || fail "conversion exited with status $status"
grep -q '^device: ' "$tmp/stdout" || fail "no device line on stdout"
grep -q '^input: 44100 Hz, 2 ch$' "$tmp/stdout" || fail "wrong input line"
grep -q '^output: 48000 Hz -> ' "$tmp/stdout" || fail "wrong output line"

"$python" - "$tmp/in.wav" "$tmp/out.wav" <<'PYEOF'
import sys
import wave

with wave.open(sys.argv[1]) as w:
    n_in, rate_in = w.getnframes(), w.getframerate()
with wave.open(sys.argv[2]) as w:
    n_out, rate_out = w.getnframes(), w.getframerate()
    channels, width = w.getnchannels(), w.getsampwidth()
want = -(-n_in * 48000 // rate_in)   # ceil(n_in * 48000 / rate_in)
print(f"input {n_in} frames at {rate_in} Hz; output {n_out} frames at "
      f"{rate_out} Hz, {channels} ch, {8 * width} bit; expected {want} frames")
errors = []
if n_in != 88200 or rate_in != 44100:
    errors.append("input file is not 88200 frames at 44100 Hz")
if rate_out != 48000:
    errors.append(f"output rate {rate_out} != 48000")
if channels != 2:
    errors.append(f"output channels {channels} != 2")
if width != 2:
    errors.append(f"output sample width {width} bytes != 2")
if n_out != want:
    errors.append(f"output frames {n_out} != {want}")
if errors:
    sys.exit("FAIL: " + "; ".join(errors))
PYEOF

echo "== 16x oversampling through a long filter (the FFT path), 24 bit"
status=0
"$convert" --quiet --rate 705600 --taps 8192 --quality 10 --bits 24 \
  "$tmp/in.wav" "$tmp/out16.wav" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stderr"
[ "$status" -eq 0 ] || fail "16x: exit status $status"
"$python" - "$tmp/in.wav" "$tmp/out16.wav" <<'PYEOF'
import sys
import wave

with wave.open(sys.argv[1]) as w:
    n_in = w.getnframes()
with wave.open(sys.argv[2]) as w:
    n_out, rate_out, width = w.getnframes(), w.getframerate(), w.getsampwidth()
    data = w.readframes(n_out)
print(f"16x: {n_out} frames at {rate_out} Hz, {8 * width} bit")
if rate_out != 705600 or width != 3 or n_out != 16 * n_in:
    sys.exit(f"FAIL: 16x: {n_out} frames at {rate_out} Hz, {width} bytes; "
             f"expected {16 * n_in} at 705600, 3")
# the 1 kHz tone comes out at 1 kHz with its level: count the rising zero
# crossings of the left channel over the middle second
left = [int.from_bytes(data[6 * i:6 * i + 3], "little", signed=True)
        for i in range(n_out // 4, n_out // 4 + 705600)]
rises = sum(1 for a, b in zip(left, left[1:]) if a < 0 <= b)
peak = max(abs(v) for v in left) / 2.0 ** 23
print(f"16x: {rises} rising zero crossings a second, peak {peak:.4f}")
if abs(rises - 1000) > 1 or not 0.7 < peak < 0.9:
    sys.exit("FAIL: 16x: the tone did not come through")
PYEOF

echo "== many files at once (--output-dir, --jobs 2): each the same as alone"
# three inputs of different rates and channels: 44.1 kHz stereo (in.wav),
# 48 kHz mono noise, 32 kHz stereo square; two converting at a time, so
# the third starts when one ends
gst-launch-1.0 -q audiotestsrc num-buffers=150 samplesperbuffer=480 \
  wave=white-noise ! audio/x-raw,rate=48000,channels=1,format=S16LE \
  ! wavenc ! filesink location="$tmp/mono48.wav"
gst-launch-1.0 -q audiotestsrc num-buffers=100 samplesperbuffer=320 \
  wave=square freq=700 ! audio/x-raw,rate=32000,channels=2,format=S16LE \
  ! wavenc ! filesink location="$tmp/sq32.wav"
status=0
"$convert" --quiet --rate 96000 --jobs 2 --output-dir "$tmp/batch" \
  "$tmp/in.wav" "$tmp/mono48.wav" "$tmp/sq32.wav" \
  >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stdout" "$tmp/stderr"
[ "$status" -eq 0 ] || fail "many files: exit status $status"
grep -q '(3 of 3 files, up to 2 at a time)$' "$tmp/stdout" ||
  fail "many files: no summary line for 3 files"
grep -q "^output: 96000 Hz -> $tmp/batch/mono48.wav (input 48000 Hz, 1 ch, 1.500 s; device: " \
  "$tmp/stdout" || fail "many files: wrong line for mono48.wav"
for name in in mono48 sq32; do
  "$convert" --quiet --rate 96000 "$tmp/$name.wav" "$tmp/alone-$name.wav" \
    >/dev/null || fail "$name alone: exit status $?"
  cmp "$tmp/alone-$name.wav" "$tmp/batch/$name.wav" ||
    fail "$name: converted with the others differs from converted alone"
done
"$python" - "$tmp" <<'PYEOF'
import struct
import sys
import wave

def float_wav(path):
    """(frames, rate, channels) of a WAV file of 32-bit floats, which the
    wave module does not read."""
    with open(path, "rb") as f:
        data = f.read()
    pos, fmt, size = 12, None, None
    while pos + 8 <= len(data):
        tag, n = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if tag == b"fmt ":
            fmt = struct.unpack("<HHIIHH", data[pos + 8:pos + 24])
        elif tag == b"data":
            size = n
        pos += 8 + n + (n & 1)
    if fmt is None or size is None or fmt[0] != 3 or fmt[5] != 32:
        sys.exit(f"FAIL: {path} is not a WAV of 32-bit floats")
    return size // (4 * fmt[1]), fmt[2], fmt[1]

tmp = sys.argv[1]
errors = []
for name, rate_in, ch in (("in", 44100, 2), ("mono48", 48000, 1),
                          ("sq32", 32000, 2)):
    with wave.open(f"{tmp}/{name}.wav") as w:
        n_in = w.getnframes()
    n_out, rate, chans = float_wav(f"{tmp}/batch/{name}.wav")
    want = -(-n_in * 96000 // rate_in)
    print(f"{name}: {n_in} frames at {rate_in} Hz -> {n_out} at {rate} Hz, "
          f"{chans} ch; expected {want}")
    if (n_out, rate, chans) != (want, 96000, ch):
        errors.append(name)
if errors:
    sys.exit("FAIL: many files: wrong length, rate or channels: "
             + ", ".join(errors))
PYEOF

echo "== many files, one missing: the others converted, exit status 1"
status=0
"$convert" --quiet --rate 96000 --output-dir "$tmp/batch2" "$tmp/in.wav" \
  "$tmp/nothere.wav" "$tmp/sq32.wav" >"$tmp/stdout" 2>"$tmp/stderr" ||
  status=$?
cat "$tmp/stdout" "$tmp/stderr"
[ "$status" -eq 1 ] || fail "one missing: exit status $status, expected 1"
grep -q "^error: $tmp/nothere.wav: " "$tmp/stderr" ||
  fail "one missing: the error does not name the file"
grep -q '(2 of 3 files, up to 3 at a time)$' "$tmp/stdout" ||
  fail "one missing: no summary line for 2 of 3 files"
cmp "$tmp/alone-in.wav" "$tmp/batch2/in.wav" || fail "one missing: in.wav"
cmp "$tmp/alone-sq32.wav" "$tmp/batch2/sq32.wav" || fail "one missing: sq32"
[ ! -e "$tmp/batch2/nothere.wav" ] || fail "one missing: an output was left"

echo "== two inputs of one name"
status=0
"$convert" --output-dir "$tmp/batch3" "$tmp/in.wav" "$tmp/batch/in.wav" \
  2>"$tmp/stderr" || status=$?
cat "$tmp/stderr"
[ "$status" -eq 2 ] || fail "one name twice: exit status $status, expected 2"

echo "== missing input file"
status=0
"$convert" --quiet "$tmp/does-not-exist.wav" "$tmp/x.wav" \
  >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stderr"
[ "$status" -eq 1 ] || fail "missing input: exit status $status, expected 1"
grep -q '^error: ' "$tmp/stderr" || fail "missing input: no error on stderr"

echo "== no OpenCL platform (empty OCL_ICD_VENDORS)"
mkdir "$tmp/empty-vendors"
status=0
OCL_ICD_VENDORS="$tmp/empty-vendors" "$convert" --quiet "$tmp/in.wav" \
  "$tmp/x.wav" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
cat "$tmp/stderr"
[ "$status" -eq 1 ] || fail "no OpenCL: exit status $status, expected 1"
grep -q 'OpenCL' "$tmp/stderr" || fail "no OpenCL: message does not say so"

echo "== bad arguments"
status=0
"$convert" --bits 12 "$tmp/in.wav" "$tmp/x.wav" 2>"$tmp/stderr" || status=$?
[ "$status" -eq 2 ] || fail "--bits 12: exit status $status, expected 2"

echo "PASS"
