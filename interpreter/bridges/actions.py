"""Integer action ids for a compiled game: a fixed number of ids per configuration.

Every decision of the program has a *group*: decisions with the same label and type share one
(so the several "play" decisions of a trick-taking game give the same id to the same card). A
group owns a block of ids, one per value its options can take, in a fixed order:

    card      every kind of card (cards whose printed attributes are all equal are one kind),
              in the card table's order; then "nothing" when the rules offer ``none``
    player    every seat; then "nobody" when the rules offer ``none``
    yes/no    yes, no
    a kind    every value of the kind, in its declared order (then "none" when offered)
    number    the values the option list can hold, worked out from the file: ``0 to 3``,
              ``[1, 2, 5]``, constants (``0 to most``); a range whose ends change as the game
              goes (``0 to hand_size``, a state) from the bounds of what they are worked out from
              (bounds.py), else ``number_bounds`` or bounds declared in the file
    text      the literal texts of the option list (``["face up", "face down"]``)
    subset    chosen one element at a time: an id "add X" for every value X of the element's
              domain, then "done". A subset is built in a fixed order (by element id), so each
              subset has one path; only elements that can still complete a legal subset are legal
    choice    a choice block: its pick's ids (as above: one value, or a subset's "add X" ids and
              "done"), and an id for each named move (a subset's moves before "done"; a move is
              legal before any element is added)
    tuple     several values picked at once: an id for each combination of the values of each
              source's domain, the first source outermost
    branches  a choice block whose options carry their branch (several picks, a pick of texts
              beside moves, a pick under an 'if', a move whose text shows values): each pick's
              ids in the order written, one id for each named move (a move whose text shows
              values: one id whatever the text); a subset branch's "LABEL: add X" ids and its
              own "LABEL: done", after which only that branch's items may be added

The ids read back as the engine's action texts (``label value``); an action id is applied by
the option's value, never by its position in the list, so ids are stable across states.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from rulesrun.dsl import RulesrunError
from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.syntax.parser import parse_text


class BridgeError(RulesrunError):
    """A game or a configuration the bridges cannot express; the message says what to change."""


_NONE_KEY = ("<none>",)     # the key of a ``none`` option (cards: no card; players: nobody)
DONE = ("<done>",)          # the last id of a subset group: the subset chosen so far is the choice


@attrs.define
class Group:
    """The ids of one (label, type) group of decisions."""
    label: str
    type: str
    subset: bool
    keys: list                  # the value keys, in id order (DONE last for a subset)
    texts: list                 # the readable text of each id
    offset: int = 0
    index: dict = attrs.Factory(dict)   # key -> position in keys
    decisions: list = attrs.Factory(list)   # the decision indices in the group
    whole: Any = None           # a label with {expressions}: the decision's display makes the whole text
    moves: frozenset = frozenset()      # a choice block's named moves
    tagged: bool = False        # a choice block's (branch, value) options (keys ("<b>", branch, key), moves)
    mixed: bool = False         # ... with a subset branch, chosen item by item (("<sub>", branch, key), ("<done>", branch))


def _is_move(key) -> bool:
    """A choice block's named move (its key is ("<move>", text))."""
    return isinstance(key, tuple) and len(key) == 2 and key[0] == "<move>"


class _NotStatic(Exception):
    pass




class ActionSpace:
    """The action ids of one compiled game (one player count, one set of variants)."""

    def __init__(self, game, number_bounds: dict | None = None):
        prog = self.prog = game.program
        self.game = game
        self.players = prog.players
        self.number_bounds = dict(number_bounds or {})
        rules = parse_text(prog.source, prog.path)
        self._kinds: dict[str, list] = {}
        self._consts: dict[str, A.Expr] = {}
        chooses: dict[tuple, A.Choose] = {}
        items = list(rules.items)
        active = [i for i in items if isinstance(i, A.VariantDecl) and i.name in prog.variants]
        self._items = items + [x for v in active for x in v.items]
        self._ranges = None
        for item in self._items:
            if isinstance(item, A.KindDecl):
                self._kinds[item.name] = list(item.texts)
            elif isinstance(item, A.ConstDecl):
                self._consts[item.name] = item.expr
        for node in A.walk(items):
            if isinstance(node, (A.Choose, A.ChooseBlock)):
                chooses[(node.pos.line, node.pos.column)] = node
            elif isinstance(node, A.Window):        # one choice block, asked of each seat: its moves and "pass"
                chooses[(node.pos.line, node.pos.column)] = A.ChooseBlock(pos=node.pos, player=A.Name(
                    pos=node.pos, id=node.var), branches=node.offered())
        self._blocks = {k: n for k, n in chooses.items() if isinstance(n, A.ChooseBlock)}
        # the kinds of card: cards whose attributes are all equal (as the compiler deduplicates them)
        attrs_ = list(prog.card_attrs)
        ncards = len(prog.card_names)
        classes: dict = {}
        self.card_class = [classes.setdefault(tuple(_hashable(prog.card_attrs[a][c]) for a in attrs_),
                                              len(classes)) for c in range(ncards)]
        self.nclasses = len(classes)
        self.class_card = [0] * self.nclasses           # a card of each kind
        for c in reversed(range(ncards)):
            self.class_card[self.card_class[c]] = c
        self.class_names = [prog.card_names[c] for c in self.class_card]
        # the groups
        self.groups: list[Group] = []
        self.group_of: list[int] = []
        self.branch_moves: list = []    # each decision's branches: a named move's text, or None for a pick
        by_key: dict[tuple, int] = {}
        for did, d in enumerate(prog.decisions):
            node = chooses.get((d.pos.line, d.pos.column))
            gkey = (d.label, d.type)
            self.branch_moves.append(tuple(b.text if b.pick is None else None for b in node.branches)
                                     if isinstance(node, A.ChooseBlock) else ())
            keys = self._domain(d, node)
            if gkey in by_key:
                grp = self.groups[by_key[gkey]]
                grp.moves = grp.moves | frozenset(getattr(d, "moves", ()))
                for k in keys:
                    if k not in grp.index and k != DONE:
                        grp.index[k] = None
                        grp.keys.insert(len(grp.keys) - (1 if grp.subset else 0), k)
            else:
                by_key[gkey] = len(self.groups)
                grp = Group(d.label, d.type, d.kind == "subset", list(keys), [],
                            moves=frozenset(getattr(d, "moves", ())))
                if getattr(d, "whole_text", False) and d.kind != "subset":
                    grp.whole = d.display
                grp.tagged = d.type.startswith("branches:")
                grp.mixed = grp.tagged and any(k[0] == "<done>" for k in keys if isinstance(k, tuple))
                grp.index = dict.fromkeys(grp.keys)
                self.groups.append(grp)
            grp.decisions.append(did)
            self.group_of.append(by_key[gkey])
        offset = 0
        self.id_group: list[int] = []
        for gi, grp in enumerate(self.groups):
            grp.offset = offset
            grp.index = {k: i for i, k in enumerate(grp.keys)}
            grp.texts = self._texts(grp)
            offset += len(grp.keys)
            self.id_group.extend([gi] * len(grp.keys))
        self.num_actions = offset
        if offset == 0:
            raise BridgeError(f"{prog.path}: the game has no decisions, so there is nothing to give action ids to")

    # ── domains ─────────────────────────────────────────────────────────────
    def _where(self, d) -> str:
        text = self.prog.sources.get(d.pos.file, self.prog.source)
        line = text.splitlines()[d.pos.line - 1].strip() if d.pos.line else ""
        return f"{d.pos}: the decision '{d.label}' ({line})"

    def _domain(self, d, node) -> list:
        t = d.type
        if t.startswith("branches:"):   # a choice block tagged by branch: each pick's values, each move
            out: list = []
            types = t[9:].split(";")
            for i, b in enumerate(node.branches if node is not None else ()):
                if b.pick is None:
                    out.append(("<move>", b.text))
                elif b.pick.subset:     # its items one at a time ("add X"), then its own "done"
                    elems = self._values(d, b.pick, types[i][5:], offers_none=False)
                    out.extend([("<sub>", i, k) for k in elems] + [("<done>", i)])
                else:
                    none = any(isinstance(n, A.NoneLit) for n in A.walk(b.pick.source))
                    out.extend(("<b>", i, k) for k in self._values(d, b.pick, types[i], none))
            return out
        if t.startswith("choice:"):     # a choice block: the pick's values, then each named move
            pick = next((b.pick for b in node.branches if b.pick is not None), None) if node is not None else None
            moves = [("<move>", b.text) for b in node.branches if b.text is not None] if node is not None else []
            if pick is None:
                return moves
            if pick.subset:             # a subset pick: its elements, the moves, then "done"
                return self._values(d, pick, t[12:], offers_none=False) + moves + [DONE]
            offers_none = any(isinstance(n, A.NoneLit) for n in A.walk(pick.source))
            return self._values(d, pick, t[7:], offers_none) + moves
        offers_none = node is not None and any(isinstance(n, A.NoneLit) for n in A.walk(node.source))
        if d.kind == "subset":
            elem = t[5:]
            keys = self._values(d, node, elem, offers_none=False)
            return keys + [DONE]
        if t.startswith("list:"):
            raise BridgeError(f"{self._where(d)} chooses among lists, which cannot be given action ids; "
                              f"choose a subset ('chooses subset ...') or one item at a time")
        return self._values(d, node, t, offers_none)

    def _values(self, d, node, t: str, offers_none: bool) -> list:
        if t.startswith("tuple:"):      # several values at once: every combination, the first outermost
            import itertools
            parts = []
            for et, var, src in zip(t[6:].split(","), node.names, node.sources):
                one = attrs.evolve(node, var=var, source=src, names=(), sources=())
                parts.append(self._values(d, one, et, any(isinstance(n, A.NoneLit) for n in A.walk(src))))
            n = 1
            for p in parts:
                n *= len(p)
            if n > 10_000:
                raise BridgeError(f"{self._where(d)} can take {n} combinations of values: too many action ids; "
                                  f"narrow its sources in the file")
            return list(itertools.product(*parts))
        none = [_NONE_KEY] if offers_none else []
        if t == "card":
            return list(range(self.nclasses)) + none
        if t == "player":
            return list(range(self.players)) + none
        if t == "team":
            return list(range(len(self.prog.teams))) + none
        if t == "bool":
            return [True, False]
        if t.startswith("enum:"):
            return list(self._kinds.get(t[5:], [])) + none
        if t in ("number", "text"):
            if t == "number" and d.label in self.number_bounds:
                lo, hi = self.number_bounds[d.label]
                return list(range(int(lo), int(hi) + 1))
            try:
                if node is None:
                    raise _NotStatic
                values = self._superset(node.source, node.var)
                if any(not isinstance(v, (int, str)) or isinstance(v, bool) for v in values):
                    raise _NotStatic
            except _NotStatic:
                if t == "number":
                    values = self._inferred(d, node)
                else:
                    raise BridgeError(f"{self._where(d)} chooses a text computed during the game, so the "
                                  f"bridges cannot give it a fixed set of action ids; list the texts "
                                  f"in the file (like [\"face up\", \"face down\"])") from None
            out = list(dict.fromkeys(values))
            if len(out) > 10_000:
                raise BridgeError(f"{self._where(d)} can take {len(out)} values: too many action ids; "
                                  f"narrow its options in the file")
            return out + none
        raise BridgeError(f"{self._where(d)} chooses a {t}, which the bridges cannot give action ids to")

    def _inferred(self, d, node) -> list:
        """The values of a number choice whose ends change during the game, from the bounds of
        what its ends are worked out from (bounds.py): ``0 to hand_size``, where every value
        given to ``hand_size`` is bounded, is 0 to the greatest of them."""
        from rulesrun.dsl.analysis.bounds import Bounds, Unbounded
        var = node.var if node is not None else "n"
        try:
            if node is None:
                raise Unbounded("options the bridges cannot find in the file")
            if self._ranges is None:
                prog = self.prog
                numbers = {a: (min(vals), max(vals)) for a, vals in prog.card_attrs.items()
                           if vals and all(isinstance(v, int) and not isinstance(v, bool) for v in vals)}
                self._ranges = Bounds(self._items, self._static, self.players, len(prog.card_names),
                                      {z.name for z in prog.zones if z.owner is None}, set(prog.families),
                                      numbers)
            try:
                lo, hi = self._ranges.elements(node.source)
            except RecursionError:
                raise Unbounded("an expression nested too deeply to bound") from None
        except Unbounded as why:
            raise BridgeError(
                f"{self._where(d)} chooses a number from options whose ends change during the game, "
                f"and the bridges cannot bound {why}, so they cannot give it a fixed set of action ids. "
                f"Declare the bounds of what its ends are worked out from (like 'state n: number = 0 "
                f"from 0 to 20'), or write the range with fixed ends and a condition (like '0 to 20 "
                f"where {var} <= ...'), or pass number_bounds={{'{d.label}': (low, high)}}") from None
        return list(range(lo, hi + 1))

    def _superset(self, e, var: str | None = None) -> list:
        """The values an option list can hold (all of them, or more), worked out without playing."""
        if isinstance(e, A.Range):
            lo, hi = self._static(e.low), self._static(e.high)
            if not (isinstance(lo, int) and isinstance(hi, int)):
                raise _NotStatic
            return list(range(lo, hi + 1))
        if isinstance(e, A.ListLit):
            out = []
            for item in e.items:
                if isinstance(item, A.NoneLit):
                    continue
                out.append(self._static(item))
            return out
        if isinstance(e, A.BinOp) and e.op == "+":
            return self._superset(e.left) + self._superset(e.right)
        if isinstance(e, A.ListComp) and isinstance(e.expr, A.Name) and e.expr.id == e.var:
            return self._superset(e.source)          # the condition only removes values
        if isinstance(e, A.Ternary):
            return self._superset(e.then) + self._superset(e.other)
        value = self._static(e)
        if isinstance(value, list):
            return value
        raise _NotStatic

    def _static(self, e, depth: int = 0):
        """The value of an expression that is the same in every game of this configuration."""
        if depth > 50:
            raise _NotStatic
        s = lambda x: self._static(x, depth + 1)  # noqa: E731
        if isinstance(e, (A.Num, A.Bool)):
            return e.value
        if isinstance(e, A.Str):
            if all(isinstance(p, str) for p in e.parts):
                return "".join(e.parts)
            raise _NotStatic
        if isinstance(e, A.Players) and e.start is None:
            return self.players
        if isinstance(e, A.Name) and e.id in self._consts:
            return s(self._consts[e.id])
        if isinstance(e, A.Name) and e.id in self.prog.params:      # a game parameter: fixed for the game
            return self.prog.params[e.id]
        if isinstance(e, A.Neg):
            return -s(e.operand)
        if isinstance(e, A.ListLit):
            return [s(i) for i in e.items]
        if isinstance(e, A.Range):
            return list(range(s(e.low), s(e.high) + 1))
        if isinstance(e, A.Ternary):
            return s(e.then) if s(e.cond) else s(e.other)
        if isinstance(e, A.Call) and e.func in ("min", "max") and e.args:
            args = [s(a) for a in e.args]
            return (min if e.func == "min" else max)(args[0] if len(args) == 1 else args)
        if isinstance(e, A.BinOp):
            a, b = s(e.left), s(e.right)
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "/": lambda: a // b, "mod": lambda: a % b}
            if e.op in ops:
                try:
                    return ops[e.op]()
                except (TypeError, ZeroDivisionError):
                    raise _NotStatic from None
        if isinstance(e, A.Compare):
            a, b = s(e.left), s(e.right)
            ops = {"==": a == b, "!=": a != b}
            if e.op in ops:
                return ops[e.op]
            try:
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e.op]
            except (KeyError, TypeError):
                raise _NotStatic from None
        if isinstance(e, A.BoolOp):
            return (s(e.left) and s(e.right)) if e.op == "and" else (s(e.left) or s(e.right))
        if isinstance(e, A.Not):
            return not s(e.operand)
        raise _NotStatic

    # ── texts ───────────────────────────────────────────────────────────────
    def _texts(self, grp: Group) -> list:
        if grp.tagged:      # each option's whole text; texts that read alike told apart by their kind
            texts = [self._tagged_text(grp, k, f"{grp.label} {self._show(grp.type, k)}") for k in grp.keys]
            repeats, seen = Counter(texts), Counter()
            out = []
            for text in texts:
                seen[text] += 1
                out.append(f"{text} (kind {seen[text]})" if repeats[text] > 1 else text)
            return out
        elem = _elem(grp)
        shown = [self._show(elem, k) for k in grp.keys if k != DONE]
        # kinds of card that read alike are told apart by their place in the card table
        repeats = Counter(shown)
        seen: Counter = Counter()
        out = []
        for k, text in zip(grp.keys, shown + ["done"]):
            if k == DONE:
                out.append(f"{grp.label}: done")
                continue
            suffix = ""
            if repeats[text] > 1:
                seen[text] += 1
                suffix = f" (kind {seen[text]})"
            if grp.whole is not None:
                out.append(self._whole(grp, k, text) + suffix)
            elif _is_move(k):
                out.append(text)
            else:
                out.append(f"{grp.label}: add {text}{suffix}" if grp.subset else f"{grp.label} {text}{suffix}")
        return out

    def _whole(self, grp: Group, key, fallback: str) -> str:
        """The engine's whole text of an option of a decision labelled with {expressions}."""
        if _is_move(key):       # a named move's text is its whole action text, whichever choice block
            return key[1]       # of the group offers it (the group's display is its first decision's)
        t = grp.type[7:] if grp.type.startswith("choice:") else grp.type
        value = (None if key == _NONE_KEY
                 else self.class_card[key] if t == "card" else key)
        try:
            return grp.whole(value)
        except Exception:       # a label that cannot be worked out without the game: label + value
            return f"{grp.label} {fallback}"

    def _tagged_text(self, grp: Group, key, fallback: str) -> str:
        """The engine's text of a tagged block's option (a move's words as written; a subset
        branch's steps "LABEL: add X" and "LABEL: done")."""
        if _is_move(key):
            return key[1]
        if key[0] in ("<sub>", "<done>"):
            node = self._block_of(grp)
            pick = node.branches[key[1]].pick if node is not None else None
            label = (pick.label or "choose") if pick is not None else grp.label
            if key[0] == "<done>":
                return f"{label}: done"
            return f"{label}: add {self._show(grp.type[9:].split(';')[key[1]][5:], key[2])}"
        _, i, k = key
        try:
            return grp.whole((i, self._value(grp.type[9:].split(";")[i], k)))
        except Exception:       # a label that cannot be worked out without the game
            return fallback

    def _value(self, t: str, key):
        """An option value of a domain key (a card of that kind)."""
        if key == _NONE_KEY:
            return None
        if t == "card":
            return self.class_card[key]
        if t.startswith("tuple:"):
            return tuple(self._value(et, k) for et, k in zip(t[6:].split(","), key))
        return key

    def _show(self, t: str, key) -> str:
        if t.startswith("branches:"):
            if _is_move(key) or key[0] == "<done>":
                return key[1] if _is_move(key) else "done"
            bt = t[9:].split(";")[key[1]]
            return self._show(bt[5:] if key[0] == "<sub>" else bt, key[2])
        if t.startswith("tuple:"):
            return " ".join(self._show(et, k) for et, k in zip(t[6:].split(","), key))
        if t.startswith("choice:"):
            return key[1] if _is_move(key) else self._show(t[7:], key)
        if key == _NONE_KEY:
            return {"card": "nothing", "player": "nobody", "team": "no team"}.get(t, "none")
        if t == "card":
            return self.class_names[key]
        if t == "player":
            return self.prog.player_names[key]
        if t == "team":
            return self.prog.teams[key]
        if t == "bool":
            return "yes" if key else "no"
        return str(key)

    # ── options <-> ids ─────────────────────────────────────────────────────
    def key(self, t: str, value, moves=()) -> Any:
        """The domain key of one option value (a card's kind for a card)."""
        if value is None:
            return _NONE_KEY
        if t.startswith("choice:"):
            return ("<move>", value) if value in moves else self.key(t[7:], value)
        if t.startswith("tuple:"):
            return tuple(self.key(et, x) for et, x in zip(t[6:].split(","), value))
        if t == "card":
            return self.card_class[value]
        return value

    def tagged_key(self, did: int, t: str, value) -> Any:
        """The domain key of a tagged block's option (branch, value) of decision ``did``: a subset
        branch's is ("<set>", branch, its items' keys)."""
        i, v = value
        move = self.branch_moves[did][i]
        if move is not None:
            return ("<move>", move)
        bt = t[9:].split(";")[i]
        if bt.startswith("list:"):
            return ("<set>", i, tuple(("<sub>", i, self.key(bt[5:], x)) for x in v))
        return ("<b>", i, self.key(bt, v))

    def _block_of(self, grp: Group):
        """The choice block of a group's first decision (its branches' labels)."""
        d = self.prog.decisions[grp.decisions[0]]
        return self._blocks.get((d.pos.line, d.pos.column))

    def text(self, action_id: int) -> str:
        grp = self.groups[self.id_group[action_id]]
        return grp.texts[action_id - grp.offset]

    def group_of_id(self, action_id: int) -> Group:
        return self.groups[self.id_group[action_id]]


def _elem(grp: Group) -> str:
    """The type of one id's value: a subset's element (a choice block's keeps its moves)."""
    if grp.subset:
        return "choice:" + grp.type[12:] if grp.type.startswith("choice:") else grp.type[5:]
    return grp.type


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v
