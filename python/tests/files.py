"""What several unit tests need: a temporary file with given contents, removed after the test."""
import os
import tempfile


def temp_file(test, data, suffix=""):
    """Write data (str or bytes) to a new temporary file, removed when `test` ends; its path."""
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    test.addCleanup(os.unlink, path)
    return path
