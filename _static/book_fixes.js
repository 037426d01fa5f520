/* Repairs of what the themes do in the reader's browser (loaded on every page by Jupyter Book,
   which includes every .js file of _static/). Checked by tests/test_browser.py.

   1. The menu buttons. pydata-sphinx-theme 0.17 puts its own ☰ and contents buttons in the page
      header (hidden by sphinx-book-theme 1.3), and both themes bind their click handlers to the
      FIRST `.primary-toggle` / `.secondary-toggle` of the page: that hidden pair. The buttons the
      reader sees (in the article header) were never bound, so ☰ did nothing on a phone and did not
      collapse the sidebar on a desktop (pydata-sphinx-theme issue 2451). Here a tap on a visible
      button is handed to the bound one, so the themes' own code runs: on a phone the chapter list
      or the page contents open as a dialog; on a wide screen ☰ hides and shows the sidebar.

   2. Search result snippets. Sphinx's search cuts each snippet from the page's HTML, where the math
      is still raw TeX, "\(\sqrt{d_k}\)"; MathJax never sees it there. Before the text is taken, each
      math element is replaced by its Unicode form ("√dₖ") from window.TEX_UNICODE, which
      _ext/plain_titles.py writes at build time (the same conversion as the page titles).

   3. Names that say what the reader sees. pydata-sphinx-theme labels its search field button
      aria-label="Search", while the button shows "Search Ctrl+K" (the shortcut hint is
      discussed in pydata-sphinx-theme issue 1499), and myst-nb labels its "Show code cell
      source" toggle "Toggle hidden content": a speech-input user who says what they see does
      not match the name (WCAG 2.5.3 Label in Name, axe rule label-content-name-mismatch).
      Without the aria-label, each control's name is its visible text. Sphinx's module index
      is a layout table without headers (axe rule td-has-header): it is marked presentational.

   4. Boxes that scroll sideways. A display equation, table or printed output wider than the
      column scrolls inside its own box. pydata-sphinx-theme makes code blocks, outputs and its
      table wrappers keyboard-focusable when they overflow (pull requests 1777 and 1903), but not
      MathJax's equation boxes (compare jupyter-book/myst-theme issue 858), and a box scrolled
      by touch alone shows nothing of what lies past its edge. Here every box in the article
      that scrolls sideways gets tabindex="0", role="region" and a name ("Equation, scrolls
      sideways"), so Tab reaches it and the arrow keys scroll it (axe rule
      scrollable-region-focusable), and the class scroll-cue, which phone.css draws as a shaded
      edge on the side where more is hidden. Checked again after MathJax typesets and on resize. */
(() => {
  "use strict";

  function forwardToggles() {
    for (const selector of [".primary-toggle", ".secondary-toggle"]) {
      const buttons = Array.from(document.querySelectorAll(selector));
      const bound = buttons[0];
      for (const button of buttons.slice(1)) {
        button.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopPropagation();
          button.blur();
          bound.click();
        });
      }
    }
  }

  function stripTex(tex) {
    return tex.replace(/\\[a-zA-Z]+\s*/g, "").replace(/[{}]/g, "").replace(/\\./g, "");
  }

  function mathAsUnicode(el) {
    const tex = el.textContent.trim().replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "").trim();
    const table = window.TEX_UNICODE || {};
    return tex in table ? table[tex] : stripTex(tex);
  }

  function patchSearchSnippets() {
    // searchtools.js declares `const Search` (a global binding, not a property of window)
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.plainMath) return;
    const original = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll("span.math, div.math").forEach((el) => {
        el.textContent = mathAsUnicode(el);
      });
      return original(doc.documentElement.outerHTML, anchor);
    };
    Search.htmlToText.plainMath = true;
  }

  function nameControlsByTheirText() {
    // pydata-sphinx-theme's search field button, and myst-nb's "Show code cell source" summary
    // (aria-label "Toggle hidden content"): the name becomes what the reader sees
    for (const el of document.querySelectorAll(".search-button-field[aria-label], details.hide > summary[aria-label]")) {
      if (el.textContent.replace(/\s+/g, " ").trim()) el.removeAttribute("aria-label");
    }
    // Sphinx's module index lays out its letters and modules in a table without headers
    for (const table of document.querySelectorAll("table.modindextable")) table.setAttribute("role", "presentation");
  }

  const SCROLLERS = "div.math, mjx-container[display='true'], .pst-scrollable-table-container, " +
    "div.cell_output pre, div.output pre, div.highlight pre, div.cell_output div, table";

  function kindOf(box) {
    if (box.closest("div.math")) return "Equation";
    if (box.matches("table") || box.querySelector("table")) return "Table";
    if (box.closest("div.cell_output, div.output")) return "Printed output";
    return "Code";
  }

  function markScrollBoxes() {
    const article = document.querySelector("article.bd-article");
    if (!article) return;
    for (const box of article.querySelectorAll(SCROLLERS)) {
      const scrolls = /(auto|scroll)/.test(getComputedStyle(box).overflowX) &&
        box.scrollWidth > box.clientWidth;
      const ours = box.dataset.scrollCue === "1";
      if (scrolls) {
        box.classList.add("scroll-cue");
        box.classList.toggle("scrolled-to-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
        if (ours) continue;
        box.dataset.scrollCue = "1";
        if (box.tabIndex < 0) box.tabIndex = 0;
        // MathJax's own box keeps its name (the formula, read by MathJax's assistive MathML),
        // and a table keeps its table role
        if (!box.matches("table, mjx-container")) {
          if (!box.hasAttribute("role")) box.setAttribute("role", "region");
          if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", `${kindOf(box)}, scrolls sideways`);
        }
        box.addEventListener("scroll", () => box.classList.toggle(
          "scrolled-to-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1), {passive: true});
      } else if (ours || box.classList.contains("scroll-cue")) {
        box.classList.remove("scroll-cue", "scrolled-to-end");
      }
    }
  }

  function watchScrollBoxes() {
    // again whenever the article's content changes (MathJax typesets it after the page has loaded,
    // loading its components one by one) and when the window is resized
    let timer = null;
    const later = () => { clearTimeout(timer); timer = setTimeout(markScrollBoxes, 100); };
    window.addEventListener("resize", later);
    const article = document.querySelector("article.bd-article");
    if (article) new MutationObserver(later).observe(article, {childList: true, subtree: true});
    markScrollBoxes();
  }

  const ready = (fn) => (document.readyState === "loading"
    ? document.addEventListener("DOMContentLoaded", fn) : fn());
  ready(forwardToggles);
  ready(patchSearchSnippets);
  ready(nameControlsByTheirText);
  ready(watchScrollBoxes);
})();
