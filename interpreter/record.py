"""Game records: a saved game is its rules file (and the file's hash), players, variants, seed, seats
and the list of actions — a YAML file that resumes or replays the game exactly."""
from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from dsl import RulesError

from .engine import Game, GameError, State, load_game

RECORD_FORMAT = "rulesrun-record/1"


class RecordError(Exception):
    """A record that cannot be read, or does not fit its rules file."""


def rules_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def make_record(game: Game, state: State, seats: list[str], actions: list[str] | None = None) -> dict:
    prog = game.program
    path = Path(prog.path)
    return {
        "format": RECORD_FORMAT,
        "game": prog.title,
        "rules": str(path),
        "rules_absolute": str(path.resolve()),
        "rules_sha256": rules_hash(path),
        "players": prog.players,
        "variants": list(prog.variants),
        "seed": state.seed,
        "seats": list(seats),
        "actions": list(state.history() if actions is None else actions),
    }


def save_record(path: str | Path, record: dict) -> None:
    try:
        Path(path).write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")
    except OSError as e:
        raise RecordError(f"cannot write {path}: {e.strerror or e}") from None


def read_record(path: str | Path) -> dict:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"no such saved game: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read {path}: {e}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise RecordError(f"{path} is not a readable saved game (broken YAML: {str(e).splitlines()[0]})") from None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        raise RecordError(f"{path} is not a rulesrun saved game (expected format: {RECORD_FORMAT})")
    want = {"rules": str, "players": int, "seed": int, "actions": list}
    for key, typ in want.items():
        if not isinstance(data.get(key), typ):
            raise RecordError(f"{path} is damaged: '{key}' is missing or not a {typ.__name__}")
    data.setdefault("variants", [])
    data.setdefault("seats", None)
    return data


def _rules_path(record: dict, record_path: Path) -> Path:
    for candidate in (Path(record["rules"]), record_path.parent / record["rules"],
                      Path(record.get("rules_absolute") or record["rules"])):
        if candidate.exists():
            return candidate
    raise RecordError(f"the saved game's rules file {record['rules']} is not there any more")


def open_record(path: str | Path) -> tuple[Game, State, dict]:
    """Load a record's game and replay its actions: the game exactly where it was saved."""
    path = Path(path)
    record = read_record(path)
    rules = _rules_path(record, path)
    sha = record.get("rules_sha256")
    if sha and rules_hash(rules) != sha:
        raise RecordError(f"the rules file {rules} has changed since this game was saved, so its moves may "
                          f"no longer mean the same; restore that version of the file to resume it")
    try:
        game = load_game(rules, players=record["players"], variants=tuple(record["variants"]))
        state = game.replay(record["seed"], [str(a) for a in record["actions"]])
    except (RulesError, GameError) as e:
        raise RecordError(f"{path} does not replay with {rules}: {e}") from None
    return game, state, record
