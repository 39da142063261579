"""Scenario tests: YAML files under ``tests/scenarios/<game>/`` play scripted games and check the rules.

The runner knows nothing about any particular game. One YAML file is one scenario:

    rule: "the rule text this scenario checks (quote the rulebook or the ruling)"   # required
    rules: games/magic_shop.rules     # the rules file, relative to the repository root
    players: 4
    variants: []                      # optional
    params: {target: 200}             # optional: the game's parameters (load_game(params=...))
    seed: 1                           # optional (default 1)
    stack: {deck: [...]}              # optional: Game.new_initial_state(stack=...)
    hands: [[...], [...], ...]        # optional sugar: stack `hands_zone` (default "deck") with the
                                      #   concatenation of the hands, for games that deal N cards to
                                      #   each seat in turn from the top (seat 0 gets the first N)
    deals: [null, [[...], ...], ...]  # optional: one `hands` per successive shuffle of `hands_zone`
                                      #   (null = an ordinary random shuffle)
    hands_zone: deck
    xfail: "reason"                   # optional: a known engine/rules bug (strict xfail)
    steps:                            # run in order; each step is a mapping with some of:
      - note: "free text"
        do: ["action text", ...]      # apply these actions in order
        illegal: ["action text", ...] # each must be refused (GameError) and leave the state as it was
        play_until: {<expectations>}  # take the `policy` action until the expectations all hold
        policy: first                 #   first | last | random:<seed>  (default first)
        max_actions: 2000
        snapshot: name                # remember this state (for `deltas`)
        expect: {<expectations>}      # checked after do / play_until
        branches: {name: [steps...]}  # run each list of steps on a clone; the main line goes on
                                      #   from the state before the branches (a list is allowed too)
    actions: [...]                    # shorthand for a single step {do: actions, expect: expect}
    expect: {...}

Expectations (all optional; every one that is given must hold):
    current_player: 2 | terminal      terminal: true/false       decision: "<label of the decision>"
    legal: [...]  (exactly this set)  legal_includes: [...]      legal_excludes: [...]
    vars: {name: value}               player_vars: {name: [v0, v1, ...] | {seat: value}}
    card_vars: {name: {card: value}}
    zones: {zone: [bottom..top]}      zone_sets: {zone: [...]}   zone_counts: {zone: n}
    player_zones / player_zone_sets / player_zone_counts: {zone: [per seat] | {seat: ...}}
    log_contains / log_excludes: [substrings of some / no announcement]
    new_log_contains / new_log_excludes: the same, for the announcements made during this step
    log_count: {substring: number of announcements containing it}
    returns: [...]   winners: [...]
    observation_includes / observation_excludes: {seat: [strings that must / must not appear
                                      anywhere in that seat's observation]}
    seat_log_contains / seat_log_excludes: {seat: [substrings of some / no announcement in the log
                                      that seat reads: the public ones and those told to it alone]}
    deltas: {snapshot: name, vars: {name: change}, player_vars: {name: [change per seat]}}
    game: {num_cards: n, absent_cards: [...], present_cards: [...]}

After every action the file's invariants must hold; at the end of every line of play the game is
replayed from its seed and history and must give the same state.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from rulesrun.interpreter import GameError, State, load_game

from tests.support import ROOT  # noqa: E402
SCENARIOS = ROOT / "tests" / "scenarios"
FILES = sorted(SCENARIOS.glob("*/*.yaml"))

TOP_KEYS = {"rule", "rules", "players", "variants", "params", "seed", "stack", "hands", "deals", "hands_zone",
            "xfail", "steps", "actions", "expect", "note"}
STEP_KEYS = {"note", "do", "illegal", "play_until", "policy", "max_actions", "snapshot", "expect",
             "branches"}
EXPECT_KEYS = {"current_player", "terminal", "decision", "legal", "legal_includes", "legal_excludes",
               "vars", "player_vars", "card_vars", "zones", "zone_sets", "zone_counts", "player_zones",
               "player_zone_sets", "player_zone_counts", "log_contains", "log_excludes",
               "new_log_contains", "new_log_excludes", "log_count", "returns", "winners",
               "observation_includes", "observation_excludes", "seat_log_contains", "seat_log_excludes",
               "deltas", "game"}

_GAMES: dict = {}


class ScenarioError(AssertionError):
    pass


def _game(rules: str, players: int, variants: tuple, params: dict | None = None):
    key = (rules, players, variants, tuple(sorted((params or {}).items())))
    if key not in _GAMES:
        _GAMES[key] = load_game(ROOT / rules, players=players, variants=variants, params=params or None)
    return _GAMES[key]


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario must be a mapping")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ScenarioError(f"{path}: unknown keys {sorted(unknown)}")
    if not data.get("rule"):
        raise ScenarioError(f"{path}: every scenario must name the rule it checks (`rule:`)")
    for key in ("rules", "players"):
        if key not in data:
            raise ScenarioError(f"{path}: `{key}` is required")
    if "steps" in data and ("actions" in data or "expect" in data):
        raise ScenarioError(f"{path}: give either `steps` or `actions`/`expect`, not both")
    return data


def _params():
    out = []
    for f in FILES:
        rel = f.relative_to(SCENARIOS).with_suffix("").as_posix()
        marks = []
        try:
            data = yaml.safe_load(f.read_text()) or {}
        except yaml.YAMLError:
            data = {}
        if isinstance(data, dict) and data.get("xfail"):
            marks.append(pytest.mark.xfail(reason=str(data["xfail"]), strict=True))
        out.append(pytest.param(f, id=rel, marks=marks))
    return out


# ── building the stack ─────────────────────────────────────────────────────
def _stack(data: dict, where: str):
    stack = dict(data.get("stack") or {})
    zone = data.get("hands_zone", "deck")
    deals = None
    if "hands" in data and "deals" in data:
        raise ScenarioError(f"{where}: give `hands` or `deals`, not both")
    if "hands" in data:
        deals = [data["hands"]]
    elif "deals" in data:
        deals = data["deals"]
    if deals is not None:
        if zone in stack:
            raise ScenarioError(f"{where}: `stack` already stacks {zone!r}; do not also give hands")
        orders = []
        for d in deals:
            if d is None:
                orders.append([])
                continue
            if len(d) != data["players"]:
                raise ScenarioError(f"{where}: a deal must give {data['players']} hands, not {len(d)}")
            # a name may repeat as often as the game has copies of that card; the engine refuses more
            orders.append([c for hand in d for c in hand])
        stack[zone] = orders
    return stack or None


# ── reading the state ──────────────────────────────────────────────────────
def _per_seat(spec, n: int, what: str):
    """[v0, v1, ...] or {seat: v} -> list of (seat, value)."""
    if isinstance(spec, list):
        if len(spec) != n:
            raise ScenarioError(f"{what}: give one value per seat ({n}), not {len(spec)}")
        return list(enumerate(spec))
    if isinstance(spec, dict):
        return [(int(k), v) for k, v in spec.items()]
    raise ScenarioError(f"{what}: expected a list per seat or a mapping seat -> value")


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


def _num(v):
    if isinstance(v, bool):
        return int(v)
    return v


def _problems(state, exp: dict, ctx: dict) -> list[str]:
    """Every expectation in ``exp`` that does not hold, as readable messages (empty: all hold)."""
    unknown = set(exp) - EXPECT_KEYS
    if unknown:
        raise ScenarioError(f"unknown expectations {sorted(unknown)}")
    n = state.game.num_players()
    bad: list[str] = []

    def check(ok, msg):
        if not ok:
            bad.append(msg)

    if "current_player" in exp:
        want = exp["current_player"]
        got = "terminal" if state.is_terminal() else state.current_player()
        check(got == want, f"current_player: expected {want!r}, got {got!r}")
    if "terminal" in exp:
        check(state.is_terminal() == bool(exp["terminal"]),
              f"terminal: expected {exp['terminal']}, got {state.is_terminal()}")
    if "decision" in exp:
        got = state.decision_label()
        check(got == exp["decision"], f"decision: expected {exp['decision']!r}, got {got!r}")

    legal = [str(a) for a in state.legal_actions()]
    if "legal" in exp:
        want = [str(a) for a in exp["legal"]]
        check(len(set(legal)) == len(legal), f"legal actions are not unique: {legal}")
        check(sorted(legal) == sorted(want),
              f"legal: expected exactly {sorted(want)}, got {sorted(legal)} "
              f"(missing {sorted(set(want) - set(legal))}, unexpected {sorted(set(legal) - set(want))})")
    for a in exp.get("legal_includes", []):
        check(str(a) in legal, f"legal_includes: {a!r} is not legal; legal: {legal}")
    for a in exp.get("legal_excludes", []):
        check(str(a) not in legal, f"legal_excludes: {a!r} is legal but must not be")

    for name, want in (exp.get("vars") or {}).items():
        got = state.var(name)
        check(got == want, f"vars.{name}: expected {want!r}, got {got!r}")
    for name, spec in (exp.get("player_vars") or {}).items():
        for seat, want in _per_seat(spec, n, f"player_vars.{name}"):
            got = state.var(name, player=seat)
            check(got == want, f"player_vars.{name}[seat {seat}]: expected {want!r}, got {got!r}")
    for name, spec in (exp.get("card_vars") or {}).items():
        for card, want in spec.items():
            got = state.card_var(name, card)
            check(got == want, f"card_vars.{name}[{card}]: expected {want!r}, got {got!r}")

    for key, how in (("zones", "exact"), ("zone_sets", "set"), ("zone_counts", "count")):
        for zone, want in (exp.get(key) or {}).items():
            got = state.cards(zone)
            _compare(check, f"{key}.{zone}", got, want, how)
    for key, how in (("player_zones", "exact"), ("player_zone_sets", "set"),
                     ("player_zone_counts", "count")):
        for zone, spec in (exp.get(key) or {}).items():
            for seat, want in _per_seat(spec, n, f"{key}.{zone}"):
                got = state.cards(zone, player=seat)
                _compare(check, f"{key}.{zone}[seat {seat}]", got, want, how)

    log = state.log()
    new = log[ctx.get("log_start", 0):]
    for key, lines, present in (("log_contains", log, True), ("log_excludes", log, False),
                                ("new_log_contains", new, True), ("new_log_excludes", new, False)):
        for text in exp.get(key, []):
            found = [line for line in lines if text in line]
            if present:
                check(found, f"{key}: no announcement contains {text!r}; announcements: {lines[-25:]}")
            else:
                check(not found, f"{key}: announcements contain {text!r}: {found}")
    for text, count in (exp.get("log_count") or {}).items():
        got = sum(1 for line in log if text in line)
        check(got == count, f"log_count: {text!r} appears in {got} announcements, expected {count}")

    if "returns" in exp or "winners" in exp:
        if not state.is_terminal():
            check(False, "returns/winners expected but the game is not over")
        else:
            if "returns" in exp:
                check(state.returns() == exp["returns"],
                      f"returns: expected {exp['returns']}, got {state.returns()}")
            if "winners" in exp:
                check(sorted(state.winners()) == sorted(exp["winners"]),
                      f"winners: expected {exp['winners']}, got {state.winners()}")

    for key, present in (("observation_includes", True), ("observation_excludes", False)):
        for seat, texts in (exp.get(key) or {}).items():
            seen = set(_strings(state.observation(int(seat))))
            for t in texts:
                if present:
                    check(t in seen, f"{key}: seat {seat} does not see {t!r}")
                else:
                    check(t not in seen, f"{key}: seat {seat} can see {t!r}")

    for key, present in (("seat_log_contains", True), ("seat_log_excludes", False)):
        for seat, texts in (exp.get(key) or {}).items():
            lines = state.log(int(seat))
            for t in texts:
                found = [line for line in lines if t in line]
                if present:
                    check(found, f"{key}: no announcement seat {seat} reads contains {t!r}; "
                                 f"its announcements: {lines[-25:]}")
                else:
                    check(not found, f"{key}: seat {seat} reads {t!r}: {found}")

    if "deltas" in exp:
        spec = dict(exp["deltas"])
        name = spec.pop("snapshot", None)
        if name not in ctx["snapshots"]:
            raise ScenarioError(f"deltas: no snapshot called {name!r}")
        old = ctx["snapshots"][name]
        for var, want in (spec.pop("vars", None) or {}).items():
            got = _num(state.var(var)) - _num(old.var(var))
            check(got == want, f"deltas.vars.{var} since {name!r}: expected {want:+}, got {got:+}")
        for var, per in (spec.pop("player_vars", None) or {}).items():
            for seat, want in _per_seat(per, n, f"deltas.player_vars.{var}"):
                got = _num(state.var(var, player=seat)) - _num(old.var(var, player=seat))
                check(got == want, f"deltas.player_vars.{var}[seat {seat}] since {name!r}: "
                                   f"expected {want:+}, got {got:+}")
        if spec:
            raise ScenarioError(f"deltas: unknown keys {sorted(spec)}")

    if "game" in exp:
        spec = exp["game"]
        game = state.game
        names = game.program.card_names
        if "num_cards" in spec:
            check(len(names) == spec["num_cards"],
                  f"game.num_cards: expected {spec['num_cards']}, got {len(names)}")
        for c in spec.get("absent_cards", []):
            check(c not in names, f"game.absent_cards: {c!r} is in the game")
        for c in spec.get("present_cards", []):
            check(c in names, f"game.present_cards: {c!r} is not in the game")
    return bad


def _compare(check, what, got, want, how):
    if how == "exact":
        check(got == list(want), f"{what}: expected {list(want)}, got {got}")
    elif how == "set":
        check(sorted(got) == sorted(want),
              f"{what}: expected (any order) {sorted(want)}, got {sorted(got)} "
              f"(missing {sorted(set(want) - set(got))}, unexpected {sorted(set(got) - set(want))})")
    else:
        check(len(got) == want, f"{what}: expected {want} cards, got {len(got)}: {got}")


# ── running ─────────────────────────────────────────────────────────────────
UNQUOTED = ("check the shape of each value; YAML reads unquoted text holding ': ' as a mapping, "
            "so quote it: \"Player 2: pass\"")


class Runner:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data
        self.rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        variants = tuple(data.get("variants") or ())
        params = data.get("params") or {}
        if not isinstance(params, dict):
            raise ScenarioError(f"{self.rel}: `params` must be a mapping name -> value")
        self.game = _game(data["rules"], int(data["players"]), variants, params)
        self.seed = int(data.get("seed", 1))
        self.stack = _stack(data, str(self.rel))

    def fail(self, where: str, msg: str):
        raise ScenarioError(f"{self.rel}, {where}: {msg}")

    def run(self):
        try:
            state = self.game.new_initial_state(seed=self.seed, stack=self.stack)
        except GameError as e:
            self.fail("setup", str(e))
        broken = state.check_invariants()
        if broken:
            self.fail("setup", f"invariants fail at the start: {broken}")
        steps = self.data.get("steps")
        if steps is None:
            steps = [{"do": self.data.get("actions", []), "expect": self.data.get("expect", {})}]
        self.run_steps(state, steps, "step", {"snapshots": {}})

    def run_steps(self, state, steps, prefix: str, snapshots: dict):
        if not isinstance(steps, list):
            self.fail(prefix, "steps must be a list")
        for i, step in enumerate(steps, 1):
            where = f"{prefix} {i}" + (f" ({step['note']})" if isinstance(step, dict) and step.get("note") else "")
            if not isinstance(step, dict):
                self.fail(where, f"a step must be a mapping, not {step!r}")
            unknown = set(step) - STEP_KEYS
            if unknown:
                self.fail(where, f"unknown step keys {sorted(unknown)}")
            ctx = {"log_start": len(state.log()), "snapshots": snapshots["snapshots"]}
            for j, action in enumerate(step.get("illegal", []) or [], 1):
                before = state.clone()
                try:
                    state.apply_action(str(action))
                except GameError:
                    pass
                else:
                    self.fail(where, f"illegal action {j} {action!r} was accepted")
                if state != before:
                    self.fail(where, f"refusing {action!r} changed the state")
            for j, action in enumerate(step.get("do", []) or [], 1):
                self.apply(state, action, f"{where}, action {j}")
            if "play_until" in step:
                self.play_until(state, step, where, ctx)
            if "expect" in step:
                try:
                    bad = _problems(state, step["expect"] or {}, ctx)
                except (ScenarioError, GameError) as e:
                    self.fail(where, f"bad expectation: {e}")
                except (TypeError, AttributeError) as e:   # a value of the wrong shape, as YAML read it
                    self.fail(where, f"bad expectation ({type(e).__name__}: {e}); {UNQUOTED}")
                if bad:
                    self.fail(where, "expectations failed:\n  - " + "\n  - ".join(bad)
                              + f"\n  (history: {state.history()[-12:]})")
            if step.get("snapshot"):
                snapshots["snapshots"][step["snapshot"]] = state.clone()
            if "branches" in step:
                branches = step["branches"]
                items = branches.items() if isinstance(branches, dict) else \
                    ((str(k), v) for k, v in enumerate(branches, 1))
                for name, sub in items:
                    clone = state.clone()
                    sub_snaps = {"snapshots": dict(snapshots["snapshots"])}
                    self.run_steps(clone, sub, f"{where}, branch {name!r}, step", sub_snaps)
        if prefix == "step" or "branch" in prefix:
            self.check_replay(state, prefix)

    def apply(self, state, action, where):
        if isinstance(action, dict):
            self.fail(where, f"the action {action!r} was read as a mapping: {UNQUOTED}")
        try:
            state.apply_action(str(action))
        except GameError as e:
            self.fail(where, f"cannot play {action!r}: {e}")
        broken = state.check_invariants()
        if broken:
            self.fail(where, f"after {action!r} invariants fail: {broken}")

    def play_until(self, state, step, where, ctx):
        cond = step["play_until"] or {}
        policy = str(step.get("policy", "first"))
        rng = None
        if policy.startswith("random"):
            rng = random.Random(int(policy.split(":", 1)[1]) if ":" in policy else 0)
        elif policy not in ("first", "last"):
            self.fail(where, f"unknown policy {policy!r}")
        limit = int(step.get("max_actions", 5000))
        for k in range(limit + 1):
            try:
                if not _problems(state, cond, ctx):
                    return
            except (ScenarioError, GameError) as e:
                self.fail(where, f"bad play_until condition: {e}")
            if state.is_terminal():
                self.fail(where, f"play_until: the game ended before {cond} held")
            if k == limit:
                break
            legal = state.legal_actions()
            a = legal[0] if policy == "first" else legal[-1] if policy == "last" else rng.choice(legal)
            self.apply(state, a, f"{where}, play_until action {k + 1}")
        self.fail(where, f"play_until: {cond} did not hold within {limit} actions")

    def check_replay(self, state, where):
        again = self.game.replay(self.seed, state.history(), stack=self.stack)
        if again != state:
            self.fail(where, "replaying the seed and history does not give the same state")


@pytest.mark.parametrize("path", _params())
def test_scenario(path):
    message = None
    try:
        Runner(path, _load(path)).run()
    except ScenarioError as e:
        message = str(e)
    if message:
        pytest.fail(message, pytrace=False)


def test_scenarios_exist():
    assert FILES, f"no scenario files under {SCENARIOS}"


def test_seat_log_expectations_can_fail():
    """`seat_log_contains` / `seat_log_excludes` read the log of one seat: a line told to seat 1
    alone is found there, and claiming another seat reads it (or that seat 1 does not) fails."""
    path = SCENARIOS / "magi" / "draw_told.yaml"
    data = _load(path)
    told = {"seat_log_contains": {1: ["You draw red Grail."]}}
    Runner(path, {**data, "steps": data["steps"][:2] + [{"expect": told}]}).run()
    for wrong in ({"seat_log_contains": {0: ["You draw red Grail."]}},
                  {"seat_log_excludes": {1: ["You draw red Grail."]}}):
        with pytest.raises(ScenarioError, match="seat_log"):
            Runner(path, {**data, "steps": data["steps"][:2] + [{"expect": wrong}]}).run()


def test_unquoted_text_read_as_a_mapping_is_a_clear_failure_not_a_traceback():
    """YAML reads `[Player 2 passes: yes]` as a list holding a mapping; the runner says so."""
    path = SCENARIOS / "magi" / "draw_told.yaml"
    data = _load(path)
    for step in ({"expect": {"log_contains": [{"Player 2 draws": "x"}]}},
                 {"do": [{"play": "red Grail"}]}):
        with pytest.raises(ScenarioError, match="quote it"):
            Runner(path, {**data, "steps": [step]}).run()
