"""Passes over the IR (``dsl.ir``): each a function from IR to IR, testable on its own.

- ``nonnull``   checks for none dropped where the local can never be none (a seat of the players, a
                card chosen from a zone)
- ``inline``    a small ``define`` written out where it is called, its parameters replaced
- ``fastpaths`` shapes that run in C: an attribute compared with a value, a list of one attribute
- ``unroll``    any / all over a few constants (the players) written out; an empty zone as ``not Z``
- ``loops``     comprehensions a statement always evaluates written as loops before it
- ``invariants`` what a list comprehension's condition works out alike for every item, worked
                out once before it (behind ``and`` / ``or`` too, in a form that cannot fail)
- ``resume``    a resumable procedure cut into one entry per place it can start from, with the
                frame locals each stop must keep (liveness)
- ``asks``      (for ``dsl.lower.statements``) whether every round of a loop reaches a decision: it spends no budget

``dsl.compiler`` runs them in that order; ``dsl.emit.writer`` writes what comes out as Python. Then, on
the Python functions about to be compiled:

- ``cse``       (a define's only) a costly subexpression said again where the first is always
                worked out before it read from a local (``(_e1 := ...)``)
- ``peephole``  ``list(x)`` written ``[*x]`` (the same list; CPython 3.11 runs it faster)
- ``closures``  comprehensions and lambdas take the locals they read as values of their own, so
                the function keeps no cells
"""


def plain(stmts: list) -> list:
    """The passes for a plain function's statements."""
    from rulesrun.dsl.passes import fastpaths, invariants, loops, nonnull, unroll
    return invariants.lower(loops.lower(unroll.run(nonnull.run([fastpaths.run(s) for s in stmts]))))


def resumable(body: list, labels: int, nslots: int) -> list:
    """The passes for a resumable procedure: the statements of each of its entries."""
    from rulesrun.dsl.passes import fastpaths, invariants, loops, nonnull, resume, unroll
    body = nonnull.run([fastpaths.run(s) for s in body])
    resume.liveness(body)
    return [invariants.lower(loops.lower(unroll.run(stmts))) for stmts in resume.entries(body, labels, nslots)], body
