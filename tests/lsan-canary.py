#!/usr/bin/env python3
"""Proves that the sanitizer pass's leak check is alive.

Usage: lsan-canary.py TEST-LEAK-CANARY

Runs the canary (a real clresample pipeline, then one block of 4242 bytes
lost on purpose) with the environment the sanitizer pass gives every test,
and passes only if LeakSanitizer reported exactly that block as a direct
leak from the canary's main(), and the process failed because of it. A leak
check that stopped working (a tracer crash, detect_leaks=0, a suppression
that swallows everything) fails this test instead of passing quietly.
"""
import subprocess
import sys

proc = subprocess.run([sys.argv[1]], stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT, text=True, timeout=300)
out = proc.stdout
print(out)
problems = []
if "canary: lost 4242 bytes on purpose" not in out:
    problems.append("the canary did not get as far as its leak")
if "Tracer caught signal" in out or "LeakSanitizer has encountered a fatal" \
        in out:
    problems.append("LeakSanitizer itself crashed")
report = [l for l in out.splitlines() if l.startswith("Direct leak of ")]
if report != ["Direct leak of 4242 byte(s) in 1 object(s) allocated from:"]:
    problems.append("expected exactly one direct leak of 4242 bytes, got %r"
                    % report)
elif "in main " not in out.split(report[0], 1)[1].split("\n\n", 1)[0]:
    problems.append("the leak's stack does not reach the canary's main()")
if proc.returncode == 0:
    problems.append("the process exited 0 despite the leak")
for p in problems:
    print("lsan-canary: FAIL: " + p)
if not problems:
    print("lsan-canary: LeakSanitizer found the planted leak and nothing "
          "else")
sys.exit(1 if problems else 0)
