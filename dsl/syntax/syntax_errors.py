"""Syntax errors: Lark's exceptions turned into messages for people (``file:line:col``, a caret,
a hint), used by ``dsl.syntax.parser``."""
from __future__ import annotations

import functools
import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError

from rulesrun.dsl.errors import Pos, RulesError, did_you_mean
from rulesrun.dsl.syntax.grammar_loader import _lark


# ── syntax errors: Lark's exceptions turned into messages for people ──────────
#
# Lark reports an error as "token T is not one of the terminals the parser accepts here". We turn
# that into "expected <short phrase> after <previous token>, but found <T>", summarising the
# accepted terminals (a list of twenty terminals that can start an expression is "a value"), and
# recognise the common mistakes — a missing ':', '=' for '==', a bracket never closed, a block
# not indented, a statement outside any procedure — to say so directly.

# Terminals with no literal text, as a person would say them.
_READABLE = {
    "_NL": "the end of the line", "_INDENT": "an indented block", "_DEDENT": "the end of the block",
    "$END": "the end of the file", "NAME": "a name", "INT": "a whole number", "STRING": "a quoted text",
    "COMMENT": "a comment",
}
_SYNTAX_ERRORS = (UnexpectedInput, DedentError)

# Groups of terminals, by their text (a regex terminal by its name), used to summarise what the
# parser accepts.
_DECLARATIONS = ("game", "players", "kind", "cards", "zone", "state", "player", "card", "const", "param",
                 "define", "procedure", "flow", "score", "winners", "heuristic", "invariant", "variant")
_STATEMENTS = ("let", "move", "shuffle", "deal", "announce", "reveal", "pass", "end", "if", "repeat", "while", "for")
_OPERATORS = frozenset({"+", "-", "*", "/", "mod", "==", "!=", "<=", ">=", "<", ">", "and", "or", "not", "in",
                        "if", "else", ".", "(", "[", "then"})   # "[": an index, after any value
_CONDITION_AFTER = frozenset({"where", "if", "elif", "while", "and", "or", "not", "that", "when"})
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_BLOCK_WORDS = frozenset({"flow", "procedure", "if", "elif", "else", "repeat", "while", "for", "cards", "variant"})
# Keywords that join the parts of a statement: when one is read as a name, the user left out
# what should have come before it ('where as "play"').
_CLAUSE_WORDS = frozenset({"as", "to", "from", "where", "by", "then", "times", "of", "in", "if", "else", "for",
                           "when", "such", "and", "or", "mod", "chooses", "bottom", "subset", "able"})


@functools.lru_cache(maxsize=1)
def _terminal_texts() -> dict:
    """Each literal terminal's text by its Lark name: ``COLON`` -> ':', ``__ANON_2`` -> '=='."""
    return {t.name: t.pattern.value for t in _lark().terminals if type(t.pattern).__name__ == "PatternStr"}


def _text_of(term: str) -> str:
    """A terminal's literal text, or its name for a regex terminal (NAME, INT, _NL, ...)."""
    return _terminal_texts().get(term, term)


def _readable(term: str) -> str:
    """A terminal, as a person would say it: never one of Lark's internal names."""
    if term in _READABLE:
        return _READABLE[term]
    text = _terminal_texts().get(term)
    if text is not None:
        return f"'{text}'"
    return "a " + term.strip("_").lower().replace("_", " ")


def _describe_token(tok: Token) -> str:
    if tok.type in ("_NL", "$END"):
        return _READABLE[tok.type]
    if tok.type == "_INDENT":
        return "an indented line"
    if tok.type == "_DEDENT":
        return "the end of the block"
    value = str(tok.value)
    if len(value) > 24:
        value = value[:20] + "..."
    if tok.type == "STRING":
        return f"the text {value}"
    return f"'{value}'"


def _word_list(items: list) -> str | None:
    if not items:
        return None
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " or " + items[-1]


def _expected_phrase(accepts: set, after: str | None) -> str | None:
    """What the parser accepts, as a short phrase ("a value", "':'", "'to' or the end of the line")."""
    if not accepts:
        return None
    texts = {_text_of(t) for t in accepts}
    if sum(w in texts for w in _DECLARATIONS) >= 5:
        return "a declaration such as 'zone', 'state', 'procedure' or 'flow:'"
    if {"let", "move", "shuffle"} <= texts:
        return "a statement"
    if {"number", "text", "list"} <= texts:
        return "a type (number, yes/no, player, card, text, list of ..., or a kind)"
    if {"=", "+=", "-=", "chooses"} <= texts:   # after a name at the start of a statement
        return "'=', '+=', '-=' or 'chooses'"
    if {"INT", "STRING", "NAME"} <= texts:
        return "a condition" if after in _CONDITION_AFTER else "a value"
    words = {t for t in accepts if _text_of(t) not in _OPERATORS}
    if after == "announce":     # 'announce to p "..."' is the rarer form: ask for the text
        words = {t for t in words if _text_of(t) != "to"}
    if {"RPAR", "RSQB", "RBRACE"} & words:   # inside brackets, the comprehension words are noise
        words = {t for t in words if _text_of(t) not in ("for", "where")}
    if not words:
        if 0 < len(accepts) <= 3:
            return _word_list(sorted(_readable(t) for t in accepts))
        return "an operator"
    if len(words) > 5 and not {"owner", "others", "team"} <= texts:    # (the six visibility words)
        return None
    readable = sorted(_readable(t) for t in words if t != "_NL")
    if "_NL" in words:
        readable.append(_READABLE["_NL"])
    return _word_list(readable)


def _first_on_line(tok, source: str) -> bool:
    """Whether only blanks stand before the token on its line."""
    try:
        line = source.split("\n")[tok.line - 1]
        return not line[:tok.column - 1].strip()
    except (AttributeError, IndexError, TypeError):
        return False


def _token_pos(tok, source: str) -> tuple[int, int]:
    """Where to point for an unexpected token (indent tokens borrow the position of a newline)."""
    line, col = getattr(tok, "line", None), getattr(tok, "column", None)
    if tok.type == "_INDENT" and getattr(tok, "end_line", None):
        return tok.end_line, tok.end_column          # the first character of the indented line
    if tok.type == "$END":
        start = getattr(tok, "start_pos", None)
        if isinstance(start, int) and start < len(source) and source[start] not in "\r\n#" \
                and getattr(tok, "end_line", None):
            return tok.end_line, tok.end_column      # just after the last token of the file
    if isinstance(line, int) and isinstance(col, int):
        return line, col
    return _end_of_text(source)


def _end_of_text(source: str) -> tuple[int, int]:
    lines = source.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1, len(lines[i].rstrip()) + 1
    return 1, 1


def _prev_text(prev, source: str) -> str | None:
    """The text of what came just before the error: a token's text or a short expression."""
    if isinstance(prev, Token):
        if prev.type in ("_NL", "_INDENT", "_DEDENT", "$END"):
            return None
        return str(prev.value)
    meta = getattr(prev, "meta", None)
    if str(getattr(prev, "data", "_")).startswith("_"):
        return None
    if meta is not None and not getattr(meta, "empty", True):
        text = source[meta.start_pos:meta.end_pos]
        if 0 < len(text) <= 24 and "\n" not in text:
            return text
    return None


def _last_token(prev):
    """The token just before the error, if the parser's stack shows it (a one-token tree counts)."""
    if isinstance(prev, Token):
        return prev
    leaves = list(prev.scan_values(lambda v: isinstance(v, Token))) if hasattr(prev, "scan_values") else []
    return leaves[0] if len(leaves) == 1 else None


def _unclosed_bracket(stack) -> Token | None:
    """The innermost bracket not yet closed (an opening bracket stays on the parser's stack until
    its whole rule is reduced, so a closing bracket on the stack cancels one)."""
    depth = 0
    for v in reversed(stack):
        if isinstance(v, Token) and v.type != "STRING":
            if v.value in _BRACKETS.values():
                depth += 1
            elif v.value in _BRACKETS:
                if depth == 0:
                    return v
                depth -= 1
    return None


def _accepts_before(source: str, offset: int) -> set:
    """What the parser would accept at ``offset`` (parse the text up to there and see)."""
    try:
        _lark().parse(source[:offset], start="start")
    except UnexpectedToken as e:
        if e.token.type in ("$END", "_DEDENT"):
            return set(e.accepts or ())
    except Exception:  # noqa: BLE001
        pass
    return set()


def _token_error(err: UnexpectedToken, source: str):
    """(message, (line, col), hint) for an unexpected token."""
    tok = err.token
    line, col = _token_pos(tok, source)
    try:
        accepts = set(err.accepts or err.expected or ())
    except Exception:  # noqa: BLE001 — a failure to list alternatives must not hide the error
        accepts = set(err.expected or ())
    ip = err.interactive_parser
    stack = list(ip.parser_state.value_stack) if ip is not None else []
    prev = stack[-1] if stack else None
    after = _prev_text(prev, source)
    prev_tok = _last_token(prev) if prev is not None else None
    if isinstance(prev, Token) and prev.type == "NAME" and len(stack) >= 3 and isinstance(stack[-2], Token) \
            and stack[-2].value == ".":   # 'p.score' rather than 'score'
        first = stack[-3]
        start = first.start_pos if isinstance(first, Token) else getattr(getattr(first, "meta", None), "start_pos", None)
        if isinstance(start, int) and isinstance(prev.end_pos, int):
            span = source[start:prev.end_pos]
            if 0 < len(span) <= 24 and "\n" not in span:
                after = span
    texts = {_text_of(t) for t in accepts}
    src_lines = source.split("\n")

    if tok.type == "_INDENT":
        return ("this line is indented more than the line before it", (line, col),
                "only a line ending in ':' starts an indented block")

    if accepts == {"_INDENT"}:
        header = None
        if isinstance(prev, Token) and isinstance(prev.line, int) and 0 < prev.line <= len(src_lines):
            header = src_lines[prev.line - 1].split("#")[0].strip()
        msg = f"expected an indented block after '{header}'" if header else "expected an indented block"
        if tok.type in ("_DEDENT", "$END", "_NL") and isinstance(prev, Token):
            line, col = prev.line, prev.column
        return msg, (line, col), ("indent the lines that belong to it (by 4 spaces, say); "
                                  "write 'pass' for a block that does nothing")

    bracket = _unclosed_bracket(stack)
    if bracket is not None and (tok.type == "$END" or (
            isinstance(tok.line, int) and tok.line > bracket.line and _first_on_line(tok, source)
            and (tok.column == 1 or tok.type not in ("NAME", "INT", "STRING") and str(tok.value).isalpha()))):
        close = _BRACKETS[bracket.value]
        return (f"this '{bracket.value}' is never closed", (bracket.line, bracket.column),
                f"add the missing '{close}'; inside brackets a line break does not end the statement")

    if tok.type == "EQUAL" and "==" in texts:
        return ("to compare two values, write '==' rather than '='", (line, col),
                "a single '=' gives a value, as in 'let x = 3'")

    if _text_of(tok.type) == "==" and "=" in texts:
        return ("to give a value, write '=' rather than '=='", (line, col),
                "'==' compares two values, as in 'if x == 3:'")

    if bracket is not None and tok.type in ("RPAR", "RSQB", "RBRACE") and tok.value != _BRACKETS[bracket.value]:
        return (f"this '{tok.value}' does not match the '{bracket.value}' at line {bracket.line}, column {bracket.column}",
                (line, col), f"close the '{bracket.value}' with '{_BRACKETS[bracket.value]}'")

    found = _describe_token(tok)
    if isinstance(prev, Token) and prev.type != "NAME" and re.fullmatch(r"[A-Za-z_]\w*", str(prev.value)) \
            and _first_on_line(prev, source) and _text_of(tok.type) in ("=", "+=", "-=", ".", "(", ":") \
            and re.search(r"\b(?:state|const|define|procedure|zone|let|for|kind)\s+" + re.escape(prev.value) + r"\b",
                          source):
        kw = prev.value
        return (f"'{kw}' is a keyword and cannot be used as a name here", (prev.line, prev.column),
                f"a line that starts with '{kw}' is read as a '{kw}' statement; choose another name, like 'the_{kw}'")

    if prev_tok is not None and prev_tok.type == "NAME" and prev_tok.value in ("else", "elif") \
            and _first_on_line(prev_tok, source):
        return (f"'{prev_tok.value}' without an 'if' before it", (prev_tok.line, prev_tok.column),
                f"'{prev_tok.value}' must line up exactly with the 'if' it belongs to")

    # A keyword the lexer read as a name because no keyword fits there ('where as "play"').
    if prev_tok is not None and prev_tok.type == "NAME" and prev_tok.value in _CLAUSE_WORDS \
            and isinstance(prev_tok.start_pos, int) and tok.type not in ("_NL", "$END", "_DEDENT"):
        before = _accepts_before(source, prev_tok.start_pos)
        if before and "NAME" in before:
            two = stack[-2] if len(stack) >= 2 else None
            phrase = _expected_phrase(before, _prev_text(two, source))
            if phrase:
                where = f" after '{_prev_text(two, source)}'" if _prev_text(two, source) else ""
                return (f"expected {phrase}{where}, but found '{prev_tok.value}'", (prev_tok.line, prev_tok.column),
                        None)

    if sum(w in texts for w in _DECLARATIONS) >= 5 and tok.type not in ("_DEDENT", "$END", "_NL"):
        word = str(tok.value)
        if word in _STATEMENTS or "=" in texts:
            return (f"'{word}' starts a statement, and statements belong inside 'flow:' or a procedure",
                    (line, col), "indent it under 'flow:' or under a 'procedure ...:' line")
        if tok.type == "NAME":
            return (f"unknown declaration '{word}'", (line, col),
                    did_you_mean(word, _DECLARATIONS)
                    or "a line at the left margin starts with one of: " + ", ".join(_DECLARATIONS))

    if isinstance(prev, Token) and prev.type == "NAME" and _first_on_line(prev, source) \
            and tok.type in ("NAME", "INT", "STRING") and tok.line == prev.line and "let" not in texts:
        known = [w for w in _STATEMENTS if w != "pass"] + ["chooses"]
        return (f"unknown statement '{prev.value}'", (prev.line, prev.column),
                did_you_mean(prev.value, known)
                or "a statement starts with let, move, shuffle, deal, announce, if, repeat, while or for, "
                   "or is an assignment like 'x = 1', a choice like 'p chooses c from p.hand', "
                   "or a procedure call like 'play()'")

    phrase = _expected_phrase(accepts, after)
    hint = None
    if tok.type == "_NL" and "COLON" in accepts:
        first = src_lines[line - 1].split()[0] if 0 < line <= len(src_lines) and src_lines[line - 1].split() else ""
        return ("expected ':' at the end of the line", (line, col),
                "a line that starts a block ends with ':'" if first in _BLOCK_WORDS else None)
    if "_NL" in accepts and tok.type not in ("_NL", "_DEDENT", "$END") and phrase == _READABLE["_NL"]:
        hint = "only one statement fits on a line"
    elif "_NL" in accepts and accepts <= {"_NL", "COMMA"} and tok.type not in ("_NL", "_DEDENT", "$END"):
        hint = "only one declaration fits on a line; how the table shows it follows a comma, like ', shown as \"...\"'"
    if phrase and phrase.endswith("'chooses'"):
        hint = ("a statement is an assignment like 'x = 1', a choice like 'p chooses c from p.hand', "
                "a procedure call like 'play()', or starts with a keyword such as 'move' or 'let'")
    if tok.value == "such" and "subset" not in (src_lines[line - 1] if 0 < line <= len(src_lines) else ""):
        hint = ("'such that' tests a whole subset: write 'p chooses subset NAME from ...', or in a choice "
                "block 'subset NAME from ...'")
    text = src_lines[line - 1] if 0 < line <= len(src_lines) else ""
    if tok.type == "COLON" and "ELSE" in accepts and " from " in text and " if " in text and " as " not in text:
        hint = ("a pick offered under a condition says it after its label: "
                "'c from p.hand as \"play\" if CONDITION:'")
    if tok.type in ("RPAR", "RSQB", "RBRACE") and bracket is None:
        hint = f"there is no opening bracket for this '{tok.value}'"
    elif bracket is not None and tok.type in ("$END", "_DEDENT"):
        hint = f"the '{bracket.value}' on line {bracket.line} is never closed"
    where = f" after '{after}'" if after else ""
    if phrase and tok.type == "$END":
        msg = f"expected {phrase}{where}, but nothing follows"
    elif phrase:
        msg = f"expected {phrase}{where}, but found {found}"
    else:
        msg = f"unexpected {found}{where}"
    return msg, (line, col), hint


def _char_error(err: UnexpectedCharacters, source: str):
    ch = getattr(err, "char", None) or "?"
    shown = f"'{ch}'" if ch.isprintable() else f"U+{ord(ch):04X}"
    line, col = err.line, err.column
    hint = None
    if ch in "\"'":
        return "this text is never closed", (line, col), f"a text in quotes must end with {ch} on the same line"
    if ch in "\u201c\u201d\u2018\u2019":
        hint = "use straight quotes: \" or '"
    elif ch == "!":
        hint = "write 'not' to negate; '!=' means 'is not equal to'"
    elif ch == "&":
        hint = "write 'and'"
    elif ch == "|":
        hint = "write 'or'"
    elif ch == ";":
        hint = "put each statement on a line of its own"
    elif ch == "\t":
        hint = "indent with spaces"
    elif not ch.isprintable() or ch in "\r":
        hint = "remove it; it may be a character that does not show, pasted from elsewhere"
    return f"unexpected character {shown}", (line, col), hint


def _dedent_error(source: str):
    """A line indented less than the line before, but not as far as any enclosing block."""
    text = source if source.endswith("\n") else source + "\n"
    levels, popped, last = [0], None, None
    try:
        for tok in _lark().parse_interactive(text, start="start").iter_parse():
            last = tok
            if tok.type == "_INDENT":
                levels.append(tok.value.count(" ") + 8 * tok.value.count("\t"))
            elif tok.type == "_DEDENT" and len(levels) > 1:
                popped = levels.pop()
    except Exception:  # noqa: BLE001 — we only want where the lexer stopped
        pass
    if last is None or not getattr(last, "end_line", None):
        return "this line is indented to no enclosing block", _end_of_text(source), None
    line, col = last.end_line, last.end_column
    src = source.split("\n")
    if 0 < line <= len(src) and "\t" in src[line - 1][:col - 1] or "\n\t" in text:
        hint = "indent with spaces only: a tab counts as 8 spaces"
    elif popped is not None:
        hint = f"indent it by {levels[-1]} spaces to end the block, or by {popped} to stay in it"
    else:
        hint = f"indent it by {levels[-1]} spaces"
    return "this line does not line up with the lines above it", (line, col), hint


def syntax_error(err: Exception, path: str, source: str) -> RulesError:
    """Turn any of Lark's parse errors into a RulesError that points at the problem."""
    try:
        if isinstance(err, DedentError):
            msg, (line, col), hint = _dedent_error(source)
        elif isinstance(err, UnexpectedCharacters):
            msg, (line, col), hint = _char_error(err, source)
        elif isinstance(err, UnexpectedToken):
            msg, (line, col), hint = _token_error(err, source)
        else:
            msg, (line, col), hint = "the file ends in the middle of a declaration", _end_of_text(source), None
    except Exception:  # noqa: BLE001 — never let the error reporter itself fail
        line, col = getattr(err, "line", None), getattr(err, "column", None)
        if not (isinstance(line, int) and isinstance(col, int)):
            line, col = _end_of_text(source)
        msg, hint = "the text here does not fit the rules language", None
    return RulesError(msg, Pos(path, line, col), hint, source)



SYNTAX_ERRORS = _SYNTAX_ERRORS
