"""Bridges from a compiled ``.rules`` game to other projects' game APIs (docs/guides/interop.md).

    interpreter.bridges.openspiel   a pyspiel.Game        (pip install 'rulesrun[openspiel]')
    interpreter.bridges.pettingzoo  a PettingZoo AEC env  (pip install 'rulesrun[pettingzoo]')
    interpreter.bridges.gym         a Gymnasium env       (pip install 'rulesrun[gym]')

The shared, dependency-free parts: ``actions`` (integer action ids for every decision) and
``encoding`` (observation tensors from what one seat may see). Import the bridge you need; this
package imports none of the optional libraries itself (not even numpy: ``Encoder`` is imported
when first asked for), so that a bridge's import without its extra can say which to install
(``require``) instead of ``No module named 'numpy'``.
"""
import importlib

from rulesrun.interpreter.bridges.actions import ActionSpace, BridgeError
from rulesrun.interpreter.bridges.table import Table

__all__ = ["ActionSpace", "BridgeError", "Encoder", "Table", "require"]

# the distribution that brings each module the bridges import, as pip names it
_DISTRIBUTIONS = {"pyspiel": "OpenSpiel (open_spiel)", "numpy": "numpy", "gymnasium": "Gymnasium",
                  "pettingzoo": "PettingZoo"}


def require(bridge: str, extras: str, *modules: str) -> None:
    """Import each of ``modules``; the first that is missing is an ImportError that names it and
    the extra that installs it: ``the OpenSpiel bridge needs numpy, which is not installed: pip
    install 'rulesrun[openspiel]'`` (``extras``: the extra's name, or several joined by ``|``)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            names = " or ".join(f"'rulesrun[{x}]'" for x in extras.split("|"))
            raise ImportError(f"the {bridge} needs {_DISTRIBUTIONS.get(module, module)}, which is not "
                              f"installed: pip install {names}", name=module) from None


def __getattr__(name: str):
    if name == "Encoder":
        from rulesrun.interpreter.bridges.encoding import Encoder
        return Encoder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def configurations(path) -> list[tuple[int, tuple]]:
    """Every (players, variants) a rules file can be played with: each player count it allows,
    with no variant and with each variant alone (those the file accepts for that count; a variant
    that the player count itself chooses comes with it)."""
    from rulesrun.dsl import RulesError, parse_file
    from rulesrun.dsl.syntax.ast import PlayersDecl
    from rulesrun.interpreter.bridges.encoding import engine_game as load_game

    decl = next((i for i in parse_file(path).items if isinstance(i, PlayersDecl)), None)
    low, high = (decl.low, decl.high) if decl else (2, 2)
    names = list(load_game(path, players=low).program.available_variants)
    combos = [()] + [(v,) for v in names]
    out = []
    for n in range(low, high + 1):
        seen = set()
        for combo in combos:
            try:
                prog = load_game(path, players=n, variants=combo).program
            except (RulesError, ValueError):
                continue
            if prog.variants not in seen:
                seen.add(prog.variants)
                out.append((n, tuple(prog.variants)))
    return out
