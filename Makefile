# Two commands from a fresh clone:  make book   and   make test
# Both create .venv and install the locked requirements the first time; later runs reuse them.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# JupyterLab settings for this course (no "Jupyter news" pop-up), installed into the venv's Lab
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

.PHONY: install book test lab execute figures lock clean

install: $(STAMP) $(LAB_OVERRIDES)

# requirements.lock pins every package (see tools/lock_requirements.py); pip first, at its pinned version
$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "$$(grep -m1 '^pip==' requirements.lock)"
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

$(LAB_OVERRIDES): tools/jupyterlab-overrides.json $(STAMP)
	mkdir -p $(dir $@)
	cp tools/jupyterlab-overrides.json $@

# after editing requirements.txt: re-pin everything from a clean environment (needs the network)
lock:
	$(PYTHON) tools/lock_requirements.py

book: $(STAMP)
	$(VENV)/bin/jupyter-book build -W --keep-going --all .
	@echo
	@echo "Open the book: $(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(PY) -m pytest

lab: $(STAMP) $(LAB_OVERRIDES)
	$(VENV)/bin/jupyter lab chapters

execute: $(STAMP)
	$(PY) tools/prepare_notebooks.py
	for nb in chapters/[0-9][0-9]_*.ipynb; do \
		$(VENV)/bin/jupyter execute --inplace "$$nb" || exit 1; \
	done
	$(PY) tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb

figures: $(STAMP)
	$(PY) -c "from attnlib import plot; plot.save_svg(plot.prerequisite_map('_toc.yml'), '_static/prerequisite_map.svg')"

clean:
	rm -rf _build
