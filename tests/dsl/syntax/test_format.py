"""rulesrun fmt: canonical, idempotent, comment-keeping, meaning-preserving (dsl/syntax/format.py)."""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rulesrun.dsl import RulesError, parse_text
from rulesrun.dsl.syntax.format import TOKEN, format_text, strip_positions
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT  # noqa: E402
FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "examples").glob("*.rules"))
TEXTS = {p.name: p.read_text(encoding="utf-8") for p in FILES}
WORDY = ("name", "int", "booltype")


def _ast(text):
    return strip_positions(parse_text(text).items)


def _code_comment(line):
    """The comment of a line, found by the lexer (a '#' inside a string is not one)."""
    for m in TOKEN.finditer(line):
        if m.lastgroup == "comment":
            return m.group().rstrip()
    return None


def _all_comments(text):
    return [c for c in (_code_comment(line) for line in text.split("\n")) if c]


def mutate(text: str, rnd: random.Random, keep_comments: bool = True, blanks: bool = True) -> str:
    """The same program laid out differently: another indent width (or tabs), random spaces between
    tokens and around brackets, extra blank lines, CRLF line ends."""
    unit = rnd.choice(["  ", "   ", "    ", "        ", "\t"])
    out, stack, depth = [], [0], 0
    for line in text.split("\n"):
        toks = [(m.lastgroup, m.group()) for m in TOKEN.finditer(line) if m.lastgroup != "ws"]
        if not keep_comments:
            toks = [t for t in toks if t[0] != "comment"]
        if not toks:
            out.append(" " * rnd.randint(0, 3) if rnd.random() < 0.5 else "")
            continue
        width = len(line) - len(line.lstrip(" "))
        if depth == 0 and toks[0][0] != "comment":
            while width < stack[-1]:
                stack.pop()
            if width > stack[-1]:
                stack.append(width)
            indent = unit * (len(stack) - 1)
        elif depth == 0:
            indent = unit * (len(stack) - 1)
        else:
            indent = " " * rnd.randint(0, 12)
        parts, prev = [], None
        for kind, tok in toks:
            if prev is not None:
                need = prev[0] in WORDY and kind in WORDY
                parts.append(" " * (rnd.randint(1, 3) if need or rnd.random() < 0.5 else 0))
            parts.append(tok)
            prev = (kind, tok)
            if kind == "op" and tok in "([{":
                depth += 1
            elif kind == "op" and tok in ")]}":
                depth -= 1
        out.append(indent + "".join(parts) + (" " * rnd.randint(0, 2)))
        if blanks and rnd.random() < 0.1:
            out.append("")
    sep = "\r\n" if rnd.random() < 0.3 else "\n"
    return sep.join(out)


@pytest.mark.parametrize("name", TEXTS)
def test_shipped_files_are_formatted(name):
    assert format_text(TEXTS[name], name) == TEXTS[name]


@pytest.mark.parametrize("name", TEXTS)
@settings(max_examples=3, deadline=None, derandomize=True, phases=[Phase.generate], suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_mutated_files_format_back(name, seed):
    """A shipped file re-laid out at random formats to one fixed point with the same AST; without its
    comments, the fixed point is exactly the shipped file without its comments."""
    rnd = random.Random(seed)
    original = TEXTS[name]
    mutated = mutate(original, rnd)
    assert _ast(mutated) == _ast(original)
    once = format_text(mutated, name)
    assert format_text(once, name) == once
    assert _ast(once) == _ast(original)
    assert _all_comments(once) == _all_comments(original)
    bare = format_text(mutate(original, random.Random(seed), keep_comments=False, blanks=False), name)
    assert bare == format_text(mutate(original, random.Random(-1), keep_comments=False, blanks=False), name)


_GENERATED = """\
game "G{n}"
players {lo} to {hi}
kind Suit: {suits}
cards:
    suit: Suit
    rank: number
    shown as "{{suit}} {{rank}}"
    for suit in Suit, rank in 1 to {ranks}
zone deck: facedown
zone hand per player: owner
zone pile: public   # played cards
player state points: number = 0
const hand_size = {hand}
define value(c) = c.rank * {mult} - {minus}
flow:
    move every card to deck
    shuffle deck
    deal hand_size from deck to hand
    repeat hand_size times:
        for p in players:
            # choose
            p chooses c from p.hand where c.suit == {suit0} if able as "play"
            move c to pile
            {stmt}
score(p) = p.points
winners p by highest p.points
"""
_STMTS = ["p.points += value(c)", "p.points -= 1 if c.rank > 2 else -1",
          "if value(c) > {mult}:\n                p.points += 1\n            else:\n                pass",
          "announce \"{{p}} plays {{c}}\""]


@settings(max_examples=15, deadline=None, derandomize=True, phases=[Phase.generate])
@given(lo=st.integers(2, 3), extra=st.integers(0, 2), nsuits=st.integers(1, 4), ranks=st.integers(4, 9),
       mult=st.integers(1, 5), minus=st.integers(0, 3), stmt=st.sampled_from(_STMTS), seed=st.integers(0, 999))
def test_generated_games_format_and_play_the_same(lo, extra, nsuits, ranks, mult, minus, stmt, seed):
    suits = ["Aa", "Bb", "Cc", "Dd"][:nsuits]
    hand = max(1, nsuits * ranks // (lo + extra) // 2)
    text = _GENERATED.format(n=seed, lo=lo, hi=lo + extra, suits=", ".join(suits), ranks=ranks, hand=hand,
                             mult=mult, minus=minus, suit0=suits[-1], stmt=stmt.format(mult=mult))
    mutated = mutate(text, random.Random(seed), blanks=False)
    once = format_text(mutated)
    assert format_text(once) == once
    assert _ast(once) == _ast(text)
    # the same layout as the template's, but for the column of a trailing comment (kept where it stood)
    assert re.sub(r" *#.*", "", once) == re.sub(r" *#.*", "", format_text(text))
    _same_games(text, once, lo, seed)


def _same_games(a: str, b: str, players: int, seed: int, games: int = 2):
    ga, gb = load_game_text(a, players), load_game_text(b, players)
    for g in range(games):
        rnd_a, rnd_b = random.Random(seed + g), random.Random(seed + g)
        sa, sb = ga.new_initial_state(seed=seed + g), gb.new_initial_state(seed=seed + g)
        while not sa.is_terminal():
            sa.apply_action(rnd_a.choice(sa.legal_actions()))
            assert not sb.is_terminal()
            sb.apply_action(rnd_b.choice(sb.legal_actions()))
        assert sb.is_terminal()
        assert sa.history() == sb.history() and sa.returns() == sb.returns() and sa.log() == sb.log()


@pytest.mark.parametrize("name", ["magic_shop.rules", "gachapon.rules", "hearts.rules"])
def test_a_formatted_mutation_plays_the_same_seeded_games(name):
    original = TEXTS[name]
    once = format_text(mutate(original, random.Random(5)), name)
    low = int(re.search(r"^players (\d+)", original, re.M).group(1))
    _same_games(original, once, low, 11, games=1)


def test_layout_rules():
    messy = ("game   'T'\nplayers 2\nzone d:facedown\nzone h per player:owner\nstate x : number=0 # x\n"
             "flow :\n  move every card to d\n  shuffle d\n  if x==0 and(x>-1) :\n\t\tx+=- 1\n"
             "\n\n\n  # the end\n  x = max( x ,1)   -  2\nscore (p) = x\nwinners p by highest x\n")
    assert format_text(messy) == (
        "game 'T'\nplayers 2\nzone d: facedown\nzone h per player: owner\nstate x: number = 0  # x\n"
        "flow:\n    move every card to d\n    shuffle d\n    if x == 0 and (x > -1):\n        x += -1\n"
        "\n    # the end\n    x = max(x, 1) - 2\nscore(p) = x\nwinners p by highest x\n")


def test_a_minus_after_an_attribute_named_like_a_keyword_is_binary():
    assert format_text("define d(p) = left(p).score -p.score\n") == "define d(p) = left(p).score - p.score\n"
    assert format_text("define d(p) = p.team -1\n") == "define d(p) = p.team - 1\n"


def test_comments_take_the_indentation_of_their_block():
    text = ("flow:\n    if yes:\n        pass\n          # end of the if\n  # before y\n    pass\n"
            "# top\nplayers 2\n")
    out = format_text(text)
    assert out == ("flow:\n    if yes:\n        pass\n        # end of the if\n    # before y\n    pass\n"
                   "# top\nplayers 2\n")


def test_tables_are_aligned():
    text = ("const t = [\n    [a, bbbb, c],   # one\n    [dddd, e, f],\n  [g, h, iii]]\n")
    assert format_text(text) == ("const t = [\n    [a,    bbbb, c],  # one\n    [dddd, e,    f],\n"
                                 "    [g,    h,    iii]]\n")


def test_a_file_that_does_not_parse_is_refused():
    with pytest.raises(RulesError):
        format_text("flow:\nmove x to y\n")


def test_cli_fmt_check_and_write(tmp_path, capsys):
    good = tmp_path / "good.rules"
    good.write_text(TEXTS["magic_shop.rules"], encoding="utf-8")
    bad = tmp_path / "bad.rules"
    bad.write_text(TEXTS["whist.rules"].replace("zone deck: facedown", "zone   deck :facedown"), encoding="utf-8")
    assert main(["fmt", "--check", str(good), str(bad)]) == 1
    err = capsys.readouterr()
    assert "bad.rules" in err.out + err.err and "good.rules" not in err.out + err.err
    assert main(["fmt", str(bad)]) == 0
    assert bad.read_text(encoding="utf-8") == TEXTS["whist.rules"]
    assert main(["fmt", "--check", str(good), str(bad)]) == 0
    broken = tmp_path / "broken.rules"
    broken.write_text("flow:\nmove x\n", encoding="utf-8")
    assert main(["fmt", str(broken)]) == 1
    assert "broken.rules:2" in capsys.readouterr().err
    assert main(["fmt", str(tmp_path / "missing.rules")]) == 1


def test_shipped_files_pass_fmt_check(capsys):
    """What CI runs: every shipped and example file is fmt-clean."""
    assert main(["fmt", "--check", *map(str, FILES)]) == 0


def test_the_display_options_keep_their_layout_and_top_stays_a_call():
    messy = ("zone d: public ,showing top  3,shown as 'the pile'\nzone h per player: owner,not shown\n"
             "player state bid: number = 0,owner, shown in  score\nvariant v   described as 'short' :\n"
             "    const k = top( d ).rank\nflow:\n    player 1 chooses c from [1,2] as 'pick' showing '{c}'\n")
    assert format_text(messy) == (
        "zone d: public, showing top 3, shown as 'the pile'\nzone h per player: owner, not shown\n"
        "player state bid: number = 0, owner, shown in score\nvariant v described as 'short':\n"
        "    const k = top(d).rank\nflow:\n    player 1 chooses c from [1, 2] as 'pick' showing '{c}'\n")


def test_an_index_sits_on_its_value_and_a_list_after_a_keyword_keeps_its_space():
    from rulesrun.dsl.syntax.format import format_text
    text = ('game "F"\nplayers 2\ncards:\n    n: number\n    {n: 1}\nzone deck: public\nflow:\n'
            '    let xs = [1,2]\n    let y = xs [ -1 ] + [3] [1]\n    for k in [1, 2]:\n        pass\n')
    out = format_text(text, "f.rules")
    assert "    let y = xs[-1] + [3][1]\n" in out and "    for k in [1, 2]:\n" in out
