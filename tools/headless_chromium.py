"""Where the system Chromium is: the one finder the tests' browser and tools/build_pdf.py share.

`$CHROMIUM` first, then Debian's `chromium` (apt-get install -y chromium), then whatever `chromium`
or `chromium-browser` is on PATH. Playwright drives it; no browser is downloaded. Standard library
only, so the tests (tests/conftest.py puts tools/ on the path) and the PDF build import it without
importing attnlib.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

#: where Debian puts the binary, and its launcher script
SYSTEM_PATHS = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")


def find_chromium() -> str | None:
    """The path of an executable Chromium, or None when there is none."""
    for candidate in (
        os.environ.get("CHROMIUM"),
        *SYSTEM_PATHS,
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


#: what every test says when there is none
MISSING = "headless Chromium not found ($CHROMIUM, /usr/lib/chromium/chromium, /usr/bin/chromium, `chromium` on PATH); install it with `apt-get install -y chromium`"
