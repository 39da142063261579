"""The rulesrun front end: parse a ``.rules`` file, check it, and compile it into a ``Program``."""
from rulesrun.dsl.compiler import compile_rules
from rulesrun.dsl.errors import Pos, RulesError, RulesrunError, RulesRuntimeError
from rulesrun.dsl.syntax.parser import parse_file, parse_text

__all__ = ["compile_rules", "parse_file", "parse_text", "Pos", "RulesError", "RulesrunError", "RulesRuntimeError"]
