"""``slurm:`` of a scenario: the checks beyond the schema, ``on: slurm`` expanded to the node slots,
and the typed :class:`~gftpwb.core.slurm.model.SlurmSetup`."""

from __future__ import annotations

import math
from typing import Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.scenario.yamlpos import Positions
from gftpwb.core.slurm.model import AUTO, CANCEL, DEFAULT_WAIT_S, ON_SLURM, SHARED, SlurmSetup, slot_names
from gftpwb.core.units import parse_duration

SLURM = "slurm"


def slots_of(data: dict[str, Any]) -> tuple[str, ...]:
    """The node slots a scenario's ``slurm:`` block makes (none without one)."""
    block = data.get(SLURM)
    if not isinstance(block, dict) or not isinstance(block.get("nodes"), int):
        return ()
    return slot_names(block["nodes"])


def _on_places(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every mapping that may hold an ``on:`` (defaults, tests, monitors) with its path."""
    places: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    if isinstance(data.get("defaults"), dict):
        places.append((("defaults",), data["defaults"]))
    for key in ("tests", "monitors"):
        for index, entry in enumerate(data.get(key) or []):
            if isinstance(entry, dict):
                places.append(((key, index), entry))
    return places


def slurm_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """``on: slurm`` needs a ``slurm:`` block; the slots may not be inventory hosts too."""
    out: list[Diagnostic] = []
    slots = set(slots_of(data))
    if SLURM in data:
        for name in data.get("hosts") or {}:
            if name in slots or name == ON_SLURM:
                line, col = pos.of_key(("hosts", name))
                out.append(Diagnostic(pos.file_of(("hosts", name), filename), line, col,
                                      f"host name '{name}' is taken by the slurm: block's nodes (node1..node"
                                      f"{len(slots)}, and 'slurm' for all of them); give the host another name"))
        return out
    for path, entry in _on_places(data):
        value = entry.get("on")
        names = [value] if isinstance(value, str) else list(value or [])
        for index, name in enumerate(names):
            if name == ON_SLURM and ON_SLURM not in (data.get("hosts") or {}):
                at = (*path, "on") if isinstance(value, str) else (*path, "on", index)
                line, col = pos.of_value(at)
                out.append(Diagnostic(filename, line, col, "on: slurm runs on the nodes of a Slurm allocation; "
                                                           "add a slurm: block (nodes: N, on_failure: cancel or "
                                                           "continue)"))
    return out


def expand_slurm_on(data: dict[str, Any]) -> None:
    """Replace ``slurm`` in every ``on:`` by the node slots, in place (the stored scenario keeps
    ``on: slurm``; only the model sees the slots)."""
    slots = list(slots_of(data))
    if not slots:
        return
    for _path, entry in _on_places(data):
        value = entry.get("on")
        if value == ON_SLURM:
            entry["on"] = list(slots)
        elif isinstance(value, list) and ON_SLURM in value:
            expanded: list[str] = []
            for name in value:
                expanded.extend(slots if name == ON_SLURM else [name])
            entry["on"] = list(dict.fromkeys(expanded))


def time_limit_minutes(value: Any) -> int:
    """salloc's -t in whole minutes (a limit is rounded up; at least one minute)."""
    return max(1, math.ceil(parse_duration(value) / 60))


def build_slurm(data: dict[str, Any], conf: str = "") -> SlurmSetup | None:
    """The typed block (``conf``: its path resolved against the scenario's directory)."""
    block = data.get(SLURM)
    if not isinstance(block, dict):
        return None
    return SlurmSetup(
        nodes=block["nodes"],
        tasks_per_node=block.get("tasks_per_node", 1),
        partition=block.get("partition", ""),
        time=str(block["time"]) if "time" in block else "",
        time_limit_min=time_limit_minutes(block["time"]) if parse_duration(block.get("time", 0)) > 0 else None,
        account=block.get("account", ""),
        options=tuple(block.get("options", ())),
        step_options=tuple(block.get("step_options", ())),
        job=str(block.get("job", AUTO)),
        wait_s=parse_duration(block["wait"]) if "wait" in block else DEFAULT_WAIT_S,
        on_failure=block.get("on_failure", CANCEL),
        build=block.get("build", SHARED),
        conf=conf,
        callback_address=block.get("callback_address", ""),
    )
