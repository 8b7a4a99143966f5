"""The typed model of a ``kind: autotune`` test."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.units import GIB
from gftpwb.kinds.simulated.link import LinkModel

EXHAUSTIVE = "exhaustive"  # tgftp's: every candidate `repetitions` times
ADAPTIVE = "adaptive"  # a race that stops spending transfers on candidates that cannot win
STRATEGIES = (EXHAUSTIVE, ADAPTIVE)

@dataclass(frozen=True)
class AutotuneTest:
    """An auto-tune: which parameters of a kind's transfers (guc's by default) move data fastest
    between source and target."""

    __test__ = False

    id: str
    kind: str
    description: str = ""
    source: str = ""
    target: str = ""
    extra_args: tuple[str, ...] = ()
    comment: str = ""
    engine: str = "real"
    link: LinkModel | None = None
    timeout_s: float | None = field(default=30.0, metadata={"key": "timeout"})
    memory_to_memory: bool = True
    transfers: str = "guc"  # the kind whose runs it varies (its tuning facet declares what may vary)
    candidates: tuple[dict[str, Any], ...] = ()  # each: that kind's option values, sizes in bytes
    strategy: str = "exhaustive"
    repetitions: int = 10
    budget: int = 120
    length: int = 4 * GIB  # a copy tool moves its source whole: then this says its size
    margin_mib_s: float = field(default=20.0, metadata={"key": "margin"})
    on: tuple[str, ...] = (LOCAL,)  # one host: where the transfers are started from
    candidate_set: str = field(default="tgftp-37", metadata={"derived": True})  # tgftp-37, grid, list, default
    index: int = field(default=0, metadata={"derived": True})
