"""Sizes and durations as tgftp, guc and scenario authors write them.

Sizes follow guc's ``globus_args_bytestr_to_num``: an integer with an optional ``K``, ``M``, ``G``
(powers of 1024) or ``B`` suffix, upper or lower case. Durations are seconds, either a bare number
or a sum of ``<number><unit>`` parts with units ``ms``, ``s``, ``m``, ``h`` (``1m30s``).
"""

from __future__ import annotations

import functools
import re

KIB = 1024
MIB = 1024 * 1024
GIB = 1024 * 1024 * 1024

_SIZE_RE = re.compile(r"^\s*(\d+)\s*([KkMmGgBb]?)\s*$")
_SIZE_FACTORS = {"": 1, "b": 1, "k": KIB, "m": MIB, "g": GIB}
# At most 8 EiB (2^63 - 1 bytes, guc's off_t) in any spelling: 18 digits, 15 with K, 12 with M, 9 with G.
SIZE_PATTERN = r"^([0-9]{1,18}[Bb]?|[0-9]{1,15}[Kk]|[0-9]{1,12}[Mm]|[0-9]{1,9}[Gg])$"

_DURATION_PART_RE = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
# Whole parts of at most 10 digits: a longer number of seconds is no duration a run has (nor a finite float).
DURATION_PATTERN = r"^([0-9]{1,10}(\.[0-9]+)?(ms|s|m|h))+$|^[0-9]{1,10}(\.[0-9]+)?$"


@functools.lru_cache(maxsize=4096, typed=True)  # typed: True is not a size, though it hashes as 1
def parse_size(value: int | str) -> int:
    """Return the number of bytes for ``value`` (an int, or text such as ``4G`` or ``512k``).

    Raises ValueError with a message fit for a user when the text is not a size.
    """
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    if isinstance(value, float) and value.is_integer():  # YAML's 4096.0 or 1e3: JSON Schema's integers too
        value = int(value)
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a size cannot be negative: {value}")
        return value
    match = _SIZE_RE.match(str(value))
    if not match:
        raise ValueError(f"not a size: {value!r} (use a whole number with an optional K, M, G or B suffix)")
    return int(match.group(1)) * _SIZE_FACTORS[match.group(2).lower()]


def format_size_arg(nbytes: int) -> str:
    """Spell ``nbytes`` the shortest way guc accepts exactly (``4294967296`` -> ``4G``)."""
    if nbytes < 0:
        raise ValueError(f"a size cannot be negative: {nbytes}")
    for suffix, factor in (("G", GIB), ("M", MIB), ("K", KIB)):
        if nbytes and nbytes % factor == 0:
            return f"{nbytes // factor}{suffix}"
    return str(nbytes)


def parse_duration(value: int | float | str) -> float:
    """Return seconds for ``value`` (``30``, ``30s``, ``1m30s``, ``250ms``, ``2h``)."""
    if isinstance(value, bool):
        raise ValueError(f"not a duration: {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(f"a duration cannot be negative: {value}")
        return float(value)
    text = str(value).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    pos = 0
    total = 0.0
    for match in _DURATION_PART_RE.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text:
        raise ValueError(f"not a duration: {value!r} (use seconds, or e.g. 30s, 5m, 1m30s, 250ms)")
    return total


def format_duration(seconds: float) -> str:
    """Human text for a duration: ``30s``, ``5m``, ``1m30s``, ``0.25s``."""
    if seconds < 60 or seconds != int(seconds):
        return f"{seconds:g}s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{u}" for n, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if n]
    return "".join(parts)


# Rates: a number is MiB/s; text takes a unit. "MB/s" means MiB/s as in guc and tgftp; bit rates
# (Mbit/s, Gbit/s) are decimal, as network people quote link speeds.
_RATE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMG])(i?B|bit)/s\s*$", re.IGNORECASE)
RATE_PATTERN = r"^[0-9]{1,10}(\.[0-9]+)?\s*([KkMmGg])([iI]?[Bb]|[Bb][Ii][Tt])/s$"  # at most 10 digits before the point
_BYTE_RATE_FACTORS = {"k": 1 / 1024, "m": 1.0, "g": 1024.0}
_BIT_RATE_FACTORS = {"k": 1e3 / 8 / MIB, "m": 1e6 / 8 / MIB, "g": 1e9 / 8 / MIB}


def parse_rate(value: int | float | str) -> float:
    """Return MiB/s for ``value``: a number (MiB/s), or text such as ``20MB/s``, ``1GB/s`` (powers of
    1024, like sizes), ``10Gbit/s`` (decimal bits per second)."""
    if isinstance(value, bool):
        raise ValueError(f"not a rate: {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise ValueError(f"a rate cannot be negative: {value}")
        return float(value)
    match = _RATE_RE.match(str(value))
    if not match:
        raise ValueError(f"not a rate: {value!r} (use MiB/s, or e.g. 20MB/s, 1GB/s, 10Gbit/s)")
    number, prefix, unit = float(match.group(1)), match.group(2).lower(), match.group(3).lower()
    factors = _BIT_RATE_FACTORS if unit == "bit" else _BYTE_RATE_FACTORS
    return number * factors[prefix]


def format_rate(mib_s: float) -> str:
    """``20MB/s`` for 20.0, ``12.5MB/s`` for 12.5: the way the margin is written in messages."""
    return f"{mib_s:g}MB/s"


_FRACTION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")
FRACTION_PATTERN = r"^[0-9]+(\.[0-9]+)?\s*%$"


def parse_fraction(value: int | float | str) -> float:
    """A share: a number (0.03) or a percentage (``3%``)."""
    if isinstance(value, bool):
        raise ValueError(f"not a fraction: {value!r}")
    if isinstance(value, int | float):
        return float(value)
    match = _FRACTION_RE.match(str(value))
    if not match:
        raise ValueError(f"not a fraction: {value!r} (use e.g. 0.03 or 3%)")
    return float(match.group(1)) / 100
