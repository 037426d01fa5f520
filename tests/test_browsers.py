"""The one Chromium finder (tools/headless_chromium.py) and the rule that keeps browsers out of `make check`.

`make check` runs `-m "not book and not end_to_end"`. The `browser` fixture (tests/conftest.py) marks
every test that asks for it `book`; any other test that tries to launch Chromium fails. This test is
itself unmarked, so it runs under that rule.
"""

from __future__ import annotations

import conftest
import headless_chromium
import pytest
from conftest import make_commands
from playwright.sync_api import BrowserType


def test_an_unmarked_test_that_launches_chromium_fails_before_it_starts():
    with pytest.raises(pytest.fail.Exception, match="not marked `book`"):
        BrowserType.launch(None, headless=True)  # refused before Playwright looks at anything
    with pytest.raises(pytest.fail.Exception, match="not marked `book`"):
        BrowserType.launch_persistent_context(None, "/nonexistent")


class _Item:
    def __init__(self, book: bool):
        self.book = book

    def get_closest_marker(self, name):
        return pytest.mark.book if (name == "book" and self.book) else None


def test_a_book_test_may_launch_and_the_rule_is_lifted_afterwards():
    refusing = BrowserType.launch  # this unmarked test runs under the rule
    with conftest._no_browser_unless_book(_Item(book=False)):
        assert BrowserType.launch is refusing
    with conftest._no_browser_unless_book(_Item(book=True)):
        assert BrowserType.launch is refusing  # nothing is patched again for a marked test
    assert BrowserType.launch is refusing


def test_every_test_asking_for_a_browser_is_marked_book(request):
    """Marked at collection, so `-m "not book"` deselects it before any fixture runs."""
    items = [i for i in request.session.items if "browser" in getattr(i, "fixturenames", ())]
    assert all(i.get_closest_marker("book") for i in items), [
        i.nodeid for i in items if not i.get_closest_marker("book")
    ]


def test_the_finder_honours_chromium_and_says_none_when_there_is_none(tmp_path, monkeypatch):
    fake = tmp_path / "my-chromium"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CHROMIUM", str(fake))
    assert headless_chromium.find_chromium() == str(fake)
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "missing"))
    monkeypatch.setattr(headless_chromium, "SYSTEM_PATHS", ())
    monkeypatch.setenv("PATH", str(tmp_path))
    assert headless_chromium.find_chromium() is None
    fake.chmod(0o644)  # a file that cannot run is no browser
    monkeypatch.setenv("CHROMIUM", str(fake))
    assert headless_chromium.find_chromium() is None


def test_make_check_leaves_out_every_test_marked_book():
    runs = [c for c in make_commands("check") if " -m pytest " in c]
    assert runs and all('-m "not book and not end_to_end"' in c for c in runs), runs
