"""What tests/test_browser.py measures in each page beyond what it checks by eye: the JavaScript
probes, the rules they apply, and the helpers that run axe-core and count bytes.

The rules, in one place:

- Display equation cut: a typeset display equation (MathJax's <mjx-math>) wider than the box it
  has in the text column (its div.math, less the equation number) by more than 1 px. Scrolling
  does not excuse it: a reader on a phone should see the whole formula.
- Table cut: a table wider than its box, unless that box scrolls sideways, shows the scroll cue
  (class scroll-cue: _static/phone.css fades the edge where more is hidden) and is
  keyboard-focusable (tabindex >= 0). On
  paper nothing scrolls, so there every table wider than its box is cut.
- Printed table wrapped: a cell's printed output (a <pre> in div.cell_output) whose rows are meant
  to line up, and one of whose lines is wider than the box, so that at 390 px it wraps (the book
  wraps long printed lines rather than cut them). Rows are meant to line up when the printout has
  at least two lines that look like rows of a table (ALIGNED_ROW: a column gap of two or more
  spaces between two non-blank characters, or a numpy/torch array row such as "[[0.1 0.2]" or
  " [0.3 0.4]]") and such rows are at least half of its non-blank lines. Anything else is prose
  (a sentence, a checker's hint, a message) and may wrap.
- axe-core (axe_playwright_python's bundled copy, pinned in requirements.txt): every rule with
  the tags wcag2a, wcag2aa, wcag21a or wcag21aa, the experimental ones included, in each view
  (at 1280 px the article's colour contrast is left to the 390 px views, which have the same
  colours; code text's contrast is checked on one element for each look it has on the page, see
  CODE_LOOKS; the 390 px dark view runs the rules that judge colours, and every rule when its
  visible elements are not the light view's): every violation, by rule, with the elements.
- Page weight: bytes received (as Chromium counts them, headers included, uncompressed as the
  test server sends them) for a page on a fresh profile, and new bytes for the next page in the
  same browser (the HTTP cache warm).
- On paper (print media at the width of an A4 page's text, 190 mm = 718 px): no navigation
  chrome and no control visible, and every equation, figure, table and printout whole (not wider
  than its box; figures, equations, tables and printouts are kept from splitting across pages).
"""

from __future__ import annotations

import re

#: the WCAG 2.0 and 2.1 levels A and AA
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: a printed line that is a row of a table (see the module's docstring)
ALIGNED_ROW = r"\S {2,}\S|^\s*(?:\w+\()?\[+\s*[-+]?(?:\d|nan|inf)"
#: the text width of an A4 page with 10 mm margins, in CSS px (190 mm at 96 px per inch)
PRINT_WIDTH = 718


def axe_source() -> str:
    """axe.min.js as shipped inside the pinned axe-playwright-python package (no network)."""
    from importlib.resources import files

    return files("axe_playwright_python").joinpath("axe.min.js").read_text(encoding="utf-8")


def axe_version(source: str) -> str:
    found = re.search(r"axe v([\d.]+)", source[:200])
    return found.group(1) if found else "?"


EQUATIONS = """() => {
    const out = [];
    const items = (window.MathJax && MathJax.startup && MathJax.startup.document)
        ? Array.from(MathJax.startup.document.math) : [];
    for (const item of items) {
        if (!item.display || !item.typesetRoot) continue;
        const container = item.typesetRoot;
        if (!container.checkVisibility()) continue;
        const math = container.querySelector('mjx-math');
        const box = container.closest('div.math') || container.parentElement;
        if (!math || !box) continue;
        const style = getComputedStyle(box);
        let have = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const eqno = box.querySelector(':scope > .eqno');
        if (eqno && eqno.checkVisibility()) have -= eqno.getBoundingClientRect().width + parseFloat(style.columnGap || 0);
        const need = math.getBoundingClientRect().width;
        const section = container.closest('section[id]');
        out.push({need: Math.round(need), have: Math.round(have), tex: item.math.trim().replace(/\\s+/g, ' ').slice(0, 90),
                  where: section ? '#' + section.id : ''});
    }
    return out;
}"""

TABLES = """(printing) => {
    const out = [];
    const article = document.querySelector('article.bd-article');
    if (!article) return out;
    for (const table of article.querySelectorAll('table')) {
        if (!table.checkVisibility() || table.closest('mjx-container')) continue;
        let box = null;
        for (let el = table.parentElement; el && el !== article; el = el.parentElement) {
            if (getComputedStyle(el).overflowX !== 'visible') { box = el; break; }
        }
        if (!box && getComputedStyle(table).overflowX !== 'visible') box = table;
        const need = table.scrollWidth;
        const have = box ? box.clientWidth : article.clientWidth;
        const scrolls = !!box && /(auto|scroll)/.test(getComputedStyle(box).overflowX);
        const first = table.querySelector('th, td');
        const section = table.closest('section[id]');
        out.push({need, have, scrolls, focusable: !!box && box.tabIndex >= 0,
                  cue: !!box && box.classList.contains('scroll-cue') &&
                       [getComputedStyle(box).maskImage, getComputedStyle(box).webkitMaskImage]
                           .some(m => m && m !== 'none'),
                  label: (first ? first.textContent : table.textContent).trim().replace(/\\s+/g, ' ').slice(0, 40),
                  where: section ? '#' + section.id : ''});
    }
    return out;
}"""

PRINTOUTS = """(rowPattern) => {
    const row = new RegExp(rowPattern);
    const out = [];
    for (const pre of document.querySelectorAll('article.bd-article div.cell_output pre, article.bd-article div.output pre')) {
        if (!pre.checkVisibility()) continue;
        const lines = pre.textContent.split('\\n').filter(l => l.trim());
        const rows = lines.filter(l => row.test(l)).length;
        const aligned = rows >= 2 && rows * 2 >= lines.length;
        const saved = [pre.style.whiteSpace, pre.style.overflowWrap];
        pre.style.whiteSpace = 'pre';
        pre.style.overflowWrap = 'normal';
        const need = pre.scrollWidth, have = pre.clientWidth;
        [pre.style.whiteSpace, pre.style.overflowWrap] = saved;
        const longest = lines.reduce((a, b) => b.length > a.length ? b : a, '');
        const section = pre.closest('section[id]');
        out.push({aligned, need, have, chars: longest.length, first: lines.length ? lines[0].trim().slice(0, 60) : '',
                  where: section ? '#' + section.id : ''});
    }
    return out;
}"""

#: One element for each look that code text has on the page: its colour, size, weight and shadow, and the
#: colour behind it. axe-core's colour-contrast rule reads each text element's colours from the page, so two
#: code tokens that look alike pass or fail alike; a long chapter has about 1,400 highlighted tokens in a few
#: dozen looks, and checking every token took three quarters of a phone view's time. Visible elements only:
#: axe-core does not check hidden ones either.
CODE_LOOKS = """() => {
    const behind = el => {
        for (; el; el = el.parentElement) {
            const s = getComputedStyle(el);
            if (s.backgroundImage !== 'none' || !/rgba\\(.*, 0\\)$|transparent/.test(s.backgroundColor))
                return `${s.backgroundColor} ${s.backgroundImage}`;
        }
        return 'page';
    };
    const looks = new Map();
    for (const el of document.querySelectorAll('.highlight, .highlight *')) {
        const text = Array.from(el.childNodes).some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        if (!text || !el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
        const s = getComputedStyle(el);
        const look = [s.color, s.fontSize, s.fontWeight, s.textShadow, s.opacity, behind(el)].join('|');
        if (!looks.has(look)) looks.set(look, el);
    }
    return Array.from(looks.values());
}"""

#: axe-core's rules with these tags on the page, by name, so that the ones axe marks experimental run too
#: (among them label-content-name-mismatch, WCAG 2.5.3 Label in Name, which a run by tag skips); in one run
#: (each run of axe-core first reads the whole page again), for one of three looks at it. "phone": every rule; colour contrast everywhere, code text on one
#: element per look (CODE_LOOKS, marked data-axe-look). "desktop": the same, but no colour contrast in the
#: article, left to the 390 px views, which have the same colours. "colours": only the rules that judge colours
#: (COLOUR_RULES), as "phone" does, for a dark view whose visible elements are its light view's (VISIBLE):
#: every other rule reads the same page there and was run in the light view.
AXE_RUN = (
    """async ([tags, look, colourRules]) => {
    let where = ':not(article.bd-article):not(article.bd-article *)';
    if (look !== 'desktop') {
        ("""
    + CODE_LOOKS
    + """)().forEach(el => el.setAttribute('data-axe-look', ''));
        where = ':not(.highlight):not(.highlight *), [data-axe-look]';
    }
    axe.configure({rules: [{id: 'color-contrast', selector: where}]});
    const values = axe.getRules(tags).map(r => r.ruleId).filter(r => look !== 'colours' || colourRules.includes(r));
    const {violations} = await axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'rule', values}});
    document.querySelectorAll('[data-axe-look]').forEach(el => el.removeAttribute('data-axe-look'));
    return violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => {
        const data = (n.any.concat(n.all, n.none).find(c => c.data && c.data.contrastRatio) || {}).data;
        return {target: n.target.join(' '), html: n.html.slice(0, 160),
                contrast: data ? `${data.fgColor} on ${data.bgColor}: ${data.contrastRatio}:1 (needs ${data.expectedContrastRatio})` : ''};
    })}));
}"""
)

#: the rules of AXE_TAGS that judge colours: text against its background, a link against the text around it
COLOUR_RULES = ["color-contrast", "link-in-text-block"]

#: which elements of the page are visible, one character each in document order, after their count: the same
#: string in a light and a dark view means the same page to every rule but COLOUR_RULES
VISIBLE = """() => { const all = document.querySelectorAll('body *');
    return all.length + ':' + Array.from(all, el =>
        el.checkVisibility({opacityProperty: true, visibilityProperty: true}) ? '1' : '0').join(''); }"""


def axe_args(look: str) -> list:
    """AXE_RUN's arguments for one look ("desktop", "phone" or "colours")."""
    return [AXE_TAGS, look, COLOUR_RULES]


#: what must not show on paper: the theme's navigation chrome, and any control
PRINT_CHROME = (
    ".bd-header, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary, .prev-next-area, "
    ".bd-footer, .bd-footer-article, #pst-back-to-top, #pst-skip-link, .search-button, "
    ".theme-switch-button"
)
PRINT_CONTROLS = (
    "button, input, select, textarea, [role=button], [role=slider], .toggle-button, .copybtn, "
    ".sd-summary-up, .sd-summary-down"
)

PRINT_REPORT = """([chrome, controls]) => {
    const shown = sel => Array.from(document.querySelectorAll(sel)).filter(el => el.checkVisibility())
        .map(el => `<${el.tagName.toLowerCase()}${el.id ? ' id=' + el.id : ''} class="${String(el.className.baseVal ?? el.className).slice(0, 50)}">`);
    const article = document.querySelector('article.bd-article');
    const bad = [];
    if (article) {
        const right = article.getBoundingClientRect().right + 1;
        for (const fig of article.querySelectorAll('img, .attnfig svg')) {
            if (!fig.checkVisibility()) continue;
            const r = fig.getBoundingClientRect();
            const name = (fig.getAttribute('src') || fig.getAttribute('class') || '').split('/').pop().slice(0, 40);
            if (r.right > right) bad.push(`figure ${name} runs ${Math.round(r.right - right)} px past the text`);
            let el = fig.parentElement;
            for (; el && el !== article; el = el.parentElement) {
                if (getComputedStyle(el).overflowX !== 'visible' && el.clientWidth + 1 < r.width) {
                    bad.push(`figure ${name} is cut by its box (${Math.round(r.width - el.clientWidth)} px)`); break;
                }
            }
            const keep = fig.closest('figure, div.cell_output, .attnfig svg') || fig;
            if (!/avoid/.test(getComputedStyle(keep).breakInside) && !/avoid/.test(getComputedStyle(fig).breakInside))
                bad.push(`figure ${name} may split across pages (break-inside is not avoid)`);
        }
        for (const sel of ['div.math', 'table', 'div.cell_output pre']) {
            for (const el of article.querySelectorAll(sel)) {
                if (!el.checkVisibility()) continue;
                if (!/avoid/.test(getComputedStyle(el).breakInside))
                    bad.push(`${sel} "${el.textContent.trim().slice(0, 30)}" may split across pages`);
            }
        }
        for (const pre of article.querySelectorAll('div.cell_output pre')) {
            if (pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1 && getComputedStyle(pre).overflowX !== 'visible')
                bad.push(`printout "${pre.textContent.trim().slice(0, 30)}" is cut (${pre.scrollWidth - pre.clientWidth} px)`);
        }
    }
    return {chrome: shown(chrome), controls: shown(controls), bad};
}"""


def start_counting_bytes(context, page) -> dict:
    """Count the bytes Chromium receives for page from now on (CDP Network.loadingFinished)."""
    tally = {"bytes": 0, "requests": 0, "cached": 0}
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": False})

    def finished(event):
        tally["bytes"] += int(event.get("encodedDataLength", 0))
        tally["requests"] += 1

    def from_cache(_event):
        tally["cached"] += 1

    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.requestServedFromCache", from_cache)
    tally["session"] = cdp
    return tally
