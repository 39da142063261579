"""The rulebook keeps the brackets that give an expression its meaning: `(k - 1) / 5 + 1` must not
read "k − 1 ÷ 5 + 1" (which is k − 0.2 + 1), nor `a or (b and c)` read as `(a or b) and c`."""
from __future__ import annotations

from rulesrun.interpreter.authoring.rulebook import Rulebook
from rulesrun.interpreter.authoring.rulebook_render import to_markdown

RULES = '''game "Brackets"
players 2
cards:
    rank: number
    for rank in 1 to 4
zone deck: facedown
zone hand per player: public
state flag: yes/no = no
define f(k) = (k - 1) / 5 + 1
define g(k) = (k + 10) * 2
define h(k) = k - (k - 1)
define plain(k) = k * 2 + 1 - k
define pick(k) = (2 if flag else 3) if k > 1 else 4
define chain(k) = 2 if k > 3 else 3 if k > 2 else 4
define sum_with_choice(k) = k + (1 if flag else 0)
define mixed(k) = k == 1 or (flag and k == 2)
flow:
    deal 1 from deck to hand
    for p in players:
        let c = top(p.hand)
        announce "{f(c.rank)} {g(c.rank)} {h(c.rank)} {plain(c.rank)} {pick(c.rank)} {chain(c.rank)}"
        announce "{sum_with_choice(c.rank)} {mixed(c.rank)}"
'''


def test_rulebook_keeps_meaningful_brackets(tmp_path):
    path = tmp_path / "brackets.rules"
    path.write_text(RULES, encoding="utf-8")
    md = to_markdown(Rulebook(str(path)).blocks)
    assert "**f(k)** is (k − 1) ÷ 5 + 1." in md
    assert "**g(k)** is (k + 10) × 2." in md
    assert "**h(k)** is k − (k − 1)." in md
    assert "**plain(k)** is k × 2 + 1 − k." in md                     # no brackets where none are needed
    assert "**pick(k)** is (2 if the flag, else 3) if k is more than 1, else 4." in md
    assert "**chain(k)** is 2 if k is more than 3, else 3 if k is more than 2, else 4." in md
    assert "**sum with choice(k)** is k + (1 if the flag, else 0)." in md
    assert "**mixed(k)** is k is 1 or (the flag and k is 2)." in md
