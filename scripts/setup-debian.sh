#!/bin/sh
# Installs what clresample needs on Debian 12 and builds it in build/.
#
# Safe to run again: apt is skipped when every package is already installed,
# and an existing build folder is reconfigured rather than set up anew.
# Works from any directory; run as root, or as a user with sudo.
set -eu

PACKAGES="build-essential pkg-config meson ninja-build python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  libsoxr-dev python3-numpy python3-matplotlib valgrind libvkfft-dev
  libspeexdsp-dev libzita-resampler-dev libxxhash-dev debhelper"

say () {
  echo "setup-debian: $*"
}

# The repository root is the parent of the folder this script is in.
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say "repository: $root"

missing=""
for pkg in $PACKAGES; do
  # db:Status-Abbrev is "ii " for a package that is installed and configured.
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
  case "$status" in
    ii*) ;;
    *) missing="$missing $pkg" ;;
  esac
done

if [ -z "$missing" ]; then
  say "all packages already installed; skipping apt"
else
  say "missing packages:$missing"
  if [ "$(id -u)" -eq 0 ]; then
    sudo=""
  elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    say "error: not root and no sudo; install these packages as root:$missing" >&2
    exit 1
  fi
  say "apt-get update"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update
  say "apt-get install"
  # shellcheck disable=SC2086 # the package list is meant to be split
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends $PACKAGES
fi

if [ -f build/meson-private/coredata.dat ]; then
  say "meson setup --reconfigure build"
  meson setup --reconfigure build
else
  say "meson setup build"
  meson setup build
fi

say "ninja -C build"
ninja -C build

say "done: plugin in $root/build/gst (use GST_PLUGIN_PATH=$root/build/gst)"
