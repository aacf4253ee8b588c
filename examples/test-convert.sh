#!/bin/sh
# Test of the clresample-convert example: converts a 2 s 44.1 kHz stereo
# tone to 48 kHz and checks the output WAV; then checks the error paths.
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
