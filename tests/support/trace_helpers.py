"""Checks of trace exports shared by the unit and the real-component tests: a BP line parser (as
NetLogger's ``nl_parse bp`` reads lines) and a structural validator of Chrome/Perfetto Trace Event JSON."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

_PAIR = re.compile(r'([A-Za-z_][A-Za-z0-9_.]*)=("(?:[^"\\]|\\.)*"|[^ "]+)(?: |$)')
LEVELS = {"Fatal", "Error", "Warn", "Info", "Debug", "Debug1", "Debug2", "Debug3"}


def parse_bp(line: str) -> dict[str, str]:
    """A BP line as a dict; AssertionError unless it is ts, event, level first and key=value pairs only."""
    pairs, at = [], 0
    while at < len(line):
        match = _PAIR.match(line, at)
        assert match, f"not key=value at column {at}: {line!r}"
        value = match[2]
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        pairs.append((match[1], value))
        at = match.end()
    assert [k for k, _ in pairs[:3]] == ["ts", "event", "level"], line
    fields = dict(pairs)
    assert len(fields) == len(pairs), f"repeated key: {line!r}"
    datetime.strptime(fields["ts"], "%Y-%m-%dT%H:%M:%S.%fZ")
    assert fields["level"] in LEVELS
    return fields


def validate_trace_events(doc: Any) -> list[dict[str, Any]]:
    """Check the JSON object form of the Trace Event format (what ui.perfetto.dev and chrome://tracing
    load); returns the events."""
    doc = json.loads(json.dumps(doc))  # plain JSON, nothing Python-only
    assert isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    named_processes, named_threads, used = set(), set(), set()
    for event in doc["traceEvents"]:
        assert isinstance(event, dict), event
        ph = event.get("ph")
        assert ph in {"X", "B", "E", "i", "I", "C", "M"}, event
        assert isinstance(event.get("name"), str) and event["name"], event
        assert isinstance(event.get("pid"), int), event
        if ph == "M":
            assert event["name"] in ("process_name", "thread_name") and isinstance(event["args"]["name"], str)
            (named_processes if event["name"] == "process_name" else named_threads).add(
                event["pid"] if event["name"] == "process_name" else (event["pid"], event["tid"]))
            continue
        assert isinstance(event.get("ts"), int | float) and event["ts"] >= 0, event
        if ph == "X":
            assert isinstance(event.get("dur"), int | float) and event["dur"] >= 0, event
        if ph in ("i", "I"):
            assert event.get("s", "t") in ("g", "p", "t"), event
        if ph == "C":
            assert event["args"] and all(isinstance(v, int | float) for v in event["args"].values()), event
        else:
            assert isinstance(event.get("tid"), int), event
            used.add((event["pid"], event["tid"]))
        assert isinstance(event.get("args", {}), dict)
    assert used <= named_threads, f"threads without a name: {used - named_threads}"
    assert {pid for pid, _ in used} <= named_processes
    return doc["traceEvents"]
