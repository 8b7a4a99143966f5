"""The schedule (gftpwb.core.harness.agenda), checked as a state machine by hypothesis: needs are
honoured, failures skip exactly the tests that need them, at most concurrent_tests run at once,
loops are one after another, nothing deadlocks, and the default keeps the plan's order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.core.harness.agenda import NOT_SELECTED, Agenda, Schedule, Unit, outcome_of, reason_text, units_of
from gftpwb.core.specs import Harness, RunSpec


def spec(test: str, n: int, loop: int | None = None) -> RunSpec:
    harness = Harness(loop=loop) if loop is not None else None
    return RunSpec(run_id=f"{test}/{n}", scenario="s", test_id=test, case=0, repeat=n, kind="guc", host="local",
                   argv=(), harness=harness)


@st.composite
def schedules(draw):
    """Tests t0..tn-1 whose needs point only at earlier ids (no cycles), each test's outcome when it
    runs, a limit, loops, and the order in which running units finish."""
    n = draw(st.integers(1, 6))
    needs = {f"t{i}": tuple(f"t{j}" for j in sorted(draw(st.sets(st.integers(0, i - 1), max_size=2))))
             for i in range(1, n) if draw(st.booleans())}
    order = draw(st.permutations(range(n)))  # the plan may list tests in any order
    outcomes = {f"t{i}": draw(st.sampled_from(["passed", "passed", "failed", "timeout"])) for i in range(n)}
    limit = draw(st.integers(1, 4))
    loops = draw(st.integers(1, 2))
    missing = draw(st.sets(st.sampled_from([f"t{i}" for i in range(n)]), max_size=1))  # left out by --only
    seed = draw(st.randoms(use_true_random=False))
    return n, needs, [f"t{i}" for i in order], outcomes, limit, loops, missing, seed


def plan_of(tests: list[str], loops: int, missing: set[str]) -> list[RunSpec]:
    return [spec(t, r, loop if loops > 1 else None) for loop in range(loops) for t in tests if t not in missing
            for r in range(2)]


@settings(max_examples=300, deadline=None)
@given(schedules())
def test_the_agenda_honours_needs_limits_and_loops(case):
    n, needs, tests, outcomes, limit, loops, missing, rnd = case
    units = units_of(plan_of(tests, loops, missing))
    agenda = Agenda(units, Schedule(needs=needs, concurrent_tests=limit))
    running: list[Unit] = []
    finished: dict[tuple[int, str], str] = {}
    started_order: list[Unit] = []
    steps = 0
    while not agenda.finished:
        steps += 1
        assert steps < 1000, "the agenda stalled"
        decisions = agenda.next()
        for decision in decisions:
            unit = decision.unit
            loop = unit.loop
            assert all(finished.get((earlier, t)) is not None for earlier in range(loop) for t in tests
                       if t not in missing), "a pass started before the previous one ended"
            # Started: every need passed. Skipped: the first need (in needs order) that ended without passing.
            outcomes_now = [(need, NOT_SELECTED if need in missing else finished.get((loop, need)))
                            for need in needs.get(unit.test_id, ())]
            failed = [(need, outcome) for need, outcome in outcomes_now if outcome not in (None, "passed")]
            if failed:
                assert decision.skip == reason_text(*failed[0])
            else:
                assert decision.skip == "" and all(outcome == "passed" for _, outcome in outcomes_now)
            if decision.skip:
                finished[(loop, unit.test_id)] = "skipped"
                agenda.finish(unit, "skipped")
            else:
                running.append(unit)
                started_order.append(unit)
        assert len(running) <= limit
        if running and (not decisions or rnd.random() < 0.5):
            unit = running.pop(rnd.randrange(len(running)))
            finished[(unit.loop, unit.test_id)] = outcomes[unit.test_id]
            agenda.finish(unit, outcomes[unit.test_id])
    assert len(finished) == loops * (n - len(missing))
    if limit == 1 and not needs:
        assert [u.index for u in started_order] == list(range(len(units)))  # the plan's order, as always


def test_units_are_a_tests_consecutive_runs_in_one_pass():
    specs = [spec("a", 0, 0), spec("a", 1, 0), spec("b", 0, 0), spec("a", 0, 1), spec("c", 0), spec("a", 2)]
    assert [(u.loop, u.test_id, len(u.specs)) for u in units_of(specs)] == [
        (0, "a", 2), (0, "b", 1), (1, "a", 1), (0, "c", 1), (0, "a", 1)]


def test_outcome_and_reason_words():
    assert outcome_of(["passed", "passed"]) == "passed" and outcome_of([]) == "passed"
    assert outcome_of(["passed", "timeout", "failed"]) == "timeout"
    assert reason_text("warm-up", "failed") == "needs warm-up, which failed"
    assert reason_text("w", NOT_SELECTED) == "needs w, which was not selected to run (--only, --where)"


def test_units_waiting_for_each_other_are_skipped_instead_of_hanging():
    units = units_of([spec("a", 0), spec("b", 0)])
    agenda = Agenda(units, Schedule(needs={"a": ("b",), "b": ("a",)}))
    decisions = agenda.next()
    assert [(d.unit.test_id, d.skip) for d in decisions] == [
        ("a", "needs a test that waits for it (a cycle of needs)"),
        ("b", "needs a test that waits for it (a cycle of needs)")]


def test_a_skip_names_the_first_need_even_when_skips_are_decided_together():
    """Found by the state machine: a skip decided in a call counts at once for the units decided after
    it. t3 is skipped at the start (t2 left out); t5 is skipped in the same call, naming t3, because t1
    has not ended then. Before the fix t5 waited, then named t3 although t1 had been skipped first."""
    needs = {"t1": ("t0",), "t3": ("t0", "t2"), "t5": ("t1", "t3")}
    tests = ["t0", "t1", "t2", "t3", "t4", "t5"]
    agenda = Agenda(units_of(plan_of(tests, 1, {"t2"})), Schedule(needs=needs, concurrent_tests=1))
    reasons: dict[str, str] = {}
    while not agenda.finished:
        for decision in agenda.next():
            reasons[decision.unit.test_id] = decision.skip
            agenda.finish(decision.unit, "skipped" if decision.skip else
                          ("failed" if decision.unit.test_id == "t0" else "passed"))
    assert reasons["t3"] == "needs t2, which was not selected to run (--only, --where)"
    assert reasons["t1"] == "needs t0, which failed"
    assert reasons["t5"] == "needs t3, which was skipped"
    assert list(reasons) == ["t0", "t3", "t5", "t1", "t4"]  # t5 decided with t3, before t0 ended
