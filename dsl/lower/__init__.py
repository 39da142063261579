"""Lowering: the IR and the statements and procedures lowered into it, with explicit stops."""
