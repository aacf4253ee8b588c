# lab: VkFFT disableReorderFourStep through a lab knob (CLRESAMPLE_VKFFT_NO_REORDER, not kept:
# no faster, and the multiply would need its shuffled order); docs/bench/gpu-offline-reorder-lab-2026-11-25.txt
set -u
out=${OUT:-./bench-out}; mkdir -p $out
b="build/bench/clr-offline-bench -d gpu -s 60 -t 1048576 --device-only"
{
for c in 2 32; do
 echo "## c=$c base"; CLRESAMPLE_PROFILE=1 $b -c $c 2>&1 | grep "clr-conv-offline\|^| [0-9]"
 echo "## c=$c no-reorder"; CLRESAMPLE_VKFFT_NO_REORDER=1 CLRESAMPLE_PROFILE=1 $b -c $c 2>&1 | grep "clr-conv-offline\|^| [0-9]\|rror"
 echo "## c=$c coalesced 32"; CLRESAMPLE_VKFFT_COALESCED=32 $b -c $c 2>&1 | grep "^| [0-9]"
 echo "## c=$c no-reorder coalesced 32"; CLRESAMPLE_VKFFT_COALESCED=32 CLRESAMPLE_VKFFT_NO_REORDER=1 $b -c $c 2>&1 | grep "^| [0-9]\|rror"
done
echo "## 262144 stereo"; CLRESAMPLE_PROFILE=1 build/bench/clr-offline-bench -d gpu -s 60 -t 262144 -c 2 --device-only 2>&1 | grep "clr-conv-offline\|^| [0-9]"
CLRESAMPLE_VKFFT_NO_REORDER=1 CLRESAMPLE_PROFILE=1 build/bench/clr-offline-bench -d gpu -s 60 -t 262144 -c 2 --device-only 2>&1 | grep "clr-conv-offline\|^| [0-9]"
echo "## 64ch fir"
build/bench/clr-fir-bench --device gpu -s 10 -t 262144 -c 64 -b 1024 -e clfirfilter 2>&1 | tail -4
} 2>&1 | tee $out/lab2.txt
