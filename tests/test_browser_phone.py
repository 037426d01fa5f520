"""Every page of the built book on a 390 px phone, light and dark, in headless Chromium.

The checks are tests/test_browser.py's (its docstring lists them); this module runs them again on the
phone views, and adds the one check that only a phone needs: printed tables whose rows must line up
do not wrap. It is a file of its own so that `make test` (pytest-xdist, one file per worker) sweeps
the phone on one core while tests/test_browser.py sweeps the desktop on the other.
"""

from __future__ import annotations

from test_browser import (  # noqa: F401 (fixtures and tests, run here on the phone views)
    CHROMIUM_FLAGS,
    PHONE,
    _where,
    anchors,
    measured,
    reader_views,
    server,
    test_axe_finds_no_wcag_violation,
    test_no_display_equation_is_wider_than_its_box,
    test_no_table_is_cut_without_a_scroll_cue,
    test_the_reader_view_of_every_page,
)

#: the views this module sweeps (test_browser.SWEEPS)
SWEEP = "phone"


def test_no_printed_table_wraps_on_a_phone(measured):  # noqa: F811 (the fixture)
    printouts = [(d, tag, p) for d, tag, p in measured["printouts"] if tag.startswith(str(PHONE["width"]))]
    aligned = [(d, tag, p) for d, tag, p in printouts if p["aligned"]]
    wrapped = {(d, p["where"], p["first"]): (d, p) for d, tag, p in aligned if p["need"] > p["have"] + 1}
    widest = max((p["chars"] for _d, _t, p in aligned), default=0)
    print(
        f"\n{len(printouts) // 2} printouts per phone view, {len(aligned) // 2} with aligned rows "
        f"(longest row {widest} characters); {len(wrapped)} wrap at {PHONE['width']} px"
    )
    report = [
        f"{d} ({_where(p)}): {p['chars']} characters, {p['need']} px in a {p['have']} px box: {p['first']!r}"
        for d, p in wrapped.values()
    ]
    for line in report:
        print(f"  {line}")
    assert not report, (
        f"{len(report)} printed table(s) wrap at {PHONE['width']} px (rows no longer line up):\n  "
        + "\n  ".join(report)
    )
