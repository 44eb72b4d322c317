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
        return driver.link_flags(args, self.static, self.shared, ["-lhwloc"], "/x/bin/rcl-cc")

    def test_shared_by_default_static_for_static_links(self):
        for f in (self.static, self.shared):
            open(f, "w").close()
        self.assertEqual(self.flags(["a.o"]), [self.shared, "-Wl,-rpath," + self.dir, "-lhwloc",
                                               "-pthread", "-rdynamic"])
        self.assertEqual(self.flags(["-shared", "a.o"])[-1], "-pthread")
        self.assertEqual(self.flags(["-static", "a.o"]),
                         [self.static, "-lhwloc", "-pthread", "-rdynamic"])

    def test_missing_library_names_the_tool_and_where_it_looked(self):
        with self.assertRaises(driver.UsageError) as e:
            self.flags(["a.o"])
        self.assertIn("librcl.so not found: " + self.shared, str(e.exception))
        self.assertIn("rcl-cc looks for it relative to itself, in /x/bin", str(e.exception))


if __name__ == "__main__":
    unittest.main()
