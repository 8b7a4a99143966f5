"""``kind: nap``: sleep for ``seconds``, ``repeat`` times. The whole kind: DSL keys, a check, the
model, the planner, the program it needs, its runner (named, not imported), a consumer of events,
its report section and its console line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gftpwb.core.format import rate_text
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import Kind, Program, ReportSection, ReportTable, TestInput
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


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    rows = tuple(((r.run_id, str(r.params["seconds"]), rate_text(r.seconds, 3)), "" if r.status == PASSED else "red")
                 for r in records)
    return [ReportTable("Naps (seconds)", "asked for vs slept", (("run", "left"), ("asked", "right"),
                                                                ("slept", "right")), rows)]


class NapKind(Kind):
    name = "nap"
    description = "sleep(1) for a while: a kind from a plug-in."
    runner = "tinykind_plugin.run.runner:run"
    consumers = ("tinykind_plugin.run.runner:NapLog",)
    report = ReportSection("naps", 50, tables)

    def dsl_keys(self) -> tuple[Key, ...]:
        return (Key("seconds", {"type": "number", "minimum": 0}, "How long to sleep.", required=True),
                Key("repeat", {"type": "integer", "minimum": 1}, "How many naps."))

    def check(self, test: TestInput) -> None:
        if test.raw["seconds"] > 10:
            test.error(f"test '{test.id}': a nap of {test.raw['seconds']} s is too long (10 at most)", "seconds")

    def build(self, test: TestInput) -> NapTest:
        return NapTest(id=test.raw["id"], kind=self.name, seconds=float(test.raw["seconds"]),
                       repeat=test.merged.get("repeat", 1), description=test.raw.get("description", ""),
                       on=on_tuple(test.merged.get("on", LOCAL)), index=test.index)

    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, NapTest)
        specs = [RunSpec(run_id=f"{test.id}/{n}", scenario=scenario.name, test_id=test.id, case=first_case, repeat=n,
                         kind=self.name, host=LOCAL, argv=("sleep", f"{test.seconds:g}"),
                         params={"seconds": test.seconds}) for n in range(test.repeat)]
        return specs, 1

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (Program("sleep", "install coreutils"),)

    def headline(self, record: ResultRecord) -> str:
        return f"slept {record.params['seconds']:g}s (took {record.seconds:.2f}s)"

    def params_text(self, params: dict[str, Any]) -> str:
        return f"{params['seconds']:g}s"


KIND = NapKind()
