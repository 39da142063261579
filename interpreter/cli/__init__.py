"""The command line: argv turned into calls of the other packages. Nothing imports it."""
