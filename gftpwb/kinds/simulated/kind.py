"""The simulated engine: ``engine: simulated`` computes a test's guc transfers from a seeded link
model instead of running guc (registered as entry point ``gftpwb.kinds: simulated``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import Engine, TestInput, Vocabulary
from gftpwb.core.specs import REAL_ENGINE
from gftpwb.core.units import parse_duration, parse_rate, parse_size

if TYPE_CHECKING:
    from gftpwb.core.scenario.keys import Key
    from gftpwb.core.specs import RunSpec

SIMULATED = "simulated"
# Link keys the model divides by: zero is no link at all (and was a ZeroDivisionError in the model).
POSITIVE_LINK_KEYS = {"bandwidth": parse_rate, "rtt": parse_duration, "window": parse_size}


class SimulatedDsl(Vocabulary):
    """The link the model computes from, and the checks of its values."""

    def test_keys(self) -> tuple[Key, ...]:
        from .keys import LINK_KEY

        return (LINK_KEY,)

    def definitions(self) -> dict[str, dict[str, Any]]:
        from .keys import link_definition

        return {"link": link_definition()}

    def check(self, test: TestInput) -> None:
        merged = test.merged
        if "link" in merged and merged.get("engine", REAL_ENGINE) != SIMULATED:
            path = ("tests", test.index, "link") if "link" in test.raw else ("defaults", "link")
            line, col = test.pos.of_key(path)
            test.warnings.append(Diagnostic(test.filename, line, col, f"test '{test.id}' has a link but runs on the "
                                            "real engine; the link is used only with engine: simulated",
                                            severity="warning"))
        link = merged.get("link") or {}
        for key, parse in POSITIVE_LINK_KEYS.items():
            try:
                zero = key in link and parse(link[key]) <= 0
            except ValueError:
                continue  # the schema reports text that is not a rate, duration or size
            if zero:
                own = key in (test.raw.get("link") or {})
                line, col = test.pos.of_value(("tests", test.index, "link", key) if own else ("defaults", "link", key))
                test.errors.append(Diagnostic(test.filename, line, col, f"link.{key} must be more than 0"))


class SimulatedEngine(Engine):
    name = SIMULATED
    description = ("compute each transfer from the link model in link (seeded, deterministic); every result, "
                   "record and log is labelled SIMULATED.")
    label = "SIMULATED"
    order = 15
    runner = "gftpwb.kinds.simulated.run.runner:run_simulated_guc"
    dsl = SimulatedDsl()

    def buffer_cap(self, spec: RunSpec) -> int | None:
        from .link import LinkModel

        return (spec.link or LinkModel()).buffer_cap

    def banner(self, runs: int) -> str:
        return (f"SIMULATED: {runs} run(s) use the simulated engine: results come from a link model, not from "
                "transfers")


ENGINE = SimulatedEngine()
