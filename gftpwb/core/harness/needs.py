"""``needs:`` between tests: the graph of who waits for whom, and its cycles.

graphlib (standard library) finds a cycle; we report each cycle in the order people read it,
``a -> b -> c -> a`` meaning a needs b, b needs c and c needs a. Tests that wait for each other in a
circle would never start, so a cycle is an error at validate time, not a hang at run time.
"""

from __future__ import annotations

import graphlib
from collections.abc import Iterable, Mapping


def find_cycle(needs: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One cycle of ``needs`` (test -> the tests it needs) as ``[a, b, ..., a]`` (a needs b ...), or None."""
    sorter = graphlib.TopologicalSorter({node: tuple(edges) for node, edges in needs.items()})
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        # graphlib lists each node before the node that needs it; people read "needs" forwards.
        return list(reversed(exc.args[1]))
    return None


def find_cycles(needs: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Cycles of ``needs`` with no test in two of them: after each cycle found, its tests are taken
    out and the rest searched again, so every separate circle is reported at once."""
    graph = {node: set(edges) for node, edges in needs.items()}
    cycles = []
    while (cycle := find_cycle(graph)) is not None:
        cycles.append(cycle)
        gone = set(cycle)
        graph = {node: edges - gone for node, edges in graph.items() if node not in gone}
    return cycles


def cycle_text(cycle: list[str]) -> str:
    """``a -> b -> a``; a test that needs itself reads ``a -> a``."""
    return " -> ".join(cycle)
