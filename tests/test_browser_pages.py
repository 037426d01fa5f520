"""Every page of the built book, opened one by one in headless Chromium (see test_browser.py).

The checks are test_browser.py's `check_page`; they sit in a file of their own so that `make test`
(pytest-xdist, one file per worker) runs them on one core while the other runs test_browser.py's
sweep of every page in three views.
"""

from __future__ import annotations

import pytest
from test_browser import PAGES, anchors, browser, check_page, server  # noqa: F401 (fixtures)


@pytest.mark.parametrize("docname", PAGES)
def test_page_in_a_real_browser(docname, built_book, server, browser, anchors):  # noqa: F811
    check_page(docname, built_book, server, browser, anchors)
