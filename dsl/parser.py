"""Parse ``.rules`` text into the AST (dsl.ast) with Lark's LALR parser.

The grammar lives in ``grammar/rules.lark`` (shipped inside the wheel as ``dsl/grammar``).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter

from . import ast as A
from .errors import Pos, RulesError, did_you_mean


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
_DECLARATIONS = ("game", "players", "kind", "cards", "zone", "state", "player", "card", "const", "define",
                 "procedure", "flow", "score", "winners", "heuristic", "invariant", "variant")
_STATEMENTS = ("let", "move", "shuffle", "deal", "announce", "pass", "end", "if", "repeat", "while", "for")
_OPERATORS = frozenset({"+", "-", "*", "/", "mod", "==", "!=", "<=", ">=", "<", ">", "and", "or", "not", "in",
                        "if", "else", ".", "(", "then"})
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
    if {"RPAR", "RSQB", "RBRACE"} & words:   # inside brackets, the comprehension words are noise
        words = {t for t in words if _text_of(t) not in ("for", "where")}
    if not words:
        if 0 < len(accepts) <= 3:
            return _word_list(sorted(_readable(t) for t in accepts))
        return "an operator"
    if len(words) > 5:
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
    if phrase and phrase.endswith("'chooses'"):
        hint = ("a statement is an assignment like 'x = 1', a choice like 'p chooses c from p.hand', "
                "a procedure call like 'play()', or starts with a keyword such as 'move' or 'let'")
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


def _syntax_error(err: Exception, path: str, source: str) -> RulesError:
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


def parse_file(path: str | Path) -> A.RulesFile:
    path = str(path)
    try:
        source = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesError(f"no such rules file: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:   # ValueError: a NUL in the name
        raise RulesError(f"cannot read {path!r}: {e}") from None
    return parse_text(source, path)


def parse_text(source: str, path: str = "<rules>") -> A.RulesFile:
    text = source if source.endswith("\n") else source + "\n"
    try:
        tree = _lark().parse(text, start="start")
    except _SYNTAX_ERRORS as e:
        raise _syntax_error(e, path, source) from None
    try:
        items = _Builder(path, source).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, RulesError):
            raise e.orig_exc from None
        raise
    return A.RulesFile(path=path, source=source, items=tuple(items))


def parse_expr(text: str, path: str, source: str, line: int, col: int) -> A.Expr:
    """Parse an expression embedded in a string (``{...}`` in announce texts)."""
    try:
        tree = _lark().parse(text, start="test")
    except _SYNTAX_ERRORS as e:
        err = _syntax_error(e, path, text)
        raise RulesError(err.message + " in '{" + text + "}'", Pos(path, line, col + (err.pos.column - 1 if err.pos else 0)),
                         None, source) from None
    try:
        return _Builder(path, source, line_base=line, col_base=col).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, RulesError):
            raise e.orig_exc from None
        raise


_INTERP = re.compile(r"\{([^{}]*)\}")


@v_args(meta=True)
class _Builder(Transformer):
    def __init__(self, path: str, source: str, line_base: int = 0, col_base: int = 0):
        super().__init__()
        self.path = path
        self.source = source
        self.line_base = line_base
        self.col_base = col_base

    def _pos(self, meta) -> Pos:
        line = getattr(meta, "line", 1)
        col = getattr(meta, "column", 1)
        if self.line_base:
            return Pos(self.path, self.line_base, self.col_base + col - 1)
        return Pos(self.path, line, col)

    def _tpos(self, tok: Token) -> Pos:
        if self.line_base:
            return Pos(self.path, self.line_base, self.col_base + tok.column - 1)
        return Pos(self.path, tok.line, tok.column)

    def _fail(self, msg, pos, hint=None):
        raise RulesError(msg, pos, hint, self.source)

    def _string(self, tok: Token) -> A.Str:
        raw = tok.value[1:-1]
        pos = self._tpos(tok)
        parts = []
        last = 0
        for m in _INTERP.finditer(raw):
            if m.start() > last:
                parts.append(raw[last:m.start()])
            inner = m.group(1)
            if not inner.strip():
                self._fail("empty {} in a string", Pos(pos.file, pos.line, pos.column + 1 + m.start()),
                           "put an expression inside the braces, like {p}")
            parts.append(parse_expr(inner, self.path, self.source, pos.line, pos.column + 2 + m.start()))
            last = m.end()
        if last < len(raw):
            parts.append(raw[last:])
        if any(ch in p for p in parts if isinstance(p, str) for ch in "{}"):
            self._fail("unbalanced brace in a string", pos, "braces hold an expression: {p.score}")
        return A.Str(pos=pos, parts=tuple(parts))

    # ── top level ──────────────────────────────────────────────────────────
    def start(self, meta, items):
        return [i for i in items if i is not None]

    def game_decl(self, meta, c):
        return A.GameDecl(pos=self._pos(meta), title=c[0].value[1:-1])

    def _int(self, tok) -> int:
        if len(tok.value) > 18:
            self._fail("this number is too long", self._tpos(tok), "numbers in rules are small whole numbers")
        return int(tok.value)

    def players_decl(self, meta, c):
        low = self._int(c[0])
        high = self._int(c[1]) if c[1] is not None else low
        if high < low or low < 1:
            self._fail(f"player range {low} to {high} is empty", self._pos(meta))
        return A.PlayersDecl(pos=self._pos(meta), low=low, high=high)

    def kind_decl(self, meta, c):
        return A.KindDecl(pos=self._pos(meta), name=str(c[0]), values=tuple(str(t) for t in c[1:]),
                          value_pos=tuple(self._tpos(t) for t in c[1:]))

    def cards_decl(self, meta, c):
        attrs_, shown, entries = [], None, []
        for item in c:
            if isinstance(item, A.AttrDecl):
                attrs_.append(item)
            elif isinstance(item, A.Str):
                if shown is not None:
                    self._fail("the cards say twice how they are shown", item.pos)
                shown = item
            else:
                entries.append(item)
        return A.CardsDecl(pos=self._pos(meta), attrs=tuple(attrs_), shown=shown, entries=tuple(entries))

    def attr_decl(self, meta, c):
        return A.AttrDecl(pos=self._pos(meta), name=str(c[0]), type=c[1], default=c[2])

    def shown_decl(self, meta, c):
        return self._string(c[0])

    def card_entry(self, meta, c):
        count, record, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=int(count) if count is not None else 1,
                           fields=record, binders=binders or (), cond=cond)

    def card_product(self, meta, c):
        count, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=int(count) if count is not None else 1,
                           fields=None, binders=binders, cond=cond)

    def record(self, meta, c):
        return tuple(f for f in c if f is not None)

    def field(self, meta, c):
        return (str(c[0]), c[1], self._tpos(c[0]))

    def binders(self, meta, c):
        return tuple(c)

    def binder(self, meta, c):
        return (str(c[0]), c[1])

    def t_number(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="number")

    def t_bool(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="bool")

    def t_player(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="player")

    def t_card(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="card")

    def t_text(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="text")

    def t_named(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name=str(c[0]))

    def t_list(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="list", elem=c[0])

    def per_player(self, meta, c):
        return True

    def visibility(self, meta, c):
        return str(c[0])

    def owner_kind(self, meta, c):
        return str(c[0])

    def zone_decl(self, meta, c):
        return A.ZoneDecl(pos=self._pos(meta), name=str(c[0]), per_player=bool(c[1]), visibility=c[2])

    def state_decl(self, meta, c):
        owner, name, typ, default, vis = c
        return A.StateDecl(pos=self._pos(meta), owner=owner, name=str(name), type=typ, default=default,
                           visibility=vis or "public")

    def const_decl(self, meta, c):
        return A.ConstDecl(pos=self._pos(meta), name=str(c[0]), expr=c[1])

    def params(self, meta, c):
        return tuple(str(t) for t in c)

    def define_decl(self, meta, c):
        return A.DefineDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), expr=c[2])

    def proc_decl(self, meta, c):
        return A.ProcDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), body=c[2])

    def flow_decl(self, meta, c):
        return A.FlowDecl(pos=self._pos(meta), body=c[0])

    def score_decl(self, meta, c):
        return A.ScoreDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def heuristic_decl(self, meta, c):
        return A.HeuristicDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def order_kw(self, meta, c):
        return str(c[0])

    def order(self, meta, c):
        return (c[0], c[1])

    def winners_decl(self, meta, c):
        return A.WinnersDecl(pos=self._pos(meta), var=str(c[0]), orders=tuple(c[1:]))

    def invariant_decl(self, meta, c):
        return A.InvariantDecl(pos=self._pos(meta), text=c[0].value[1:-1], expr=c[1])

    def variant_decl(self, meta, c):
        return A.VariantDecl(pos=self._pos(meta), name=str(c[0]), when=c[1],
                             items=tuple(i for i in c[2:] if i is not None))

    # ── statements ─────────────────────────────────────────────────────────
    def block(self, meta, c):
        return tuple(c)

    def let_stmt(self, meta, c):
        return A.Let(pos=self._pos(meta), name=str(c[0]), expr=c[1])

    def assign_op(self, meta, c):
        return str(c[0])

    def assign_stmt(self, meta, c):
        target, op, expr = c
        if not isinstance(target, (A.Name, A.Attr)):
            self._fail("only a name or an attribute like p.score can be assigned to", target.pos)
        return A.Assign(pos=self._pos(meta), target=target, op=op, expr=expr)

    def bottom(self, meta, c):
        return True

    def move_stmt(self, meta, c):
        return A.Move(pos=self._pos(meta), what=c[0], bottom=bool(c[1]), dest=c[2])

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(pos=self._pos(meta), zone=c[0])

    def deal_stmt(self, meta, c):
        return A.Deal(pos=self._pos(meta), count=c[0], source=c[1], family=str(c[2]), family_pos=self._tpos(c[2]),
                      start=c[3])

    def if_able(self, meta, c):
        return True

    def where_clause(self, meta, c):
        return (c[0], bool(c[1]))

    def choose_stmt(self, meta, c):
        player, var, source, where, label = c
        cond, able = where if where else (None, False)
        return A.Choose(pos=self._pos(meta), player=player, var=str(var), source=source, cond=cond,
                        if_able=able, label=label.value[1:-1] if label else None, label_text=self._label(label))

    def subset_stmt(self, meta, c):
        player, var, source, where, such, label = c
        cond, able = where if where else (None, False)
        return A.Choose(pos=self._pos(meta), player=player, var=str(var), source=source, cond=cond,
                        if_able=able, label=label.value[1:-1] if label else None, subset=True, such_that=such,
                        label_text=self._label(label))

    def _label(self, tok):
        """A label with {expressions} in it, parsed as a text; None for a plain label."""
        return self._string(tok) if tok is not None and "{" in tok.value else None

    def expr_stmt(self, meta, c):
        e = c[0]
        if not isinstance(e, A.Call):
            self._fail("this line does nothing", e.pos, "a statement on its own must call a procedure, like play_trick()")
        return A.ExprStmt(pos=self._pos(meta), expr=e)

    def announce_stmt(self, meta, c):
        return A.Announce(pos=self._pos(meta), text=self._string(c[0]))

    def pass_stmt(self, meta, c):
        return A.Pass(pos=self._pos(meta))

    def end_stmt(self, meta, c):
        return A.EndGame(pos=self._pos(meta))

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        orelse = None
        for extra in c[2:]:
            if extra is None:
                continue
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                orelse = extra[1]
        return A.If(pos=self._pos(meta), branches=tuple(branches), orelse=orelse)

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1])

    def else_clause(self, meta, c):
        return ("else", c[0])

    def repeat_stmt(self, meta, c):
        return A.Repeat(pos=self._pos(meta), count=c[0], body=c[1])

    def while_stmt(self, meta, c):
        return A.While(pos=self._pos(meta), cond=c[0], body=c[1])

    def for_stmt(self, meta, c):
        return A.For(pos=self._pos(meta), var=str(c[0]), source=c[1], body=c[2])

    # ── expressions ────────────────────────────────────────────────────────
    def range(self, meta, c):
        return A.Range(pos=self._pos(meta), low=c[0], high=c[1])

    def ternary(self, meta, c):
        return A.Ternary(pos=self._pos(meta), then=c[0], cond=c[1], other=c[2])

    def _binder(self, e, what):
        if not (isinstance(e, A.Compare) and e.op == "in" and isinstance(e.left, A.Name)):
            self._fail(f"{what} needs a name and where it comes from, like 'c in trick'", e.pos)
        return e.left.id, e.right

    def best(self, meta, c):
        kind, binder, cond, *keys = c
        var, source = self._binder(binder, f"'{kind}'")
        return A.Best(pos=self._pos(meta), kind=kind, var=var, source=source, cond=cond, keys=tuple(keys))

    def or_(self, meta, c):
        return A.BoolOp(pos=self._pos(meta), op="or", left=c[0], right=c[1])

    def and_(self, meta, c):
        return A.BoolOp(pos=self._pos(meta), op="and", left=c[0], right=c[1])

    def not_(self, meta, c):
        return A.Not(pos=self._pos(meta), operand=c[0])

    def comp_op(self, meta, c):
        return " ".join(str(t) for t in c)

    def add_op(self, meta, c):
        return str(c[0])

    mul_op = add_op

    def compare(self, meta, c):
        return A.Compare(pos=self._pos(meta), op=c[1], left=c[0], right=c[2])

    def binop(self, meta, c):
        return A.BinOp(pos=self._pos(meta), op=c[1], left=c[0], right=c[2])

    def neg(self, meta, c):
        return A.Neg(pos=self._pos(meta), operand=c[0])

    def attr(self, meta, c):
        return A.Attr(pos=self._pos(meta), obj=c[0], name=str(c[1]), name_pos=self._tpos(c[1]))

    def call(self, meta, c):
        return A.Call(pos=self._pos(meta), func=str(c[0]), args=tuple(a for a in c[1:] if a is not None))

    def aggregate(self, meta, c):
        return A.Aggregate(pos=self._pos(meta), func=str(c[0]), expr=c[1], var=str(c[2]), source=c[3], cond=c[4])

    def aggregate_filter(self, meta, c):
        var, source = self._binder(c[1], f"'{c[0]}(...)'")
        return A.Aggregate(pos=self._pos(meta), func=str(c[0]), expr=None, var=var, source=source, cond=c[2])

    def _ranged(self, binder, high, what):
        """'x in LOW to HIGH' in a filter: the binder's right side is the range's start."""
        var, low = self._binder(binder, what)
        return var, A.Range(pos=low.pos, low=low, high=high)

    def aggregate_range(self, meta, c):
        var, source = self._ranged(c[1], c[2], f"'{c[0]}(...)'")
        return A.Aggregate(pos=self._pos(meta), func=str(c[0]), expr=None, var=var, source=source, cond=c[3])

    def number(self, meta, c):
        return A.Num(pos=self._pos(meta), value=self._int(c[0]))

    def string(self, meta, c):
        return self._string(c[0])

    def yes(self, meta, c):
        return A.Bool(pos=self._pos(meta), value=True)

    def no(self, meta, c):
        return A.Bool(pos=self._pos(meta), value=False)

    def none(self, meta, c):
        return A.NoneLit(pos=self._pos(meta))

    def name(self, meta, c):
        return A.Name(pos=self._pos(meta), id=str(c[0]))

    def players(self, meta, c):
        return A.Players(pos=self._pos(meta), start=c[0])

    def player_lit(self, meta, c):
        n = int(c[0])
        if n < 1:
            self._fail("players are numbered from 1", self._pos(meta))
        return A.PlayerLit(pos=self._pos(meta), number=n)

    def all_cards(self, meta, c):
        return A.EveryCard(pos=self._pos(meta))

    def list_lit(self, meta, c):
        return A.ListLit(pos=self._pos(meta), items=tuple(i for i in c if i is not None))

    def list_filter(self, meta, c):
        var, source = self._binder(c[0], "'[... where ...]'")
        return A.ListComp(pos=self._pos(meta), expr=A.Name(pos=c[0].left.pos, id=var), var=var, source=source, cond=c[1])

    def list_range(self, meta, c):
        var, source = self._ranged(c[0], c[1], "'[... where ...]'")
        return A.ListComp(pos=self._pos(meta), expr=A.Name(pos=c[0].left.pos, id=var), var=var, source=source, cond=c[2])

    def list_comp(self, meta, c):
        return A.ListComp(pos=self._pos(meta), expr=c[0], var=str(c[1]), source=c[2], cond=c[3])
