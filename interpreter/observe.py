"""What one seat may see: built from zone and state visibility, and nothing else.

    public    everyone sees the cards
    owner     the owning player sees the cards; the others see how many
    facedown  nobody sees the cards; everyone sees how many
    hidden    nobody sees the cards or how many

State values follow the same words: ``public`` (default) values are seen by all; a player's
``owner`` value only by that player; ``hidden`` values by nobody.
"""
from __future__ import annotations


def _value_display(prog, typ):
    names = prog.card_names
    if typ == "card":
        return lambda v: None if v is None else names[v]
    if typ == "player":
        return lambda v: None if v is None else prog.player_names[v]
    if typ.startswith("list:card"):
        return lambda v: [names[c] for c in v]
    if typ.startswith("list:player"):
        return lambda v: [prog.player_names[c] for c in v]
    return lambda v: v


def _sees(prog, state, cid: int, seat: int) -> bool:
    info = prog.zones[state.loc[cid]]
    return info.visibility == "public" or (info.visibility == "owner" and info.owner == seat)


def observe(state, seat: int) -> dict:
    prog = state._prog
    n = prog.players
    if not 0 <= seat < n:
        raise ValueError(f"no seat {seat} in a {n}-player game")
    names = prog.card_names
    zones: dict = {}
    per_player: dict = {}
    for zi, info in enumerate(prog.zones):
        cards = state.z[zi]
        vis = info.visibility
        if vis == "public" or (vis == "owner" and info.owner == seat):
            view = {"cards": [names[c] for c in cards], "count": len(cards)}
        elif vis in ("owner", "facedown"):
            view = {"count": len(cards)}
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
            if v.visibility != "public":
                continue
            shown = _value_display(prog, v.type)
            values = {}
            for name in visible:
                for cid in ids[name]:
                    if state.cv[i][cid] is not None and _sees(prog, state, cid, seat):
                        values[name] = shown(state.cv[i][cid])
            if values:
                card_state[v.name] = values
    glob = {}
    for i, v in enumerate(prog.globals):
        if v.visibility == "public":
            glob[v.name] = _value_display(prog, v.type)(state.g[i])
    players = []
    for p in range(n):
        entry = {"name": prog.player_names[p]}
        for i, v in enumerate(prog.player_vars):
            if v.visibility == "public" or (v.visibility == "owner" and p == seat):
                entry[v.name] = _value_display(prog, v.type)(state.pv[i][p])
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
    if state.pending is not None:
        label = prog.decisions[state.pending[1]].label
        obs["decision"] = {"label": label}
        if state.pending[0] == seat:
            obs["decision"]["options"] = [str(a) for a in state.legal_actions()]
    if state.pending is None:
        obs["returns"] = state.returns()
        obs["winners"] = state.winners()
    return obs
