"""What the toolkit needs to know of an ELF file, read from its headers (ELF32 and ELF64,
either byte order): whether it has debug info (call sites have file:line), its PT_LOAD
segments (addresses to module offsets) and whether it has a program interpreter (LD_PRELOAD
can reach it)."""
import struct

PT_LOAD, PT_INTERP = 1, 3
SHT_SYMTAB, SHT_STRTAB, SHT_DYNAMIC, SHT_DYNSYM = 2, 3, 6, 11
ET_EXEC, ET_DYN = 2, 3
STT_FUNC = 2
DT_NEEDED, DT_SONAME = 1, 14


class Elf:
    """The headers of one ELF file; open() returns None for a file that is not ELF."""

    def __init__(self, path, head):
        self.path = path
        self.is64 = head[4] == 2
        self.end = "<" if head[5] == 1 else ">"
        if self.is64:
            self.phoff, self.shoff = struct.unpack_from(self.end + "QQ", head, 0x20)
            (self.phentsize, self.phnum, self.shentsize, self.shnum,
             self.shstrndx) = struct.unpack_from(self.end + "5H", head, 0x36)
        else:
            self.phoff, self.shoff = struct.unpack_from(self.end + "II", head, 0x1C)
            (self.phentsize, self.phnum, self.shentsize, self.shnum,
             self.shstrndx) = struct.unpack_from(self.end + "5H", head, 0x2A)

    @classmethod
    def open(cls, path):
        try:
            with open(path, "rb") as f:
                head = f.read(64)
        except OSError:
            return None
        if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
            return None
        if head[4] == 2 and len(head) < 64:
            return None
        try:
            return cls(path, head)
        except struct.error:
            return None

    def _read(self, offset, size):
        with open(self.path, "rb") as f:
            f.seek(offset)
            return f.read(size)

    def program_headers(self):
        """[(p_type, p_offset, p_vaddr, p_memsz)] of every program header."""
        if not self.phoff or not self.phnum:
            return []
        table = self._read(self.phoff, self.phentsize * self.phnum)
        out = []
        for i in range(self.phnum):
            if self.is64:
                p_type, _, off, vaddr, _, _, memsz, _ = struct.unpack_from(
                    self.end + "IIQQQQQQ", table, i * self.phentsize)
            else:
                p_type, off, vaddr, _, _, memsz, _, _ = struct.unpack_from(
                    self.end + "8I", table, i * self.phentsize)
            out.append((p_type, off, vaddr, memsz))
        return out

    def sections(self):
        """[(name (bytes), sh_type, sh_offset, sh_size)] of every section, in order."""
        if not self.shoff or self.shstrndx >= self.shnum:
            return []
        table = self._read(self.shoff, self.shentsize * self.shnum)
        fmt = self.end + ("IIQQQQ" if self.is64 else "IIIIII")

        def header(i):
            name, sh_type, _flags, _addr, off, size = struct.unpack_from(fmt, table,
                                                                         i * self.shentsize)
            return name, sh_type, off, size
        _, _, stroff, strsize = header(self.shstrndx)
        names = self._read(stroff, strsize)
        out = []
        for i in range(self.shnum):
            n, sh_type, off, size = header(i)
            out.append((names[n:names.find(b"\0", n)], sh_type, off, size))
        return out

    def e_type(self):
        with open(self.path, "rb") as f:
            f.seek(16)
            return struct.unpack(self.end + "H", f.read(2))[0]

    def section_headers(self):
        """[(sh_type, sh_offset, sh_size, sh_link, sh_entsize)] of every section, in order."""
        if not self.shoff or not self.shnum:
            return []
        table = self._read(self.shoff, self.shentsize * self.shnum)
        fmt = self.end + ("IIQQQQIIQQ" if self.is64 else "10I")
        out = []
        for i in range(self.shnum):
            _, sh_type, _, _, off, size, link, _, _, entsize = struct.unpack_from(
                fmt, table, i * self.shentsize)
            out.append((sh_type, off, size, link, entsize))
        return out

    def section_names(self):
        """The names of the sections (bytes), in order."""
        return [s[0] for s in self.sections()]


def has_debug_info(path):
    """True/False for an ELF file with/without a .debug_info section; None if not ELF."""
    elf = Elf.open(path)
    if elf is None:
        return None
    try:
        return any(n in (b".debug_info", b".zdebug_info") for n in elf.section_names())
    except (OSError, struct.error):
        return None


def load_segments(path):
    """[(vaddr, offset, memsz)] of the PT_LOAD segments, or None if path is not ELF."""
    elf = Elf.open(path)
    if elf is None:
        return None
    try:
        return [(vaddr, off, memsz) for p_type, off, vaddr, memsz in elf.program_headers()
                if p_type == PT_LOAD]
    except (OSError, struct.error):
        return None


def has_interp(path):
    """Whether a program is dynamically linked (has PT_INTERP); True when it is not ELF (a
    script, or something else we cannot judge)."""
    elf = Elf.open(path)
    if elf is None:
        return True
    try:
        return any(p[0] == PT_INTERP for p in elf.program_headers())
    except (OSError, struct.error):
        return True


def symbols_among(path, names):
    """Which of `names` an object file (a compiler's output) may have a symbol of, defined or
    used: those found NUL-terminated in its string tables. A superset: a name stored as the tail
    of a longer one, or a section's name, is found too, and no symbol of the object is missed,
    for every symbol's name ends in a string table. None when the file is not ELF or its code
    is LTO IR (GCC's -flto objects keep their symbols in their IR sections), so its symbols
    cannot be read here."""
    elf = Elf.open(path)
    if elf is None:
        return None
    try:
        sections = elf.sections()
        if any(n.startswith((b".gnu.lto_", b".llvm.lto", b".gnu.debuglto_")) for n, _, _, _ in
               sections):
            return None
        tables = [elf._read(off, size) for _, sh_type, off, size in sections
                  if sh_type == SHT_STRTAB]
    except (OSError, struct.error):
        return None
    if not tables:
        return None
    return {n for n in names if any(n.encode() + b"\0" in t for t in tables)}


def linked_artifact(path):
    """For an executable or a shared library (not an object file): (the functions it defines,
    from .symtab, or .dynsym when it is stripped, as (name, whether its binding is global or
    weak); its soname or None; the sonames it needs). None for anything else."""
    elf = Elf.open(path)
    if elf is None:
        return None
    try:
        if elf.e_type() not in (ET_EXEC, ET_DYN):
            return None
        headers = elf.section_headers()
        kinds = {h[0] for h in headers}
        wanted = SHT_SYMTAB if SHT_SYMTAB in kinds else SHT_DYNSYM
        functions = set()
        soname, needed = None, []
        for sh_type, off, size, link, entsize in headers:
            if sh_type not in (wanted, SHT_DYNAMIC) or not entsize or link >= len(headers):
                continue
            data = elf._read(off, size)
            strings = elf._read(headers[link][1], headers[link][2])

            def text(at):
                return strings[at:strings.find(b"\0", at)].decode("utf-8", "replace")
            if sh_type == SHT_DYNAMIC:
                fmt = elf.end + ("qQ" if elf.is64 else "iI")
                for i in range(size // entsize):
                    tag, val = struct.unpack_from(fmt, data, i * entsize)
                    if tag == DT_NEEDED:
                        needed.append(text(val))
                    elif tag == DT_SONAME:
                        soname = text(val)
                continue
            for i in range(size // entsize):
                if elf.is64:
                    name, info, _, shndx = struct.unpack_from(elf.end + "IBBH", data, i * entsize)
                else:
                    name, _, _, info, _, shndx = struct.unpack_from(elf.end + "IIIBBH", data,
                                                                    i * entsize)
                if info & 0xF == STT_FUNC and shndx != 0:
                    functions.add((text(name), info >> 4 != 0))
        return functions, soname, needed
    except (OSError, struct.error, IndexError):
        return None
