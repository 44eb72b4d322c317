"""Finding programs: the program a command names (as a shell does) and a tool's siblings (the
files of its own tree, configured relative to the tool's directory so a moved install tree
still works)."""
import os


class NotRunnable(Exception):
    """A command a shell could not start: status 127 (missing) or 126 (not executable).
    `why` is 'missing', 'not-found' (not in PATH) or 'not-executable'; `path` what was tried."""

    def __init__(self, status, why, path):
        super().__init__("%s: %s" % (path, why))
        self.status, self.why, self.path = status, why, path


def resolve_program(name, path_env=None):
    """The path of the program `name` starts, looked up like a POSIX shell does: a name with a
    slash as it is, otherwise the first executable file of that name in PATH (a file found
    there that is not executable only counts when nothing else is). Raises NotRunnable."""
    if "/" in name:
        if not os.path.exists(name):
            raise NotRunnable(127, "missing", name)
        if os.path.isdir(name) or not os.access(name, os.X_OK):
            raise NotRunnable(126, "not-executable", name)
        return name
    if path_env is None:
        path_env = os.environ.get("PATH", "/usr/bin:/bin")
    denied = None
    for d in path_env.split(":"):
        p = os.path.join(d or ".", name)
        if os.path.isfile(p):
            if os.access(p, os.X_OK):
                return p
            denied = denied or p
    if denied:
        raise NotRunnable(126, "not-executable", denied)
    raise NotRunnable(127, "not-found", name)


def beside(script, relative):
    """A path configured relative to the directory of `script` (its real path: a symbolic link
    to a tool still finds the tool's own tree); "" stays "" (not in this installation)."""
    if not relative:
        return ""
    return os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(script)), relative))
