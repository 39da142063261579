"""check's property that a bot sees only what its seat sees: the bot of the seat
to move must choose the same on the state and on a twin that differs only in what that seat
cannot see."""
from __future__ import annotations

import io
import textwrap

from rulesrun.interpreter.bots import agents
from rulesrun.interpreter.checking import run_check
from tests.interpreter.bots.test_bots_never_peek import HIDDEN_NUMBER


def check(path, **kw):
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(path), out=out, err=err, games=12, **kw)
    return code, out.getvalue() + err.getvalue()


def test_honest_bots_pass_and_a_bot_that_reads_hidden_values_is_caught(tmp_path, monkeypatch):
    path = tmp_path / "guess.rules"
    # (shuffled, so that the twin leak test has other deals to compare: it fails when it compares nothing)
    path.write_text(textwrap.dedent(HIDDEN_NUMBER.replace("flow:\n", "flow:\n    shuffle deck\n")))
    code, out = check(path)
    assert code == 0, out
    assert "a bot's choice does not depend on which consistent twin" in out
    # a bot that keeps the real hidden values (the old determinisation) chooses by them
    real = agents.resample

    def peeking(state, seat, rng, known=frozenset(), relabel_log=True, redraw=False):
        return real(state, seat, rng, known, relabel_log=relabel_log, redraw=False)
    monkeypatch.setattr(agents, "resample", peeking)
    code, out = check(path)
    assert code == 1, out
    assert "FAILED: a bot's choice does not depend on which consistent twin" in out
