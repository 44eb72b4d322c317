#!/usr/bin/env python3
"""make_compile_db.py BUILD_DIR CC FLAGS... -- FILE.c...: write BUILD_DIR/compile_commands.json
with one `CC FLAGS -c FILE.c` entry per file, as CMake or bear would."""
import json
import os
import sys

build, cc = sys.argv[1], sys.argv[2]
sep = sys.argv.index("--")
flags, files = sys.argv[3:sep], sys.argv[sep + 1:]
os.makedirs(build, exist_ok=True)
entries = [{"directory": os.path.abspath(build), "file": os.path.abspath(f),
            "arguments": [cc] + flags + ["-c", os.path.abspath(f)]} for f in files]
with open(os.path.join(build, "compile_commands.json"), "w") as out:
    json.dump(entries, out, indent=1)
