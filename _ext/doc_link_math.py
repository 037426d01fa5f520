"""Keep the math in the titles that {doc} links show.

A {doc} link with no text of its own shows the target page's title, but Sphinx flattens that
title to plain text, so "Why divide by $\\sqrt{d_k}$" reached the reader as the raw TeX
"Why divide by \\sqrt{d_k}" (in intro.md's table of symbols and in the checklist). Before
Sphinx resolves such a link, this post-transform resolves it itself, with a copy of the
title's nodes as the link text, so the math in it is typeset like anywhere else. Links with
their own text, and titles without math, are left to Sphinx. Registered in `_config.yml`
under `sphinx: local_extensions:`.
"""

from __future__ import annotations

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import docname_join
from sphinx.util.nodes import make_refnode


class DocLinksKeepMath(SphinxPostTransform):
    default_priority = 5  # before Sphinx's ReferencesResolver (priority 10)
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for xref in list(self.document.findall(addnodes.pending_xref)):
            if xref.get("refdomain") != "std" or xref.get("reftype") != "doc" or xref.get("refexplicit"):
                continue
            docname = docname_join(xref.get("refdoc", self.env.docname), xref["reftarget"])
            title = self.env.titles.get(docname)
            if docname not in self.env.all_docs or title is None or not any(title.findall(nodes.math)):
                continue
            text = nodes.inline("", "", *[child.deepcopy() for child in title.children], classes=["doc"])
            xref.replace_self(make_refnode(self.app.builder, self.env.docname, docname, None, text))


def setup(app: Sphinx) -> dict:
    app.add_post_transform(DocLinksKeepMath)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
