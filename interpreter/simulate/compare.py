"""``rulesrun simulate A --compare B``: two rules files (or two variant selections of one) played on
the same seeds with the same seats, and what differs between them, with how sure we can be.

Game i of each run is dealt from the same seed and played by the same bots with the same seeds
(``pool.game_seeds``), so each game of A has a twin in B. For a figure of a game — a seat's win (1
or 0), its score, the game's length, a state value at the end — the difference is worked out twin
by twin, and its 95% interval from those paired differences (the normal approximation: use 100
games or more). A decision's option share is the share over all the games' choices of that
decision; the choices of one game are not independent of each other (a player who shoots Player 3
once tends to again), so its standard error is clustered by game (the ratio estimator's), and the
difference of the two shares takes its interval from both.

Many lines are compared at once, so one in twenty would look like a difference by chance alone at
95%. A line is marked **beyond noise** only when it stays so after Holm's correction over every
line compared (a 5% chance, over the whole report, of calling any noise a difference). A file
compared with itself differs in nothing; a change of rules that only changes the deals (another
shuffle) differs by noise only.
"""
from __future__ import annotations

import math

from rulesrun.interpreter.simulate.summary import wilson

Z95 = 1.959964
ALPHA = 0.05
TOP_OPTIONS = 4          # options compared per decision (the most chosen over both runs)


# ── statistics ──────────────────────────────────────────────────────────────
def paired(a: list, b: list) -> dict:
    """The mean of each, the mean difference b − a of the twins, its 95% interval and p-value."""
    n = len(a)
    d = [y - x for x, y in zip(a, b)]
    mean_a, mean_b = sum(a) / n, sum(b) / n
    diff = sum(d) / n
    sd = math.sqrt(sum((x - diff) ** 2 for x in d) / (n - 1)) if n > 1 else 0.0
    se = sd / math.sqrt(n)
    if se == 0:
        p = 1.0 if diff == 0 else (0.0 if n > 1 else 1.0)
        low = high = diff
    else:
        p = math.erfc(abs(diff / se) / math.sqrt(2))
        low, high = diff - Z95 * se, diff + Z95 * se
    return {"a": mean_a, "b": mean_b, "diff": diff, "low": low, "high": high, "p": p}


def clustered(ka: list, na: list, kb: list, nb: list) -> dict:
    """Two shares sum(k)/sum(n), each over games (k_i of n_i choices in game i): the difference, its
    95% interval and p-value, with each share's standard error clustered by game."""
    def share(k, n):
        total = sum(n)
        p = sum(k) / total
        g = len(n)
        var = sum((ki - p * ni) ** 2 for ki, ni in zip(k, n)) / total ** 2 * (g / (g - 1) if g > 1 else 1.0)
        return p, var
    pa, va = share(ka, na)
    pb, vb = share(kb, nb)
    diff, se = pb - pa, math.sqrt(va + vb)
    if se == 0:
        return {"a": pa, "b": pb, "diff": diff, "low": diff, "high": diff, "p": 1.0 if diff == 0 else 0.0}
    return {"a": pa, "b": pb, "diff": diff, "low": diff - Z95 * se, "high": diff + Z95 * se,
            "p": math.erfc(abs(diff / se) / math.sqrt(2))}


def holm(ps: list, alpha: float = ALPHA) -> list:
    """Which of the p-values are beyond noise, Holm's step-down over all of them."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out = [False] * len(ps)
    m = len(ps)
    for rank, i in enumerate(order):
        if ps[i] > alpha / (m - rank):
            break
        out[i] = True
    return out


# ── the comparison ──────────────────────────────────────────────────────────
def comparison(recs_a: list, recs_b: list, players: int) -> dict:
    """Every line compared: {"section", "name", "a", "b", "diff", "low", "high", "p", "beyond",
    "kind": "rate" | "number" | "share"}, in report order; the twins are games of the same index."""
    n = min(len(recs_a), len(recs_b))
    recs_a, recs_b = recs_a[:n], recs_b[:n]
    lines = []

    def add(section, name, kind, stats):
        lines.append({"section": section, "name": name, "kind": kind, **stats})

    for p in range(players):
        add("wins", f"Player {p + 1}", "rate", paired([float(p in r["winners"]) for r in recs_a],
                                                      [float(p in r["winners"]) for r in recs_b]))
    for p in range(players):
        add("scores", f"Player {p + 1}", "number", paired([float(r["returns"][p]) for r in recs_a],
                                                          [float(r["returns"][p]) for r in recs_b]))
    add("values", "decisions (game length)", "number",
        paired([float(r["decisions"]) for r in recs_a], [float(r["decisions"]) for r in recs_b]))
    for name in _shared_keys(recs_a, recs_b, "state"):
        add("values", f"{name} (at the end)", "number",
            paired([float(r["state"][name]) for r in recs_a], [float(r["state"][name]) for r in recs_b]))
    for name in _shared_keys(recs_a, recs_b, "player_state"):
        mean = lambda r: sum(r["player_state"][name]) / players      # noqa: E731
        add("values", f"{name} of a player (at the end)", "number",
            paired([mean(r) for r in recs_a], [mean(r) for r in recs_b]))
    for fam in _shared_keys(recs_a, recs_b, "zone_mean"):
        add("values", f"size of a {fam} (mean over the game)", "number",
            paired([float(r["zone_mean"][fam]) for r in recs_a], [float(r["zone_mean"][fam]) for r in recs_b]))
    ca, cb = _choices(recs_a), _choices(recs_b)
    ga, gb = _choices_by_game(recs_a), _choices_by_game(recs_b)
    for label in list(ca) + [x for x in cb if x not in ca]:
        oa, ob = ca.get(label, {}), cb.get(label, {})
        na, nb = sum(oa.values()), sum(ob.values())
        if not na or not nb:
            lines.append({"section": "options", "name": f"{label.rstrip(':')}: (asked in {'B' if nb else 'A'} only)",
                          "kind": "share", "a": None, "b": None, "diff": None, "low": None, "high": None, "p": None})
            continue
        both = sorted(set(oa) | set(ob), key=lambda o: -(oa.get(o, 0) / na + ob.get(o, 0) / nb))
        asked_a = [g[label] for g in ga if label in g]
        asked_b = [g[label] for g in gb if label in g]
        for opt in both[:TOP_OPTIONS]:
            add("options", f"{label.rstrip(':')}: {opt}", "share", clustered(
                [g.get(opt, 0) for g in asked_a], [sum(g.values()) for g in asked_a],
                [g.get(opt, 0) for g in asked_b], [sum(g.values()) for g in asked_b]))
    tested = [i for i, ln in enumerate(lines) if ln["p"] is not None]
    marks = holm([lines[i]["p"] for i in tested])
    for ln in lines:
        ln["beyond"] = False
    for i, beyond in zip(tested, marks):
        lines[i]["beyond"] = beyond
    return {"games": n, "lines": lines, "compared": len(tested),
            "beyond": sum(1 for ln in lines if ln["beyond"])}


def _shared_keys(recs_a, recs_b, field) -> list:
    if not recs_a or not recs_b:
        return []
    return [k for k in recs_a[0].get(field, {}) if k in recs_b[0].get(field, {})]


def _choices_by_game(records) -> list:
    """Per game: decision label -> option -> how often, over every seat."""
    return [_choices([r]) for r in records]


def _choices(records) -> dict:
    out: dict = {}
    for r in records:
        for seat in r["choices"]:
            for label, opts in (seat or {}).items():
                mine = out.setdefault(label, {})
                for o, k in opts.items():
                    mine[o] = mine.get(o, 0) + k
    return out


# ── the report ──────────────────────────────────────────────────────────────
_SECTIONS = {"wins": "Wins per seat (the share of games each seat wins)",
             "scores": "Score per seat (returns(), mean per game)",
             "values": "Game length and state (mean per game)",
             "options": f"Options chosen (the share of each option among that decision's choices; the {TOP_OPTIONS} "
                        f"most chosen)"}


def _show(x, kind) -> str:
    if x is None:
        return "–"
    if kind in ("rate", "share"):
        return f"{100 * x:.1f}%"
    return f"{x:.2f}" if abs(x) < 100 else f"{x:.1f}"


def _signed(x, kind) -> str:
    if x is None:
        return "–"
    text = _show(x, kind).replace("%", " pts") if kind != "number" else _show(x, kind)
    return ("+" if x > 0 else "") + text if not text.startswith("-") else text


def tables(comp: dict, info: dict) -> list[dict]:
    """The comparison as plain tables (title, columns, rows, caption), as ``runner.report_tables``."""
    out = []
    for section, title in _SECTIONS.items():
        rows = [[ln["name"], _show(ln["a"], ln["kind"]), _show(ln["b"], ln["kind"]), _signed(ln["diff"], ln["kind"]),
                 "–" if ln["low"] is None else f"{_signed(ln['low'], ln['kind'])} … {_signed(ln['high'], ln['kind'])}",
                 "yes" if ln["beyond"] else ""]
                for ln in comp["lines"] if ln["section"] == section]
        if rows:
            out.append({"title": title, "columns": ["", "A:", "B:", "B − A:", "95% interval:", "beyond noise"],
                        "rows": rows, "caption": ""})
    out[-1]["caption"] = verdict(comp)
    return out


def verdict(comp: dict) -> str:
    beyond = [ln for ln in comp["lines"] if ln["beyond"]]
    head = (f"{comp['games']} games each, twin by twin on the same seeds. 'beyond noise': the difference holds after "
            f"Holm's correction over all {comp['compared']} lines compared (5% over the whole report). ")
    if not beyond:
        return head + ("No difference is beyond noise: as far as these games can tell, A and B play alike "
                       "(more games, with --games, can find smaller differences).")
    names = "; ".join(" ".join(filter(None, (_SHORT[ln["section"]], ln["name"], _signed(ln["diff"], ln["kind"]))))
                      for ln in beyond[:6])
    more = f" and {len(beyond) - 6} more" if len(beyond) > 6 else ""
    return head + f"{len(beyond)} difference{'s are' if len(beyond) != 1 else ' is'} beyond noise: {names}{more}."


_SHORT = {"wins": "wins of", "scores": "score of", "values": "", "options": "option"}


def headline(info: dict) -> str:
    def side(s):
        return (f"{s['title']} ({s['file']}" + (f", variant {', '.join(s['variants'])}" if s["variants"] else "") + ")")
    return (f"A: {side(info['a'])}\nB: {side(info['b'])}\n{info['games']} games each, {info['players']} players; "
            f"seats {','.join(info['seats'])}" + (" (rotated each game)" if info["rotate"] else "")
            + f"; seed {info['seed']}")


def print_report(comp: dict, info: dict, console) -> None:
    from rich.table import Table
    from rich.text import Text
    console.print(Text(headline(info)))
    for spec in tables(comp, info):
        t = Table(title=Text(spec["title"]), title_justify="left")
        for col in spec["columns"]:
            t.add_column(Text(col.rstrip(":")), justify="right" if col.endswith(":") else "left")
        for r in spec["rows"]:
            t.add_row(*(Text(x) for x in r))
        console.print(t)
    console.print(Text(verdict(comp)))


def markdown(comp: dict, info: dict) -> str:
    out = [headline(info).replace("\n", "  \n"), ""]
    for spec in tables(comp, info):
        out += [f"**{spec['title']}**", "",
                "| " + " | ".join(c.rstrip(":") for c in spec["columns"]) + " |",
                "|" + "|".join(" ---: " if c.endswith(":") else " --- " for c in spec["columns"]) + "|"]
        out += ["| " + " | ".join(x.replace("|", "\\|") if x else " " for x in r) + " |" for r in spec["rows"]]
        out.append("")
    out.append(verdict(comp))
    return "\n".join(out) + "\n"


def plot(comp: dict, recs_a: list, recs_b: list, info: dict, path: str) -> None:
    """Win rates side by side (95% intervals), game lengths overlaid, and every difference with its
    interval (beyond noise in red)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = info["players"]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    ax = axes[0]
    xs = range(n)
    for shift, recs, label, colour in ((-0.2, recs_a, "A", "tab:blue"), (0.2, recs_b, "B", "tab:orange")):
        wins = [sum(p in r["winners"] for r in recs) for p in xs]
        rates = [w / len(recs) for w in wins]
        ci = [wilson(w, len(recs)) for w in wins]
        ax.bar([x + shift for x in xs], rates, width=0.4, label=label, color=colour, capsize=3,
               yerr=[[r - lo for r, (lo, _) in zip(rates, ci)], [hi - r for r, (_, hi) in zip(rates, ci)]])
    ax.set_xticks(list(xs), [f"P{p + 1}" for p in xs])
    ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1)
    ax.set_ylim(0, 1)
    ax.set_title("win rate per seat (95% interval)")
    ax.legend()
    ax = axes[1]
    ax.hist([[r["decisions"] for r in recs_a], [r["decisions"] for r in recs_b]], label=["A", "B"],
            bins=min(30, max(5, len(recs_a) // 5)), color=["tab:blue", "tab:orange"])
    ax.set_title("game length (decisions)")
    ax.legend()
    ax = axes[2]
    shown = [ln for ln in comp["lines"] if ln["p"] is not None and ln["kind"] != "number"][:25]
    for y, ln in enumerate(shown):
        colour = "tab:red" if ln["beyond"] else "grey"
        ax.plot([ln["low"], ln["high"]], [y, y], color=colour)
        ax.plot([ln["diff"]], [y], "o", color=colour)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(range(len(shown)), [ln["name"][:28] for ln in shown], fontsize=7)
    ax.invert_yaxis()
    ax.set_title("B − A in win rates and option shares (red: beyond noise)")
    fig.suptitle(headline(info).replace("\n", "   "), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
