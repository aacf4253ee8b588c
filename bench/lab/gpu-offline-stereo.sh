#!/usr/bin/env bash
# Lab: where stereo x 1M taps offline goes on the H100 (issue 10's last
# offline row) - stage times, split precision, VkFFT knobs, FFT sizes,
# signal lengths. After . .gpu-bundle/enter.sh build. Raw to $OUT.
# (The CLRESAMPLE_OFFLINE_SPLIT, _VKFFT_SWAP_3STAGE and _VKFFT_BANDWIDTH_BOOST knobs
# were a lab patch, not kept: split precision ran 293 us but at -123...-125 dB here and 9.6e-7
# in test-conv-offline, too near the -120 dB bound; the VkFFT knobs did not pay; docs/bench/gpu-offline-stereo-lab-2026-11-25.txt)
set -u
out=${OUT:-./bench-out}
mkdir -p "$out"
b="build/bench/clr-offline-bench -d gpu -s 60 -c 2 -t 1048576 --device-only"
r() { echo "## $*"; env "$@" | grep "^| [0-9]"; }
{
  echo "## profile"; CLRESAMPLE_PROFILE=1 $b 2>&1 | grep "clr-conv-offline\|^| [0-9]"
  CLRESAMPLE_PROFILE=1 $b --float-transforms 2>&1 | grep "clr-conv-offline\|^| [0-9]"
  r $b
  r $b --float-transforms
  r CLRESAMPLE_OFFLINE_SPLIT=fwd $b
  r CLRESAMPLE_OFFLINE_SPLIT=inv $b
  for a in 64 128 256 512 1024; do r CLRESAMPLE_VKFFT_AIM_THREADS=$a $b; done
  for s in 17 18 19 20; do r CLRESAMPLE_VKFFT_SWAP_3STAGE=$s $b; done
  for s in 2 4; do r CLRESAMPLE_VKFFT_BANDWIDTH_BOOST=$s $b; done
  for s in 2 4; do r CLRESAMPLE_VKFFT_REGISTER_BOOST=$s $b; done
  for c in 32 128; do r CLRESAMPLE_VKFFT_COALESCED=$c $b; done
  r $b --fft 4194304,4718592,5242880,6291456
  echo "## longer signals"
  for s in 120 300; do r build/bench/clr-offline-bench -d gpu -s $s -c 2 -t 1048576 --device-only; done
  r build/bench/clr-offline-bench -d gpu -s 300 -c 2 -t 1048576 --device-only --fft 8388608
} 2>&1 | tee "$out/gpu-offline-stereo.txt"
