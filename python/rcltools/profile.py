"""profile.json, the profile rcl-prof writes and rcl, rcl-cc and rcl-rewrite read
(docs/profile-json.md): its schema, reading it, and the advice rcl-prof gives each lock."""
import json
import os

SCHEMA = "rcl-profile/1"
DEFAULT_THRESHOLDS = {"convert_cs_percent": 15.0, "borderline_cs_percent": 5.0,
                      "min_acquisitions": 100, "source": "default"}


class ProfileError(Exception):
    """A profile or thresholds file that cannot be used. unreadable: the file could not be
    read at all (as opposed to read and found wrong)."""

    def __init__(self, message, unreadable=False):
        super().__init__(message)
        self.unreadable = unreadable


def load(path):
    """The profile at path, checked to be one rcl-prof wrote; raises ProfileError."""
    try:
        with open(path) as f:
            prof = json.load(f)
    except OSError as e:
        raise ProfileError("cannot read the profile %s: %s" % (path, e.strerror), True)
    except ValueError as e:
        raise ProfileError("%s is not a profile.json: %s" % (path, e))
    if not isinstance(prof, dict) or not str(prof.get("schema", "")).startswith("rcl-profile/"):
        raise ProfileError("%s is not a profile.json written by rcl-prof (no \"schema\": "
                           "\"%s\")" % (path, SCHEMA))
    return prof


def site_known(site):
    """Whether a call site has a file:line (the program had debug info there)."""
    return bool(site.get("file")) and site.get("file") != "?" and site.get("line", 0) > 0


def thresholds_path():
    """Where calibrated thresholds live: $RCL_PROF_THRESHOLDS, else
    ~/.config/rcl/thresholds.json."""
    return os.environ.get("RCL_PROF_THRESHOLDS") or os.path.join(
        os.path.expanduser("~"), ".config", "rcl", "thresholds.json")


def load_thresholds(explicit=None):
    """The thresholds of the advice: explicit file, else thresholds_path() when it exists,
    else DEFAULT_THRESHOLDS. Raises ProfileError for a file that is missing (explicit) or
    not usable."""
    path = explicit or thresholds_path()
    if not os.path.exists(path):
        if explicit:
            raise ProfileError("thresholds file %s does not exist" % explicit, True)
        return dict(DEFAULT_THRESHOLDS)
    try:
        with open(path) as f:
            t = json.load(f)
        return {"convert_cs_percent": float(t["convert_cs_percent"]),
                "borderline_cs_percent": float(t["borderline_cs_percent"]),
                "min_acquisitions": int(t.get("min_acquisitions",
                                              DEFAULT_THRESHOLDS["min_acquisitions"])),
                "source": os.path.abspath(path)}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ProfileError("thresholds file %s is not usable: %s" % (path, e))


def recommend(cs_percent, acquisitions, thresholds):
    """rcl-prof's advice for one lock: "convert", "borderline" or "dont"."""
    if acquisitions < thresholds["min_acquisitions"]:
        return "dont"  # start-up or one-off locks: delegation cannot pay for its set-up
    if cs_percent >= thresholds["convert_cs_percent"]:
        return "convert"
    if cs_percent >= thresholds["borderline_cs_percent"]:
        return "borderline"
    return "dont"
