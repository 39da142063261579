"""The terminal table: the REPL, the table it draws, options, hot-seat play, safe text."""
