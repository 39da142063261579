"""rulesrun serve over its socket protocol, without a browser: views, bad input, the wire leak test,
save and --load, rematch, --watch, /new and the command line. (The wire leak test: test_web_leak.py;
the browser: test_web_browser.py; 50 tables at once: test_web_load.py.)"""
from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
websockets = pytest.importorskip("websockets", reason="uvicorn[standard] brings websockets; not installed")
from websockets.sync.client import connect  # noqa: E402

from rulesrun.interpreter import load_game  # noqa: E402
from rulesrun.interpreter.records.record import open_record, read_record  # noqa: E402
from rulesrun.interpreter.web.client import play_seat  # noqa: E402
from rulesrun.interpreter.web.command import Background, hub_for  # noqa: E402
from rulesrun.interpreter.web.views import public_view  # noqa: E402

ERRORS_LOGGED: list = []


class _Catch(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.ERROR or record.exc_info:
            ERRORS_LOGGED.append(self.format(record))


@pytest.fixture
def no_tracebacks():
    """Fails the test if the server logged an error or a traceback while it ran."""
    handler = _Catch()
    names = ["", "uvicorn", "uvicorn.error", "asyncio", "rulesrun.web"]
    for n in names:
        logging.getLogger(n).addHandler(handler)
    ERRORS_LOGGED.clear()
    yield
    for n in names:
        logging.getLogger(n).removeHandler(handler)
    assert not ERRORS_LOGGED, ERRORS_LOGGED


def tok(hub, table, seat):
    return table.token_of(seat) if seat is not None else table.spectator_token


class Seat:
    """A synchronous socket at one seat (or a spectator's, with seat None)."""

    def __init__(self, bg, table, seat, token=None):
        self.ws = connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}", max_size=2 ** 22, max_queue=None).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": token if token is not None else tok(bg.hub, table, seat)}))

    def recv(self, timeout=5.0) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def send(self, obj) -> None:
        self.ws.send(obj if isinstance(obj, (str, bytes)) else json.dumps(obj))

    def close(self):
        self.ws.close()


def serve(file="games/magic_shop.rules", players=4, seats="human,human,random,random", seed=5, delay=0.0, **kw):
    hub, table = hub_for(file, players=players, seats=seats, seed=seed, delay=delay, **kw)
    return Background(hub), table


# ── a seat's view ───────────────────────────────────────────────────────────
def test_a_seat_sees_its_observation_and_only_its_own_moves():
    bg, table = serve(seats="human,human,human,human")
    with bg:
        views = {}
        for p in range(4):
            s = Seat(bg, table, p)
            views[p] = s.recv()
            s.close()
    state = table.state
    for p, v in views.items():
        obs = state.observation(p)
        assert v["seat"] == p and v["step"] == 0
        assert v["players"] == obs["players"] and v["zones"] == obs["zones"]
        assert v["options"] == (obs["decision"].get("options", []))
    assert views[0]["options"] and all(not views[p]["options"] for p in (1, 2, 3))
    # its hand sorted by the declared attributes (suit in kind order, then rank) and coloured by suit
    hand = views[0]["mine"]["hand"]
    assert sorted(hand) == sorted(state.cards("hand", 0))
    suits = ["Eye", "Invisible", "Door", "Wine", "Machine"]
    keys = [(suits.index(c.split()[0]), int(c.split()[1])) for c in hand]
    assert keys == sorted(keys)
    colours = {c.split()[0]: views[0]["colours"][c] for c in hand}
    assert len(set(colours.values())) == len(colours)      # one colour per suit
    # its cards are clickable where clicking is the move
    assert set(views[0]["clickable"]) == set(hand)
    assert all(views[0]["clickable"][c] == f"bid with {c}" for c in hand)


def test_cards_are_drawn_in_the_colours_their_file_names():
    """Magi declares a card's group before its colour: the colour words still colour the cards."""
    from rulesrun.interpreter.terminal.table import COLOUR_WORDS
    from rulesrun.interpreter.web.views import CSS, Display
    d = Display(load_game("games/magi.rules", players=4))
    words = {name.split()[0] for name in d.colour}
    assert {"red", "blue", "yellow", "grey"} <= words
    for name, colour in d.colour.items():
        word = name.split()[0]
        if word in COLOUR_WORDS:
            assert colour == CSS[COLOUR_WORDS[word]], name


def test_spectators_see_the_public_view_only():
    bg, table = serve(seats="human,random,random,random", delay=0.0)
    with bg:
        s = Seat(bg, table, None)
        v = s.recv()
        s.close()
    assert v["seat"] is None and v["options"] == [] and v["mine"] == {}
    for info in v["players"]:
        assert "cards" not in info["hand"] and "bid" not in info        # hands and owner values hidden
    pv = public_view(table.state)
    assert v["players"] == pv["players"]


def test_a_move_is_taken_and_every_seat_hears_of_it():
    bg, table = serve(seats="human,human,human,human")
    with bg:
        seats = [Seat(bg, table, p) for p in range(4)]
        first = [s.recv() for s in seats]
        action = first[0]["options"][0]
        seats[0].send({"type": "move", "action": action, "step": 0})
        after = [s.recv() for s in seats]
        for s in seats:
            s.close()
    assert all(v["step"] == 1 for v in after)
    assert table.state.history() == [action]
    mover = table.state.current_player()
    assert all(bool(v["options"]) == (p == mover) for p, v in enumerate(after))


def test_bots_are_paced_and_play_their_seats():
    bg, table = serve(seats="human,random,random,random", delay=0.15)
    with bg:
        s = Seat(bg, table, 0)
        t0 = time.monotonic()
        views = [s.recv()]
        while views[-1]["step"] < 10:
            if views[-1]["options"]:
                s.send({"type": "move", "action": views[-1]["options"][0], "step": views[-1]["step"]})
            views.append(s.recv())
        took = time.monotonic() - t0
        s.close()
    steps = [v["step"] for v in views]
    assert steps == list(range(11))                     # one view a move, none lost
    bot_moves = sum(1 for v in views[:-1] if v["to_move"] != 0)
    assert bot_moves >= 3 and all(not v["options"] for v in views if v["to_move"] != 0)
    assert took >= bot_moves * 0.15                     # each bot waited before moving


def test_reconnecting_keeps_the_seat():
    bg, table = serve(seats="human,human,random,random")
    with bg:
        a = Seat(bg, table, 0)
        v = a.recv()
        a.close()                           # a reload, or a dropped connection
        b = Seat(bg, table, 0)
        again = b.recv()
        b.send({"type": "move", "action": again["options"][0], "step": again["step"]})
        assert b.recv()["step"] == 1
        b.close()
    assert again["seat"] == 0 and again["options"] == v["options"]


# ── bad input ───────────────────────────────────────────────────────────────
def closed_with(seat: Seat) -> int | None:
    """Read until the socket closes; its close code (None if it stays open for a second)."""
    try:
        while True:
            seat.recv(timeout=1.0)
    except websockets.exceptions.ConnectionClosed as e:
        return e.rcvd.code if e.rcvd else None
    except TimeoutError:
        return None


def test_bad_input_gets_an_error_frame_and_changes_nothing(no_tracebacks):
    bg, table = serve(seats="human,human,random,random")
    with bg:
        a, b, spec = Seat(bg, table, 0), Seat(bg, table, 1), Seat(bg, table, None)
        v = a.recv()
        b.recv()
        spec.recv()
        before = table.state.to_json()
        legal = v["options"][0]
        bad = [
            "{not json",
            "[1, 2, 3]",
            '"a string"',
            "{}",
            json.dumps({"type": 7}),
            json.dumps({"type": "explode"}),
            json.dumps({"type": "move"}),
            json.dumps({"type": "move", "action": "bid with Nothing 99", "step": 0}),   # illegal
            json.dumps({"type": "move", "action": legal, "step": 3}),                   # stale
            json.dumps({"type": "move", "action": legal, "step": "0"}),
            json.dumps({"type": "move", "action": legal, "step": True}),
            json.dumps({"type": "move", "action": ["x"], "step": 0}),
            json.dumps({"type": "move", "action": "x" * 3000, "step": 0}),
            json.dumps({"type": "move", "action": legal, "step": 0, "seat": 1}),        # for another seat
            json.dumps({"type": "rematch"}),                                            # not over yet
            json.dumps({"type": "hello", "token": "again"}),
            "[" * 2000 + "]" * 2000,
        ]
        for text in bad:
            a.send(text)
            reply = a.recv()
            assert reply["type"] == "error" and reply["message"], text
            assert "Traceback" not in reply["message"]
        a.send(b"\x00\x01binary")
        assert a.recv()["type"] == "error"
        # Player 2 moving at Player 1's turn; a spectator moving
        b.send({"type": "move", "action": legal, "step": 0})
        assert "not your turn" in b.recv()["message"]
        spec.send({"type": "move", "action": legal, "step": 0})
        assert "spectators" in spec.recv()["message"]
        assert table.state.to_json() == before
        # and the table goes on: a legal move is still taken
        a.send({"type": "move", "action": legal, "step": 0})
        assert a.recv()["step"] == 1
        for s in (a, b, spec):
            s.close()


def test_wrong_or_missing_tokens_and_tables_are_turned_away(no_tracebacks):
    bg, table = serve(seats="human,human,random,random")
    with bg:
        for token in ["", "x" * 32, table.token_of(0)[:-1] + "A", None]:
            s = Seat(bg, table, 0, token=token if token is not None else "")
            reply = s.recv()
            assert reply["type"] == "error" and "token" in reply["message"]
            assert closed_with(s) == 4401
        with connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}") as ws:
            ws.send(json.dumps({"type": "move", "action": "x", "step": 0}))      # no hello
            assert json.loads(ws.recv(timeout=5))["type"] == "error"
        with connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}") as ws:
            ws.send(json.dumps({"type": "hello"}))                                 # hello without token
            assert "token" in json.loads(ws.recv(timeout=5))["message"]
        with connect(f"ws://127.0.0.1:{bg.port}/ws/999") as ws:
            assert "no such table" in json.loads(ws.recv(timeout=5))["message"]
        # a token from another table opens nothing here
        other = bg.hub.new_table(seats="human,random,random,random")
        s = Seat(bg, table, 0, token=other.token_of(0))
        assert s.recv()["type"] == "error"
        s.close()
    assert table.state.history() == []


def test_a_flood_closes_that_socket_and_the_table_goes_on(no_tracebacks):
    bg, table = serve(seats="human,human,random,random")
    with bg:
        a = Seat(bg, table, 0)
        v = a.recv()
        stale = json.dumps({"type": "move", "action": v["options"][0], "step": 99})
        code = None
        try:
            for _ in range(2000):
                a.send(stale)
        except websockets.exceptions.ConnectionClosed as e:
            code = e.rcvd.code if e.rcvd else None
        code = code or closed_with(a)
        assert code == 4429
        assert table.state.history() == []
        again = Seat(bg, table, 0)
        v = again.recv()
        again.send({"type": "move", "action": v["options"][0], "step": 0})
        assert again.recv()["step"] == 1
        # a message too big for the socket closes it too
        big = Seat(bg, table, 1)
        big.recv()
        big.send("x" * 100_000)
        assert closed_with(big) is not None
        again.send({"type": "ping"})
        assert again.recv()["type"] == "pong"
        again.close()
    assert len(table.state.history()) >= 1


def test_new_tables_refuse_bad_settings_clearly(no_tracebacks):
    bg, table = serve()
    with bg:
        def post(body, ctype="application/json"):
            req = urllib.request.Request(bg.url + "/new", data=body.encode(), headers={"content-type": ctype})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        status, data = post(json.dumps({"players": 3, "seats": "human,random,greedy", "seed": 9}))
        assert status == 200 and data["table"] in bg.hub.tables
        t = bg.hub.tables[data["table"]]
        assert t.game.players == 3 and t.seed == 9 and t.seats == ["human", "random", "greedy"]
        assert data["seats"][0]["link"].endswith("#" + t.token_of(0)) and data["seats"][1]["link"] is None
        status, data = post(json.dumps({"players": "3", "seats": "human,human,random"}))
        assert status == 200 and bg.hub.tables[data["table"]].seats == ["human", "human", "random"]
        for body in ['{"players": "many"}', '{"players": 9}', '{"seats": "human,wizard,random,random"}',
                     '{"variants": ["nonsense"]}', "[]", "{bad", '{"seats": 5}']:
            status, data = post(body)
            assert status == 400 and data["error"], body
            assert "Traceback" not in data["error"]
        with urllib.request.urlopen(bg.url + "/tables", timeout=10) as r:
            listed = json.loads(r.read())["tables"]
        assert len(listed) == 3 and all(table.token_of(0) not in json.dumps(x) for x in listed)


# ── saving, resuming, rematch, --watch ──────────────────────────────────────
def test_save_writes_the_repl_record_and_load_resumes_it(tmp_path):
    bg, table = serve(seats="human,random,random,random", save_dir=tmp_path)
    with bg:
        a = Seat(bg, table, 0)
        v = a.recv()
        while v["step"] < 4:
            if v["options"]:
                a.send({"type": "move", "action": v["options"][0], "step": v["step"]})
            v = a.recv()
        a.send({"type": "save"})
        saved = a.recv()
        while saved["type"] != "saved":
            saved = a.recv()
        a.close()
    path = saved["path"]
    record = read_record(path)
    assert record["seed"] == 5 and record["seats"] == ["human", "random", "random", "random"]
    assert record["actions"] == table.state.history()[:len(record["actions"])] and len(record["actions"]) >= 4
    game, state, _ = open_record(path)              # what `rulesrun --load` reads
    hub, resumed = hub_for(load=path, delay=30)
    assert resumed.state == state and resumed.seats == record["seats"] and resumed.seed == 5
    with Background(hub) as bg2:
        s = Seat(bg2, resumed, 0)
        assert s.recv()["step"] == len(record["actions"])
        s.close()


def test_a_finished_table_starts_a_rematch():
    bg, table = serve(file="games/gachapon.rules", players=2, seats="human,random")
    with bg:
        log = asyncio.run(play_seat(f"ws://127.0.0.1:{bg.port}", table.id, table.token_of(0), random.Random(3)))
        assert log.final["terminal"] and log.final["returns"] == table.state.returns()
        a = Seat(bg, table, 0)
        assert a.recv()["terminal"]
        a.send({"type": "rematch"})
        v = a.recv()
        a.close()
    assert v["game_no"] == 2 and v["step"] == 0 and not v["terminal"]
    assert table.seed != 0 and not table.state.is_terminal()


def test_watch_reloads_the_file_and_shows_compile_errors(tmp_path):
    rules = tmp_path / "mine.rules"
    shutil.copy("games/gachapon.rules", rules)
    good = rules.read_text()
    hub, table = hub_for(str(rules), players=2, seats="human,human", seed=11, watch=True)
    with Background(hub) as bg:
        a = Seat(bg, table, 0)
        v = a.recv()
        a.send({"type": "move", "action": v["options"][0], "step": 0})
        assert a.recv()["step"] == 1
        lines = good.split("\n")
        k = next(i for i, line in enumerate(lines) if line.startswith("procedure"))
        lines[k] = lines[k].replace("procedure", "procedur", 1)
        rules.write_text("\n".join(lines))
        v = a.recv(timeout=10)
        assert v["error"] and re.search(rf"mine\.rules:{k + 1}:\d+: error", v["error"]), v["error"]
        rules.write_text(good + "\n")
        v = a.recv(timeout=10)
        a.close()
    assert v["error"] is None and v["game_no"] == 2 and v["step"] == 0
    assert table.seed == 11 and table.state == table.game.new_initial_state(seed=11)


# ── the command line ────────────────────────────────────────────────────────
def test_serve_without_the_web_extra_says_what_to_install(monkeypatch, capsys):
    import importlib.util

    from rulesrun.interpreter.cli.main import main
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "starlette" else real(name, *a))
    assert main(["serve", "games/magic_shop.rules"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'rulesrun[web]'" in err and "Traceback" not in err


@pytest.mark.parametrize("argv,message", [
    (["serve", "nowhere.rules"], "nowhere.rules"),
    (["serve", "games/magic_shop.rules", "--players", "4", "--seats", "human,wizard,random,random"], "wizard"),
    (["serve", "games/magic_shop.rules", "--delay", "-1"], "--delay"),
    (["serve"], "give a rules file"),
    (["serve", "--load", "nowhere.yaml"], "no such saved game"),
    (["serve", "tests/broken/never_ends.rules", "--players", "99"], "3 to 5 players"),
])
def test_serve_reports_bad_arguments_plainly(argv, message, capsys):
    from rulesrun.interpreter.cli.main import main
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_rulesrun_serve_magi_for_four_serves_a_playable_table(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rulesrun.interpreter.cli.main", "serve", "games/magi.rules", "--players", "4",
                             "--port", str(port), "--seed", "3", "--delay", "0.01"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        lines = [proc.stdout.readline() for _ in range(7)]
        link = next(line.split()[-1] for line in lines if line.strip().startswith("Player 1"))
        assert link.startswith(f"http://127.0.0.1:{port}/t/1#")
        assert "spectators" in "".join(lines) and "this network" in "".join(lines)
        assert "seed" not in "".join(lines).lower()        # the seed would tell a seat every hand
        page = None
        for _ in range(100):
            try:
                with urllib.request.urlopen(link.split("#")[0], timeout=5) as r:
                    page = r.read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert page and "/static/table.js" in page
        with connect(f"ws://127.0.0.1:{port}/ws/1") as ws:
            ws.send(json.dumps({"type": "hello", "token": link.split("#")[1]}))
            v = json.loads(ws.recv(timeout=10))
            while not v["options"]:           # the bots before Player 1 take their turns
                v = json.loads(ws.recv(timeout=10))
            assert v["title"] == "Magi" and v["seat"] == 0 and v["options"]
            ws.send(json.dumps({"type": "move", "action": v["options"][0], "step": v["step"]}))
            assert json.loads(ws.recv(timeout=10))["step"] == v["step"] + 1
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert "Traceback" not in err


def test_replayed_game_is_the_one_served():
    """seed + the served history replays to the same state: what --load relies on."""
    bg, table = serve(file="games/gachapon.rules", players=2, seats="human,random")
    with bg:
        asyncio.run(play_seat(f"ws://127.0.0.1:{bg.port}", table.id, table.token_of(0), random.Random(8)))
    game = load_game("games/gachapon.rules", players=2)
    assert game.replay(table.seed, table.state.history()).returns() == table.state.returns()


def test_a_new_table_takes_its_own_game_parameters_over_the_servers(no_tracebacks):
    bg, table = serve(file="examples/spades.rules", players=4, seats="human,random,random,random",
                      params={"target": 300})
    with bg:
        def post(body, ctype="application/json"):
            req = urllib.request.Request(bg.url + "/new", data=body.encode(), headers={"content-type": ctype})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        assert table.game.params == {"target": 300}
        status, data = post(json.dumps({"params": {"target": 200}}))
        assert status == 200 and bg.hub.tables[data["table"]].game.params == {"target": 200}
        status, data = post(json.dumps({"params": "target=150"}))
        assert status == 200 and bg.hub.tables[data["table"]].game.params == {"target": 150}
        status, data = post(json.dumps({}))                 # none given: the server's
        assert status == 200 and bg.hub.tables[data["table"]].game.params == {"target": 300}
        for body in ['{"params": {"target": 5000}}', '{"params": {"no_such": 1}}', '{"params": "target"}',
                     '{"params": [1, 2]}', '{"params": {"target": [1]}}']:
            status, data = post(body)
            assert status == 400 and data["error"], body
            assert "Traceback" not in data["error"]


def test_serve_takes_a_variant_file():
    bg, table = serve(file="examples/magi_house_rules.rules", players=4, seats="human,random,random,random")
    with bg:
        s = Seat(bg, table, 0)
        view = s.recv()
        s.close()
    assert view["seat"] == 0 and view["players"] == table.state.observation(0)["players"]
    assert table.state.observation(0)["game"] == "Magi: a weeknight game"
