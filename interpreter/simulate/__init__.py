"""``rulesrun simulate``: many games between bots, in one process, a pool or Ray, and their summary."""
