"""The connection-test driver: guc's ``-dbg`` conversation in, "which step failed" out (pure).

tgftp's connection test moves one byte with ``globus-url-copy -dbg -vb -len 1`` and logs the whole
control-channel conversation, so a person can see where a firewall or a server configuration stops
a transfer. We read the same conversation and name the step ourselves:

* **connect** -- ``debug: connecting to URL`` until the server's ``220`` greeting;
* **login** -- ``debug: authenticating with URL`` until ``230`` (a ``530`` is a refused login);
* **data channel** -- from the first data-channel command (PASV, PORT, ERET, STOR, ...) until
  ``226 Transfer Complete``; a failed PASV, a refused data connection or a stall lands here.

A third-party transfer talks to two servers, so each endpoint (URL) has its own three steps.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from gftpwb.core.output import Outcome
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT
from gftpwb.kinds.guc.driver import summarize_error
from gftpwb.kinds.guc.output import ParsedItem, TextLine
from gftpwb.kinds.guc.session import GucRun

from .argv import CONNECTION_TEST_LENGTH, build_connection_argv

__all__ = ["CONNECTION_TEST_LENGTH", "ConnectionTestRun", "DebugConversation", "build_connection_argv", "redact"]

STEPS = ("connect", "login", "data channel")
NOT_REACHED, STARTED, OK, FAILED_STEP = "not reached", "started", "ok", "failed"

# Commands that set up or use a data channel; sending one means the data-channel step has begun.
DATA_COMMANDS = frozenset({"PASV", "EPSV", "SPAS", "PORT", "EPRT", "SPOR", "DCAU", "PROT", "PBSZ", "RETR", "STOR",
                           "ERET", "ESTO", "APPE", "LIST", "NLST", "MLSD", "MLSC", "MLSR"})

_DEBUG = re.compile(r"^debug: (?P<what>connecting to|authenticating with|response from|sending command to|"
                    r"fault on connection to|data callback, error|operation complete|starting to \w+)"
                    r"(?: (?P<rest>.*))?$")
_REPLY = re.compile(r"^(?P<code>[1-5]\d\d)(?P<sep>[ -])(?P<text>.*)$")
_CREDENTIALS = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*://)(?P<user>[^/@:]*):[^/@]*@", re.IGNORECASE)


def redact(url: str) -> str:
    """``ftp://user:secret@host/`` -> ``ftp://user:***@host/``: reports never repeat a password."""
    return _CREDENTIALS.sub(lambda m: f"{m['scheme']}{m['user']}:***@", url, count=1)


@dataclass
class Step:
    name: str
    status: str = NOT_REACHED
    detail: str = ""


@dataclass
class Endpoint:
    url: str
    steps: dict[str, Step] = field(default_factory=lambda: {name: Step(name) for name in STEPS})

    def step(self, name: str) -> Step:
        return self.steps[name]

    def current(self) -> Step | None:
        """The furthest step that has begun."""
        begun = [s for s in self.steps.values() if s.status != NOT_REACHED]
        return begun[-1] if begun else None


@dataclass(frozen=True)
class StepReport:
    url: str
    step: str
    status: str
    detail: str


@dataclass(frozen=True)
class ConnectionReport:
    """Every endpoint's steps, and the step that failed first (None when the test passed)."""

    steps: tuple[StepReport, ...]
    failed_step: str | None
    failed_url: str | None
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class DebugConversation:
    """Reads guc's ``-dbg`` lines (stderr) one at a time and tracks each endpoint's steps."""

    def __init__(self) -> None:
        self.endpoints: dict[str, Endpoint] = {}
        self._expect: tuple[str, str] | None = None  # ("reply" | "command", url) for the next line
        self._reply: list[str] = []
        self._reply_url = ""
        self.data_error = ""
        self.complete = False

    def _endpoint(self, url: str) -> Endpoint:
        url = redact(url.rstrip(":"))
        if url not in self.endpoints:
            self.endpoints[url] = Endpoint(url)
        return self.endpoints[url]

    def feed_line(self, line: str) -> None:
        match = _DEBUG.match(line)
        if match is None:
            self._continuation(line)
            return
        self._finish_reply()
        what, rest = match["what"], (match["rest"] or "")
        if what == "connecting to":
            self._endpoint(rest).step("connect").status = STARTED
        elif what == "authenticating with":
            endpoint = self._endpoint(rest)
            _complete(endpoint.step("connect"))
            endpoint.step("login").status = STARTED
        elif what == "response from":
            self._expect = ("reply", rest)
        elif what == "sending command to":
            self._expect = ("command", rest)
        elif what == "fault on connection to":
            url, _, message = rest.partition(": ")
            self._fault(self._endpoint(url), message)
        elif what == "data callback, error":
            self.data_error = rest.split(", buffer ")[0].strip()
        elif what == "operation complete":
            self.complete = True

    def _continuation(self, line: str) -> None:
        if self._expect is None:
            return
        kind, url = self._expect
        if kind == "command":
            self._expect = None
            self._command(self._endpoint(url), line.strip())
            return
        if not line.strip():
            self._finish_reply()
            return
        self._reply.append(line.rstrip())
        self._reply_url = url
        match = _REPLY.match(line)
        if match and match["sep"] == " ":  # the last line of a (multi-line) reply
            self._finish_reply()

    def _command(self, endpoint: Endpoint, command: str) -> None:
        verb = command.split(" ", 1)[0].upper()
        _complete(endpoint.step("connect"))
        if endpoint.step("login").status == STARTED:
            _complete(endpoint.step("login"))
        if verb in DATA_COMMANDS and endpoint.step("data channel").status == NOT_REACHED:
            endpoint.step("data channel").status = STARTED

    def _finish_reply(self) -> None:
        lines, self._reply = self._reply, []
        self._expect = None
        if not lines:
            return
        match = _REPLY.match(lines[0])
        if match is None:
            return
        code = int(match["code"])
        endpoint = self._endpoint(self._reply_url)
        step = endpoint.current()
        if step is None:
            return
        text = reply_text(lines)
        if code >= 400:
            # Refusals count while their step is in flight; a 5xx to an optional command later on
            # (SITE, FEAT on an old server) is something guc shrugs off, and so do we.
            if step.status == STARTED:
                _fail(step, text)
        elif (step.name, code) in (("connect", 220), ("login", 230)):
            _complete(step)
        elif step.name == "data channel" and code == 226:
            if step.status == FAILED_STEP:  # guc recovered, e.g. PORT after a refused PASV
                step.status, step.detail = OK, f"recovered after: {step.detail}"
            _complete(step)

    def _fault(self, endpoint: Endpoint, message: str) -> None:
        step = endpoint.current() or endpoint.step("connect")
        if step.status != FAILED_STEP:
            _fail(step, message.strip() or step.detail or "fault on the connection")

    def close(self) -> None:
        self._finish_reply()

    def report(self, *, passed: bool, timed_out: bool = False, fallback_error: str = "") -> ConnectionReport:
        """The steps as seen; on failure, the step to blame and why."""
        if passed:
            for endpoint in self.endpoints.values():
                for step in endpoint.steps.values():
                    _complete(step)
        failed = next(((e, s) for e in self.endpoints.values() for s in e.steps.values()
                       if s.status == FAILED_STEP), None)
        if failed is None and not passed:
            # Nothing said no: blame the step in flight (a timeout on a silent firewall lands here).
            in_flight = next(((e, s) for e in self.endpoints.values() for s in e.steps.values()
                              if s.status == STARTED), None)
            if in_flight is not None:
                endpoint, step = in_flight
                why = "no answer before the timeout" if timed_out else (self.data_error or fallback_error)
                _fail(step, why)
                failed = in_flight
        steps = tuple(StepReport(e.url, s.name, s.status, s.detail)
                      for e in self.endpoints.values() for s in e.steps.values())
        if passed:
            return ConnectionReport(steps, None, None, "")
        if failed is None:
            # guc stopped before it tried to connect (a bad URL, a missing option value).
            return ConnectionReport(steps, "connect", None, fallback_error or "guc did not try to connect")
        endpoint, step = failed
        return ConnectionReport(steps, step.name, endpoint.url, step.detail)


def _complete(step: Step) -> None:
    if step.status in (NOT_REACHED, STARTED):
        step.status = OK


def _fail(step: Step, detail: str) -> None:
    step.status = FAILED_STEP
    step.detail = detail


def reply_text(lines: list[str]) -> str:
    """A server reply without its codes and trailer: ``530 Login incorrect.`` -> ``Login incorrect.``"""
    texts = []
    for line in lines:
        match = _REPLY.match(line)
        text = (match["text"] if match else line).strip(" :")
        if text and text != "End." and text not in texts:
            texts.append(text)
    return " / ".join(texts)


@dataclass
class ConnectionTestRun:
    """A run session (see ``exec.runners.Session``): guc's output plus the ``-dbg`` conversation."""

    guc: GucRun = field(default_factory=lambda: GucRun(length_bytes=CONNECTION_TEST_LENGTH))
    conversation: DebugConversation = field(default_factory=DebugConversation)
    last_report: ConnectionReport | None = None

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        return self._watch(self.guc.feed(stream, data))

    def close(self) -> list[ParsedItem]:
        items = self._watch(self.guc.close())
        self.conversation.close()
        return items

    def _watch(self, items: list[ParsedItem]) -> list[ParsedItem]:
        for item in items:
            if isinstance(item, TextLine) and item.stream == "stderr":
                self.conversation.feed_line(item.text)
        return items

    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome:
        base = self.guc.outcome(exit_code, wall_seconds, timed_out=timed_out, interrupted=interrupted,
                                timeout_s=timeout_s, start_error=start_error)
        passed = base.status == PASSED
        guc_error = summarize_error(self.guc.stderr_lines) if exit_code not in (0, None) else ""
        self.last_report = self.conversation.report(passed=passed, timed_out=timed_out,
                                                    fallback_error=start_error or guc_error or base.error)
        if passed:
            # tgftp computes no rate for a connection test; one byte says nothing about speed.
            return Outcome(PASSED, CONNECTION_TEST_LENGTH, None, None, "", base.output)
        if base.status == INTERRUPTED or start_error:
            return base
        report = self.last_report
        where = f" ({report.failed_url})" if report.failed_url else ""
        headline = f"connection test failed at {report.failed_step}{where}: {report.detail}"
        rest = base.error if base.status == TIMEOUT else (guc_error or base.error)
        extra = [line for line in rest.splitlines() if line.strip(" :") and line.strip(" :") not in headline]
        error = "\n".join([headline, *extra])
        return Outcome(base.status if base.status == TIMEOUT else FAILED, base.bytes, None, None, error, base.output)

    def details(self) -> dict[str, Any]:
        """What the record keeps under ``details["connection_test"]``."""
        report = self.last_report
        return {} if report is None else report.to_dict()

