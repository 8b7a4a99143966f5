"""``baseline:`` of a guc test: an iperf3 run on the same host pair next to every guc run. Pure.

The TeraGrid study judged a GridFTP path by memory-to-memory guc against iperf on the same path with
the same number of streams and the same window: the ratio (GridFTP reached about 95 %) says how much
of the network guc gets. ``baseline`` makes that a planned part of a guc test:

* ``baseline: iperf3``: the hosts come from the test's URLs. The data flows from the source end to the
  target end, so the iperf3 client runs on the source end's host and the server on the target end's,
  and the client connects to the target URL's host, the address guc's data goes to. An end that is a
  file (``file://``, ``/dev/zero``) is the host guc runs on (``on:``). When only the source is a
  server, the iperf3 client runs on guc's host and the server on the source's, with ``-R`` (the
  server sends), so the data takes the same direction. A URL host must be ``localhost``/``127.0.0.1``
  (this machine) or a host of the inventory (by name or address).
* ``baseline: {client: h1, server: h2, server_address: ..., duration: 5s, omit: 1s, ...}``: the same,
  with any of those settings given (the rest still inferred).
* ``baseline: <id of an iperf3 test>``: that test's client, server, address and lengths are used (the
  named test still runs where it stands, as every test does).

Streams are the guc case's ``parallel`` (1 without it) and the window its ``tcp_buffer`` (per stream
in both programs; not passed when guc's is not), so each pair differs only in the program. Each guc
run is preceded by its iperf3 run (one group: ``order`` moves them together), which makes pairs
adjacent in time, under the same conditions of a shared path.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from gftpwb.core.scenario.model import LOCAL, on_tuple
from gftpwb.core.units import parse_duration, parse_size

from .driver import is_server_url
from .model import DEFAULT_BASELINE_S, Baseline

IPERF3_BASELINE = "iperf3"
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
# Settings a baseline mapping (or the iperf3 test it names) may give.
SETTINGS = ("client", "server", "server_address", "port", "duration", "bytes", "omit", "timeout")
DEFAULT_DURATION_S = DEFAULT_BASELINE_S


class BaselineError(ValueError):
    """A baseline that cannot be set up; the message says what to write instead."""


def url_host(url: str) -> str:
    return urlsplit(url).hostname or ""


def host_of_address(address: str, inventory: dict[str, Any]) -> str | None:
    """The inventory host (or ``local``) a URL's host names, by name or by address."""
    if address in LOCAL_NAMES:
        return LOCAL
    for name, entry in inventory.items():
        if name == address or (isinstance(entry, dict) and entry.get("address") == address):
            return name
    return None


def end_host(url: str, guc_host: str, inventory: dict[str, Any], which: str) -> str:
    if not is_server_url(url):
        return guc_host
    host = host_of_address(url_host(url), inventory)
    if host is None:
        raise BaselineError(f"baseline: iperf3 cannot tell which host the {which} {url} is on (its host "
                            f"'{url_host(url)}' is neither this machine nor a host of the inventory, by name or "
                            "address); give baseline: {client: HOST, server: HOST, server_address: ADDRESS}")
    return host


def infer_ends(source: str, target: str, on: tuple[str, ...], inventory: dict[str, Any]) -> dict[str, Any]:
    """client, server, server_address and reverse of the iperf3 run on guc's data path."""
    guc_host = on[0] if len(on) == 1 else LOCAL
    if is_server_url(target):
        return {"client": end_host(source, guc_host, inventory, "source"),
                "server": end_host(target, guc_host, inventory, "target"),
                "server_address": url_host(target), "reverse": False}
    if is_server_url(source):
        return {"client": guc_host, "server": end_host(source, guc_host, inventory, "source"),
                "server_address": url_host(source), "reverse": True}
    raise BaselineError("baseline: iperf3 needs a network path, but both ends of this test are files on the host "
                        "guc runs on")


def settings_of(value: Any, tests: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], str]:
    """The settings a ``baseline`` value gives (mapping or a named iperf3 test's), and that test's id."""
    if isinstance(value, dict):
        return dict(value), ""
    if value == IPERF3_BASELINE:
        return {}, ""
    named = next((t for t in tests if t.get("id") == value), None)
    if named is None:
        raise BaselineError(f"baseline '{value}' is neither 'iperf3' nor the id of a test of this scenario")
    if named.get("kind") != IPERF3_BASELINE:
        raise BaselineError(f"baseline '{value}' names a test of kind {named.get('kind')}; it must name an iperf3 "
                            "test (or be 'iperf3')")
    if "matrix" in named and any(k in named["matrix"] for k in ("duration", "bytes", "omit")):
        raise BaselineError(f"baseline '{value}' sweeps its length (matrix); a baseline takes one duration or bytes")
    chosen = {k: named[k] for k in SETTINGS if k in named}
    if "client" not in chosen and "on" in named and len(on_tuple(named["on"])) == 1:
        chosen["client"] = on_tuple(named["on"])[0]
    return chosen, str(value)


def build_baseline(value: Any, *, source: str, target: str, on: tuple[str, ...], inventory: dict[str, Any],
                   tests: tuple[dict[str, Any], ...] = ()) -> Baseline:
    """The baseline of a guc test (raises :class:`BaselineError` with the reason)."""
    if len(on) > 1:
        raise BaselineError("a baseline pairs one guc run with one iperf3 run; this test runs on several hosts "
                            "(on:), so give it one")
    given, template = settings_of(value, tests)
    ends: dict[str, Any] = {}
    if not {"client", "server", "server_address"} <= set(given):
        ends = infer_ends(source, target, on, inventory)
    ends.update({k: given[k] for k in ("client", "server", "server_address") if k in given})
    if "server" in given and "server_address" not in given:
        server = given["server"]
        entry = inventory.get(server)
        ends["server_address"] = (entry.get("address") if isinstance(entry, dict) else None) or (
            "127.0.0.1" if server == LOCAL else ends.get("server_address", ""))
    for key in ("client", "server"):
        host = ends[key]
        if host != LOCAL and host not in inventory:
            raise BaselineError(f"baseline: unknown host '{host}' for {key} (not in hosts, and not 'local')")
    if ends["server"] == LOCAL and ends["client"] != LOCAL and ends["server_address"] in LOCAL_NAMES:
        raise BaselineError(f"baseline: the iperf3 server would run on this machine and the client on "
                            f"'{ends['client']}'; give server_address: (the address at which that host reaches "
                            "this machine)")
    nbytes = parse_size(given["bytes"]) if "bytes" in given else None
    duration = None if nbytes is not None else (
        parse_duration(given["duration"]) if "duration" in given else DEFAULT_DURATION_S)
    for name, seconds in (("duration", duration), ("omit", parse_duration(given.get("omit", 0)))):
        if seconds is not None and seconds != int(seconds):
            raise BaselineError(f"baseline: iperf3 takes whole seconds for {name}")
    if duration is not None and duration < 1:
        raise BaselineError("baseline: duration must be at least 1s")
    return Baseline(client=ends["client"], server=ends["server"], server_address=ends["server_address"],
                    reverse=bool(ends.get("reverse", False)), port=given.get("port"), duration_s=duration,
                    bytes=nbytes, omit_s=parse_duration(given.get("omit", 0)),
                    timeout_s=parse_duration(given["timeout"]) if given.get("timeout") else None, template=template)
