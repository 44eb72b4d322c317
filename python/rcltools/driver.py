"""What the compiler drivers rcl-cc (CC) and rcl-c++ (CXX) share: reading a command line (its
input files, whether it only asks the compiler something), finding the files of the tool's own
tree, and how a link takes librcl.

rcl-cc converts C files and links librcl into every link; rcl-c++ converts nothing and adds
librcl to a link whose objects call into it (the C objects rcl-cc converted): both link it
the same way, here."""
import os

from . import paths

# Options that take a separate argument: never mistake that argument for an input file.
WITH_ARG = {"-o", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-idirafter",
            "-iquote", "-iprefix", "-isysroot", "-MF", "-MT", "-MQ", "-x", "-L", "-l",
            "-Xlinker", "-Xpreprocessor", "-Xassembler", "-Xclang", "-arch", "-target",
            "--param", "-T", "-u", "-z", "-aux-info", "--sysroot"}
# Options that make the command a question to the compiler or a step without a link.
QUESTIONS = {"-E", "-M", "-MM", "-fsyntax-only", "--version", "-v", "-dumpversion",
             "-dumpmachine", "-print-search-dirs", "-print-resource-dir"}


class UsageError(Exception):
    """A wrong setting or a missing tool: reported as one error line, nothing is compiled."""


def need(path, what, script):
    """path when it exists (a bare name: found in PATH), else a UsageError naming it and where
    `script` (the tool's own file) looked for it."""
    if "/" not in path:
        try:
            return paths.resolve_program(path)
        except paths.NotRunnable:
            raise UsageError("%s not found: %s is not in PATH" % (what, path))
    if not os.path.exists(path):
        raise UsageError("%s not found: %s (%s looks for it relative to itself, in %s; "
                         "an incomplete install?)" % (what, path, os.path.basename(script),
                                                      os.path.dirname(os.path.realpath(script))))
    return path


def parse(args):
    """The indices of the C sources and of every input file (sources, objects, libraries)."""
    sources, inputs, i = [], [], 0
    language = None
    while i < len(args):
        a = args[i]
        if a in WITH_ARG:
            if a == "-x":
                language = args[i + 1] if i + 1 < len(args) else None
            i += 2
            continue
        if a.startswith("-x") and len(a) > 2:
            language = a[2:]
        elif not a.startswith("-"):
            inputs.append(i)
            if a.endswith(".c") and language in (None, "c", "none"):
                sources.append(i)
        i += 1
    return sources, inputs


def only_asks(args):
    """Whether the command asks the compiler something (preprocess, dependencies, version,
    search paths, help) instead of compiling or linking: it goes to the real compiler as is."""
    return any(a in QUESTIONS or a.startswith(("-print-", "--help")) for a in args)


def links(args):
    """Whether the command links (neither a question nor -c, -S, -E)."""
    return not only_asks(args) and not any(a in ("-c", "-S") for a in args)


def link_flags(args, static_lib, shared_lib, hwloc_libs, script):
    """librcl for a link: the shared one (with an rpath to it), so that an executable and every
    converted shared library it loads share one runtime, one set of servers; a -static link
    cannot load shared libraries and takes librcl.a. Executables get -rdynamic (the runtime
    finds locks by name)."""
    if "-static" in args:
        return [need(static_lib, "librcl.a", script)] + hwloc_libs + ["-pthread", "-rdynamic"]
    shared = need(shared_lib, "librcl.so", script)
    flags = [shared, "-Wl,-rpath," + os.path.dirname(shared)] + hwloc_libs
    return flags + ["-pthread"] + ([] if "-shared" in args else ["-rdynamic"])


# The first bytes of the files whose symbols a link takes: ELF objects, archives, LLVM bitcode
# (-flto objects, which llvm-nm reads).
LINKED_MAGIC = (b"\x7fELF", b"!<arch>\n", b"BC\xc0\xde")


def symbol_reader():
    """The nm to read symbols with: llvm-nm-19 (it reads -flto bitcode too) when in PATH,
    else binutils' nm (which clang-19 depends on)."""
    for name in ("llvm-nm-19", "nm"):
        try:
            return paths.resolve_program(name)
        except paths.NotRunnable:
            pass
    raise UsageError("no nm in PATH (llvm-nm-19 or binutils' nm) to read the link's objects")


def rcl_reference(files, nm=None):
    """The first rcl_* symbol that the objects and archives among `files` use and none of them
    defines (the link then needs librcl), or None. Files that are no object, archive or
    bitcode (sources, linker scripts) and files nm cannot read are skipped; a shared library
    is read like an object (a converted one that rcl-cc linked names librcl.so itself, and
    adding it again is harmless)."""
    import subprocess
    used, defined = [], set()
    for f in files:
        try:
            with open(f, "rb") as fh:
                head = fh.read(8)
        except OSError:
            continue
        if not head.startswith(LINKED_MAGIC):
            continue
        out = subprocess.run([nm or symbol_reader(), "-g", "-P", f], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, errors="replace")
        for line in out.stdout.splitlines():
            # POSIX format: "name type [value size]"; an archive's members start "lib.a[x.o]:".
            fields = line.split()
            if len(fields) < 2 or not fields[0].startswith("rcl_"):
                continue
            if fields[1] == "U":
                used.append(fields[0])
            elif fields[1] not in ("w", "v"):
                defined.add(fields[0])
    return next((s for s in used if s not in defined), None)
