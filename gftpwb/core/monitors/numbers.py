"""The figures a monitor's user command prints. Pure.

A command monitor records numbers, not text. Each line of the command's output may hold

* one number (``42``, ``-1.5``, ``3e6``): recorded as ``value`` (``value2``, ``value3``... for the
  next bare numbers);
* a name and a number: ``queue 12``, ``queue=12``, ``queue: 12`` (``/proc/sys`` style and
  Prometheus-like ``name value``), recorded under that name;

other lines (headers, words) are ignored. Output without any number is an error of that sample, so
a broken command shows as such rather than as silence. NaN and infinities are not numbers here.
"""

from __future__ import annotations

import re

NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
NAME = r"[A-Za-z_][A-Za-z0-9_.:/-]*?"
_BARE = re.compile(rf"^\s*({NUMBER})\s*$")
_NAMED = re.compile(rf"^\s*({NAME})\s*(?:=|:\s*|\s+)({NUMBER})\s*$")


def parse_command_values(text: str) -> dict[str, float]:
    """The numbers in a command's output (see the module docstring); raises ValueError with the start
    of the output when there is none."""
    values: dict[str, float] = {}
    bare = 0
    for line in text.splitlines():
        match = _BARE.match(line)
        if match:
            bare += 1
            values["value" if bare == 1 else f"value{bare}"] = float(match.group(1))
            continue
        match = _NAMED.match(line)
        if match:
            values[match.group(1)] = float(match.group(2))
    if not values:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        raise ValueError(f"no number in the output: {first[:80]!r}" if first else "no output")
    return values
