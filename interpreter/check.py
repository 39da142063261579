"""``rulesrun check`` lives in ``interpreter.checking``; this name is kept for the callers of old."""
from .checking import *  # noqa: F401,F403
from .checking import PROPERTIES, Config, Failure, GameChecker, Violation, check_config, configurations, \
    run_check, write_moves  # noqa: F401
