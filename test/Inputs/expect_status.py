#!/usr/bin/env python3
"""expect_status.py N cmd args...: run cmd; succeed iff it exits with status N (a shell's
convention: 128+S when killed by signal S). Prints the status either way."""
import subprocess
import sys

want = int(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
got = 128 - rc if rc < 0 else rc
print("status %d" % got)
sys.exit(0 if got == want else 1)
