"""``dsl.program._shuffle`` is ``random.shuffle`` written out (no call per card): for every seed and
length it must give the same order, or seeded games would change. At import the program checks it
against this Python's ``random.shuffle`` and falls back to it if they ever differ."""
from __future__ import annotations

import random

from rulesrun.dsl import program


def test_the_written_out_shuffle_orders_as_random_shuffle_for_every_length_and_seed():
    for n in range(0, 130):
        for seed in (0, 1, 7, 2**40 + 3, 123456789):
            a, b = list(range(n)), list(range(n))
            ra, rb = random.Random(seed), random.Random(seed)
            ra.shuffle(a)
            program._shuffle(rb, b)
            assert a == b, (n, seed)
            assert ra.getrandbits(62) == rb.getrandbits(62)     # the generator moved on alike


def test_this_python_uses_the_written_out_shuffle():
    assert program._same_as_shuffle()
    assert program._SHUFFLE is program._shuffle
    assert program._Random is not random.Random         # the C generator, made directly


def test_the_c_generator_made_directly_draws_as_random_random():
    import _random
    for n in (0, 1, 52, 300):
        for seed in (5, -5, 2**61 + 9):
            a, b = list(range(n)), list(range(n))
            ra, rb = random.Random(seed), _random.Random(seed)
            ra.shuffle(a)
            program._shuffle(rb, b)
            assert a == b and ra.getrandbits(62) == rb.getrandbits(62), (n, seed)


def test_a_shuffles_steps_are_worked_out_once_per_length_as_random_shuffle_takes_them():
    program._STEPS.pop(5, None)
    steps = program._steps(5)
    assert steps == ((4, 5, 3), (3, 4, 3), (2, 3, 2), (1, 2, 2))   # place, bound, bits of the draw
    assert program._STEPS[5] is steps
    x = list(range(5))
    program._shuffle(random.Random(3), x)
    assert program._STEPS[5] is steps                # read again, not made again
    assert program._steps(1) == () and program._steps(0) == ()
