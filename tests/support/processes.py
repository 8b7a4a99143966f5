"""Processes a test started, looked at from outside."""

from __future__ import annotations


def running(pid: int) -> bool:
    """Whether ``pid`` runs: it exists and is not a zombie waiting to be reaped. A killed process may
    take a moment to go (SIGKILL is delivered asynchronously): wait for it with ``eventually``."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
