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
# When this make started: `make test` says how long it took, set-up included.
STARTED := $(shell date +%s)

.PHONY: demo test test-load lint typecheck unit unit-ray bench clean browser box notebooks docs

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
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist loadgroup -m "not ray"

# The tests that start a Ray cluster (marker `ray`, all under $(RAY_TESTS)), alone: `ray start`
# waits 30 s at most for its node to register (a constant in ray/_private/node.py), and it and
# the five Python processes it starts need about 16 s of CPU from cold (10 s with byte code):
# beside `pytest -n 2` on 2 cores they missed it (measured: 33 s, then a time-out).
RAY_TESTS := tests/sweep
unit-ray: $(VENV)/.installed-dev
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -m ray $(RAY_TESTS)

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

# First the machine's reference speed (the course's pure-Python TD agent, about 2 s, on a quiet
# machine: before anything else starts). mypy (one process, about 20 s from cold) runs beside
# numba's warm-up (tests/warm_numba.py: a fresh clone's numba cache written once, not by each
# of the suite's processes) and then beside the parallel tests; the Ray tests follow, alone,
# once both are done; mypy's report comes last, then the time make test took. Any of them
# failing fails the target (the warm-up checks nothing: the suite tests what it calls).
test: lint browser box $(VENV)/.installed-dev
	@$(BIN)/python benchmarks/reference_course.py; speed=$$?; \
	log=$$(mktemp); $(BIN)/mypy > $$log 2>&1 & typing=$$!; \
	TTTLAB_CACHE_DIR=off PYTHONDONTWRITEBYTECODE= $(BIN)/python tests/warm_numba.py; \
	$(MAKE) --no-print-directory unit; unit=$$?; \
	wait $$typing; typed=$$?; \
	$(MAKE) --no-print-directory unit-ray; ray=$$?; \
	echo "$(BIN)/mypy"; cat $$log; rm -f $$log; \
	took=$$(( $$(date +%s) - $(STARTED) )); \
	printf 'make test took %d:%02d\n' $$(( took / 60 )) $$(( took % 60 )); \
	[ $$speed -eq 0 ] && [ $$unit -eq 0 ] && [ $$typed -eq 0 ] && [ $$ray -eq 0 ]

# The tests whose subject is time (ttt check's limits and its box, the web lab's grading and
# workers, the solvers' time limits, Ctrl-C) run beside two CPU-bound processes, as on a
# shared, busy machine: a verdict and a test must not depend on the load. The two are
# stopped however the tests end (a trap on the shell's exit; a Ctrl-C reaches them too).
LOAD_TESTS := tests/usercode/test_hostile.py tests/usercode/test_cs50.py \
  tests/usercode/test_course.py tests/usercode/test_caller.py tests/usercode/test_asking.py \
  tests/usercode/test_boxside_clock.py tests/usercode/test_boxside_loading.py \
  tests/usercode/test_processes.py tests/usercode/test_pipes.py tests/usercode/test_verdict.py \
  tests/usercode/test_worker.py tests/usercode/test_grading.py \
  tests/usercode/test_configurations.py tests/web/test_checking.py tests/web/test_pool.py \
  tests/web/test_lab_api.py tests/cli/test_check_cmd.py tests/cli/test_interrupt.py \
  tests/solvers/test_longrun.py \
  tests/solvers/test_bitboard.py::test_a_node_budget_or_a_time_limit_stops_the_search_and_says_which \
  tests/solvers/test_certificate.py::test_a_certificate_past_its_time_limit_says_so_whichever_proof_was_running \
  tests/agents/test_proved.py::test_a_lost_position_blocks_a_threat_and_a_slow_proof_is_refused
test-load: box $(VENV)/.installed-dev
	@$(PYTHON) -c 'while True: pass' & one=$$!; \
	$(PYTHON) -c 'while True: pass' & two=$$!; \
	trap 'kill $$one $$two 2>/dev/null' EXIT INT TERM; \
	echo "beside the tests, two CPU-bound processes: $$one $$two (load: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"; \
	start=$$(date +%s); \
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist loadgroup -p no:cacheprovider $(LOAD_TESTS); code=$$?; \
	echo "test-load: $$(( $$(date +%s) - start )) s, exit $$code (load at the end: $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null))"; \
	exit $$code

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
