"""Exports of a trace: NetLogger BP text and Chrome/Perfetto Trace Event JSON. Pure.

**BP** ("best practices", NetLogger >= 3, what ``nl_parse bp`` reads): one event a line, space-separated
``name=value`` pairs, ``ts`` first (ISO 8601 UTC, microseconds), then ``event``, then ``level``, then
the rest; values with a space, tab, ``"`` or ``=`` are double-quoted. A span becomes a
``<name>.start`` / ``<name>.end`` pair (NetLogger's convention), an I/O the same pair with ``bytes`` on
its end (like the XIO driver's ``read.start`` / ``read.end``), a mark one line, a sample one line.

**Perfetto**: the JSON object form of the Trace Event format (``traceEvents``, ``displayTimeUnit``):
every host a process (``pid``), every thread or control connection a thread (``tid``) with its name
(``M`` metadata events), spans and I/Os complete events (``X``), marks instants (``i``), rates counters
(``C``). Times are microseconds from the trace's first event (``otherData.start_unix_ns`` says when
that was), so nanoseconds survive as decimals.
"""

from __future__ import annotations

import time
from typing import Any

from .iofmt import LEVEL_NAMES
from .reader import Trace

IO_PREFIX = "gfapi.io."


def bp_time(ns: int) -> str:
    seconds, rest = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{rest // 1000:06d}Z"


def bp_value(value: Any) -> str:
    text = "" if value is None else (("true" if value else "false") if isinstance(value, bool) else str(value))
    if text == "" or any(c in text for c in ' \t"=\n'):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return text


RESERVED = ("ts", "event", "level")


def bp_line(ns: int, event: str, level: str, fields: dict[str, Any]) -> str:
    """One BP line; a field named like one of the first three (``level`` of a trace switch) gets ``arg.``."""
    pairs = [f"ts={bp_time(ns)}", f"event={event}", f"level={level}"]
    pairs += [f"{'arg.' if key in RESERVED else ''}{key}={bp_value(value)}" for key, value in fields.items()
              if value is not None]
    return " ".join(pairs)


def _flat(args: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, dict):
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


def bp_lines(trace: Trace) -> list[str]:
    """The trace as BP lines in time order."""
    lines: list[tuple[int, int, str]] = []
    for n, r in enumerate(trace.records):
        base = {"run": r.get("run"), "host": r.get("host"), "track": r.get("track")}
        name = f"gftpwb.{r['name']}" if r.get("name") == "run" else str(r.get("name"))
        if r["type"] == "span":
            args = _flat(r.get("args", {}))
            lines.append((r["ts"], n, bp_line(r["ts"], f"{name}.start", "Info", base)))
            lines.append((r["ts"] + r["dur"], n, bp_line(r["ts"] + r["dur"], f"{name}.end", "Info",
                                                          {**base, "dur": r["dur"] / 1e9, **args})))
        elif r["type"] == "mark":
            lines.append((r["ts"], n, bp_line(r["ts"], name, "Info", {**base, **_flat(r.get("args", {}))})))
        elif r["type"] == "sample":
            lines.append((r["ts"], n, bp_line(r["ts"], "gftpwb.sample", "Debug", {**base, **r.get("values", {})})))
    offset = len(trace.records)
    for n, e in enumerate(trace.io, offset):
        base = {"run": e.run, "host": e.host, "process": e.process, "thread": e.thread}
        if e.op == "level":
            name = LEVEL_NAMES[e.bytes] if e.bytes < len(LEVEL_NAMES) else str(e.bytes)
            lines.append((e.ts, n, bp_line(e.ts, "gftpwb.trace.level", "Info", {**base, "trace_level": name})))
            continue
        lines.append((e.ts, n, bp_line(e.ts, f"{IO_PREFIX}{e.op}.start", "Debug", base)))
        end = {**base, "bytes": e.bytes, "dur": e.dur / 1e9, **({"status": "error"} if e.error else {})}
        lines.append((e.ts + e.dur, n, bp_line(e.ts + e.dur, f"{IO_PREFIX}{e.op}.end", "Debug", end)))
    lines.sort(key=lambda item: (item[0], item[1]))
    return [line for _, _, line in lines]


class _Ids:
    """Perfetto pids per host, tids per (host, track), with their name metadata."""

    def __init__(self) -> None:
        self.pids: dict[str, int] = {}
        self.tids: dict[tuple[str, str], int] = {}
        self.meta: list[dict[str, Any]] = []

    def of(self, host: str, track: str) -> tuple[int, int]:
        if host not in self.pids:
            pid = self.pids[host] = len(self.pids) + 1
            self.meta.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": host}})
        pid = self.pids[host]
        if (host, track) not in self.tids:
            tid = self.tids[(host, track)] = len(self.tids) + 1
            self.meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": track}})
        return pid, self.tids[(host, track)]


def perfetto(trace: Trace) -> dict[str, Any]:
    """The trace as a Trace Event JSON object (``json.dump`` it)."""
    starts = [r["ts"] for r in trace.records if "ts" in r] + [e.ts for e in trace.io]
    origin = min(starts) if starts else 0
    us = lambda ns: round((ns - origin) / 1000, 3)  # noqa: E731
    ids = _Ids()
    events: list[dict[str, Any]] = []
    for r in trace.records:
        host, track = str(r.get("host", "")), str(r.get("track") or "run")
        if r["type"] == "span":
            pid, tid = ids.of(host, track)
            events.append({"ph": "X", "name": r["name"], "cat": r["name"].split(".")[0], "ts": us(r["ts"]),
                           "dur": round(r["dur"] / 1000, 3), "pid": pid, "tid": tid,
                           "args": {"run": r.get("run"), **r.get("args", {})}})
        elif r["type"] == "mark":
            pid, tid = ids.of(host, track)
            events.append({"ph": "i", "s": "t", "name": r["name"], "cat": r["name"].split(".")[0], "ts": us(r["ts"]),
                           "pid": pid, "tid": tid, "args": {"run": r.get("run"), **r.get("args", {})}})
        elif r["type"] == "sample":
            pid, _ = ids.of(host, "run")
            values = {k: v for k, v in r.get("values", {}).items() if isinstance(v, int | float) and k != "elapsed_s"}
            if values:
                events.append({"ph": "C", "name": f"{r.get('run')} {track}", "ts": us(r["ts"]), "pid": pid,
                               "args": values})
    for e in trace.io:
        pid, tid = ids.of(e.host, f"thread {e.thread}" if e.thread >= 0 else "trace")
        if e.op == "level":
            name = LEVEL_NAMES[e.bytes] if e.bytes < len(LEVEL_NAMES) else str(e.bytes)
            events.append({"ph": "i", "s": "p", "name": "trace.level", "cat": "trace", "ts": us(e.ts), "pid": pid,
                           "tid": tid, "args": {"level": name}})
            continue
        events.append({"ph": "X", "name": e.op, "cat": "io", "ts": us(e.ts), "dur": round(e.dur / 1000, 3),
                       "pid": pid, "tid": tid, "args": {"bytes": e.bytes, "run": e.run, **({"error": True} if e.error
                                                                                         else {})}})
    return {"traceEvents": ids.meta + events, "displayTimeUnit": "ns",
            "otherData": {"generator": "gftpwb trace export", "start_unix_ns": origin}}
