"""rulesrun doc: a rulebook from the rules file (interpreter/authoring/rulebook.py, english.py, diagram.py).

The three shipped games' rulebooks are golden files in tests/golden/rulebook/: a change to the
rulebook shows up as a diff. To accept a change, regenerate them:

    RULESRUN_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/interpreter/authoring/test_rulebook.py
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rulesrun.dsl import parse_text
from rulesrun.interpreter.cli.main import main
from rulesrun.interpreter.authoring.diagram import to_dot, to_svg
from rulesrun.interpreter.authoring.english import Context, English, _third_person
from rulesrun.interpreter.authoring.rulebook import Rulebook, comments_by_line
from rulesrun.interpreter.authoring.rulebook_render import to_html, to_markdown

from tests.support import ROOT  # noqa: E402
GOLDEN = ROOT / "tests" / "golden" / "rulebook"
GAMES = ["magic_shop", "gachapon", "magi"]
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


@pytest.fixture(scope="module")
def books():
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return {g: Rulebook(f"games/{g}.rules") for g in GAMES}
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("game", GAMES)
def test_golden_rulebook(game, books):
    text = to_markdown(books[game].blocks)
    path = GOLDEN / f"{game}.md"
    if os.environ.get("RULESRUN_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with RULESRUN_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), \
        f"the rulebook of {game} changed; if that is right, run with RULESRUN_UPDATE_GOLDEN=1"


def test_flow_reads_as_plain_english(books):
    md = to_markdown(books["magic_shop"].blocks)
    assert "3. Each player in turn, starting with the lead:" in md
    assert "The player plays a card (c) from their hand, one where its suit is led if they can (otherwise any)." in md
    assert "*Follow the lead suit if you can.*" in md          # the comment above the line, carried in
    assert "1. Repeat rounds times:" in md and "[Play round](#proc-play-round)." in md
    assert "The winners are the players with the highest vp; players who tie share the win." in md


def test_components_counts_per_player_count(books):
    md = to_markdown(books["magic_shop"].blocks)
    assert "| suit | rank | 3 players | 4 players | 5 players |" in md
    assert "| Eye | 0–8 | 7 | 9 | 9 |" in md and "| **all** |  | 35 | 45 | 45 |" in md
    magi = to_markdown(books["magi"].blocks)
    assert "| Magician | Supreme Magician | grey | 25 | ORIGINAL | 0 | 1 |" in magi and "| 99 |" in magi


def test_zones_state_and_variants(books):
    md = to_markdown(books["magic_shop"].blocks)
    assert "| **hand** | each player | its owner sees its cards; the others see how many |  |" in md
    assert "| **bid** | number | 0 | only that player |" in md
    assert "hidden" not in re.findall(r"\| \*\*in hand\*\*.*", to_markdown(books["magi"].blocks)).__str__()
    magi = to_markdown(books["magi"].blocks)
    assert "### Catastrophe" in magi and "Chosen by name: `--variant catastrophe`." in magi
    gacha = to_markdown(books["gachapon"].blocks)
    assert "Played whenever the number of players is 2." in gacha


def test_players_and_variant_options(tmp_path, capsys):
    assert main(["doc", str(ROOT / "games/magic_shop.rules"), "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "A game for 3 players." in out and "| Eye | 1–7 | 7 |" in out
    assert main(["doc", str(ROOT / "games/magi.rules"), "--players", "4", "--variant", "catastrophe"]) == 0
    out = capsys.readouterr().out
    assert "Variants: catastrophe." in out and "DRAW]" in out
    assert main(["doc", str(ROOT / "games/magi.rules"), "--variant", "nosuch"]) == 1
    assert "nosuch" in capsys.readouterr().err
    assert main(["doc", str(tmp_path / "missing.rules")]) == 1
    assert "no such rules file" in capsys.readouterr().err


def test_comments_are_read_from_the_source():
    above, trailing = comments_by_line("# ── Zones ──\n# first\n# second\nzone d: public  # the pile\n\n# far\n\nx\n")
    assert above == {4: ["first second"]} and trailing == {4: "the pile"}


def test_english_renderer_is_generic():
    rules = parse_text("zone pile: public\nzone hand per player: owner\nflow:\n"
                       "    for p in players from player 2:\n"
                       "        p chooses c from p.hand where c.rank > 2 and not empty(pile) if able as \"lay\"\n")
    flow = rules.items[-1]
    en = English(Context(zones={"pile"}, families={"hand"}))
    step, = en.steps(flow.body)
    assert step.text == ("Each player in turn, starting with Player 2, lays a card (c) from their hand, "
                         "one where its rank is more than 2 and the pile is not empty if they can (otherwise any).")
    rules = parse_text("zone hand per player: owner\nflow:\n    for p in players:\n        reveal p.hand\n"
                       "        announce to p \"You hold {size(p.hand)}.\"\n")
    inner = en.steps(rules.items[-1].body)[0].sub
    assert [s.text for s in inner] == ["Show everyone their hand.",
                                       "Tell the player (and nobody else) “You hold ‹the number of cards in their hand›.”"]
    assert _third_person("play") == "plays" and _third_person("pass") == "passes" and \
        _third_person("bid with") == "bids with" and _third_person("main phase:") is None


def test_html_is_a_standalone_page(books):
    page = to_html(books["magi"].blocks)
    assert page.startswith("<!DOCTYPE html>") and "<title>Magi — rulebook</title>" in page
    assert '<h2 id="components">Components</h2>' in page and "<table>" in page and "<ol>" in page
    assert page.count("<ol>") == page.count("</ol>") and page.count("<li>") == page.count("</li>")


def test_cli_writes_html_with_the_diagram(tmp_path):
    out = tmp_path / "magic_shop.html"
    assert main(["doc", str(ROOT / "games/magic_shop.rules"), "--diagram", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    dot = (tmp_path / "magic_shop.dot").read_text(encoding="utf-8")
    assert dot.startswith("digraph flow {") and "cluster_play_trick" in dot
    if shutil.which("dot"):
        assert "<svg" in page and (tmp_path / "magic_shop.svg").exists()
    else:
        assert "<pre>digraph flow" in page


def test_diagram_has_procedures_decisions_loops_and_calls():
    rules = parse_text(Path(ROOT / "games/magic_shop.rules").read_text(encoding="utf-8"))
    dot = to_dot(list(rules.items))
    procs = re.findall(r"^procedure (\w+)", rules.source, re.M)
    assert all(f'"cluster_{p}"' in dot for p in procs) and '"cluster_flow"' in dot
    choices = sum(" chooses " in line.split("#")[0] for line in rules.source.split("\n"))
    assert dot.count("shape=diamond") == choices
    assert 'label="repeat rounds times", shape=hexagon' in dot and 'label="again"' in dot
    calls = re.findall(r"^\s+(\w+)\(.*\)\s*$", rules.source, re.M)
    assert dot.count("style=dotted") == sum(c in procs for c in calls) == 6


def test_diagram_svg_with_graphviz():
    if not shutil.which("dot"):
        pytest.skip("Graphviz 'dot' is not installed (Debian: apt-get install graphviz)")
    svg = to_svg(to_dot(list(parse_text(Path(ROOT / "games/magi.rules").read_text(encoding="utf-8")).items)))
    assert svg is not None and "<svg" in svg and "Play hand" in svg


@pytest.mark.slow
def test_html_renders_in_headless_chromium(tmp_path):
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    page = tmp_path / "magi.html"
    assert main(["doc", str(ROOT / "games/magi.rules"), "--diagram", "-o", str(page)]) == 0
    shot = tmp_path / "magi.png"
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    subprocess.run(args + [f"--screenshot={shot}", "--window-size=1000,1400", page.as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 20_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = subprocess.run(args + ["--dump-dom", page.as_uri()], capture_output=True, timeout=120, text=True).stdout
    assert '<h1 id="top">Magi</h1>' in dom and "Play hand" in dom and "</table>" in dom


def test_repl_rules_command_shows_the_rulebook():
    import io

    from rulesrun.interpreter import load_game
    from rulesrun.interpreter.terminal.repl import HELP, Repl
    from tests.support import feed
    game = load_game(ROOT / "games/magic_shop.rules", players=4)
    out = io.StringIO()
    Repl(game, game.new_initial_state(seed=3), ["human", "random", "random", "random"], 3,
         out=out, readline=feed(["rules", "quit"])).run()
    text = out.getvalue()
    assert "The Magic Shop" in text and "A game for 4 players." in text
    assert any("Eye" in line and "0–8" in line and "9" in line for line in text.splitlines())   # a rendered table row
    assert "Each player in turn, starting with the lead:" in text
    assert "rules " in HELP


def test_combinations_read_as_english():
    """beats(...) and the shape built-ins (same, run, groups, leading) are words, not code."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        big_two = to_markdown(Rulebook("examples/big_two.rules").blocks)
        president = to_markdown(Rulebook("examples/president.rules", variants=("bombs",)).blocks)
    finally:
        os.chdir(cwd)
    rules = [line for line in big_two.splitlines() if not line.startswith(">")]     # not the file's comments
    assert not [line for line in rules if re.search(r"\b(beats|same|run|groups|leading)\(", line)]
    assert "it beats the table (as many cards and a higher strength)" in big_two
    assert "c’s rank for each c in s is the same" in big_two
    assert "c’s rank for each c in s form a run" in big_two
    assert "the sizes of the groups of equal c’s rank for each c in s (largest first) is [3, 2]" in big_two
    assert "the leading c’s rank for each c in s" in big_two
    assert "s beats the table (as many cards and a higher rank of; a bomb beats anything that is not a bomb" in president


@pytest.mark.parametrize("name", ["magi", "magic_shop", "gachapon"])
def test_the_rulebook_at_the_table_cites_no_file_a_player_lacks(name):
    from rulesrun.interpreter import load_game
    from rulesrun.interpreter.authoring.rulebook import rulebook_text
    text = rulebook_text(load_game(ROOT / "games" / f"{name}.rules"))
    text = text.split("This rulebook was written by")[0]      # the footer names the rules file itself
    assert not re.search(r"\b(?:shared|docs|games)/[\w./-]+", text), re.search(r"\b(?:shared|docs|games)/[\w./-]+", text)
    assert text.split("\n## ")[0].count("\n") >= 3          # the opening still says what the game is


def test_simultaneous_choices_read_as_at_once_then_each_in_turn():
    md = to_markdown(Rulebook(str(ROOT / "examples/goofspiel.rules")).blocks)
    at = md.index("Every player chooses at once, without seeing anyone else's choice:")
    then = md.index("Once everyone has chosen, for each of them in turn:")
    assert at < md.index("The player bids a card (c) from their hand.") < then < md.index("Move c to their bid.")
    dot = to_dot(list(parse_text((ROOT / "examples/goofspiel.rules").read_text(encoding="utf-8")).items))
    assert "every player at once" in dot and "then, for each player" in dot
