#!/usr/bin/env bash
# Sets up everything the project needs on Debian 12 (see setup-debian.sh),
# builds, and runs the whole test suite on the default OpenCL device (PoCL
# when there is no GPU). Usage: scripts/run-tests.sh [meson test args...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# each phase's wall time, printed at the end (the whole command is to stay
# within 10 minutes on a 2-core machine from a fresh clone)
phases=""
phase_start=$SECONDS
phase_done () {
  phases="$phases$(printf '  %-40s %4d s' "$1" $((SECONDS - phase_start)))\n"
  phase_start=$SECONDS
}

bash scripts/setup-debian.sh
phase_done "packages and build (setup-debian.sh)"
echo "== OpenCL devices:"
clinfo -l || true
echo "== meson test"
# two tests at a time: each is often waiting (a kernel build, a device
# wait, a pipeline draining) while the other computes. With PoCL's kernel
# cache warm the pass took 274 s one at a time, 201 s two at a time (1.58
# cores busy) and 171 s three at a time on the 2-core EPYC VM; with that
# cache cold (a new machine: PoCL compiles some 1400 kernels, 1900
# before resample programs held one kernel each) 402 s two at a time. Not three: with the caches cold, three at a time starved
# the wall-clock checks of test-redesign (a live change's stall) and
# test-drift (a live sink's late buffers) in 3 runs of 17 here. (The
# soak's hang that three at a time also showed was the soak's own EOS
# sent into a live pipeline's asynchronous return to PLAYING, a deadlock
# in GStreamer: mended in bench/clr-soak.c, settle ().)
status=0
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=$?
phase_done "meson test (build)"

# The same element tests again under AddressSanitizer, LeakSanitizer and
# UBSan: no leak, overflow or undefined behaviour in clresample's code
# (tests/lsan.supp names the only exceptions: PoCL, LLVM, the ICD loader).
# Plugins load in-process (GST_REGISTRY_FORK=no) so the sanitizer runtime
# comes first; a first run without leak checks builds the registry, whose
# one-off scan of the system's plugins is not ours to judge.
# the targets that the named tests of build folder $1 run (their programs
# and what meson says they depend on), the plugin and the test registry's
# plugin list: a sanitizer build makes only these
targets_of_tests () {
  local dir=$1
  shift
  meson introspect "$dir" --tests --targets | python3 -c '
import json, os, sys
d = os.path.abspath(sys.argv[1])
names = set(sys.argv[2:])
info = json.load(sys.stdin)
files = {t["id"]: t["filename"] for t in info["targets"]}
out = {"gst/libgstclresample.so", "test-plugins.txt"}
for t in info["tests"]:
    if t["name"] not in names:
        continue
    paths = [t["cmd"][0]] + [f for i in t.get("depends", []) for f in files[i]]
    out.update(os.path.relpath(f, d) for f in paths
               if os.path.abspath(f).startswith(d + "/"))
print(" ".join(sorted(out)))' "$dir" "$@"
}

ran_sanitizers=0
if [ "${CLR_SKIP_SANITIZERS:-0}" != 1 ] && [ $status -eq 0 ]; then
  ran_sanitizers=1
  echo "== sanitizers (build-asan)"
  # without VkFFT: it backs only the offline convolution, which no element
  # uses and no sanitizer pass runs, and its 1.6 MB header alone takes 2.7
  # of this build's 3 minutes on two cores under the sanitizers; nor the
  # benchmarks, which no test runs; and of the tests only those the passes
  # below run (45 s instead of 54 from nothing)
  asan_tests="lsan-canary core design sched sched-window element robust
    batching streams conv conv-streams conv-streams-groups firfilter
    firfilter-api crossover crossover-design fft-path dropin redesign
    disk-cache device-inventory fault no-device soak rate-adjust interim"
  if [ -f build-asan/meson-private/coredata.dat ]; then
    meson setup --reconfigure build-asan -Dvkfft=disabled -Dbench=disabled \
      >/dev/null
  else
    meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
      -Dvkfft=disabled -Dbench=disabled >/dev/null
  fi
  # shellcheck disable=SC2046,SC2086
  ninja -C build-asan $(targets_of_tests build-asan $asan_tests) >/dev/null
  phase_done "sanitizer build (build-asan)"
  export GST_REGISTRY_FORK=no
  # Each test case of a gst-check program in a process of its own would end
  # in LeakSanitizer's scan of the whole heap (PoCL's and LLVM's with it):
  # 0.7 s a test case, a third of this pass. In one process a leak in any
  # test case is still found by the one scan at its end. The two cases that
  # need a process of their own (a CLRESAMPLE_* variable read once a
  # process) skip themselves there and run forked after the pass.
  export CK_FORK=no
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp
  # intercept_tls_get_addr=0: up to GCC 13 the sanitizer runtime's
  # __tls_get_addr hook takes a dynamic TLS block that happens to start 16
  # bytes into a page for a pre-2.25 glibc header and hands LeakSanitizer a
  # bogus range, whose scan then crashes ("Tracer caught signal 11") in
  # tests that leak nothing; where the blocks land depends on the heap's
  # layout, so on which plugins and libraries the machine has. Without the
  # hook the blocks are still ordinary heap memory reached through each
  # thread's DTV, so the check stays whole; the lsan-canary test proves in
  # every run that a leak is still found with these options.
  # use_sigaltstack=0: LLVM (PoCL's kernel compiler) replaces the thread's
  # alternate signal stack with one of its own from malloc (64 KiB +
  # MINSIGSTKSZ); a streaming thread that compiled kernels then exits, and
  # the sanitizer runtime unmaps LLVM's stack as if it were its own ("unable
  # to unmap", test_playbin). Without it only a stack overflow's report is
  # lost, not a leak or an overflow of the heap.
  # malloc_context_size=6: every allocation's stack is unwound the slow way
  # (glibc and GLib have no frame pointers), and PoCL's compiler allocates
  # at every program build; six frames reach the suppressions' libraries
  # and the canary's main(), and cut the pass by a sixth. To read a
  # report's allocation further up, run the test again with 30.
  leak_check=detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=6
  leak_check=$leak_check:intercept_tls_get_addr=0:use_sigaltstack=0
  ASAN_OPTIONS=detect_leaks=0:use_sigaltstack=0 meson test -C build-asan \
    --no-rebuild --num-processes 1 \
    no-device >/dev/null || true
  # three test programs at a time, as the plain pass runs them: on two
  # cores this pass took 265 s one at a time, 145-158 s two at a time and
  # 136 s three at a time (the whole test command 592 s on 2026-12-07
  # with two)
  # shellcheck disable=SC2086
  ASAN_OPTIONS=$leak_check meson test -C build-asan --no-rebuild \
    --print-errorlogs --num-processes 3 --logbase sanitizers $asan_tests \
    || status=$?
  CK_FORK=yes GST_CHECKS=test_build_failure,test_out_of_memory \
    ASAN_OPTIONS=$leak_check meson test -C build-asan --no-rebuild \
    --print-errorlogs --logbase sanitizers-own-process robust || status=$?
  phase_done "sanitizers: elements and core"
  # and the GPU code path (GPU kernels, page-locked staging, jobs' threads
  # yielding while they wait for their batches) on this CPU, reached
  # through the elements and the scheduler; test-core's and
  # test-fft-path's engine-level cases on the GPU kernels run in the plain
  # pass only (here they took 30 of this pass's 66 s)
  CLRESAMPLE_KERNELS=gpu CLRESAMPLE_PINNED=1 CLRESAMPLE_SCHED_SPIN=1 \
    ASAN_OPTIONS=$leak_check \
    meson test -C build-asan --no-rebuild --print-errorlogs \
    --num-processes 2 --logbase sanitizers-gpu-path sched element streams \
    conv-streams \
    || status=$?
  phase_done "sanitizers: GPU code path"
  # and the copying path of CPU devices without shared virtual memory
  # (clcrossover's convolution copies its stage and FIFO there too)
  CLRESAMPLE_SVM=0 ASAN_OPTIONS=$leak_check \
    meson test -C build-asan --no-rebuild --print-errorlogs \
    --num-processes 2 --logbase sanitizers-no-svm core crossover \
    || status=$?
  phase_done "sanitizers: no shared virtual memory"

  # ThreadSanitizer (build-tsan/): no data race in the device's scheduler
  # and the streams that share it (test-sched, -batching, -streams,
  # -conv-streams, their cases in one process each). GLib's locks, thread
  # pools and GStreamer's reference counts are told to the sanitizer by
  # tests/clr-tsan-glib.c, linked into those programs (GLib's GMutex is a
  # futex it cannot see); tests/tsan.supp says why it has no entry. Only
  # the plugin and those programs are built (about 20 s on two cores; the
  # tests then take 35-45 s). GST_REGISTRY_FORK=no and CK_FORK=no as
  # above: the plugin loads in-process, each program in one process.
  echo "== thread sanitizer (build-tsan)"
  if [ -f build-tsan/meson-private/coredata.dat ]; then
    meson setup --reconfigure build-tsan -Dvkfft=disabled -Dbench=disabled \
      >/dev/null
  else
    meson setup build-tsan -Db_sanitize=thread -Db_lundef=false \
      -Dvkfft=disabled -Dbench=disabled >/dev/null
  fi
  ninja -C build-tsan gst/libgstclresample.so test-plugins.txt \
    tests/test-sched tests/test-batching tests/test-streams \
    tests/test-conv-streams >/dev/null
  phase_done "thread sanitizer build (build-tsan)"
  # halt_on_error=0: every report of a run, not only the first (a report
  # still fails its test: exit code 66); history_size=4: the other
  # access's stack kept long enough to be shown
  TSAN_OPTIONS=suppressions=$root/tests/tsan.supp:halt_on_error=0:history_size=4 \
    meson test -C build-tsan --no-rebuild --print-errorlogs \
    --num-processes 3 --logbase tsan sched sched-window batching streams \
    conv-streams || status=$?
  phase_done "thread sanitizer: scheduler and streams"
fi

# The Debian package (debian/): built in a clean copy, its contents checked,
# installed, all three elements found by gst-inspect with no environment
# set, removed again. It installs into the system's plugin folder, so it
# runs only as root and where no clresample plugin is installed already
# (a developer's `meson install` or the package itself): elsewhere it says
# so and counts as skipped.
deb_result=""
plugins_dir=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null || true)
if [ "${CLR_SKIP_PACKAGE:-0}" = 1 ]; then
  deb_result=SKIP
  echo "== debian package: skipped (CLR_SKIP_PACKAGE=1)"
elif [ "$(id -u)" -ne 0 ]; then
  deb_result=SKIP
  echo "== debian package: skipped (needs root to install the package)"
elif [ -e "$plugins_dir/libgstclresample.so" ]; then
  deb_result=SKIP
  echo "== debian package: skipped ($plugins_dir/libgstclresample.so is" \
    "installed already)"
else
  echo "== debian package"
  if bash scripts/test-deb-package.sh; then
    deb_result=OK
  else
    deb_result=FAIL
    status=1
  fi
  phase_done "debian package (test-deb-package.sh)"
fi

# one closing line over every test and subtest meson ran
logs="build/meson-logs/testlog.json"
if [ $ran_sanitizers = 1 ]; then
  for f in build-asan/meson-logs/sanitizers.json \
      build-asan/meson-logs/sanitizers-own-process.json \
      build-asan/meson-logs/sanitizers-gpu-path.json \
      build-asan/meson-logs/sanitizers-no-svm.json \
      build-tsan/meson-logs/tsan.json; do
    [ -f "$f" ] && logs="$logs $f"
  done
fi
DEB_RESULT=$deb_result python3 - $logs <<'PY' || true
import json, os, sys
passed = failed = skipped = 0
lines = [l for f in sys.argv[1:] for l in open(f)]
# the package test, as one more test
if os.environ.get("DEB_RESULT"):
    lines.append(json.dumps({"result": os.environ["DEB_RESULT"]}))
for line in lines:
    r = json.loads(line)
    res = r.get("result")
    if res in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif res == "SKIP":
        skipped += 1
    else:
        failed += 1
print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
PY
printf "time by phase:\n$phases"
printf '  %-40s %4d s\n' "total" "$SECONDS"
exit $status
