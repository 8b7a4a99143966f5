"""``gftpwb run``'s results out while they happen: ``--events jsonl`` / ``--events-file PATH`` (the
event stream), ``--metrics HOST:PORT`` (the Prometheus endpoint) and ``--pushgateway URL``.

:func:`open_outputs` checks and opens all of them before anything runs (a port in use, a file that
cannot be made: a clear message and exit 2 or 3, no results directory made); :meth:`LiveOutputs.
finish` closes them after the run and says what went wrong on the way. The outputs are bus
subscribers like the console and the TUI's live state, so they see exactly the same events.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from gftpwb.core.bus import Handler
from gftpwb.core.errors import EXIT_OK, EXIT_PUSH_FAILED, UsageError

EVENT_FORMATS = ("jsonl",)


@dataclass
class LiveOutputs:
    subscribers: list[Handler] = field(default_factory=list)
    events_to_stdout: bool = False
    _closers: list[Callable[[], None]] = field(default_factory=list)
    _stream: object | None = None
    _pusher: object | None = None
    _server: object | None = None

    def finish(self, warn: Callable[[str], None]) -> int:
        """Close every output (the last push included); warnings through ``warn``. Returns
        :data:`~gftpwb.core.errors.EXIT_PUSH_FAILED` when the last push failed, else 0."""
        code = EXIT_OK
        from gftpwb.shell.metrics import Pusher
        from gftpwb.shell.sinks.events import EventStreamSink

        if isinstance(self._pusher, Pusher):
            error = self._pusher.finish()
            if error:
                warn(f"{error}: the figures of this run were not pushed; every result is in the results directory, "
                     "and `gftpwb report DIR --pushgateway URL` pushes them")
                code = EXIT_PUSH_FAILED
        for close in reversed(self._closers):
            close()
        if isinstance(self._stream, EventStreamSink) and self._stream.error:
            warn(self._stream.error)
        return code


def check_options(args: argparse.Namespace) -> None:
    """Options that do not go together, refused before anything is loaded or run."""
    if args.events and args.events_file:
        raise UsageError("--events and --events-file: choose one (--events jsonl writes to stdout)")
    if args.events and args.tui:
        raise UsageError("--events jsonl writes to stdout, where the TUI draws: use --events-file PATH with --tui")


def check_outputs(args: argparse.Namespace) -> None:
    """Refuse what :func:`open_outputs` would refuse, for ``--dry-run``, which opens nothing: the
    ``--metrics`` endpoint is opened and closed at once (the same checks: HOST:PORT, a port in use, an
    address not of this machine), the ``--pushgateway`` URL is checked, and the ``--events-file`` is
    looked at without being made (a FIFO would wait for its reader)."""
    if args.metrics:
        from prometheus_client import CollectorRegistry

        from gftpwb.shell.metrics import serve

        serve(args.metrics, CollectorRegistry()).close()
    if args.pushgateway:
        from gftpwb.shell.metrics import check_gateway_url

        check_gateway_url(args.pushgateway)
    if args.events_file:
        path = args.events_file
        where = path if os.path.exists(path) else os.path.dirname(path) or "."
        if not os.path.isdir(os.path.dirname(path) or "."):
            raise UsageError(f"--events-file {path}: cannot write it: {os.strerror(errno.ENOENT)}")
        if not os.access(where, os.W_OK) or os.path.isdir(path):
            why = errno.EISDIR if os.path.isdir(path) else errno.EACCES
            raise UsageError(f"--events-file {path}: cannot write it: {os.strerror(why)}")


def open_outputs(args: argparse.Namespace, scenario: str, warn: Callable[[str], None]) -> LiveOutputs:
    """Open what ``args`` ask for; raises UsageError or EnvironmentProblem (nothing left open then)."""
    out = LiveOutputs()
    try:
        _open(args, scenario, warn, out)
    except BaseException:
        for close in reversed(out._closers):
            close()
        raise
    return out


def _open(args: argparse.Namespace, scenario: str, warn: Callable[[str], None], out: LiveOutputs) -> None:
    if args.events or args.events_file:
        from gftpwb.shell.sinks.events import EventStreamSink

        if args.events:
            stream = EventStreamSink(sys.stdout.buffer, name="stdout")
            out.events_to_stdout = True
        else:
            stream = EventStreamSink.to_file(args.events_file)
        out._stream = stream
        out._closers.append(stream.close)
        out.subscribers.append(stream)
    if args.metrics or args.pushgateway:
        from gftpwb.shell.metrics import MetricsSink, Pusher, check_gateway_url, serve

        sink = MetricsSink()
        if args.pushgateway:
            check_gateway_url(args.pushgateway)
        if args.metrics:
            server = serve(args.metrics, sink.registry)
            out._server = server
            out._closers.append(server.close)
            warn(f"metrics: {server.url}")
        if args.pushgateway:
            sink.pusher = out._pusher = Pusher(args.pushgateway, sink.registry, scenario, warn=warn)
        out.subscribers.append(sink)
