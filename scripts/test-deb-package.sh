#!/usr/bin/env bash
# Builds the Debian package (debian/) in a clean copy of the tree and checks
# it: what the .deb holds (dpkg-deb -c / -I), that no build path leaked into
# it, and that once installed with dpkg the three elements are found by
# gst-inspect-1.0 with no environment set. The package is removed again at
# the end, so the machine is left as it was (apart from the build
# dependencies, which stay installed as setup-debian.sh's do).
#
# The copy is the working tree's tracked and untracked-but-not-ignored files
# (git ls-files), so build/, obj-*/ and the like are never used or touched.
# Debian 12; run as root, or as a user with sudo. Exits non-zero on failure.
# KEEP=1 keeps the temporary folder (the copy, the build log, the .debs).
set -euo pipefail

say () { echo "test-deb-package: $*"; }
start=$(date +%s)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

pkg=gstreamer1.0-clresample
fails=0
ok () { echo "  ok   - $*"; }
bad () { echo "  FAIL - $*"; fails=$((fails + 1)); }
check () {  # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
  local what=$1; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}

if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1; then
  sudo="sudo"
else
  say "error: needs root (dpkg -i) or sudo" >&2
  exit 1
fi

tmp=$(mktemp -d /tmp/clr-deb.XXXXXX)
installed=0
cleanup () {
  if [ "$installed" = 1 ]; then
    say "cleanup: dpkg --purge $pkg"
    $sudo dpkg --purge "$pkg" >/dev/null 2>&1 || true
  fi
  if [ "${KEEP:-0}" = 1 ]; then
    say "kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT

# --- the clean copy --------------------------------------------------------
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
src=$tmp/gst-clresample-$version
mkdir -p "$src"
say "copy of the working tree (HEAD $(git rev-parse --short HEAD) plus" \
  "uncommitted changes, no ignored files) in $src"
git ls-files -z --cached --others --exclude-standard \
  | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
  | tar --null -T - -cf - | tar -xf - -C "$src"

# --- build dependencies ----------------------------------------------------
tools="dpkg-dev debhelper gstreamer1.0-tools"
missing=""
for p in $tools; do
  case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true) in
    ii*) ;;
    *) missing="$missing $p" ;;
  esac
done
if [ -z "$missing" ] && (cd "$src" && dpkg-checkbuilddeps >/dev/null 2>&1); then
  say "build dependencies already installed; skipping apt"
else
  say "installing build dependencies (apt-get; log: $tmp/apt.log)"
  # shellcheck disable=SC2086 # $tools is a list, meant to be split
  if ! { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
         $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
           --no-install-recommends $tools &&
         $sudo env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q \
           "$src"; } >"$tmp/apt.log" 2>&1; then
    tail -n 30 "$tmp/apt.log"
    say "FAIL: could not install the build dependencies"
    exit 1
  fi
fi

# --- build ------------------------------------------------------------------
opts=${DEB_BUILD_OPTIONS:-}
case " $opts " in *" parallel="*) ;; *) opts="$opts parallel=$(nproc)" ;; esac
say "dpkg-buildpackage -b -us -uc (DEB_BUILD_OPTIONS='${opts# }';" \
  "log: $tmp/build.log)"
t0=$(date +%s)
if ! (cd "$src" && DEB_BUILD_OPTIONS="${opts# }" dpkg-buildpackage -b -us -uc) \
    >"$tmp/build.log" 2>&1; then
  tail -n 40 "$tmp/build.log"
  say "FAIL: dpkg-buildpackage failed"
  KEEP=1
  exit 1
fi
say "built in $(( $(date +%s) - t0 )) s: $(cd "$tmp" && echo *.deb)"

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$tmp/${pkg}_${version}_${arch}.deb
pluginsdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
so=$pluginsdir/libgstclresample.so
doc=/usr/share/doc/$pkg

# --- what the package holds -------------------------------------------------
say "checks on $(basename "$deb")"
if [ ! -f "$deb" ]; then
  bad "$deb was built"
  echo "test-deb-package: FAIL ($fails)"; exit 1
fi
dpkg-deb -c "$deb" | awk '{ sub(/^\./, "", $6); print substr($1, 1, 1), substr($1, 4, 1), $6 }' \
  >"$tmp/contents"  # type, owner-exec bit, path
files=$(awk '$1 == "-" { print $3 }' "$tmp/contents")
while IFS= read -r f; do echo "       $f"; done <<<"$files"

check "GStreamer's plugin folder is /usr/lib/$multiarch/gstreamer-1.0 ($pluginsdir)" \
  test "$pluginsdir" = "/usr/lib/$multiarch/gstreamer-1.0"
check "the plugin is $so" grep -qxF "$so" <<<"$files"
expected_docs="$doc/README.md $doc/copyright $doc/changelog.gz"
for f in "$src"/docs/*.md "$src"/docs/img/*; do
  [ -f "$f" ] && expected_docs="$expected_docs $doc/docs/${f#"$src"/docs/}"
done
missing_docs=""
for f in $expected_docs; do
  grep -qxF "$f" <<<"$files" || missing_docs="$missing_docs $f"
done
check "docs: README.md, docs/*.md, docs/img/* ($(wc -w <<<"$expected_docs") files) in $doc${missing_docs:+; missing:$missing_docs}" \
  test -z "$missing_docs"
stray=$(grep -vxF "$so" <<<"$files" | grep -v "^$doc/" || true)
check "nothing else (no test, bench or example programs)${stray:+: $stray}" \
  test -z "$stray"
execs=$(awk '$1 == "-" && $2 == "x" { print $3 }' "$tmp/contents" | grep -vxF "$so" || true)
check "no executable file but the plugin${execs:+: $execs}" test -z "$execs"

field () { dpkg-deb -f "$deb" "$1"; }
echo "       Depends: $(field Depends)"
echo "       Recommends: $(field Recommends)"
check "Package $pkg, Architecture $arch, Version $version" \
  test "$(field Package) $(field Architecture) $(field Version)" = "$pkg $arch $version"
depends=", $(field Depends),"
# the OpenCL ICD loader through ${shlibs:Depends}: "ocl-icd-libopencl1
# (>= 2.2.0) | libopencl-2.0-1" and the like (libopencl1 and libopencl-*-1
# are the virtual packages of the other loaders)
for d in 'ocl-icd-libopencl1( \([^)]*\))? \| libopencl(1|-[0-9.]+-1)' 'libgstreamer1\.0-0' \
         'libgstreamer-plugins-base1\.0-0' 'libglib2\.0-0' 'libc6'; do
  check "Depends on ${d//\\/}" grep -qE ", *${d}[ ,(]" <<<"$depends"
done
check "Recommends: pocl-opencl-icd | opencl-icd" \
  test "$(field Recommends)" = "pocl-opencl-icd | opencl-icd"

mkdir "$tmp/root"
dpkg-deb -x "$deb" "$tmp/root"
needed=$(objdump -p "$tmp/root$so" | awk '$1 == "NEEDED" { printf "%s ", $2 }')
# shellcheck disable=SC2016 # expanded by eval
check "the plugin links libOpenCL.so.1 and GStreamer (NEEDED: $needed)" \
  eval 'grep -q "libOpenCL\.so\.1 " <<<"$needed" &&
        grep -q "libgstreamer-1\.0\.so" <<<"$needed"'
leaks=""
for p in "$tmp" "$root" /work; do
  if grep -rqaF "$p" "$tmp/root" || grep -qF "$p" "$tmp/contents" ||
     dpkg-deb -I "$deb" | grep -qF "$p"; then
    leaks="$leaks $p"
  fi
done
check "no build path ($tmp, $root, /work) in the files or metadata${leaks:+: found$leaks}" \
  test -z "$leaks"

# --- installed: found with no environment set -------------------------------
# db:Status-Status: installed, half-installed, config-files, not-installed..
status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
if [ -n "$status" ] && [ "$status" != not-installed ] &&
   [ "$status" != config-files ]; then
  bad "$pkg is already installed ($status); remove it first: dpkg --purge $pkg"
  echo "test-deb-package: FAIL ($fails)"; exit 1
fi
if [ -e "$so" ]; then
  bad "$so exists outside any package (meson install?): the install test would" \
    "overwrite and then delete it; remove it first"
  echo "test-deb-package: FAIL ($fails)"; exit 1
fi

inspect () {  # inspect NAME ARGS...: gst-inspect-1.0 ARGS with no plugin
  local name=$1; shift  # path set and a fresh registry of its own
  env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 -u GST_PLUGIN_SYSTEM_PATH \
    -u GST_PLUGIN_SYSTEM_PATH_1_0 -u GST_REGISTRY -u GST_PLUGIN_LOADING_WHITELIST \
    GST_REGISTRY_1_0="$tmp/registry-$name.bin" XDG_DATA_HOME="$tmp/xdg" \
    XDG_CACHE_HOME="$tmp/xdg-cache" gst-inspect-1.0 "$@"
}
check "before installing, gst-inspect-1.0 does not find clresample" \
  eval '! inspect before clresample >/dev/null 2>&1'

say "dpkg -i $(basename "$deb")"
installed=1
if ! $sudo dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1; then
  cat "$tmp/dpkg.log"
  bad "dpkg -i"
else
  ok "dpkg -i"
  for e in clresample clfirfilter clcrossover; do
    if inspect "$e" "$e" >"$tmp/inspect-$e.txt" 2>&1; then
      long=$(sed -n 's/^ *Long-name *//p' "$tmp/inspect-$e.txt" | head -n 1)
      file=$(sed -n 's/^ *Filename *//p' "$tmp/inspect-$e.txt" | head -n 1)
      echo "       $e: $long"
      echo "       $e: Filename $file"
      # -ef: with merged /usr GStreamer may name it /lib/<multiarch>/...
      check "gst-inspect-1.0 $e finds it in the packaged $so" test "$file" -ef "$so"
    else
      sed 's/^/       /' "$tmp/inspect-$e.txt" | tail -n 5
      bad "gst-inspect-1.0 $e"
    fi
  done
  features=$(inspect plugin --plugin clresample 2>/dev/null | grep -cE '^ *(clresample|clfirfilter|clcrossover):' || true)
  check "the plugin clresample has the three elements ($features)" test "$features" = 3
fi

say "dpkg --purge $pkg"
$sudo dpkg --purge "$pkg" >"$tmp/dpkg-purge.log" 2>&1 && installed=0
status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
check "removed again: no $so, package not installed (${status:-unknown to dpkg})" \
  test ! -e "$so" -a "$installed" = 0 -a "${status:-not-installed}" = not-installed

elapsed=$(( $(date +%s) - start ))
if [ "$fails" -eq 0 ]; then
  say "PASS (${elapsed} s)"
else
  say "FAIL: $fails check(s) failed (${elapsed} s)"
  exit 1
fi
