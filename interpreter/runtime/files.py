"""Reading and writing the files a user names: rules files, moves files, saved games.

Every file named on the command line or at the prompt is read the same careful way: it must be a
regular file (a FIFO would block, a device never end), no bigger than a cap, UTF-8 (a byte order
mark is accepted), and a problem is a clear message, never a traceback. Writing is atomic: a
temporary file beside the target, flushed and ``fsync``-ed, then ``os.replace``-d over it, so a
crash or a full disk never leaves half a file where a good one was.
"""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from rulesrun.dsl import RulesrunError

RULES_CAP = 10 * 1024 * 1024     # bytes: a rules file, a record, a moves file


class FileProblem(RulesrunError):
    """A named file that cannot be read or written; the message says why, for a person."""


def _describe(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_text(path: str | Path, what: str = "file", cap: int = RULES_CAP) -> str:
    """The text of a regular UTF-8 file of at most ``cap`` bytes (a BOM is dropped; line ends are
    read as ``\\n``, as Python's text files do)."""
    name = str(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise FileProblem(f"no such {what}: {name}") from None
    except ValueError:
        raise FileProblem(f"cannot read {name!r} ({what}): a file name cannot hold a NUL character") from None
    except OSError as e:
        raise FileProblem(f"cannot read the {what} {name}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FileProblem(f"cannot read the {what} {name}: it is {_describe(st.st_mode)}, not a file")
    if st.st_size > cap:
        raise FileProblem(f"the {what} {name} is too big ({st.st_size:,} bytes; at most {cap:,})")
    try:
        with open(name, "rb") as f:
            data = f.read(cap + 1)
    except OSError as e:
        raise FileProblem(f"cannot read the {what} {name}: {e.strerror or e}") from None
    if len(data) > cap:
        raise FileProblem(f"the {what} {name} is too big (more than {cap:,} bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise FileProblem(f"the {what} {name} is not UTF-8 text (byte {e.start + 1}, line {line}); "
                          f"save it as UTF-8") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_rules_text(path: str | Path):
    """Parse a rules file read the careful way: a ``RulesError`` for anything wrong with it."""
    from rulesrun.dsl import RulesError, parse_text
    try:
        source = read_text(path, "rules file")
    except FileProblem as e:
        raise RulesError(str(e)) from None
    return parse_text(source, str(path))


def atomic_write(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: a temporary file in the same folder,
    flushed and fsync-ed, then renamed over ``path``. Raises ``FileProblem``."""
    name = str(path)
    if "\x00" in name:
        raise FileProblem(f"cannot write {name!r}: a file name cannot hold a NUL character")
    folder = os.path.dirname(os.path.abspath(name))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".rulesrun-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise FileProblem(f"cannot write {name}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(name).st_mode
            os.chmod(tmp, stat.S_IMODE(mode))      # an overwritten file keeps its permissions
        except OSError:
            os.chmod(tmp, 0o644 & ~_umask())
        os.replace(tmp, name)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileProblem(f"cannot write {name}: {e.strerror or e}") from None
    try:                                            # the rename itself survives a crash too
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
