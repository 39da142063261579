"""Emit: the only writer of Python, with the generated code's run-time helpers, the run-time
combination search and the passes over the Python AST."""
