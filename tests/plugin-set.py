#!/usr/bin/env python3
"""Makes the folder of system GStreamer plugins the tests may load.

Usage: plugin-set.py SYSTEM_PLUGIN_DIR OUT_DIR STAMP NAME [NAME ...]

The tests point GST_PLUGIN_SYSTEM_PATH_1_0 at OUT_DIR, which holds symbolic
links to just the plugins they use (libgstNAME.so), so their registry, what
autoplugging can pick and the memory layout the sanitizer pass sees are the
same on a bare machine and on a desktop with plugins-bad, libav and the rest
installed. A missing plugin is reported here by name; the tests that need it
then fail with GStreamer's own "no element" error.
"""
import os
import sys


def main():
    system_dir, out_dir, stamp = sys.argv[1:4]
    names = sys.argv[4:]
    os.makedirs(out_dir, exist_ok=True)
    wanted = set()
    missing = []
    for name in names:
        lib = "libgst%s.so" % name
        src = os.path.join(system_dir, lib)
        if not os.path.exists(src):
            missing.append(name)
            continue
        wanted.add(lib)
        dst = os.path.join(out_dir, lib)
        if os.path.islink(dst) and os.readlink(dst) == src:
            continue
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(src, dst)
    # a plugin dropped from the list leaves the set too
    for lib in os.listdir(out_dir):
        if lib not in wanted:
            os.unlink(os.path.join(out_dir, lib))
    if missing:
        print("plugin-set.py: warning: no %s in %s; the tests that use them "
              "will fail (install gstreamer1.0-plugins-base and "
              "gstreamer1.0-plugins-good)" % (", ".join(missing), system_dir),
              file=sys.stderr)
    with open(stamp, "w") as f:
        f.write("\n".join(sorted(wanted)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
