"""What the toolkit's command-line programs share to talk to their user: the error a user can
act on (Failure), messages and numbered progress on standard error, files written whole or not
at all, paths shown relative to where the user is."""
import json
import os
import sys
import tempfile

from . import paths


class Failure(Exception):
    """A problem the user can act on: printed as `rcl: MESSAGE`, exit status `status`."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def say(msg=""):
    sys.stdout.write(msg + "\n")
    sys.stdout.flush()


def note(msg):
    sys.stderr.write("rcl: %s\n" % msg)
    sys.stderr.flush()


class Progress:
    """Numbered steps, `[3/7] profiling ./kvstore (5 s)...`, on standard error."""

    def __init__(self, total):
        self.total, self.n = total, 0

    def step(self, what):
        self.n += 1
        sys.stderr.write("[%d/%d] %s\n" % (self.n, self.total, what))
        sys.stderr.flush()


# ---- files: never leave a partial output that looks complete ----

def write_atomic(path, text):
    """Write text to path through a temporary file in the same directory and rename()."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def temp_path_for(path):
    """A fresh temporary name next to path (same file system, so os.replace is atomic)."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    os.close(fd)
    return tmp


def write_json(path, obj):
    text = json.dumps(obj, indent=1) + "\n"
    if path == "-":
        sys.stdout.write(text)
    else:
        write_atomic(path, text)


def resolve_program(name):
    """The path of the program a command starts, or a Failure a shell would also report."""
    try:
        return paths.resolve_program(name)
    except paths.NotRunnable as e:
        raise Failure("cannot run %s: %s" % (e.path, {
            "missing": "no such file (build it first?)", "not-executable":
            "not an executable file", "not-found": "command not found in PATH"}[e.why]), e.status)


def rel(path):
    try:
        r = os.path.relpath(path)
    except ValueError:
        return path
    return os.path.abspath(path) if r.startswith("..") else r
