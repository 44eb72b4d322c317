import unittest

from rcltools import fmt


class FmtTest(unittest.TestCase):
    def test_ns(self):
        self.assertEqual(fmt.ns(None), "-")
        self.assertEqual(fmt.ns(812), "812 ns")
        self.assertEqual(fmt.ns(3400), "3.40 us")
        self.assertEqual(fmt.ns(1250000), "1.25 ms")
        self.assertEqual(fmt.ns(2e9), "2000.00 ms")

    def test_ns_report_style(self):
        # rcl-prof's report: one decimal, up to seconds
        self.assertEqual(fmt.ns(2e9, digits=1, seconds=True), "2.0 s")
        self.assertEqual(fmt.ns(3400, digits=1, seconds=True), "3.4 us")
        self.assertEqual(fmt.ns(0, digits=1, seconds=True), "0 ns")

    def test_rate(self):
        self.assertEqual(fmt.rate(None), "-")
        self.assertEqual(fmt.rate(950), "950")
        self.assertEqual(fmt.rate(812000), "812.00 k")
        self.assertEqual(fmt.rate(1.25e6), "1.25 M")
        self.assertEqual(fmt.rate(3e9), "3.00 G")


if __name__ == "__main__":
    unittest.main()
