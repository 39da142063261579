"""The rulesrun runtime: the engine, observations, agents, the REPL and the command line."""
from rulesrun.interpreter.runtime.engine import (
    TERMINAL,
    Action,
    Game,
    GameError,
    State,
    load_game,
    load_game_text,
)

__all__ = ["TERMINAL", "Action", "Game", "GameError", "State", "load_game", "load_game_text"]
