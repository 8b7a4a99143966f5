"""RunSpec: one planned run, argv-ready and pure data, as the planner hands it to the executor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .commands import Command

REAL_ENGINE = "real"  # the engine that runs the real program; others are plug-ins (registry.Engine)


@dataclass(frozen=True)
class RunSpec:
    """Everything the executor needs to run one transfer, and everything a record repeats about it.

    ``case`` is the 0-based number of the expanded test case (a test times one matrix combination),
    the equivalent of a tgftp batchfile line; ``repeat`` is the execution number within that case.
    Together they name the tag log, ``<scenario>_#<case>_<repeat>.log``, as tgftp does.

    A test that runs on hosts other than ``local`` (``on:``) has one spec per host; their run ids end
    in ``@<host>`` (as do their tag logs: ``<scenario>_#<case>_<repeat>@<host>.log``), and specs that
    share a non-empty ``group`` are consecutive in the plan and start at the same time, each on its host.
    """

    run_id: str
    scenario: str
    test_id: str
    case: int
    repeat: int
    kind: str
    host: str
    argv: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    timeout_s: float | None = None
    length_bytes: int | None = None
    comment: str = ""
    source: str = ""
    target: str = ""
    engine: str = REAL_ENGINE  # another engine's name: carried out by that engine (simulated: never run)
    pre: Command | None = None
    post: Command | None = None
    comment_command: Command | None = None
    log_name: str = ""  # the test's own tag log name (its log_filename resolved for this run), if it has one
    group: str = ""  # runs sharing a group start together (one test on several hosts)
    link: Any = None  # the engine's settings for this run (the simulated engine's LinkModel), a dataclass
    # Run as tgftp did: guc's output left buffered, the transfer listed after success (guc -do), and
    # the tag log written with tgftp's rules (see converters.taglog).
    tgftp_style: bool = False
    # What the record's details start with: "vb_added" (gftpwb put -vb into argv), and for the tgftp
    # drop-in "tgftp" (the texts tgftp itself would write to the tag log, see converters.taglog).
    details: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def taglog_name(self) -> str:
        """tgftp's name, or the test's own log_filename; ``@host`` is added when the test runs on
        several hosts or a remote one, so runs never share a log."""
        suffix = f"@{self.host}" if self.run_id.endswith(f"@{self.host}") else ""
        if self.log_name:
            if suffix and self.log_name.endswith(".log"):
                return f"{self.log_name[:-4]}{suffix}.log"
            return f"{self.log_name}{suffix}"
        return f"{self.scenario}_#{self.case:03d}_{self.repeat:03d}{suffix}.log"
