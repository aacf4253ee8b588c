# lab: the offline convolution after aligned rows and two-level twiddles; VkFFT's coalescing 64 (ours on NVIDIA) against 32 (its own)
set -u
out=${OUT:-./bench-out}; mkdir -p $out
b="build/bench/clr-offline-bench -d gpu -s 60 -c 2,32 -t 8192,65536,262144,1048576 --device-only"
{
build/tests/test-conv-offline 2>&1 | grep -c "^ok"; build/tests/test-conv-offline 2>&1 | grep "not ok"
echo "## default"; CLRESAMPLE_PROFILE=1 $b -c 2 -t 1048576 2>&1 | grep "clr-conv-offline"
$b 2>&1 | grep "^| [0-9]"
echo "## coalesced 32"; CLRESAMPLE_VKFFT_COALESCED=32 $b 2>&1 | grep "^| [0-9]"
echo "## default again"; $b 2>&1 | grep "^| [0-9]"
echo "## coalesced 32 again"; CLRESAMPLE_VKFFT_COALESCED=32 $b 2>&1 | grep "^| [0-9]"
echo "## f64"; $b --f64 2>&1 | grep "^| [0-9]"
} 2>&1 | tee $out/lab3.txt
