#!/usr/bin/python3
"""Names and counts the stacks bench/clr-wallprof.c wrote.

    wallprof-report.py [--lib-dir DIR ...] [--plugin SO] [--top N]
                       [--timeline NAME,...] FILE...

Each sample is one thread's stack at one instant. A stack is summed up as
its innermost frame, the first frame outside libc (the call that waits or
works) and the clresample functions it is inside. Frames of the plugin are
named by addr2line from --plugin (default build/gst/libgstclresample.so:
the same build as ran); other libraries by their nearest exported symbol,
looked up in the --lib-dir folders (default the system's; on the GPU
machine's samples, also the unpacked .gpu-bundle debs), so a static
function shows as the exported one before it (GLib's mutex slow path as
the symbol before it, for instance). Prints the share of all samples of
each summary, largest first.

With --timeline, prints instead, for each round of samples (every thread
once: CLR_WALLPROF_US apart, 10 ms by default, in the order taken), how
many threads had each NAME among their frames' names (the first NAME that
matches counts), and how many had none: where a run's time went, start-up
included (docs/performance.md, "A fresh process's start"). One FILE."""
import argparse
import bisect
import collections
import os
import subprocess

PLUGIN_NAME = "libgstclresample.so"


def exported_symbols(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path],
                         capture_output=True, text=True).stdout
    table = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TtWi":
            table.append((int(f[0], 16), f[2]))
    table.sort()
    return table


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--lib-dir", action="append", default=[])
    ap.add_argument("--plugin", default="build/gst/libgstclresample.so")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--timeline", default="",
                    help="comma-separated names to count by round")
    args = ap.parse_args()
    lib_dirs = args.lib_dir + ["/usr/lib/x86_64-linux-gnu",
                               "/lib/x86_64-linux-gnu",
                               "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"]

    samples, tids = [], []
    for fn in args.files:
        with open(fn) as f:
            for line in f:
                fields = line.split()
                if len(fields) > 1:
                    tids.append(fields[0])
                    samples.append([fr.rpartition("+") for fr in fields[1:]])

    # the plugin's frames, named at once by addr2line (return address - 1)
    offsets = sorted({o for s in samples for m, _, o in s if m == PLUGIN_NAME})
    plugin_names = {}
    if offsets:
        out = subprocess.run(
            ["addr2line", "-f", "-e", args.plugin]
            + [hex(int(o, 16) - 1) for o in offsets],
            capture_output=True, text=True).stdout.splitlines()
        plugin_names = {o: out[2 * i] for i, o in enumerate(offsets)}

    tables = {}

    def name(module, offset):
        if module == PLUGIN_NAME:
            return plugin_names.get(offset, "?")
        if module not in tables:
            path = next((os.path.join(d, module) for d in lib_dirs
                         if os.path.exists(os.path.join(d, module))), None)
            tables[module] = exported_symbols(path) if path else []
        table = tables[module]
        i = bisect.bisect_right(table, (int(offset, 16), "~")) - 1 \
            if offset else -1
        short = module.split(".so")[0]
        return short + ":" + (table[i][1].split("@")[0] if i >= 0 else "?")

    if args.timeline:
        wanted = args.timeline.split(",")
        print("round " + " ".join("%12s" % w[:12] for w in wanted + ["none"]))
        seen, row, r = set(), collections.Counter(), 0

        def flush():
            print("%5d " % r + " ".join("%12d" % row[w]
                                         for w in wanted + ["none"]))

        for tid, s in zip(tids, samples):
            if tid in seen:
                flush()
                seen, row, r = set(), collections.Counter(), r + 1
            seen.add(tid)
            joined = " ".join(name(m, o) for m, _, o in s)
            row[next((w for w in wanted if w in joined), "none")] += 1
        flush()
        return

    counts = collections.Counter()
    for s in samples:
        names = [name(m, o) for m, _, o in s]
        ours = [n for (m, _, o), n in zip(s, names) if m == PLUGIN_NAME]
        first_outside_libc = next(
            (n for n in names if not n.startswith("libc")), "?")
        counts[(names[0] if names else "?", first_outside_libc,
                " < ".join(ours[:4]) or "-")] += 1
    total = sum(counts.values())
    print("%d samples; innermost frame | first outside libc | clresample "
          "functions, innermost first" % total)
    for (leaf, call, ours), n in counts.most_common(args.top):
        print("%5.1f%% %7d  %s | %s | %s" % (100.0 * n / total, n, leaf,
                                             call, ours))


if __name__ == "__main__":
    main()
