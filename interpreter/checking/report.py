"""The configurations a check covers, and how a failure is reported."""
from __future__ import annotations

import os
import shlex
import tempfile
from pathlib import Path

import attrs

from rulesrun.dsl import RulesError, compile_rules, parse_file
from rulesrun.dsl.syntax.ast import PlayersDecl, VariantDecl

from rulesrun.interpreter.checking.properties import PROPERTIES


@attrs.define
class Config:
    players: int
    variants: tuple
    params: dict = attrs.Factory(dict)   # the game parameters set (dsl.check.params): the same in every configuration

    def describe(self) -> str:
        v = f", variant {'+'.join(self.variants)}" if self.variants else ""
        return f"{self.players} players{v}" + "".join(f", {k}={_text(x)}" for k, x in self.params.items())


def _text(value) -> str:
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def configurations(path: str, players, variants: list[str], rules=None, allow_leaks: bool = False,
                   params: dict | None = None, bounds: bool = True, kept: dict | None = None) -> list[Config]:
    """Each player count (or ``players``) with no variant and with each named variant on its own
    (or ``variants``), all with ``params``; then, with ``bounds``, the parameters' edge values.
    ``kept`` (a dict, if given) collects the secrets a bot's copies keep (``Program.kept_secrets``)."""
    rules = rules if rules is not None else parse_file(path)
    decl = next((i for i in rules.items if isinstance(i, PlayersDecl)), None)
    if decl is None:
        raise RulesError("the rules never say how many players the game is for", None,
                         "add a line like 'players 3 to 5'")
    named = [i for i in rules.items if isinstance(i, VariantDecl)]
    counts = set(range(decl.low, decl.high + 1))
    for v in named:  # a variant may allow other counts (selected by 'when')
        for item in v.items:
            if isinstance(item, PlayersDecl):
                counts.update(range(item.low, item.high + 1))
    chosen = sorted(counts) if players in (None, "all") else [int(players)]
    sets = [tuple(variants)] if variants else [()] + [(v.name,) for v in named if v.when is None]
    out = []
    program = None
    for n in chosen:
        for vs in sets:
            try:
                compiled = compile_rules(rules, n, vs, allow_leaks=allow_leaks, params=params)
            except RulesError as e:
                if "players, not" in e.message and players in (None, "all"):
                    continue  # a count only some variants allow
                raise
            program = program or compiled
            if kept is not None:
                kept.update(dict.fromkeys(compiled.kept_secrets))
            out.append(Config(n, vs, dict(params or {})))
    if out and bounds:
        out += _bounds(rules, out[0], program.param_info, allow_leaks)
    return out


def _bounds(rules, first: Config, infos, allow_leaks: bool) -> list[Config]:
    """A configuration for each value at the edge of a parameter not set on the command line: a
    number's lowest and highest, each value of a kind or yes/no, the other parameters at their
    defaults — with the first configuration's players and variants. A value the rules refuse for
    those players (a parameter's own check) is left out."""
    out = []
    for info in infos:
        if info.name in first.params:
            continue
        if info.type == "number":
            values = [] if info.low is None else [info.low, info.high]
        elif info.type == "bool":
            values = [True, False]
        else:
            values = list(info.choices)
        for value in dict.fromkeys(values):
            if value == info.default:
                continue
            params = {**first.params, info.name: value}
            try:
                compile_rules(rules, first.players, first.variants, allow_leaks=allow_leaks, params=params)
            except RulesError:
                continue
            out.append(Config(first.players, first.variants, params))
    return out


def write_moves(failure, path: str) -> Path:
    """The moves of a failure, one a line, in a new private folder (never a fixed, shared path)."""
    folder = Path(tempfile.mkdtemp(prefix="rulesrun-check-"))
    target = folder / f"{Path(path).stem}-{failure.players}p-{failure.prop.replace(' ', '_')}.moves"
    # a fresh file in a folder only we can write: O_EXCL, and no symlink followed
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(failure.actions) + "\n")
    return target


HOW = {"shrunk": " (shrunk)", "guided": " (found by guided search; not shrunk)", "full": "",
       "exhaustive": " (the shortest: found breadth first)"}


def report_failure(path: str, f, out) -> None:
    moves = write_moves(f, path)
    v = "".join(f" --variant {shlex.quote(x)}" for x in f.variants)
    v += "".join(f" --param {shlex.quote(f'{k}={_text(x)}')}" for k, x in f.params.items())
    seats = ",".join(["human"] * f.players)
    print(f"FAILED: {PROPERTIES.get(f.prop, f.prop)}", file=out)
    print(f"  {f.message}", file=out)
    print(f"  with {f.players} players{', variants ' + ', '.join(f.variants) if f.variants else ''}, "
          f"seed {f.seed}, after {len(f.actions)} decision{'s' if len(f.actions) != 1 else ''}"
          f"{HOW.get(f.how, '')}:", file=out)
    shown = list(enumerate(f.actions, 1))
    if len(shown) > 40:
        shown = shown[:20] + [(None, f"... {len(shown) - 40} more (all in the moves file) ...")] + shown[-20:]
    for i, a in shown:
        print(f"  {i:>4}. {a}" if i is not None else f"        {a}", file=out)
    print("Replay it step by step:", file=out)
    from rulesrun.interpreter.terminal.command import rulesrun_command      # a command that works here (on the PATH or not)
    print(f"  {rulesrun_command()} {shlex.quote(path)} --players {f.players}{v} --seed {f.seed} "
          f"--moves {shlex.quote(str(moves))} --seats {seats}", file=out)
