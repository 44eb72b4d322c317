import json
import os
import unittest

from rcltools import profile
from tests.files import temp_file


class ProfileTest(unittest.TestCase):
    def write(self, text):
        return temp_file(self, text, suffix=".json")

    def test_load(self):
        p = self.write(json.dumps({"schema": profile.SCHEMA, "locks": []}))
        self.assertEqual(profile.load(p)["locks"], [])
        for text, unreadable in (("{not json", False), ('{"schema": "other/1"}', False),
                                 ("[]", False)):
            with self.subTest(text=text):
                with self.assertRaises(profile.ProfileError) as e:
                    profile.load(self.write(text))
                self.assertEqual(e.exception.unreadable, unreadable)
        with self.assertRaises(profile.ProfileError) as e:
            profile.load("/no/such/profile.json")
        self.assertTrue(e.exception.unreadable)
        self.assertIn("cannot read the profile /no/such/profile.json", str(e.exception))

    def test_site_known(self):
        self.assertTrue(profile.site_known({"file": "a.c", "line": 3}))
        self.assertFalse(profile.site_known({"file": None, "line": 0}))
        self.assertFalse(profile.site_known({"file": "?", "line": 3}))
        self.assertFalse(profile.site_known({"file": "a.c", "line": 0}))

    def test_recommend(self):
        th = profile.DEFAULT_THRESHOLDS
        self.assertEqual(profile.recommend(15.0, 100, th), "convert")
        self.assertEqual(profile.recommend(14.9, 100, th), "borderline")
        self.assertEqual(profile.recommend(5.0, 100, th), "borderline")
        self.assertEqual(profile.recommend(4.9, 100, th), "dont")
        self.assertEqual(profile.recommend(90.0, 99, th), "dont")  # too few acquisitions

    def test_thresholds(self):
        old = os.environ.pop("RCL_PROF_THRESHOLDS", None)
        self.addCleanup(lambda: old is None or os.environ.__setitem__("RCL_PROF_THRESHOLDS", old))
        os.environ["RCL_PROF_THRESHOLDS"] = "/no/such/thresholds.json"
        self.assertEqual(profile.load_thresholds(), profile.DEFAULT_THRESHOLDS)
        p = self.write('{"convert_cs_percent": 20, "borderline_cs_percent": 8}')
        t = profile.load_thresholds(p)
        self.assertEqual((t["convert_cs_percent"], t["borderline_cs_percent"],
                          t["min_acquisitions"], t["source"]), (20.0, 8.0, 100, p))
        with self.assertRaises(profile.ProfileError):
            profile.load_thresholds("/no/such/explicit.json")
        with self.assertRaises(profile.ProfileError):
            profile.load_thresholds(self.write('{"convert_cs_percent": 20}'))


if __name__ == "__main__":
    unittest.main()
