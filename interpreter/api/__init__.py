"""rulesrun: a declarative rules language for card games.

This folder (``interpreter/api/``) is installed as the top-level package ``rulesrun`` itself
(pyproject.toml's ``package-dir``); the compiler is ``rulesrun.dsl``, the runtime and everything
that drives it ``rulesrun.interpreter``, the shipped games ``rulesrun.games``. The front door::

    import rulesrun
    game = rulesrun.load_game("magi", players=4)        # a shipped game's name, or a .rules path
    state = game.new_initial_state(seed=1)

The names below are imported when first used, so ``import rulesrun.dsl`` costs no runtime.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "load_game": "rulesrun.interpreter.runtime.engine",
    "load_game_text": "rulesrun.interpreter.runtime.engine",
    "Game": "rulesrun.interpreter.runtime.engine",
    "State": "rulesrun.interpreter.runtime.engine",
    "Action": "rulesrun.interpreter.runtime.engine",
    "GameError": "rulesrun.interpreter.runtime.engine",
    "TERMINAL": "rulesrun.interpreter.runtime.engine",
    "compile_rules": "rulesrun.dsl",
    "parse_file": "rulesrun.dsl",
    "parse_text": "rulesrun.dsl",
    "RulesError": "rulesrun.dsl",
    "RulesRuntimeError": "rulesrun.dsl",
    "RulesrunError": "rulesrun.dsl",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rulesrun' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
