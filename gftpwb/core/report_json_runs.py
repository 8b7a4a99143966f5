"""The runs of ``gftpwb report --json``, each written straight as its line of JSON. Pure.

A report of 100,000 runs spent 1.3 s of CPU making a dict for each run (:func:`gftpwb.core.
report_json.run_data`), rounding it and encoding it. Most runs are alike: text fields, two or three
numbers, the same few facts, nothing excluded, no samples. :class:`RunLines` writes such a run's line
from its fields with json's own string encoder and number text, the parts that repeat (facts,
exclusions, figure keys) encoded once; any run it does not know how to write exactly (samples,
monitors, a value of another type, a number that is not finite) goes the general way. The text is
``json.dumps(run_data(summary, run), ensure_ascii=False)``'s, character for character
(``tests/test_report_json_runs.py`` holds them together).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from json import encoder
from typing import Any

from .summary import DirectorySummary, RunRow

_encode_text: Callable[[str], str] = encoder.encode_basestring  # json's (C) encoder of a string, ensure_ascii=False


class _General(Exception):
    """A run this module does not write itself."""


def _text(value: Any) -> str:
    if type(value) is not str:
        raise _General
    return _encode_text(value)


def _number(value: Any) -> str:
    """A number (or null) as json writes it after :func:`gftpwb.core.report_json._round`."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            raise _General
        return float.__repr__(round(value, 6))
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    raise _General


def _flag(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise _General


class RunLines:
    """Writes each run of one directory as its line (:meth:`line`); ``general`` writes a run the
    general way (``run_data`` then json)."""

    def __init__(self, summary: DirectorySummary, general: Callable[[DirectorySummary, RunRow], str]):
        self.summary = summary
        self.general = general
        self._keys: dict[str, str] = {}
        self._small: dict[tuple[Any, ...], str] = {}  # facts, exclusions: their text by their items

    def _key(self, key: Any) -> str:
        found = self._keys.get(key) if type(key) is str else None
        if found is None:
            found = self._keys[key] = _text(key)
        return found

    def _small_dict(self, values: dict[str, Any]) -> str:
        """A small dict of plain values (facts, exclusions), its text remembered by items and types
        (1, 1.0 and True are equal keys, not the same text)."""
        if not values:
            return "{}"
        key = tuple((k, type(v), v) for k, v in values.items())
        try:
            found = self._small.get(key)
        except TypeError:  # a value that cannot be hashed
            raise _General from None
        if found is None:
            parts = []
            for k, v in values.items():
                text = _text(v) if type(v) is str else _flag(v) if type(v) is bool else _number(v)
                parts.append(f"{self._key(k)}: {text}")
            found = "{" + ", ".join(parts) + "}"
            if len(self._small) < 10_000:
                self._small[key] = found
        return found

    def line(self, run: RunRow) -> str:
        summary = self.summary
        if (summary.samples and run.run_id in summary.samples) or (
                summary.monitors is not None and run.run_id in summary.monitors.runs):
            return self.general(summary, run)
        try:
            values = ", ".join(f"{self._key(k)}: {_number(v)}" for k, v in run.values.items())
            outlier = ", ".join(_text(k) for k in run.outlier)
            return (f'{{"run_id": {_text(run.run_id)}, "repeat": {_number(run.repeat)}, "host": {_text(run.host)}, '
                    f'"status": {_text(run.status)}, "warmup": {_flag(run.warmup)}, '
                    f'"counted": {_flag(run.counted)}, "outlier": [{outlier}], "values": {{{values}}}, '
                    f'"excluded": {self._small_dict(run.excluded)}, "facts": {self._small_dict(run.facts)}, '
                    f'"seconds": {_number(run.seconds)}, "bytes": {_number(run.bytes)}, '
                    f'"started_at": {_text(run.started_at)}, "engine": {_text(run.engine)}, '
                    f'"error": {_text(run.error)}, "samples": null}}')
        except _General:
            return self.general(summary, run)

