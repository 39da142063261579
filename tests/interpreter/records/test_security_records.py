"""Records are data, not a path to anything, and saving never loses anything:
every field type-checked, the size capped, alias bombs and deep nesting refused quickly, the rules
file found beside the record and only a regular ``.rules`` file with the right hash, a bad ``load``
leaving the game in progress; saving atomic, never over a file that is not a record, nor the rules."""
from __future__ import annotations

import io
import os
import shutil
import time
from pathlib import Path

import pytest
import yaml

from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.files import atomic_write
from rulesrun.interpreter.records.record import (
    RecordError,
    make_record,
    open_record,
    read_record,
    save_record,
)
from rulesrun.interpreter.terminal.repl import Repl

from tests.support import ROOT  # noqa: E402
MAGIC = ROOT / "games" / "magic_shop.rules"


@pytest.fixture
def saved(tmp_path):
    """A copy of the Magic Shop and a good record of a game of it, three decisions in."""
    rules = tmp_path / "shop.rules"
    shutil.copy(MAGIC, rules)
    game = load_game(rules, players=3)
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    target = tmp_path / "g.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    return game, state, target


def edit(target: Path, **changes) -> dict:
    data = yaml.safe_load(target.read_text())
    for k, v in changes.items():
        if v is ...:
            data.pop(k, None)
        else:
            data[k] = v
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return data


def refused(target, *words):
    with pytest.raises(RecordError) as e:
        open_record(target)
    for w in words:
        assert w in str(e.value), str(e.value)
    return str(e.value)


@pytest.mark.parametrize("field, value, words", [
    ("players", True, ["'players'"]),
    ("players", 10 ** 9, ["'players'"]),
    ("seed", "12", ["'seed'"]),
    ("seed", 2 ** 1000, ["'seed'"]),
    ("actions", [1, 2], ["'actions'"]),
    ("actions", "bid with Eye 4", ["'actions'"]),
    ("variants", "x", ["'variants'"]),
    ("seats", "human", ["'seats'"]),
    ("rules", 7, ["'rules'"]),
    ("rules_absolute", ["a"], ["'rules_absolute'"]),
    ("reseeds", [[99, 1]], ["'reseeds'"]),
    ("reseeds", [["a", 1]], ["'reseeds'"]),
    ("rules_sha256", ..., ["'rules_sha256' is missing"]),
    ("rules_sha256", "abc", ["'rules_sha256'"]),
])
def test_every_field_is_type_checked(saved, field, value, words):
    _, _, target = saved
    edit(target, **{field: value})
    refused(target, "is damaged", *words)


def test_an_alias_bomb_is_refused_quickly(tmp_path):
    lines = ["format: rulesrun-record/1", 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    target = tmp_path / "bomb.yaml"
    target.write_text("\n".join(lines) + "\n")
    t0 = time.perf_counter()
    refused(target, "alias")
    assert time.perf_counter() - t0 < 2


def test_deep_nesting_is_refused_without_a_recursion_error(tmp_path):
    target = tmp_path / "deep.yaml"
    target.write_text("format: rulesrun-record/1\nactions: " + "[" * 50_000 + "]" * 50_000 + "\n")
    refused(target, "nested deeper")


def test_a_record_is_capped_in_size(tmp_path):
    target = tmp_path / "big.yaml"
    with open(target, "w") as f:
        f.write("format: rulesrun-record/1\nactions:\n")
        f.write("- play\n" * 2_000_000)
    refused(target, "too big")


def test_a_fifo_or_a_folder_is_not_read_as_a_record(tmp_path):
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.yaml"
        os.mkfifo(fifo)
        t0 = time.perf_counter()
        refused(fifo, "FIFO")
        assert time.perf_counter() - t0 < 2
    refused(tmp_path, "folder")


def test_a_record_cannot_point_at_a_file_that_is_not_a_rules_file(saved, tmp_path):
    _, _, target = saved
    secret = tmp_path / "secret.txt"
    secret.write_text("password = hunter2\n")
    edit(target, rules=str(secret), rules_absolute=str(secret))
    message = refused(target, "not a .rules file")
    assert "hunter2" not in message


def test_the_rules_file_is_found_beside_the_record_not_in_the_working_folder(saved, tmp_path, monkeypatch):
    game, state, target = saved
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.move(target, moved / "g.yaml")
    shutil.move(tmp_path / "shop.rules", moved / "shop.rules")
    assert yaml.safe_load((moved / "g.yaml").read_text())["rules"] == "shop.rules"   # saved relative
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shop.rules").write_text("not the game\n")       # a decoy where the cwd would look
    _, again, _ = open_record(moved / "g.yaml")
    assert again.history() == state.history()


def test_a_record_with_a_bom_loads(saved):
    _, state, target = saved
    target.write_bytes(b"\xef\xbb\xbf" + target.read_bytes())
    assert open_record(target)[1] == state


def test_a_record_whose_replay_breaks_the_rules_is_a_record_error(tmp_path):
    rules = tmp_path / "boom.rules"
    rules.write_text('game "Boom"\nplayers 2\ncards:\n    rank: number\n    for rank in 1 to 4\nzone deck: facedown\n'
                     'zone hand per player: owner\nflow:\n    (player 1) chooses n from [1, 9] as "n"\n'
                     '    deal n from deck to hand\n')
    game = load_game(rules, 2)
    state = game.new_initial_state(seed=1)
    target = tmp_path / "b.yaml"
    save_record(target, make_record(game, state, ["human", "human"], ["n 9"]))
    refused(target, "does not replay")


def test_a_bad_load_at_the_prompt_leaves_the_game_in_progress(saved, tmp_path):
    game, _, target = saved
    edit(target, actions=["not a move"])
    out = io.StringIO()
    fresh = game.new_initial_state(seed=8)
    lines = iter([f"load {target}", "1", "quit"])
    repl = Repl(game, fresh, ["human", "random", "random"], 8, out=out, readline=lambda: next(lines))
    repl.run()
    assert "the game goes on" in out.getvalue()
    assert len(repl.state.history()) == 1 and repl.game is game


def test_a_record_of_another_player_count_is_not_loaded_at_the_prompt(saved):
    game, _, target = saved                     # a 3-player game
    four = load_game(MAGIC, players=4)
    out = io.StringIO()
    lines = iter([f"load {target}", "quit"])
    repl = Repl(four, four.new_initial_state(seed=1), ["human"] + ["random"] * 3, 1, out=out,
                readline=lambda: next(lines))
    repl.run()
    assert "is a game for 3 players, and this one has 4" in out.getvalue()
    assert repl.game is four


# ── saving ──────────────────────────────────────────────────────────────────
def test_saving_refuses_to_overwrite_a_file_that_is_not_a_record(saved, tmp_path):
    game, state, _ = saved
    precious = tmp_path / "notes.txt"
    precious.write_text("my notes\n")
    with pytest.raises(RecordError, match="not a rulesrun saved game"):
        save_record(precious, make_record(game, state, ["human"] * 3))
    assert precious.read_text() == "my notes\n"


def test_saving_never_overwrites_the_rules_file(saved, tmp_path):
    game, state, _ = saved
    rules = tmp_path / "shop.rules"
    before = rules.read_bytes()
    with pytest.raises(RecordError, match="rules file"):
        save_record(rules, make_record(game, state, ["human"] * 3))
    link = tmp_path / "link.yaml"
    link.symlink_to(rules)
    with pytest.raises(RecordError):
        save_record(link, make_record(game, state, ["human"] * 3))
    assert rules.read_bytes() == before


def test_saving_over_an_older_record_is_fine(saved):
    game, state, target = saved
    state.apply_action(state.legal_actions()[0])
    save_record(target, make_record(game, state, ["human"] * 3))
    assert open_record(target)[1] == state


def test_saving_is_atomic(saved, monkeypatch):
    game, state, target = saved
    before = target.read_bytes()

    def broken(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(RecordError, match="No space left"):
        save_record(target, make_record(game, state, ["random"] * 3))
    assert target.read_bytes() == before
    assert [p.name for p in target.parent.iterdir() if p.name.startswith(".rulesrun-")] == []


def test_atomic_write_fsyncs_before_replacing(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    atomic_write(tmp_path / "x.yaml", "hello\n")
    assert calls[:2] == ["fsync", "replace"]
    assert (tmp_path / "x.yaml").read_text() == "hello\n"


def test_a_nul_in_a_save_name_is_a_message(saved):
    game, state, _ = saved
    with pytest.raises(RecordError, match="NUL"):
        save_record("a\x00b.yaml", make_record(game, state, ["human"] * 3))


def test_save_after_the_rules_file_moved_still_saves_and_loads_back(tmp_path, monkeypatch):
    rules = tmp_path / "shop.rules"
    shutil.copy(MAGIC, rules)
    game = load_game(rules, players=3)
    out = io.StringIO()
    lines = iter(["1", "save g.yaml", "quit"])
    repl = Repl(game, game.new_initial_state(seed=2), ["human", "random", "random"], 2, out=out,
                readline=lambda: next(lines))
    rules.rename(tmp_path / "moved.rules")
    monkeypatch.chdir(tmp_path)
    repl.run()
    assert "Saved to g.yaml" in out.getvalue(), out.getvalue()
    shutil.copy(tmp_path / "moved.rules", rules)          # put back where the record says
    assert open_record(tmp_path / "g.yaml")[1].history() == repl.state.history()


def test_read_record_accepts_what_make_record_writes(saved):
    _, _, target = saved
    data = read_record(target)
    assert data["reseeds"] == [] and data["players"] == 3
