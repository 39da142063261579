"""Checking: declarations, scopes, expressions and their types, builtins, combinations, decisions,
teams and parameters, into typed IR."""
