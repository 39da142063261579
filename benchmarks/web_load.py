#!/usr/bin/env python3
"""Load on loopback for ``rulesrun serve``: many tables of socket bots played to the end at once.

    python benchmarks/web_load.py                          # 50 tables of The Magic Shop for 4
    python benchmarks/web_load.py --tables 20 --rules games/magi.rules --players 4

Starts ``rulesrun serve`` as its own process on 127.0.0.1 (so server and clients do not share one
interpreter), makes the tables through ``POST /new`` with every seat human, and plays each seat
from this process through the socket protocol (``interpreter/web/client.py``: a random legal move
for each view that offers moves). Then every table is saved through the socket and its record is
replayed: it must reach the returns the seats were shown. Prints the time per move — from a seat
sending its move to that seat seeing the view that took it — as p50/p99, and the moves a second.
The figures are written down in docs/web.md; tests/interpreter/web/test_web_load.py runs the same code for
correctness only, never for time.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def new_table(base_url: str, players: int, seed: int) -> dict:
    body = json.dumps({"players": players, "seats": ",".join(["human"] * players), "seed": seed}).encode()
    req = urllib.request.Request(base_url + "/new", data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


async def save_table(ws_url: str, table: str, token: str) -> str:
    import websockets
    async with websockets.connect(f"{ws_url}/ws/{table}", max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.recv()
        await ws.send(json.dumps({"type": "save"}))
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "saved":
                return msg["path"]
            if msg["type"] == "error":
                raise RuntimeError(msg["message"])


async def play_tables(base_url: str, players: int, tables: int, seed: int = 0, timeout: float = 900) -> dict:
    """Make ``tables`` tables, play them all at once through sockets, save each. Returns what
    happened: per table its links, the seats' logs and the saved record's path; all move times."""
    from rulesrun.interpreter.web.client import play_seat
    ws_url = base_url.replace("http://", "ws://")
    made = [new_table(base_url, players, seed + i) for i in range(tables)]
    t0 = time.monotonic()
    jobs = []
    for i, t in enumerate(made):
        for s in t["seats"]:
            token = s["link"].split("#", 1)[1]
            jobs.append(play_seat(ws_url, t["table"], token, random.Random(seed * 7919 + i * 31 + s["seat"])))
    logs = await asyncio.wait_for(asyncio.gather(*jobs), timeout)
    took = time.monotonic() - t0
    per_table = [logs[i * players:(i + 1) * players] for i in range(tables)]
    saved = await asyncio.gather(*(save_table(ws_url, t["table"], t["seats"][0]["link"].split("#", 1)[1])
                                   for t in made))
    times = [x for log in logs for x in log.move_times]
    return {"tables": made, "logs": per_table, "saved": saved, "times": times, "seconds": took}


def summary(result: dict) -> dict:
    times = sorted(result["times"])
    q = statistics.quantiles(times, n=100) if len(times) > 1 else times * 99
    return {"tables": len(result["tables"]), "moves": len(times), "seconds": round(result["seconds"], 2),
            "moves_per_s": round(len(times) / result["seconds"], 1),
            "p50_ms": round(q[49] * 1000, 2), "p99_ms": round(q[98] * 1000, 2)}


def run(rules: str, players: int, tables: int, seed: int, save_dir: str) -> dict:
    """Serve ``rules`` from a process of its own on a free port, play the tables, stop it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "rulesrun.interpreter.cli.main", "serve", rules, "--players",
                             str(players), "--port", str(port), "--delay", "0", "--save-dir", save_dir,
                             "--seats", ",".join(["human"] * players), "--tables-per-client", str(tables)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                urllib.request.urlopen(base + "/tables", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"the server did not start: {proc.stderr.read()}")
                time.sleep(0.05)
        result = asyncio.run(play_tables(base, players, tables, seed))
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    result["server_stderr"] = err
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="games/magic_shop.rules")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from rulesrun.interpreter.records.record import open_record
    with tempfile.TemporaryDirectory() as tmp:
        result = run(args.rules, args.players, args.tables, args.seed, tmp)
        bad = 0
        for logs, path in zip(result["logs"], result["saved"]):
            _, state, _ = open_record(path)
            bad += state.returns() != logs[0].final["returns"]
    out = summary(result)
    out["records_replayed"] = len(result["saved"]) - bad
    print(json.dumps(out))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
