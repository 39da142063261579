"""The language's grammar (``grammar/rules.lark``, shipped inside the wheel) loaded once as Lark's
LALR parser, with blocks by indentation. Used by ``dsl.syntax.parser`` and ``dsl.syntax.syntax_errors``. The
analysed parser tables are cached in the user's cache folder (``_cache_file``)."""
from __future__ import annotations

import functools
import os
from pathlib import Path

from lark import Lark
from lark.indenter import Indenter


def grammar_path() -> Path:
    """The grammar file: the ``grammar`` package ships it inside the wheel."""
    from rulesrun import grammar
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
    text = grammar_path().read_text(encoding="utf-8")
    return load_parser(text, _cache_file(text))


def load_parser(text: str, cache: str | None) -> Lark:
    """The LALR parser of grammar ``text``: read from the file ``cache`` if it holds it, else built
    (and then written there for the next run, replacing older grammars' files)."""
    options = dict(parser="lalr", postlex=_Indenter(), propagate_positions=True, maybe_placeholders=True,
                   start=["start", "test"])
    if cache is not None:
        try:
            with open(cache, "rb") as f:
                return Lark.__new__(Lark)._load(f, postlex=options["postlex"])   # Lark.load, with our postlex
        except Exception:       # missing, half-written by another process, from another Lark: build it
            pass
    parser = Lark(text, **options)
    if cache is not None:
        part = f"{cache}.{os.getpid()}.part"
        try:
            with open(part, "wb") as f:
                parser.save(f, exclude_options=("postlex",))
            os.replace(part, cache)     # whole, so a process starting now reads all of it or nothing
        except OSError:
            return parser
        folder = os.path.dirname(cache)
        for name in os.listdir(folder):     # an older grammar's tables
            if name.startswith("grammar-") and name.endswith(".lark") and name != os.path.basename(cache):
                try:
                    os.remove(os.path.join(folder, name))
                except OSError:
                    pass
    return parser


def _cache_file(text: str) -> str | None:
    """Where the analysed grammar is kept between runs: Lark's LALR analysis takes about 0.3 s,
    loading it 0.03 s, and every command pays it. A folder of the user's own
    (``$XDG_CACHE_HOME/rulesrun``, else ``~/.cache/rulesrun``), never a shared temporary folder: the
    file is read with pickle. ``RULESRUN_NO_CACHE=1``, or a folder that cannot be made or is not the
    user's, means no cache — the grammar is analysed every time, as before."""
    if os.environ.get("RULESRUN_NO_CACHE"):
        return None
    import hashlib
    import sys

    import lark
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "rulesrun")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.stat(folder)
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
            return None
        if not os.access(folder, os.W_OK):
            return None
    except OSError:
        return None
    digest = hashlib.sha256(f"{text}\n{lark.__version__}\n{sys.version_info[:2]}".encode()).hexdigest()[:16]
    return os.path.join(folder, f"grammar-{digest}.lark")
