import os
import stat
import tempfile
import unittest

from rcltools import paths


class ResolveProgramTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(self.dir))

    def make(self, name, mode):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(p, mode)
        return p

    def test_with_a_slash(self):
        exe = self.make("prog", 0o755)
        self.assertEqual(paths.resolve_program(exe), exe)
        with self.assertRaises(paths.NotRunnable) as e:
            paths.resolve_program(os.path.join(self.dir, "missing"))
        self.assertEqual((e.exception.status, e.exception.why), (127, "missing"))
        with self.assertRaises(paths.NotRunnable) as e:
            paths.resolve_program(self.make("text", 0o644))
        self.assertEqual((e.exception.status, e.exception.why), (126, "not-executable"))
        with self.assertRaises(paths.NotRunnable) as e:
            paths.resolve_program(self.dir + "/")
        self.assertEqual(e.exception.status, 126)

    def test_in_path_like_a_shell(self):
        other = tempfile.mkdtemp()
        self.addCleanup(os.rmdir, other)
        exe = self.make("prog", 0o755)
        self.assertEqual(paths.resolve_program("prog", other + ":" + self.dir), exe)
        with self.assertRaises(paths.NotRunnable) as e:
            paths.resolve_program("nope", self.dir)
        self.assertEqual((e.exception.status, e.exception.why), (127, "not-found"))
        self.make("plain", stat.S_IRUSR | stat.S_IWUSR)
        with self.assertRaises(paths.NotRunnable) as e:
            paths.resolve_program("plain", self.dir)
        self.assertEqual((e.exception.status, e.exception.why), (126, "not-executable"))


class BesideTest(unittest.TestCase):
    def test_relative_to_the_real_place(self):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        os.makedirs(os.path.join(d, "prefix", "bin"))
        tool = os.path.join(d, "prefix", "bin", "tool")
        open(tool, "w").close()
        link = os.path.join(d, "tool-link")
        os.symlink(tool, link)
        want = os.path.join(os.path.realpath(d), "prefix", "lib", "x.so")
        self.assertEqual(paths.beside(tool, "../lib/x.so"), want)
        self.assertEqual(paths.beside(link, "../lib/x.so"), want)
        self.assertEqual(paths.beside(tool, ""), "")


if __name__ == "__main__":
    unittest.main()
