"""Switch off sphinx-thebe, which Jupyter Book 1 always loads.

This book has no live-code (thebe/Binder) buttons: readers run the notebooks themselves.
sphinx-thebe still put `const THEBE_JS_URL = "https://unpkg.com/..."` into every page, and
twice (its script is registered both on the builder and in the registry), so every page
logged "Identifier 'THEBE_JS_URL' has already been declared", and every page named a CDN.
Here we disconnect its event handlers and drop its stylesheet, so no thebe script, config
block or static file reaches the output. Registered in `_config.yml` under
`sphinx: local_extensions:` (it must load after sphinx_thebe, which local extensions do).
"""

from __future__ import annotations

from sphinx.application import Sphinx

_MODULE = "sphinx_thebe"


def _from_thebe(handler) -> bool:
    return getattr(handler, "__module__", "").split(".")[0] == _MODULE


def setup(app: Sphinx) -> dict:
    if _MODULE in app.extensions:
        for listeners in list(app.events.listeners.values()):
            for listener in list(listeners):
                if _from_thebe(listener.handler):
                    app.disconnect(listener.id)
        app.registry.css_files = [(name, attrs) for name, attrs in app.registry.css_files if name != "sphinx-thebe.css"]
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
