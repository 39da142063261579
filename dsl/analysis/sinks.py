"""Where a secret must not go, for the information-flow check: public state and announcements
(``_store``, ``_announce``), and the leaks an env carries until someone observes (``_leak``,
``_flush``): a value worked out from cards chosen just now is forgiven if those cards reach a public
zone before the next observation. ``InfoFlow`` (``dsl.analysis.infoflow``) is the one class that
uses these."""
from __future__ import annotations

import ast

from rulesrun.dsl.analysis.taint import NONE, Leak, secret_text, who_cannot
from rulesrun.dsl.ir import K, St

# the lists of pending leaks an env carries
LISTS = ("pending", "private")


class Sinks:
    """The public sinks of ``InfoFlow`` (a part of that one class, kept in its own module)."""

    def _store(self, target, t, s, env):
        if not t or not isinstance(target, ast.Subscript):
            return env
        base = target.value
        team = False
        if isinstance(base, St) and base.which == "g" and isinstance(target.slice, K):
            key = ("g", target.slice.value)
        elif isinstance(base, St) and base.which == "g" and isinstance(target.slice, ast.BinOp) \
                and isinstance(target.slice.left, K):
            key = ("g", target.slice.left.value)       # team state: S.g[first slot + team] (dsl.check.teams)
            team = True
        elif isinstance(base, ast.Subscript) and isinstance(base.value, St) and isinstance(base.slice, K):
            key = (base.value.which, base.slice.value)
        else:
            return env
        info = self._var(*key)
        if info is not None and info.visibility == "hidden":
            old = self.var_taint.get(key, NONE)
            if not t <= old:
                self.var_taint[key] = old | t
                self.changed = True
        if info is not None and info.public:
            what = f"team state '{info.name.split(' of ')[0]}'" if team else f"public state '{info.name}'"
            env = self._leak(s, f"{what} is set from {secret_text(t)}, {who_cannot(t)}",
                             "store it in 'owner' or 'hidden' state, move the cards to a public zone first, "
                             "or write 'reveal ...' where the rules show it", t, env)
        return env

    def _announce(self, s, env):
        tid = s.value.elts[1]
        if isinstance(tid, K) and self.c.templates[tid.value].private:
            return self._told(s, env)
        for v in s.value.elts[2:]:
            if self._revealed(v, env):
                continue
            whole = getattr(v, "rtype", "") == "zone" and self._zone_of(self._alias(v, env)) is not None
            t = self._zone_cards(v, env) if whole else self.expr(v, env)     # "{p.hand}": its cards
            if t:
                env = self._leak(s, f"this announcement shows {secret_text(t)}, {who_cannot(t)}",
                                 "announcements are public: move the card to a public zone first, or write "
                                 "'reveal ...' before it where the rules show the value", t, env)
                break
        return self._observe(env)          # every seat hears it: an observation




    def _leak(self, s, message, hint, taint, env) -> dict:
        """A leak — or, when it comes only from cards chosen just now, one that is forgiven if
        those cards are shown (moved to a public zone) before anyone sees the state again."""
        if any(t[0] in ("fresh", "unseen") for t in taint):
            hint = ("cards in a public zone are seen only if they are still there when some seat observes "
                    "(a decision, a public announcement): announce them, or let a seat decide, before "
                    "they are moved on")
        err = Leak(message, getattr(s, "pos", None), hint, self.c.sources)
        if all(t[0] in ("chosen", "fresh") for t in taint):
            return {**env, "pending": env.get("pending", ()) + ((err, frozenset(t[:2] for t in taint)),)}
        self._found(err)
        return env

    def _found(self, err):
        if not any(f.pos == err.pos for f in self.found):
            self.found.append(err)

    def _flush(self, env: dict, keep_fresh: bool = False) -> dict:
        """Someone may look at the state now: what is still pending is a leak (but, with
        ``keep_fresh``, what waits on cards in a public zone being seen, which a call does not decide)."""
        kept = []
        for err, srcs in env.get("pending", ()):
            if keep_fresh and any(x[0] == "fresh" for x in srcs):
                kept.append((err, frozenset(x for x in srcs if x[0] == "fresh")))
            else:
                self._found(err)
        for err, *_ in env.get("private", ()):
            self._found(err)
        out = {k: v for k, v in env.items() if k not in LISTS}
        if kept:
            out["pending"] = tuple(kept)
        return out
