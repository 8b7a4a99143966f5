"""``kind: nap``: sleep for ``seconds``, ``repeat`` times. A minimal kind: only the three facets every
kind needs (its DSL keys, check and model; its planner and the program it needs; its runner, named,
not imported, and a consumer of events). It is in no report table and the front ends show it with
the defaults."""

from __future__ import annotations

from dataclasses import dataclass

from gftpwb.core.registry import Dsl, Kind, Planner, Program, Run, TestInput
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel, on_tuple
from gftpwb.core.specs import RunSpec


@dataclass(frozen=True)
class NapTest:
    id: str
    kind: str
    seconds: float
    repeat: int = 1
    description: str = ""
    on: tuple[str, ...] = (LOCAL,)
    index: int = 0


class NapDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return (Key("seconds", {"type": "number", "minimum": 0}, "How long to sleep.", required=True),
                Key("repeat", {"type": "integer", "minimum": 1}, "How many naps."))

    def check(self, test: TestInput) -> None:
        if test.raw["seconds"] > 10:
            test.error(f"test '{test.id}': a nap of {test.raw['seconds']} s is too long (10 at most)", "seconds")

    def build(self, test: TestInput) -> NapTest:
        return NapTest(id=test.raw["id"], kind=test.raw["kind"], seconds=float(test.raw["seconds"]),
                       repeat=test.merged.get("repeat", 1), description=test.raw.get("description", ""),
                       on=on_tuple(test.merged.get("on", LOCAL)), index=test.index)


class NapPlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, NapTest)
        specs = [RunSpec(run_id=f"{test.id}/{n}", scenario=scenario.name, test_id=test.id, case=first_case, repeat=n,
                         kind=test.kind, host=LOCAL, argv=("sleep", f"{test.seconds:g}"),
                         params={"seconds": test.seconds}) for n in range(test.repeat)]
        return specs, 1

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (Program("sleep", "install coreutils"),)


KIND = Kind(
    name="nap",
    description="sleep(1) for a while: a kind from a plug-in.",
    dsl=NapDsl(),
    planner=NapPlanner(),
    run=Run("tinykind_plugin.run.runner:run", consumers=("tinykind_plugin.run.runner:NapLog",)),
)
