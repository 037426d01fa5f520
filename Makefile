# Two commands from a fresh clone:  make book   and   make test
# Both create .venv and install the pinned requirements the first time; later runs reuse them.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install book test lab execute figures clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

book: $(STAMP)
	$(VENV)/bin/jupyter-book build -W --keep-going --all .
	@echo
	@echo "Open the book: $(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(PY) -m pytest

lab: $(STAMP)
	$(VENV)/bin/jupyter lab chapters

execute: $(STAMP)
	for nb in chapters/[0-9][0-9]_*.ipynb; do \
		$(VENV)/bin/jupyter execute --inplace "$$nb" || exit 1; \
	done
	$(PY) tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb

figures: $(STAMP)
	$(PY) -c "from attnlib import plot; plot.save_svg(plot.prerequisite_map(), '_static/prerequisite_map.svg')"

clean:
	rm -rf _build
