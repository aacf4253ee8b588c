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
meson test -C build --print-errorlogs --num-processes 1 "$@"
