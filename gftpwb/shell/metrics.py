"""The figures for Prometheus, exposed with its official client library (prometheus_client):

* :class:`MetricsSink`: a bus subscriber keeping the live figures (:class:`gftpwb.core.metrics.live.
  LiveMetrics`) behind a lock, since scrapes and pushes read them from other threads;
* :func:`serve`: ``--metrics HOST:PORT``, an HTTP endpoint (``/metrics``) while the run lasts;
* :class:`Pusher`: ``--pushgateway URL``, a push at the end of each run (in a thread of its own, so a
  slow gateway never holds a run up; pushes that pile up collapse into one) and a last one when the
  scenario run ends, whose failure the caller reports;
* :func:`push`, :func:`textfile`: a finished directory's figures (``gftpwb report --pushgateway``,
  ``--openmetrics FILE`` for node_exporter's textfile collector).

What the families are is the core's (:mod:`gftpwb.core.metrics`); here they only become
prometheus_client's metric families. A push that fails loses nothing: the results directory has
every result, and ``gftpwb report DIR --pushgateway URL`` pushes them again.
"""

from __future__ import annotations

import errno
import socket
import threading
import urllib.error
from collections.abc import Callable, Iterable, Iterator
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest, push_to_gateway, start_http_server
from prometheus_client.registry import Collector

from gftpwb.core.errors import EnvironmentProblem, UsageError
from gftpwb.core.events import Event, RunFinished, ScenarioFinished
from gftpwb.core.metrics.live import LiveMetrics
from gftpwb.core.metrics.model import COUNTER, Family

JOB = "gftpwb"  # the pushgateway's job label of every push
PUSH_TIMEOUT_S = 10.0


def to_prometheus(family: Family) -> Metric:
    """A core family as prometheus_client's (a counter's name without ``_total``: the library adds it)."""
    made: Metric
    if family.type == COUNTER:
        made = CounterMetricFamily(family.name, family.help, labels=list(family.labels))
    else:
        made = GaugeMetricFamily(family.name, family.help, labels=list(family.labels))
    for values, value in family.samples:
        made.add_metric(list(values), value)
    return made


class FamiliesCollector(Collector):
    """A prometheus_client collector of core families: ``source()`` is asked at every collection."""

    def __init__(self, source: Callable[[], list[Family]]):
        self.source = source

    def collect(self) -> Iterator[Metric]:
        for family in self.source():
            yield to_prometheus(family)


def merge(groups: Iterable[list[Family]]) -> list[Family]:
    """Families of several scenarios as one list: the samples of families of the same name together."""
    merged: dict[str, Family] = {}
    for families in groups:
        for family in families:
            if family.name in merged:
                merged[family.name].samples.extend(family.samples)
            else:
                merged[family.name] = Family(family.name, family.type, family.help, family.labels,
                                             list(family.samples))
    return list(merged.values())


def registry_of(source: Callable[[], list[Family]]) -> CollectorRegistry:
    """A registry with only gftpwb's figures (none of the client library's process figures)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FamiliesCollector(source))
    return registry


class MetricsSink:
    """The live figures of a scenario run: a bus subscriber, and the registry scrapes and pushes read."""

    def __init__(self) -> None:
        self.live = LiveMetrics()
        self._lock = threading.Lock()
        self.registry = registry_of(self.families)
        self.pusher: Pusher | None = None

    def __call__(self, event: Event) -> None:
        with self._lock:
            self.live(event)
        if self.pusher is not None and isinstance(event, RunFinished | ScenarioFinished):
            self.pusher.request()

    def families(self) -> list[Family]:
        with self._lock:
            return self.live.families()


# --- the endpoint -------------------------------------------------------------------------------


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9464`` for an IPv6 address, ``:9464`` for every address) as (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise UsageError(f"--metrics {text!r}: write HOST:PORT, e.g. 127.0.0.1:9464 (port 0: any free port)")
    host = host.strip("[]") or "0.0.0.0"
    return host, int(port)


class MetricsServer:
    """The HTTP endpoint while it runs; :attr:`url` is where Prometheus scrapes it."""

    def __init__(self, server, thread: threading.Thread):
        self._server = server
        self._thread = thread
        host, port = server.server_address[:2]
        self.port = port
        self.url = f"http://{f'[{host}]' if ':' in host else host}:{port}/metrics"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def serve(address: str, registry: CollectorRegistry) -> MetricsServer:
    """Serve ``registry`` at ``http://HOST:PORT/metrics`` on the port as given (below 1024 too, where the
    system lets this user listen, as Prometheus' exporters do); a port in use, a host that is not this
    machine's or a port the system does not let it open is refused with a clear message (exit 3) before
    anything runs."""
    host, port = parse_address(address)
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except socket.gaierror as exc:
        raise EnvironmentProblem(f"--metrics {address}: unknown host {host!r} ({exc.strerror})") from None
    except OSError as exc:
        why = {errno.EADDRINUSE: "the port is in use (another program listens there); pick another or 0 for any",
               errno.EACCES: "the system does not let this user listen on that port (ports below "
                             "net.ipv4.ip_unprivileged_port_start, 1024 by default, need root or "
                             "CAP_NET_BIND_SERVICE); pick a higher one",
               errno.EADDRNOTAVAIL: f"{host} is not an address of this machine"}.get(exc.errno or 0,
                                                                                   exc.strerror or str(exc))
        raise EnvironmentProblem(f"--metrics {address}: cannot listen: {why}; nothing was run") from None
    return MetricsServer(server, thread)


# --- the pushgateway ------------------------------------------------------------------------------


def check_gateway_url(url: str) -> str:
    """The pushgateway's URL as given, refused (exit 2) when it is no http(s) URL with a host."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--pushgateway {url!r}: write the gateway's URL, e.g. http://127.0.0.1:9091")
    return url


def push_error(url: str, exc: BaseException) -> str:
    """Why a push failed, in a sentence."""
    if isinstance(exc, urllib.error.HTTPError):
        body = exc.read().decode("utf-8", "replace").strip()[:300] if exc.fp is not None else ""
        return f"the pushgateway at {url} answered {exc.code} {exc.reason}" + (f": {body}" if body else "")
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    text = getattr(reason, "strerror", None) or str(reason)
    return f"cannot reach the pushgateway at {url}: {text}"


def push(url: str, registry: CollectorRegistry, scenario: str) -> None:
    """Push ``registry`` to the gateway, replacing the group job=gftpwb, scenario=NAME (raises on failure)."""
    push_to_gateway(url, job=JOB, registry=registry, grouping_key={"scenario": scenario}, timeout=PUSH_TIMEOUT_S)


class Pusher:
    """Pushes in a thread of its own when asked (:meth:`request`: cheap, never waits); :meth:`finish`
    makes the last push in the caller's thread and says whether it failed."""

    def __init__(self, url: str, registry: CollectorRegistry, scenario: str,
                 warn: Callable[[str], None] = lambda text: None):
        self.url = url
        self.registry = registry
        self.scenario = scenario
        self.warn = warn
        self.pushes = 0
        self.failures = 0
        self.last_error = ""
        self._wanted = threading.Event()
        self._ending = False
        self._thread = threading.Thread(target=self._loop, name="gftpwb-pushgateway", daemon=True)
        self._thread.start()

    def request(self) -> None:
        self._wanted.set()

    def _loop(self) -> None:
        while True:
            self._wanted.wait()
            if self._ending:
                return
            self._wanted.clear()
            self._push()

    def _push(self) -> bool:
        self.pushes += 1
        try:
            push(self.url, self.registry, self.scenario)
        except (OSError, ValueError) as exc:  # urllib's errors are OSErrors; a bad URL a ValueError
            self.failures += 1
            error = push_error(self.url, exc)
            if not self.last_error:
                self.warn(f"{error}; the run goes on, its results directory keeps every result")
            self.last_error = error
            return False
        if self.last_error:
            self.warn(f"the pushgateway at {self.url} takes pushes again")
        self.last_error = ""
        return True

    def finish(self) -> str:
        """The last push (everything the run finished); "" when it went through, else why not."""
        self._ending = True
        self._wanted.set()
        self._thread.join()
        return "" if self._push() else self.last_error


def textfile(path: str, registry: CollectorRegistry) -> None:
    """Write the figures in the text format node_exporter's textfile collector reads (``*.prom``),
    atomically (a temporary file in the same directory, renamed), so the collector never reads half."""
    from .files import atomic_write

    try:
        atomic_write(path, generate_latest(registry).decode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write the OpenMetrics figures to {path}: {exc.strerror or exc}") from None

