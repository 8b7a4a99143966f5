"""What a scenario's ``monitors:`` ask for: one :class:`Monitor` per entry, typed.

A monitor is polled on each of its hosts (``on``) every ``interval`` while the scenario runs. Its
``type`` says what it reads: ``cpu`` (/proc/stat and /proc/loadavg), ``memory`` (/proc/meminfo),
``net`` (/proc/net/dev), ``disk`` (/proc/diskstats), ``tcp`` (``ss -tinp``: the guc data
connections) or ``command`` (a user command whose numeric output is recorded).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

CPU = "cpu"
MEMORY = "memory"
NET = "net"
DISK = "disk"
TCP = "tcp"
COMMAND = "command"
TYPES = (CPU, MEMORY, NET, DISK, TCP, COMMAND)

DEFAULT_INTERVAL_S = 1.0
MIN_INTERVAL_S = 0.1  # the sampler's clock (/proc/uptime) counts hundredths of a second
# ``ss -p`` names processes by their ``comm``, cut to 15 characters: globus-gridftp-server shows as
# "globus-gridftp-", so names are compared on their first 15 characters.
COMM_LENGTH = 15
TCP_PROCESSES = ("globus-url-copy", "globus-gridftp-server")
ANY_PROCESS = "*"  # tcp monitors: every connection not on a control port (ss without -p: cheaper)
GRIDFTP_PORT = 2811
# Devices whose I/O is never what a disk monitor is after, unless named: loop, RAM and optical devices.
DISK_EXCLUDED = ("loop*", "ram*", "zram*", "sr*", "fd*")

# The keys each type takes besides id, type, on and interval (the loader refuses the others).
TYPE_KEYS: dict[str, tuple[str, ...]] = {
    CPU: (),
    MEMORY: (),
    NET: ("interfaces",),
    DISK: ("devices",),
    TCP: ("processes", "control_ports"),
    COMMAND: ("command",),
}


@dataclass(frozen=True)
class Monitor:
    """One entry of ``monitors:``. Empty ``interfaces``/``devices``: all (disks but loop, RAM and
    optical devices); empty ``control_ports``: 2811 and the ports of the scenario's ftp:// and
    gsiftp:// URLs (:func:`gftpwb.core.monitors.plan.control_ports`)."""

    id: str
    type: str
    on: tuple[str, ...] = ("local",)
    interval_s: float = field(default=DEFAULT_INTERVAL_S, metadata={"key": "interval"})
    interfaces: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()
    processes: tuple[str, ...] = TCP_PROCESSES
    control_ports: tuple[int, ...] = ()
    command: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for ``--dry-run``: what is read, how often, where."""
        what = {NET: self.interfaces, DISK: self.devices, COMMAND: self.command}.get(self.type, ())
        detail = f" {shlex.join(what)}" if what else ""
        return f"# monitor {self.id}: {self.type}{detail} every {self.interval_s:g}s on {', '.join(self.on)}"
