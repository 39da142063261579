"""The vocabulary of the information-flow check (``dsl.analysis.infoflow``) and of its sibling
analyses (``seatview``, ``frames``): taints, the error it raises, and how a seat or a read of state
is recognised in the IR.

A taint is the frozenset of the secrets a value comes from; empty: public. A secret is
(kind, key, text): ("zone", name, ...) the cards of a zone nobody else sees, ("chosen", local, ...)
a card chosen from such a zone (public once moved to a public zone), ("var", name, ...) owner state,
("count", name, ...) the size of a hidden zone.
"""
from __future__ import annotations

import ast

from rulesrun.dsl import types as T
from rulesrun.dsl.errors import Pos, RulesError
from rulesrun.dsl.ir import K, Local, St, Stop


class Leak(RulesError):
    pass


# A taint is the frozenset of the secrets a value comes from; empty: public. A secret is
# (kind, key, text): ("zone", name, ...) the cards of a zone nobody else sees, ("chosen", local,
# ...) a card chosen from such a zone (public once moved to a public zone), ("var", name, ...)
# owner state, ("count", name, ...) the size of a hidden zone.
NONE = frozenset()


def join(*taints):
    out = NONE
    for t in taints:
        if t:
            out = out | t
    return out


def secret_text(taint) -> str:
    return sorted(t[2] for t in taint)[0]


def who_cannot(taint) -> str:
    """Who does not see the secret of ``secret_text(taint)``: its owner for an ``others`` zone or value,
    the other teams for a ``team`` one."""
    text = secret_text(taint)
    return "which its owner cannot see" if text.endswith("(others)") else \
        "which the other teams cannot see" if text.endswith("(team)") else "which other seats cannot see"


def asks_of(stmts) -> list:
    """The decisions a list of statements may open, as every seat sees them — who is asked (as
    written) and the label — in the order written: two ways of an ``if`` that ask alike (Hearts'
    "play", from the cards of the led suit or from any) tell nothing by asking."""
    out = []
    for n in stmts:
        for x in ast.walk(n):
            if isinstance(x, Stop) and x.kind == "decision" and x.decision is not None:
                out.append((shape_of(decision_seat(x)), x.decision.label))
    return out


def shape_of(node):
    """An expression as a comparable value: the same seat written the same way compares equal
    (``ast.dump`` shows neither a constant's value nor a local's slot)."""
    if isinstance(node, K):        # (where a runtime error would point: not part of the value)
        return ("K", "pos") if isinstance(node.value, Pos) else ("K", repr(node.value))
    if isinstance(node, Local):
        return "L", node.key()
    if isinstance(node, St):
        return "St", node.which
    if isinstance(node, ast.AST):
        return type(node).__name__, tuple(shape_of(getattr(node, f, None)) for f in node._fields)
    if isinstance(node, list):
        return tuple(shape_of(x) for x in node)
    return node


def is_nonempty(node) -> bool:
    """Whether an expression is a constant list with items (``players``)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "list" and len(node.args) == 1:
        node = node.args[0]
    return isinstance(node, K) and isinstance(node.value, (list, tuple)) and len(node.value) > 0


def chosen_text(secret, rtype=None) -> str:
    """What a choice among secret options is, for a message: "a card chosen from each player's
    hand (owner)", "cards chosen from ...", "a card chosen knowing 'bid' (owner)", "a choice made
    from the cards of ..." (the options are not cards); a choice from cards chosen before names
    where those came from, once."""
    text = secret_text(secret)
    for done in ("a card chosen from ", "cards chosen from ", "a card chosen knowing ", "cards chosen knowing "):
        if text.startswith(done):
            text = ("" if done.endswith("knowing ") else "the cards of ") + text[len(done):]
            break
    if text.startswith("a choice made from "):
        text = text[len("a choice made from "):]
    cards = rtype is not None and T.is_list(rtype) and T.elem(rtype) == T.CARD
    if (rtype or "").startswith(("tuple:", "branches:")):     # several values, or a branch's: cards among them?
        if "card" not in rtype.replace(";", ",").replace(":", ",").split(","):
            return "a choice made from " + text
    if rtype in (T.NUMBER, T.BOOL, T.TEXT, T.PLAYER, T.TEAM) or (rtype or "").startswith("enum:") \
            or (T.is_list(rtype or "") and not cards):
        return "a choice made from " + text
    # (a card, or a choice block's value: the card, or the cards, of one of its moves)
    what = "cards" if cards else "a card"
    if text.startswith("the cards of "):
        return f"{what} chosen from {text[len('the cards of '):]}"
    return f"{what} chosen knowing {text}"


def option_parts(pre):
    """What a decision's ``pre`` works its options out from besides the first list (the tests of
    its named moves' ``if``s, the filters it applies): every statement but the opening of the
    decision (``S.pending = ...``) and the message of a decision with no option."""
    for a in pre:
        if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Attribute) and a.targets[0].attr == "pending":
            continue
        if isinstance(a, ast.If) and isinstance(a.test, ast.UnaryOp) and len(a.body) == 1 \
                and isinstance(a.body[0], ast.Expr) and getattr(a.body[0].value.func, "id", None) == "fail_no_options":
            continue
        yield a


def state_read(node):
    """(part, index) of a read of state (``trump``, ``p.bid``, ``c.played_by``), else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, St) and node.value.which == "g" \
            and isinstance(node.slice, K):
        return "g", node.slice.value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript) \
            and isinstance(node.value.value, St) and isinstance(node.value.slice, K):
        return node.value.value.which, node.value.slice.value
    return None


def decision_seat(stop):
    """The seat expression a decision's ``pre`` opens it for (``S.pending = [seat, ...]``); a
    temporary name the ``pre`` sets (``_p = S.g[1]``) is read as what it was set to."""
    temps = {}
    for a in stop.pre:
        if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Name):
            temps[a.targets[0].id] = a.value
        if isinstance(a, ast.Assign) and isinstance(a.targets[0], ast.Attribute) \
                and a.targets[0].attr == "pending" and isinstance(a.value, ast.List):
            seat = a.value.elts[0]
            return temps.get(seat.id, seat) if isinstance(seat, ast.Name) else seat
    return None
