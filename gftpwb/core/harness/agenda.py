"""When each test may start: ``needs``, ``concurrent_tests`` and loops, decided without I/O.

The plan is cut into *units*: the consecutive runs of one test in one pass of the suite (a test's
runs are consecutive in a plan; a unit is one test, unless a caller hands the executor a plan that
interleaves tests). The executor's scheduler (:mod:`gftpwb.shell.scheduler`) asks the
:class:`Agenda` which units to start or skip, runs them, and tells it how each ended. The rules:

* a pass of the suite starts when the previous pass has finished (``loops`` run one after another);
* a unit starts after the earlier units of its test in the same pass (a test's runs stay in order),
  and after every unit of the tests it needs, in the same pass;
* as soon as one of those did not pass (every run passed), or if it is not in the plan at all
  (``--only``), the unit is skipped with the reason (the first such need), and counts as not passed
  for the tests that need it in turn;
* at most ``concurrent_tests`` units run at once; among those that may start, the earliest in the
  plan starts first, so ``concurrent_tests: 1`` without needs runs the plan in its order, as gftpwb
  always did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, SKIPPED, TIMEOUT
from gftpwb.core.specs import RunSpec

if TYPE_CHECKING:
    from gftpwb.core.scenario.model import Expectation, Scenario

NOT_SELECTED = "not selected"  # the outcome of a needed test that is not in the plan
_WORDS = {FAILED: "failed", TIMEOUT: "timed out", SKIPPED: "was skipped", INTERRUPTED: "was interrupted",
          NOT_SELECTED: "was not selected to run (--only, --where)"}


@dataclass(frozen=True)
class Schedule:
    """What the scheduler needs of a scenario: which tests each test needs, and how many tests may
    run at once."""

    needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    concurrent_tests: int = 1
    expect: Mapping[str, tuple[Expectation, ...]] = field(default_factory=dict)  # thresholds checked at a test's end

    @classmethod
    def of(cls, scenario: Scenario) -> Schedule:
        needs = {t.id: scenario.schedule(t.id).needs for t in scenario.tests if scenario.schedule(t.id).needs}
        expect = {t.id: scenario.schedule(t.id).expect for t in scenario.tests if scenario.schedule(t.id).expect}
        return cls(needs=needs, concurrent_tests=scenario.concurrent_tests, expect=expect)


@dataclass
class Unit:
    """The consecutive runs of one test in one pass of the suite."""

    index: int
    loop: int
    test_id: str
    specs: list[RunSpec]


def loop_of(spec: RunSpec) -> int:
    return spec.harness.loop if spec.harness is not None and spec.harness.loop is not None else 0


def units_of(specs: Iterable[RunSpec]) -> list[Unit]:
    """Cut a plan into units (see the module docstring)."""
    units: list[Unit] = []
    for spec in specs:
        loop = loop_of(spec)
        if units and units[-1].test_id == spec.test_id and units[-1].loop == loop:
            units[-1].specs.append(spec)
        else:
            units.append(Unit(len(units), loop, spec.test_id, [spec]))
    return units


def outcome_of(statuses: Iterable[str]) -> str:
    """A unit's or a test's outcome from its runs' statuses: passed when all passed (or there were
    none), else the first status that is not passed."""
    return next((s for s in statuses if s != PASSED), PASSED)


def reason_text(test_id: str, outcome: str) -> str:
    """Why a run is skipped: "needs warm-up, which failed"."""
    return f"needs {test_id}, which {_WORDS.get(outcome, outcome)}"


@dataclass(frozen=True)
class Decision:
    """Start a unit (``skip`` empty), or record its runs as skipped for that reason."""

    unit: Unit
    skip: str = ""


class Agenda:
    """The state of one scenario run's schedule; see the module docstring."""

    def __init__(self, units: list[Unit], schedule: Schedule):
        self.units = units
        self.limit = max(1, schedule.concurrent_tests)
        self.needs = schedule.needs
        self._by_test: dict[tuple[int, str], list[int]] = {}
        for unit in units:
            self._by_test.setdefault((unit.loop, unit.test_id), []).append(unit.index)
        self._waiting: dict[int, list[int]] = {}  # pass -> its units not started yet, in plan order
        for unit in units:
            self._waiting.setdefault(unit.loop, []).append(unit.index)
        self._open_in_loop = {loop: len(indexes) for loop, indexes in self._waiting.items()}
        self._loops = sorted(self._waiting)
        self.running: set[int] = set()
        self.outcomes: dict[int, str] = {}
        # Units decided as skipped whose end the caller has not reported yet: they count as skipped at
        # once, so a later unit decided in the same call names the first need in its needs order.
        self._skipping: set[int] = set()

    @property
    def finished(self) -> bool:
        return len(self.outcomes) == len(self.units)

    @property
    def current_loop(self) -> int | None:
        """The pass whose units may start (the earliest one not finished), None when all are."""
        while self._loops and self._open_in_loop[self._loops[0]] == 0:
            self._loops.pop(0)
        return self._loops[0] if self._loops else None

    def test_outcome(self, loop: int, test_id: str) -> str | None:
        """The outcome of a test in a pass once all its units finished (None: not yet)."""
        indexes = self._by_test.get((loop, test_id))
        if not indexes:
            return NOT_SELECTED
        if any(i not in self.outcomes and i not in self._skipping for i in indexes):
            return None
        return outcome_of(self.outcomes.get(i, SKIPPED) for i in indexes)

    def _blocked(self, unit: Unit) -> tuple[bool, str]:
        """(may it be decided now, the skip reason or "")."""
        earlier = [i for i in self._by_test[(unit.loop, unit.test_id)] if i < unit.index]
        if any(i not in self.outcomes for i in earlier):
            return False, ""
        waiting = False
        for need in self.needs.get(unit.test_id, ()):
            outcome = self.test_outcome(unit.loop, need)
            if outcome is None:
                waiting = True
            elif outcome != PASSED:  # it can never start: skip it now rather than after the others
                return True, reason_text(need, outcome)
        return not waiting, ""

    def next(self) -> list[Decision]:
        """The units to decide now: every one to skip, and those to start while slots are free; each
        returned unit counts as started (report its end with :meth:`finish`)."""
        loop = self.current_loop
        if loop is None:
            return []
        waiting = self._waiting[loop]
        decisions: list[Decision] = []
        for index in list(waiting):
            unit = self.units[index]
            ready, reason = self._blocked(unit)
            if not ready or (not reason and len(self.running) >= self.limit):
                continue
            waiting.remove(index)
            self.running.add(index)
            if reason:
                self._skipping.add(index)
            decisions.append(Decision(unit, reason))
        if not decisions and not self.running and waiting:
            # Nothing runs and nothing may start: units that wait for each other (a cycle the loader
            # would have refused); skip them rather than wait forever.
            for index in list(waiting):
                waiting.remove(index)
                self.running.add(index)
                decisions.append(Decision(self.units[index], "needs a test that waits for it (a cycle of needs)"))
        return decisions

    def finish(self, unit: Unit, outcome: str) -> None:
        self.running.discard(unit.index)
        self._skipping.discard(unit.index)
        self.outcomes[unit.index] = outcome
        self._open_in_loop[unit.loop] -= 1
