"""Syntax: the grammar's loading, the parser, syntax errors, the AST and the canonical format."""
