"""Text from a rules file (or a record) made safe to print on a terminal.

A rules file's texts — its title, card names, labels, announcements, kinds' values — reach the
terminal in many places. A control character in them (ESC starts a terminal command: it can move
the cursor, retitle the window, clear the screen, hide text; BEL, CR, backspace overwrite what is
shown) or a bidirectional-override character (which reorders what is shown, so a line reads other
than it is) must never reach the terminal as itself. ``safe(text)`` (``dsl.errors.safe_text``, which
renders the diagnostics too) shows each such character as a visible escape (``\\x1b``, ``\\u202e``),
and ``SafeConsole`` does that for everything a rich console prints, so no output path through it
can forget. Tab and newline are kept only where a line may hold them (``lines=True``).
"""
from __future__ import annotations

from rich.console import Console
from rich.segment import Segment

from rulesrun.dsl.errors import UNSAFE, UNSAFE_KEEP_LINES
from rulesrun.dsl.errors import safe_text as safe

__all__ = ["safe", "is_safe", "safe_data", "SafeConsole"]


def is_safe(text: str) -> bool:
    return UNSAFE.search(text) is None


def safe_data(value):
    """A copy of a JSON-like value (an observation) with every string made safe."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [safe_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(safe_data(v) for v in value)
    if isinstance(value, dict):
        return {safe_data(k) if isinstance(k, str) else k: safe_data(v) for k, v in value.items()}
    return value


class SafeConsole(Console):
    """A rich Console that never writes a control character it was not asked to: the text of every
    segment it renders is made safe (tabs and newlines kept); rich's own control segments (clear
    the screen, move the cursor) pass as they are. Emoji codes (``:smile:``) are off."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def _render_buffer(self, buffer):
        clean = [seg if seg.control or UNSAFE_KEEP_LINES.search(seg.text) is None
                 else Segment(safe(seg.text, lines=True), seg.style, seg.control) for seg in buffer]
        return super()._render_buffer(clean)
