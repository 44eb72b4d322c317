import os
import shutil
import sys
import tempfile
import unittest

from rcltools import compare
from rcltools.ui import Failure


class CompareTest(unittest.TestCase):
    def test_variants_and_their_environment(self):
        groups = compare.split_variants(["--", "A=1", "./p", "-t", "{threads}", "--", "./q"])
        self.assertEqual(groups, [["A=1", "./p", "-t", "{threads}"], ["./q"]])
        v = compare.Variant(groups[0], None)
        self.assertEqual((v.env, v.argv, v.label), ({"A": "1"}, ["./p", "-t", "{threads}"],
                                                    "A=1 p"))
        self.assertEqual(v.command(4), ["./p", "-t", "4"])
        self.assertEqual(v.shell(2), "A=1 ./p -t 2")
        with self.assertRaises(Failure):
            compare.Variant(["A=1"], None)

    def test_result_line_is_the_last_valid_one(self):
        out = 'RCL_RESULT {"throughput_ops_s": 1}\nnoise\nRCL_RESULT {"throughput_ops_s": 2}\n' \
              'RCL_RESULT not json\n'
        self.assertEqual(compare.parse_result(out), {"throughput_ops_s": 2})
        self.assertIsNone(compare.parse_result("RCL_RESULT [1, 2]\n"))

    def test_measure_falls_back_to_wall_time(self):
        with_result = {("a", 1): [{"throughput_ops_s": 5.0}]}
        without = {("a", 1): [{"throughput_ops_s": None}]}
        self.assertEqual(compare.choose_measure(with_result)["key"], "throughput_ops_s")
        self.assertEqual(compare.choose_measure(without)["key"], "wall_s")
        m = compare.choose_measure(with_result, r"(\d+) req/s", lower_is_better=True)
        self.assertEqual((m["key"], m["higher_is_better"]), ("metric", False))

    def test_threads_list(self):
        self.assertEqual(compare.parse_threads("1,2, 4"), [1, 2, 4])
        for bad in ("", "0", "x", "1,5000"):
            with self.assertRaises(Failure):
                compare.parse_threads(bad)

    def test_run_table_and_csv_for_a_program_without_result_line(self):
        """Two real runs of two commands, interleaved; compared by wall time."""
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        py = sys.executable
        fast = compare.Variant([py, "-c", "pass"], "fast")
        slow = compare.Variant([py, "-c", "import time; time.sleep(0.3)"], "slow")
        old_err, sys.stderr = sys.stderr, open(os.devnull, "w")
        try:
            result = compare.run_compare([fast, slow], [1], 2, out, timeout=30)
        finally:
            sys.stderr.close()
            sys.stderr = old_err
        self.assertEqual(result["measure"]["key"], "wall_s")
        rows = {r["variant"]: r for r in result["results"]}
        self.assertEqual(rows["fast"]["vs_first"], 1.0)
        self.assertLess(rows["slow"]["vs_first"], 1.0)  # slower: below 1
        self.assertTrue(all(r["self_check_ok"] for r in result["results"]))
        self.assertEqual(len(os.listdir(os.path.join(out, "runs"))), 4)
        table = compare.compare_table(result)
        self.assertIn("compared by wall time", table)
        self.assertRegex(table, r"slow\s+1\s+0\.[3-9]\d* s")
        lines = compare.compare_csv(result).splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("variant,threads,runs,throughput_ops_s"))


if __name__ == "__main__":
    unittest.main()
