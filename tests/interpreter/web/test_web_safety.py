"""rulesrun serve on a real network: bounded and stoppable bots, same-origin requests only, Host names
the server answers to, no traceback from any input, security headers, reclaimed tables, a proxy in
front, secret seeds. (docs/reference/security.md names these tests as its evidence.)"""
from __future__ import annotations

import http.client
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
websockets = pytest.importorskip("websockets", reason="uvicorn[standard] brings websockets; not installed")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from rulesrun.interpreter.bots.agents import MAX_ITERATIONS, make_agent, parse_seats  # noqa: E402
from rulesrun.interpreter.records.record import RecordError, read_record, record_seats  # noqa: E402
from rulesrun.interpreter.runtime.engine import load_game  # noqa: E402
from rulesrun.interpreter.web.command import hub_for  # noqa: E402
from rulesrun.interpreter.web.guard import host_allowed, public_origin  # noqa: E402
from tests.interpreter.web.test_web import Seat, serve  # noqa: E402
from tests.interpreter.web.test_web import no_tracebacks  # noqa: E402,F401 — the fixture
from tests.support import ROOT  # noqa: E402


def request(bg, method, path, body=None, headers=None):
    """(status, headers, body text) of one request to the background server."""
    conn = http.client.HTTPConnection("127.0.0.1", bg.port, timeout=20)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


def post_new(bg, obj, headers=None):
    body = obj if isinstance(obj, (str, bytes)) else json.dumps(obj)
    status, _, text = request(bg, "POST", "/new", body, {"content-type": "application/json", **(headers or {})})
    return status, json.loads(text)


# ── 1. bounded, stoppable bots ──────────────────────────────────────────────
def test_seats_from_the_web_or_a_record_are_bounded_and_the_command_line_is_not():
    assert parse_seats("ismcts:1000000000000", 1) == ["ismcts:1000000000000"]         # the host's own
    for spec in ("ismcts:1e9s", "ismcts:1000000000000", f"ismcts:{MAX_ITERATIONS + 1}", "ismcts:31s"):
        with pytest.raises(ValueError, match="larger budgets only from the host's own command line"):
            parse_seats(spec, 1, bounded=True)
    assert parse_seats(f"ismcts:{MAX_ITERATIONS},ismcts:30s", 2, bounded=True)
    record = {"seats": ["human", "ismcts:1e9s"]}
    with pytest.raises(ValueError, match="give the seats yourself with --seats"):
        record_seats(record, 2)
    assert record_seats(record, 2, "human,ismcts:1e9s") == ["human", "ismcts:1e9s"]


def test_post_new_refuses_an_unbounded_bot(no_tracebacks):
    bg, table = serve()
    with bg:
        for seats in ("human,ismcts:1e9s,random,random", "human,ismcts:1000000000000,random,random"):
            status, data = post_new(bg, {"seats": seats})
            assert status == 400 and "at most" in data["error"], data
        assert len(bg.hub.tables) == 1


def test_a_stop_ends_a_bots_thinking_at_once():
    import threading
    game = load_game("games/magi.rules", players=4)
    state = game.new_initial_state(seed=1)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    stop = threading.Event()
    bot = make_agent("ismcts:1000s", 1, stop=stop)
    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    assert bot.choose(state.clone()) in state.legal_actions()
    assert time.monotonic() - t0 < 5


@pytest.mark.slow
def test_six_tables_of_the_largest_bots_leave_a_random_table_playing():
    """Six tables whose bots think 30 s a move, and a table of random bots still plays to its end."""
    bg, table = serve(file="games/gachapon.rules", players=2, seats="random,random", seed=1)
    watchers = []
    with bg:
        for i in range(6):
            status, data = post_new(bg, {"players": 2, "seats": "ismcts:30s,ismcts:30s"})
            assert status == 200, data
            watchers.append(Seat(bg, bg.hub.tables[data["table"]], None))      # a spectator starts the bots
        time.sleep(1.0)
        status, data = post_new(bg, {"players": 2, "seats": "random,random", "seed": 4})
        assert status == 200, data
        quick = bg.hub.tables[data["table"]]
        watchers.append(Seat(bg, quick, None))
        deadline = time.monotonic() + 60
        while not quick.state.is_terminal() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert quick.state.is_terminal()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ctrl_c_stops_serve_while_bots_think():
    port = _free_port()
    proc = subprocess.Popen([str(ROOT / ".venv" / "bin" / "rulesrun") if (ROOT / ".venv/bin/rulesrun").exists()
                             else sys.executable, *([] if (ROOT / ".venv/bin/rulesrun").exists()
                                                    else ["-m", "rulesrun.interpreter.cli.main"]),
                             "serve", "games/magi.rules", "--players", "4", "--port", str(port),
                             "--seats", "ismcts:1000s,ismcts:1000s,ismcts:1000s,ismcts:1000s", "--delay", "0"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/tables", timeout=2).read()
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(1.0)                           # the first bot is deep in its 1000 s search
        proc.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        proc.wait(timeout=10)
        assert time.monotonic() - t0 < 2.5
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err


def test_a_record_with_an_oversized_or_unknown_seat_is_refused_at_every_entry_point(tmp_path):
    game = load_game("games/gachapon.rules", players=2)
    from rulesrun.interpreter.records.record import make_record, save_record
    state = game.new_initial_state(seed=3)
    for seats, words in ((["human", "ismcts:1e9s"], "at most"), (["human", "wizard"], "unknown seat kind")):
        path = tmp_path / f"{seats[1].replace(':', '_')}.yaml"
        save_record(path, make_record(game, state, ["human", "random"]))
        text = path.read_text().replace("- random", f"- {seats[1]}")
        path.write_text(text)
        for argv in (["--load", str(path)], ["replay", str(path), "--to-end"], ["serve", "--load", str(path)]):
            r = subprocess.run([sys.executable, "-m", "rulesrun.interpreter.cli.main", *argv], cwd=ROOT,
                               capture_output=True, text=True, timeout=60, input="")
            if words == "at most" and argv[0] == "replay":
                assert r.returncode == 0 and "Traceback" not in r.stderr   # replay runs no bots
                continue
            assert r.returncode != 0 and words in r.stderr and "Traceback" not in r.stderr, (argv, r.stderr)


def test_a_huge_record_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("format: rulesrun-record/1\nactions:\n" + "- x\n" * 2_500_000)   # 10 MB
    t0 = time.monotonic()
    with pytest.raises(RecordError, match="too big"):
        read_record(path)
    assert time.monotonic() - t0 < 2


# ── 2. same origin, Host, reclaiming ────────────────────────────────────────
def test_a_cross_site_form_and_foreign_origins_cannot_make_tables(no_tracebacks):
    bg, table = serve()
    with bg:
        for ctype in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"):
            status, _, text = request(bg, "POST", "/new", "players=3", {"content-type": ctype,
                                                                         "origin": "http://evil.example"})
            assert status in (403, 415), (ctype, status, text)
        status, data = post_new(bg, {}, {"origin": "http://evil.example"})
        assert status == 403 and "refused" in data["error"]
        status, data = post_new(bg, {}, {"sec-fetch-site": "cross-site"})
        assert status == 403
        status, data = post_new(bg, {}, {"origin": bg.url})                   # our own page: fine
        assert status == 200, data
        assert len(bg.hub.tables) == 2


def test_a_socket_from_a_foreign_origin_is_refused(no_tracebacks):
    bg, table = serve()
    with bg:
        with pytest.raises(websockets.exceptions.InvalidStatus) as e:
            connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}", origin="http://evil.example").__enter__()
        assert e.value.response.status_code == 403
        with connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}", origin=bg.url) as ws:      # ours: fine
            ws.send(json.dumps({"type": "hello", "token": table.token_of(0)}))
            assert json.loads(ws.recv(timeout=10))["type"] == "view"


def test_a_rebinding_host_is_refused_and_allowed_names_are_served(no_tracebacks):
    bg, table = serve(allowed_hosts=("cards.example.org",))
    with bg:
        status, _, text = request(bg, "GET", "/tables", headers={"host": "attacker.example:8000"})
        assert status == 421 and "--allowed-host" in text
        with pytest.raises(websockets.exceptions.InvalidStatus):
            connect(f"ws://127.0.0.1:{bg.port}/ws/{table.id}",
                    additional_headers={"host": "attacker.example"}).__enter__()
        for host in ("cards.example.org", "localhost:8000", "127.0.0.1", "[::1]:80", "10.1.2.3:8000"):
            status, _, _ = request(bg, "GET", "/tables", headers={"host": host})
            assert status == 200, host
    assert not host_allowed("evil.example", set()) and not host_allowed("a b", set())
    assert public_origin("https", "cards.example.org:443") == "https://cards.example.org"


def test_one_client_cannot_fill_the_tables_and_idle_ones_are_reclaimed(no_tracebacks):
    bg, table = serve(file="games/gachapon.rules", players=2, seats="human,random", tables_per_client=3,
                      max_tables=5)
    with bg:
        made = [post_new(bg, {"players": 2}) for _ in range(4)]
        assert [s for s, _ in made] == [200, 200, 200, 400]
        assert "tables open already" in made[3][1]["error"]
        hub = bg.hub
        first = hub.tables[made[0][1]["table"]]
        assert hub.reap() == []                                   # not idle yet
        first.touched -= hub.config.idle_after + 1
        assert hub.reap() == [first.id] and first.stop.is_set()
        assert table.id in hub.tables                              # the command line's table stays
        status, _ = post_new(bg, {"players": 2})
        assert status == 200


# ── 3. no traceback from any input ──────────────────────────────────────────
def test_hostile_values_get_a_clear_400(no_tracebacks):
    bg, table = serve()
    with bg:
        for body in ('{"players": Infinity}', '{"seed": 1e400}', '{"players": 1e400}', '{"seed": NaN}',
                     '{"seed": ' + "9" * 4000 + '}', '{"seed": ' + str(2 ** 300) + '}', '{"variants": ["\\ud800"]}',
                     '{"seats": "\\udfff"}', "[" * 3000 + "]" * 3000, '{"players": true}', b"\xff\xfe"):
            status, data = post_new(bg, body)
            assert status in (400, 413) and data["error"] and "Traceback" not in data["error"], body[:40]


def test_a_hello_with_a_lone_surrogate_is_answered_with_a_close_code(no_tracebacks):
    bg, table = serve()
    with bg:
        seat = Seat(bg, table, None, token="\ud800")
        assert seat.recv()["type"] == "error"
        with pytest.raises(websockets.exceptions.ConnectionClosed) as e:
            seat.recv()
        assert e.value.rcvd.code == 4401


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                     lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                     max_leaves=20)
_fields = st.fixed_dictionaries({}, optional={k: _json for k in ("players", "seed", "variants", "seats", "params",
                                                                    "variant")})


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(_fields, _json, st.text(max_size=50)))
def test_post_new_never_fails_on_the_server(bg_for_fuzz, body):
    text = json.dumps(body) if not isinstance(body, str) else body
    status, _, answer = request(bg_for_fuzz, "POST", "/new", text.encode("utf-8", "surrogatepass"),
                                {"content-type": "application/json"})
    assert status in (200, 400, 413), (status, answer)
    bg_for_fuzz.hub.tables = {k: v for k, v in bg_for_fuzz.hub.tables.items() if v.keep}


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.fixed_dictionaries({"type": st.sampled_from(["move", "view", "save", "rematch", "ping", "x"])},
                                       optional={"action": _json, "step": _json, "seat": _json}), _json))
def test_socket_messages_never_fail_on_the_server(bg_for_fuzz, msg):
    table = next(iter(bg_for_fuzz.hub.tables.values()))
    with connect(f"ws://127.0.0.1:{bg_for_fuzz.port}/ws/{table.id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": table.token_of(0)}))
        json.loads(ws.recv(timeout=10))
        ws.send(json.dumps(msg))
        ws.send(json.dumps({"type": "ping"}))
        while json.loads(ws.recv(timeout=10))["type"] != "pong":
            pass


@pytest.fixture(scope="module")
def bg_for_fuzz(tmp_path_factory):
    from tests.interpreter.web.test_web import ERRORS_LOGGED, _Catch
    import logging
    handler = _Catch()
    names = ["", "uvicorn", "uvicorn.error", "asyncio", "rulesrun.web"]
    for n in names:
        logging.getLogger(n).addHandler(handler)
    ERRORS_LOGGED.clear()
    bg, table = serve(file="games/gachapon.rules", players=2, seats="human,random",
                      save_dir=tmp_path_factory.mktemp("saves"), tables_per_client=1000)
    with bg:
        yield bg
    for n in names:
        logging.getLogger(n).removeHandler(handler)
    assert not ERRORS_LOGGED, ERRORS_LOGGED


# ── 4. headers ──────────────────────────────────────────────────────────────
def test_every_page_sends_the_security_headers(no_tracebacks):
    bg, table = serve()
    with bg:
        for method, path in (("GET", "/"), ("GET", "/tables"), ("GET", f"/t/{table.id}"), ("GET", "/t/999"),
                             ("GET", "/static/table.js"), ("GET", "/nowhere"), ("POST", "/new")):
            status, headers, _ = request(bg, method, path, "{}" if method == "POST" else None,
                                         {"content-type": "application/json"})
            csp = headers.get("content-security-policy", "")
            assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
            assert headers.get("x-content-type-options") == "nosniff", path
            assert headers.get("referrer-policy") == "no-referrer" and headers.get("x-frame-options") == "DENY"


def test_the_pages_have_no_inline_script():
    import re
    static = ROOT / "interpreter" / "web" / "static"
    for page in static.glob("*.html"):
        text = page.read_text()
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), page       # every script is a file
        assert not re.search(r"\son\w+=", text) and "style=" not in text, page


# ── 5. small leaks ──────────────────────────────────────────────────────────
def test_the_table_list_names_the_game_not_the_hosts_path(no_tracebacks):
    bg, table = serve(file=str(ROOT / "games" / "magic_shop.rules"))
    with bg:
        _, _, text = request(bg, "GET", "/tables")
    data = json.loads(text)
    assert data["game"] == "The Magic Shop" and str(ROOT) not in text and "rules" not in data


# ── 6. behind a proxy ───────────────────────────────────────────────────────
def test_behind_a_proxy_links_and_origin_checks_use_the_public_address(no_tracebacks):
    bg, table = serve(allowed_hosts=("cards.example.org",), proxy_headers=True, root_path="/play")
    public = {"host": "127.0.0.1", "x-forwarded-host": "cards.example.org", "x-forwarded-proto": "https"}
    with bg:
        status, data = post_new(bg, {}, {**public, "origin": "https://cards.example.org"})
        assert status == 200, data
        assert data["seats"][0]["link"].startswith(f"https://cards.example.org/play/t/{data['table']}#")
        status, data = post_new(bg, {}, {**public, "origin": f"http://127.0.0.1:{bg.port}"})
        assert status == 403                                   # not the public address
        status, data = post_new(bg, {}, {**public, "x-forwarded-host": "attacker.example"})
        assert status == 421
    bg, table = serve()                                        # not behind a proxy: the headers mean nothing
    with bg:
        status, data = post_new(bg, {}, {"x-forwarded-host": "cards.example.org", "x-forwarded-proto": "https"})
        assert status == 200 and data["seats"][0]["link"].startswith(f"http://127.0.0.1:{bg.port}/t/")


# ── the seeds ───────────────────────────────────────────────────────────────
@pytest.mark.slow
def test_a_tables_seed_cannot_be_found_by_trying_a_million_seeds():
    """The web's seeds were below 1,000,000: trying each against one seat's first view found the
    seed, and with it the other hand. Now a seed has 62 bits from the OS: trying all 2^20 smallest
    seeds finds none that deals what seat 1 holds."""
    hub, _ = hub_for("games/gachapon.rules", players=2, seats="human,random")
    table = hub.new_table(2)
    game = table.game
    seen = table.state.legal_actions()                  # seat 1's first question: its own hand
    assert table.state.current_player() == 0 and seen
    found = [s for s in range(2 ** 20) if game.new_initial_state(seed=s).legal_actions() == seen]
    assert found == [], f"seed {found[0]} deals seat 1's hand"
    rematched = hub.tables[table.id]
    before = rematched.seed
    assert before >= 2 ** 20 and "seed" in rematched.info() and rematched.info()["seed"] is None


def test_the_seed_is_shown_once_the_game_is_over(no_tracebacks):
    bg, table = serve(file="games/gachapon.rules", players=2, seats="random,random", seed=None)
    with bg:
        spectator = Seat(bg, table, None)
        view = spectator.recv()
        while not view.get("terminal"):
            view = spectator.recv(timeout=30)
        assert view["seed"] == str(table.seed)
