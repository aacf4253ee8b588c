#!/usr/bin/env python3
"""Fails when a file of the core includes a subsystem above its own.

Usage: check-includes.py [--stamp FILE] CORE_DIR SUBSYSTEM...

The subsystems are named lowest first (gst/core/meson.build: device design
conv resample). A file in CORE_DIR itself (clr-format, clr-log) may include
only the files beside it; a file in a subsystem's folder may include the
files beside it, those of CORE_DIR, and "OTHER/clr-x.h" of a subsystem named
before its own. The build's generated headers (clr-kernel-sources.h, clr-design-hash.h) count
as CORE_DIR's. Every violation is printed as FILE:LINE, then the exit
status is 1. With --stamp, FILE is written when all is well, and FILE.d
names every file and folder read, so that the build runs the check again
when any of them changes.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
GENERATED = {'clr-kernel-sources.h', 'clr-design-hash.h'}


def sources(folder):
  return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                if n.endswith(('.c', '.h')))


def main(argv):
  stamp = None
  if len(argv) > 2 and argv[1] == '--stamp':
    stamp = argv[2]
    argv = argv[2:]
  if len(argv) < 3:
    sys.stderr.write(__doc__)
    return 2
  core, layers = argv[1], argv[2:]
  rank = {name: i + 1 for i, name in enumerate(layers)}
  base = set(os.listdir(core)) | GENERATED
  folders = [core] + [os.path.join(core, name) for name in layers]
  read = list(folders)
  errors = []
  for folder in folders:
    own = os.path.basename(folder) if folder != core else None
    own_rank = rank.get(own, 0)
    beside = set(os.listdir(folder))
    for path in sources(folder):
      read.append(path)
      with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
      for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
          continue
        name = m.group(1)
        where = f'{path}:{number}: #include "{name}"'
        if '/' not in name:
          if name in beside or name in base:
            continue
          errors.append(f'{where}: no such file beside it or in {core}')
          continue
        layer, _, rest = name.partition('/')
        if layer not in rank or '/' in rest:
          errors.append(f'{where}: not a subsystem of the core '
                        f'({", ".join(layers)})')
        elif not os.path.exists(os.path.join(core, name)):
          errors.append(f'{where}: no such file')
        elif layer == own:
          errors.append(f'{where}: a file beside it is included by its '
                        f'name alone')
        elif rank[layer] > own_rank:
          errors.append(f'{where}: {own or "the base"} may not include '
                        f'{layer}, which is above it (lowest first: '
                        f'{", ".join(layers)})')
  for e in errors:
    print(e, file=sys.stderr)
  if errors:
    return 1
  if stamp:
    with open(stamp, 'w') as f:
      f.write('ok\n')
    with open(stamp + '.d', 'w') as f:
      f.write(stamp.replace(' ', '\\ ') + ': '
              + ' '.join(p.replace(' ', '\\ ') for p in read) + '\n')
  return 0


if __name__ == '__main__':
  sys.exit(main(sys.argv))
