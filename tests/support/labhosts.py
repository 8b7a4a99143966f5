"""Helpers for tests against the lab's namespace hosts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

from gftpwb.core.scenario.model import Host
from gftpwb.shell.lab.netlab import NetLab


def inventory(lab: NetLab, **overrides: dict) -> dict[str, Host]:
    status = lab.status()
    assert status is not None
    hosts = {}
    for h in status["hosts"]:
        values = {"name": h["name"], "address": h["address"], "user": "root", "identity": status["identity"],
                  "known_hosts": status["known_hosts"], "connect_timeout_s": 5.0}
        values.update(overrides.get(h["name"], {}))
        hosts[h["name"]] = Host(**values)
    return hosts


def hosts_yaml(lab: NetLab, **extra: str) -> str:
    """The lab's inventory snippet, plus extra ``name: {...}`` entries (YAML flow text)."""
    status = lab.status()
    assert status is not None
    with open(status["inventory"]) as handle:
        text = "".join(line for line in handle if not line.startswith("#"))
    return text + "".join(f"  {name}: {value}\n" for name, value in extra.items())


def netns_of(lab: NetLab, name: str) -> str:
    status = lab.status()
    assert status is not None
    return next(h["netns"] for h in status["hosts"] if h["name"] == name)


def processes_in(netns: str) -> list[tuple[int, str]]:
    """(pid, command line) of every live process in a namespace."""
    out = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True).stdout.split()
    found = []
    for pid in out:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        found.append((int(pid), cmdline))
    return found


def started_by_gftpwb(netns: str, marker: str = "globus-url-copy") -> list[tuple[int, str]]:
    """Processes in the namespace that gftpwb started: guc, the wrapper, and anything with ``marker``."""
    return [(pid, cmd) for pid, cmd in processes_in(netns)
            if marker in cmd or "gftpwb-wrap" in cmd or "gftpwb-run" in cmd]


def sshd_pids(lab: NetLab, name: str) -> tuple[int, list[int]]:
    """(listener pid, per-connection session pids) of a host's sshd."""
    state = lab.load()
    assert state is not None
    host = next(h for h in state.hosts if h.name == name)
    assert host.sshd_pid is not None
    sessions = [pid for pid, cmd in processes_in(host.netns) if cmd.startswith("sshd:") and pid != host.sshd_pid]
    return host.sshd_pid, sessions


def kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
