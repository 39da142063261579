"""One place that renders every diagnostic: ``file:line:col: message``, the source line, a caret, a hint."""
from __future__ import annotations

import re

import attrs

# What must never reach a terminal as itself from a rules file's text: C0 controls, DEL, C1 controls,
# the Unicode bidirectional controls and isolates, and the line/paragraph separators.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")
UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe_text(text, lines: bool = False) -> str:
    """``text`` with every control and bidi character shown as a visible escape (``\\x1b``,
    ``\\u202e``), so text from a rules file or a record cannot drive the terminal it is printed on.
    With ``lines=True`` tabs and newlines are kept (a multi-line message). The one function every
    output path uses (``interpreter.terminal.safe_text`` wraps it for rich)."""
    text = str(text)
    return (UNSAFE_KEEP_LINES if lines else UNSAFE).sub(_escape, text)


@attrs.frozen
class Pos:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def source_of(source: str | dict | None, pos: Pos | None) -> str | None:
    """The text of the file a position is in, given one text or each file's text by path (a
    variant file and its base, dsl.syntax.extend)."""
    if isinstance(source, dict):
        return source.get(pos.file) if pos is not None else None
    return source


class RulesrunError(Exception):
    """The base of every error rulesrun raises for a person to read (a rules file's fault, a misuse
    of the engine API, a record or file that cannot be used, a game the bridges cannot express): its
    ``str`` is the whole message, ready to print. Catch this one to catch them all; anything else
    escaping rulesrun is a bug in rulesrun."""


class RulesError(RulesrunError):
    """A problem in a ``.rules`` file, found while parsing, checking or compiling it."""

    def __init__(self, message: str, pos: Pos | None = None, hint: str | None = None,
                 source: str | dict | None = None):
        # source: the file's text, or each file's text by path (a variant file and its base)
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.source = source_of(source, pos)

    def render(self) -> str:
        message = safe_text(self.message, lines=True)
        head = f"{safe_text(self.pos)}: error: {message}" if self.pos else f"error: {message}"
        lines = [head]
        source = self.source
        if self.pos and source is not None:
            # Lines end at "\n" only, as the parser counts them (str.splitlines would also break at
            # form feeds, "\x1c", "\u2028" and more, and show the wrong line).
            src_lines = source.split("\n")
            if 1 <= self.pos.line <= len(src_lines):
                raw = src_lines[self.pos.line - 1].rstrip("\r").replace("\t", " ")
                lines.append(f"    {safe_text(raw)}")   # escapes widen the line: the caret follows
                lines.append("    " + " " * len(safe_text(raw[:max(self.pos.column, 1) - 1])) + "^")
        if self.hint:
            lines.append(f"hint: {safe_text(self.hint, lines=True)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class RulesRuntimeError(RulesrunError):
    """The rules asked for something impossible while a game was running (a bug in the rules)."""

    def __init__(self, message: str, pos: Pos | None = None, source: str | dict | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.source = source_of(source, pos)

    def __str__(self) -> str:
        return RulesError(self.message, self.pos, source=self.source).render().replace(
            ": error: ", ": runtime error: ", 1)


def did_you_mean(name: str, candidates) -> str | None:
    import difflib
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    if not close:
        return None
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


RECURSION_LIMIT = 20_000     # Python frames for compiling deeply nested rules (3.11 frames are cheap)


class deep_rules:
    """Compile deeply nested rules (a long elif chain, a sum of thousands of terms) within a
    higher recursion limit; past even that, a RulesError at the most deeply nested line rather
    than a RecursionError."""

    def __init__(self, path: str, source: str):
        self.path, self.source = path, source

    def __enter__(self):
        import sys
        self.old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self.old, RECURSION_LIMIT))
        return self

    def __exit__(self, kind, err, tb):
        import sys
        sys.setrecursionlimit(self.old)
        if kind is not None and issubclass(kind, RecursionError):
            line, col = _deepest(self.source)
            raise RulesError("the rules nest too deeply here for rulesrun to compile",
                             Pos(self.path, line, col), "split the expression or the chain of 'elif's into "
                             "smaller pieces (a 'define', a list, a loop)", self.source) from None
        return False


def _deepest(source: str) -> tuple[int, int]:
    """(line, column) of what most likely nests too deeply: the line with the most brackets,
    indentation and operators, or else the 'if' of the longest chain of 'elif's."""
    best, where, depth = 0, (1, 1), 0
    chain, chain_start, longest = 0, (1, 1), (0, (1, 1))
    for n, text in enumerate(source.split("\n"), 1):
        stripped = text.lstrip(" ")
        indent = len(text) - len(stripped)
        words = stripped.split()
        score = indent + sum(w in ("+", "-", "*", "/", "and", "or", "mod") for w in words)
        for col, ch in enumerate(text, 1):
            depth += ch in "(["
            depth -= ch in ")]"
            if depth * 2 + score > best:
                best, where = depth * 2 + score, (n, col)
        if stripped.startswith("if "):
            chain, chain_start = 0, (n, indent + 1)
        elif stripped.startswith("elif "):
            chain += 1
            longest = max(longest, (chain, chain_start))
    return where if best >= 200 or longest[0] < 200 else longest[1]
