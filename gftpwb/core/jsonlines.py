"""Decoding lines of JSON (journals of 100,000 records) fast, with the standard library's answers.

orjson decodes a record line several times faster than :func:`json.loads`, and for everything it
accepts gives the same values, with one exception: an integer beyond 64 bits becomes a float. It
refuses what ``json`` accepts beyond the standard (``NaN``, ``Infinity``, numbers too large for a
float, lone surrogates): such a line is decoded again by ``json``, which accepts it as before or
refuses it with the message readers have always shown. So every reader keeps ``json``'s result and
errors, and only the speed changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import orjson

# An integer orjson turns into a float has 20 digits or more (2^64 has 20); a float's shortest form
# never has 19 digits in a row unless it starts with zeros (0.0012345678901234567), which merely
# sends its line to ``json``.
_RUN = b"0" * 19
_DIGITS_TO_ZERO = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))


def _long_numbers(text: str) -> bool:
    """Whether ``text`` may hold an integer orjson would give as a float (19 digits in a row)."""
    return _RUN in text.encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO)


def _fast(line: str) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line)  # json's value (NaN, a lone surrogate), or its error


def _careful(line: str) -> Any:
    return json.loads(line) if _long_numbers(line) else _fast(line)


def line_decoder(text: str) -> Callable[[str], Any]:
    """A function that decodes each line of ``text`` as :func:`json.loads` would (raising its
    ValueError for a line it refuses), checked once for the whole text: a text without long digit
    runs (almost every journal) decodes every line with orjson."""
    return _careful if _long_numbers(text) else _fast
