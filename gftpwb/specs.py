"""RunSpec: one planned run, argv-ready and pure data, as the planner hands it to the executor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .simlink import LinkModel


@dataclass(frozen=True)
class RunSpec:
    """Everything the executor needs to run one transfer, and everything a record repeats about it.

    ``case`` is the 0-based number of the expanded test case (a test times one matrix combination),
    the equivalent of a tgftp batchfile line; ``repeat`` is the execution number within that case.
    Together they name the tag log, ``<scenario>_#<case>_<repeat>.log``, as tgftp does.
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
    engine: str = "real"  # "simulated": computed from ``link``, never run
    link: LinkModel | None = None

    @property
    def taglog_name(self) -> str:
        return f"{self.scenario}_#{self.case:03d}_{self.repeat:03d}.log"
