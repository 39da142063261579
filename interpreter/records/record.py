"""Game records: a saved game is its rules file (and the file's hash), players, variants, the game
parameters set (``params``, when the file has any), seed, seats,
the list of actions, and the seeds chance was given afresh after an ``undo`` or a ``save`` — a YAML
file that resumes or replays the game exactly.

A record is data from anywhere, so reading one trusts nothing (``docs/reference/security.md``): the file must be
a regular file of at most 10 MB; YAML aliases (the "billion laughs") and deep nesting are refused
before anything is built; every field is type-checked; the rules file is found relative to the record
(an older record may also name ``rules_absolute``, the absolute path it was saved from,
which is still looked at; a record names no absolute path now, so a shared record does not tell
the saver's folders), else among the shipped games by its file name; it must be a regular
``.rules`` file, and must have the hash the record names. Saving is atomic and never overwrites a file that is not a record, nor the
game's rules file.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import yaml

from rulesrun.dsl import RulesError, RulesrunError, RulesRuntimeError

from rulesrun.interpreter.bots.agents import parse_kind, parse_seats
from rulesrun.interpreter.runtime.engine import Game, GameError, State, load_game
from rulesrun.interpreter.runtime.files import FileProblem, atomic_write, read_text

RECORD_FORMAT = "rulesrun-record/1"
MAX_DEPTH = 8                 # a record is a mapping of scalars and flat lists: 3 levels deep at most
MAX_PLAYERS = 64
MAX_ACTIONS = 1_000_000
MAX_TEXT = 10_000             # characters in one action, seat or variant
SEED_BITS = 256
RECORD_CAP = 4 * 1024 * 1024  # bytes: a long game's record is a few hundred KB; a bigger file is refused unread
_HEX64 = re.compile(r"[0-9a-f]{64}")


class RecordError(RulesrunError):
    """A record that cannot be read, or does not fit its rules file."""


# ── the rules file's hash ──────────────────────────────────────────────────
def rules_hash(path: str | Path) -> str:
    """The SHA-256 of a rules file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def source_hash(source: str) -> str:
    """The SHA-256 of a rules text as read (UTF-8, ``\\n`` line ends, no BOM): what a record names
    when the file itself is gone or changed by the time the game is saved."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _hashes_of(path: Path) -> set[str]:
    out = set()
    try:
        out.add(source_hash(read_text(path, "rules file")))   # a regular file within the cap, first
        out.add(rules_hash(path))
    except (OSError, FileProblem):
        pass
    return out


# ── making and saving ──────────────────────────────────────────────────────
def make_record(game: Game, state: State, seats: list[str], actions: list[str] | None = None,
                reseeds: list | None = None) -> dict:
    prog = game.program
    path = Path(prog.path)
    try:   # the file as it is now, if it is still the one the game was compiled from
        current = rules_hash(path) if source_hash(read_text(path, "rules file")) == source_hash(prog.source) else None
    except (OSError, FileProblem):
        current = None                 # moved or deleted since the game started: the text it was
    record = {
        "format": RECORD_FORMAT,
        "game": prog.title,
        "rules": str(path),           # written relative to the record's folder by save_record
        "rules_sha256": current or source_hash(prog.source),
        "players": prog.players,
        "variants": list(prog.variants),
        "seed": state.seed,
        "seats": list(seats),
        "actions": list(state.history() if actions is None else actions),
    }
    if len(prog.files) > 1:     # a variant file: each base it extends, by name and the hash of the text read
        record["bases"] = [{"file": Path(name).name, "sha256": source_hash(text)} for name, text in prog.files[:-1]]
    if prog.params:
        record["params"] = dict(prog.params)
    if reseeds:
        record["reseeds"] = [[int(k), int(s)] for k, s in reseeds]
    return record


def looks_like_record(path: str | Path) -> bool:
    """Whether an existing file is a rulesrun record (its first line names the format)."""
    try:
        with open(path, "rb") as f:
            head = f.read(200)
    except OSError:
        return False
    first = head.decode("utf-8", "replace").lstrip("\ufeff").split("\n", 1)[0].strip()
    return first.replace("'", "").replace('"', "") == f"format: {RECORD_FORMAT}"


def save_record(path: str | Path, record: dict, rules_path: str | Path | None = None) -> None:
    """Write ``record`` to ``path`` atomically. Refuses to overwrite anything but a record, and
    never the game's rules file (``rules_path``, default the record's own, as found from the working
    folder). The record's ``rules`` is written relative to the record's folder, where ``open_record``
    looks for it; no absolute path is written."""
    name = str(path)
    if not name.strip():
        raise RecordError("give a file name to save to")
    if "\x00" in name:
        raise RecordError(f"cannot save to {name!r}: a file name cannot hold a NUL character")
    rules = Path(rules_path or record.get("rules_absolute") or record["rules"])
    target = Path(name)
    try:
        exists = os.path.lexists(name)
        if exists and rules.exists() and os.path.samefile(target, rules):
            raise RecordError(f"{name} is the game's rules file; save the game to another file")
        if exists and (not target.is_file() or not looks_like_record(target)):
            raise RecordError(f"{name} already exists and is not a rulesrun saved game; rulesrun does not "
                              f"overwrite it: choose another name")
    except OSError as e:
        raise RecordError(f"cannot save to {name}: {e.strerror or e}") from None
    if target.suffix == ".rules":
        raise RecordError(f"{name} ends in .rules, as rules files do; save the game as a .yaml file")
    out = dict(record)
    out.pop("rules_absolute", None)      # an old record's, read and saved again
    try:
        out["rules"] = os.path.relpath(os.path.abspath(rules), os.path.dirname(os.path.abspath(name)))
    except ValueError:      # another drive (Windows): no relative path; the shipped game's name at least
        out["rules"] = rules.name
    try:
        atomic_write(name, yaml.safe_dump(out, sort_keys=False, allow_unicode=True))
    except FileProblem as e:
        raise RecordError(str(e)) from None


# ── reading ────────────────────────────────────────────────────────────────
class _RecordLoader(yaml.SafeLoader):
    """Safe YAML that refuses aliases (a record never has them; they make "billion laughs" bombs)
    and nesting deeper than a record's, before building anything."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise RecordError(f"it uses a YAML alias (line {event.start_mark.line + 1}), which a saved "
                              f"game never does")
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                raise RecordError("it is nested deeper than a saved game ever is")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _texts(v, most: int) -> bool:
    return isinstance(v, list) and len(v) <= most and all(isinstance(x, str) and len(x) <= MAX_TEXT for x in v)


def _check_fields(data: dict) -> str | None:
    """What is wrong with a record's fields, or None."""
    if not isinstance(data.get("rules"), str) or not data["rules"] or len(data["rules"]) > 4096:
        return "'rules' is missing or not a file name"
    for key in ("rules_absolute", "game"):
        if data.get(key) is not None and (not isinstance(data[key], str) or len(data[key]) > 4096):
            return f"'{key}' is not a text"
    if not _int(data.get("players")) or not 1 <= data["players"] <= MAX_PLAYERS:
        return f"'players' is missing or not a number from 1 to {MAX_PLAYERS}"
    if not _int(data.get("seed")) or abs(data["seed"]).bit_length() > SEED_BITS:
        return "'seed' is missing or not a whole number"
    if not _texts(data.get("actions"), MAX_ACTIONS):
        return "'actions' is missing or not a list of texts"
    if not _texts(data.get("variants", []), 100):
        return "'variants' is not a list of names"
    params = data.get("params", {})
    if not isinstance(params, dict) or len(params) > 100 or not all(
            isinstance(k, str) and len(k) <= 100 and (isinstance(v, (int, bool)) and abs(v).bit_length() <= SEED_BITS
                                                     or isinstance(v, str) and len(v) <= MAX_TEXT)
            for k, v in params.items()):
        return "'params' is not a mapping of parameter names to values"
    seats = data.get("seats")
    if seats is not None and not _texts(seats, MAX_PLAYERS):
        return "'seats' is not a list of seat kinds"
    for kind in seats or ():
        try:            # (their budgets are bounded where bots are made from them: record_seats)
            parse_kind(kind, where="the record's seats")
        except ValueError as e:
            return str(e)
    reseeds = data.get("reseeds", [])
    if not isinstance(reseeds, list) or len(reseeds) > MAX_ACTIONS or not all(
            isinstance(r, list) and len(r) == 2 and all(_int(x) for x in r)
            and 0 <= r[0] <= len(data["actions"]) and abs(r[1]).bit_length() <= SEED_BITS for r in reseeds):
        return "'reseeds' is not a list of [step, seed] pairs within the game"
    bases = data.get("bases", [])
    if not isinstance(bases, list) or len(bases) > 100 or not all(
            isinstance(b, dict) and set(b) == {"file", "sha256"} and isinstance(b["file"], str)
            and 0 < len(b["file"]) <= 4096 and isinstance(b["sha256"], str) and _HEX64.fullmatch(b["sha256"])
            for b in bases):
        return "'bases' is not a list of base files, each with its file name and sha256"
    sha = data.get("rules_sha256")
    if sha is None:
        return "'rules_sha256' is missing: without the rules file's hash, its moves cannot be trusted to mean the same"
    if not isinstance(sha, str) or not _HEX64.fullmatch(sha):
        return "'rules_sha256' is not a SHA-256 hash"
    return None


def record_seats(record: dict, players: int, override: str | None = None) -> list[str]:
    """Who plays each seat of a resumed game: ``override`` (the host's own --seats, unbounded) or
    the record's seats, whose bots may think at most bots/agents.py's MAX_SECONDS or MAX_ITERATIONS
    a move — a record may come from anyone. ValueError with a message."""
    if override:
        return parse_seats(override, players)
    try:
        return parse_seats(",".join(record.get("seats") or []) or None, players, bounded=True,
                           where="the saved game's seats")
    except ValueError as e:
        raise ValueError(f"{e}; to play it with such bots, give the seats yourself with --seats") from None


def _load(text: str):
    """The record's YAML, safely: no aliases, no nesting deeper than MAX_DEPTH. With libyaml (PyYAML's
    C parser, where present) the checks run over its events and the loading is C's too: a 4 MB
    record loads in a tenth of the time of the pure-Python loader."""
    if not getattr(yaml, "__with_libyaml__", False):
        return yaml.load(text, Loader=_RecordLoader)  # noqa: S506 — a SafeLoader, stricter still
    try:
        _check_events(text)
    except yaml.YAMLError as e:     # libyaml's own bound on nesting ("while increasing flow level")
        if "level" in str(getattr(e, "context", "") or ""):
            raise RecordError("it is nested deeper than a saved game ever is") from None
        raise
    return yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506 — safe, and checked above


def _check_events(text: str) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise RecordError(f"it uses a YAML alias (line {event.start_mark.line + 1}), which a saved "
                              f"game never does")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise RecordError("it is nested deeper than a saved game ever is")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def read_record(path: str | Path) -> dict:
    try:
        text = read_text(path, "saved game", RECORD_CAP)     # the size first, before any parsing
    except FileProblem as e:
        raise RecordError(str(e)) from None
    try:
        data = _load(text)
    except RecordError as e:
        raise RecordError(f"{path} is not a rulesrun saved game: {e}") from None
    except yaml.YAMLError as e:
        raise RecordError(f"{path} is not a readable saved game (broken YAML: {str(e).splitlines()[0]})") from None
    except (RecursionError, MemoryError, ValueError, TypeError, OverflowError):
        raise RecordError(f"{path} is not a readable saved game") from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise RecordError(f"{path} is not a rulesrun saved game (expected format: {RECORD_FORMAT})")
    problem = _check_fields(data)
    if problem:
        raise RecordError(f"{path} is damaged: {problem}")
    data.setdefault("variants", [])
    data.setdefault("params", {})
    data.setdefault("seats", None)
    data.setdefault("reseeds", [])
    data.setdefault("bases", [])
    return data


def _rules_path(record: dict, record_path: Path) -> Path:
    """The record's rules file: relative to the record's folder (or the absolute path saved). Only a
    regular file named ``*.rules`` is accepted, so a record cannot point rulesrun at another file."""
    candidates = []
    for name in (record["rules"], record.get("rules_absolute")):
        if name:
            p = Path(name)
            candidates.append(p if p.is_absolute() else record_path.parent / p)
    for candidate in candidates:
        if candidate.suffix != ".rules":
            raise RecordError(f"the saved game names {candidate} as its rules, which is not a .rules file")
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate
        except (OSError, ValueError):
            continue
    # a shipped game's record, made where rulesrun is installed elsewhere: the game of that file name
    # (the hash, checked next, says whether it is the same version)
    from rulesrun.interpreter.records.games import shipped
    name = Path(record["rules"]).name
    for _, path in shipped():
        if path.name == name:
            return path
    raise RecordError(f"the saved game's rules file {record['rules']} is not there any more (looked beside "
                      f"the record and at {record.get('rules_absolute') or record['rules']})")


def _same_bases(game: Game, record: dict, rules: Path) -> None:
    """A variant file's game resumes only with the very bases it was saved with (each hash the same)."""
    now = [(Path(name).name, source_hash(text)) for name, text in game.program.files[:-1]]
    saved = [(b["file"], b["sha256"]) for b in record["bases"]]
    if [h for _, h in now] == [h for _, h in saved]:
        return
    changed = next((n for (n, h), (_, g) in zip(now, saved) if h != g), None)
    what = f"its base game {changed} has" if changed else \
        f"the games it extends have (saved with {', '.join(n for n, _ in saved) or 'none'}, now " \
        f"{', '.join(n for n, _ in now) or 'none'})"
    raise RecordError(f"{rules} is a variant file, and {what} changed since this game was saved, so its "
                      f"moves may no longer mean the same; restore that version to resume it")


def open_record(path: str | Path) -> tuple[Game, State, dict]:
    """Load a record's game and replay its actions: the game exactly where it was saved."""
    path = Path(path)
    record = read_record(path)
    rules = _rules_path(record, path)
    if record["rules_sha256"] not in _hashes_of(rules):
        raise RecordError(f"the rules file {rules} has changed since this game was saved, so its moves may "
                          f"no longer mean the same; restore that version of the file to resume it")
    try:
        game = load_game(rules, players=record["players"], variants=tuple(record["variants"]),
                         params=record["params"])
        _same_bases(game, record, rules)
        state = game.replay(record["seed"], record["actions"], reseeds=dict(record["reseeds"]))
    except (RulesError, GameError, RulesRuntimeError) as e:
        raise RecordError(f"{path} does not replay with {rules}: {e}") from None
    except RecursionError:
        raise RecordError(f"{path} does not replay with {rules}: the rules run too deep") from None
    return game, state, record
