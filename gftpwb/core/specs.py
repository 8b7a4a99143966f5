"""RunSpec: one planned run, argv-ready and pure data, as the planner hands it to the executor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .commands import Command

REAL_ENGINE = "real"  # the engine that runs the real program; others are plug-ins (registry.Engine)


@dataclass(frozen=True)
class Harness:
    """Which instance of a planned run a spec is, for scenarios that use the harness features
    (``loops``, a test's ``concurrency`` and ``delay``, the scenario's ``seed``).

    ``loop`` is the suite's pass (None: the scenario does not loop), ``copy`` the copy of a run that
    runs ``copies`` times at once (None: one copy), ``delay_s`` how long the executor waits before it
    starts the run (drawn at planning time from the seeded ``delay``), ``seed`` the scenario's seed.
    A spec of a scenario without these features has no Harness, so its run id, tag log name,
    ``plan.json`` entry and record stay exactly what they were before the features existed.
    """

    loop: int | None = None
    copy: int | None = None
    copies: int = 1
    delay_s: float = 0.0
    seed: int | None = None

    @property
    def id_prefix(self) -> str:
        """``loop<k>/`` before a run id when the scenario loops."""
        return f"loop{self.loop}/" if self.loop is not None else ""

    @property
    def id_suffix(self) -> str:
        """``#<copy>`` after a run id (before ``@host``) when the run has copies."""
        return f"#{self.copy}" if self.copy is not None else ""

    @property
    def name_suffix(self) -> str:
        """What a tag log name gets before ``@host`` and ``.log``: ``.loop<k>`` and ``#<copy>``."""
        loop = f".loop{self.loop}" if self.loop is not None else ""
        return loop + self.id_suffix

    @classmethod
    def of_record(cls, details: dict[str, Any]) -> Harness | None:
        """The instance a record's ``details`` describe (None for a run of no harness feature), so
        a consumer that names files by run (gfapi's CSV directories) can name copies and loops apart."""
        if not any(key in details for key in ("loop", "copy", "delay_s", "seed")):
            return None
        return cls(loop=details.get("loop"), copy=details.get("copy"), copies=details.get("copies", 1),
                   delay_s=details.get("delay_s", 0.0), seed=details.get("seed"))

    def details(self) -> dict[str, Any]:
        """What a record repeats about the instance (``details``)."""
        out: dict[str, Any] = {}
        if self.loop is not None:
            out["loop"] = self.loop
        if self.copy is not None:
            out["copy"], out["copies"] = self.copy, self.copies
        if self.delay_s:
            out["delay_s"] = self.delay_s
        if self.seed is not None:
            out["seed"] = self.seed
        return out


@dataclass(frozen=True)
class RunSpec:
    """Everything the executor needs to run one transfer, and everything a record repeats about it.

    ``case`` is the 0-based number of the expanded test case (a test times one matrix combination),
    the equivalent of a tgftp batchfile line; ``repeat`` is the execution number within that case.
    Together they name the tag log, ``<scenario>_#<case>_<repeat>.log``, as tgftp does.

    A test that runs on hosts other than ``local`` (``on:``) has one spec per host; their run ids end
    in ``@<host>`` (as do their tag logs: ``<scenario>_#<case>_<repeat>@<host>.log``), and specs that
    share a non-empty ``group`` are consecutive in the plan and start at the same time, each on its host.
    The copies of a run (a test's ``concurrency``) share a group too; their run ids and tag log names
    carry ``#<copy>`` before ``@<host>``, and in a looping scenario run ids start with ``loop<k>/`` and
    tag log names get ``.loop<k>`` (see :class:`Harness`).
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
    # What the record's details start with, known before the run: ``warmup`` (a warm-up run, left out
    # of statistics), and what the kind says of the run (guc: ``mode``, ``live_progress``, ``vb_added``:
    # gftpwb put -vb into argv; the tgftp drop-in: ``tgftp``, the texts tgftp itself would write to the
    # tag log, see converters.taglog).
    details: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    harness: Harness | None = None  # loop, copy and delay of this instance (None: no harness feature used)
    # Run as tgftp did: guc's output left buffered, the transfer listed after success (guc -do), and
    # the tag log written with tgftp's rules (see converters.taglog).
    tgftp_style: bool = False

    @property
    def host_suffix(self) -> str:
        """``@host`` when the run id names its host (a test with ``on:`` other than local), else ""."""
        return f"@{self.host}" if self.run_id.endswith(f"@{self.host}") else ""

    @property
    def delay_s(self) -> float:
        return self.harness.delay_s if self.harness is not None else 0.0

    @property
    def taglog_name(self) -> str:
        """tgftp's name, or the test's own log_filename; ``@host`` is added when the test runs on
        several hosts or a remote one, so runs never share a log."""
        suffix = (self.harness.name_suffix if self.harness is not None else "") + self.host_suffix
        if self.log_name:
            if suffix and self.log_name.endswith(".log"):
                return f"{self.log_name[:-4]}{suffix}.log"
            return f"{self.log_name}{suffix}"
        return f"{self.scenario}_#{self.case:03d}_{self.repeat:03d}{suffix}.log"
