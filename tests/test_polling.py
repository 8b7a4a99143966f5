"""The tests' one way to wait for a condition (support/polling.py): the first true value comes back;
a wait that runs out fails loudly, naming what it waited for and what it saw last."""

from __future__ import annotations

import pytest
from support.polling import eventually, eventually_async


def test_eventually_returns_the_first_true_value():
    values = iter([None, [], ["ready"]])
    assert eventually(lambda: next(values), "a list", step=0) == ["ready"]


def test_a_wait_that_runs_out_says_what_it_waited_for_and_what_it_saw():
    with pytest.raises(AssertionError, match=r"^timed out after 0 s waiting for the door to open; last seen: shut$"):
        eventually(lambda: False, "the door to open", timeout=0, detail=lambda: "shut")


async def test_the_coroutine_lets_the_loop_run_between_polls():
    paused: list[float] = []

    async def pause(seconds: float) -> None:
        paused.append(seconds)

    calls = iter([0, 0, 3])
    assert await eventually_async(lambda: next(calls), "three", pause=pause, step=0.01) == 3
    assert paused == [0.01, 0.01]
    with pytest.raises(AssertionError, match="waiting for nothing"):
        await eventually_async(lambda: None, "nothing", timeout=0)
