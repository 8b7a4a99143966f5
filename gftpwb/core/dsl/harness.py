"""The harness keys every test has, whatever its kind (``needs``, ``concurrency``, ``delay``): their
checks beyond the schema and the :class:`~gftpwb.core.scenario.model.TestSchedule` of each test.

Kinds never see these keys (they are not in a kind's model); the planner and the executor read them
from ``Scenario.schedules``, so every kind gets dependencies, copies and delays the same way.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.expect import ExpectError, all_metrics, metric_of, parse_expectation
from gftpwb.core.harness.delays import delay_problem, parse_delay
from gftpwb.core.harness.needs import cycle_text, find_cycles
from gftpwb.core.registry import TestInput, registry
from gftpwb.core.scenario.model import Expectation, TestSchedule
from gftpwb.core.scenario.yamlpos import Path, Positions
from gftpwb.core.trace.setting import TraceSetting


def needs_of(raw: dict[str, Any]) -> list[str]:
    value = raw.get("needs", [])
    return [value] if isinstance(value, str) else list(value)


def _close(word: str, choices: list[str]) -> str:
    import difflib  # only for a misspelt name

    close = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean '{close[0]}'?" if close else f"; its tests: {', '.join(choices)}"


def harness_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """Unknown tests in ``needs``, circles of needs (each reported once, naming the whole circle), and
    uniform delays whose range runs backwards."""
    out: list[Diagnostic] = []
    tests = data["tests"]
    index_of = {t["id"]: i for i, t in reversed(list(enumerate(tests)))}
    graph: dict[str, list[str]] = {}
    for i, test in enumerate(tests):
        if "needs" not in test:
            continue
        single = isinstance(test["needs"], str)
        edges = []
        for j, name in enumerate(needs_of(test)):
            if name in index_of:
                edges.append(name)
                continue
            line, col = pos.of_value(("tests", i, "needs") if single else ("tests", i, "needs", j))
            out.append(Diagnostic(filename, line, col, f"test '{test['id']}' needs '{name}', which is not a test of "
                                  "this scenario" + _close(name, [t["id"] for t in tests])))
        graph.setdefault(test["id"], []).extend(edges)
    for cycle in find_cycles(graph):
        first, second = cycle[0], cycle[1]
        i = index_of[first]
        needs = tests[i]["needs"]
        path: tuple[str | int, ...] = ("tests", i, "needs")
        if not isinstance(needs, str):
            path = (*path, needs_of(tests[i]).index(second))
        line, col = pos.of_value(path)
        if len(cycle) == 2:
            text = f"test '{first}' needs itself ({cycle_text(cycle)}); it could never start"
        else:
            text = f"tests need each other in a circle: {cycle_text(cycle)}; none of them could ever start"
        out.append(Diagnostic(filename, line, col, text))
    for path in [("trace",), *(("tests", i, "trace") for i in range(len(tests)))]:
        block = data if len(path) == 1 else tests[path[1]]
        value = block.get("trace")
        if isinstance(value, dict) and "every" in value and value.get("level") != "io":
            line, col = pos.of_value((*path, "every"))
            out.append(Diagnostic(filename, line, col, f"every samples I/O events, which only the io level records "
                                  f"(this trace's level is {value.get('level')})"))
    for path in [("defaults", "delay"), *(("tests", i, "delay") for i in range(len(tests)))]:
        block = data.get("defaults", {}) if path[0] == "defaults" else tests[path[1]]
        problem = delay_problem(block.get("delay")) if "delay" in block else None
        if problem:
            line, col = pos.of_value(path)
            out.append(Diagnostic(filename, line, col, problem))
    return out


def expectations_of(test: TestInput) -> tuple[Expectation, ...]:
    """The test's thresholds on its kind's metrics (the defaults' ones its kind has, then its own);
    the loader checked them before (:func:`expect_diagnostics`)."""
    kind = registry().kind(test.raw["kind"])
    out = []
    for name, text in (test.merged.get("expect") or {}).items():
        metric = metric_of(kind, name)
        if metric is not None:
            out.append(parse_expectation(metric, text))
    return tuple(out)


def expect_diagnostics(inputs: list[TestInput], data: dict[str, Any], pos: Positions,
                       filename: str) -> list[Diagnostic]:
    """Thresholds the schema let through but that cannot be read (a rate's unit), at their value."""
    out: list[Diagnostic] = []
    metrics = all_metrics()
    blocks: list[tuple[Path, dict[str, Any]]] = [(("defaults", "expect"), data.get("defaults", {}).get("expect") or {})]
    blocks += [(("tests", t.index, "expect"), t.raw.get("expect") or {}) for t in inputs]
    for path, block in blocks:
        for name, text in block.items():
            metric = metrics.get(name)
            if metric is None:
                continue  # the schema reports unknown metrics
            try:
                parse_expectation(metric, text)
            except ExpectError as exc:
                line, col = pos.of_value((*path, name))
                out.append(Diagnostic(filename, line, col, str(exc)))
    return out


def test_schedules(inputs: list[TestInput]) -> dict[str, TestSchedule]:
    """Each test's harness settings (with the defaults' concurrency, delay and thresholds); tests that
    use none are left out (they get the defaults)."""
    out = {}
    for test in inputs:
        merged = test.merged
        expect = expectations_of(test) if "expect" in merged else ()
        if not any(key in merged for key in ("needs", "concurrency", "delay", "trace")) and not expect:
            continue
        out[test.id] = TestSchedule(
            needs=tuple(needs_of(test.raw)),
            concurrency=merged.get("concurrency", 1),
            delay=parse_delay(merged["delay"]) if "delay" in merged else None,
            expect=expect,
            trace=TraceSetting.of(merged["trace"]) if "trace" in merged else None,
        )
    return out
