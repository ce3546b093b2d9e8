# Two set-up commands: `make demo` and `make test`. Both create .venv when needed and are idempotent.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# CPU build of torch: a bare `torch` requirement would pull a multi-GB CUDA build.
TORCH  := torch==2.13.0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: demo test lint typecheck unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.torch: | $(BIN)/python
	$(BIN)/pip install --quiet $(TORCH)
	touch $@

$(VENV)/.installed: pyproject.toml $(VENV)/.torch
	$(BIN)/pip install --quiet -e ".[offline]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install --quiet -e ".[offline,dev]"
	touch $@

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

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache .pytest_cache
