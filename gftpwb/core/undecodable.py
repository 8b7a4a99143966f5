"""Bytes that are not UTF-8, kept through a record without putting them in its text.

guc's output, a tag log or a batchfile may hold bytes that are not UTF-8 (a file name in Latin-1).
Read with ``surrogateescape`` they become lone surrogates, which no journal line, terminal, report or
database can hold. So a record keeps valid text only: each string that had such bytes holds U+FFFD
in their place, and ``details["undecodable"]`` maps where that string is (its path in the record) to
the original, escaped as plain text (``\\xNN`` for a byte, ``\\\\`` for a backslash), so masking a
password reads it as it reads the text. Only writers of byte-exact formats (tag logs) put the bytes
back (:func:`restore_undecodable`); everything else shows the U+FFFD text.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

UNDECODABLE = "undecodable"
_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPE = re.compile(r"\\(\\|x([0-9a-f]{2}))")


def has_undecodable(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def as_text(text: str) -> str:
    """``text`` with each undecodable byte (a lone surrogate of ``surrogateescape``) as U+FFFD; a run of
    bytes that together are not UTF-8 gives one U+FFFD per byte it cannot place, as ``bytes.decode``
    with ``errors="replace"`` does."""
    if not has_undecodable(text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def escape(text: str) -> str:
    """``text`` as plain text: each undecodable byte as ``\\xNN``, a backslash as ``\\\\``."""
    return _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text.replace("\\", "\\\\"))


def unescape(text: str) -> str:
    """The inverse of :func:`escape`: the string with its undecodable bytes as lone surrogates."""
    return _ESCAPE.sub(lambda m: "\\" if m.group(1) == "\\" else chr(0xDC00 + int(m.group(2), 16)), text)


def _walk(value: Any, path: list[Any], found: dict[str, str]) -> Any:
    if isinstance(value, str):
        if has_undecodable(value):
            found[_path_key(path)] = escape(value)
            return as_text(value)
        return value
    if isinstance(value, list):
        return [_walk(item, [*path, index], found) for index, item in enumerate(value)]
    if isinstance(value, dict):
        return {key: _walk(item, [*path, key], found) for key, item in value.items()}
    return value


def _path_key(path: list[Any]) -> str:
    """A path as a JSON pointer (RFC 6901): ``/details/tgftp_log/3/1``."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _path_parts(key: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in key.split("/")[1:]]


_FIELDS = ("argv", "comment", "error", "output", "details", "taglog")


def set_aside_undecodable(record: Any) -> Any:
    """``record`` (a ResultRecord) with valid text only, its undecodable bytes set aside in
    ``details["undecodable"]``; the same record when it has none."""
    found: dict[str, str] = {}
    changes = {name: _walk(getattr(record, name), [name], found) for name in _FIELDS}
    if not found:
        return record
    details = dict(changes["details"])
    details[UNDECODABLE] = {**details.get(UNDECODABLE, {}), **found}
    changes["details"] = details
    return dataclasses.replace(record, **changes)


def restore_undecodable(record: Any) -> Any:
    """``record`` with the bytes :func:`set_aside_undecodable` set aside back in its strings (lone
    surrogates, written back as the bytes with ``surrogateescape``); the same record without any."""
    kept = record.details.get(UNDECODABLE)
    if not isinstance(kept, dict) or not kept:
        return record
    values = {name: _copy(getattr(record, name)) for name in _FIELDS}
    values["details"].pop(UNDECODABLE, None)
    for key, escaped in kept.items():
        parts = _path_parts(key) if isinstance(key, str) else []
        if not parts or parts[0] not in values or not isinstance(escaped, str) or parts[:2] == ["details", UNDECODABLE]:
            continue
        _put(values, parts, unescape(escaped))
    return dataclasses.replace(record, **values)


def _copy(value: Any) -> Any:
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    return value


def _put(values: dict[str, Any], parts: list[str], text: str) -> None:
    """Put ``text`` where ``parts`` points, if a string is there (a path that no longer fits is left)."""
    container: Any = values
    for part in parts[:-1]:
        container = _step(container, part)
        if container is None:
            return
    last = parts[-1]
    if isinstance(container, dict) and isinstance(container.get(last), str):
        container[last] = text
    elif isinstance(container, list) and last.isdigit() and int(last) < len(container) \
            and isinstance(container[int(last)], str):
        container[int(last)] = text


def _step(container: Any, part: str) -> Any:
    if isinstance(container, dict):
        return container.get(part)
    if isinstance(container, list) and part.isdigit() and int(part) < len(container):
        return container[int(part)]
    return None
