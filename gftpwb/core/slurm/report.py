"""How reports name a run's Slurm allocation: which job, and which node each slot was. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def allocation_of(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta.json``'s record of the allocation (the first attempt's; a resumed one's when that is all
    there is), {} for a run that was not on Slurm."""
    environment = meta.get("environment")
    found = environment.get("slurm") if isinstance(environment, Mapping) else None
    if not found:
        for attempt in reversed(meta.get("resumed") or []):
            env = attempt.get("environment") if isinstance(attempt, Mapping) else None
            if isinstance(env, Mapping) and env.get("slurm"):
                found = env["slurm"]
                break
    return dict(found) if isinstance(found, Mapping) else {}


def allocation_text(meta: Mapping[str, Any]) -> str:
    """``slurm job 12: node1=n1, node2=n2 (on_failure cancel)``, "" when the run was not on Slurm."""
    found = allocation_of(meta)
    if not found:
        return ""
    nodes = found.get("nodes") if isinstance(found.get("nodes"), Mapping) else {}
    mapped = ", ".join(f"{slot}={node}" for slot, node in nodes.items())
    policy = f" (on_failure {found['on_failure']})" if found.get("on_failure") else ""
    return f"slurm job {found.get('job', '?')}: {mapped}{policy}"
