"""Game parameters: ``param target: number = 500 from 100 to 1000`` declares a setting of the game.

A parameter is an input of the compilation, as the player count and the variants are: each setting
compiles its own program, and in that program the parameter reads like a ``const`` (so it may size
the cards, a ``deal``, a loop). Values come from ``compile_rules(..., params={name: value})`` — a
value is given as text (``"300"``, ``"yes"``, a kind value's name), as the command line's
``--param NAME=VALUE`` and a saved record give it, or as the Python value itself (300, True).
``program.params`` holds the values in force, ``program.param_info`` each declaration.
"""
from __future__ import annotations

import re
from typing import Any

import attrs

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.errors import RulesError, did_you_mean


@attrs.define
class ParamInfo:
    name: str
    type: str                 # number | bool | enum:<Kind>
    default: Any
    low: int | None = None    # bounds of a number parameter, both or neither
    high: int | None = None
    choices: tuple = ()       # a kind parameter's values

    def text(self, value) -> str:
        """A value as it is written after ``--param NAME=`` (and shown in the opening line)."""
        if self.type == T.BOOL:
            return "yes" if value else "no"
        return str(value)

    def describe(self) -> str:
        """What values it takes: 'a number from 100 to 1000', 'yes or no', 'one of a, b'."""
        if self.type == T.BOOL:
            return "yes or no"
        if self.type == T.NUMBER:
            return "a whole number" + ("" if self.low is None else f" from {self.low} to {self.high}")
        return "one of " + ", ".join(self.choices)

    def parse(self, given) -> Any:
        """The value of ``given`` (text, or the value itself), checked; a RulesError says what is wrong."""
        shown = repr(given) if len(repr(given)) <= 40 else repr(given)[:40] + "…"
        bad = RulesError(f"parameter '{self.name}' takes {self.describe()}, not {shown}", None,
                         f"its default is {self.text(self.default)}")
        if self.type == T.NUMBER:
            if isinstance(given, str) and re.fullmatch(r"\s*[-+]?[0-9]{1,30}\s*", given):
                value = int(given)
            elif isinstance(given, int) and not isinstance(given, bool):
                value = given
            else:
                raise bad
            if self.low is not None and not self.low <= value <= self.high:
                raise bad
            return value
        if self.type == T.BOOL:
            if isinstance(given, bool):
                return given
            words = {"yes": True, "no": False, "true": True, "false": False}
            if isinstance(given, str) and given.strip().lower() in words:
                return words[given.strip().lower()]
            raise bad
        if isinstance(given, str) and given.strip() in self.choices:
            return given.strip()
        if isinstance(given, str):
            bad.hint = did_you_mean(given.strip(), self.choices) or bad.hint
        raise bad


def param_texts(params: dict, info: list) -> str:
    """'target=300, vulnerable=yes': the values in force, in the order they are declared."""
    return ", ".join(f"{i.name}={i.text(params[i.name])}" for i in info if i.name in params)


class Parameters:
    """Mixed into the compiler (``dsl.compiler``): the ``param`` declarations, with the values given."""

    def _param(self, d: A.ParamDecl):
        self._check_free(d.name, d.pos)
        t = self._type(d.type)
        if t not in (T.NUMBER, T.BOOL) and not T.is_enum(t):
            self.err(f"a parameter is a number, yes/no or a kind, not a {T.describe(t)}", d.type.pos,
                     "for example 'param target: number = 500 from 100 to 1000'")
        default, dt = self._value(d.default)
        if default is None:
            self.err(f"parameter '{d.name}' needs a value as its default", d.default.pos)
        self._expect(dt, t, d.default.pos, f"the default of parameter '{d.name}'")
        info = ParamInfo(d.name, t, default, choices=tuple(self.kinds[t[5:]]) if T.is_enum(t) else ())
        if d.low is not None:
            if t != T.NUMBER:
                self.err(f"only a number parameter has bounds, and '{d.name}' is a {T.describe(t)}", d.low.pos)
            info.low, info.high = self._bound_numbers(d.low, d.high, "a parameter's bound must be a number")
            if info.low > info.high:
                self.err(f"the bounds of parameter '{d.name}' are the wrong way round: "
                         f"{info.low} is more than {info.high}", d.low.pos)
            if not info.low <= default <= info.high:
                self.err(f"the default of parameter '{d.name}', {default}, is not from {info.low} to {info.high}",
                         d.default.pos)
        value = default
        if d.name in self.param_values:
            value = info.parse(self.param_values[d.name])
        self.param_info.append(info)
        self.consts[d.name] = (value, t)

    def _when_value(self, e: A.Expr):
        """A variant's 'when', worked out before the parameters are: reading one is told why it cannot."""
        try:
            return self._value(e)
        except RulesError as err:
            m = re.fullmatch(r"unknown name '(\w+)'", err.message)
            if m and any(isinstance(i, A.ParamDecl) and i.name == m.group(1) for i in self.rules.items):
                err.message = (f"a variant's 'when' cannot read the parameter '{m.group(1)}': the variants are "
                               f"chosen before the parameters are set")
                err.hint = "test the parameter with 'if' where the rules differ, or choose the variant by name"
            raise

    def _params_in_force(self) -> dict:
        """After the declarations: every value given names a parameter; the values in force."""
        declared = [i.name for i in self.param_info]
        for name in self.param_values:
            if name not in declared:
                known = ", ".join(declared) or "none"
                close = did_you_mean(str(name), declared)
                raise RulesError(f"unknown parameter '{name}'", None,
                                 (f"{close} " if close else "") + f"this game's parameters: {known}")
        return {i.name: self.consts[i.name][0] for i in self.param_info}
