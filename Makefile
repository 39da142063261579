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
	@# The CI-only lines are not echoed (@): off CI they do nothing, and `make play` shows the game, not them
	@# CI also tests the Ray backend (a big download, so only there; its test skips without it)
	@[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[ray]' || echo 'Ray did not install: its test will be skipped'
	@# CI also tests the web table (rulesrun serve) in a real browser: the web extra, Playwright, and
	@# Debian's Chromium (Playwright's own browser download does not work here); without them those tests skip
	@[ -z "$$CI" ] || [ -x /usr/bin/chromium ] || (apt-get update && apt-get install -y chromium) || echo 'Chromium did not install: the browser tests will be skipped'
	@[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[web]' playwright || echo 'The web extra did not install: its tests will be skipped'
	@# CI also tests the OpenSpiel, PettingZoo and Gymnasium bridges (docs/guides/interop.md) and the benchmark beside OpenSpiel (their tests skip without them)
	@[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[openspiel,pettingzoo,gym,bench]' || echo 'a bridge library did not install: its tests will be skipped'
	@# CI also tests the language server (pygls), the flow diagram (Graphviz) and the HTML rulebook (Chromium)
	@[ -z "$$CI" ] || $(BIN)/python -m pip install --quiet -e '.[lsp]' || echo 'pygls did not install: the language server tests will be skipped'
	@[ -z "$$CI" ] || { command -v dot >/dev/null && command -v chromium >/dev/null; } || \
		{ apt-get update -qq && apt-get install -y -qq graphviz chromium; } || echo 'graphviz/chromium did not install: their tests will be skipped'
	touch $(STAMP)

install: $(STAMP)

# Leaving a game unfinished exits 1 ("Game left unfinished." says so): not make's failure to report.
play: $(STAMP)
	@$(BIN)/rulesrun $(GAME) $(if $(PLAYERS),--players $(PLAYERS),$(if $(filter magi,$(GAME)),--players 4)) $(ARGS) || [ $$? -eq 1 ]

# The tests run on every core (pytest-xdist); tests/project/test_layers.py runs lint-imports (.importlinter).
test: $(STAMP)
	$(BIN)/python -m pytest -n auto

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n auto -m "not slow"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
