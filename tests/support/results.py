"""A results directory read back as a test sees it."""

from __future__ import annotations

import json
from pathlib import Path


def records(results: str | Path) -> list[dict]:
    """The journal's records (``results.jsonl``) as JSON objects, in the order they were written."""
    text = (Path(results) / "results.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]
