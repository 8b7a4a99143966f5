"""Which sampler runs where, reading what: a scenario's monitors grouped by host into
:class:`~.sampler.Probe` lists (one sampler process per host), and the GridFTP control ports a tcp
monitor leaves out by default. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from gftpwb.core.specs import RunSpec

from .model import ANY_PROCESS, COMMAND, GRIDFTP_PORT, TCP, Monitor
from .sampler import Probe

DEFAULT_PORTS = {"gsiftp": GRIDFTP_PORT, "ftp": 21}


def control_ports(specs: Iterable[RunSpec]) -> tuple[int, ...]:
    """2811 and the ports of the runs' ftp:// and gsiftp:// sources and targets: where GridFTP
    control channels connect (data channels use other ports)."""
    ports = {GRIDFTP_PORT}
    for spec in specs:
        for url in (spec.source, spec.target):
            try:
                parts = urlsplit(url)
                port = parts.port
            except ValueError:
                continue
            if parts.scheme in DEFAULT_PORTS:
                ports.add(port or DEFAULT_PORTS[parts.scheme])
    return tuple(sorted(ports))


def probes_by_host(monitors: Sequence[Monitor], default_control_ports: tuple[int, ...] = (GRIDFTP_PORT,)
                   ) -> dict[str, list[tuple[Monitor, Probe]]]:
    """Host -> its monitors with their probes, in the order of ``monitors:`` (probe index = position)."""
    out: dict[str, list[tuple[Monitor, Probe]]] = {}
    for index, monitor in enumerate(monitors):
        probe = Probe(
            index=index,
            interval_cs=max(1, round(monitor.interval_s * 100)),
            type=monitor.type,
            command=monitor.command if monitor.type == COMMAND else (),
            timeout_s=max(monitor.interval_s, 1.0),
            skip_ports=(monitor.control_ports or default_control_ports) if monitor.type == TCP else (),
            owners=monitor.type == TCP and ANY_PROCESS not in monitor.processes,
        )
        for host in dict.fromkeys(monitor.on):
            out.setdefault(host, []).append((monitor, probe))
    return out
