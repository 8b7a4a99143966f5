"""The typed model of a copy-tool test (``kind: xrootd`` or ``kind: http``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.commands import Command
from gftpwb.core.scenario.model import LOCAL


@dataclass(frozen=True)
class CopyTest:
    """One test with its options typed (sizes in bytes); ``files`` is a guc ``FileSet`` (disk-to-disk
    or tmpfs-to-tmpfs test files gftpwb makes and removes), ``baseline`` a guc ``Baseline``."""

    __test__ = False

    id: str
    kind: str
    description: str = ""
    source: str = ""
    target: str = ""
    options: tuple[tuple[str, Any], ...] = ()
    extra_args: tuple[str, ...] = ()
    length: int | None = None  # what moves when known without files: (for the rates)
    repeat: int = 1
    warmup: int = 0
    order: str = "sequential"
    order_seed: int = 0
    timeout_s: float | None = field(default=None, metadata={"key": "timeout"})
    comment: str = ""
    matrix: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    pre: Command | None = None
    post: Command | None = None
    comment_command: Command | None = None
    on: tuple[str, ...] = (LOCAL,)
    files: Any = None
    baseline: Any = None
    index: int = field(default=0, metadata={"derived": True})

    @property
    def option_values(self) -> dict[str, Any]:
        return dict(self.options)
