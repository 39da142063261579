# The two commands of the quick start: `make play` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: play test install bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,plot]'
	@# CI also tests the Ray backend (a big download, so only there; its test skips without it)
	[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[ray]' || echo 'Ray did not install: its test will be skipped'
	@# CI also tests the OpenSpiel, PettingZoo and Gymnasium bridges (docs/interop.md; their tests skip without them)
	[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[openspiel,pettingzoo,gym]' || echo 'a bridge library did not install: its tests will be skipped'
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(BIN)/rulesrun games/magi.rules --players 4

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
