"""The bots: memory and determinisation, random, greedy and ismcts players, seat specs."""
