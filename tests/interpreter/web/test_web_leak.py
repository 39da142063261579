"""rulesrun serve leaks nothing over the wire: every frame each seat (and a spectator) receives in
whole games of every shipped game names only cards that seat could see at that step, as
``state.observation(seat)`` says; the public view is within every seat's observation; a private
announcement reaches its own seat only."""
from __future__ import annotations

import asyncio
import json
import random
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("websockets", reason="uvicorn[standard] brings websockets; not installed")

from rulesrun.interpreter import load_game  # noqa: E402
from rulesrun.interpreter.runtime.observe import observe  # noqa: E402
from rulesrun.interpreter.web.client import play_seat  # noqa: E402
from rulesrun.interpreter.web.command import Background, hub_for  # noqa: E402
from rulesrun.interpreter.web.views import public_view  # noqa: E402
from tests.support import WHISPER as WHISPER_HEAD  # noqa: E402


def serve(file, players, seats, seed):
    hub, table = hub_for(file, players=players, seats=seats, seed=seed, delay=0.0)
    return Background(hub), table


@pytest.mark.parametrize("file,players", [("games/magic_shop.rules", 4), ("games/magi.rules", 4),
                                          ("games/gachapon.rules", 2)])
def test_the_public_view_is_what_every_seat_sees(file, players):
    """At every step of a game, everything in the public view is in every seat's observation."""
    game = load_game(file, players=players)
    state = game.new_initial_state(seed=2)
    rng = random.Random(2)
    annotated = 0
    while True:
        pv = public_view(state, log=False)
        obs = [observe(state, p, log=False) for p in range(players)]
        for o in obs:
            for name, view in pv["zones"].items():
                assert view.items() <= o["zones"][name].items()
            for mine, theirs in zip(pv["players"], o["players"]):
                for k, v in mine.items():
                    assert (v.items() <= theirs[k].items()) if isinstance(v, dict) else v == theirs[k]
            for k, vals in pv["card_state"].items():
                assert vals.items() <= o["card_state"][k].items()
            assert pv["state"] == o["state"]
        assert "options" not in (pv["decision"] or {})
        annotated += bool(pv["card_state"])
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    if file.endswith("magic_shop.rules"):
        assert annotated          # who played each card of the trick is public


# ── the wire leak test ──────────────────────────────────────────────────────
class CardNames:
    """The card names a JSON value names: a string that is a card's name, or names one as a whole
    word (a log line, a move's text). Each distinct string is searched once."""

    def __init__(self, game):
        names = sorted(set(game.program.card_names), key=len, reverse=True)
        self.exact = set(names)
        self.rx = re.compile(r"(?<![\w])(" + "|".join(re.escape(n) for n in names) + r")(?![\w])")
        self.cache: dict[str, frozenset] = {}

    def __call__(self, value) -> set[str]:
        out: set[str] = set()
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.keys())
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str):
                found = self.cache.get(v)
                if found is None:
                    found = self.cache[v] = frozenset({v} if v in self.exact else self.rx.findall(v))
                out |= found
        return out


def leaks(game, seed, history, frames_by_seat, named: CardNames) -> list[str]:
    """Every card name a frame named that its seat (None: a spectator) could not see at that step:
    what a seat could see is what ``state.observation(seat)`` names at the frame's step (its log
    read apart, once a step when no announcement is private); a spectator may see what every seat
    sees."""
    views = {}
    for seat, frames in frames_by_seat.items():
        for text in frames:
            msg = json.loads(text)
            if "step" in msg:
                views.setdefault(msg["step"], []).append((seat, msg))
    state = game.new_initial_state(seed=seed)
    private = any(t.private for t in game.program.templates)
    problems = []
    for step in range(max(views, default=-1) + 1):
        if step:
            state.apply_action(history[step - 1])
        if step not in views:
            continue
        if private:      # a seat also reads what was told to it alone
            sees = [named(observe(state, p, log=False)) | named(state.log(p)) for p in range(game.players)]
        else:            # every seat reads the same log: read it once
            in_log = named(state.log())
            sees = [named(observe(state, p, log=False)) | in_log for p in range(game.players)]
        for seat, msg in views[step]:
            allowed = set.intersection(*sees) if seat is None else sees[seat]
            extra = named(msg) - allowed
            if extra:
                problems.append(f"seat {seat} at step {step} was sent {sorted(extra)}")
    return problems


async def _whole_game(bg, table, rng_seed):
    url = f"ws://127.0.0.1:{bg.port}"
    jobs = {p: play_seat(url, table.id, table.token_of(p), random.Random(rng_seed + p))
            for p, kind in enumerate(table.seats) if kind == "human"}
    jobs[None] = play_seat(url, table.id, table.spectator_token, None)
    logs = await asyncio.wait_for(asyncio.gather(*jobs.values()), 300)
    return dict(zip(jobs, logs))


@pytest.mark.parametrize("file,players,seats", [
    ("games/magic_shop.rules", 4, "human,human,human,random"),
    ("games/magic_shop.rules", 3, "human,human,human"),
    ("games/gachapon.rules", 2, "human,human"),
    ("games/gachapon.rules", 3, "human,random,human"),
    ("games/magi.rules", 4, "human,human,random,human"),
])
def test_no_frame_names_a_card_its_seat_could_not_see(file, players, seats):
    bg, table = serve(file=file, players=players, seats=seats, seed=21)
    with bg:
        logs = asyncio.run(_whole_game(bg, table, 100))
    game = table.game
    history = table.state.history()
    assert table.state.is_terminal()
    frames = {seat: log.frames for seat, log in logs.items()}
    assert all(log.final["returns"] == table.state.returns() for log in logs.values())
    assert all(not log.errors for log in logs.values())
    assert sum(len(f) for f in frames.values()) > len(history)
    named = CardNames(game)
    assert leaks(game, table.seed, history, frames, named) == []
    # the check can fail: another seat's frames, shown to seat 0, are caught
    other = next(p for p in frames if p not in (None, 0))
    assert leaks(game, table.seed, history, {0: frames[other]}, named)
    # and the spectator's frames are not seat 0's
    assert leaks(game, table.seed, history, {None: frames[0]}, named)


WHISPER = WHISPER_HEAD + '    player 1 chooses x from [1, 2] as "done"\n'


def test_a_private_announcement_goes_to_its_seat_only(tmp_path):
    rules = tmp_path / "whisper.rules"
    rules.write_text(WHISPER)
    bg, table = serve(file=str(rules), players=3, seats="human,human,human", seed=4)
    with bg:
        logs = asyncio.run(_whole_game(bg, table, 5))
    state = table.state
    for seat, log in logs.items():
        first = json.loads(log.frames[0])
        assert first["log"] == (state.log() if seat is None else state.log(seat))
    mine = state.cards("hand", 0)[0]
    assert f"You draw {mine}." in json.loads(logs[0].frames[0])["log"]
    assert all(mine not in "".join(logs[p].frames) for p in (1, 2, None))
    named = CardNames(table.game)
    assert leaks(table.game, table.seed, state.history(), {p: log.frames for p, log in logs.items()}, named) == []
    assert leaks(table.game, table.seed, state.history(), {1: logs[0].frames}, named)
