#!/usr/bin/env bash
# Sets up everything the project needs on Debian 12 (see setup-debian.sh),
# builds, and runs the whole test suite on the default OpenCL device (PoCL
# when there is no GPU). Usage: scripts/run-tests.sh [meson test args...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup-debian.sh
echo "== OpenCL devices:"
clinfo -l || true
echo "== meson test"
# two cores: the OpenCL tests already use both, so run one test at a time
status=0
meson test -C build --print-errorlogs --num-processes 1 "$@" || status=$?
# one closing line over every test and subtest meson ran
python3 - build/meson-logs/testlog.json <<'PY' || true
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
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
exit $status
