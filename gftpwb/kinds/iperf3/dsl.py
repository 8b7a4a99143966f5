"""``kind: iperf3`` tests: the checks the schema cannot express, and the typed model.

The client host is the test's ``client``, else its ``on`` when that names one host (so a scenario
whose ``defaults: on: h1`` runs guc from h1 runs its baseline from h1 too), else local. Every value a
matrix can produce is checked, so a sweep never fails half-way on a bad combination.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.commands import command_of
from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import TestInput
from gftpwb.core.scenario.model import LOCAL, on_tuple
from gftpwb.core.units import parse_duration, parse_size

from .job import MAX_WINDOW
from .model import BDP, DEFAULT_DURATION_S, Iperf3Test, convert_value


def client_of(test: TestInput) -> tuple[str | None, str]:
    """(the client host or None when ambiguous, the key it came from)."""
    raw, merged = test.raw, test.merged
    if "client" in raw:
        return raw["client"], "client"
    if "on" in raw:
        on = on_tuple(raw["on"])
        return (on[0] if len(on) == 1 else None), "on"
    if "client" in merged:
        return merged["client"], "client"
    on = on_tuple(merged.get("on", LOCAL))
    return (on[0] if len(on) == 1 else None), "on"


def _values(test: TestInput, key: str) -> list[Any]:
    """Every value ``key`` takes in the runs of the test: its matrix list, else its own value."""
    matrix = test.raw.get("matrix", {})
    if key in matrix:
        return list(matrix[key])
    return [test.merged[key]] if key in test.merged else []


def _report(test: TestInput, key: str, message: str, *, warning: bool = False) -> None:
    """At the test's own key, else at the key in its matrix, else at the test."""
    if key not in test.raw and key in test.raw.get("matrix", {}):
        line, col = test.pos.of_value((*test.path, "matrix", key))
        target = test.warnings if warning else test.errors
        target.append(Diagnostic(test.filename, line, col, message, severity="warning" if warning else "error"))
        return
    (test.warning if warning else test.error)(message, key if key in test.raw else None)


def check_iperf3_test(test: TestInput) -> None:
    tid = test.id
    client, came_from = client_of(test)
    if client is None:
        test.error(f"test '{tid}': an iperf3 test runs one client, but on: names several hosts; set client: to "
                   "the host the client runs on", "on" if "on" in test.raw else None)
    elif "client" in test.raw and "on" in test.raw and on_tuple(test.raw["on"]) != (client,):
        test.error(f"test '{tid}': on: and client: name different hosts; an iperf3 client runs on client: "
                   "(leave on: out)", "on")
    server = test.merged.get("server", LOCAL)
    for key, host in (("client", client), ("server", server)):
        if host is not None and host != LOCAL and host not in test.inventory:
            known = ", ".join([LOCAL, *test.inventory])
            test.error(f"test '{tid}': unknown host '{host}' for {key} (not in hosts, and not 'local'; known: "
                       f"{known})", key if key in test.raw else (came_from if key == "client" and
                                                                 came_from in test.raw else None))
    if server != LOCAL and test.inventory.get(server, {}).get("slurm_node") and "server_address" not in test.merged:
        test.error(f"test '{tid}': the server runs on the Slurm node of slot '{server}', whose address is known "
                   "only when the allocation is; set server_address: (for the lab's Slurm: 127.0.0.1)", "server")
    if server == LOCAL and client not in (None, LOCAL) and "server_address" not in test.merged:
        test.error(f"test '{tid}': the server runs on this machine and the client on '{client}'; set "
                   f"server_address: to the address at which '{client}' reaches this machine (for the lab: its "
                   "controller_address)", "server")
    _check_lengths(test)
    _check_window(test)


def _check_lengths(test: TestInput) -> None:
    tid = test.id
    for key in ("duration", "omit"):
        for value in _values(test, key):
            seconds = parse_duration(value)
            if seconds != int(seconds):
                _report(test, key, f"test '{tid}': iperf3 takes whole seconds for {key}, got {value!r}")
            elif key == "duration" and seconds < 1:
                _report(test, key, f"test '{tid}': duration must be at least 1s (iperf3 -t 0 sends forever)")
    has_bytes = "bytes" in test.raw or "bytes" in test.raw.get("matrix", {})
    has_duration = "duration" in test.raw or "duration" in test.raw.get("matrix", {})
    if has_bytes and has_duration:
        _report(test, "bytes", f"test '{tid}': set duration or bytes, not both (iperf3 -t or -n)")
    for value in _values(test, "bytes"):
        if parse_size(value) == 0:
            _report(test, "bytes", f"test '{tid}': bytes must be at least 1")


def _check_window(test: TestInput) -> None:
    tid = test.id
    windows = _values(test, "window")
    if BDP in windows:
        if not _values(test, "bandwidth"):
            _report(test, "window", f"test '{tid}': window bdp needs bandwidth: (e.g. 400Mbit/s); the window is "
                                    "bandwidth x RTT / streams")
    else:
        for key in ("bandwidth", "rtt"):
            if key in test.raw or key in test.raw.get("matrix", {}):
                _report(test, key, f"test '{tid}': {key} is only used with window: bdp", warning=True)
    for value in windows:
        if value != BDP and parse_size(value) > MAX_WINDOW:
            _report(test, "window", f"test '{tid}': window {value} exceeds iperf3's limit of 512M")


def build_iperf3_test(test: TestInput) -> Iperf3Test:
    raw, merged = test.raw, test.merged
    client, _ = client_of(test)
    client = client or LOCAL
    server = merged.get("server", LOCAL)
    address = merged.get("server_address", "")
    settings: dict[str, Any] = {}
    for key in ("streams", "window", "bandwidth", "bytes", "reverse", "omit"):
        if key in merged:
            settings[key] = convert_value(key, merged[key])
    if "duration" in merged:
        settings["duration"] = convert_value("duration", merged["duration"])
    elif "bytes" in merged or "bytes" in raw.get("matrix", {}):
        settings["duration"] = None
    else:
        settings["duration"] = DEFAULT_DURATION_S
    timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0.0
    return Iperf3Test(
        id=raw["id"], kind=raw["kind"], description=raw.get("description", ""), client=client, server=server,
        server_address=address, port=merged.get("port"),
        rtt=parse_duration(merged["rtt"]) if "rtt" in merged else None,
        matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
        repeat=merged.get("repeat", 1), timeout_s=timeout or None, comment=merged.get("comment", ""),
        pre=command_of(merged.get("pre")), post=command_of(merged.get("post")),
        comment_command=command_of(merged.get("comment_command")), on=(client,), index=test.index, **settings)
