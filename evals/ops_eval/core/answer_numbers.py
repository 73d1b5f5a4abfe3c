"""Numbers and JSON pointers as a response check declares them and an answer writes them: a
decimal compared exactly whatever its size (`Number`), a range "lo..hi", and RFC 6901 pointers.
"""

from __future__ import annotations

import decimal
import functools
import re

NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""A plain decimal number, as a range bound or a whole answer is written (no inf, no nan), in
ASCII digits only -- JSON's rule: `\\d` would take a full-width "５" or an Arabic-Indic digit."""
_NUMBER_SHOWN = 40  # characters of a number shown in a detail


_SHOWN = 60  # characters of a declared text shown in a message


def _short(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


@functools.total_ordering
class Number:
    """A decimal number exactly as written ("2", "-0.5", "1e400", 400 nines): compared exactly,
    whatever its size -- never through a float, which overflows (OverflowError) or rounds (1 +
    1e-20 == 1). Held as sign, and magnitude 0.DIGITS x 10**EXPONENT (DIGITS without leading or
    trailing zeros); the exponent is an exact Decimal integer, so even "1e" followed by a
    million digits costs linear time, never 10**EXPONENT itself."""

    __slots__ = ("_magnitude", "_sign", "text")

    def __init__(self, text: str) -> None:
        if not NUMBER.fullmatch(text):
            raise ValueError(f"{_short(text)} is not a number")
        self.text = text
        mantissa, _, exponent = text.lstrip("+-").lower().partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = (whole + fraction).lstrip("0")
        significant = digits.rstrip("0")
        self._sign = 0 if not digits else (-1 if text.startswith("-") else 1)
        # value = 0.significant x 10**(exponent - len(fraction) + len(digits)), exactly
        shift = len(digits) - len(fraction)
        exact = decimal.Context(
            prec=len(exponent) + len(str(shift)) + 2,
            Emax=decimal.MAX_EMAX,
            Emin=decimal.MIN_EMIN,
            traps=[decimal.InvalidOperation, decimal.Inexact, decimal.Overflow],
        )
        power = exact.add(decimal.Decimal(exponent or "0"), decimal.Decimal(shift))
        self._magnitude = (power, significant) if digits else (decimal.Decimal(0), "")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Number):
            return NotImplemented
        return (self._sign, self._magnitude) == (other._sign, other._magnitude)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Number):
            return NotImplemented
        if self._sign != other._sign:
            return self._sign < other._sign
        if self._sign > 0:
            return self._magnitude < other._magnitude
        return other._magnitude < self._magnitude if self._sign < 0 else False

    def __hash__(self) -> int:
        return hash((self._sign, self._magnitude))

    def __repr__(self) -> str:
        return f"Number({self.text!r})"

    def __str__(self) -> str:
        """The number as written, shortened when long (400 nines are not a detail)."""
        text = self.text
        if len(text) <= _NUMBER_SHOWN:
            return text
        return f"{text[: _NUMBER_SHOWN // 2]}… ({len(text)} characters)"

    def plain(self) -> int | float:
        """The value as `json.loads` reads it, for showing (a float may round or be inf)."""
        integral = not any(c in self.text for c in ".eE")
        return int(self.text) if integral and len(self.text) <= 600 else float(self.text)


def pointer_tokens(path: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901: "" is the whole document, "/a/0"
    its member a's first item, "~1" a slash and "~0" a tilde); ValueError for one that is
    not a pointer."""
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValueError(
            f"{_short(path)} is not a JSON pointer: it must start with '/' (e.g. /count)"
        )
    tokens = path[1:].split("/")
    for token in tokens:
        if re.search(r"~(?![01])", token):
            raise ValueError(
                f"{_short(path)} is not a JSON pointer: '~' must be followed by 0 or 1"
            )
    return [t.replace("~1", "/").replace("~0", "~") for t in tokens]


def parse_range(text: str) -> tuple[Number, Number]:
    """(lo, hi) of "lo..hi", exact; ValueError naming what is wrong (not two numbers,
    reversed), showing the text shortened."""
    lo_text, sep, hi_text = text.partition("..")
    lo_text, hi_text = lo_text.strip(), hi_text.strip()
    if not sep or not NUMBER.fullmatch(lo_text) or not NUMBER.fullmatch(hi_text):
        raise ValueError(f"{_short(text)} is not lo..hi with two numbers (e.g. 1..3, -0.5..2.5)")
    lo, hi = Number(lo_text), Number(hi_text)
    if lo > hi:
        raise ValueError(f"{_short(text)} is reversed: lo ({lo}) is above hi ({hi})")
    return lo, hi
