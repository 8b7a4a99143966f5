"""One iperf3 run's output on its way to a record: the server's text (live progress), the client's
JSON (results), and the decisions taken at run time (port, RTT, window). Pure: the runner owns the
processes and clocks and hands this bytes, exit statuses and times."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.output import Outcome, ParsedItem, TextLine
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, bound_output
from gftpwb.core.units import format_duration

from .job import PROBE_SECONDS, Iperf3Job
from .result import Iperf3OutputError, parse_json, summarize
from .serverlog import ServerLog


@dataclass
class Iperf3Session:
    job: Iperf3Job
    server_log: ServerLog = field(default_factory=ServerLog)
    port: int | None = None
    window: int | None = None
    rtt_s: float | None = None
    rtt_source: str | None = None  # "given" | "measured"
    server_argv: list[str] = field(default_factory=list)
    client_argv: list[str] = field(default_factory=list)
    client_seconds: float | None = None
    ports_tried: list[int] = field(default_factory=list)
    _stdout: list[str] = field(default_factory=list)
    _stderr: list[str] = field(default_factory=list)
    _notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server_log.main_test = 2 if self.job.needs_probe else 1
        if self.job.rtt_s is not None:
            self.rtt_s, self.rtt_source = self.job.rtt_s, "given"

    # --- output ---------------------------------------------------------------------------------

    def feed_server(self, stream: str, data: bytes) -> list[ParsedItem]:
        return self.server_log.feed(stream, data)

    def feed_client(self, stream: str, data: bytes) -> list[ParsedItem]:
        text = data.decode("utf-8", errors="replace")
        if stream == "stdout":
            self._stdout.append(text)  # the JSON document, whole at the end of the test
            return []
        self._stderr.append(text)
        return [TextLine("stderr", f"client: {line}") for line in text.splitlines() if line.strip()]

    def close(self) -> list[ParsedItem]:
        return self.server_log.close()

    def note(self, text: str) -> None:
        """Something the runner did that the output should show (a port taken, the probe's RTT)."""
        self._notes.append(text)

    def measured_rtt(self, rtt_s: float) -> None:
        self.rtt_s, self.rtt_source = rtt_s, "measured"
        self.note(f"RTT probe: {rtt_s * 1000:.3f} ms (smallest tcp_info RTT of a {PROBE_SECONDS} s single-stream run)")

    # --- the outcome ----------------------------------------------------------------------------

    def output(self) -> str:
        parts = [f"# {note}" for note in self._notes]
        if self.server_argv:
            parts.append(f"# server on {self.job.server}: {' '.join(self.server_argv)}")
            parts.extend(self.server_log.lines)
        if self.client_argv:
            parts.append(f"# client on {self.job.client}: {' '.join(self.client_argv)}")
            parts.append("".join(self._stderr).rstrip("\n"))
            parts.append("".join(self._stdout).rstrip("\n"))
        return bound_output("\n".join(p for p in parts if p))

    def details(self) -> dict[str, Any]:
        job = self.job
        return {"iperf3": {
            "client": job.client, "server": job.server, "server_address": job.server_address, "port": self.port,
            "ports_tried": self.ports_tried, "server_argv": self.server_argv, "client_argv": self.client_argv,
            "window_bytes": self.window, "window_from": "bdp" if job.window == "bdp" else (
                "given" if self.window is not None else None),
            "bandwidth_mib_s": job.bandwidth_mib_s,
            "rtt_ms": round(self.rtt_s * 1000, 3) if self.rtt_s is not None else None, "rtt_from": self.rtt_source,
            "client_seconds": self.client_seconds,
        }}

    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome:
        details = self.details()
        output = self.output()
        if interrupted:
            return Outcome(INTERRUPTED, None, None, None, "interrupted by the user (Ctrl-C); the iperf3 client and "
                           "server were stopped", output, details)
        if timed_out:
            limit = format_duration(timeout_s) if timeout_s else "its time limit"
            where = "" if self.client_argv else " before the client started"
            return Outcome(TIMEOUT, None, None, None, f"timed out after {limit}{where}; the iperf3 client and server "
                           "were stopped", output, details)
        if start_error:
            return Outcome(FAILED, None, None, None, start_error, output, details)
        try:
            result = summarize(parse_json("".join(self._stdout)))
        except Iperf3OutputError as exc:
            stderr = " ".join("".join(self._stderr).split())
            server = f"; server: {self.server_log.errors[-1]}" if self.server_log.errors else ""
            status = f" (exit status {exit_code})" if exit_code else ""
            return Outcome(FAILED, None, None, None, f"{exc}{status}{server}{'; ' + stderr if stderr else ''}",
                           output, details)
        details["iperf3"].update(result.figures)
        if exit_code:
            return Outcome(FAILED, result.received_bytes, None, result.received_mib_s,
                           f"the iperf3 client exited with status {exit_code}", output, details)
        moved = result.received_bytes + result.omitted_bytes
        incl_setup = mib_per_s(moved, self.client_seconds) if self.client_seconds else None
        return Outcome(PASSED, result.received_bytes, incl_setup, result.received_mib_s, "", output, details)
