"""The example games and scripts as package data: `rulesrun hearts` finds examples/hearts.rules here."""
