"""Tests wait for events, never for time (CONTRIBUTING.md, Tests): no test under tests/ calls
``time.sleep`` or ``asyncio.sleep`` for a duration, except a stand-in that plays time passing.

The rule, read from the source with ``ast``:

* ``sleep(0)`` is allowed anywhere: it yields a turn of the event loop, it waits for no time;
* a program a test runs, written as a string (a fake guc, a peer, a parent process), is a stand-in:
  its code is text to ``ast``, so its sleeps are never seen;
* ``tests/support/polling.py`` sleeps between the polls of ``eventually``: the one wait there is;
* a module ``tests/support/*standins*.py`` is made of stand-ins (runners that play a transfer's steps);
* anything else is in :data:`ALLOWED`, by file, enclosing function and call, each with its reason; an
  entry that no longer matches a call fails too, so the list never outlives what it excuses.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
SLEEP_MODULES = ("time", "asyncio")
WAIT_PRIMITIVE = "tests/support/polling.py"
STANDIN_MODULES = "support/*standins*.py"  # under tests/

# (file, enclosing function, call) -> why it may sleep
ALLOWED: dict[tuple[str, str, str], str] = {
    ("tests/test_signals.py", "test_a_second_stop_does_not_cancel_the_clean_up_of_the_first.slow_to_stop",
     "asyncio.sleep(30)"): "a stand-in runner: a run that lasts until it is stopped (30 s bounds a stop that "
                           "never comes, so the test fails instead of hanging)",
    ("tests/test_signals.py", "test_a_runner_that_lets_the_cancellation_through_still_gets_its_record.careless",
     "asyncio.sleep(30)"): "a stand-in runner: a run that lasts until it is stopped (as above)",
}


class _Sleeps(ast.NodeVisitor):
    """The sleep calls of one module: (enclosing function's dotted name, the call's source, line)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.names: set[str] = set()  # sleep imported by name (from time import sleep [as nap])
        self.scope: list[str] = []
        self.found: list[tuple[str, str, int]] = []

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module in SLEEP_MODULES:
            self.names |= {alias.asname or alias.name for alias in node.names if alias.name == "sleep"}

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        is_sleep = (isinstance(func, ast.Attribute) and func.attr == "sleep" and isinstance(func.value, ast.Name)
                    and func.value.id in SLEEP_MODULES) or (isinstance(func, ast.Name) and func.id in self.names)
        yields_only = (len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)
                       and node.args[0].value == 0)
        if is_sleep and not yields_only:
            self.found.append((".".join(self.scope), ast.get_source_segment(self.source, node) or "", node.lineno))
        self.generic_visit(node)


def sleeps_in(source: str) -> list[tuple[str, str, int]]:
    """The calls of ``source`` that sleep for a duration: (enclosing function, call, line)."""
    visitor = _Sleeps(source)
    visitor.visit(ast.parse(source))
    return visitor.found


def exempt(path: Path) -> bool:
    return path.relative_to(ROOT).as_posix() == WAIT_PRIMITIVE or path.relative_to(TESTS).match(STANDIN_MODULES)


def test_no_test_sleeps_for_a_fixed_time():
    found: dict[tuple[str, str, str], list[int]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if exempt(path):
            continue
        name = path.relative_to(ROOT).as_posix()
        for scope, call, line in sleeps_in(path.read_text()):
            found.setdefault((name, scope, call), []).append(line)
    unexcused = [f"{name}:{lines[0]}: {call} in {scope or 'the module'}"
                 for (name, scope, call), lines in found.items() if (name, scope, call) not in ALLOWED]
    assert not unexcused, ("tests wait for events, never for time (support.polling.eventually, "
                           "support.terminal.Terminal.wait_for); a stand-in that plays time passing belongs in a "
                           "string program, tests/support/*standins*.py or ALLOWED with its reason:\n"
                           + "\n".join(unexcused))
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"ALLOWED excuses sleeps that are gone: remove {stale}"


def test_the_rule_sees_a_sleep_in_a_test_and_not_in_a_program_or_a_turn_of_the_loop():
    source = '''\
import asyncio, time
from time import sleep as nap

PROGRAM = "import time; time.sleep(5)"

def test_waits():
    time.sleep(0.2)
    nap(1)

async def test_yields():
    await asyncio.sleep(0)

class Fake:
    async def run(self, delay):
        await asyncio.sleep(delay)
'''
    assert sleeps_in(source) == [("test_waits", "time.sleep(0.2)", 7), ("test_waits", "nap(1)", 8),
                                 ("Fake.run", "asyncio.sleep(delay)", 15)]
    assert exempt(TESTS / "support" / "tui_standins.py") and exempt(TESTS / "support" / "polling.py")
    assert not exempt(TESTS / "support" / "terminal.py") and not exempt(TESTS / "test_tui.py")
