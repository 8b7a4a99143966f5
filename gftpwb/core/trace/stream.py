"""The wire format of a live trace stream (the "net" in NetLogger), sans-I/O: what ``gftpwb run
--trace-to HOST:PORT`` sends and ``gftpwb trace collect`` receives over TCP.

Frames are JSON lines; the first is a hello, the others trace records exactly as trace.jsonl holds
them (so the collector's copy reads like a results directory's trace), and a binary I/O trace is a
``{"type": "blob", "path": "trace/...", "size": N}`` line followed by N raw bytes. The sender's
results directory name and host name tell the collector where to store what it receives.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass
from typing import Any

STREAM_VERSION = 1
DEFAULT_PORT = 14380  # netlogd's port
MAX_LINE = 1 << 20
MAX_BLOB = 1 << 34


class StreamError(ValueError):
    """The peer does not speak this protocol (or broke it)."""


def hello(source: str, results: str, scenario: str) -> bytes:
    return line({"type": "hello", "version": STREAM_VERSION, "source": source, "results": results,
                 "scenario": scenario})


def line(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")


def blob_header(path: str, size: int) -> bytes:
    return line({"type": "blob", "path": path, "size": size})


def safe_relative(path: str) -> str:
    """A blob's path, if it is a plain relative path under ``trace/`` (a collector never writes elsewhere)."""
    norm = posixpath.normpath(path)
    if posixpath.isabs(norm) or norm.startswith("..") or not norm.startswith("trace/") or "\\" in norm:
        raise StreamError(f"blob path {path!r} is not under trace/")
    return norm


def safe_component(name: str) -> str:
    """A sender-given name as one directory name (host, results directory)."""
    cleaned = "".join(c if c.isalnum() or c in "._-@" else "_" for c in name)[:120].lstrip(".")
    return cleaned or "unnamed"


@dataclass(frozen=True)
class Hello:
    source: str
    results: str
    scenario: str


@dataclass(frozen=True)
class Record:
    record: dict[str, Any]


@dataclass(frozen=True)
class Blob:
    path: str
    data: bytes


Message = Hello | Record | Blob


class StreamReader:
    """Bytes in, messages out (:meth:`feed`); raises StreamError on a broken stream."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._blob: tuple[str, int] | None = None
        self._greeted = False

    def feed(self, data: bytes) -> list[Message]:
        self._buffer += data
        out: list[Message] = []
        while True:
            if self._blob is not None:
                path, size = self._blob
                if len(self._buffer) < size:
                    return out
                out.append(Blob(path, bytes(self._buffer[:size])))
                del self._buffer[:size]
                self._blob = None
                continue
            end = self._buffer.find(b"\n")
            if end < 0:
                if len(self._buffer) > MAX_LINE:
                    raise StreamError("a line longer than 1 MiB: not a gftpwb trace stream")
                return out
            raw = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            out.extend(self._line(raw))

    def _line(self, raw: bytes) -> list[Message]:
        try:
            message = json.loads(raw)
        except ValueError:
            raise StreamError("not a gftpwb trace stream (a line is no JSON)") from None
        if not isinstance(message, dict):
            raise StreamError("not a gftpwb trace stream (a line is no JSON object)")
        kind = message.get("type")
        if not self._greeted:
            if kind != "hello" or message.get("version") != STREAM_VERSION:
                raise StreamError(f"expected a version {STREAM_VERSION} hello, got {raw[:80]!r}")
            self._greeted = True
            return [Hello(str(message.get("source", "")), str(message.get("results", "")),
                          str(message.get("scenario", "")))]
        if kind == "blob":
            size = message.get("size")
            if not isinstance(size, int) or not 0 <= size <= MAX_BLOB:
                raise StreamError(f"bad blob size {size!r}")
            self._blob = (safe_relative(str(message.get("path", ""))), size)
            return []
        return [Record(message)]

    @property
    def pending(self) -> bool:
        """Part of a frame is still missing (the sender went away in the middle of one)."""
        return bool(self._buffer) or self._blob is not None


def parse_address(text: str, default_host: str = "") -> tuple[str, int]:
    """``HOST:PORT``, ``[v6]:PORT``, ``:PORT`` or ``HOST`` (port 14380); ValueError says what is wrong."""
    value = text.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        host, _, port_text = value.partition(":")
    else:
        host, port_text = value, ""
    host = host or default_host
    if not host:
        raise ValueError(f"{text!r}: give HOST:PORT")
    if not port_text:
        return host, DEFAULT_PORT
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"{text!r}: the port is a number from 1 to 65535")
    return host, int(port_text)
