"""Records and files: saved games, reading rules files, finding the shipped games."""
