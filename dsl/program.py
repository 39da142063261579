"""The compiled form of a game: tables, slot layouts and generated functions — everything the engine runs.

A ``Program`` is built once per (rules file, player count, variants) by ``dsl.compile``. Its state
lives in a ``Machine``-shaped object (``interpreter.runtime.engine.State``) with these plain-data fields:

    z       list of zones, each a list of card ids (index 0 = bottom, -1 = top) — or a tuple that clones
            share: ``State.clone`` turns every zone into a tuple in both states, and the first change
            of a zone makes it a list of the changing state's own again (``own``)
    loc     for each card id, the index of the zone that holds it
    g       global state values, by slot
    pv      per-player state: pv[var][seat]
    cv      per-card state:   cv[var][card]
    frames  the call stack of resumable procedures: [procedure index, label to resume at, locals]; at a
            decision the locals are those still needed after it, then the value chosen (the last)
    pending the open decision: [seat, decision index, options] or None
    rng     the random seed for the next chance event
    steps   the history — decision texts, and chance records ["shuffle", zone, order] — as a linked
            list that clones share: (earlier steps, step), None at the start (``State.hist`` gives
            it as a list)
    ann     the announcements, as a linked list of (previous, template index, values...)
"""
from __future__ import annotations

import _random
import random
from typing import Any, Callable

import attrs

from rulesrun.dsl.errors import Pos, RulesRuntimeError

# What a resumable procedure's function returns to the run loop: a decision is open (STOP), the
# frames changed (SWITCH: a call left to the run loop, the end of the game), or the procedure is
# done and its frame popped (DONE; a caller that called it directly carries on).
STOP, SWITCH, DONE = 1, 2, 3
CALL_DEPTH = 60     # frames deeper than this call through the run loop, not the Python stack
MAX_STEPS = 2_000_000  # loop rounds without a decision before the rules are deemed stuck
MAX_ITEMS = 100_000    # the most numbers a range may hold
LOOPS_TOO_LONG = "the rules went round loops too long without asking anyone anything; is there a loop that never ends?"


def add_step(S, step) -> None:
    """Record a step in the history: a new link (earlier steps, step), so a clone that shares the
    earlier steps is not changed."""
    S.steps = (S.steps, step)


def steps_list(steps) -> list:
    """The steps of a history (``add_step``), oldest first, as a new list."""
    out = []
    while steps is not None:
        out.append(steps[1])
        steps = steps[0]
    out.reverse()
    return out


def steps_since(steps, mark) -> list:
    """The steps of a history (``add_step``) newer than ``mark`` (an older head of the same
    history, or None for all), newest first, each as (its number from 0, the step)."""
    new = []
    while steps is not None and steps is not mark:
        new.append(steps[1])
        steps = steps[0]
    first = steps_count(steps)
    return [(first + len(new) - 1 - k, step) for k, step in enumerate(new)]


def steps_count(steps) -> int:
    n = 0
    while steps is not None:
        n += 1
        steps = steps[0]
    return n


def steps_of(entries):
    """A history (``add_step``) holding ``entries``, oldest first."""
    steps = None
    for e in entries:
        steps = (steps, e)
    return steps


class Budget:
    """What values worked out before the game (constants, the cards) spend their loops from."""
    __slots__ = ("budget",)

    def __init__(self):
        self.budget = MAX_STEPS


def _sees(public: bool, visibility: str, owner: int | None, seat: int, teams: tuple | None = None) -> bool:
    """The one rule of who sees a zone's cards or a value: everyone if public; else, where there is
    an owner, the owner (``owner``), everyone but the owner (``others``) or every seat of the owner's
    team (``team``: ``teams`` is each seat's team, fixed when the game is compiled); else nobody."""
    if public:
        return True
    if owner is None:
        return False
    if visibility == "team":
        return teams is not None and teams[owner] == teams[seat]
    return owner == seat if visibility == "owner" else owner != seat if visibility == "others" else False


@attrs.define
class ZoneInfo:
    name: str
    owner: int | None        # seat for a per-player zone, else None
    family: str | None       # the per-player zone's name
    visibility: str          # public | owner | others | team | facedown | hidden
    teams: tuple | None = None   # a ``team`` zone's: each seat's team (they never change in its game)

    def seen_by(self, seat: int) -> bool:
        """Whether ``seat`` sees the zone's cards (not only how many): every seat a public zone, its
        owner an ``owner`` zone, every seat but its owner an ``others`` zone, every seat of its
        owner's team a ``team`` zone."""
        return _sees(self.visibility == "public", self.visibility, self.owner, seat, self.teams)


@attrs.define
class VarInfo:
    name: str
    type: str
    visibility: str          # public | owner | others | team | hidden (| on back: card state seen on the card's back)
    initial: Any
    domain: tuple | None = None   # every value it can hold, where the compiler knows (dsl.analysis.facts)
    bounds: tuple | None = None   # (low, high) of a number declared 'from LOW to HIGH'
    teams: tuple | None = None    # a ``team`` player value's: each seat's team (they never change)

    @property
    def public(self) -> bool:
        """Seen by every seat: ``public``, or a card state ``on back`` (seen even where the card's
        face is not, wherever the seat sees how many cards the zone holds)."""
        return self.visibility in ("public", "on back")

    def seen_by(self, seat: int, owner: int | None = None) -> bool:
        """Whether ``seat`` sees the value (of player ``owner``, for player state): every seat a public
        value, its player an ``owner`` value, every seat but its player an ``others`` value, every
        seat of its player's team a ``team`` value."""
        return _sees(self.public, self.visibility, owner, seat, self.teams)


@attrs.define
class TableDisplay:
    """How the table shows the game (``dsl.check.display``): nothing of the play, and nothing a seat
    does not see already. Keys are (section, name): section "game" (the game's state and shared
    zones), "player" (player state and per-player zones) or "card" (card state)."""
    labels: dict = attrs.Factory(dict)      # (section, name) -> the file's words for it (`shown as`)
    hidden: set = attrs.Factory(set)        # (section, name) left off the table (`not shown`)
    column: dict = attrs.Factory(dict)      # a player value or zone -> the column it is shown in (`shown in`)
    piles: dict = attrs.Factory(dict)       # (section, zone) -> (end shown first: top | bottom, most cards or None)
    card_zones: dict = attrs.Factory(dict)  # a card value -> the zones under whose cards it is shown (`shown in`)
    variants: dict = attrs.Factory(dict)    # a variant -> its one line (`described as`)
    score: str | None = None                # the score's words: the label of the player value it is (score(p) = p.vp)


@attrs.define
class Decision:
    label: str
    slot: int
    display: Callable[[Any], str]
    pos: Pos
    kind: str                # what is chosen: card, player, number, ... or subset
    type: str = ""           # the checker's type of each option (list:card for a subset of cards)
    unique_texts: bool = False   # the options can never read alike (so nothing to number)
    whole_text: bool = False     # display(option) is the whole action text (a label with {...})
    moves: tuple = ()            # a choice block's named moves (their texts are the options)
    entry: Any = None            # the generated entry that resumes after it: f(S, F, value) (dsl.emit.writer;
                                 # False if it could resume at more than one place)
    note: Callable | None = None  # `showing "..."`: f(S, option) -> the words said beside an option at the table
    at_once: tuple | None = None  # (block, seat): a choice of seat's copy of a 'for p in ... at once' block


@attrs.define
class Template:
    parts: list              # str, or (source, display) pairs; values are stored when announced
    pos: Pos
    types: list = attrs.Factory(list)   # the type of each value stored, in order
    private: bool = False    # told to one seat only: the first value stored is that seat


@attrs.define
class Program:
    title: str
    path: str
    source: str
    players: int
    variants: tuple
    available_variants: tuple
    # cards
    card_names: list
    card_attrs: dict          # attribute -> list by card id
    attr_types: dict
    # zones
    zones: list               # of ZoneInfo
    zone_index: dict          # name -> index (shared zones) / family name -> first index
    families: dict            # family name -> first index
    # state
    globals: list             # of VarInfo
    player_vars: list
    card_vars: list
    # code
    procs: list               # resumable procedures by frame index: functions f(S, F) by label (0: start)
    code: Any                 # the dsl.codegen.Namespace: generated sources and their rules positions
    proc_names: list
    proc_nslots: list
    decisions: list
    templates: list
    score: Callable | None
    winner_keys: list          # of (sign, function(S, seat))
    invariants: list           # of (text, function(S))
    player_names: list
    min_players: int = 0
    max_players: int = 0
    heuristic: Callable | None = None   # f(S, seat): how well a seat stands mid-game (bots' guide)
    card_invariants: list = attrs.Factory(list)   # of (text, f(S, card)): 'invariant ... for every card c'

    @property
    def backs(self) -> list:
        """The card state slots seen on the cards' backs (``on back``)."""
        return [i for i, v in enumerate(self.card_vars) if v.visibility == "on back"]
    proc_count: int = 0        # procedures compiled (with flow, once per list of argument types)
    warnings: list = attrs.Factory(list)      # leaks found, with allow_leaks (dsl.analysis.infoflow)
    # state values holding a secret whose values the compiler cannot list: a bot's copies keep their
    # real values. Never a number, whose bounds the compiler infers or asks for
    # (dsl.compiler._bound_secret_numbers)
    kept_secrets: list = attrs.Factory(list)
    frame_types: list = attrs.Factory(list)   # per resumable procedure: label -> its frame locals' types
    pending_picks: list = attrs.Factory(list)  # per resumable procedure: label -> the pending picks of an
    # 'at once' block kept there, (pick's index, its options' index, seat) each (dsl.lower.at_once)
    frame_secrets: list = attrs.Factory(list)  # per resumable procedure: label -> the locals kept there
    # that some seat does not see: (index, knowers, values) each (dsl.analysis.facts.frame_secrets)
    params: dict = attrs.Factory(dict)        # the game parameters in force, by name (dsl.check.params)
    param_info: list = attrs.Factory(list)    # each parameter's declaration (dsl.check.params.ParamInfo)
    # partnerships (dsl.check.teams): how each team reads, each seat's team at the start, the player value
    # holding each seat's team, and each team state as (name, type, first global slot: one per team)
    teams: list = attrs.Factory(list)
    team_seats: list | None = None
    team_var: int | None = None
    team_state: list = attrs.Factory(list)
    colour_attr: str | None = None  # `coloured by ATTR`: the card attribute the table colours by (None: guess)
    # every file the rules were read from as (path, text): one, or a variant file's base(s) first and
    # the variant file last (dsl.syntax.extend); `path` and `source` are the last
    files: tuple = ()
    about: str | None = None        # `about "..."`: the one-line description

    @property
    def sources(self) -> dict:
        """Each file's text by its path, for messages that point into a variant file's base."""
        return dict(self.files) if self.files else {self.path: self.source}
    display: TableDisplay = attrs.Factory(TableDisplay)   # labels, columns, piles, variants' lines (dsl.check.display)


class NoLegalAction(RulesRuntimeError):
    """A player must choose, but the rules leave them nothing to choose from."""


def fail(message: str, pos: Pos, prog_source: str | None = None):
    raise RulesRuntimeError(message, pos, prog_source)


def fail_no_options(message: str, pos: Pos):
    raise NoLegalAction(message, pos)


# ── operations used by the generated code ───────────────────────────────────
def own(parts: list, i: int) -> list:
    """``parts[i]`` (a zone, or a row of player or card values) as a list this state may change:
    one shared with clones (a tuple) is copied into a list of this state's own first."""
    part = parts[i]
    if part.__class__ is tuple:
        part = parts[i] = list(part)
    return part


def move_every(S, dest: int) -> None:
    """``move every card to Z``: one by one, in the order of the cards, each would leave its zone and
    go on top, so Z ends up holding them all in that order and every other zone is empty."""
    z, loc = S.z, S.loc
    z[:] = [[] for _ in z]
    z[dest] = list(range(len(loc)))
    loc[:] = [dest] * len(loc)


def move_cards(S, cards, dest: int, bottom: bool = False) -> None:
    """Move a list of cards one by one, in order (to the bottom: the last ends lowest)."""
    z, loc = S.z, S.loc
    cards = list(cards)
    if not bottom and len(cards) == len(loc) and len(set(cards)) == len(loc):
        # every card of the game, in another order: as move_every, in this order
        z[:] = [[] for _ in z]
        z[dest] = cards
        loc[:] = [dest] * len(loc)
        return
    to = own(z, dest)       # (one list: own() copies a shared zone once, then it is this state's)
    for c in (reversed(cards) if bottom else cards):
        src = z[loc[c]]
        if src.__class__ is tuple:
            src = own(z, loc[c])
        src.remove(c)
        if bottom:
            to.insert(0, c)
        else:
            to.append(c)
        loc[c] = dest


def move_zone(S, src: int, dest: int, bottom: bool = False) -> None:
    if src == dest:
        return
    cards = S.z[src]
    if not cards:
        return
    S.z[src] = []
    loc = S.loc
    for c in cards:
        loc[c] = dest
    try:
        if bottom:
            S.z[dest][0:0] = cards
        else:
            S.z[dest].extend(cards)
    except (AttributeError, TypeError):   # shared with a clone (a tuple): copy it first
        if bottom:
            own(S.z, dest)[0:0] = cards
        else:
            own(S.z, dest).extend(cards)


def shuffle_zone(S, zi: int) -> None:
    """A chance event: reorder a zone, from the forced queue (stacked decks, replays) or the seed."""
    zone = own(S.z, zi)
    forced = S.forced
    if forced:
        for i, (fz, order) in enumerate(forced):
            if fz == zi:
                del forced[i]
                _arrange(S, zi, order)
                break
        else:
            _random_shuffle(S, zone)
    else:
        _random_shuffle(S, zone)
    add_step(S, ["shuffle", zi, list(S.z[zi])])


RANDOM = -1      # the zone index of a value stacked for ``random from`` in ``State.forced``


def pick_random(S, options: list, show, pos: Pos):
    """A chance event: one of ``options``, drawn with the game's seeded generator — or the next
    value stacked for a test (``stack={"random": [text, ...]}``), matched by its text. The
    generator moves on either way, so a stacked game draws what follows as the unstacked one
    does. Recorded in the history as ["random", text]."""
    if not options:
        fail("there is nothing to pick at random from", pos)
    r = random.Random(S.rng)
    chosen = options[r.randrange(len(options))]
    S.rng = r.getrandbits(62)
    forced = S.forced
    if forced:
        for i, (fz, text) in enumerate(forced):
            if fz == RANDOM:
                del forced[i]
                hit = [v for v in options if show(v) == text]
                if not hit:
                    fail(f"the stacked random value {text!r} is not one of the options "
                         f"({', '.join(show(v) for v in options)})", pos)
                chosen = hit[0]
                break
    add_step(S, ["random", show(chosen)])
    return chosen


def _shuffle(r, x: list) -> None:
    """``r.shuffle(x)`` written out: the same draws of ``getrandbits`` in the same order (so the same
    order of the cards), without a call of ``_randbelow`` per card, and with each step's bound and
    its number of bits read from a table made once per length (``_steps``) instead of worked out
    per card. (Drawing the 32-bit words of a round of draws in one call and taking the top bits of
    each costs more: each word is a new int.)"""
    getrandbits = r.getrandbits
    for i, n, k in _STEPS.get(len(x)) or _steps(len(x)):
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


_STEPS: dict = {}       # a length -> _shuffle's steps for a list that long


def _steps(length: int) -> tuple:
    """The steps of a shuffle of ``length`` items, as ``random.shuffle`` takes them: for each place
    ``i`` from the last down to 1, the bound ``n = i + 1`` of its draw and the bits ``k`` drawn."""
    steps = tuple((i, i + 1, (i + 1).bit_length()) for i in range(length - 1, 0, -1))
    if len(_STEPS) < 1024:  # (zones of a game have a few lengths: a bound on what a long run keeps)
        _STEPS[length] = steps
    return steps


def _same_as_shuffle() -> bool:
    """Whether ``_shuffle``, with the C generator made directly, orders as this Python's
    ``random.shuffle`` does and leaves the generator where it does (checked once, at import)."""
    try:
        for seed in (*range(8), -3, 2 ** 61 + 12345):
            for n in (0, 1, 2, 3, 52, 70):
                a, b = list(range(n)), list(range(n))
                ra, rb = random.Random(seed), _random.Random(seed)
                ra.shuffle(a)
                _shuffle(rb, b)
                if a != b or ra.getrandbits(62) != rb.getrandbits(62):
                    return False
    except Exception:       # (a Python whose generator is made otherwise: its own shuffle)
        return False
    return True


if _same_as_shuffle():
    _SHUFFLE, _Random = _shuffle, _random.Random
else:
    _SHUFFLE, _Random = random.Random.shuffle, random.Random


def _random_shuffle(S, zone: list) -> None:
    r = _Random(S.rng)         # (the C generator itself: random.Random's __init__ and seed() add nothing here)
    _SHUFFLE(r, zone)
    S.rng = r.getrandbits(62)


def _arrange(S, zi: int, order: list) -> None:
    """Put the cards of ``order`` (bottom→top, card ids) on top of the zone; the rest beneath, shuffled."""
    zone = own(S.z, zi)
    rest = list(zone)
    for c in order:
        try:
            rest.remove(c)
        except ValueError:
            raise RulesRuntimeError(f"the stacked card #{c} is not in the zone being shuffled") from None
    _random_shuffle(S, rest)
    zone[:] = rest + list(order)


def deal(S, n: int, src: int, first: int, players: int, pos: Pos, start: int = 0) -> None:
    """N cards to each player's zone of the family whose first zone is ``first``, in blocks: seat
    ``start`` takes the top N, the next seat the next N, and so on round the table."""
    zone = S.z[src]
    if start is None:
        fail("nobody is there to deal to first", pos)
    if n * players > len(zone):
        fail(f"cannot deal {n} cards to each of {players} players: only {len(zone)} cards left", pos)
    loc = S.loc
    zone = own(S.z, src)
    for p in range(players):
        dest = first + (start + p) % players
        take = zone[len(zone) - n:][::-1]
        del zone[len(zone) - n:]
        own(S.z, dest).extend(take)
        for c in take:
            loc[c] = dest
