import re
import unittest

from rcltools import measure


class MeasureTest(unittest.TestCase):
    def test_spread(self):
        s = measure.spread([1.0, 3.0, 2.0, None])
        self.assertEqual((s["median"], s["min"], s["max"], s["mean"], s["n"]), (2.0, 1.0, 3.0,
                                                                                2.0, 3))
        self.assertAlmostEqual(s["stdev"], 1.0)
        self.assertAlmostEqual(s["rel_stdev_percent"], 50.0)
        one = measure.spread([5])
        self.assertEqual((one["median"], one["stdev"], one["rel_stdev_percent"]), (5.0, None, None))
        self.assertIsNone(measure.spread([None, True])["median"])

    def test_ratio_is_oriented_so_that_above_one_is_better(self):
        self.assertEqual(measure.ratio(300, 100), 3.0)  # throughput: 3x as many ops/s
        self.assertEqual(measure.ratio(0.5, 2.0, higher_is_better=False), 4.0)  # 4x faster
        self.assertIsNone(measure.ratio(None, 1))
        self.assertIsNone(measure.ratio(1, 0))
        self.assertIsNone(measure.ratio(0, 1, higher_is_better=False))

    def test_metric_value(self):
        text = "warm-up: 10 req/s\nrequests/s: 1,200.5\nrequests/s: 3600\n"
        self.assertEqual(measure.metric_value(text, re.compile(r"requests/s: ([\d.,]+)")), 3600.0)
        self.assertEqual(measure.metric_value(text, re.compile(r"\d+(?= req)")), 10.0)
        self.assertIsNone(measure.metric_value(text, re.compile(r"latency: (\d+)")))
        self.assertIsNone(measure.metric_value("x: abc", re.compile(r"x: (\w+)")))
        with self.assertRaises(ValueError):
            measure.compile_metric("(")


if __name__ == "__main__":
    unittest.main()
