"""One place that renders every diagnostic: ``file:line:col: message``, the source line, a caret, a hint."""
from __future__ import annotations

import attrs


@attrs.frozen
class Pos:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class RulesError(Exception):
    """A problem in a ``.rules`` file, found while parsing, checking or compiling it."""

    def __init__(self, message: str, pos: Pos | None = None, hint: str | None = None,
                 source: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.source = source

    def render(self) -> str:
        head = f"{self.pos}: error: {self.message}" if self.pos else f"error: {self.message}"
        lines = [head]
        if self.pos and self.source is not None:
            # Lines end at "\n" only, as the parser counts them (str.splitlines would also break at
            # form feeds, "\x1c", "\u2028" and more, and show the wrong line).
            src_lines = self.source.split("\n")
            if 1 <= self.pos.line <= len(src_lines):
                text = src_lines[self.pos.line - 1].rstrip("\r").replace("\t", " ")
                lines.append(f"    {text}")
                lines.append("    " + " " * (max(self.pos.column, 1) - 1) + "^")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class RulesRuntimeError(Exception):
    """The rules asked for something impossible while a game was running (a bug in the rules)."""

    def __init__(self, message: str, pos: Pos | None = None, source: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.source = source

    def __str__(self) -> str:
        return RulesError(self.message, self.pos, source=self.source).render().replace(
            ": error: ", ": runtime error: ", 1)


def did_you_mean(name: str, candidates) -> str | None:
    import difflib
    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    if not close:
        return None
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
