#!/usr/bin/env bash
# Where running the next block's sum ahead pays: each row with
# CLRESAMPLE_CONV_AHEAD=1 and 0 in turn, three rounds; after
# `. .gpu-bundle/enter.sh build`.
set -u
f=build/bench/clr-fir-bench
x=build/bench/clr-crossover-bench
for r in 1 2 3; do
  for a in 1 0; do
    echo "## round $r, ahead $a"
    export CLRESAMPLE_CONV_AHEAD=$a
    $f --device gpu -s 5 -t 65536,1048576 -c 2 -b 256,1024 -e clfirfilter
    $f --device gpu -s 5 -t 262144 -c 64 -b 1024 -e clfirfilter
    $x --device gpu -s 5 -t 65535 -c 8 -b 256,1024 -e clcrossover
  done
done 2>&1 | grep -E "^##|^clfir|^clcross"
