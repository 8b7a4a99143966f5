"""From the kinds' run specs to the instances that run: loops of the suite, copies of a run, and the
delay of each, as one lazy sequence.

The kinds plan one pass of the suite with one copy of each run (their ``plan``); the harness
multiplies that here, generically: ``loops`` passes, each run ``concurrency`` times (its copies share a
group, so the executor starts them together, as it starts one run on several hosts), and a delay
drawn for every instance. The expansion is lazy: its length is arithmetic, so ``validate`` of a
scenario with a million runs counts them without making them, and the executor takes the
instances of one test at a time.

Run ids and tag log names of a scenario that uses none of this stay exactly what they were:
its specs pass through unchanged (no :class:`~gftpwb.core.specs.Harness`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import overload

from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import Harness, RunSpec

DEFAULT_SEED = 0


def uses_harness(scenario: Scenario) -> bool:
    """Whether the scenario's run ids, names or records need harness information."""
    return (scenario.loops > 1 or scenario.seed is not None
            or any(s.concurrency > 1 or s.delay is not None for s in scenario.schedules.values()))


def effective_seed(scenario: Scenario) -> int:
    return DEFAULT_SEED if scenario.seed is None else scenario.seed


def without_host(spec: RunSpec) -> str:
    """The run id without its ``@host``."""
    suffix = spec.host_suffix
    return spec.run_id[: -len(suffix)] if suffix else spec.run_id


def instance(spec: RunSpec, scenario: Scenario, loop: int | None, copy: int | None) -> RunSpec:
    """The spec of one instance of a planned run: its loop and copy in the run id, group and record,
    and its delay."""
    schedule = scenario.schedule(spec.test_id)
    base = without_host(spec)
    prefix = f"loop{loop}/" if loop is not None else ""
    run_id = f"{prefix}{base}{f'#{copy}' if copy is not None else ''}{spec.host_suffix}"
    seed, delay_s = scenario.seed, 0.0
    if schedule.delay is not None:
        seed = effective_seed(scenario)
        delay_s = schedule.delay.draw(seed, run_id)
    harness = Harness(loop=loop, copy=copy, copies=schedule.concurrency, delay_s=delay_s, seed=seed)
    group = spec.group or (base if copy is not None else "")
    return dataclasses.replace(spec, run_id=run_id, group=f"{prefix}{group}" if group else "", harness=harness)


def child_run_id(parent: RunSpec, base: str) -> str:
    """The run id of a run that ``parent`` starts itself (an auto-tune's transfer, ``base``
    ``<test>#<candidate>/<n>``): in the parent's loop, copy and host."""
    harness = parent.harness
    if harness is None:
        return f"{base}{parent.host_suffix}"
    return f"{harness.id_prefix}{base}{harness.id_suffix}{parent.host_suffix}"


def child_harness(parent: RunSpec) -> Harness | None:
    """What a child run repeats of its parent's instance: loop and copy, no delay of its own."""
    if parent.harness is None:
        return None
    return dataclasses.replace(parent.harness, delay_s=0.0)


class Plan(Sequence[RunSpec]):
    """The run specs of a scenario in the order the plan lists them: pass by pass, test by test, a
    run's copies next to each other. Lazy (see the module docstring); a plain list of specs for a
    scenario that uses no harness feature."""

    def __init__(self, scenario: Scenario, base: Sequence[RunSpec]):
        self.scenario = scenario
        self.base = list(base)
        self.expanded = uses_harness(scenario)
        self.loops = scenario.loops
        self._copies = [scenario.schedule(s.test_id).concurrency for s in self.base]
        self._per_loop = sum(self._copies)
        self._cache: list[RunSpec] | None = None

    def __len__(self) -> int:
        return self.loops * self._per_loop if self.expanded else len(self.base)

    def __iter__(self) -> Iterator[RunSpec]:
        if not self.expanded:
            yield from self.base
            return
        for loop in range(self.loops):
            yield from self.loop_specs(loop)

    def loop_specs(self, loop: int) -> Iterator[RunSpec]:
        """The instances of one pass (0-based)."""
        loop_no = loop if self.loops > 1 else None
        for spec, copies in zip(self.base, self._copies, strict=True):
            if copies == 1:
                yield instance(spec, self.scenario, loop_no, None)
            else:
                for copy in range(copies):
                    yield instance(spec, self.scenario, loop_no, copy)

    @overload
    def __getitem__(self, index: int) -> RunSpec: ...
    @overload
    def __getitem__(self, index: slice) -> list[RunSpec]: ...

    def __getitem__(self, index: int | slice) -> RunSpec | list[RunSpec]:
        if not self.expanded:
            return self.base[index]
        if self._cache is None:
            self._cache = list(self)
        return self._cache[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Plan({self.scenario.name!r}, {len(self)} run(s))"
