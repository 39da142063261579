"""Analyses over the IR, which change nothing in it: information flow and the facts the runtime uses."""
