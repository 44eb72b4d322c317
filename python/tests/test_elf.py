import os
import struct
import sys
import unittest

from rcltools import elf
from tests.files import temp_file


def fake_elf(is64, little, sections=(), interp=False):
    """A minimal ELF file: a header, optional program headers (PT_LOAD, PT_INTERP) and
    section headers with a name table."""
    end = "<" if little else ">"
    names = b"\0" + b"".join(n + b"\0" for n in sections) + b".shstrtab\0"
    ehsize = 64 if is64 else 52
    phentsize = 56 if is64 else 32
    shentsize = 64 if is64 else 40
    phdrs = [(elf.PT_LOAD, 0, 0x400000, 0x1000)] + ([(elf.PT_INTERP, 0x200, 0, 0x1c)]
                                                    if interp else [])
    phoff = ehsize
    stroff = phoff + phentsize * len(phdrs)
    shoff = stroff + len(names)
    nsec = len(sections) + 2  # null section, the named ones, .shstrtab
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 1 if little else 2, 1]) + b"\0" * 9
    if is64:
        head = ident + struct.pack(end + "HHIQQQIHHHHHH", 2, 62, 1, 0, phoff, shoff, 0, ehsize,
                                   phentsize, len(phdrs), shentsize, nsec, nsec - 1)
    else:
        head = ident + struct.pack(end + "HHIIIIIHHHHHH", 2, 3, 1, 0, phoff, shoff, 0, ehsize,
                                   phentsize, len(phdrs), shentsize, nsec, nsec - 1)
    body = b""
    for p_type, off, vaddr, memsz in phdrs:
        if is64:
            body += struct.pack(end + "IIQQQQQQ", p_type, 5, off, vaddr, vaddr, memsz, memsz, 8)
        else:
            body += struct.pack(end + "8I", p_type, off, vaddr, vaddr, memsz, memsz, 5, 4)
    body += names
    name_offsets = [0]
    pos = 1
    for n in sections:
        name_offsets.append(pos)
        pos += len(n) + 1
    name_offsets.append(pos)
    for i, n in enumerate(name_offsets):
        is_strtab = i == nsec - 1
        off, size = (stroff, len(names)) if is_strtab else (0, 0)
        if is64:
            body += struct.pack(end + "IIQQQQIIQQ", n, 3 if is_strtab else 1, 0, 0, off, size,
                                0, 0, 1, 0)
        else:
            body += struct.pack(end + "10I", n, 3 if is_strtab else 1, 0, 0, off, size,
                                0, 0, 1, 0)
    return head + body


class ElfTest(unittest.TestCase):
    def write(self, data):
        return temp_file(self, data)

    def test_debug_info_in_every_class_and_byte_order(self):
        for is64 in (True, False):
            for little in (True, False):
                with self.subTest(is64=is64, little=little):
                    with_debug = self.write(fake_elf(is64, little, (b".text", b".debug_info")))
                    without = self.write(fake_elf(is64, little, (b".text",)))
                    self.assertIs(elf.has_debug_info(with_debug), True)
                    self.assertIs(elf.has_debug_info(without), False)

    def test_load_segments_and_interpreter(self):
        for is64 in (True, False):
            static = self.write(fake_elf(is64, True))
            dynamic = self.write(fake_elf(is64, True, interp=True))
            self.assertEqual(elf.load_segments(static), [(0x400000, 0, 0x1000)])
            self.assertFalse(elf.has_interp(static))
            self.assertTrue(elf.has_interp(dynamic))

    def test_not_elf(self):
        script = self.write(b"#!/bin/sh\nexit 0\n")
        self.assertIsNone(elf.has_debug_info(script))
        self.assertIsNone(elf.load_segments(script))
        self.assertTrue(elf.has_interp(script))  # a script: cannot judge, assume dynamic
        self.assertIsNone(elf.has_debug_info("/no/such/file"))

    def test_symbols_among_string_tables(self):
        # A name found NUL-terminated in a string table, a longer name's tail too (a superset:
        # never a symbol missed); an LTO object or a file that is no ELF cannot be read.
        for is64 in (True, False):
            obj = self.write(fake_elf(is64, True, (b".text", b"pthread_mutex_lock",
                                                   b"my_pthread_mutex_unlock")))
            self.assertEqual(elf.symbols_among(obj, ["pthread_mutex_lock", "pthread_mutex_unlock",
                                                     "pthread_mutex_trylock", "pthread_mutex"]),
                             {"pthread_mutex_lock", "pthread_mutex_unlock"})
            self.assertEqual(elf.symbols_among(obj, ["lk_take"]), set())
        lto = self.write(fake_elf(True, True, (b".text", b".gnu.lto_.symtab.0")))
        self.assertIsNone(elf.symbols_among(lto, ["pthread_mutex_lock"]))
        self.assertIsNone(elf.symbols_among(self.write(b"BC\xc0\xde...."), ["x"]))
        self.assertIsNone(elf.symbols_among("/no/such/file", ["x"]))

    def test_this_python(self):
        exe = os.path.realpath(sys.executable)
        self.assertTrue(elf.load_segments(exe))
        self.assertIn(elf.has_debug_info(exe), (True, False))


if __name__ == "__main__":
    unittest.main()
