"""The engine: a compiled ``Program`` run as an explicit state machine, with OpenSpiel's state API.

    game  = load_game("games/magic_shop.rules", players=4)
    state = game.new_initial_state(seed=7)
    while not state.is_terminal():
        state.apply_action(random.choice(state.legal_actions()))
    state.returns()

A state is plain data (lists of ints and strings — see ``dsl.program``), so ``clone`` is a handful
of list copies, equality is structural, and ``to_json`` / ``State.from_json`` round-trip exactly
(``interpreter/runtime/saved.py``: saving, loading and comparing states).
"""
from __future__ import annotations
from pathlib import Path
from typing import Iterable

from rulesrun.dsl import RulesError, RulesRuntimeError, compile_rules, parse_text  # noqa: F401 (the errors: part of the engine's API)
from rulesrun.dsl.program import MAX_STEPS  # noqa: F401 (the engine's budget)
from rulesrun.interpreter.runtime.actions import Action  # noqa: F401 (part of the engine's API)
from rulesrun.interpreter.runtime.errors import GameError  # noqa: F401 (part of the engine's API)
from rulesrun.interpreter.runtime.game import Game
from rulesrun.interpreter.runtime.saved import STATE_FORMAT  # noqa: F401 (the saved state's format, for tools and tests)
from rulesrun.interpreter.runtime.state import TERMINAL, State  # noqa: F401 (part of the engine's API)


# Decisions after which a driver (`rulesrun check`, `simulate`, all-bot play) counts a game as never
# ending (--max-steps), and the one message they all give for it.
DECISION_BOUND = 100_000


def never_ended(max_steps: int) -> str:
    return f"the game has not ended after {max_steps:,} decisions (raise the bound with --max-steps if it is just long)"


def load_game(path: str | Path, players: int | None = None, variants: Iterable[str] = (),
              allow_leaks: bool = False, params: dict | None = None) -> Game:
    """Parse, check and compile a rules file for ``players`` seats (default: the fewest allowed).
    The file must be a regular UTF-8 file of at most 10 MB (a BOM is accepted): see ``files``.
    A leak of hidden information into what every seat sees is a RulesError, or with
    ``allow_leaks`` a warning in ``game.program.warnings`` (``dsl.analysis.infoflow``). ``params`` sets the
    file's game parameters by name ({"target": 300}, values or their texts; ``dsl.check.params``)."""
    from rulesrun.interpreter.runtime.files import load_rules_text
    rules = load_rules_text(path)
    if players is None:
        from rulesrun.dsl.syntax.ast import PlayersDecl
        decl = next((i for i in rules.items if isinstance(i, PlayersDecl)), None)
        players = decl.low if decl else 2
    return Game(compile_rules(rules, int(players), tuple(variants), allow_leaks, params=params))


def load_game_text(text: str, players: int, variants: Iterable[str] = (), path: str = "<rules>",
                   allow_leaks: bool = False, params: dict | None = None) -> Game:
    return Game(compile_rules(parse_text(text, path), int(players), tuple(variants), allow_leaks, params=params))
