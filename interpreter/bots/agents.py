"""Agents that choose actions. Every agent sees only ``state.legal_actions()`` and what its seat may see.

    random       uniformly among the legal actions
    greedy       one ply: the action after which the seat stands best on the file's ``winners``
                 ordering (or ``score``), judged on one determinisation; ties broken at random
    ismcts       information-set Monte Carlo tree search (single observer): every iteration
                 re-deals the cards the seat cannot see (``observe.resample``), walks a tree of
                 actions with UCB, and plays on with a cheap learnt policy (MAST) until the next
                 scoring event or the end
    ismcts:N     ... with N iterations per decision (default 200)
    ismcts:Ts    ... with T seconds per decision (``ismcts:2s``, ``ismcts:0.5s``)

An agent is made for one seat of one game (``make_agent(kind, seed)``) and asked ``choose(state)``
whenever its seat is to move. Agents that search remember, for the game in progress, which cards
their seat has seen (see ``Memory``); they notice a new game by its seed and start afresh.
Nothing here knows any particular game: the objective is the file's own ``winners``/``score``.
"""
from __future__ import annotations

import math
import random
import time

from rulesrun.dsl import RulesRuntimeError

from rulesrun.interpreter.runtime.observe import announced_cards, resample, revealed_cards, visible_cards

DEFAULT_ITERATIONS = 200
EXPLORATION = 0.7          # UCB's constant; rewards are in [0, 1]
MAST_EPSILON = 0.3         # in rollouts, the share of random moves (the rest: the best on average so far)
MAX_ROLLOUT = 5000         # decisions a rollout may take before it is scored where it stands
GUIDED_ROLLOUT = 2         # with a file's heuristic: rounds of turns a rollout takes before it is
                           # scored on the standing, then the heuristic


# ── what a seat may remember ────────────────────────────────────────────────
class Memory:
    """The cards one seat has seen in the game in progress, and may assume are still where it saw
    them go: every card it has seen in a zone it may look at, and every card named in an
    announcement (announcements are public), and every card the rules showed it (``reveal``,
    ``reveal … to`` it), since the last chance event.

    A chance event (a shuffle — the engine records that one happened, which everybody at the
    table sees; not its order, which this class never reads) may put any card anywhere, so the
    memory then restarts from what the seat sees now. Only the seat's own views and the public
    announcements are read; never another seat's decision texts nor the order of a shuffle.

    Where each card is believed to be (``known.where``: card -> zone) is where the seat last saw
    it, or where it went when it left a place the seat sees or was named in an announcement (the
    trick gathered into a pile, a card passed to a neighbour). A card that then moves on between
    places the seat does not see (passed on again, secretly) is still believed where it was: the
    bots imagine it there (``observe.resample``), never where it really went."""

    def __init__(self, seat: int | None = None):
        self.seat = seat
        self.game = None
        self.known: Known = Known()
        self.ann = None
        self.steps = None       # the history (its newest link) at the last update
        self.revealed: set = set()  # the keys of what the rules had shown (state.revealed) at the last update

    def update(self, state, seat: int | None = None) -> "Known":
        seat = self.seat if seat is None else seat
        key = (id(state.program), state.seed)
        new_cards = None
        if key == self.game:
            new = _steps_since(state.history_mark, self.steps)     # None: that history is not this one's past
            if new is not None and all(isinstance(h, str) for h in new):   # no chance event since
                new_cards = _announced_since(state, self.ann, seat)
        seen = visible_cards(state, seat)
        # what the rules showed this seat since (a hand shown to it alone: 'reveal p.hand to q')
        told = revealed_cards(state, seat, self.revealed if key == self.game else None)
        self.revealed = set(state.revealed)
        loc = state.card_zones
        if new_cards is None:  # a new game, a shuffle, or a past we cannot line up: start afresh
            self.known = Known(seen | told)
            self.known.where = {c: loc[c] for c in self.known}
        else:
            known, where = self.known, self.known.where
            shown = _shown_zones(state, seat)
            for c in known:     # gone from a place the seat sees: followed to where it went, once
                if c not in seen and where.get(c) in shown:
                    where[c] = loc[c]
            for c in new_cards | told:     # named in an announcement or shown: followed to where it went, once
                where[c] = loc[c]
            for c in seen:
                where[c] = loc[c]
            known |= seen
            known |= new_cards
            known |= told
        self.game = key
        self.ann = state.log_mark
        self.steps = state.history_mark
        return self.known


class Known(set):
    """The cards a seat remembers (a set), with ``where`` each is believed to be (card -> zone)."""

    def __init__(self, cards=()):
        super().__init__(cards)
        self.where: dict = {}


def _shown_zones(state, seat: int) -> set:
    """The zones whose cards ``seat`` sees."""
    return {zi for zi, info in enumerate(state.program.zones) if info.seen_by(seat)}


def _steps_since(steps, since) -> list | None:
    """The steps of the history ``steps`` taken after its earlier point ``since`` (a link of the same
    history: ``dsl.program.add_step``), newest first; None when ``since`` is not in it (a history
    taken back, or read from a file). Walks only the new links, not the whole game, so a bot that
    remembers pays for the steps since its last turn."""
    out = []
    while steps is not since:
        if steps is None:
            return None
        out.append(steps[1])
        steps = steps[0]
    return out


def _announced_since(state, since, seat=None) -> set[int] | None:
    """The cards named in announcements made after ``since``, or None if ``since`` is not part of
    this state's log (a state read back from JSON, say)."""
    return announced_cards(state, since, strict=True, seat=seat)


def determinise(state, seat: int, rng: random.Random, known) -> object:
    """A copy of ``state`` as ``seat`` might imagine it: the cards it cannot see (and does not
    remember) dealt again at random among the places it cannot see (``observe.resample``), and the
    future chance events drawn afresh (a new seed, no stacked deck), so that nothing ``seat`` cannot
    know carries over. The result depends only on what the seat sees, ``known`` and ``rng``: two
    states that look the same to the seat give the same copy. The copy has no history and no log
    (the rules never read them; rollouts have no use for them)."""
    d = resample(state, seat, _Canonical(rng), known, relabel_log=False, redraw=True)
    d.fresh_future(rng.getrandbits(62))
    return d


class _Canonical:
    """A shuffle for ``resample`` that depends only on which cards are shuffled, not on their order
    (their order is where they really lie, which the seat does not know)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def shuffle(self, cards: list) -> None:
        order = sorted(cards)
        self.rng.shuffle(order)
        cards[:] = order

    def getrandbits(self, k: int) -> int:
        return self.rng.getrandbits(k)


# ── how well a seat stands ──────────────────────────────────────────────────
def _primary(state) -> list | None:
    """Each seat's first key on the ``winners`` ordering, signed so that bigger is better: a change
    in it marks a scoring event (the end of a round, typically)."""
    keys = state.program.winner_keys
    if not keys:
        return None
    sign, fn = keys[0]
    return [sign * fn(state, p) for p in range(state.program.players)]


def _rank(values: list, p: int) -> float:
    """The share of the other seats that ``values[p]`` beats, ties counting half."""
    n = len(values)
    if n == 1:
        return 1.0
    v = values[p]
    return sum((w < v) + 0.5 * (w == v) for q, w in enumerate(values) if q != p) / (n - 1)


def standings(state) -> list[tuple] | None:
    """Each seat's key on the file's ``winners`` ordering (``score`` when there is no ``winners``),
    signed so that bigger is better; None when the file has neither. Works on any state."""
    keys = state.program.winner_keys
    if not keys:
        return None
    return [tuple(sign * fn(state, p) for sign, fn in keys) for p in range(state.program.players)]


def rewards(state, ranks: list[tuple] | None = None) -> list[float]:
    """A number in [0, 1] per seat, comparable across games whatever their score scale: half for
    the rank (the share of the other seats it beats, ties counting half) and half for winning (shared
    equally by tied winners). At the end the winners are ``state.winners()``; before it, the leaders."""
    n = state.program.players
    if ranks is None:
        ranks = standings(state)
    if state.open_decision is None:
        won = state.winners()
    elif ranks is None:
        won = list(range(n))
    else:
        best = max(ranks)
        won = [p for p in range(n) if ranks[p] == best]
    out = []
    for p in range(n):
        if n == 1:
            rank = 1.0
        elif ranks is None:
            rank = 0.5
        else:
            beats = sum((ranks[q] < ranks[p]) + 0.5 * (ranks[q] == ranks[p]) for q in range(n) if q != p)
            rank = beats / (n - 1)
        out.append(0.5 * rank + (0.5 / len(won) if p in won else 0.0))
    return out


def cut_rewards(state, base: list) -> list[float]:
    """Rewards for a rollout stopped at a scoring event before the end: half from the rewards of the
    standings now (``rewards``), half from the rank of what each seat gained since ``base`` (the
    signed first keys when the rollout began) — so that a seat far ahead or behind still learns
    which play scores better this round."""
    now = _primary(state)
    gain = [a - b for a, b in zip(now, base)]
    total = rewards(state)
    return [0.5 * t + 0.5 * _rank(gain, p) for p, t in enumerate(total)]


# ── the agents ──────────────────────────────────────────────────────────────
class RandomAgent:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, state):
        actions = state.legal_actions()
        return actions[self.rng.randrange(len(actions))]


class GreedyAgent:
    """One ply: tries every legal action on one determinisation of the state and takes the one
    after which its seat stands best — its key on the file's ``winners`` ordering (or ``score``)
    minus the best other seat's — then, where the file declares a ``heuristic``, by the same
    difference of heuristic values (what the standing does not yet show, like a shedding game's
    cards left in hand), breaking ties at random. Where nothing changes either within one move
    (scores that count only at the end of a round, and no heuristic) it plays like ``random``."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.memory = Memory()

    def choose(self, state):
        actions = state.legal_actions()
        seat = state.current_player()
        known = self.memory.update(state, seat)
        if len(actions) == 1:
            return actions[0]
        d = determinise(state, seat, self.rng, known)
        best, best_value = [], None
        for a in actions:
            c = d.clone()
            try:
                c.apply_action(a)
                value = self._value(c, seat)
            except RulesRuntimeError:
                value = None
            if value is None:
                value = (-math.inf,)
            if best_value is None or value > best_value:
                best, best_value = [a], value
            elif value == best_value:
                best.append(a)
        return best[self.rng.randrange(len(best))]

    @staticmethod
    def _value(state, seat: int):
        ranks = standings(state)
        value = (0,) if ranks is None else _ahead([r[0] for r in ranks], seat)
        guess = state.program.heuristic
        if guess is not None:
            value += _ahead(_heuristic(state, guess), seat)
        return value


def _heuristic(state, guess) -> list:
    """The file's heuristic for every seat; a Python error in it is a rules error naming its line."""
    return [state.evaluate(guess, p) for p in range(state.program.players)]


def _guided(state, guess) -> list[tuple]:
    """Each seat's standing (as ``standings``) followed by the file's heuristic value."""
    ranks = standings(state) or [()] * state.program.players
    return [r + (h,) for r, h in zip(ranks, _heuristic(state, guess))]


def _ahead(values: list, seat: int) -> tuple:
    """(seat's value minus the best other seat's, seat's value); (seat's value) alone with no other."""
    own = values[seat]
    others = [v for q, v in enumerate(values) if q != seat]
    return (own - max(others), own) if others else (own,)


class ISMCTSAgent:
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse, 2012), with MAST rollouts.

    Per decision, ``iterations`` times (or for ``seconds``):

    1. determinise (``determinise``): the cards the seat neither sees nor remembers (``Memory``)
       are re-dealt among the places it cannot see, and future shuffles get a fresh seed;
    2. walk down one tree shared by all determinisations — the root's children are this seat's
       options by position, deeper nodes are keyed by action text — choosing, for whoever moves at
       a node, by UCB on that seat's rewards with availability counts (an option counts as
       available each time it was legal when its node was passed); add one node, the untried
       option with the best MAST average first;
    3. play on: each move at random ``epsilon`` of the time, otherwise the option with the best
       average reward so far for the player who took it (MAST: by decision and option text, learnt
       over the whole game), until the game ends or, after at least one decision per player, the
       first key of the file's ``winners`` ordering changes for someone (a scoring event: the end of
       a round or a hand, typically) — or, where the file declares a ``heuristic``, after
       ``GUIDED_ROLLOUT`` rounds of turns;
    4. back up the rewards: at the end, ``rewards`` (rank and win); at a scoring event,
       ``cut_rewards`` (half the standings then, half the rank of what each seat gained); cut short
       by the heuristic, ``rewards`` on the standings followed by the heuristic.

    Plays the root's most visited option (ties: the better average, then at random). Decisions with
    one legal option are answered at once. Deterministic for a seed and an iteration budget."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int | None = None,
                 seconds: float | None = None, exploration: float = EXPLORATION, epsilon: float = MAST_EPSILON):
        self.rng = random.Random(seed)
        self.iterations = DEFAULT_ITERATIONS if iterations is None and seconds is None else iterations
        self.seconds = seconds
        self.c = exploration
        self.epsilon = epsilon
        self.cut_mode = "gain"
        self.memory = Memory()
        self.mast: dict = {}
        self.mast_game = None
        self.stop = None        # a threading.Event: when set, the search ends after its current iteration
        self.stats = {"decisions": 0, "iterations": 0, "failed": 0, "steps": 0}

    def choose(self, state):
        actions = state.legal_actions()
        seat = state.current_player()
        known = self.memory.update(state, seat)
        if len(actions) == 1:
            return actions[0]
        if self.mast_game != self.memory.game:
            self.mast = {}
            self.mast_game = self.memory.game
        root = _Node()
        rng = self.rng
        self.stats["decisions"] += 1
        stop = self.stop
        if self.seconds is not None:
            deadline = time.perf_counter() + self.seconds
            done = 0
            while done == 0 or time.perf_counter() < deadline:
                self._iterate(state, seat, known, root)
                done += 1
                if self.iterations is not None and done >= self.iterations or stop is not None and stop.is_set():
                    break
        else:
            for _ in range(self.iterations):
                self._iterate(state, seat, known, root)
                if stop is not None and stop.is_set():
                    break
        kids = root.children
        if not kids:
            return actions[rng.randrange(len(actions))]
        top = max((ch.n, ch.w / ch.n if ch.n else 0.0) for ch in kids.values())
        best = [i for i, ch in kids.items() if (ch.n, ch.w / ch.n if ch.n else 0.0) == top]
        return actions[best[rng.randrange(len(best))] if len(best) > 1 else best[0]]

    def _iterate(self, state, seat: int, known, root: "_Node") -> None:
        rng = self.rng
        d = determinise(state, seat, rng, known)
        self.stats["iterations"] += 1
        n_players = d.program.players
        decisions = d.program.decisions
        mast = self.mast
        eps = self.epsilon
        try:
            base = _primary(d)
        except RulesRuntimeError:
            base = None
        path = []
        moves = []          # (mover, MAST key) of every step of this iteration
        node = root
        depth = 0
        cut = False
        try:
            # selection and expansion
            while d.open_decision is not None:
                mover, did, opts = d.open_decision
                if node is root:
                    keys = list(range(len(opts)))
                    index = None
                else:
                    keys = [str(a) for a in d.legal_actions()]
                    index = {k: i for i, k in enumerate(keys)}
                kids = node.children
                untried = [k for k in keys if k not in kids]
                for k in keys:
                    ch = kids.get(k)
                    if ch is not None:
                        ch.avail += 1
                if untried:
                    k = self._pick_untried(untried, index, did, opts, decisions[did].display)
                    child = kids[k] = _Node()
                    child.avail = 1
                else:
                    c = self.c
                    best, best_u = None, -1.0
                    for k0 in keys:
                        ch = kids[k0]
                        u = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                        if u > best_u:
                            best, best_u = k0, u
                    k, child = best, kids[best]
                i = k if index is None else index[k]
                moves.append((mover, (did, decisions[did].display(opts[i]))))
                d.apply_index(i)
                path.append((child, mover))
                depth += 1
                node = child
                if untried:
                    break
                if base is not None and depth >= n_players and d.open_decision is not None and _primary(d) != base:
                    cut = True
                    break
            # rollout: epsilon-greedy on the average reward of each option so far (MAST)
            guess = d.program.heuristic
            scored = cut
            if not cut:
                limit = depth + (GUIDED_ROLLOUT * n_players if guess is not None else MAX_ROLLOUT)
                while d.open_decision is not None and depth < limit:
                    mover, did, opts = d.open_decision
                    m = len(opts)
                    if m == 1:
                        i = 0
                    elif rng.random() < eps:
                        i = rng.randrange(m)
                    else:
                        disp = decisions[did].display
                        i = _mast_best(range(m), [(did, disp(o)) for o in opts], mast, rng)
                    if m > 1:
                        moves.append((mover, (did, decisions[did].display(opts[i]))))
                    d.apply_index(i)
                    depth += 1
                    if base is not None and depth >= n_players and d.open_decision is not None \
                            and _primary(d) != base:
                        scored = True
                        break
            if d.open_decision is not None and not scored and guess is not None:
                r = rewards(d, _guided(d, guess))     # cut short: the heuristic tells who stands best
            elif d.open_decision is None or base is None or self.cut_mode == "total":
                r = rewards(d)
            else:
                r = cut_rewards(d, base)
        except RulesRuntimeError:
            # a determinisation the rules cannot play on (it should not happen): leave it out
            self.stats["failed"] += 1
            return
        self.stats["steps"] += depth
        for child, mover in path:
            child.n += 1
            child.w += r[mover]
        for mover, key in moves:
            st = mast.get(key)
            if st is None:
                mast[key] = [1, r[mover]]
            else:
                st[0] += 1
                st[1] += r[mover]


    def _pick_untried(self, untried: list, index, did: int, opts: list, display):
        """The option to add to the tree: the best on average so far (MAST), unseen ones counting
        as middling, ties and ``epsilon`` of the time at random — so that with a budget smaller
        than the number of options, the promising ones are tried first."""
        rng = self.rng
        if len(untried) == 1 or rng.random() < self.epsilon:
            return untried[rng.randrange(len(untried))]
        keys = [(did, display(opts[k if index is None else index[k]])) for k in untried]
        return _mast_best(untried, keys, self.mast, rng)


def _mast_best(candidates, keys, mast: dict, rng):
    """The candidate whose move (its key in ``keys``) has the best average reward so far (MAST;
    a move never seen counts as 0.5), equals broken at random: each new equal replaces the one
    kept with chance 1/(number of equals so far)."""
    best, best_q, ties = candidates[0], -1.0, 0
    for c, key in zip(candidates, keys):
        st = mast.get(key)
        q = st[1] / st[0] if st else 0.5
        if q > best_q:
            best, best_q, ties = c, q, 1
        elif q == best_q:
            ties += 1
            if rng.randrange(ties) == 0:
                best = c
    return best


class _Node:
    __slots__ = ("children", "n", "w", "avail")

    def __init__(self):
        self.children: dict = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0


# ── seat specifications ─────────────────────────────────────────────────────
AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "ismcts": ISMCTSAgent}
SEAT_KINDS = ("human",) + tuple(AGENTS)
SEAT_HELP = "human, random, greedy, ismcts, ismcts:N (N iterations a move), ismcts:Ts (T seconds a move)"


# The most a bot may think when its seat comes from someone other than the host at the keyboard: a web
# table's Create form, POST /new, or a saved record (docs/reference/security.md). The host's own command line
# (rulesrun --seats, serve --seats, simulate) may ask for more.
MAX_ITERATIONS = 10_000
MAX_SECONDS = 30.0


def parse_kind(kind: str, bounded: bool = False, where: str = "--seats") -> tuple[str, dict]:
    """'ismcts:500' → ('ismcts', {'iterations': 500}); 'ismcts:2s' → ('ismcts', {'seconds': 2.0}).
    ``bounded``: refuse a budget over MAX_ITERATIONS or MAX_SECONDS (seats from the web or a record).
    Raises ValueError with a message naming ``where`` the seat was given."""
    if not isinstance(kind, str) or len(kind) > 40:
        raise ValueError(f"a seat kind in {where} is one of {SEAT_HELP}")
    text = kind.strip().lower()
    name, _, arg = text.partition(":")
    if name not in SEAT_KINDS:
        raise ValueError(f"unknown seat kind {kind!r} in {where}; use {SEAT_HELP}")
    if not _:
        return name, {}
    if name != "ismcts":
        raise ValueError(f"{name!r} takes no budget ({kind!r} in {where}); only ismcts does, as ismcts:N or ismcts:Ts")
    try:
        if arg.endswith("s"):
            seconds = float(arg[:-1])
            if not (seconds > 0 and math.isfinite(seconds)):
                raise ValueError
            budget = {"seconds": seconds}
        else:
            iterations = int(arg)
            if iterations < 1:
                raise ValueError
            budget = {"iterations": iterations}
    except ValueError:
        raise ValueError(f"bad budget in {kind!r} in {where}: use ismcts:N for N iterations a move "
                         f"(N at least 1, like ismcts:500) or ismcts:Ts for T seconds (like ismcts:2s)") from None
    if bounded and (budget.get("iterations", 0) > MAX_ITERATIONS or budget.get("seconds", 0) > MAX_SECONDS):
        raise ValueError(f"{kind!r} in {where} asks a bot to think more than is allowed here: at most "
                         f"ismcts:{MAX_ITERATIONS} ({MAX_ITERATIONS:,} iterations a move) or "
                         f"ismcts:{MAX_SECONDS:g}s; larger budgets only from the host's own command line (--seats)")
    return name, budget


def parse_seats(spec: str | None, players: int, bounded: bool = False, where: str = "--seats") -> list[str]:
    """'human,random,ismcts:500' → a list of seat kinds; None → seat 1 human, the others random.
    The one parser of seat kinds: the command line, the web table's POST /new and records all use it
    (``bounded`` for the last two: see ``parse_kind``)."""
    if spec is None:
        return ["human"] + ["random"] * (players - 1)
    if not isinstance(spec, str) or len(spec) > 40 * max(players, 1) + players:
        raise ValueError(f"{where} is a comma list of seat kinds, one of {SEAT_HELP} per player")
    seats = [s.strip().lower() for s in spec.split(",")]
    if len(seats) != players:
        raise ValueError(f"{where} names {len(seats)} seat{'s' if len(seats) != 1 else ''} but the game has "
                         f"{players} players; give one of {SEAT_HELP} per player, like "
                         f"{','.join(['human'] + ['random'] * (players - 1))}")
    for s in seats:
        parse_kind(s, bounded, where)
    return seats


def make_agent(kind: str, seed: int | None, stop=None):
    """A new agent for one seat of one game: ``kind`` as in ``parse_seats`` (not ``human``). ``stop``
    (a ``threading.Event``): once it is set, a searching bot answers within one iteration."""
    name, params = parse_kind(kind)
    if name == "human":
        raise ValueError("a human seat has no agent")
    agent = AGENTS[name](seed, **params)
    if stop is not None:
        agent.stop = stop
    return agent
