"""The language's grammar (``grammar/rules.lark``, shipped inside the wheel) loaded once as Lark's
LALR parser, with blocks by indentation. Used by ``dsl.parser`` and ``dsl.syntax_errors``."""
from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark
from lark.indenter import Indenter


def grammar_path() -> Path:
    """The grammar file: the ``grammar`` package ships it inside the wheel."""
    import grammar
    return Path(grammar.__file__).resolve().parent / "rules.lark"


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(grammar_path().read_text(encoding="utf-8"), parser="lalr", postlex=_Indenter(),
                propagate_positions=True, maybe_placeholders=True, start=["start", "test"])
