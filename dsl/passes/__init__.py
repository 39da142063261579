"""Passes over the IR (``dsl.ir``): each a function from IR to IR, testable on its own.

- ``inline``    a small ``define`` written out where it is called, its parameters replaced
- ``fastpaths`` shapes that run in C: an attribute compared with a value, a list of one attribute
- ``loops``     comprehensions a statement always evaluates written as loops before it
- ``resume``    a resumable procedure cut into one entry per place it can start from, with the
                frame locals each stop must keep (liveness)

``dsl.compiler`` runs them in that order; ``dsl.emit`` writes what comes out as Python.
"""


def plain(stmts: list) -> list:
    """The passes for a plain function's statements."""
    from . import fastpaths, loops
    return loops.lower([fastpaths.run(s) for s in stmts])


def resumable(body: list, labels: int, nslots: int) -> list:
    """The passes for a resumable procedure: the statements of each of its entries."""
    from . import fastpaths, loops, resume
    body = [fastpaths.run(s) for s in body]
    resume.liveness(body)
    return [loops.lower(stmts) for stmts in resume.entries(body, labels, nslots)], body
