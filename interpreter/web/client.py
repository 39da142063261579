"""A client of the table socket that plays one seat by itself: the protocol in a few lines, used by
the tests and ``benchmarks/web_load.py`` to drive seats the way a browser does, without one.

    frames = await play_seat("ws://127.0.0.1:8000", "1", token, random.Random(1))

It answers every view that offers it moves with a random one of them, for the step it saw, and
stops at the end of the game. Every frame received is kept, with the seconds from a move being sent
to the view that shows it taken.
"""
from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field


@dataclass
class SeatLog:
    frames: list = field(default_factory=list)      # every text frame received, in order
    move_times: list = field(default_factory=list)  # seconds from sending a move to seeing it taken
    errors: list = field(default_factory=list)      # the messages of error frames
    final: dict | None = None                       # the last view (the end of the game)


async def play_seat(ws_url: str, table: str, token: str, rng: random.Random | None,
                    timeout: float = 600.0) -> SeatLog:
    """Play (or, with ``rng`` None, only watch) a table until its game ends."""
    import websockets
    log = SeatLog()
    async with websockets.connect(f"{ws_url}/ws/{table}", max_size=2 ** 22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent_at: float | None = None
        sent_step = -1
        deadline = time.monotonic() + timeout
        while True:
            text = await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
            log.frames.append(text)
            msg = json.loads(text)
            if msg["type"] == "error":
                log.errors.append(msg["message"])
                continue
            if msg["type"] != "view":
                continue
            if sent_at is not None and msg["step"] > sent_step:
                log.move_times.append(time.monotonic() - sent_at)
                sent_at = None
            if msg["terminal"]:
                log.final = msg
                return log
            if rng is not None and msg["options"] and msg["step"] != sent_step:
                sent_step = msg["step"]
                sent_at = time.monotonic()
                await ws.send(json.dumps({"type": "move", "action": rng.choice(msg["options"]),
                                          "step": msg["step"]}))
