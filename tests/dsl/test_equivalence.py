"""The compiler's output plays exactly as the compiler before the pipeline of passes did
(tests/equivalence.py): the same legal actions, observations, log, history and returns at every
step of seeded random games of every shipped game and example."""
import json

import pytest

from tests import equivalence as eq

EXPECTED = json.loads(eq.DATA.read_text())


@pytest.mark.parametrize("config", list(eq.configs()), ids=lambda c: eq.key(*c))
@pytest.mark.slow
def test_plays_exactly_as_the_recorded_digests(config):
    assert eq.digest(*config) == EXPECTED[eq.key(*config)]
