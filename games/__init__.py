"""The shipped games as package data: `rulesrun magi` finds games/magi.rules here (rulesrun.interpreter.records.games)."""
