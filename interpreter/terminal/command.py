"""How to type ``rulesrun`` here: messages that suggest a command ("Resume with: ...") print one
that works as shown — ``rulesrun`` when that is the command on the PATH, else its path
(``.venv/bin/rulesrun`` after ``make play`` in a shell that has not activated the venv)."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def rulesrun_command() -> str:
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    exe = argv0 if argv0 is not None and argv0.name == "rulesrun" else Path(sys.executable).parent / "rulesrun"
    if not exe.exists():
        return "rulesrun"
    found = shutil.which("rulesrun")
    try:
        if found and os.path.samefile(found, exe):
            return "rulesrun"
    except OSError:
        pass
    absolute = exe.resolve() if not exe.is_absolute() else exe
    try:
        shown = os.path.relpath(absolute)
        if shown.startswith(".."):
            shown = str(absolute)
        elif os.sep not in shown:
            shown = os.path.join(".", shown)
    except ValueError:
        shown = str(absolute)
    return shlex.quote(shown)
