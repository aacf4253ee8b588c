#!/usr/bin/env bash
# Debian's perf for the GPU machine, which has no package registry: the
# binary and the libraries it needs beyond what any Debian 12 machine (and
# .gpu-bundle's GStreamer runtime: GLib) has, into .gpu-bundle/perf. Run
# here, from the project root; carry .gpu-bundle/perf (26 MB) with the run
# and use bench/run-gpu-offcpu.sh there.
set -eu
dest=.gpu-bundle/perf
if [ ! -x /usr/bin/perf ] || ! /usr/bin/perf --version >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { echo "make-perf-bundle: linux-perf is not installed (apt-get install linux-perf, as root)" >&2; exit 1; }
  apt-get install -y --no-install-recommends linux-perf >/dev/null
fi
mkdir -p "$dest"
cp -L /usr/bin/perf "$dest/perf"
# the C runtime, GLib and zlib are on the GPU machine already
ldd /usr/bin/perf | awk '/=> \// { print $1, $3 }' | while read -r name path; do
  case $name in
    libc.so.*|libm.so.*|libgcc_s.so.*|libstdc++.so.*|libz.so.*|libglib-2.0.so.*) ;;
    *) cp -L "$path" "$dest/$name" ;;
  esac
done
echo "make-perf-bundle: $(ls "$dest" | wc -l) files in $dest ($(du -sh "$dest" | cut -f1))"
