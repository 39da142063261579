"""What one seat may see: built from zone and state visibility, and nothing else.

    public    everyone sees the cards
    owner     the owning player sees the cards; the others see how many
    others    every seat but the owner sees the cards; the owner sees how many
    facedown  nobody sees the cards; everyone sees how many
    hidden    nobody sees the cards or how many

State values follow the same words: ``public`` (default) values are seen by all; a player's
``owner`` value only by that player, an ``others`` value by every seat but that player;
``hidden`` values by nobody.
"""
from __future__ import annotations


def value_display(prog, typ):
    names = prog.card_names
    if typ == "card":
        return lambda v: None if v is None else names[v]
    if typ == "player":
        return lambda v: None if v is None else prog.player_names[v]
    if typ.startswith("list:card"):
        return lambda v: [names[c] for c in v]
    if typ.startswith("list:player"):
        return lambda v: [prog.player_names[c] for c in v]
    if typ == "team":
        return lambda v: None if v is None else prog.teams[v]
    if typ == "list:team":
        return lambda v: [prog.teams[t] for t in v]
    return lambda v: v


def team_slots(prog) -> set:
    """The global slots that hold team state (shown in the teams block, not with the game's state)."""
    return {base + t for _, _, base in prog.team_state for t in range(len(prog.teams))}


def teams_view(state) -> list:
    """Each team: its name, its members (seat order) and its state — all public."""
    prog = state._prog
    row = state.pv[prog.team_var]
    out = []
    for t, name in enumerate(prog.teams):
        entry = {"name": name, "members": [prog.player_names[p] for p, u in enumerate(row) if u == t]}
        for var, typ, base in prog.team_state:
            entry[var] = value_display(prog, typ)(state.g[base + t])
        out.append(entry)
    return out


def _sees(prog, state, cid: int, seat: int) -> bool:
    return prog.zones[state.loc[cid]].seen_by(seat)


def observe(state, seat: int, log: bool = True) -> dict:
    prog = state._prog
    n = prog.players
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat} in a {n}-player game")
    names = prog.card_names
    zones: dict = {}
    per_player: dict = {}
    backs = prog.backs
    for zi, info in enumerate(prog.zones):
        cards = state.z[zi]
        if info.seen_by(seat):
            view = {"cards": [names[c] for c in cards], "count": len(cards)}
        elif info.visibility != "hidden":
            view = {"count": len(cards)}
            if backs and cards:
                view["backs"] = backs_of(state, cards)
        else:
            view = {}
        if info.owner is None:
            zones[info.name] = view
        else:
            per_player.setdefault(info.family, [None] * n)[info.owner] = view
    # per-card state of the cards this seat can see (e.g. who played each card of the trick)
    card_state: dict = {}
    visible = [c for view in list(zones.values()) + [v for views in per_player.values() for v in views]
               for c in view.get("cards", ())]
    if prog.card_vars and visible:
        ids = state._game._ids_by_name
        for i, v in enumerate(prog.card_vars):
            if not v.public:
                continue
            shown = value_display(prog, v.type)
            values = {}
            for name in visible:
                for cid in ids[name]:
                    if state.cv[i][cid] is not None and _sees(prog, state, cid, seat):
                        values[name] = shown(state.cv[i][cid])
            if values:
                card_state[v.name] = values
    glob = {}
    of_teams = team_slots(prog) if prog.teams else ()
    for i, v in enumerate(prog.globals):
        if v.visibility == "public" and i not in of_teams:
            glob[v.name] = value_display(prog, v.type)(state.g[i])
    players = []
    for p in range(n):
        entry = {"name": prog.player_names[p]}
        for i, v in enumerate(prog.player_vars):
            if v.seen_by(seat, p):
                entry[v.name] = value_display(prog, v.type)(state.pv[i][p])
        for fam, views in per_player.items():
            entry[fam] = views[p]
        players.append(entry)
    obs = {
        "game": prog.title,
        "seat": seat,
        "to_move": None if state.pending is None else state.pending[0],
        "decision": None,
        "terminal": state.pending is None,
        "state": glob,
        "zones": zones,
        "players": players,
        "card_state": card_state,
    }
    if prog.teams:
        obs["teams"] = teams_view(state)
    if log:
        obs["log"] = state.log(seat)
    if state.pending is not None:
        label = prog.decisions[state.pending[1]].label
        obs["decision"] = {"label": label}
        if state.pending[0] == seat:
            obs["decision"]["options"] = [str(a) for a in state.legal_actions()]
    if state.pending is None:
        obs["returns"] = state.returns()
        obs["winners"] = state.winners()
    return obs


def backs_of(state, cards) -> dict:
    """The ``on back`` card state of these cards (a zone's, bottom first), by place: what a seat
    that sees only their backs sees of them — what a holder was told of the cards it holds facing out."""
    prog = state._prog
    out = {}
    for i in prog.backs:
        v = prog.card_vars[i]
        shown = value_display(prog, v.type)
        row = state.cv[i]
        out[v.name] = [None if row[c] is None else shown(row[c]) for c in cards]
    return out


def hidden_cards(state, seat: int) -> list[int]:
    """The cards whose identity ``seat`` cannot see: in zones it does not see (``ZoneInfo.seen_by``)."""
    prog = state._prog
    out = []
    for zi, info in enumerate(prog.zones):
        if not info.seen_by(seat):
            out.extend(state.z[zi])
    return out


def visible_cards(state, seat: int) -> set[int]:
    """The cards ``seat`` sees right now, in zones it may look at."""
    prog = state._prog
    out: set[int] = set()
    for zi, info in enumerate(prog.zones):
        if info.seen_by(seat):
            out.update(state.z[zi])
    return out


def announced_cards(state, since=None, strict: bool = False, seat: int | None = None) -> set[int] | None:
    """The cards named in the announcements so far that ``seat`` heard (the public ones, and those
    told to it alone; with no seat, the public ones); with ``since`` (an earlier ``state.ann``),
    only in those made after it. With ``strict``, None when ``since`` is not part of this state's
    log (a state read back from JSON, say)."""
    prog = state._prog
    out: set[int] = set()
    node = state.ann
    while node is not since:
        if node is None:
            return None if strict and since is not None else out
        tid, vals, node = node[1], node[2:], node[0]
        if prog.templates[tid].private and vals[0] != seat:
            continue
        for t, v in zip(prog.templates[tid].types, vals):
            if t == "card" and v is not None:
                out.add(v)
            elif t == "list:card":
                out.update(v)
    return out


def revealed_cards(state, seat: int, keys=None) -> set[int]:
    """The cards the rules showed ``seat`` (``reveal c``, ``reveal p.hand``, and those shown to it
    alone: ``reveal p.hand to q``); with ``keys`` (a set of ``state.revealed`` keys read before),
    only in what was shown since."""
    out: set[int] = set()
    for key, v in state.shown.items():
        if key[0] not in ("local", "zone") or (len(key) == 4 and key[3] != seat) or (keys and key in keys):
            continue
        if isinstance(v, list):
            out.update(v)
        elif v is not None:
            out.add(v)
    return out


def log_since(state, since, seat: int | None) -> list[str]:
    """The announcements made after ``since`` (an earlier ``state.ann``, None: all) that ``seat``
    reads, as text, oldest first: the public ones and those told to it alone (None: public only).
    Like ``state.log(seat)``, for a part of the log."""
    templates = state._prog.templates
    entries = []
    node = state.ann
    while node is not since and node is not None:
        tid, vals = node[1], node[2:]
        if not templates[tid].private:
            entries.append((tid, vals))
        elif seat is not None and vals[0] == seat:     # the seat is stored first
            entries.append((tid, vals[1:]))
        node = node[0]
    return [state.announcement_text(e) for e in reversed(entries)]


def resample(state, seat: int, rng, known=frozenset(), relabel_log: bool = True,
             redraw: bool = False) -> "object":
    """A copy of ``state`` in which the cards ``seat`` cannot see are dealt out again at random among
    the places it cannot see (the same counts in every zone), relabelled consistently everywhere a
    card is named: zones, state values, card state, the open decision and the announcements.
    Cards in ``known`` (those the seat has seen before and may remember) keep their identity.
    Nothing ``seat`` may see should differ — that is what the leak check and determinising bots use.

    The cards in procedures' frames (a card chosen earlier and kept in a local) are relabelled with
    the same permutation, by the types the compiler records for each frame. With ``redraw`` (the
    bots), what the seat cannot see is drawn again too: hidden values from the values the compiler
    says they can hold (``VarInfo.domain``), and the cards of ``hidden`` zones, whose counts the
    seat does not see either, dealt among those zones at random.

    ``known`` may say where the seat believes each card it remembers is (``known.where``, card ->
    zone: ``interpreter.bots.agents.Known``). A card believed where it really is keeps its place; one
    believed in another zone the seat cannot see (it moved on there in secret) is put there in the
    copy, in the place of a card the seat does not know, and never left where it really is."""
    prog = state._prog
    fixed, displaced = _beliefs(state, seat, known)
    hidden = [c for c in hidden_cards(state, seat) if c not in fixed]
    if displaced:       # the cards the zones hold, and the cards everything else names
        in_zones, pi = _placing(state, hidden, displaced, rng)
    elif prog.card_invariants:      # each card where it may lie by what the seat was told of it
        in_zones = pi = _consistent_deal(state, hidden, rng)
    else:           # the cards drawn in their order of ids, not where they lie: a copy depends
        shuffled = sorted(hidden)       # on what the seat sees and the generator, never on the truth
        rng.shuffle(shuffled)
        in_zones = pi = dict(zip(hidden, shuffled))
    known = fixed
    if not pi:
        S = state.clone()
        S.rng = rng.getrandbits(62)
        S.forced = []
        if redraw:
            _redraw_values(S, prog, seat, rng)
            _redraw_locals(S, prog, seat, rng)
            _redraw_picks(S, prog, seat, rng)
        return S
    S = state.clone()
    S.rng = rng.getrandbits(62)   # the future shuffles are unknown too: never the real ones
    S.forced = []

    def card(v):
        return pi.get(v, v) if isinstance(v, int) and not isinstance(v, bool) else v

    def relabel(typ, v):
        if v is None:
            return v
        if typ == "card":
            return card(v)
        if typ.startswith("list:"):
            inner = typ[5:]
            return [relabel(inner, x) for x in v]
        if typ.startswith("choice:"):        # a choice block: a named move's text, or a pick
            return v if v.__class__ is str else relabel(typ[7:], v)     # (only cards are relabelled)
        if typ.startswith("tuple:"):         # several values picked at once
            return tuple(relabel(t, x) for t, x in zip(typ[6:].split(","), v))
        if typ.startswith("branches:"):      # a choice block's (branch, value)
            return (v[0], relabel(typ[9:].split(";")[v[0]], v[1]))
        return v

    S.z = [[in_zones.get(c, c) for c in z] for z in S.z]
    if redraw:
        _redeal_hidden_zones(S, prog, known, rng)
    for zi, z in enumerate(S.z):
        for c in z:
            S.loc[c] = zi
    S.frames = [_relabel_frame(prog, F, relabel) for F in S.frames]
    if redraw:
        _redraw_values(S, prog, seat, rng)
        _redraw_locals(S, prog, seat, rng)
        _redraw_picks(S, prog, seat, rng)
    S.g = [relabel(v.type, x) for v, x in zip(prog.globals, S.g)]
    S.pv = [[relabel(v.type, x) for x in S.pv[i]] for i, v in enumerate(prog.player_vars)]
    new_cv = []
    for i, v in enumerate(prog.card_vars):
        row = list(S.cv[i])
        for c, d in pi.items():
            row[d] = state.cv[i][c]
        new_cv.append([relabel(v.type, x) for x in row])
    S.cv = new_cv
    if S.pending is not None:
        dec = prog.decisions[S.pending[1]]
        S.pending = [S.pending[0], S.pending[1], [relabel(dec.type, o) if o.__class__ is not tuple
                                                  or dec.type.startswith(("tuple:", "branches:"))
                                                  else tuple(relabel(dec.type, o)) for o in S.pending[2]]]
        # (a subset's options stay tuples, the keys its actions are found by: Game._legal; a
        # tuple's and a branch's are made tuples by relabel)
        S._legal = None
    if not relabel_log:  # the caller knows every announced card is in ``known``
        return S
    S.ann = _relabel_log(S.ann, prog, pi, relabel)
    return S


def _consistent_deal(state, hidden: list, rng) -> dict:
    """{place: the card dealt there} for the cards in ``hidden``, such that the file's invariants of
    each card (``invariant "..." for every card c: ...``) hold of every card in its new place, with
    the card state of that place (what the seat was told of the card there: card state stays with
    the place, as it does in ``resample``). A place whose card state is as at the start constrains
    nothing (every card held there at the start). The most constrained places are dealt first, each
    a card at random among those allowed (``_matching``: never the real cards for want of a deal),
    and the rest are dealt at random."""
    prog = state._prog
    checks = [fn for _, fn in prog.card_invariants]
    starts = [v.initial for v in prog.card_vars]
    cv = state.cv
    marked = [c for c in hidden if any(row[c] != start for row, start in zip(cv, starts))]
    deal: dict = {}
    if marked:
        probe = state.clone()
        probe.cv = rows = [list(row) for row in cv]

        def fits(place, card):
            for row, real in zip(rows, cv):
                row[card] = real[place]
            ok = all(check(probe, card) for check in checks)
            for row, real in zip(rows, cv):
                row[card] = real[card]
            return ok

        pool = sorted(hidden)           # (by id, not by where they lie: see resample)
        allowed = {c: [d for d in pool if fits(c, d)] for c in marked}
        order = sorted(marked, key=lambda c: len(allowed[c]))
        deal = _matching(order, allowed, rng)
    rest = [d for d in sorted(hidden) if d not in deal.values()]
    rng.shuffle(rest)
    it = iter(rest)
    return {c: deal[c] if c in deal else next(it) for c in hidden}


def _matching(order: list, allowed: dict, rng) -> dict:
    """{place: card}, a card for every place of ``order`` among its ``allowed`` ones, no card twice:
    each place in turn takes a free card at random; a place left with none takes one from a place
    that can move to another (an augmenting path), so a deal is always found when one exists (the
    real cards are one). What it finds depends on the allowed lists and the generator only."""
    deal: dict = {}
    owner: dict = {}

    def augment(c, seen) -> bool:
        for d in allowed[c]:
            if d in seen:
                continue
            seen.add(d)
            if d not in owner or augment(owner[d], seen):
                deal[c], owner[d] = d, c
                return True
        return False

    for c in order:
        free = [d for d in allowed[c] if d not in owner]
        if free:
            d = free[rng.getrandbits(32) % len(free)]
            deal[c], owner[d] = d, c
        else:
            augment(c, set())       # (no deal at all: the place is dealt with the rest, at random)
    return deal


def _beliefs(state, seat: int, known) -> tuple:
    """(the remembered cards that stay where they are, [(card, zone)] the ones believed in another
    zone the seat cannot see, sorted). Without beliefs (a plain set), every remembered card stays."""
    where = getattr(known, "where", None)
    if not where:
        return known, []
    loc, zones = state.loc, state._prog.zones
    fixed, displaced = set(), []
    for c in known:
        z = where.get(c)
        if z is None or z == loc[c]:
            fixed.add(c)
        elif zones[z].visibility != "hidden" and not zones[z].seen_by(seat):
            displaced.append((c, z))        # (a zone whose count it sees, not its cards)
        # (believed somewhere it cannot be: the card is one the seat does not know)
    return fixed, sorted(displaced)


def _placing(state, hidden: list, displaced: list, rng) -> tuple:
    """For the cards in ``hidden`` (the seat neither sees nor keeps them where they are, in the
    order they lie): ({card: the card that lies in its place in the copy}, {card: the card it is
    named as in the copy}). Each card of ``displaced`` lies in its believed zone, in the place of
    another card there, and keeps its name; the rest are dealt at random into the other places and
    named by the place they lie in (a card that gave up its place to a believed one is named by
    the place the believed one really holds)."""
    slots = [(state.loc[c], c) for c in hidden]
    moved = {card for card, _ in displaced}
    claimed: dict = {}
    placed = set()
    for card, zone in displaced:
        for i, (zi, c) in enumerate(slots):
            if zi == zone and i not in claimed and c not in moved:
                claimed[i] = card
                placed.add(card)
                break               # (no room left there: the card is dealt with the others)
    pool = sorted(c for c in hidden if c not in placed)     # (by id: see resample)
    rng.shuffle(pool)
    rest = iter(pool)
    in_zones = {c: claimed[i] if i in claimed else next(rest) for i, (_, c) in enumerate(slots)}
    names = dict(in_zones)
    for i, card in claimed.items():
        gave_up = slots[i][1]
        names[gave_up], names[card] = in_zones[card], card
    return in_zones, names


def _names_cards(typ: str) -> bool:
    """Whether a value of this type may name a card (a card, a list of them, a choice of one)."""
    while typ.startswith(("list:", "choice:")):
        typ = typ.partition(":")[2]
    if typ.startswith("tuple:"):
        return "card" in typ[6:].split(",")
    if typ.startswith("branches:"):
        return any(_names_cards(t) for t in typ[9:].split(";"))
    return typ == "card"


def _relabel_log(ann, prog, pi: dict, relabel):
    """The log (a linked list of entries, newest first: ``(older, template, *values)``) with its
    cards relabelled by ``pi``. The entries older than the first one that changes are kept as they
    are, shared with the original log; the entries of templates that name no card are copied
    without looking at their values. (A long game's log is walked for every twin of ``rulesrun
    check``'s bot test: once a value at a time, it was a third of the check's time.)"""
    naming = [[2 + i for i, t in enumerate(tpl.types) if _names_cards(t)] for tpl in prog.templates]
    nodes = []
    node = ann
    while node is not None:
        nodes.append(node)
        node = node[0]
    out, changed = None, False
    for node in reversed(nodes):            # oldest first
        new = None                          # the entry's values, once one of them changes
        for i in naming[node[1]]:
            v = relabel(prog.templates[node[1]].types[i - 2], node[i])
            if v != node[i]:
                if new is None:
                    new = list(node)
                new[i] = v
        if new is not None:
            new[0] = out
            out, changed = tuple(new), True
        elif changed:
            out = (out, *node[1:])
        else:
            out = node
    return out


def _relabel_frame(prog, F, relabel) -> list:
    """A frame [procedure, label, locals] with the cards in its locals relabelled."""
    types = prog.frame_types[F[0]].get(F[1]) if F[0] < len(prog.frame_types) else None
    if not types:
        return [F[0], F[1], list(F[2])]
    return [F[0], F[1], [relabel(t, v) for t, v in zip(types, F[2])] + list(F[2][len(types):])]


def _pick(rng, values):
    return values[rng.getrandbits(32) % len(values)]


def _redraw_values(S, prog, seat: int, rng) -> None:
    """Values ``seat`` cannot see, drawn again from the values they can hold (where the compiler
    knows them, and they hold a secret) — or, for those the rules revealed (``reveal``), the value
    they were shown with (never the value they hold now, which may have changed in secret)."""
    shown = S.shown

    def draw(part, i, k, domain):
        hit = shown.get((part, i, k), _NOT_SHOWN)
        if hit is _NOT_SHOWN:           # shown to this seat alone ('reveal p.bid to q')
            hit = shown.get((part, i, k, seat), _NOT_SHOWN)
        return _pick(rng, domain) if hit is _NOT_SHOWN else hit

    for i, v in enumerate(prog.globals):
        if v.visibility == "hidden" and v.domain and len(v.domain) > 1:
            S.g[i] = draw("g", i, None, v.domain)
    for i, v in enumerate(prog.player_vars):
        if v.visibility == "public" or not v.domain or len(v.domain) < 2:
            continue
        row = S.pv[i] = list(S.pv[i])
        for p in range(len(row)):
            if not v.seen_by(seat, p):
                row[p] = draw("pv", i, p, v.domain)
    for i, v in enumerate(prog.card_vars):
        if not v.public and v.domain and len(v.domain) > 1:
            S.cv[i] = [draw("cv", i, c, v.domain) for c in range(len(S.cv[i]))]


_NOT_SHOWN = object()


def _redraw_locals(S, prog, seat: int, rng) -> None:
    """The values procedures' frames keep that ``seat`` does not see — another seat's choice, a
    value worked out from a hand it cannot see — drawn again from the values they can hold
    (``Program.frame_secrets``, from ``dsl.analysis.facts``). A value is kept where every secret it comes
    from is the seat's own: its hand, its owner state, its decision."""
    secrets = prog.frame_secrets
    frames = None
    for n, F in enumerate(S.frames):
        entries = secrets[F[0]].get(F[1]) if F[0] < len(secrets) else None
        if not entries:
            continue
        values = F[2]
        new = None
        for i, knowers, domain in entries:
            if i < len(values) and not _knows(values, knowers, seat):
                if new is None:
                    new = list(values)
                new[i] = _pick(rng, domain)
        if new is not None:
            if frames is None:
                frames = S.frames = list(S.frames)     # (a clone may share the frames it did not change)
            frames[n] = [F[0], F[1], tuple(new) if isinstance(values, tuple) else new]


def _redraw_picks(S, prog, seat: int, rng) -> None:
    """The picks other seats have made in the open 'at once' block, which nobody else has seen
    (``dsl.lower.at_once``): each drawn again from the options it was chosen from (kept in the
    frame beside it, relabelled with the cards), whatever it is — a card from a public row, a
    number, a subset of a hand."""
    if S.sim <= 0:
        return
    picks = prog.pending_picks
    for n, F in enumerate(S.frames):
        entries = picks[F[0]].get(F[1]) if F[0] < len(picks) else None
        if not entries:
            continue
        values = list(F[2])
        for pick, options, who in entries:
            if who != seat and values[options]:
                chosen = _pick(rng, values[options])
                values[pick] = list(chosen) if isinstance(chosen, tuple) else chosen
        S.frames = list(S.frames)
        S.frames[n] = [F[0], F[1], values]


def _knows(values, knowers, seat: int) -> bool:
    """Whether ``seat`` is the seat behind every secret of a frame local (see dsl.analysis.facts.frame_secrets)."""
    for k in knowers:
        if k is None or (values[k[1]] if k.__class__ is tuple else k) != seat:
            return False
    return True


def _redeal_hidden_zones(S, prog, known, rng) -> None:
    """The cards of ``hidden`` zones (nobody sees them or how many) dealt among those zones at
    random; cards the seat remembers stay where they are."""
    zones = [zi for zi, info in enumerate(prog.zones) if info.visibility == "hidden"]
    if len(zones) < 2:
        return
    pool = sorted(c for zi in zones for c in S.z[zi] if c not in known)
    if not pool:
        return
    for zi in zones:
        S.z[zi] = [c for c in S.z[zi] if c in known]
    for c in pool:
        S.z[_pick(rng, zones)].append(c)
