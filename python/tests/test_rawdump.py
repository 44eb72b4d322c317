import unittest

from rcltools import rawdump
from tests.files import temp_file


def header(**over):
    h = {name: 0 for name, _ in rawdump.HEADER_FIELDS}
    h.update(magic=rawdump.MAGIC, version=rawdump.RAW_VERSION, header_size=rawdump.HEADER.size,
             record_size=rawdump.RECORD.size, sites_per_record=rawdump.SITES, pid=42, ppid=1,
             start_ticks=1000, end_ticks=3000, start_ns=0, end_ns=1000, nkinds=1,
             kind_names=b"big".ljust(16, b"\0") + b"\0" * 48)
    h.update(over)
    return rawdump.HEADER.pack(*(h[name] for name, _ in rawdump.HEADER_FIELDS))


def record(**over):
    r = {name: 0 for name, _ in rawdump.RECORD_FIELDS}
    r.update(over)
    return rawdump.RECORD.pack(*(r[name] for name, _ in rawdump.RECORD_FIELDS))


class RawDumpTest(unittest.TestCase):
    def write(self, data):
        return temp_file(self, data, suffix=".raw")

    def test_round_trip(self):
        exe, maps = b"/bin/prog", b"00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n"
        recs = record(acquisitions=7, site0_pc=0x401000, site0_count=7, site0_kind=1,
                      kind0=5, address=0x601000) + record(acquisitions=1)
        data = header(exe_len=len(exe), maps_len=len(maps), nrecords=2) + exe + maps + recs
        raw = rawdump.parse(self.write(data))
        self.assertEqual((raw["pid"], raw["exe"], raw["maps"]), (42, "/bin/prog", maps.decode()))
        self.assertEqual(raw["ns_per_tick"], 0.5)
        self.assertEqual(raw["kind_names"], ["big"])
        self.assertEqual(len(raw["records"]), 2)
        rec = rawdump.record_dict(raw["records"][0])
        self.assertEqual(rec["acquisitions"], 7)
        self.assertEqual(rec["sites"], [{"pc": 0x401000, "count": 7, "kind": 1}])
        self.assertEqual(rec["hold_ticks_by_kind"], [5, 0, 0, 0])
        self.assertEqual(rec["address"], 0x601000)

    def test_truncated_records_are_dropped(self):
        data = header(nrecords=3) + record(acquisitions=1) + record()[:10]
        self.assertEqual(len(rawdump.parse(self.write(data))["records"]), 1)

    def test_rejects_other_files_and_versions(self):
        with self.assertRaisesRegex(rawdump.RawError, "is not an rcl-prof raw file"):
            rawdump.parse(self.write(b"not a dump"))
        with self.assertRaisesRegex(rawdump.RawError, "raw format version 99 does not match"):
            rawdump.parse(self.write(header(version=99)))

    def test_record_is_64_byte_aligned(self):
        self.assertEqual(rawdump.RECORD.size % 64, 0)
        self.assertIn("record_size %d" % rawdump.RECORD.size, rawdump.layout())


if __name__ == "__main__":
    unittest.main()
