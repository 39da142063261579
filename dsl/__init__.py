"""The rulesrun front end: parse a ``.rules`` file, check it, and compile it into a ``Program``."""
from .compiler import compile_rules
from .errors import Pos, RulesError, RulesRuntimeError
from .parser import parse_file, parse_text

__all__ = ["compile_rules", "parse_file", "parse_text", "Pos", "RulesError", "RulesRuntimeError"]
