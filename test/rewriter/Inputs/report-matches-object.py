#!/usr/bin/env python3
"""report-matches-object.py REPORT_DIR OBJECT: the sections rcl-cc's reports count as
converted must be the outlined functions (rcl_cs_*) in the compiled object, no more, no less.
Prints both numbers; exits 1 when they differ."""
import glob
import json
import os
import subprocess
import sys

reports = glob.glob(os.path.join(sys.argv[1], "*.json"))
converted = sum(json.load(open(r))["converted"] for r in reports)
nm = subprocess.run(["nm", sys.argv[2]], stdout=subprocess.PIPE, text=True, check=True).stdout
outlined = sum(1 for line in nm.splitlines()
               if line.split()[-1].startswith("rcl_cs_") and line.split()[-2] in "tT")
print("report: %d converted, object: %d outlined" % (converted, outlined))
sys.exit(0 if reports and converted == outlined else 1)
