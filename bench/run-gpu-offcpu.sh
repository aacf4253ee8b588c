#!/usr/bin/env bash
# Where a many-streams process spends its CPU and where its threads sleep
# (docs/performance.md, "Where streaming threads sleep"): one
# clr-streams-bench process (--one WORKLOAD N, SECONDS of audio a stream)
# under perf twice, a CPU profile by library and symbol, then every
# context switch with its stack, those that left the thread asleep counted
# by their first user frames. On the GPU machine after
# `. .gpu-bundle/enter.sh build`, with .gpu-bundle/perf carried
# (bench/make-perf-bundle.sh); anywhere with linux-perf installed.
#
#   bench/run-gpu-offcpu.sh [WORKLOAD [N [SECONDS]]]   (clresample-q10 256 5)
set -u
w=${1:-clresample-q10}
n=${2:-256}
s=${3:-5}
b=build/bench/clr-streams-bench
out=${OUT:-/tmp}
perf=perf
if [ -x .gpu-bundle/perf/perf ]; then
  perf=.gpu-bundle/perf/perf
  export LD_LIBRARY_PATH=$PWD/.gpu-bundle/perf${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# kernels built and cached before the measured run
timeout 120 $b --one "$w" 16 -s 2 >/dev/null 2>&1
echo "## $w, N = $n, $s s a stream: the CPU by library and symbol"
$perf record -q -F 1999 -o "$out/oncpu.data" -- $b --one "$w" "$n" -s "$s" \
  2>&1 | grep -E "clr-streams-result"
$perf report -i "$out/oncpu.data" --sort dso --stdio 2>/dev/null |
  grep -v "^#" | grep "%" | head -12
$perf report -i "$out/oncpu.data" --sort dso,sym --stdio 2>/dev/null |
  grep -v "^#" | grep "%" | head -25
echo "## the same: switches that left a thread asleep, by its first user frames"
$perf record -q -e sched:sched_switch --call-graph dwarf,4096 \
  -o "$out/offcpu.data" -- $b --one "$w" "$n" -s "$s" 2>&1 |
  grep -E "clr-streams-result"
$perf script -i "$out/offcpu.data" -F tid,trace,ip,sym,dso 2>/dev/null | awk '
  function count() { if (key != "") n[key]++; key = "" }
  /prev_state=/ {
    count (); total++; frames = 0
    asleep = $0 !~ /prev_state=R[ +]/
    if (asleep) sleeps++
    next
  }
  NF == 0 { count (); next }
  asleep && $0 !~ /kernel.kallsyms/ && frames < 4 {
    sub (/^[ \t]*[0-9a-f]+ /, ""); sub (/\+0x[0-9a-f]+/, "")
    gsub (/\(\/[^)]*\//, "("); key = key " < " $0; frames++
  }
  END {
    count ()
    printf "%d switches, %d of them leaving the thread asleep\n", total, sleeps
    for (k in n) printf "%7d %s\n", n[k], k | "sort -rn | head -15"
  }'
