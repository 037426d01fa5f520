// The whole book as one HTML document, for tools/build_pdf.py to print (headless Chromium).
// Called as assemble(book) in an empty page served from the built HTML's root, where `book` is
// {title, version, web, parts: [{caption, docs: [docname, ...]}, ...]}. It fetches every
// page, takes its <article>, and makes it printable in one document:
//   - every id is prefixed with its page's key ("chapters--09_softmax--exercises"), and every link
//     to a page of the book points to that id, so Chromium's print makes the links internal;
//   - Recall answers (<details>) and solutions (sphinx-exercise) move to the end of their chapter,
//     each linked from its question and back;
//   - a live figure prints its starting picture, without controls, and says the web page is live;
//   - what is true only on the web page ("click to compare") says what is true on paper.
// wrapLongLines() and emptyLiveFigures(), below, are called on the typeset book.
// It returns what the outline and the tests need: each page's title, number and sections.

// sentences that are true only on the web page, and what they say on paper: [pattern, replacement]
// (matched in the HTML of a paragraph or list item; "" drops the element)
const PRINT_WORDING = [
  [/<a [^>]*href="[^"]*\.pdf"[^>]*>/, ""], // "Download the whole book as a PDF", inside that PDF
  [/Solutions are hidden below each exercise/g, "Solutions are at the end of the chapter"],
  [/Solutions are\s+hidden one click away/g, "Solutions are at the end of each chapter"],
  [/then click to compare/g, "then compare with its answer at the end of the chapter"],
  [/then click to check/g, "then check it against its answer at the end"],
  [/The download button \(⬇\) at the top of a chapter/g, "On the web, the download button (⬇) at the top of a chapter"],
  [/\s*\(The code that draws it is folded away; click to show it\.\)/g, " (The code that draws it is in the chapter's notebook.)"],
];

async function assemble(book) {
  const origin = location.origin + "/";
  const allDocs = book.parts.flatMap((p) => p.docs);
  const key = (doc) => doc.replace(/\//g, "--");
  const docOf = (url) => {
    // the book's page a URL points to, or null (the index pages, sources, images, other sites)
    if (!url.href.startsWith(origin)) return null;
    let path = decodeURIComponent(url.pathname.slice(1)).replace(/\.html$/, "");
    if (path === "" || path === "index") path = allDocs[0];
    return allDocs.includes(path) ? path : null;
  };
  const body = document.getElementById("pdf-book");
  const meta = { docs: [] };

  // ---- title page and contents (filled in below, once every page's title is known)
  body.insertAdjacentHTML(
    "beforeend",
    `<section class="pdf-title-page" id="pdf-title">
       <h1 class="pdf-book-title">${book.title}</h1>
       <p class="pdf-book-version">Version of ${book.version}</p>
       <p class="pdf-book-note">The whole book, as one file to read on paper or offline. Recall answers
       and exercise solutions are at the end of each chapter: try first, then follow the link.
       Each live figure of the web book is shown here at its starting setting.</p>
       <p class="pdf-book-web">${book.web}</p>
     </section>
     <nav class="pdf-contents" id="pdf-contents"><h1>Contents</h1><ol class="pdf-contents-list"></ol></nav>`,
  );
  const contents = body.querySelector(".pdf-contents-list");

  const pages = await Promise.all(
    allDocs.map(async (doc) => {
      const url = new URL(doc + ".html", origin);
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return [doc, url, new DOMParser().parseFromString(await response.text(), "text/html")];
    }),
  );
  const parsed = new Map(pages.map(([doc, url, dom]) => [doc, { url, dom }]));

  book.parts.forEach((part, p) => {
    let partItem = null;
    if (part.caption) {
      const id = `pdf-part-${p + 1}`;
      body.insertAdjacentHTML(
        "beforeend",
        `<section class="pdf-part" id="${id}"><h1 class="pdf-part-title">${part.caption}</h1></section>`,
      );
      contents.insertAdjacentHTML(
        "beforeend",
        `<li class="pdf-contents-part">${line(id, part.caption)}<ol></ol></li>`,
      );
      partItem = contents.lastElementChild.querySelector("ol");
      meta.docs.push({ part: part.caption, id });
    }
    for (const doc of part.docs) {
      const { url, dom } = parsed.get(doc);
      const article = dom.querySelector("article.bd-article");
      if (!article) throw new Error(`${doc}.html has no <article class="bd-article">`);
      const info = printable(doc, url, article);
      // the sections too: a line each is the map of the book on paper, and a link to each heading
      // is what makes Chromium give it a named destination, which the outline points to
      const sections = info.sections.map((s) => `<a href="#${s.id}">${s.html}</a>`).join(" · ");
      const li =
        `<li class="pdf-contents-doc">${line(key(doc), info.titleHtml)}` +
        (sections ? `<p class="pdf-contents-sections">${sections}</p>` : "") +
        "</li>";
      (partItem || contents).insertAdjacentHTML("beforeend", li);
      meta.docs.push({ doc, part: part.caption || null, id: key(doc), ...info });
    }
  });
  const figureLinks = meta.docs.flatMap((d) => d.figures || []).map((id) => `<a href="#${id}"></a>`);
  body.insertAdjacentHTML("beforeend", `<nav class="pdf-figure-index" hidden>${figureLinks.join("")}</nav>`);
  return meta;

  // a contents line: the title, linked, and at the right its page number, a placeholder as wide as
  // any number of the book until build_pdf.py fills it in from the first print
  function line(id, titleHtml) {
    return (
      `<p class="pdf-contents-line"><a href="#${id}">${titleHtml}</a>` +
      `<span class="pdf-contents-page" data-for="${id}">000</span></p>`
    );
  }

  function printWording(root) {
    for (const el of root.querySelectorAll("p, li, dd")) {
      if (el.querySelector("p, li")) continue; // the innermost: rewriting an outer one would re-create its children
      let html = el.innerHTML;
      for (const [pattern, replacement] of PRINT_WORDING) {
        if (!pattern.test(html)) continue;
        pattern.lastIndex = 0;
        if (replacement === "") {
          el.remove();
          html = null;
          break;
        }
        html = html.replace(pattern, replacement);
      }
      if (html !== null && html !== el.innerHTML) el.innerHTML = html;
    }
    // what the web page only shows on a click: code folded away (the sentence above says where it
    // is), and anything a chapter marks as web-only (a container of class only-web)
    root.querySelectorAll(".tag_hide-input .cell_input, details.hide.above-input, .only-web").forEach((el) => el.remove());
  }

  // a sentence starts with a capital: "Recall 9.1. Two scores ..." (the web's "Recall: two scores ...")
  function sentence(questionHtml) {
    return questionHtml.replace(/^(\s*)([a-z])/, (_, space, letter) => space + letter.toUpperCase());
  }

  // a Recall question (its answer folded under it): "Recall: ...", or a question ("...?", "... because…")
  function isQuestion(details) {
    const summary = details.querySelector(".sd-summary-text")?.textContent.trim() ?? "";
    return /^Recall\b/.test(summary) || /[?…]$/.test(summary);
  }

  function printable(doc, url, article) {
    const k = key(doc);
    const wrap = document.createElement("section");
    wrap.className = "pdf-doc";
    wrap.id = k;
    wrap.dataset.doc = doc;
    wrap.append(document.importNode(article, true));
    const root = wrap.querySelector("article");

    // a live figure's cells that are buttons on the web (press one to mask it) print as their numbers
    root.querySelectorAll("figure.attnfig button.attnfig-cell").forEach((button) => {
      const cell = document.createElement("span");
      cell.className = button.className;
      cell.textContent = button.textContent;
      if (button.getAttribute("aria-pressed") === "true") cell.classList.add("pdf-pressed");
      button.replaceWith(cell);
    });
    // nothing a reader could only click or that only the web page needs
    root.querySelectorAll("a.headerlink, script, button, .copybtn, .toggle-button").forEach((el) => el.remove());
    printWording(root);

    // ids: prefixed with the page's key (ids like "exercises" repeat from page to page)
    const rename = (id) => `${k}--${id}`;
    root.querySelectorAll("[id]").forEach((el) => (el.id = rename(el.id)));
    for (const el of root.querySelectorAll("*")) {
      for (const attr of ["aria-labelledby", "aria-describedby", "for"]) {
        if (el.hasAttribute(attr)) el.setAttribute(attr, el.getAttribute(attr).split(/\s+/).map(rename).join(" "));
      }
      for (const attr of Array.from(el.attributes)) {
        if (attr.value.includes("url(#")) el.setAttribute(attr.name, attr.value.replace(/url\(#([^)]+)\)/g, (_, id) => `url(#${rename(id)})`));
      }
      for (const attr of ["href", "xlink:href"]) {
        if (el.tagName.toLowerCase() !== "a" && el.getAttribute(attr)?.startsWith("#")) {
          el.setAttribute(attr, "#" + rename(el.getAttribute(attr).slice(1)));
        }
      }
    }

    // images: absolute URLs (this document lives at the root, the page may not)
    root.querySelectorAll("img[src]").forEach((img) => (img.src = new URL(img.getAttribute("src"), url).href));

    // links: to a page of the book (or a place in it) -> inside this document; elsewhere in the
    // build (indexes, sources) -> plain text; to another site -> kept
    for (const a of root.querySelectorAll("a[href]")) {
      const href = a.getAttribute("href");
      const target = new URL(href, url);
      const targetDoc = href.startsWith("#") ? doc : docOf(target);
      if (targetDoc) {
        const fragment = decodeURIComponent(target.hash.slice(1));
        a.setAttribute("href", "#" + (fragment ? `${key(targetDoc)}--${fragment}` : key(targetDoc)));
      } else if (target.href.startsWith(origin)) {
        a.replaceWith(...a.childNodes);
      }
    }

    // the page's title and numbered sections (for the contents, the outline and the tests)
    const h1 = root.querySelector("h1");
    const number = h1?.querySelector(".section-number")?.textContent.trim().replace(/\.$/, "") || null;
    const title = h1 ? h1.textContent.trim() : doc;
    const sections = Array.from(root.querySelectorAll("section > h2"), (h2) => ({
      id: h2.parentElement.id,
      title: h2.textContent.trim(),
      html: h2.innerHTML,
    }));

    // live figures: their starting picture and readout, no controls, one line saying so
    for (const fig of root.querySelectorAll("figure.attnfig")) {
      fig.querySelectorAll(".attnfig-static, .attnfig-controls, fieldset, .attnfig-still").forEach((el) => el.remove());
      // the pictures the figure's script shows once it runs (none runs here)
      fig.querySelectorAll(".attnfig-pic").forEach((pic) => (pic.style.display = "contents"));
      const where = doc.startsWith("chapters/") ? ` and in its notebook, <code>${doc}.ipynb</code>` : "";
      fig.insertAdjacentHTML(
        "beforeend",
        `<p class="pdf-live-note">This figure is live on the web page of this chapter${where}, where its controls change it; here it shows its starting setting.</p>`,
      );
      fig.classList.add("pdf-live");
    }

    // every figure (a picture, or a live figure's starting picture) gets an id and a link from the
    // hidden list below, so the PDF has a named destination where each one stands (tests/test_pdf.py)
    const figures = Array.from(root.querySelectorAll("img, figure.attnfig"), (el, i) => {
      el.id = el.id || `${k}--pdf-figure-${i + 1}`;
      return el.id;
    });

    // A solution's folded "Solution" bar (tools/lab_solutions.py) has nothing to do on paper: the
    // solution it holds, titled "Solution to Exercise N", takes its place
    for (const solution of root.querySelectorAll(".admonition.dropdown > div.solution")) {
      solution.parentElement.replaceWith(solution);
    }

    // Recall answers and solutions: to the end of the chapter, each linked from its question and back
    const label = number ? `${number}.` : "";
    const answers = [];
    let recall = 0;
    for (const el of root.querySelectorAll("details.sd-dropdown, div.solution")) {
      if (el.closest(".pdf-answer")) continue;
      if (el.matches("details") && !isQuestion(el)) {
        // a fold that hides no answer ("Optional: the formula for ...") prints open, where it stands
        const box = document.createElement("div");
        box.className = "pdf-fold";
        box.innerHTML = `<p class="pdf-fold-title">${el.querySelector(".sd-summary-text")?.innerHTML ?? ""}</p>`;
        box.append(...(el.querySelector(".sd-summary-content") || el).childNodes);
        el.replaceWith(box);
      } else if (el.matches("details")) {
        recall += 1;
        const summary = el.querySelector(".sd-summary-text")?.innerHTML ?? "";
        // a page that repeats other chapters' questions (the checklist) keeps their numbers: "Recall 1.1: ..."
        const given = summary.match(/^\s*Recall\s+(\d+\.\d+)\s*[:.]?\s*/);
        const name = given ? `Recall ${given[1]}` : `Recall ${label}${recall}`;
        const q = `${k}--pdf-recall-${recall}`;
        const question = sentence(given ? summary.slice(given[0].length) : summary.replace(/^\s*Recall:\s*/, ""));
        const content = el.querySelector(".sd-summary-content") || el;
        const box = document.createElement("div");
        box.className = "pdf-question";
        box.id = q;
        box.innerHTML = `<p><span class="pdf-question-name">${name}.</span> ${question}
          <a class="pdf-to-answer" href="#${q}-answer">Answer at the end of the chapter →</a></p>`;
        el.replaceWith(box);
        const answer = document.createElement("div");
        answer.className = "pdf-answer pdf-answer-recall";
        answer.id = `${q}-answer`;
        answer.innerHTML = `<p class="pdf-answer-title"><a href="#${q}">Answer to ${name}</a>: ${question}</p>`;
        answer.append(...content.childNodes);
        answer.insertAdjacentHTML("beforeend", `<p class="pdf-back"><a href="#${q}">← back to the question</a></p>`);
        answers.push(answer);
      } else {
        const titleEl = el.querySelector(".admonition-title");
        const exercise = titleEl?.querySelector("a")?.getAttribute("href") || null;
        const name = titleEl ? titleEl.textContent.replace(/^\s*Solution to\s*/, "").trim() : "the exercise";
        const pointer = document.createElement("p");
        pointer.className = "pdf-to-solution";
        pointer.innerHTML = `<a href="#${el.id}">${name}: its solution is at the end of the chapter →</a>`;
        el.replaceWith(pointer);
        el.classList.remove("dropdown");
        el.classList.add("pdf-answer", "pdf-answer-solution");
        if (exercise) el.insertAdjacentHTML("beforeend", `<p class="pdf-back"><a href="${exercise}">← back to ${name}</a></p>`);
        answers.push(el);
      }
    }
    let answersId = null;
    if (answers.length) {
      answersId = `${k}--pdf-answers`;
      const heading = number ? `Answers and solutions, chapter ${number}` : `Answers: ${title}`;
      const section = document.createElement("section");
      section.className = "pdf-answers";
      section.id = answersId;
      section.innerHTML = `<h2>${heading}</h2>`;
      section.append(...answers);
      root.append(section);
      sections.push({ id: answersId, title: heading, html: heading });
    }

    body.append(wrap);
    const titleHtml = h1 ? h1.innerHTML : doc;
    return { title, number, sections, answersId, recalls: recall, figures, titleHtml };
  }
}

// Code and printed outputs on paper: a line too long for the column is broken at a token boundary
// (after a space, else after , ; ( [ {), and its continuation starts under it with "↪ "; a block
// with a token longer than the column is printed smaller, that block only. Returns what it did.
function wrapLongLines() {
  const MARK = "↪ ";
  const done = { wrapped: 0, shrunk: [] };
  for (const pre of document.querySelectorAll("#pdf-book pre")) {
    if (!pre.checkVisibility()) continue;
    const style = getComputedStyle(pre);
    // how many characters the browser puts on one line of this block: a run of digits as long as
    // any line of the book, wrapped as the block wraps; its first line's width in characters
    const probe = document.createElement("span");
    probe.textContent = "\n" + "0".repeat(400);
    pre.append(probe);
    const rects = Array.from(probe.getClientRects()).filter((r) => r.width > 0);
    const charWidth = rects.reduce((sum, r) => sum + r.width, 0) / 400;
    const columns = Math.floor(rects[0].width / charWidth + 0.01) - 1; // one to spare: a fallback glyph may be wider
    probe.remove();
    const text = pre.textContent;
    const lines = text.split("\n");
    if (columns < 20 || Math.max(...lines.map((l) => [...l].length)) <= columns) continue;
    const breaks = []; // [offset in text, indent]
    let longest = 0; // the longest piece that has no boundary to break at
    let base = 0;
    for (const line of lines) {
      const indent = line.match(/^\s*/)[0];
      let start = 0;
      let room = columns;
      while (line.length - start > room) {
        const window = line.slice(start, start + room + 1);
        let cut = window.slice(0, room).search(/ \S*$/); // the last space inside the window
        cut = cut > indent.length ? cut + 1 : -1;
        if (cut < 0) {
          const marks = [...window.slice(0, room).matchAll(/[,;([{](?=\S)/g)];
          cut = marks.length ? marks[marks.length - 1].index + 1 : -1;
        }
        if (cut <= 0) {
          // no boundary: the block gets smaller instead, so that this piece fits whole
          const piece = line.slice(start).match(/^\S*/)[0].length;
          longest = Math.max(longest, piece);
          start += Math.max(piece, 1);
          continue;
        }
        breaks.push([base + start + cut, indent]);
        start += cut;
        room = columns - indent.length - MARK.length;
      }
      base += line.length + 1;
    }
    // insert the breaks from the last, so that the earlier offsets still hold
    const nodes = [];
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let offset = 0, node; (node = walker.nextNode()); offset += node.data.length) nodes.push([offset, node]);
    for (const [at, indent] of breaks.reverse()) {
      const [offset, node] = nodes.findLast(([o]) => o <= at);
      const rest = node.splitText(at - offset);
      const mark = document.createElement("span");
      mark.className = "pdf-continued";
      mark.textContent = "\n" + indent + MARK;
      rest.before(mark);
      done.wrapped += 1;
    }
    if (longest > columns) {
      pre.style.fontSize = `${(parseFloat(style.fontSize) * columns) / longest}px`;
      done.shrunk.push(text.slice(0, 40));
    }
  }
  return done;
}

// Every live figure shows something drawn: a visible picture with a size, or cells with numbers.
// Returns the figures that print empty.
function emptyLiveFigures() {
  const empty = [];
  for (const fig of document.querySelectorAll("#pdf-book figure.attnfig")) {
    const drawn = Array.from(fig.querySelectorAll("svg")).filter((svg) => {
      const box = svg.getBoundingClientRect();
      return svg.checkVisibility() && box.width > 20 && box.height > 20 && svg.querySelector("path, line, rect, circle, polyline, polygon, text");
    });
    // a table of numbers is a picture too (a heat map of A); a live figure's cells are numbers, each
    const visible = (c) => c.checkVisibility() && c.tagName !== "rect";
    const cells = Array.from(fig.querySelectorAll("table td")).filter(visible);
    const numbers = cells.filter((c) => c.textContent.trim());
    const blank = Array.from(fig.querySelectorAll(".attnfig-cell")).filter((c) => visible(c) && !c.textContent.trim());
    if ((!drawn.length && numbers.length < Math.max(1, cells.length / 2)) || blank.length) {
      empty.push(`${fig.id}: ${drawn.length} picture(s), ${cells.length} cell(s), ${blank.length} blank`);
    }
  }
  return empty;
}
