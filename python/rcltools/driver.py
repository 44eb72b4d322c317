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
            "--param", "-T", "-u", "-z", "-aux-info", "--sysroot", "-dumpdir", "-dumpbase",
            "-dumpbase-ext", "-MJ"}
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


def response_file_words(text):
    """The words of a response file as GCC (libiberty's buildargv) and clang (LLVM's GNU
    tokenizer) read them: white space separates words, single and double quotes group, and a
    backslash takes the next character as it is, inside quotes too."""
    words, word, quote, escaped, started = [], [], None, False, False
    for c in text:
        if escaped:
            word.append(c)
            escaped = False
        elif c == "\\":
            escaped = started = True
        elif quote:
            if c == quote:
                quote = None
            else:
                word.append(c)
        elif c in "'\"":
            quote, started = c, True
        elif c.isspace():
            if started:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(c)
            started = True
    if started:
        words.append("".join(word))
    return words


def expand_response_files(args, limit=64):
    """args with every `@file` replaced by the words of that file (response_file_words; a file
    may name another @file). An @file that cannot be read stays as it is (the compilers take it
    as an input file name then)."""
    out = []
    for a in args:
        if a.startswith("@") and len(a) > 1 and limit > 0:
            try:
                with open(a[1:], errors="surrogateescape") as f:
                    words = response_file_words(f.read())
            except OSError:
                out.append(a)
                continue
            out += expand_response_files(words, limit - 1)
        else:
            out.append(a)
    return out


# The languages of input files by extension (the compilers' own table, for what rcl-cc tells
# apart: C sources, headers, and everything else).
HEADER_LANGUAGES = {"c-header", "c++-header", "objective-c-header", "objective-c++-header",
                    "cpp-output-header"}
EXTENSION_LANGUAGES = {".c": "c", ".h": "c-header", ".hh": "c++-header", ".hpp": "c++-header",
                       ".hxx": "c++-header", ".H": "c++-header"}


def languages(args):
    """[(index, language)] of every input of the command: the language -x gave it (the last -x
    before it), else its extension's (None for objects, libraries and other files the linker
    takes). Standard input (`-`) is an input too."""
    out, i, language = [], 0, None
    while i < len(args):
        a = args[i]
        if a in WITH_ARG:
            if a == "-x":
                language = args[i + 1] if i + 1 < len(args) else None
            i += 2
            continue
        if a.startswith("-x") and len(a) > 2:
            language = a[2:]
        elif a == "-" or not a.startswith("-"):
            given = language if language not in (None, "none") else None
            out.append((i, given or EXTENSION_LANGUAGES.get(os.path.splitext(a)[1])))
        i += 1
    return out


def parse(args):
    """The indices of the C sources (files, not standard input) and of every input file
    (sources, objects, libraries)."""
    found = languages(args)
    sources = [i for i, language in found if language == "c" and args[i] != "-"]
    return sources, [i for i, _ in found if args[i] != "-"]


def only_headers(args):
    """Whether every input of the command is a header: it makes precompiled headers, no link."""
    found = languages(args)
    return bool(found) and all(language in HEADER_LANGUAGES for _, language in found)


def only_asks(args):
    """Whether the command asks the compiler something (preprocess, dependencies, version,
    search paths, help) instead of compiling or linking: it goes to the real compiler as is."""
    return any(a in QUESTIONS or a.startswith(("-print-", "--help")) for a in args)


def links(args):
    """Whether the command links (neither a question nor -c, -S, -E)."""
    return not only_asks(args) and not any(a in ("-c", "-S") for a in args)


class Librcl:
    """Where an installation's librcl is and what a link of it needs: the configured paths of
    librcl.a and librcl.so, the hwloc libraries of a dynamic link and of a -static one
    (`pkg-config --static --libs hwloc`, with librcl-no-udev.a for -ludev where the system has
    no libudev.a: runtime/static/no_udev.c)."""

    def __init__(self, static, shared, hwloc_libs, hwloc_static_libs):
        self.static, self.shared = static, shared
        self.hwloc_libs, self.hwloc_static_libs = hwloc_libs, hwloc_static_libs

    @classmethod
    def configured(cls, script, static, shared, hwloc_libs, hwloc_static_libs, no_udev):
        """The Librcl of a tool's configured values: paths relative to the tool's directory,
        CMake lists (`;`-separated), `<no-udev>` standing for librcl-no-udev.a."""
        def words(text):
            return [a for a in text.split(";") if a]
        static_libs = [paths.beside(script, no_udev) if a == "<no-udev>" else a
                       for a in words(hwloc_static_libs)]
        return cls(paths.beside(script, static), paths.beside(script, shared),
                   words(hwloc_libs) or ["-lhwloc"], static_libs or ["-lhwloc"])


def thread_query_wrap():
    """The program's gettid(), syscall() and prctl() go to librcl's (runtime/src/caller.c, "The
    caller's thread id and name"), which answer a section run on a server as its caller with its
    caller's kernel thread id and name, and are the C library's calls everywhere else: where
    librcl can run a section as its caller (x86-64, AArch64). rcl-rewrite
    --librcl-thread-queries counts on it."""
    if os.uname().machine in ("x86_64", "aarch64"):
        return ["-Wl,--wrap=gettid,--wrap=syscall,--wrap=prctl"]
    return []


def link_flags(args, lib, script):
    """librcl for a link: the shared one (with an rpath to it), so that an executable and every
    converted shared library it loads share one runtime, one set of servers; a -static link
    cannot load shared libraries and takes librcl.a with hwloc's static dependencies.
    Executables that load shared objects get -rdynamic (the runtime finds locks by name). The
    flags act on the link alone: a command that also compiles (`cc a.c -o prog`) compiles as
    it would without them, so the threads library is -lpthread, not -pthread (which defines
    _REENTRANT, and a precompiled header made without it is refused). The program's gettid,
    syscall and prctl go through librcl (thread_query_wrap). They come after the command's own words, where
    a `-x LANGUAGE` of the command would still apply: `-x none` first lets the compiler tell
    them by their names again."""
    head = ["-x", "none"] if any(a == "-x" or (a.startswith("-x") and len(a) > 2)
                                 for a in args) else []
    if "-static" in args:
        return head + [need(lib.static, "librcl.a", script)] + lib.hwloc_static_libs + \
            ["-lpthread"] + thread_query_wrap()
    shared = need(lib.shared, "librcl.so", script)
    flags = head + [shared, "-Wl,-rpath," + os.path.dirname(shared)] + lib.hwloc_libs
    return flags + ["-lpthread"] + ([] if "-shared" in args else ["-rdynamic"]) + \
        thread_query_wrap()


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
