"""The runtime's error: a misuse of the engine API (an illegal action, a state from another game, a
damaged saved state). Its own module so that the engine and saving a state both import it, neither
from the other."""
from __future__ import annotations

from rulesrun.dsl import RulesrunError


class GameError(RulesrunError):
    """A misuse of the engine API: an illegal action, a state from another game, ..."""
