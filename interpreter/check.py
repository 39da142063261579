"""``rulesrun check``: property-test a rules file with hypothesis.

Hypothesis draws a seed and a list of choices; a game is played from the seed, taking at each
decision the legal action numbered by the next choice (once the list runs out, a generator seeded
by the game's seed picks). After every step the engine's properties and the file's invariants are
checked. On a violation hypothesis shrinks the seed and the choices, so the report shows a short
action sequence that breaks the property, with a command that replays it step by step.
"""
from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Callable

import attrs

from dsl import RulesError, RulesRuntimeError, compile_rules, parse_file
from dsl.ast import PlayersDecl, VariantDecl
from dsl.program import NoLegalAction

from .engine import Game, GameError, State
from .observe import announced_cards, observe, resample, visible_cards

PROPERTIES = {
    "legal action": "the player to move always has a legal action",
    "ends": "every game ends within the step bound",
    "conservation": "every card is in exactly one zone at every step",
    "unique actions": "legal actions and their texts are unique",
    "clone": "a clone equals its original and stays equal under the same actions",
    "json": "a JSON round trip gives an equal state",
    "replay": "seed + history replays to the same state",
    "returns": "returns exist only at the end, one number per seat",
    "no leaks": "resampling the cards a seat cannot see leaves its observation and options unchanged",
    "invariants": "the file's own invariants hold at every step",
    "runs": "the rules never fail at run time",
}


class Violation(Exception):
    def __init__(self, prop: str, message: str):
        super().__init__(f"{prop}: {message}")
        self.prop = prop
        self.message = message


@attrs.define
class Failure:
    prop: str
    message: str
    players: int
    variants: tuple
    seed: int
    actions: list


@attrs.define
class Config:
    players: int
    variants: tuple

    def describe(self) -> str:
        v = f", variant {'+'.join(self.variants)}" if self.variants else ""
        return f"{self.players} players{v}"


@attrs.define
class Report:
    title: str = ""
    configs: int = 0
    games: int = 0
    steps: int = 0
    failure: Failure | None = None
    checks: dict = attrs.Factory(dict)


def configurations(path: str, players: str | int | None, variants: list[str]) -> list[Config]:
    rules = parse_file(path)
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
    if players in (None, "all"):
        chosen = sorted(counts)
    else:
        chosen = [int(players)]
    if variants:
        sets = [tuple(variants)]
    else:
        sets = [()] + [(v.name,) for v in named if v.when is None]
    out = []
    for n in chosen:
        for vs in sets:
            try:
                compile_rules(rules, n, vs)
            except RulesError as e:
                if "players, not" in e.message and players in (None, "all"):
                    continue  # a count only some variants allow
                raise
            out.append(Config(n, vs))
    return out


class GameChecker:
    """Plays one game under the properties; raises Violation."""

    def __init__(self, game: Game, max_steps: int, sample_every: int = 7):
        self.game = game
        self.max_steps = max_steps
        self.sample_every = sample_every
        self.n = game.players
        self.ncards = len(game.program.card_names)
        self.steps = 0
        self.counts = {k: 0 for k in PROPERTIES}

    def play(self, seed: int, choices: list[int], trace: list, give_up_after: int | None = None) -> None:
        """Play one game under the properties. ``give_up_after`` stops quietly after that many
        decisions: once a failure is known, longer games cannot shrink it, so they are cut short."""
        game = self.game
        try:
            state = game.new_initial_state(seed=seed)
        except NoLegalAction as e:
            raise Violation("legal action", _one_line(e)) from None
        except RulesRuntimeError as e:
            raise Violation("runs", _one_line(e)) from None
        pick = random.Random(seed ^ 0x5EED)
        leak_rng = random.Random(seed)
        known = [set() for _ in range(self.n)]
        self.last_ann = None
        step = 0
        self.check_state(state, known, leak_rng, step)
        while not state.is_terminal():
            self.counts["runs"] += 1
            if give_up_after is not None and step > give_up_after:
                return
            if step >= self.max_steps:
                raise Violation("ends", f"the game has not ended after {self.max_steps:,} decisions "
                                        f"(raise the bound with --max-steps if it is just long)")
            actions = state.legal_actions()
            self.counts["legal action"] += 1
            if not actions:
                raise Violation("legal action", f"Player {state.current_player() + 1} is to move but has no legal action")
            texts = [str(a) for a in actions]
            self.counts["unique actions"] += 1
            if len(set(texts)) != len(texts):
                dup = sorted({t for t in texts if texts.count(t) > 1})
                raise Violation("unique actions", f"the same action text is offered twice: {dup}")
            i = choices[step] % len(actions) if step < len(choices) else pick.randrange(len(actions))
            action = actions[i]
            sample = step % self.sample_every == 0
            twins = self.twins(state) if sample else ()
            trace.append(texts[i])
            try:
                state.apply_action(action)
            except NoLegalAction as e:
                trace.append("(no legal action)")
                raise Violation("legal action", _one_line(e)) from None
            except RulesRuntimeError as e:
                raise Violation("runs", _one_line(e)) from None
            step += 1
            self.steps += 1
            for name, twin in twins:
                twin.apply_action(texts[i])
                if twin != state:
                    raise Violation(name, f"after '{texts[i]}' the {name} copy differs from the original")
            self.check_state(state, known, leak_rng, step)
        self.check_end(state, seed)

    def twins(self, state: State):
        self.counts["clone"] += 1
        self.counts["json"] += 1
        c = state.clone()
        if c != state:
            raise Violation("clone", "a fresh clone is not equal to its original")
        try:
            j = State.from_json(self.game, json.loads(json.dumps(state.to_json())))
        except (GameError, TypeError, ValueError) as e:
            raise Violation("json", f"the state does not survive JSON: {e}") from None
        if j != state:
            raise Violation("json", "the state read back from JSON is not equal to the original")
        return (("clone", c), ("json", j))

    def check_state(self, state: State, known: list, rng, step: int) -> None:
        # conservation
        self.counts["conservation"] += 1
        seen = [0] * self.ncards
        for zi, z in enumerate(state.z):
            for c in z:
                if not 0 <= c < self.ncards:
                    raise Violation("conservation", f"zone {self.zone_name(zi)} holds something that is not a card: {c!r}")
                seen[c] += 1
                if state.loc[c] != zi:
                    raise Violation("conservation", f"{self.card(c)} lies in {self.zone_name(zi)} but is "
                                                    f"recorded in {self.zone_name(state.loc[c])}")
        for c, k in enumerate(seen):
            if k != 1:
                where = "no zone" if k == 0 else f"{k} zones"
                raise Violation("conservation", f"{self.card(c)} is in {where}")
        # invariants
        self.counts["invariants"] += 1
        try:
            broken = state.check_invariants()
        except RulesRuntimeError as e:
            raise Violation("invariants", f"an invariant cannot be evaluated: {_one_line(e)}") from None
        if broken:
            raise Violation("invariants", f"invariant \"{broken[0]}\" does not hold")
        # returns only at the end
        if not state.is_terminal():
            self.counts["returns"] += 1
            try:
                state.returns()
            except GameError:
                pass
            else:
                raise Violation("returns", "returns() answered before the game was over")
        # no information leaks
        announced = announced_cards(state, self.last_ann)
        self.last_ann = state.ann
        for s in range(self.n):
            known[s] |= visible_cards(state, s)
            known[s] |= announced
        if step % self.sample_every == 0:
            for s in range(self.n):
                self.counts["no leaks"] += 1
                other = resample(state, s, rng, known[s], relabel_log=False)
                # the log is public and names only known cards, so it cannot differ: leave it out
                a, b = observe(state, s, log=False), observe(other, s, log=False)
                if a != b:
                    key = next(k for k in a if a[k] != b.get(k))
                    raise Violation("no leaks", f"Player {s + 1}'s observation ('{key}') depends on cards "
                                                f"Player {s + 1} cannot see: {_diff(a[key], b[key])}")
                if state.current_player() == s and [str(x) for x in state.legal_actions()] != \
                        [str(x) for x in other.legal_actions()]:
                    raise Violation("no leaks", f"Player {s + 1}'s options depend on cards they cannot see: "
                                                f"{[str(x) for x in state.legal_actions()][:6]}")

    def check_end(self, state: State, seed: int) -> None:
        self.counts["ends"] += 1
        self.counts["returns"] += 1
        try:
            ret = state.returns()
        except (GameError, RulesRuntimeError) as e:
            raise Violation("returns", f"no returns at the end: {_one_line(e)}") from None
        if len(ret) != self.n or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in ret):
            raise Violation("returns", f"returns() gave {ret!r}, not one number per seat")
        self.counts["replay"] += 1
        again = self.game.replay(seed, state.history())
        if again != state:
            raise Violation("replay", "replaying the seed and the history gives a different state")

    def zone_name(self, zi: int) -> str:
        info = self.game.program.zones[zi]
        return info.name if info.owner is None else f"{info.name} of Player {info.owner + 1}"

    def card(self, c: int) -> str:
        return f"'{self.game.program.card_names[c]}'"


def _diff(a, b) -> str:
    if isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            if x != y:
                return f"{x!r} / {y!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if a[k] != b.get(k):
                return f"{k}: {_diff(a[k], b.get(k))}"
    return f"{a!r} / {b!r}"


def _one_line(e: Exception) -> str:
    return " ".join(str(e).split("\n")[0:1]) + (
        f" (at {e.pos})" if getattr(e, "pos", None) and str(e.pos) not in str(e).split("\n")[0] else "")


def check_config(path: str, cfg: Config, games: int, seed: int, max_steps: int,
                 progress: Callable[[int], None] | None = None) -> tuple[GameChecker, Failure | None]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    game = Game(compile_rules(parse_file(path), cfg.players, cfg.variants))
    checker = GameChecker(game, max_steps)
    last: dict = {}
    played = [0]
    failed: set = set()

    @settings(max_examples=games, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False)
    @given(st.integers(0, 2 ** 31 - 1), st.lists(st.integers(0, 2 ** 16), max_size=400))
    def prop(game_seed, choices):
        if "endless" in last:
            return  # a game that never ends is reported as found: shrinking it would replay it again and again
        trace: list = []
        played[0] += 1
        if progress:
            progress(played[0])
        # a game that failed before is replayed in full: cut short, it would pass and look flaky
        key = (game_seed, tuple(choices))
        cap = None if key in failed else last.get("cap")
        try:
            checker.play((game_seed + seed) % 2 ** 31, choices, trace, cap)
        except Violation as v:
            failed.add(key)
            f = Failure(v.prop, v.message, cfg.players, cfg.variants, (game_seed + seed) % 2 ** 31, trace)
            if v.prop == "ends":
                last["endless"] = f
                return
            last["failure"] = f
            last["cap"] = min(last.get("cap", len(trace)), len(trace))
            raise

    try:
        prop()
    except Violation:
        return checker, last["failure"]
    except HypothesisException as e:  # pragma: no cover - hypothesis internals
        raise RuntimeError(f"hypothesis could not run the check: {e}") from None
    return checker, last.get("endless")


def write_moves(failure: Failure, path: str) -> Path:
    folder = Path(tempfile.gettempdir()) / "rulesrun-check"
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(path).stem
    target = folder / f"{name}-{failure.players}p-{failure.prop.replace(' ', '_')}.moves"
    target.write_text("\n".join(failure.actions) + "\n", encoding="utf-8")
    return target


def run_check(path: str, players=None, variants=(), games: int = 100, seed: int = 0,
              max_steps: int = 100_000, out=None, err=None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    configs = configurations(path, players, list(variants))
    report = Report(configs=len(configs))
    tty = hasattr(err, "isatty") and err.isatty()
    start = time.perf_counter()
    totals = {k: 0 for k in PROPERTIES}
    for cfg in configs:
        label = f"{Path(path).name}, {cfg.describe()}"

        def progress(k, label=label):
            if tty:
                print(f"\r  checking {label}: game {k}/{games} ", end="", file=err, flush=True)
        t0 = time.perf_counter()
        checker, failure = check_config(path, cfg, games, seed, max_steps, progress)
        report.title = checker.game.title
        report.games += games if failure is None else 0
        report.steps += checker.steps
        for k, v in checker.counts.items():
            totals[k] += v
        if tty:
            print("\r" + " " * 70 + "\r", end="", file=err)
        if failure is not None:
            print(f"  {label}: FAILED", file=err)
            report_failure(path, failure, out)
            return 1
        print(f"  {label}: {games} games, {checker.steps:,} steps, ok ({time.perf_counter() - t0:.1f}s)", file=err)
    print(f"ok: {report.title} — {len(configs)} configuration{'s' if len(configs) != 1 else ''}, "
          f"{report.games} games, {report.steps:,} steps in {time.perf_counter() - start:.1f}s; "
          f"{len(PROPERTIES)} properties hold:", file=out)
    for k, text in PROPERTIES.items():
        print(f"  - {text} ({totals[k]:,} checks)", file=out)
    return 0


def report_failure(path: str, f: Failure, out) -> None:
    moves = write_moves(f, path)
    v = "".join(f" --variant {x}" for x in f.variants)
    seats = ",".join(["human"] * f.players)
    print(f"FAILED: {PROPERTIES.get(f.prop, f.prop)}", file=out)
    print(f"  {f.message}", file=out)
    print(f"  with {f.players} players{', variants ' + ', '.join(f.variants) if f.variants else ''}, "
          f"seed {f.seed}, after {len(f.actions)} decision{'s' if len(f.actions) != 1 else ''}"
          f"{' (shrunk)' if f.prop != 'ends' else ''}:", file=out)
    shown = list(enumerate(f.actions, 1))
    if len(shown) > 40:
        shown = shown[:20] + [(None, f"... {len(shown) - 40} more (all in the moves file) ...")] + shown[-20:]
    for i, a in shown:
        print(f"  {i:>4}. {a}" if i is not None else f"        {a}", file=out)
    print("Replay it step by step:", file=out)
    from .command import rulesrun_command
    print(f"  {rulesrun_command()} {path} --players {f.players}{v} --seed {f.seed} --moves {moves} --seats {seats}", file=out)
