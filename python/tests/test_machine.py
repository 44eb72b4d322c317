import json
import unittest

from rcltools import machine

KEYS = {"cpu_model", "cpus", "cores", "memory_gib", "kernel", "os", "hostname"}


class MachineTest(unittest.TestCase):
    def test_one_shape(self):
        m = machine.describe()
        self.assertEqual(set(m), KEYS)
        self.assertGreaterEqual(m["cpus"], 1)
        self.assertTrue(m["cpu_model"])
        json.dumps(m)

    def test_line(self):
        m = {"cpu_model": "CPU X", "cpus": 4, "cores": 2, "memory_gib": 7.7, "kernel": "6.1",
             "os": "Debian GNU/Linux 12 (bookworm)", "hostname": "h"}
        self.assertEqual(machine.line(m), "CPU X, 4 CPUs (2 cores), 7.7 GiB, Linux 6.1, "
                                          "Debian GNU/Linux 12 (bookworm)")
        m.update(cores=None, memory_gib=None, os=None)
        self.assertEqual(machine.line(m), "CPU X, 4 CPUs (cores unknown), ? GiB, Linux 6.1")

    def test_load1(self):
        self.assertGreaterEqual(float(machine.load1()), 0.0)


if __name__ == "__main__":
    unittest.main()
