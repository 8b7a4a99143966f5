"""The environment of a scenario run, for ``meta.json``: for every host that runs something, what it
is (kernel, CPU, guc and GridFTP server versions, TCP buffer caps and congestion control) and how it
reaches the servers its runs talk to (route and MTU; the banner of each (Grid)FTP server, which names
the server's version). Pure: what to probe comes from the plan (each kind names its runs' servers,
:meth:`gftpwb.core.registry.Planner.endpoints`); the shell runs the host probe of ``hosts check``
(:func:`gftpwb.core.hostcheck.probe_script`) on each host and hands the answers back here.

Results from two environments are only comparable when these agree; ``compare`` (later) warns when
they do not. So ``links`` says on what path a run was measured when it crossed a WAN link of the lab
(round-trip time, loss, rate, how the link was made: :mod:`gftpwb.core.wanlink`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .hostcheck import ProbeFacts
from .registry import registry
from .specs import RunSpec
from .wanlink import links_on_path

BANNER_SCHEMES = ("ftp", "gsiftp")  # servers that greet with a 220 banner guc -dbg shows


@dataclass
class HostProbe:
    """What to probe on one host: the servers whose banner to read, the addresses to route."""

    servers: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)


def url_host(url: str) -> str:
    """``gsiftp://user@[::1]:2811/x`` -> ``::1``; ``ftp://h:2811/`` -> ``h``."""
    netloc = url.partition("://")[2].split("/", 1)[0].rpartition("@")[2]
    if netloc.startswith("["):
        return netloc[1:].split("]", 1)[0]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def hosts_of(spec: RunSpec) -> list[str]:
    """The hosts a spec runs on (a gfapi run spans several: ``a,b``; host names never hold a comma)."""
    return [name for name in spec.host.split(",") if name]


def probes(specs: Sequence[RunSpec]) -> dict[str, HostProbe]:
    """Per host used by the plan, the servers and addresses its runs talk to (in plan order)."""
    out: dict[str, HostProbe] = {}
    reg = registry()
    for spec in specs:
        kind = reg.find(spec.kind)
        endpoints = kind.planner.endpoints(spec) if kind is not None else ()
        for host in hosts_of(spec):
            probe = out.setdefault(host, HostProbe())
            for url in endpoints:
                if url.partition("://")[0] in BANNER_SCHEMES and url not in probe.servers:
                    probe.servers.append(url)
                address = url_host(url)
                if address and address not in probe.addresses:
                    probe.addresses.append(address)
    return out


def environment(facts: Mapping[str, ProbeFacts | str], *, version: str, collected_at: str,
                seconds: float, lab_links: Sequence[Mapping[str, Any]] = (),
                wanted: Mapping[str, HostProbe] | None = None) -> dict[str, Any]:
    """``meta.json``'s ``environment``: per host its probed facts, or the error that kept the probe
    from answering; plus the gftpwb that ran, when and how long collecting took; and of the lab's WAN
    links on this machine (``lab_links``) those the run's traffic may have crossed: one a host routed
    through, or one whose two ends the run talked to (``wanted``: what was probed)."""
    hosts: dict[str, Any] = {}
    addresses: set[str] = set()
    devices: set[str] = set()
    for probe in (wanted or {}).values():
        addresses.update(probe.addresses)
    for name, got in facts.items():
        hosts[name] = {"error": got} if isinstance(got, str) else got.environment()
        if not isinstance(got, str):
            devices.update(route.dev for route in got.routes.values() if route.dev)
            addresses.update(route.ip for route in got.routes.values() if route.ip)
    return {"gftpwb_version": version, "collected_at": collected_at, "seconds": round(seconds, 3), "hosts": hosts,
            "links": links_on_path(lab_links, addresses, devices)}
