"""Any ``.rules`` file as an OpenSpiel game (``pip install 'rulesrun[openspiel]'``).

    from rulesrun.interpreter.bridges.openspiel import load_game
    game = load_game("games/magic_shop.rules", players=4)
    # or, once this module is imported, by name:
    game = pyspiel.load_game("rulesrun", {"file": "games/magic_shop.rules", "players": 4})

Sequential, imperfect information, terminal rewards. Chance is one explicit chance node at the
start that picks one of ``deals`` seeds uniformly; the engine draws every later shuffle from that
seed (docs/guides/interop.md says why). Action ids come from ``actions.ActionSpace``; observation
tensors and strings from ``encoding.Encoder``; the information state is the current observation
plus a digest of everything the seat has observed so far (perfect recall).

Simultaneous choices (``for p in players at once``) stay turn-based: the seats are asked one after
another, in seat order, and nothing a seat observes (its observation, its information state, whose
turn it is) shows a pick made before its own until every seat has chosen — OpenSpiel's own
transform of a simultaneous-move game, ``pyspiel.convert_to_turn_based``, which the differential
test against OpenSpiel's ``goofspiel`` plays against (tests/interpreter/bridges/test_bridges_goofspiel.py).
"""
from __future__ import annotations

import hashlib
import weakref

from rulesrun.interpreter.bridges import require

require("OpenSpiel bridge", "openspiel", "numpy", "pyspiel")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

from rulesrun.interpreter.runtime.engine import State  # noqa: E402

from rulesrun.interpreter.bridges.actions import ActionSpace, BridgeError  # noqa: E402
from rulesrun.interpreter.bridges.table import Table  # noqa: E402
from rulesrun.interpreter.bridges.encoding import compiled  # noqa: E402

SHORT_NAME = "rulesrun"
DEFAULT_DEALS = 1000
DEFAULT_MAX_LENGTH = 10_000
_PARAMS = {"file": "", "players": 0, "variants": "", "deals": DEFAULT_DEALS, "number_bounds": "", "rules_params": "",
           "utility": "returns", "max_game_length": DEFAULT_MAX_LENGTH}
_GAMES: "weakref.WeakValueDictionary[str, RulesrunGame]" = weakref.WeakValueDictionary()


def _type(short_name: str, long_name: str, lo: int, hi: int) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=short_name, long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi, min_num_players=lo,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_PARAMS)


def _no_information_state_tensor() -> "pyspiel.SpielError":
    """What asking for an information-state tensor raises, as OpenSpiel's own games without one do
    (their game type says provides_information_state_tensor=False, as ours does)."""
    return pyspiel.SpielError(
        "InformationStateTensor unimplemented: a rules game provides no information-state tensor "
        "(its game type says provides_information_state_tensor=False), because a seat's past has no "
        "fixed size; use information_state_string() (the view and a digest of the past) or "
        "observation_tensor() (the seat's view now)")


def parse_bounds(text: str) -> dict:
    """'bid:0:10;other:1:3' -> {'bid': (0, 10), 'other': (1, 3)} (OpenSpiel's parameter strings
    cannot hold ',', '=' or brackets)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        label, lo, hi = (part.rsplit(":", 2) + ["", ""])[:3]
        try:
            out[label.strip()] = (int(lo), int(hi))
        except ValueError:
            raise BridgeError(f"bad number_bounds {part!r}: write label:low:high, like bid:0:10") from None
    return out


def _bounds_text(bounds: dict) -> str:
    return ";".join(f"{k}:{lo}:{hi}" for k, (lo, hi) in bounds.items())


def parse_rules_params(text: str) -> dict:
    """'target:300;vulnerable:yes' -> {'target': '300', 'vulnerable': 'yes'}: the rules file's game
    parameters (dsl.check.params), written as OpenSpiel's parameter strings allow."""
    out = {}
    for part in filter(None, (p.strip() for p in str(text).split(";"))):
        name, colon, value = part.partition(":")
        if not colon or not name.strip():
            raise BridgeError(f"bad rules_params {part!r}: write name:value, like target:300")
        out[name.strip()] = value.strip()
    return out


def _rules_params_text(params: dict, info) -> str:
    return ";".join(f"{i.name}:{i.text(params[i.name])}" for i in info)


def _variants(text: str) -> tuple:
    return tuple(v.strip() for v in str(text).replace(",", "+").split("+") if v.strip())


class RulesrunGame(pyspiel.Game):
    """A rules file compiled for one player count and set of variants, as a pyspiel.Game."""

    def __init__(self, params=None):
        params = dict(params or {})
        path = params.get("file") or ""
        if not path:
            raise BridgeError("the 'rulesrun' game needs a rules file: {'file': 'games/magi.rules', 'players': 4}")
        players = int(params.get("players") or 0) or None
        variants = _variants(params.get("variants", ""))
        rules_params = params.get("rules_params") or ""
        rules_params = parse_rules_params(rules_params) if isinstance(rules_params, str) else dict(rules_params)
        bounds = params.get("number_bounds") or ""
        bounds = parse_bounds(bounds) if isinstance(bounds, str) else dict(bounds)
        self.deals = int(params.get("deals", DEFAULT_DEALS))
        if self.deals < 1:
            raise BridgeError("'deals' must be at least 1")
        self.utility = params.get("utility", "returns")
        if self.utility not in ("returns", "win"):
            raise BridgeError(f"utility must be 'returns' (the file's scores) or 'win' (1 for a winner), "
                              f"not {self.utility!r}")
        self.engine, self.space, self.encoder = compiled(str(path), players, variants, bounds, rules_params)
        engine = self.engine
        prog = engine.program
        n = prog.players
        game_type = _type(SHORT_NAME, f"rulesrun: {prog.title}", n, n)
        self.max_length = int(params.get("max_game_length", DEFAULT_MAX_LENGTH))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.num_actions, max_chance_outcomes=self.deals,
            num_players=n,
            min_utility=0.0 if self.utility == "win" else -1e9,
            max_utility=1.0 if self.utility == "win" else 1e9,
            utility_sum=None, max_game_length=self.max_length)
        clean = {"file": str(path), "players": n, "variants": "+".join(prog.variants),
                 "deals": self.deals, "utility": self.utility, "max_game_length": self.max_length,
                 "number_bounds": _bounds_text(self.space.number_bounds),
                 "rules_params": _rules_params_text(prog.params, prog.param_info)}
        super().__init__(game_type, info, clean)
        self.key = repr(sorted(clean.items()))
        _GAMES[self.key] = self

    def new_initial_state(self):
        return RulesrunState(self)

    def information_state_tensor_shape(self):
        raise _no_information_state_tensor()

    def information_state_tensor_size(self):
        raise _no_information_state_tensor()

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _InfoObserver(self) if recall else _Observer(self)


class _Core:
    """The Python side of a state: the table (None before the deal), the deal, the ids taken and
    the information-state cache. Cloned by ``__deepcopy__`` (OpenSpiel clones a Python state by
    deep-copying its attributes) and pickled as plain data (OpenSpiel's serialize)."""

    __slots__ = ("game", "table", "deal", "ids", "info")

    def __init__(self, game, table=None, deal=None, ids=None, info=None):
        self.game, self.table, self.deal = game, table, deal
        self.ids = ids if ids is not None else []
        self.info = info            # (steps, table then, digest and view per seat) or None

    def __deepcopy__(self, memo):
        t = self.table
        return _Core(self.game, None if t is None else t.clone(), self.deal, self.ids[:], self.info)

    def __getstate__(self):
        t = self.table
        info = None
        if self.info is not None:
            k, tk, digests, views = self.info
            info = [k, tk.state.to_json(), list(tk.partial), digests, views]
        return {"game": self.game.key, "deal": self.deal, "ids": self.ids, "info": info,
                "state": None if t is None else t.state.to_json(),
                "partial": [] if t is None else list(t.partial)}

    def __setstate__(self, d):
        game = _GAMES.get(d["game"])
        if game is None:
            raise BridgeError("load the game before deserializing its states")
        self.game, self.deal, self.ids = game, d["deal"], list(d["ids"])
        self.table = None
        if d["state"] is not None:
            self.table = Table(game.space, State.from_json(game.engine, d["state"]), _keys(d["partial"]))
        self.info = None
        if d["info"] is not None:
            k, tk, part, digests, views = d["info"]
            self.info = (k, Table(game.space, State.from_json(game.engine, tk), _keys(part)), list(digests),
                         list(views))


def _keys(items) -> tuple:
    return tuple(tuple(k) if isinstance(k, list) else k for k in items)


class RulesrunState(pyspiel.State):
    def __init__(self, game: RulesrunGame):
        super().__init__(game)
        self._c = _Core(game)

    # ── the state API ──────────────────────────────────────────────────────
    def current_player(self):
        t = self._c.table
        if t is None:
            return pyspiel.PlayerId.CHANCE
        if t.state.open_decision is None:
            return pyspiel.PlayerId.TERMINAL
        return t.state.open_decision[0]

    def _legal_actions(self, player):
        t = self._c.table
        if t is None or t.state.open_decision is None or player != t.state.open_decision[0]:
            return []
        return list(t.legal_ids())

    def chance_outcomes(self):
        n = self._c.game.deals
        return [(i, 1.0 / n) for i in range(n)]

    def _apply_action(self, action):
        c = self._c
        if c.table is None:
            if not 0 <= action < c.game.deals:
                raise BridgeError(f"deal {action} is not one of the {c.game.deals} deals")
            c.deal = int(action)
            c.table = Table(c.game.space, c.game.engine.new_initial_state(seed=int(action)))
        else:
            c.table.apply_id(int(action))
            c.ids.append(int(action))

    def information_state_tensor(self, *player):
        raise _no_information_state_tensor()

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self._c.game.space.text(action)

    def is_terminal(self):
        t = self._c.table
        return t is not None and t.state.open_decision is None

    def returns(self):
        c = self._c
        t = c.table
        n = c.game.engine.players
        if t is None or t.state.open_decision is not None:
            return [0.0] * n
        if c.game.utility == "win":
            win = set(t.state.winners())
            return [1.0 if p in win else 0.0 for p in range(n)]
        return [float(x) for x in t.state.returns()]

    def __str__(self):
        c = self._c
        if c.table is None:
            return "before the deal"
        t = c.table
        space = c.game.space
        last = " | ".join(space.text(a) for a in c.ids[-3:])
        return f"deal {c.deal}; {len(c.ids)} actions; last: {last}" + (
            f"; picked {list(t.partial)}" if t.partial else "")

    # ── search support ─────────────────────────────────────────────────────
    def resample_from_infostate(self, player, probability_sampler=None):
        """A state this player cannot tell from this one: the cards it cannot see dealt again at
        random and hidden values drawn again (``interpreter.runtime.observe.resample``, as rulesrun's own bots
        determinise), future shuffles unknown. Its information state
        carries on from this one's."""
        import random
        from rulesrun.interpreter.runtime.observe import resample
        c = self._c
        if c.table is None:
            return self.clone()
        if probability_sampler is not None:
            seed = int(probability_sampler() * 2 ** 62)
        else:
            seed = random.randrange(2 ** 62)
        new = c.game.new_initial_state()
        digests, _ = _info(c)
        world = resample(c.table.state, player, random.Random(seed), redraw=True)
        table = Table(c.game.space, world, c.table.partial)
        views = [_step_view(c.game.encoder, table, p, table.state.log_mark)[0] for p in range(len(digests))]
        new._c = _Core(c.game, table, c.deal, c.ids[:], (len(c.ids), table.clone(), digests, views))
        return new

    def ids_of(self, action) -> list[int]:
        """The action ids that take an engine action (one of ``table().state.legal_actions()``, or
        its text): one id, or for a subset one id per element and then "done" — so a rulesrun
        agent's choice can be played here: ``for a in state.ids_of(bot.choose(engine_state))``."""
        t = self._c.table
        legal = t.state.legal_actions()
        try:
            index = legal.index(action)
        except ValueError:
            raise BridgeError(f"{action!r} is not a legal action now") from None
        return t.id_of(index)

    def table(self) -> Table:
        """The rulesrun side: ``.state`` is the engine State (after the deal)."""
        return self._c.table


def _step_view(encoder, table, seat: int, since) -> tuple[str, str]:
    """What ``seat`` sees now, and the announcements made since the log node ``since``."""
    from rulesrun.interpreter.runtime.observe import log_since
    state = table.state
    # the public announcements and those told to this seat alone, never another seat's
    lines = log_since(state, since, seat)
    return encoder.observation_string(table, seat), "\n".join(lines)


def _info(c: _Core) -> tuple[list, list]:
    """Each seat's digest of everything it has observed since the deal, and its view now (cached)."""
    game = c.game
    n = game.engine.players
    if c.info is None:
        table = Table(game.space, game.engine.new_initial_state(seed=c.deal))
        views = [_step_view(game.encoder, table, p, None) for p in range(n)]
        c.info = (0, table, [_digest("", *v) for v in views], [v[0] for v in views])
    k, table, digests, views = c.info
    if k < len(c.ids):
        table = table.clone()
        digests = list(digests)
        views = list(views)
        for a in c.ids[k:]:
            before = table.state.log_mark
            table.apply_id(a)
            for p in range(n):
                view, said = _step_view(game.encoder, table, p, before)
                digests[p] = _digest(digests[p], view, said)
                views[p] = view
        c.info = (len(c.ids), table, digests, views)
    return c.info[2], c.info[3]


def _digest(prev: str, view: str, said: str) -> str:
    return hashlib.blake2b("\x00".join((prev, view, said)).encode(), digest_size=12).hexdigest()


class _Observer:
    """The default observation: the tensor of encoding.Encoder and the observation string."""

    def __init__(self, game: RulesrunGame):
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = self.encoder.split(self.tensor)

    def set_from(self, state, player):
        t = state._c.table
        if t is None:
            self.tensor.fill(0)
            return
        self.encoder.tensor(t, player, out=self.tensor)

    def string_from(self, state, player):
        c = state._c
        if c.table is None:
            return "before the deal"
        return _info(c)[1][player]      # the views are worked out with the information states


class _InfoObserver:
    """The information state: a string only (the current view and a digest of the seat's past);
    asked for its tensor (``set_from``, which OpenSpiel's ``information_state_tensor`` calls) it
    raises, as the game type says none is provided."""

    def __init__(self, game: RulesrunGame):
        self.encoder = game.encoder
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        raise _no_information_state_tensor()

    def string_from(self, state, player):
        c = state._c
        if c.table is None:
            return "before the deal"
        digests, views = _info(c)
        return f"{views[player]} #{digests[player]}"


pyspiel.register_game(_type(SHORT_NAME, "rulesrun: any .rules file", 1, 64), RulesrunGame)


def load_game(path, players: int | None = None, variants=(), deals: int = DEFAULT_DEALS,
              number_bounds: dict | None = None, utility: str = "returns",
              max_game_length: int = DEFAULT_MAX_LENGTH, params: dict | None = None) -> RulesrunGame:
    """A pyspiel.Game for a rules file: ``players`` (default the fewest), ``variants`` by name,
    ``deals`` chance outcomes at the start, ``number_bounds`` {label: (low, high)} in place
    of a number choice's range worked out from the file (actions.py, bounds.py), ``utility``
    'returns' or 'win', ``params`` the file's game parameters {name: value} (OpenSpiel's string
    form: ``rules_params='target:300;vulnerable:yes'``)."""
    params = {"file": str(path), "players": int(players or 0), "variants": "+".join(variants),
              "deals": int(deals), "utility": utility, "max_game_length": int(max_game_length),
              "number_bounds": _bounds_text(number_bounds or {}),
              "rules_params": ";".join(f"{k}:{'yes' if v is True else 'no' if v is False else v}"
                                       for k, v in (params or {}).items())}
    return pyspiel.load_game(SHORT_NAME, params)
