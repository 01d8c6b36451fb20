# tttlab: `make demo` and `make test` do all set-up on a fresh machine (python3 + make).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# Installs go through uv (installed into the environment by pip, from PyPI): it resolves and
# installs the dev extras in 4 s where pip takes 58 s (measured here, fresh environment).
# The demo's install is byte-compiled as pip does (CI sets PYTHONDONTWRITEBYTECODE); the
# test set-up is not: compiling all of the dev extras takes 27 s (34 s of CPU), and the
# suite writes the byte code of just the modules it imports, as it imports them (below).
UV     := $(BIN)/uv pip install --quiet --python $(BIN)/python

.PHONY: demo test lint typecheck unit bench clean browser box notebooks docs

# The virtual environment, rebuilt when pyproject.toml changes.
$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: $(BIN)/activate
	$(PIP) install --quiet uv

$(VENV)/.installed: $(BIN)/activate $(BIN)/uv pyproject.toml
	$(UV) --compile-bytecode -e .
	touch $@

# One resolution for the test set-up (the dev extras hold the base install).
$(VENV)/.installed-dev: $(BIN)/activate $(BIN)/uv pyproject.toml
	$(UV) -e '.[dev]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.installed
	$(BIN)/ttt demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests docs/hooks $(wildcard benchmarks experiments)
	$(BIN)/ruff format --check src tests docs/hooks $(wildcard benchmarks experiments)

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# Byte code written as modules are first imported, whatever PYTHONDONTWRITEBYTECODE says (CI
# sets it): the suite starts hundreds of processes, and each would otherwise compile what it
# imports from source again (0.2 s of every `ttt solve`, measured).
unit: $(VENV)/.installed-dev
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist loadgroup

# The browser tests drive Debian's chromium; install it when it is missing (needs root,
# as on CI). Never `playwright install`: it downloads a browser of its own.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "chromium is missing: browser tests will be skipped (sudo apt-get install chromium)"; \
	  fi; \
	fi

# `ttt check` runs each submission in a bubblewrap box; install Debian's bubblewrap when it
# is missing (needs root, as on CI). Without it, ttt check grades uncontained and says so.
box:
	@if ! command -v bwrap >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Debian's bubblewrap for ttt check's box"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; \
	  else \
	    echo "bubblewrap is missing: ttt check grades without a box (sudo apt-get install bubblewrap)"; \
	  fi; \
	fi

# mypy (one process, about 20 s from cold) runs beside the unit tests rather than before
# them; its report follows theirs, and either failing fails the target.
test: lint browser box $(VENV)/.installed-dev
	@log=$$(mktemp); $(BIN)/mypy > $$log 2>&1 & typing=$$!; \
	$(MAKE) --no-print-directory unit; unit=$$?; \
	wait $$typing; typed=$$?; echo "$(BIN)/mypy"; cat $$log; rm -f $$log; \
	[ $$unit -eq 0 ] && [ $$typed -eq 0 ]

# The lessons, opened in JupyterLab (jupytext opens the .py files as notebooks).
notebooks: $(VENV)/.installed-dev
	$(UV) -e '.[notebooks]'
	$(BIN)/jupyter lab notebooks/

# The documentation site, built into site/ (git ignores it); nothing is served. Strict: a
# broken link, a missing reference or a lesson that fails stops the build (`make test`
# builds it the same way, in tests/test_docs.py). Open site/index.html.
$(VENV)/.installed-docs: $(BIN)/activate $(BIN)/uv pyproject.toml
	$(UV) -e '.[docs]'
	touch $@

docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 MPLBACKEND=Agg $(BIN)/mkdocs build --strict --site-dir site

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/bench_learners.py
	$(BIN)/python benchmarks/bench_tables.py
	$(BIN)/ttt sweep td q sarsa expected-sarsa double-q --episodes 5000,10000,20000,50000,100000,200000,500000 --seeds 0-11 --out artifacts/episodes_needed.csv --plot artifacts/episodes_needed.png
	$(BIN)/python benchmarks/load_web.py
	$(BIN)/python benchmarks/bench_vector.py
	$(BIN)/python benchmarks/bench_network.py --algorithm alphazero
	$(BIN)/python benchmarks/bench_network.py --algorithm dqn

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .cache build dist site
