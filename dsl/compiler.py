"""The compiler's front door: a parsed rules file → a ``Program``, through the stages of ``dsl``.

    parse (dsl.syntax.parser)      text → AST (dsl.syntax.ast)
    declare (dsl.check.declare)   variants, kinds, constants, cards, zones, state → the compiler's tables
    check (dsl.check.expressions, dsl.check.builtins)   expressions → typed IR (dsl.ir)
    lower (dsl.lower.statements)       statements and procedures → IR, with explicit stops
    passes (dsl.passes)     inline, fast paths, resume entries and liveness, loops
    emit (dsl.emit.writer)         IR → Python functions, each line mapped to its rules position

The stages share the tables below (a ``Compiler`` is the stages' mixins over one set of tables);
see docs/architecture.md.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Any

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.analysis import bounds, facts, frames, infoflow
from rulesrun.dsl import types as T
from rulesrun.dsl.check.builtins import Calls
from rulesrun.dsl.check.combinations import Combinations
from rulesrun.dsl.check.expressions import Expressions
from rulesrun.dsl.check.declare import MAX_BOUNDED, Declarations
from rulesrun.dsl.check.display import table_display
from rulesrun.dsl.emit.namespace import Namespace
from rulesrun.dsl.errors import Pos, RulesError, deep_rules
from rulesrun.dsl.ir import ret
from rulesrun.dsl.check.decisions import Decisions
from rulesrun.dsl.lower.at_once import AtOnceBlocks, pending_picks
from rulesrun.dsl.lower.statements import Statements
from rulesrun.dsl.check.params import Parameters
from rulesrun.dsl.program import Budget, Decision, Program, Template, VarInfo, ZoneInfo
from rulesrun.dsl.scope import Scope
from rulesrun.dsl.check.teams import Teams


class Compiler(Declarations, Expressions, Calls, Combinations, Statements, AtOnceBlocks, Decisions, Parameters,
               Teams):
    def __init__(self, rules: A.RulesFile, players: int, variants: tuple = (), allow_leaks: bool = False,
                 params: dict | None = None):
        self.param_values = dict(params or {})   # the parameters given (dsl.check.params), by name
        self.param_info: list = []
        self.allow_leaks = allow_leaks
        self.rules = rules
        self.src = rules.source
        self.sources = rules.sources       # each file's text by path: a variant file's base too
        self.path = rules.path
        self.N = players
        self.requested = tuple(variants)
        self.in_const = False
        self.consts: dict[str, tuple[Any, str]] = {}
        self.kinds: dict[str, tuple] = {}
        self.enum_values: dict[str, str] = {}
        self.enum_text: dict[str, str] = {}     # value name -> its text (the run-time value)
        self.attrs: dict[str, str] = {}
        self.card_attrs: dict[str, list] = {}
        self.card_names: list[str] = []
        self.zone_index: dict[str, int] = {}
        self.families: dict[str, int] = {}
        self.zones: list[ZoneInfo] = []
        self.globals: dict[str, tuple[int, VarInfo]] = {}
        self.pvars: dict[str, tuple[int, VarInfo]] = {}
        self.cvars: dict[str, tuple[int, VarInfo]] = {}
        self.defines: dict[str, A.DefineDecl] = {}
        self.define_cache: dict = {}
        self.proc_decls: dict[str, A.ProcDecl] = {}
        self.proc_index: dict = {}
        self.proc_rtype: dict = {}      # (procedure, argument types) -> the type it returns, or None
        self.gen = Namespace(rules.path)
        self.next_label = 1
        self.const_budget = Budget()       # loop rounds the values worked out before the game may spend
        self.ir_bodies: list = []          # every procedure's IR, for the facts worked out at the end
        self.windows: set = set()            # the positions of the windows ('any q in ... may:')
        self.ir_procs: dict = {}           # procedure ref -> (parameters, IR), for the information-flow check
        self.frame_types: dict = {}        # resumable procedure -> label -> types of the frame's locals
        self._defining: set = set()
        self.procs: list = []            # resumable procedures' functions, by frame index
        self.proc_names: list[str] = []
        self.proc_nslots: list[int] = []
        self.proc_pad: list[list] = []   # the None locals a new frame of each starts with
        self.resumable: set[str] = set()
        self.inline: set[str] = set()
        self.inlined = 0
        self.decisions: list[Decision] = []
        self.at_once_blocks = 0          # 'for p in ... at once' blocks lowered (dsl.lower.at_once)
        self.templates: list[Template] = []
        self.called: set[str] = set()
        self.option_notes: list = []     # (pos, option local, IR text) of each `showing "..."` (dsl.check.decisions)

    # ── diagnostics ────────────────────────────────────────────────────────
    def err(self, msg: str, pos: Pos | None, hint: str | None = None):
        raise RulesError(msg, pos, hint, self.sources)

    # ── the whole file ─────────────────────────────────────────────────────
    def compile(self) -> Program:
        items = self._select_variants()
        by_type: dict[str, list] = {}
        for it in items:
            by_type.setdefault(type(it).__name__, []).append(it)
        first = lambda name: (by_type.get(name) or [None])[0]

        game = first("GameDecl")
        title = game.title if game else self.path
        about = first("AboutDecl")
        self.about = about.text if about else None
        pl = first("PlayersDecl")
        if pl is None:
            self.err("the rules never say how many players the game is for", None,
                     "add a line like 'players 3 to 5'")
        if not pl.low <= self.N <= pl.high:
            span = f"{pl.low}" if pl.low == pl.high else f"{pl.low} to {pl.high}"
            with_variant = f" with the variant '{self.players_variant}'" if self.players_variant else ""
            raise RulesError(f"{title}{with_variant} is for {span} players, not {self.N}", None,
                             f"choose --players between {pl.low} and {pl.high}" if pl.low != pl.high else
                             f"use --players {pl.low}")

        for k in by_type.get("KindDecl", []):
            self._kind(k)
        # names declared later, so that a constant reading one is told why it cannot
        self.later_state = {s.name for s in by_type.get("StateDecl", []) if s.owner is None} | \
            {z.name for z in by_type.get("ZoneDecl", [])}
        for c in items:     # constants and parameters in the file's order: each may read those before
            if isinstance(c, A.ConstDecl):
                self._const(c)
            elif isinstance(c, A.ParamDecl):
                self._param(c)
        params = self._params_in_force()
        cards = first("CardsDecl")
        if cards is None:
            self.err("the rules declare no cards", None, "add a 'cards:' block")
        self._cards(cards)
        zones = by_type.get("ZoneDecl", [])
        if not zones:
            self.err("the rules declare no zones", None, "add a line like 'zone deck: facedown'")
        for z in zones:
            self._zone(z)
        if self.zones[0].owner is not None:
            self.err("the first zone holds every card at the start, so it cannot be a per-player zone",
                     zones[0].pos, "declare a shared zone such as 'zone deck: facedown' first")
        self._teams(first("TeamsDecl"))
        for s in by_type.get("StateDecl", []):
            self._state(s)
        self._team_visibility()
        self.table_display = table_display(self, zones, by_type.get("StateDecl", []), self.rules)
        for d in by_type.get("DefineDecl", []):
            self._check_free(d.name, d.pos)
            self.defines[d.name] = d
        for p in by_type.get("ProcDecl", []):
            self._check_free(p.name, p.pos)
            self.proc_decls[p.name] = p

        flow = first("FlowDecl")
        if flow is None:
            self.err("the rules have no 'flow:' block, so the game never starts", None,
                     "add 'flow:' with the game's rounds and turns")
        self.resumable = self._find_resumable()
        self.inline = self._find_inline(flow.body)
        self._proc_body("flow", (), (), flow.body, flow.pos, resumable=True)

        score = None
        sd = first("ScoreDecl")
        if sd is not None:
            score = self._player_fn(sd.var, sd.expr, T.NUMBER, "the score")
        winner_keys = []
        wd = first("WinnersDecl")
        if wd is not None and wd.team:
            winner_keys = self._team_winner_keys(wd)
        elif wd is not None:
            for kind, e in wd.orders:
                fn = self._player_fn(wd.var, e, T.NUMBER, "a winners order")
                winner_keys.append((1 if kind == "highest" else -1, fn))
        elif score is not None:
            winner_keys.append((1, score))
        hd = first("HeuristicDecl")
        heuristic = None if hd is None else self._player_fn(hd.var, hd.expr, T.NUMBER, "the heuristic")
        invariants, card_invariants = [], []
        for inv in by_type.get("InvariantDecl", []):
            if inv.card is not None:        # f(S, c) of each card: checked over every card
                fn = self._item_fn(inv.card, T.CARD, inv.expr, T.BOOL, f"invariant {inv.text!r}")
                card_invariants.append((inv.text, fn))
                invariants.append((inv.text, _every_card(fn, len(self.card_names))))
                continue
            node, t = self.expr(inv.expr, Scope("py"))
            self._expect(t, T.BOOL, inv.expr.pos, "an invariant")
            invariants.append((inv.text, self.gen.lambda_(["S"], node, inv.expr.pos, f"invariant {inv.text!r}")))

        for name, p in self.proc_decls.items():
            # a base's procedure that a variant file's replacements no longer call is not a fault
            if name not in self.called and p.pos.file == self.path:
                self.err(f"procedure '{name}' is never called", p.pos, "call it from flow or another procedure, or remove it")

        self._teams_stay()
        leaks, secret = infoflow.analyse(self)
        if leaks and not self.allow_leaks:
            first = leaks[0]
            if len(leaks) > 1:
                more = ", ".join(str(e.pos.line) for e in leaks[1:] if e.pos)
                first.hint = f"{first.hint} (more at line{'s' if len(leaks) > 2 else ''} {more})"
            raise first

        variables = {("g", i): v for i, v in self.globals.values()}
        variables.update({("pv", i): v for i, v in self.pvars.values()})
        variables.update({("cv", i): v for i, v in self.cvars.values()})
        for key, dom in facts.domains(self.ir_bodies, variables, self.kinds, self.N, len(self.team_names)).items():
            # what holds no secret (a hidden flag worked out from public play) is never redrawn
            variables[key].domain = dom if key in secret else None
        self._bound_secret_numbers(items, variables, secret)
        # secrets a bot cannot imagine (no values known; cards are relabelled instead): it keeps them
        kept_secrets = [f"{owner}state '{v.name}'"
                        for part, owner in (("g", ""), ("pv", "player "), ("cv", "card "))
                        for key, v in sorted(variables.items()) if key[0] == part
                        if key in secret and v.domain is None and v.type != T.CARD
                        and not (T.is_list(v.type) and T.elem(v.type) == T.CARD)]
        frame_secrets = facts.frame_secrets(frames.frame_secrets(self), self.ir_procs, self.frame_types,
                                            self.kinds, self.N, len(self.team_names))

        picks = pending_picks(self.ir_procs)
        return Program(
            title=title, path=self.path, source=self.src, files=self.rules.files or ((self.path, self.src),),
            about=self.about, players=self.N, variants=self.selected,
            available_variants=self.available, card_names=self.card_names, card_attrs=self.card_attrs,
            attr_types=dict(self.attrs), zones=self.zones, zone_index=self.zone_index, families=self.families,
            globals=[v for _, v in sorted(self.globals.values(), key=lambda x: x[0])],
            player_vars=[v for _, v in sorted(self.pvars.values(), key=lambda x: x[0])],
            card_vars=[v for _, v in sorted(self.cvars.values(), key=lambda x: x[0])],
            procs=self.procs, code=self.gen, proc_names=self.proc_names, proc_nslots=self.proc_nslots,
            decisions=self.decisions, templates=self.templates, score=score, winner_keys=winner_keys,
            heuristic=heuristic, frame_types=[self.frame_types.get(i, {}) for i in range(len(self.procs))],
            frame_secrets=[frame_secrets.get(i, {}) for i in range(len(self.procs))], kept_secrets=kept_secrets,
            pending_picks=[picks.get(i, {}) for i in range(len(self.procs))],
            invariants=invariants, card_invariants=card_invariants, player_names=[f"Player {i + 1}" for i in range(self.N)],
            min_players=pl.low, max_players=pl.high, proc_count=len(self.proc_index) + self.inlined,
            params=params, param_info=self.param_info, **self._team_fields())


    def _bound_secret_numbers(self, items: list, variables: dict, secret: set) -> None:
        """A secret number whose values the IR does not list (worked out by arithmetic) gets them
        from the intervals of everything it is given (dsl.analysis.bounds): a bot imagines another
        seat's value among them, never reads it. Where no interval can be found, the designer is
        asked for 'from ... to ...'."""
        todo = [(key, v) for key, v in sorted(variables.items())
                if key in secret and v.domain is None and v.type == T.NUMBER]
        if not todo:
            return
        decls = {(it.owner, it.name): it for it in items if isinstance(it, A.StateDecl)}
        numbers = {a: (min(vals), max(vals)) for a, vals in self.card_attrs.items()
                   if vals and all(isinstance(x, int) and not isinstance(x, bool) for x in vals)}
        ranges = bounds.Bounds(items, bounds.static_value(self.consts, self.N), self.N, len(self.card_names),
                               {z.name for z in self.zones if z.owner is None}, set(self.families), numbers)
        owners = {"g": None, "pv": "player", "cv": "card"}
        for (part, _), v in todo:          # (team state is public: never a secret)
            owner, name = owners[part], v.name
            decl = decls.get((owner, name))
            if decl is None:                # (not declared in this configuration's items: kept)
                continue
            where = f"{owner + ' ' if owner else ''}state '{name}'"
            example = f"{owner + ' ' if owner else ''}state {name}: number = {v.initial or 0} from 0 to 20, " \
                      f"{v.visibility}"
            read = A.Name(pos=decl.pos, id=name) if owner is None else \
                A.Attr(pos=decl.pos, obj=A.Name(pos=decl.pos, id="x"), name=name)
            try:
                lo, hi = ranges.span(read)
            except (bounds.Unbounded, RecursionError) as why:
                cause = why if isinstance(why, bounds.Unbounded) else "an expression nested too deeply"
                self.err(f"{where} is a secret number ({v.visibility}) whose values the compiler cannot "
                         f"bound: {cause}", getattr(why, "pos", None) or decl.pos,
                         f"declare the values it can take, like '{example}': a bot imagines another seat's "
                         f"value among them, as it cannot see it")
            if hi - lo > MAX_BOUNDED:
                self.err(f"{where} is a secret number ({v.visibility}) that may hold {hi - lo + 1:,} values "
                         f"({lo} to {hi}), too many for the bots to imagine it among", decl.pos,
                         f"declare narrower bounds, like '{example}'")
            v.domain = tuple(range(lo, hi + 1)) + ((None,) if v.initial is None else ())

    def _return(self, node, pos):
        return ret(node, pos)


def compile_rules(rules: A.RulesFile, players: int, variants: tuple = (), allow_leaks: bool = False,
                  params: dict | None = None) -> Program:
    """Compile a parsed file for a player count, variants and parameters ({name: value or its text},
    dsl.check.params). A leak of hidden information into what every seat sees is an error, or with
    ``allow_leaks`` a warning in ``program.warnings``."""
    comp = Compiler(rules, players, variants, allow_leaks, params)
    with deep_rules(rules.path, rules.source), _collector_paused():
        program = comp.compile()
        program.colour_attr = getattr(comp, "colour_attr", None)
        program.display = comp.table_display
        program.warnings = infoflow.check(comp) if allow_leaks else []
    return program


def _every_card(fn, ncards: int):
    """An invariant of each card (``invariant "..." for every card c: ...``) as one of the state."""
    cards = range(ncards)
    return lambda S: all(fn(S, c) for c in cards)


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector off while compiling: a compile makes some hundred thousand syntax
    nodes, which set the collector going again and again to find no cycle (10-17 % of the time).
    Whatever cycles a compile leaves are collected afterwards as usual. Left alone when the
    collector is off already (the caller's choice)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
