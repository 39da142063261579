"""The web server: Starlette routes and WebSockets over the tables of ``table.py``.

    GET  /                the list of tables, and a form for a new one
    POST /new             a new table of the served rules file (players, variant, seats, seed, params)
    GET  /t/ID            the table page; the seat token travels in the link's #fragment
    WS   /ws/ID           the table's socket: {"type": "hello", "token": ...} first, then moves

A socket speaks JSON, one object a message; docs/guides/web.md has the protocol. Whatever a client sends,
the answer is an error frame or a closed socket, never a traceback and never a change to the game
unless it was a legal move of the sender's own seat at the step it saw.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rulesrun.dsl import RulesError

from rulesrun.interpreter.bots.agents import parse_seats
from rulesrun.interpreter.records.record import SEED_BITS
from rulesrun.interpreter.runtime.engine import load_game
from rulesrun.interpreter.web.guard import Guard, public_address, public_origin
from rulesrun.interpreter.web.table import SPECTATOR, Refused, Table, fresh_seed

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("rulesrun.web")

MAX_MESSAGE = 4096        # bytes in one client message
RATE = 20.0               # messages a second a socket may send on average ...
BURST = 40.0              # ... and at once (moves the table takes do not count)
HELLO_TIMEOUT = 10.0      # seconds a new socket has to say who it is
SEND_TIMEOUT = 10.0       # seconds a frame may take to go out before its socket is dropped
# close codes (4000-4999 are the application's own)
BAD_REQUEST, UNAUTHORISED, NOT_FOUND, TOO_MANY = 4400, 4401, 4404, 4429


@dataclass
class Config:
    rules: str | None                  # the served rules file (None: only the loaded game)
    players: int
    variants: tuple = ()
    params: dict = field(default_factory=dict)   # the game parameters every table plays with
    seats: list = field(default_factory=list)
    delay: float = 0.6                 # seconds before each bot move, so people can follow
    save_dir: str = "."
    watch: bool = False
    max_tables: int = 100
    base_url: str = ""                 # printed links start with this
    tables_per_client: int = 10        # open tables one client address may have asked for at once
    finished_after: float = 300.0      # seconds a finished table with nobody looking is kept
    idle_after: float = 3600.0         # seconds an unfinished table with nobody looking is kept
    allowed_hosts: tuple = ()          # names the server answers to besides IP addresses and localhost
    proxy_headers: bool = False        # behind a reverse proxy: trust X-Forwarded-Proto and -Host
    root_path: str = ""                # the sub-path the proxy serves the tables under ("/cards")


class Hub:
    """Every table of one server, the sockets looking at each, and the bots' tasks."""

    def __init__(self, config: Config):
        self.config = config
        self.tables: dict[str, Table] = {}
        self.sockets: dict[str, set] = {}          # table id -> {(websocket, seat)}
        self.bot_tasks: dict[str, asyncio.Task] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        # each table's bots think in a thread of its own, so one table's long thinking never keeps
        # another's bots waiting for a worker (the table's stop event ends the thinking early)
        self.thinkers: dict[str, concurrent.futures.ThreadPoolExecutor] = {}
        self._next = 1
        self._games: dict = {}                      # (players, variants, file stamp) -> compiled Game

    def _game(self, players, variants, params=None):
        """The served file compiled for these settings, once while the file stays the same."""
        params = {**self.config.params, **(params or {})}         # a table's own over the server's
        key = (players, variants, tuple(sorted((k, str(v)) for k, v in params.items())),
               _stamp(Path(self.config.rules)))
        if key not in self._games:
            if len(self._games) > 16:
                self._games.clear()
            self._games[key] = load_game(self.config.rules, players=players, variants=variants, params=params)
        return self._games[key]

    # ── tables ─────────────────────────────────────────────────────────────
    def add(self, game, seats, seed, state=None, settings=None, creator=None, keep=False) -> Table:
        """A new table. ``creator``: the client address that asked (one address holds at most
        ``tables_per_client`` tables at once); ``keep``: never reclaimed (the table of the command line)."""
        c = self.config
        if len(self.tables) >= c.max_tables:
            self.reap()
        if len(self.tables) >= c.max_tables:
            raise Refused(f"this server holds at most {c.max_tables} tables, and all are in use: try again later")
        if creator is not None and sum(t.creator == creator for t in self.tables.values()) >= c.tables_per_client:
            raise Refused(f"you have {c.tables_per_client} tables open already: finish or leave one "
                          f"(a finished table goes after {c.finished_after / 60:g} minutes with nobody at it)")
        tid = str(self._next)
        self._next += 1
        table = Table(tid, game, seats, seed, state=state, settings=settings)
        table.creator, table.keep = creator, keep
        self.tables[tid] = table
        self.sockets[tid] = set()
        return table

    def reap(self, now: float | None = None) -> list[str]:
        """Reclaim the tables nobody is looking at: finished ones after ``finished_after`` seconds,
        unfinished ones after ``idle_after``. Their bots stop; the ids of those reclaimed."""
        now = time.monotonic() if now is None else now
        gone = []
        for tid, table in list(self.tables.items()):
            if table.keep or self.sockets.get(tid):
                continue
            limit = self.config.finished_after if table.state.is_terminal() else self.config.idle_after
            if now - table.touched >= limit:
                gone.append(tid)
                self.drop(tid)
        return gone

    def drop(self, tid: str) -> None:
        table = self.tables.pop(tid, None)
        if table is not None:
            table.stop.set()
        self.sockets.pop(tid, None)
        self.locks.pop(tid, None)
        task = self.bot_tasks.pop(tid, None)
        if task is not None and not task.done():
            task.cancel()
        thinker = self.thinkers.pop(tid, None)
        if thinker is not None:
            thinker.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """The server is stopping: every bot stops thinking (within one search iteration)."""
        for table in self.tables.values():
            table.stop.set()
        for task in self.bot_tasks.values():
            task.cancel()
        for thinker in self.thinkers.values():
            thinker.shutdown(wait=False, cancel_futures=True)

    def new_table(self, players=None, variants=None, seats=None, seed=None, params=None, creator=None) -> Table:
        """A table of the served rules file; bad settings are Refused with a message. ``params``
        ({name: value or its text}) sets game parameters for this table over the server's --param.
        Seats come from the web here, so a bot's budget is bounded (bots/agents.py MAX_SECONDS)."""
        c = self.config
        if c.rules is None:
            raise Refused("this server plays a loaded game only; start it with a rules file to make new tables")
        players = c.players if players is None else players
        variants = tuple(c.variants if variants is None else variants)
        try:
            game = self._game(players, variants, params)
            seat_list = parse_seats(seats if seats else None, game.players, bounded=True, where="seats") \
                if seats or not c.seats or len(c.seats) != game.players else list(c.seats)
        except RulesError as e:
            raise Refused(e.render()) from None
        except ValueError as e:
            raise Refused(str(e)) from None
        except OSError as e:
            raise Refused(f"cannot read {c.rules}: {e.strerror or e}") from None
        seed = fresh_seed() if seed is None else seed
        return self.add(game, seat_list, seed, creator=creator,
                        settings={"rules": c.rules, "players": game.players, "variants": list(variants),
                                  "params": dict(game.params)})

    def links(self, table: Table, base_url: str | None = None) -> dict:
        """The table's links: each human seat's (with its token) and the spectators'. ``base_url``:
        the server's public address as the asking request saw it (else the one printed at start)."""
        base = f"{self.config.base_url if base_url is None else base_url}/t/{table.id}"
        return {"table": table.id, "title": table.game.title,
                "seats": [{"seat": p, "name": table.names()[p], "kind": kind,
                           "link": f"{base}#{table.token_of(p)}" if kind == "human" else None}
                          for p, kind in enumerate(table.seats)],
                "spectators": f"{base}#{table.spectator_token}"}

    # ── telling everybody ──────────────────────────────────────────────────
    async def broadcast(self, table: Table) -> None:
        """Send every socket at the table its frame of the table as it is now. The frames are built
        at once, before anything else can run on the loop (the caller has just changed the state):
        two moves close together make two broadcasts of two steps, never two of the latest one (a
        seat would miss a step). One broadcast at a time per table, in the order they were made
        (asyncio's lock is first come, first served): a socket sees the steps in order. A socket that
        joined since was greeted with a frame at least as new, and is left out."""
        conns = list(self.sockets.get(table.id, ()))
        cache: dict = {}
        for ws, seat in conns:
            if seat not in cache:
                cache[seat] = json.dumps(table.frame(seat))
        async with self._lock(table.id):
            here = self.sockets.get(table.id, set())
            for ws, seat in conns:
                if (ws, seat) in here:
                    await self._send(ws, cache[seat], table.id, seat)
        self.kick(table)

    async def greet(self, table: Table, ws, seat) -> None:
        """A new socket joins the table and gets its first frame, in order with the broadcasts."""
        async with self._lock(table.id):
            self.sockets[table.id].add((ws, seat))
            await self._send(ws, json.dumps(table.frame(seat)), table.id, seat)

    def _lock(self, tid: str) -> asyncio.Lock:
        if tid not in self.locks:
            self.locks[tid] = asyncio.Lock()
        return self.locks[tid]

    async def _send(self, ws, text: str, tid: str, seat) -> None:
        try:
            await asyncio.wait_for(ws.send_text(text), SEND_TIMEOUT)
        except Exception:       # a socket gone away or stuck: forget it, the table goes on
            self.sockets.get(tid, set()).discard((ws, seat))

    # ── bots ───────────────────────────────────────────────────────────────
    def kick(self, table: Table) -> None:
        """Start the table's bot task if a bot is to move and none is running."""
        task = self.bot_tasks.get(table.id)
        if table.bot_to_move() is not None and (task is None or task.done()):
            self.bot_tasks[table.id] = asyncio.get_running_loop().create_task(self._bots(table))

    async def _bots(self, table: Table) -> None:
        while (seat := table.bot_to_move()) is not None:
            version = table.version
            if self.config.delay > 0:
                await asyncio.sleep(self.config.delay)
            if version != table.version:
                continue
            try:
                if table.id not in self.thinkers:
                    self.thinkers[table.id] = concurrent.futures.ThreadPoolExecutor(
                        max_workers=1, thread_name_prefix=f"rulesrun-table-{table.id}")
                action = await asyncio.get_running_loop().run_in_executor(
                    self.thinkers[table.id], table.bot_choice, seat)
                if table.stop.is_set() or self.tables.get(table.id) is not table:
                    return                  # the table went away while its bot thought
                moved = table.bot_move(seat, action, version)
            except Refused:
                moved = True            # the rules failed: table.error now says why
            except Exception:           # never let a bot's failure take the server down
                log.exception("the bot at seat %s of table %s failed", seat + 1, table.id)
                return
            if moved:
                await self.broadcast(table)

    # ── --watch ────────────────────────────────────────────────────────────
    async def watch(self, interval: float = 0.5) -> None:
        path = Path(self.config.rules)
        last = _stamp(path)
        while True:
            await asyncio.sleep(interval)
            now = _stamp(path)
            if now == last:
                continue
            last = now
            for table in list(self.tables.values()):
                if table.settings.get("rules") == self.config.rules:
                    table.reload()
                    await self.broadcast(table)


def _stamp(path: Path):
    try:
        st = path.stat()
        return st.st_mtime_ns, st.st_size
    except OSError:
        return None


# ── the socket ──────────────────────────────────────────────────────────────
async def _error(ws: WebSocket, message: str, close: int | None = None) -> None:
    try:
        await ws.send_text(json.dumps({"type": "error", "message": message}))
        if close:
            await ws.close(code=close)
    except Exception:
        pass


def _parse(text) -> dict | None:
    if not isinstance(text, str) or len(text.encode("utf-8", "replace")) > MAX_MESSAGE:
        return None
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return msg if isinstance(msg, dict) and isinstance(msg.get("type"), str) else None


async def _receive(ws: WebSocket) -> str | None:
    """The next text message; None for a binary one. Raises WebSocketDisconnect when closed."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    return message.get("text")


async def table_socket(ws: WebSocket) -> None:
    hub: Hub = ws.app.state.hub
    await ws.accept()
    table = hub.tables.get(ws.path_params["tid"])
    if table is None:
        return await _error(ws, "there is no such table on this server", NOT_FOUND)
    try:
        text = await asyncio.wait_for(_receive(ws), HELLO_TIMEOUT)
    except asyncio.TimeoutError:
        return await _error(ws, "say hello with your token first", UNAUTHORISED)
    except WebSocketDisconnect:
        return
    hello = _parse(text)
    if hello is None or hello["type"] != "hello":
        return await _error(ws, 'the first message must be {"type": "hello", "token": "..."}', BAD_REQUEST)
    seat = table.seat_of(hello.get("token"))
    if seat is None:
        return await _error(ws, "that token opens no seat at this table: ask for your link again", UNAUTHORISED)
    conns = hub.sockets[table.id]
    try:
        await hub.greet(table, ws, seat)
        hub.kick(table)
        allowance, last = BURST, time.monotonic()
        while True:
            text = await _receive(ws)
            now = time.monotonic()
            allowance = min(BURST, allowance + (now - last) * RATE) - 1
            last = now
            if allowance < 0:
                return await _error(ws, "too many messages: slow down", TOO_MANY)
            msg = _parse(text)
            if msg is None:
                await _error(ws, f"each message must be one JSON object with a 'type', at most {MAX_MESSAGE} bytes")
                continue
            if await _handle(hub, table, ws, seat, msg):
                allowance += 1          # a move taken costs nothing: only refused or idle talk counts
    except WebSocketDisconnect:
        pass
    finally:
        conns.discard((ws, seat))
        table.touched = time.monotonic()


async def _handle(hub: Hub, table: Table, ws: WebSocket, seat: int, msg: dict) -> bool:
    """Carry out one message; True if it was a move the table took."""
    kind = msg["type"]
    try:
        if kind == "move":
            if "seat" in msg and msg["seat"] != seat:
                raise Refused("a socket moves only for its own seat")
            table.move(seat, msg.get("action"), msg.get("step"))
            await hub.broadcast(table)
            return True
        elif kind == "view":
            await ws.send_text(json.dumps(table.frame(seat)))
            return False
        elif kind == "ping":
            await ws.send_text(json.dumps({"type": "pong"}))
            return False
        elif kind == "save":
            if seat == SPECTATOR:
                raise Refused("spectators cannot save the game")
            path = table.save(hub.config.save_dir)
            await ws.send_text(json.dumps({"type": "saved", "path": str(path),
                                           "message": f"saved on the server as {path}; resume with "
                                                      f"rulesrun serve --load {path}"}))
            return False
        elif kind == "rematch":
            if seat == SPECTATOR:
                raise Refused("spectators cannot start a rematch")
            table.rematch()
        else:
            raise Refused(f"unknown message type {kind[:40]!r}; known: move, view, save, rematch, ping")
    except Refused as e:
        await _error(ws, str(e))
        return False
    await hub.broadcast(table)
    return False


# ── pages ───────────────────────────────────────────────────────────────────
async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def table_page(request: Request) -> Response:
    if request.path_params["tid"] not in request.app.state.hub.tables:
        return HTMLResponse("<p>There is no such table on this server. <a href='/'>The tables</a></p>", 404)
    return FileResponse(STATIC / "table.html")


async def list_tables(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    hub.reap()
    # the game's name (the command line's table is never reclaimed), never the host's path to its file
    title = next((t.game.title for t in hub.tables.values()), "")
    return JSONResponse({"game": title, "players": hub.config.players,
                         "variants": list(hub.config.variants), "params": dict(hub.config.params),
                         "tables": [{"table": t.id, "title": t.game.title, "players": t.game.players,
                                     "seats": t.seats, "over": t.state.is_terminal(), "step": t.step,
                                     "spectators": f"/t/{t.id}#{t.spectator_token}"}
                                    for t in hub.tables.values()]})


def _params(given) -> dict | None:
    """A new table's game parameters: a JSON object of names to values, or text such as
    "target=300, rounds=2" (a form field); ValueError for anything else."""
    if given is None or given == "":
        return None
    if isinstance(given, str):
        pairs = [p.strip() for p in given.replace(";", ",").split(",") if p.strip()]
        if not all("=" in p for p in pairs):
            raise ValueError
        given = {k.strip(): v.strip() for k, v in (p.split("=", 1) for p in pairs)}
    if not isinstance(given, dict) or not all(isinstance(k, str) and isinstance(v, (str, int, float, bool))
                                              for k, v in given.items()):
        raise ValueError
    return given


def _whole(value, what: str, bits: int) -> int | None:
    """A whole number from a JSON value (or its digits as text); None when absent; ValueError else."""
    if value is None or isinstance(value, str) and not value.strip():
        return None
    if isinstance(value, bool) or isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise ValueError(f"{what} is a whole number")
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.lstrip("-").isdigit() and len(text) <= bits // 3 + 2):
            raise ValueError(f"{what} is a whole number")
        value = int(text)
    if not isinstance(value, (int, float)):
        raise ValueError(f"{what} is a whole number")
    value = int(value)
    if abs(value).bit_length() > bits:
        raise ValueError(f"{what} is a whole number of at most {bits} bits")
    return value


def _text(value) -> bool:
    """Text a person could have typed: no lone surrogates (they cannot be written out as UTF-8)."""
    try:
        value.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _form(data) -> dict:
    """POST /new's JSON object checked: players, variants, seats, seed, params. ValueError with a message."""
    if not isinstance(data, dict):
        raise ValueError("the body is one JSON object, like {\"players\": 3, \"seats\": \"human,random,random\"}")
    for k, v in data.items():
        if not _text(k) or isinstance(v, str) and not _text(v):
            raise ValueError("the settings hold text that is not valid Unicode")
    players = _whole(data.get("players"), "players", 16)
    seed = _whole(data.get("seed"), "seed", SEED_BITS)
    variants = data.get("variants", data.get("variant"))
    if isinstance(variants, str):
        variants = [v.strip() for v in variants.split(",") if v.strip()]
    if variants is not None and not (isinstance(variants, list) and len(variants) <= 50 and
                                     all(isinstance(v, str) and _text(v) for v in variants)):
        raise ValueError("variants are a comma list of names")
    seats = data.get("seats") or None
    if seats is not None and not isinstance(seats, str):
        raise ValueError("seats are a comma list such as human,random,ismcts:500")
    try:
        params = _params(data.get("params"))
    except ValueError:
        raise ValueError("params are name=value pairs (\"target=300, rounds=2\") or a JSON object") from None
    if params and not all(_text(k) and (not isinstance(v, str) or _text(v)) for k, v in params.items()):
        raise ValueError("the settings hold text that is not valid Unicode")
    return {"players": players, "variants": variants, "seats": seats, "seed": seed, "params": params}


def base_url(request: Request) -> str:
    """The server's public address, as the person's browser reached it (docs/guides/web.md)."""
    hub: Hub = request.app.state.hub
    scheme, host = public_address(request.scope, hub.config.proxy_headers)
    return public_origin(scheme, host) + hub.config.root_path


async def new_table(request: Request) -> Response:
    """POST /new: JSON only (a cross-site HTML form cannot send it without the browser asking first)."""
    hub: Hub = request.app.state.hub
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return JSONResponse({"error": "POST /new takes a JSON body (content-type: application/json)"}, 415)
    body = await request.body()
    if len(body) > MAX_MESSAGE:
        return JSONResponse({"error": f"the body is over {MAX_MESSAGE} bytes"}, 413)
    try:
        form = _form(json.loads(body.decode("utf-8") or "{}"))
    except (UnicodeDecodeError, RecursionError):
        return JSONResponse({"error": "the body is not JSON text"}, 400)
    except ValueError as e:        # json's errors are ValueErrors too
        return JSONResponse({"error": str(e) if not isinstance(e, json.JSONDecodeError)
                             else "the body is not one JSON object"}, 400)
    try:
        client = request.client.host if request.client else None
        table = hub.new_table(form["players"], form["variants"], form["seats"], form["seed"], form["params"],
                              creator=client)
    except Refused as e:
        return JSONResponse({"error": str(e)}, 400)
    return JSONResponse(hub.links(table, base_url(request)))


def make_app(hub: Hub) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app):
        loop = asyncio.get_running_loop()
        watcher = loop.create_task(hub.watch()) if hub.config.watch and hub.config.rules else None
        reaper = loop.create_task(_reap_every(hub, 30.0))
        for table in hub.tables.values():
            hub.kick(table)
        try:
            yield
        finally:
            hub.close()               # bots stop thinking, so the worker threads end at once
            for task in [watcher, reaper]:
                if task is not None:
                    task.cancel()

    app = Starlette(routes=[
        Route("/", index),
        Route("/tables", list_tables),
        Route("/favicon.ico", lambda request: Response(status_code=204)),   # no icon: not a 404 either
        Route("/new", new_table, methods=["POST"]),
        Route("/t/{tid}", table_page),
        WebSocketRoute("/ws/{tid}", table_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.hub = hub
    c = hub.config
    return Guard(app, allowed_hosts=c.allowed_hosts, proxy_headers=c.proxy_headers)


async def _reap_every(hub: Hub, seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        hub.reap()
