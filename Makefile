# The two commands of the quick start: `make play` and `make test`.
#   make play                                  Magi for 4: you against three bots
#   make play GAME=magic_shop PLAYERS=3        another shipped game (`rulesrun list`) or a .rules file
#   make play GAME=gachapon ARGS="--seed 7"    any other options of `rulesrun`
#   make test-fast                             the suite without the tests marked slow (under a minute)
PYTHON ?= python3
GAME    ?= magi
PLAYERS ?=
ARGS    ?=
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: play test test-fast install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plot]'
	@# CI also tests the Ray backend (a big download, so only there; its test skips without it)
	[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[ray]' || echo 'Ray did not install: its test will be skipped'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(BIN)/rulesrun $(GAME) $(if $(PLAYERS),--players $(PLAYERS),$(if $(filter magi,$(GAME)),--players 4)) $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
