"""The phases of a traced guc run, read from its ``-dbg`` control conversation (pure).

guc's data channel has no per-I/O hook (its reads and writes happen inside globus_xio, which
offers no trace without the netlogger XIO driver, and that is not in the Grid Community Toolkit),
so a guc trace records what guc does report: per server (each URL of a transfer has its own control
connection) the **connect** (``connecting to`` until the 220 greeting), **login** (``authenticating
with`` until 230), **setup** (feature and mode negotiation, PASV/PORT, until the transfer command)
and **data** (the transfer command until 226) phases; **close** from the last 226 (or guc's
``operation complete``) until guc exits; and, as marks, every command sent (its verb only: arguments
may name files or secrets), the servers' 112 performance markers (bytes of a stripe) and the
``-vb`` progress samples (those arrive as Progress events, which every traced run samples).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gftpwb.core.specs import RunSpec
from gftpwb.core.trace.records import Mark, Phase

# Commands that move the data (the data phase starts when one is sent).
TRANSFER_COMMANDS = frozenset({"RETR", "STOR", "ERET", "ESTO", "APPE", "LIST", "NLST", "MLSD", "MLSC", "MLSR"})
_DEBUG = re.compile(r"^debug: (connecting to|authenticating with|response from|sending command to|"
                    r"operation complete)\s*(.*?):?$")
_CREDENTIALS = re.compile(r"^([a-z][a-z0-9+.-]*://)([^/@:]*):[^/@]*@", re.IGNORECASE)


def _server(url: str) -> str:
    """The control connection a URL's conversation runs on, named by the URL (each end of a transfer
    has its own, even on one server) without its password."""
    return _CREDENTIALS.sub(r"\1\2@", url)


@dataclass
class _Connection:
    open: dict[str, float] = field(default_factory=dict)  # phase -> its start


class GucPhases:
    """A :class:`~gftpwb.core.trace.records.PhaseReader` for one guc run (see the module docstring)."""

    def __init__(self) -> None:
        self.connections: dict[str, _Connection] = {}
        self._expect: tuple[str, str] | None = None  # ("command" | "reply", server) for the next line
        self._marker: dict[str, str] = {}
        self._in_marker = ""
        self.last_done: float | None = None

    def _conn(self, server: str) -> _Connection:
        return self.connections.setdefault(server, _Connection())

    def _end(self, server: str, phase: str, t: float) -> list[Phase | Mark]:
        start = self._conn(server).open.pop(phase, None)
        return [] if start is None else [Phase(f"guc.{phase}", start, t, track=server)]

    def _begin(self, server: str, phase: str, t: float) -> None:
        self._conn(server).open.setdefault(phase, t)

    def feed(self, stream: str, text: str, t: float) -> list[Phase | Mark]:
        if stream != "stderr":
            return []
        line = text.rstrip("\r")
        match = _DEBUG.match(line)
        if match is None:
            return self._payload(line.strip(), t)
        self._expect = None
        what, url = match.group(1), match.group(2)
        if what == "operation complete":
            self.last_done = t if self.last_done is None else self.last_done
            return []
        server = _server(url)
        if what == "connecting to":
            self._begin(server, "connect", t)
        elif what == "authenticating with":
            out = self._end(server, "connect", t)
            self._begin(server, "login", t)
            return out
        elif what == "sending command to":
            self._expect = ("command", server)
        elif what == "response from":
            self._expect = ("reply", server)
        return []

    def _payload(self, line: str, t: float) -> list[Phase | Mark]:
        if self._expect is None or not line:
            return []
        role, server = self._expect
        if role == "command":
            self._expect = None
            verb = line.split(" ", 1)[0].upper()
            out: list[Phase | Mark] = []
            if verb in TRANSFER_COMMANDS:
                out += self._end(server, "setup", t)
                self._begin(server, "data", t)
            out.append(Mark("guc.command", t, track=server, args={"command": verb}))
            return out
        code = line[:3]
        if code == "112" or self._in_marker:  # a multi-line performance marker
            return self._perf_marker(line, server, t)
        self._expect = None if line[3:4] == " " else self._expect
        if code == "230":
            out = self._end(server, "login", t)
            self._begin(server, "setup", t)
            return out
        if code == "226":
            self.last_done = t
            return self._end(server, "data", t)
        return []

    def _perf_marker(self, line: str, server: str, t: float) -> list[Phase | Mark]:
        if line.startswith("112-"):
            self._in_marker, self._marker = server, {}
            return []
        if line.startswith("112 "):
            fields, self._in_marker, self._expect = self._marker, "", None
            args = {"stripe": int(fields.get("Stripe Index", "0") or 0),
                    "bytes": int(fields.get("Stripe Bytes Transferred", "0") or 0),
                    "server_time": fields.get("Timestamp", "")}
            return [Mark("guc.perf_marker", t, track=server, args=args)]
        key, _, value = line.partition(":")
        self._marker[key.strip()] = value.strip()
        return []

    def close(self, t: float) -> list[Phase | Mark]:
        out: list[Phase | Mark] = []
        for server, conn in self.connections.items():
            for phase in list(conn.open):
                out += self._end(server, phase, t)  # a phase still open when guc ended (a failure)
        if self.last_done is not None:
            out.append(Phase("guc.close", self.last_done, t, track="run"))
        return out


def phase_reader(spec: RunSpec) -> GucPhases:
    return GucPhases()
