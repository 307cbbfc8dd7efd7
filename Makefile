# The two commands a fresh machine needs are `make demo` and `make test` (see README); `make check`
# is the quicker loop while developing.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install serving-stack peer lint check test demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The vLLM CPU stack (large): installed into the same virtualenv.
serving-stack: $(STAMP)
	bash serving/install.sh $(BIN)/python

# Optional: llama.cpp as the peer of `phone-agent bench serving` (compiles it; minutes).
peer: $(STAMP)
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/pip install --quiet -e '.[peer]'

# mypy must see the same packages as the tests (vLLM's types included), so lint comes after
# the serving stack.
lint: serving-stack
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The quick loop while developing: lint, then every test not marked slow (no real model server),
# spread over the machine's cores (pytest-xdist; much of the suite waits on simulated devices).
check: lint
	$(BIN)/pytest -m "not slow" -n auto

# The full suite: what CI runs. The quick tests spread over the cores as in `check`; the slow
# ones (real vLLM servers, training, sweeps) each load the machine, so they run one at a time.
test: lint
	$(BIN)/pytest -m "not slow" -n auto
	$(BIN)/pytest -m slow

# Serve the small policy trained on the simulator (fixtures/models/sim) and let it turn Wi-Fi on.
demo: serving-stack
	bash serving/demo.sh $(BIN)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
