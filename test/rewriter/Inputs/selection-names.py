"""Reads rcl-rewrite --print-selection's JSON on stdin; prints the rule, the selected locks
(with group and share) and the files, one line each."""
import json
import os
import sys

sel = json.load(sys.stdin)
print("rule: %s" % sel["rule"])
print("locks: %s" % ", ".join("%s [%s %.4f]" % (l["name"], l["group"], l["cs_share"])
                              for l in sel["locks"]))
print("files: %s" % ", ".join(os.path.basename(f) for f in sel["files"]))
