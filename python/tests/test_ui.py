import os
import shutil
import tempfile
import unittest

from rcltools import ui


class UiTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_write_atomic_replaces_whole_and_leaves_no_temporary(self):
        path = os.path.join(self.dir, "sub", "out.txt")
        ui.write_atomic(path, "one\n")
        ui.write_atomic(path, "two\n")
        with open(path) as f:
            self.assertEqual(f.read(), "two\n")
        self.assertEqual(os.listdir(os.path.dirname(path)), ["out.txt"])

    def test_failed_write_keeps_the_old_file(self):
        path = os.path.join(self.dir, "out.txt")
        ui.write_atomic(path, "kept\n")
        with self.assertRaises(TypeError):
            ui.write_atomic(path, 42)  # not text: the write fails after the temporary exists
        with open(path) as f:
            self.assertEqual(f.read(), "kept\n")
        self.assertEqual(os.listdir(self.dir), ["out.txt"])

    def test_missing_program_is_a_failure_with_the_shell_status(self):
        with self.assertRaises(ui.Failure) as e:
            ui.resolve_program(os.path.join(self.dir, "nothing-here"))
        self.assertIn("no such file", str(e.exception))
        self.assertEqual(e.exception.status, 127)

    def test_rel_is_relative_below_the_working_directory_only(self):
        self.assertEqual(ui.rel(os.path.join(os.getcwd(), "a", "b")), os.path.join("a", "b"))
        self.assertEqual(ui.rel("/"), "/" if os.getcwd() != "/" else ".")


if __name__ == "__main__":
    unittest.main()
