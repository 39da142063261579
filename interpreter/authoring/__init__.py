"""Tools for writing rules: the rulebook, English, the flow diagram, fmt, highlighting, the language server."""
