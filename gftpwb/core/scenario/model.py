"""The typed scenario model: the scenario, its host inventory, and what every test model has.

Each kind has its own test model (``gftpwb.kinds.<kind>.model``), a frozen dataclass with at least
the fields of :class:`TestModel`. Field metadata ``key`` names the DSL key a field comes from;
``derived`` marks fields computed by the loader rather than written by the user.
``tests/test_schema.py`` checks these against the schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from gftpwb.core.errors import Diagnostic
from gftpwb.core.harness.delays import Delay
from gftpwb.core.monitors.model import Monitor
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.trace.setting import NO_TRACE, TraceSetting

LOCAL = "local"  # the implicit host: this machine, no SSH


@dataclass(frozen=True)
class Host:
    """One host of the inventory, reached over SSH. Paths are resolved against the scenario's
    directory by the loader (``~`` is left for the transport to expand)."""

    name: str = field(metadata={"derived": True})
    address: str
    port: int = 22
    user: str = ""  # "" = the user running gftpwb
    identity: str = ""  # "" = the SSH agent and ~/.ssh/id_* keys
    known_hosts: str = ""  # "" = ~/.ssh/known_hosts
    jump: str = ""  # name of another inventory host to connect through
    workdir: str = ""
    env: tuple[tuple[str, str], ...] = ()
    connect_timeout_s: float = field(default=10.0, metadata={"key": "connect_timeout"})

    @property
    def label(self) -> str:
        """``host NAME (user@address:port)``: how messages name the host."""
        user = f"{self.user}@" if self.user else ""
        return f"host {self.name} ({user}{self.address}:{self.port})"


class TestModel(Protocol):
    """What the loader, the planner and the front ends use of any kind's test model."""

    __test__ = False  # not a pytest test class

    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def on(self) -> tuple[str, ...]: ...
    @property
    def index(self) -> int: ...


def on_tuple(value: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """``on:`` as a tuple of host names."""
    return (value,) if isinstance(value, str) else tuple(value)


@dataclass(frozen=True)
class Expectation:
    """One threshold of ``expect:`` (:mod:`gftpwb.core.expect`): ``metric op threshold``, the
    threshold in the metric's unit (MiB/s; a fraction for percentages), and the text as written."""

    metric: str
    op: str
    threshold: float
    text: str

    def holds(self, value: float) -> bool:
        return {"<": value < self.threshold, "<=": value <= self.threshold, ">": value > self.threshold,
                ">=": value >= self.threshold, "==": value == self.threshold}[self.op]


@dataclass(frozen=True)
class TestSchedule:
    """How the harness runs a test, whatever its kind: the tests it ``needs`` (ids), how many copies
    of each run start at once (``concurrency``), the ``delay`` before each run or copy, its own
    ``trace`` setting (None: the scenario's), and the thresholds checked when it ends (``expect``)."""

    __test__ = False  # not a pytest test class

    needs: tuple[str, ...] = ()
    concurrency: int = 1
    delay: Delay | None = None
    trace: TraceSetting | None = None
    expect: tuple[Expectation, ...] = ()


NO_SCHEDULE = TestSchedule()


@dataclass(frozen=True)
class Scenario:
    version: int
    name: str
    tests: tuple[TestModel, ...]
    description: str = ""
    defaults: dict[str, Any] = field(default_factory=dict)
    hosts: tuple[Host, ...] = ()
    vars: dict[str, Any] = field(default_factory=dict)  # the values used (after --set and the environment)
    seed: int | None = None  # None: not set (random delays then use 0)
    loops: int = 1
    concurrent_tests: int = 1
    trace: TraceSetting = NO_TRACE  # the scenario's trace: (tests may set their own; --trace overrides both)
    monitors: tuple[Monitor, ...] = ()  # polled while the tests run (gftpwb.shell.monitors)
    slurm: SlurmSetup | None = None  # the tests' node slots stand for a Slurm allocation's nodes
    schedules: dict[str, TestSchedule] = field(default_factory=dict, metadata={"derived": True})
    path: str = field(default="", metadata={"derived": True})
    text: str = field(default="", metadata={"derived": True})
    warnings: tuple[Diagnostic, ...] = field(default=(), metadata={"derived": True})

    def test(self, test_id: str) -> TestModel | None:
        return next((t for t in self.tests if t.id == test_id), None)

    def schedule(self, test_id: str) -> TestSchedule:
        """The harness settings of a test (the defaults for a test that sets none)."""
        return self.schedules.get(test_id, NO_SCHEDULE)

    def trace_of(self, test_id: str) -> TraceSetting:
        """What a test's runs trace: its own ``trace``, else the scenario's."""
        own = self.schedule(test_id).trace
        return own if own is not None else self.trace

    def host(self, name: str) -> Host | None:
        return next((h for h in self.hosts if h.name == name), None)

    def is_slot(self, name: str) -> bool:
        """Whether ``name`` is a node slot of the scenario's Slurm allocation (node1, node2, ...)."""
        return self.slurm is not None and name in self.slurm.slots
