"""Records travel: a saved game names its rules file relative to itself (with the file's hash), never
by an absolute path, so a shared record tells nothing of the saver's folders and still loads when
the record and its rules move together; an older record that names `rules_absolute` still loads; a
record of a shipped game loads where rulesrun is installed elsewhere."""
from __future__ import annotations

import shutil

import pytest
import yaml

from rulesrun.interpreter import load_game
from rulesrun.interpreter.records.record import (RecordError, make_record, open_record, read_record, rules_hash,
                                                save_record)

from tests.support import ROOT

MAGIC = ROOT / "games" / "magic_shop.rules"


def a_game_saved(tmp_path):
    """The Magic Shop in tmp/mine/shop.rules, loaded by its absolute path, three decisions in, saved
    to tmp/mine/saves/g.yaml."""
    folder = tmp_path / "mine"
    (folder / "saves").mkdir(parents=True)
    rules = folder / "shop.rules"
    shutil.copy(MAGIC, rules)
    game = load_game(rules.resolve(), players=3)
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    target = folder / "saves" / "g.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    return state, rules, target


def test_a_saved_record_names_no_absolute_path(tmp_path):
    _, rules, target = a_game_saved(tmp_path)
    text = target.read_text()
    assert str(tmp_path) not in text and "rules_absolute" not in text, text
    data = yaml.safe_load(text)
    assert data["rules"] == "../shop.rules" and data["rules_sha256"] == rules_hash(rules)


def test_a_record_moved_with_its_rules_still_loads(tmp_path):
    state, _, _ = a_game_saved(tmp_path)
    shutil.move(tmp_path / "mine", tmp_path / "theirs")
    _, loaded, _ = open_record(tmp_path / "theirs" / "saves" / "g.yaml")
    assert loaded == state


def test_an_old_record_with_an_absolute_path_still_loads(tmp_path):
    state, rules, target = a_game_saved(tmp_path)
    data = yaml.safe_load(target.read_text())
    data["rules"] = "gone/shop.rules"                       # the relative path no longer leads there
    data["rules_absolute"] = str(rules.resolve())
    old = tmp_path / "old.yaml"
    old.write_text(yaml.safe_dump(data, sort_keys=False))
    _, loaded, _ = open_record(old)
    assert loaded == state
    # saved again, it drops the absolute path
    again = tmp_path / "again.yaml"
    save_record(again, read_record(old), rules_path=rules)
    assert "rules_absolute" not in again.read_text() and str(tmp_path) not in again.read_text()
    assert open_record(again)[1] == state


def test_a_shipped_games_record_loads_where_rulesrun_is_installed_elsewhere(tmp_path):
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=5)
    state.apply_action(state.legal_actions()[0])
    target = tmp_path / "shop.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    data = yaml.safe_load(target.read_text())
    data["rules"] = "../../their/site-packages/rulesrun/games/magic_shop.rules"   # the saver's layout
    data.pop("rules_absolute", None)
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    _, loaded, _ = open_record(target)
    assert loaded == state


# ── a variant file's game: the record names both files, and resumes only with both unchanged ────
def a_variant_game_saved(tmp_path):
    """tmp/shop.rules (The Magic Shop) and tmp/house.rules extending it; three decisions saved."""
    shutil.copy(MAGIC, tmp_path / "shop.rules")
    house = tmp_path / "house.rules"
    house.write_text('extends "shop.rules"\ngame "The Magic Shop, at home"\n')
    game = load_game(house, players=3)
    state = game.new_initial_state(seed=3)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    target = tmp_path / "g.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    return state, house, target


def test_a_variant_files_record_names_its_base_and_the_bases_hash(tmp_path):
    state, house, target = a_variant_game_saved(tmp_path)
    data = yaml.safe_load(target.read_text())
    assert data["rules"] == "house.rules" and data["rules_sha256"] == rules_hash(house)
    assert data["bases"] == [{"file": "shop.rules", "sha256": rules_hash(tmp_path / "shop.rules")}]
    assert open_record(target)[1] == state


def test_a_variant_files_record_is_refused_when_its_base_changed(tmp_path):
    _, _, target = a_variant_game_saved(tmp_path)
    base = tmp_path / "shop.rules"
    base.write_text(base.read_text().replace("# ", "#  ", 1))        # a comment: the text differs
    with pytest.raises(RecordError, match="its base game shop.rules has changed since this game was saved"):
        open_record(target)


def test_a_variant_files_record_is_refused_when_the_variant_file_changed(tmp_path):
    _, house, target = a_variant_game_saved(tmp_path)
    house.write_text(house.read_text() + "# a note\n")
    with pytest.raises(RecordError, match="has changed since this game was saved"):
        open_record(target)
