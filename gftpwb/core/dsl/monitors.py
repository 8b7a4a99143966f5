"""``monitors:`` of a scenario: the checks beyond the schema and the typed
:class:`~gftpwb.core.monitors.model.Monitor` entries. (Unknown hosts in their ``on`` are checked by
the loader, like a test's.)"""

from __future__ import annotations

from typing import Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.monitors.model import COMMAND, MIN_INTERVAL_S, TCP_PROCESSES, TYPE_KEYS, Monitor
from gftpwb.core.scenario.model import LOCAL, on_tuple
from gftpwb.core.scenario.yamlpos import Positions
from gftpwb.core.units import parse_duration

TYPED_KEYS = frozenset(key for keys in TYPE_KEYS.values() for key in keys)


def monitor_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """Duplicate ids, keys of another type of monitor, a command monitor without its command, and
    intervals shorter than the sampler's clock can keep."""
    out: list[Diagnostic] = []
    first_seen: dict[str, int] = {}
    for index, entry in enumerate(data.get("monitors", [])):
        where = ("monitors", index)
        line, col = pos.of_value((*where, "id"))
        if entry["id"] in first_seen:
            out.append(Diagnostic(filename, line, col, f"duplicate monitor id '{entry['id']}' (first used at line "
                                                       f"{first_seen[entry['id']]})"))
        else:
            first_seen[entry["id"]] = line
        kind = entry["type"]
        for key in entry:
            if key in TYPED_KEYS and key not in TYPE_KEYS[kind]:
                owners = " and ".join(t for t, keys in TYPE_KEYS.items() if key in keys)
                line, col = pos.of_key((*where, key))
                out.append(Diagnostic(filename, line, col, f"monitor '{entry['id']}': {key} is for {owners} "
                                                           f"monitors, not {kind}"))
        if kind == COMMAND and "command" not in entry:
            line, col = pos.of_value((*where, "type"))
            out.append(Diagnostic(filename, line, col, f"monitor '{entry['id']}': a command monitor needs "
                                                       "command: the command to run, as a list of arguments"))
        if "interval" in entry and parse_duration(entry["interval"]) < MIN_INTERVAL_S:
            line, col = pos.of_value((*where, "interval"))
            out.append(Diagnostic(filename, line, col, f"monitor '{entry['id']}': interval {entry['interval']} is "
                                                       f"too short; at least {MIN_INTERVAL_S:g}s"))
    return out


def build_monitors(data: dict[str, Any]) -> tuple[Monitor, ...]:
    return tuple(
        Monitor(
            id=entry["id"],
            type=entry["type"],
            on=on_tuple(entry.get("on", LOCAL)),
            interval_s=parse_duration(entry["interval"]) if "interval" in entry else 1.0,
            interfaces=tuple(entry.get("interfaces", ())),
            devices=tuple(entry.get("devices", ())),
            processes=tuple(entry.get("processes", TCP_PROCESSES)),
            control_ports=tuple(entry.get("control_ports", ())),
            command=tuple(entry.get("command", ())),
        )
        for entry in data.get("monitors", [])
    )
