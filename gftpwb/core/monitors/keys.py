"""The DSL keys of one entry of ``monitors:`` (the schema's ``monitor`` definition)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.scenario.keys import DURATION, Key, object_schema, ref

from .model import GRIDFTP_PORT, TCP_PROCESSES, TYPES

MONITOR_KEYS: tuple[Key, ...] = (
    Key("id", ref("name"), "Name of the monitor: its samples in monitors.jsonl and its events carry it.", True),
    Key("type", {"enum": list(TYPES)},
        "What it reads: cpu (/proc/stat and /proc/loadavg: busy and per-state CPU percent, load), memory "
        "(/proc/meminfo), net (/proc/net/dev: bytes, packets, drops and errors per second per interface), disk "
        "(/proc/diskstats: I/O per second, MiB/s, utilisation and queue per device), tcp (ss -tinp: cwnd, rtt, "
        "retransmissions and delivery rate of the guc data connections) or command (a command whose numeric "
        "output is recorded).", True),
    Key("on", ref("on"), "Where it is polled: local (this machine, the default), a host of the inventory or a "
        "list of them; each host runs one sampler process for all its monitors."),
    Key("interval", DURATION, "How often it is read. Default 1s; at least 0.1s."),
    Key("interfaces", {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "net: the interfaces to report, as names or shell patterns (veth*). Default: all."),
    Key("devices", {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "disk: the devices to report, as names or shell patterns (sd*, nvme0n1). Default: all but loop, RAM and "
        "optical devices."),
    Key("processes", {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        f"tcp: the programs whose connections count (compared on their first 15 characters, as ss names "
        f"them). Default: {', '.join(TCP_PROCESSES)}. Seeing other users' processes needs root. [\"*\"]: every "
        f"connection not on a control port, without asking ss for the processes (ss -p reads every process's "
        f"file descriptors: on a host with many processes it costs about three times as much CPU)."),
    Key("control_ports", {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 1,
                                                                     "maximum": 65535}},
        f"tcp: connections on these ports are control channels, not data, and are left out. Default: "
        f"{GRIDFTP_PORT} and the ports of the scenario's ftp:// and gsiftp:// URLs."),
    Key("command", {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "command: the command to run at every interval, as a list of arguments (no shell; write [sh, -c, ...] "
        "for one). It must finish within the interval (at least 1s). Each output line that is a number, or "
        "a name and a number (queue 12, queue=12), is recorded."),
)


def monitor_definition() -> dict[str, Any]:
    return object_schema(MONITOR_KEYS, "A monitor polled on its hosts while the scenario runs.")
