/* Two repairs of what the themes do in the reader's browser (loaded on every page by Jupyter Book,
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
      _ext/plain_titles.py writes at build time (the same conversion as the page titles). */
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

  const ready = (fn) => (document.readyState === "loading"
    ? document.addEventListener("DOMContentLoaded", fn) : fn());
  ready(forwardToggles);
  ready(patchSearchSnippets);
})();
