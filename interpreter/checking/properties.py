"""The properties ``check`` holds a rules file to, and the player that plays one game under them."""
from __future__ import annotations

import json
import random

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.dsl.program import NoLegalAction, steps_count

from rulesrun.interpreter.runtime.engine import Game, GameError, State, never_ended
from rulesrun.interpreter.runtime.observe import announced_cards, revealed_cards, visible_cards
from rulesrun.interpreter.checking.sightings import Sightings
from rulesrun.interpreter.checking.leaks import Leak, TwinFailed, pick_twin_leak, static_leak, twin_leak

# the properties that compare two games step by step: the report says how many steps they compared,
# and one that was tried but compared nothing fails (it held of nothing)
COMPARED = ("no derived leaks", "hidden picks")

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
    "no derived leaks": "the same game with the cards a seat never saw dealt differently shows that seat "
                        "the same observations and announcements",
    "bots see what their seat sees": "a bot's choice does not depend on which consistent twin of the state "
                                     "it is given (the cards and secret values its seat cannot see, dealt "
                                     "and drawn again)",
    "hidden picks": "in an 'at once' block, another seat's pick chosen otherwise shows a seat nothing "
                    "different before every seat has chosen",
    "invariants": "the file's own invariants hold at every step",
    "runs": "the rules never fail at run time",
}


_NONE = object()


class Violation(Exception):
    def __init__(self, prop: str, message: str):
        super().__init__(f"{prop}: {message}")
        self.prop = prop
        self.message = message


def one_line(e: Exception) -> str:
    first = str(e).split("\n")[0]
    pos = getattr(e, "pos", None)
    return first + (f" (at {pos})" if pos and str(pos) not in first else "")


def runtime(e: Exception, where: str = "") -> Violation:
    """Any error while checking, as a finding: a rules error names its line; anything else is shown
    with its kind, since it should never happen."""
    if isinstance(e, NoLegalAction):
        return Violation("legal action", one_line(e) + where)
    if isinstance(e, (RulesRuntimeError, RulesError)):
        return Violation("runs", one_line(e) + where)
    if isinstance(e, GameError):
        return Violation("runs", f"the engine refused: {e}{where}")
    return Violation("runs", f"{type(e).__name__}: {e}{where} (an error of rulesrun itself, please report it)")


class GameChecker:
    """Plays games under the properties; ``play`` raises Violation. With ``coverage`` (a Coverage),
    a ``tracer`` and a ``probe`` (AbleProbe), it records what the rules ran. A ``tracer`` with the
    ``rules`` alone only watches the announcements (what each seat sees as one is made)."""

    def __init__(self, game: Game, max_steps: int, sample_every: int = 7, twin_every: int = 150,
                 coverage=None, tracer=None, probe=None, rules=None):
        self.game = game
        self.max_steps = max_steps
        self.sample_every = sample_every
        self.twin_every = twin_every
        self.n = game.players
        self.ncards = len(game.program.card_names)
        self.steps = 0
        self.counts = {k: 0 for k in PROPERTIES}
        self.counts.update({k + " compared": 0 for k in COMPARED})
        self.at_once = any(d.at_once is not None for d in game.program.decisions)
        self.counts["at once blocks"] = int(self.at_once)     # (whether 'hidden picks' applies)
        self.coverage, self.tracer, self.probe = coverage, tracer, probe
        self.indices: list = []          # the option numbers taken in the last game
        self.lengths: list = []          # decisions in each game played to its end
        self.sight = Sightings(self.n, self.ncards)
        self.on_watch = None             # f(step, lines) when a watched line ran in a step (guided search)
        self.step_now = 0                # the decision being applied (for what a 'reveal' shows)
        self.opaque = None               # the first step whose state a 'reveal' of a local may show
        if tracer is not None and (rules or coverage) is not None:
            tracer.announcing(rules or coverage.rules, self._glimpse)
            tracer.revealing(rules or coverage.rules, self._reveal)

    def _reveal(self, frame, node) -> None:
        """A ``reveal`` just ran. The cards it showed (a card or cards held in a local, a zone's
        cards: noted in ``state.revealed``; ``reveal p.hand``: every player's hand) count as seen
        by every seat — or, shown to one player (``reveal ... to q``), by that seat alone. Values
        (state, or a local that is not a card) are noted in the state, which the twin test
        compares: two deals that the rules show differently part there."""
        from rulesrun.dsl.syntax import ast as A
        prog = self.game.program
        state = next((v for v in frame.f_locals.values() if isinstance(v, State)), None)
        if state is None:
            return
        by_place: dict = {}
        for key, v in state.revealed.items():
            if key[0] in ("local", "zone", "value") and key[1] == node.pos.line:
                cards = set() if key[0] == "value" else set(v) if isinstance(v, list) else {v} - {None}
                by_place.setdefault(key[2], []).append((key[3] if len(key) == 4 else None, cards))
        for place, e in enumerate(node.exprs):
            if node.to is None and isinstance(e, A.Attr) and e.name in prog.families:
                zones = [zi for zi, z in enumerate(prog.zones) if z.family == e.name]   # every player's
            elif place in by_place:        # (a value's set is empty: the twin test compares it)
                for seat, cards in by_place[place]:
                    for s in (range(self.n) if seat is None else (seat,)):
                        self.sight.saw(state, s, cards, self.step_now)
                continue
            elif isinstance(e, A.Attr) or (isinstance(e, A.Name) and any(v.name == e.id for v in prog.globals)):
                continue    # state: noted in the state itself
            else:
                if self.opaque is None:
                    self.opaque = self.step_now
                continue
            cards = {c for zi in zones for c in state.zones[zi]}
            for s in range(self.n):
                self.sight.saw(state, s, cards, self.step_now)

    def _glimpse(self, frame) -> None:
        """An announcement is about to be made: the cards each seat sees at this moment count as
        seen (a card drawn face up and put back before the next decision was seen all the same)."""
        state = next((v for v in frame.f_locals.values() if isinstance(v, State)), None)
        if state is not None:
            for s in range(self.n):
                self.sight.saw(state, s, visible_cards(state, s), self.step_now)

    def play(self, seed: int, choices, trace: list, give_up_after: int | None = None, chooser=None) -> None:
        """Play one game under the properties: take ``choices[k] % options`` at step k, then ask
        ``chooser(state, actions, rng)`` (default: uniformly at random). ``give_up_after`` stops
        quietly after that many decisions: once a failure is known, longer games cannot shrink it."""
        try:
            return self._play(seed, choices, trace, give_up_after, chooser)
        finally:
            if self.coverage is not None:
                self.coverage.add_trace(self.tracer)
            elif self.tracer is not None:
                self.tracer.steps.clear()

    def _run(self, fn, *args):
        """Run the rules (traced for coverage when asked)."""
        return fn(*args) if self.tracer is None else self.tracer.run(fn, *args)

    def _play(self, seed, choices, trace, give_up_after, chooser) -> None:
        game = self.game
        self.indices = indices = []
        cov, probe = self.coverage, self.probe
        # seen in a zone the seat may look at (at a decision, or as an announcement is made)
        self.sight = Sightings(self.n, self.ncards)
        self.step_now, self.opaque = 0, None
        try:
            state = self._run(game.new_initial_state, seed)
        except Exception as e:
            raise runtime(e) from None
        if probe is not None and state.open_decision is not None and probe.wanted(state.open_decision[1]):
            probe.record(cov, state.open_decision[1], probe.probe(None, None, seed))
        if self.tracer is not None:
            self.tracer.seen.clear()
        pick = random.Random(seed ^ 0x5EED)
        leak_rng = random.Random(seed)
        known = [set() for _ in range(self.n)]     # seen or announced: a player may remember them
        self.last_ann = None
        twin_at = leak_rng.randrange(1, self.twin_every + 1)
        step = 0
        self.check_state(state, known, leak_rng, step)
        while not state.is_terminal():
            self.counts["runs"] += 1
            if give_up_after is not None and step > give_up_after:
                return
            if step >= self.max_steps:
                raise Violation("ends", never_ended(self.max_steps))
            actions = state.legal_actions()
            self.counts["legal action"] += 1
            if not actions:
                raise Violation("legal action", f"Player {state.current_player() + 1} is to move but has no legal action")
            texts = [str(a) for a in actions]
            self.counts["unique actions"] += 1
            if len(set(texts)) != len(texts):
                dup = sorted({t for t in texts if texts.count(t) > 1})
                raise Violation("unique actions", f"the same action text is offered twice: {dup}")
            if step < len(choices):
                i = choices[step] % len(actions)
            elif chooser is not None:
                i = chooser(state, texts, pick)
            else:
                i = pick.randrange(len(actions))
            # a copy costs as much as the state is long (its log and history): sampled ever more
            # sparsely; a clone shares them (it is compared up to the links it shares: cheap), a
            # copy through JSON makes them all again, and is sampled more sparsely still
            sample = step % (self.sample_every * (1 + step // 500)) == 0
            twins = self.twins(state, step % (self.sample_every * (1 + step // 100)) == 0) if sample else ()
            trace.append(texts[i])
            indices.append(i)
            before = state.clone() if probe is not None and probe.active else None
            self.step_now = step + 1
            if cov is not None:
                cov.decided(state.decision_label(), texts, texts[i])
            try:
                self._run(state.apply_action, actions[i])
            except NoLegalAction as e:
                trace.append("(no legal action)")
                raise runtime(e) from None
            except Exception as e:
                raise runtime(e) from None
            step += 1
            self.steps += 1
            if before is not None and state.open_decision is not None and probe.wanted(state.open_decision[1]):
                probe.record(cov, state.open_decision[1], probe.probe(before, texts[i], seed))
            if self.on_watch is not None and self.tracer.seen:
                hits = self.tracer.seen[:]
                self.tracer.seen.clear()
                self.on_watch(step, hits)
            for name, twin in twins:
                try:
                    twin.apply_action(texts[i])
                except Exception as e:
                    raise runtime(e, f" (on the {name} copy of the state)") from None
                if twin != state:
                    raise Violation(name, f"after '{texts[i]}' the {name} copy differs from the original")
            self.check_state(state, known, leak_rng, step)
            if step == twin_at:
                self.twin_test(state, seed, leak_rng, trace)
                # each test replays the game so far: ever further apart, so that a long game costs
                # no more than a few replays of itself
                twin_at += max(step, leak_rng.randrange(1, self.twin_every + 1))
        self.twin_test(state, seed, leak_rng, trace)
        self.check_end(state, seed)
        self.lengths.append(step)

    def twins(self, state: State, through_json: bool = True):
        self.counts["clone"] += 1
        c = state.clone()
        if c != state:
            raise Violation("clone", "a fresh clone is not equal to its original")
        if not through_json:
            return (("clone", c),)
        self.counts["json"] += 1
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
        counted = [0] * self.ncards
        for zi, z in enumerate(state.zones):
            for c in z:
                if not 0 <= c < self.ncards:
                    raise Violation("conservation", f"zone {self.zone_name(zi)} holds something that is not a card: {c!r}")
                counted[c] += 1
                if state.card_zones[c] != zi:
                    raise Violation("conservation", f"{self.card(c)} lies in {self.zone_name(zi)} but is "
                                                    f"recorded in {self.zone_name(state.card_zones[c])}")
        for c, k in enumerate(counted):
            if k != 1:
                where = "no zone" if k == 0 else f"{k} zones"
                raise Violation("conservation", f"{self.card(c)} is in {where}")
        # invariants
        self.counts["invariants"] += 1
        try:
            broken = self._run(state.check_invariants)
        except Exception as e:
            raise Violation("invariants", f"an invariant cannot be evaluated: {one_line(e)}") from None
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
        self.last_ann = state.log_mark
        for s in range(self.n):
            now = visible_cards(state, s)
            self.sight.saw(state, s, now, step)
            known[s] |= now
            known[s] |= announced
            if state.revealed:
                known[s] |= revealed_cards(state, s)     # shown by 'reveal', to every seat or to this one
        if step % self.sample_every == 0:
            for s in range(self.n):
                self.counts["no leaks"] += 1
                try:
                    static_leak(state, s, rng, known[s])
                except Leak as e:
                    raise Violation("no leaks", e.message) from None
                except Exception as e:
                    raise runtime(e, f" (on a copy of the state with the cards Player {s + 1} cannot see "
                                     f"dealt differently)") from None
        if (step < 4 or step % (self.sample_every * 3) == 0) and not state.is_terminal():
            self._bot_twin(state, known, rng)

    def _bot_twin(self, state: State, known: list, rng) -> None:
        """The bot of the seat to move chooses the same on the state and on a twin that differs
        only in what that seat cannot see (issue 22): a bot that read hidden state would not."""
        from rulesrun.interpreter.bots.agents import GreedyAgent
        from rulesrun.interpreter.runtime.observe import resample
        seat = state.current_player()
        if len(state.legal_actions()) < 2:
            return
        self.counts["bots see what their seat sees"] += 1
        import random
        rng = random.Random(steps_count(state.history_mark))   # the checker's own generator may be none (exhaustive)
        try:
            twin = resample(state, seat, rng, known[seat], relabel_log=True, redraw=True)
            k = rng.getrandbits(32)
            a, b = str(GreedyAgent(seed=k).choose(state)), str(GreedyAgent(seed=k).choose(twin))
        except Exception as e:
            raise runtime(e, f" (a bot of Player {seat + 1} choosing on a twin of the state)") from None
        if a != b:
            raise Violation("bots see what their seat sees",
                            f"Player {seat + 1}'s greedy bot chose {a!r} here but {b!r} on a state that differs "
                            f"only in what Player {seat + 1} cannot see")

    def twin_test(self, state: State, seed: int, rng, trace: list) -> None:
        """The twin leak test for one seat at random, over the game so far."""
        if self.at_once:
            self._pick_twin(seed, rng, trace)
        s = rng.randrange(self.n)
        hist = state.hist
        upto = len(self.indices) if self.opaque is None else self.opaque - 1
        # the cards it never saw; or, in a game of many deals, not since the last shuffle
        found = self.sight.pool(hist, s, upto, rng) if upto >= 0 else None
        if found is None:
            return
        start, unseen, upto = found
        try:
            # a twin dealt so that the rules show the seat something else (a revealed value) parts
            # from the game there: others are drawn, each swapping fewer cards, until one follows it
            # to the end (or a few have been tried); the report counts the steps of the one that
            # compared most
            self.counts["no derived leaks"] += 1
            compared = 0
            for swap in (len(unseen), 8, 4, 2):
                pool = unseen if swap >= len(unseen) else rng.sample(unseen, swap)
                steps = twin_leak(self.game, seed, hist, self.indices[:upto], s, pool, rng, start)
                compared = max(compared, steps)
                if steps > upto:
                    break
            self.counts["no derived leaks compared"] += compared
        except Leak as e:
            at = ""
            if e.step is not None:
                at = f" (after decision {e.step})" if e.step else " (before the first decision)"
                del trace[e.step:]      # the moves up to the leak are enough to see it
            raise Violation("no derived leaks", e.message + at) from None
        except TwinFailed as e:
            del trace[e.step:]
            raise runtime(e.error, f" (at step {e.step}, in the same game with the cards Player {s + 1} "
                                   f"never saw dealt differently)") from None
        except Exception as e:
            raise runtime(e, " (in the twin leak test)") from None

    def _pick_twin(self, seed: int, rng, trace: list) -> None:
        """The twin test of simultaneous choices, for one seat at random, over the game so far."""
        s = rng.randrange(self.n)
        try:
            compared = pick_twin_leak(self.game, seed, self.indices, s, rng)
            if compared is not None:        # (tried: another seat picked among options)
                self.counts["hidden picks"] += 1
                self.counts["hidden picks compared"] += compared
        except Leak as e:
            del trace[e.step:]
            raise Violation("hidden picks", e.message + f" (after decision {e.step})") from None
        except Exception as e:
            raise runtime(e, " (in the twin test of an 'at once' block)") from None

    def check_end(self, state: State, seed: int) -> None:
        self.counts["ends"] += 1
        self.counts["returns"] += 1
        try:
            ret = self._run(state.returns)
        except Exception as e:
            raise Violation("returns", f"no returns at the end: {one_line(e)}") from None
        if len(ret) != self.n or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in ret):
            raise Violation("returns", f"returns() gave {ret!r}, not one number per seat")
        try:
            self._run(state.winners)
        except Exception as e:
            raise Violation("returns", f"no winners at the end: {one_line(e)}") from None
        self.counts["replay"] += 1
        try:
            again = self.game.replay(seed, state.history())
        except Exception as e:
            raise runtime(e, " (replaying the game from its seed and history)") from None
        if again != state:
            raise Violation("replay", "replaying the seed and the history gives a different state")

    def zone_name(self, zi: int) -> str:
        info = self.game.program.zones[zi]
        return info.name if info.owner is None else f"{info.name} of Player {info.owner + 1}"

    def card(self, c: int) -> str:
        return f"'{self.game.program.card_names[c]}'"
