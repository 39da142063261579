"""``rulesrun serve``: play a rules file with friends in the browser (needs the ``web`` extra).

    rulesrun serve FILE [--players N] [--variant V ...] [--param NAME=VALUE ...] [--seats SPEC] [--seed N] [--port P]
                        [--host H] [--allowed-host NAME ...] [--proxy-headers] [--root-path PATH]
                        [--delay S] [--watch] [--save-dir DIR]
    rulesrun serve --load RECORD ...

Prints one link per human seat and one for spectators. docs/guides/web.md tells more.
"""
from __future__ import annotations

import argparse
import importlib.util
import socket
import sys
import threading

NEEDS = ("starlette", "uvicorn")
MISSING = ("rulesrun serve needs the web extra, which is not installed here: "
           "pip install 'rulesrun[web]' (from a checkout: pip install -e '.[web]')")


def _lan_address() -> str:
    """This machine's address on the local network, as a guess good enough for printed links."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.254.254.254", 1))     # no packet is sent: this only picks a route
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def build_hub(args, base_url: str):
    """The hub with the first table, from the command's arguments. Errors: ValueError with a message."""
    from rulesrun.interpreter.bots.agents import parse_seats
    from rulesrun.interpreter.runtime.engine import load_game
    from rulesrun.interpreter.records.record import RecordError, open_record, record_seats
    from rulesrun.interpreter.web.server import Config, Hub
    from rulesrun.interpreter.web.table import fresh_seed
    if args.delay < 0:
        raise ValueError("--delay cannot be negative")
    root_path = (getattr(args, "root_path", "") or "").rstrip("/")
    if root_path and (not root_path.startswith("/") or any(c in root_path for c in "#?\\ ")):
        raise ValueError(f"--root-path is a path such as /cards, not {args.root_path!r}")
    network = {"allowed_hosts": tuple(getattr(args, "allowed_host", None) or ()),
               "proxy_headers": bool(getattr(args, "proxy_headers", False)), "root_path": root_path,
               "max_tables": getattr(args, "max_tables", None) or 100,
               "tables_per_client": getattr(args, "tables_per_client", None) or 10}
    if args.load:
        try:
            game, state, record = open_record(args.load)
        except RecordError as e:
            raise ValueError(str(e)) from None
        seats = record_seats(record, game.players, args.seats)
        config = Config(rules=game.program.path, players=game.players, variants=tuple(game.variants),
                        params=dict(game.params), seats=seats, delay=args.delay, save_dir=args.save_dir,
                        watch=False, base_url=base_url, **network)
        hub = Hub(config)
        table = hub.add(game, seats, record["seed"], state=state, keep=True,
                        settings={"rules": game.program.path, "players": game.players,
                                  "variants": list(game.variants), "params": dict(game.params)})
        return hub, table
    if args.file is None:
        raise ValueError("give a rules file to serve (or --load RECORD to resume a saved game)")
    try:
        game = load_game(args.file, players=args.players, variants=tuple(args.variant), params=dict(args.param or ()))
    except OSError as e:
        raise ValueError(f"cannot read {args.file}: {e.strerror or e}") from None
    seats = parse_seats(args.seats, game.players)
    config = Config(rules=args.file, players=game.players, variants=tuple(args.variant), params=dict(game.params),
                    seats=seats,
                    delay=args.delay, save_dir=args.save_dir, watch=args.watch, base_url=base_url, **network)
    hub = Hub(config)
    seed = args.seed if args.seed is not None else fresh_seed()
    table = hub.add(game, seats, seed, keep=True, settings={"rules": args.file, "players": game.players,
                                                            "variants": list(args.variant),
                                                            "params": dict(game.params)})
    return hub, table


def hub_for(file=None, players=None, variants=(), seats=None, seed=None, delay=0.0, save_dir=".",
            watch=False, load=None, params=None, allowed_hosts=(), proxy_headers=False, root_path="", **config):
    """``build_hub`` with keywords in place of parsed arguments (tests, benchmarks, scripts); any
    other keyword sets that field of the server's Config (``tables_per_client=50``)."""
    args = argparse.Namespace(file=file, players=players, variant=list(variants), seats=seats, seed=seed,
                              param=list((params or {}).items()),
                              delay=delay, save_dir=str(save_dir), watch=watch, load=load,
                              allowed_host=list(allowed_hosts), proxy_headers=proxy_headers, root_path=root_path)
    hub, table = build_hub(args, "")
    for key, value in config.items():
        if not hasattr(hub.config, key):
            raise TypeError(f"hub_for() got an unknown setting {key!r}")
        setattr(hub.config, key, value)
    return hub, table


def uvicorn_server(app, **kw):
    import uvicorn
    config = uvicorn.Config(app, log_level="warning", access_log=False, ws_max_size=16 * 1024,
                            ws_per_message_deflate=False,   # frames are small; compressing them costs more
                            ws_ping_interval=20, ws_ping_timeout=20, lifespan="on", **kw)
    return uvicorn.Server(config)


class Background:
    """A server on 127.0.0.1 in a thread, on a free port: for tests and benchmarks."""

    def __init__(self, hub):
        from rulesrun.interpreter.web.server import make_app
        self.hub = hub
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        hub.config.base_url = f"http://127.0.0.1:{self.port}{hub.config.root_path}"
        self.server = uvicorn_server(make_app(hub), proxy_headers=hub.config.proxy_headers)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self):
        import time
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def serve(args) -> int:
    """``rulesrun serve``: ``args`` as cli/parsers.py's ``serve_parser`` reads them; the exit code."""
    if not all(importlib.util.find_spec(m) for m in NEEDS):
        print(f"rulesrun serve: error: {MISSING}", file=sys.stderr)
        return 1
    if not 0 < args.port < 65536:
        print(f"rulesrun serve: error: --port takes a number from 1 to 65535, not {args.port}", file=sys.stderr)
        return 2
    shown = _lan_address() if args.host in ("0.0.0.0", "", "::") else args.host
    if args.proxy_headers and args.allowed_host:       # behind a TLS proxy: the links are its address
        base_url = f"https://{args.allowed_host[0]}"
    else:
        base_url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{args.port}"
    base_url += (args.root_path or "").rstrip("/")
    from rulesrun.dsl import RulesError
    from rulesrun.dsl.check.params import param_texts
    try:
        hub, table = build_hub(args, base_url)
    except ValueError as e:
        print(f"rulesrun serve: error: {e}", file=sys.stderr)
        return 1
    except RulesError as e:          # file:line:col, the line, a caret and a hint, as everywhere
        print(e.render(), file=sys.stderr)
        return 1
    from rulesrun.interpreter.web.server import make_app
    links = hub.links(table)
    # never the seed: whoever read it could work out every hand (it is shown when the game ends)
    print(f"{table.game.title} — {table.game.players} players"
          + (f", {param_texts(table.game.params, table.game.program.param_info)}" if table.game.params else "")
          + (f", resumed at step {table.step}" if args.load else ""))
    for s in links["seats"]:
        print(f"  {s['name']:<10} {s['link'] or '(' + s['kind'] + ' bot)'}")
    print(f"  spectators {links['spectators']}")
    if args.proxy_headers:
        print(f"More tables: {base_url}/  — behind your proxy; docs/guides/web.md says what the links expose.")
    else:
        print(f"More tables: {base_url}/  — for friends on this network; to play over the internet, put it "
              "behind a TLS proxy (docs/guides/web.md).")
    if args.watch and args.load:
        print("--watch does nothing with --load: a saved game holds to the rules file it was played with.")
    elif args.watch:
        print(f"Watching {args.file}: a change restarts the tables with the same seed.")
    sys.stdout.flush()
    # uvicorn's own forwarded-headers support sets the client's address and scheme from the proxy's
    # headers; only when told (--proxy-headers), and only from the proxy's address (--forwarded-allow-ips)
    server = uvicorn_server(make_app(hub), host=args.host, port=args.port, proxy_headers=args.proxy_headers,
                            forwarded_allow_ips=args.forwarded_allow_ips or "127.0.0.1")
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    except OSError as e:
        print(f"rulesrun serve: error: cannot listen on {args.host}:{args.port}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0
