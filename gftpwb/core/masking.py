"""Passwords in URLs (``ftp://user:password@host/``) never leave the argv handed to the program.

guc takes credentials in its URLs and echoes them (``Source: ftp://user:pw@host/...``). Everything
gftpwb shows or stores goes through here first: events as the executor publishes them (so the
journal, tag logs, console and TUI see only masked text), the results directory's plan.json,
meta.json and scenario copy, and ``--dry-run``. The password becomes ``***``; the user name stays,
so a reader still sees who logged in. Only the argv a transport starts is the real one.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

MASK = "***"
# Values that hold no text, returned at once: most of an event's values are numbers (a monitor's
# figures: hundreds per summary), and the checks below cost a dataclass lookup each.
_NO_TEXT = frozenset({int, float, bool, type(None)})
_URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s\"']*):[^/@\s\"']+@")


def mask_text(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@`` replaced by ``***``."""
    if "://" not in text:
        return text
    return _URL_PASSWORD.sub(lambda m: f"{m.group(1)}:{MASK}@", text)


def mask(value: Any) -> Any:
    """``value`` with every string in it masked: strings, lists, tuples, dicts (keys too) and dataclass
    instances (a new instance only where something changed; the original is left alone)."""
    if value.__class__ in _NO_TEXT:
        return value
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, list):
        return [mask(item) for item in value]
    if isinstance(value, tuple):
        items = tuple(mask(item) for item in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, dict):
        return {mask(key): mask(item) for key, item in value.items()}  # keys too: the environment's servers
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for f in dataclasses.fields(value):
            if not f.init:
                continue
            old = getattr(value, f.name)
            new = mask(old)
            if new is not old and new != old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value
