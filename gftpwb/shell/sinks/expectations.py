"""``expectations.jsonl``: the thresholds (``expect:``) checked at the end of each test, one line
per test that ended: ``{"test_id", "checked_at", "checks": [{case, metric, expect, value, ok, ...}]}``,
appended and fsync'd like ``results.jsonl``. Made only when a test has thresholds; a resumed run
appends the checks of the tests it finished (the last line of a test is the one that counts).
Reports read it back (:func:`read_checks`)."""

from __future__ import annotations

import json
import os

from gftpwb.core.checks import Check
from gftpwb.core.events import Event, ExpectationsChecked

from .journal import JournalFile

EXPECTATIONS_NAME = "expectations.jsonl"


class ExpectationsSink:
    def __init__(self, directory: str):
        self.path = os.path.join(directory, EXPECTATIONS_NAME)
        self._file: JournalFile | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, ExpectationsChecked):
            if self._file is None:
                self._file = JournalFile(self.path)
            self._file.append(event)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def read_checks(directory: str) -> tuple[list[Check], list[str]]:
    """The checks of the latest line of each test (in the order tests last ended), and problems."""
    latest: dict[str, list[Check]] = {}
    problems: list[str] = []
    try:
        with open(os.path.join(directory, EXPECTATIONS_NAME), encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        return [], []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            checks = [Check.from_dict(c) for c in data["checks"]]
            latest.pop(str(data["test_id"]), None)
            latest[str(data["test_id"])] = checks
        except (ValueError, TypeError, KeyError) as exc:
            problems.append(f"{EXPECTATIONS_NAME}: line {number}: unreadable checks skipped ({exc})")
    return [c for checks in latest.values() for c in checks], problems
