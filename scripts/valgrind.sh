#!/usr/bin/env bash
# Runs the element tests under valgrind's memcheck and reports definite leaks
# and invalid accesses; tests/valgrind.supp hides only PoCL, LLVM and ld.so.
# Slow (PoCL under valgrind): minutes. The sanitizer run of run-tests.sh is
# the fast, always-on check; this one is for a second opinion.
# Usage: scripts/valgrind.sh [TEST-BINARY-NAME ...] (default: test-element)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
[ -d build ] || bash scripts/setup-debian.sh
ninja -C build >/dev/null
export GST_PLUGIN_PATH_1_0=$root/build/gst
export GST_REGISTRY_1_0=$root/build/tests/test-registry.bin
export CK_FORK=no CK_DEFAULT_TIMEOUT=3000
status=0
for t in "${@:-test-element}"; do
  echo "== valgrind $t"
  valgrind --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --error-exitcode=1 \
    --suppressions=tests/valgrind.supp --num-callers=30 \
    "build/tests/$t" || status=$?
done
exit $status
