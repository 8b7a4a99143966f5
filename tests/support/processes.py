"""Processes a test started, looked at from outside."""

from __future__ import annotations

import subprocess


def running(pid: int) -> bool:
    """Whether ``pid`` runs: it exists and is not a zombie waiting to be reaped. A killed process may
    take a moment to go (SIGKILL is delivered asynchronously): wait for it with ``eventually``."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pgrep(pattern: str) -> list[str]:
    """``pgrep -a -f pattern``: the processes whose command line matches, as "pid command" lines."""
    out = subprocess.run(["pgrep", "-a", "-f", pattern], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if "pgrep" not in line]


def guc_processes(marker: str) -> list[str]:
    """The globus-url-copy processes whose command line has ``marker`` (a port, a path) after it."""
    return pgrep(f"globus-url-copy.*{marker}")
