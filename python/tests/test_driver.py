import os
import shutil
import tempfile
import unittest

from rcltools import driver


class CommandLineTest(unittest.TestCase):
    def test_parse_skips_option_arguments(self):
        args = ["-I", "inc", "-o", "out.c", "a.c", "-x", "c++", "b.c", "x.o", "-lfoo", "-L", "d"]
        sources, inputs = driver.parse(args)
        self.assertEqual([args[i] for i in sources], ["a.c"])
        self.assertEqual([args[i] for i in inputs], ["a.c", "b.c", "x.o"])

    def test_links(self):
        self.assertTrue(driver.links(["a.o", "-o", "p"]))
        self.assertTrue(driver.links(["-shared", "a.o", "-o", "a.so"]))
        for args in (["-c", "a.c"], ["-S", "a.c"], ["-E", "a.c"], ["--version"],
                     ["-print-resource-dir"], ["--help=warnings"], ["-MM", "a.c"]):
            self.assertFalse(driver.links(args), args)


class LinkFlagsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.static = os.path.join(self.dir, "librcl.a")
        self.shared = os.path.join(self.dir, "librcl.so")

    def flags(self, args):
        lib = driver.Librcl(self.static, self.shared, ["-lhwloc"], ["-lhwloc", "-lm", "x.a"])
        return driver.link_flags(args, lib, "/x/bin/rcl-cc")

    def test_shared_by_default_static_for_static_links(self):
        for f in (self.static, self.shared):
            open(f, "w").close()
        wrap = driver.thread_query_wrap()
        self.assertEqual(self.flags(["a.o"]), [self.shared, "-Wl,-rpath," + self.dir, "-lhwloc",
                                               "-lpthread", "-rdynamic"] + wrap)
        self.assertEqual(self.flags(["-shared", "a.o"]),
                         [self.shared, "-Wl,-rpath," + self.dir, "-lhwloc", "-lpthread"] + wrap)
        self.assertEqual(self.flags(["-static", "a.o"]),
                         [self.static, "-lhwloc", "-lm", "x.a", "-lpthread"] + wrap)

    def test_gettid_and_syscall_go_through_librcl_where_sections_run_as_callers(self):
        wrap = driver.thread_query_wrap()
        if os.uname().machine in ("x86_64", "aarch64"):
            self.assertEqual(wrap, ["-Wl,--wrap=gettid,--wrap=syscall,--wrap=prctl"])
        else:
            self.assertEqual(wrap, [])

    def test_libraries_after_a_language_are_linker_inputs(self):
        for f in (self.static, self.shared):
            open(f, "w").close()
        self.assertEqual(self.flags(["-x", "c", "-", "-o", "p"])[:3], ["-x", "none", self.shared])
        self.assertEqual(self.flags(["-xc", "-"])[:2], ["-x", "none"])
        self.assertEqual(self.flags(["-Xlinker", "-q", "a.o"])[0], self.shared)

    def test_missing_library_names_the_tool_and_where_it_looked(self):
        with self.assertRaises(driver.UsageError) as e:
            self.flags(["a.o"])
        self.assertIn("librcl.so not found: " + self.shared, str(e.exception))
        self.assertIn("rcl-cc looks for it relative to itself, in /x/bin", str(e.exception))

    def test_configured_paths_and_no_udev(self):
        lib = driver.Librcl.configured("/x/bin/rcl-cc", "../lib/librcl.a", "../lib/librcl.so",
                                       "-lhwloc", "-lhwloc;-lm;<no-udev>;-lpthread",
                                       "../lib/librcl-no-udev.a")
        self.assertEqual(lib.static, "/x/lib/librcl.a")
        self.assertEqual(lib.hwloc_static_libs, ["-lhwloc", "-lm", "/x/lib/librcl-no-udev.a",
                                                 "-lpthread"])


class ResponseFileTest(unittest.TestCase):
    def test_words_quotes_and_nested_files(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        inner, outer = os.path.join(d, "inner.rsp"), os.path.join(d, "outer.rsp")
        with open(inner, "w") as f:
            f.write("-DX='a b' \"\\q\"\n-c\n")
        with open(outer, "w") as f:
            f.write("a.c @%s -o 'o dir/a.o'" % inner)
        self.assertEqual(driver.expand_response_files(["-O2", "@" + outer, "@missing.rsp"]),
                         ["-O2", "a.c", "-DX=a b", "q", "-c", "-o", "o dir/a.o",
                          "@missing.rsp"])
        self.assertEqual(driver.response_file_words("'' a\\ b \"x'y\""), ["", "a b", "x'y"])


class LanguagesTest(unittest.TestCase):
    def test_sources_by_extension_and_by_x(self):
        args = ["-x", "c", "a.inc", "-x", "none", "b.c", "c.h", "-", "d.o"]
        sources, inputs = driver.parse(args)
        self.assertEqual([args[i] for i in sources], ["a.inc", "b.c"])
        self.assertEqual([args[i] for i in inputs], ["a.inc", "b.c", "c.h", "d.o"])

    def test_only_headers(self):
        self.assertTrue(driver.only_headers(["-x", "c-header", "h.h", "-o", "h.h.gch"]))
        self.assertTrue(driver.only_headers(["h.h", "-o", "h.h.gch"]))
        self.assertFalse(driver.only_headers(["h.h", "a.c"]))
        self.assertFalse(driver.only_headers(["-o", "p"]))


if __name__ == "__main__":
    unittest.main()
