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
import contextlib
import json
import logging
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rulesrun.dsl import RulesError

from rulesrun.interpreter.bots.agents import parse_seats
from rulesrun.interpreter.runtime.engine import load_game
from rulesrun.interpreter.web.table import SPECTATOR, Refused, Table

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


class Hub:
    """Every table of one server, the sockets looking at each, and the bots' tasks."""

    def __init__(self, config: Config):
        self.config = config
        self.tables: dict[str, Table] = {}
        self.sockets: dict[str, set] = {}          # table id -> {(websocket, seat)}
        self.bot_tasks: dict[str, asyncio.Task] = {}
        self.locks: dict[str, asyncio.Lock] = {}
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
    def add(self, game, seats, seed, state=None, settings=None) -> Table:
        if len(self.tables) >= self.config.max_tables:
            raise Refused(f"this server holds at most {self.config.max_tables} tables")
        tid = str(self._next)
        self._next += 1
        table = Table(tid, game, seats, seed, state=state, settings=settings)
        self.tables[tid] = table
        self.sockets[tid] = set()
        return table

    def new_table(self, players=None, variants=None, seats=None, seed=None, params=None) -> Table:
        """A table of the served rules file; bad settings are Refused with a message. ``params``
        ({name: value or its text}) sets game parameters for this table over the server's --param."""
        c = self.config
        if c.rules is None:
            raise Refused("this server plays a loaded game only; start it with a rules file to make new tables")
        players = c.players if players is None else players
        variants = tuple(c.variants if variants is None else variants)
        try:
            game = self._game(players, variants, params)
            seat_list = parse_seats(seats if seats else None, game.players) if seats or not c.seats \
                or len(c.seats) != game.players else list(c.seats)
        except RulesError as e:
            raise Refused(e.render()) from None
        except ValueError as e:
            raise Refused(str(e)) from None
        except OSError as e:
            raise Refused(f"cannot read {c.rules}: {e.strerror or e}") from None
        seed = random.randrange(1_000_000) if seed is None else seed
        return self.add(game, seat_list, seed,
                        settings={"rules": c.rules, "players": game.players, "variants": list(variants),
                                  "params": dict(game.params)})

    def links(self, table: Table) -> dict:
        base = f"{self.config.base_url}/t/{table.id}"
        return {"table": table.id, "title": table.game.title,
                "seats": [{"seat": p, "name": table.names()[p], "kind": kind,
                           "link": f"{base}#{table.token_of(p)}" if kind == "human" else None}
                          for p, kind in enumerate(table.seats)],
                "spectators": f"{base}#{table.spectator_token}"}

    # ── telling everybody ──────────────────────────────────────────────────
    async def broadcast(self, table: Table) -> None:
        """Send every socket at the table its frame of the table as it is now. One broadcast at a
        time per table, each building its frames from the latest state: a socket sees the steps in
        order, never an older view after a newer one."""
        async with self._lock(table.id):
            cache: dict = {}
            conns = list(self.sockets.get(table.id, ()))
            for ws, seat in conns:
                if seat not in cache:
                    cache[seat] = json.dumps(table.frame(seat))
            for ws, seat in conns:
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
                action = await asyncio.to_thread(table.bot_choice, seat)
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
    return JSONResponse({"rules": hub.config.rules, "players": hub.config.players,
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


async def new_table(request: Request) -> Response:
    hub: Hub = request.app.state.hub
    body = (await request.body())[:MAX_MESSAGE].decode("utf-8", "replace")
    try:
        if request.headers.get("content-type", "").startswith("application/json"):
            form = json.loads(body or "{}")
            if not isinstance(form, dict):
                raise ValueError
        else:
            form = {k: v[-1] for k, v in parse_qs(body).items()}
        players = int(form["players"]) if str(form.get("players") or "").strip() else None
        seed = int(form["seed"]) if str(form.get("seed") or "").strip() else None
        variants = form.get("variants", form.get("variant"))
        if isinstance(variants, str):
            variants = [v.strip() for v in variants.split(",") if v.strip()]
        if variants is not None and not (isinstance(variants, list) and all(isinstance(v, str) for v in variants)):
            raise ValueError
        seats = form.get("seats") or None
        if seats is not None and not isinstance(seats, str):
            raise ValueError
        params = _params(form.get("params"))
        table = hub.new_table(players, variants, seats, seed, params)
    except (ValueError, TypeError):
        return JSONResponse({"error": "players and seed are whole numbers; variants and seats are text; params "
                                      "are name=value pairs (\"target=300, rounds=2\") or a JSON object"}, 400)
    except Refused as e:
        return JSONResponse({"error": str(e)}, 400)
    return JSONResponse(hub.links(table))


def make_app(hub: Hub) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app):
        watcher = None
        if hub.config.watch and hub.config.rules:
            watcher = asyncio.get_running_loop().create_task(hub.watch())
        for table in hub.tables.values():
            hub.kick(table)
        yield
        for task in [watcher, *hub.bot_tasks.values()]:
            if task is not None:
                task.cancel()

    app = Starlette(routes=[
        Route("/", index),
        Route("/tables", list_tables),
        Route("/new", new_table, methods=["POST"]),
        Route("/t/{tid}", table_page),
        WebSocketRoute("/ws/{tid}", table_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)
    app.state.hub = hub
    return app
