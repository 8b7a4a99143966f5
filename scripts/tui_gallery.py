#!/usr/bin/env python3
"""Write the README's TUI gallery: an SVG of each view at 120x40 (docs/gallery/), drawn from the same
fixed data and clock as the snapshot tests (tests/test_tui_snapshots.py), so the pictures show what
the tests check. Run it after a change to a view, then look at each picture (for instance
``chromium --headless --screenshot=out.png --window-size=1200,800 docs/gallery/run.svg``)::

    .venv/bin/python scripts/tui_gallery.py [--out docs/gallery] [--only run,threads]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import test_tui_snapshots as snap  # noqa: E402  (the snapshot tests' fixed data)
from support.report_fixture import write_mixed  # noqa: E402

SIZE = (120, 40)
SCENARIO_FILE = "quickstart.yaml"


def threads_events() -> list:
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.events import RunStarted, ScenarioStarted, WorkerProgress
    from gftpwb.core.live.models import MIB
    from gftpwb.core.plan import plan

    spec = plan(load_scenario(SCENARIO_FILE))[0]
    events: list = [ScenarioStarted(scenario="quickstart", results_dir=snap.RESULTS, plan=(spec,), t=snap.T0),
                    RunStarted(spec=spec, argv=spec.argv, started_at="", t=snap.T0)]
    for h, host in enumerate(("client1", "client2")):
        for thread in range(4):
            mib = 3 * snap.thread_speed(h, thread)
            state = "failed" if (h, thread) == (1, 3) else "running"
            events.append(WorkerProgress(run_id=spec.run_id, host=host, thread=thread, state=state, files=30 + thread,
                                         bytes=mib * MIB, ios=mib * 16, elapsed_s=1.5, files_total=200,
                                         error="EIO on /vol/d3/f31" if state == "failed" else "", t=snap.T0 + 1.5))
    return events


def tune_events() -> list:
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.events import ScenarioStarted, TuneUpdate
    from gftpwb.core.plan import plan

    spec = plan(load_scenario(SCENARIO_FILE))[0]
    return [ScenarioStarted(scenario="quickstart", results_dir=snap.RESULTS, plan=(spec,), t=snap.T0),
            TuneUpdate(test_id=spec.test_id, strategy="adaptive", engine="simulated", transfers_used=40, budget=40,
                       margin_mib_s=20.0, rows=snap.RANKING, leader=snap.RANKING[0].candidate, finished=True,
                       p_within_margin=0.93, stop_reason="confident: P(within margin) 0.93 >= 0.9", t=snap.T0 + 9)]


def run_events() -> list:
    """Mid-run, traced and switched to io, with monitors on three hosts and a threshold violated."""
    from dataclasses import replace

    from gftpwb.core.events import ExpectationsChecked, RunStarted, TraceLevelChanged

    events = snap.mid_run_events(SCENARIO_FILE)
    started = next(e for e in reversed(events) if isinstance(e, RunStarted))
    traced = replace(started.spec, details={**started.spec.details, "trace": {"level": "run"}})
    events[events.index(started)] = replace(started, spec=traced)
    events += snap.monitor_events()
    events.append(TraceLevelChanged(run_id=traced.run_id, host="local", level="io", source="tui key t",
                                    t=snap.NOW - 1))
    checks = [e for e in snap.violations_events(SCENARIO_FILE) if isinstance(e, ExpectationsChecked)]
    return events + checks


# name -> (the events fed, the keys pressed, what it shows)
VIEWS: dict[str, tuple[Callable[[], list], tuple[str, ...], str]] = {
    "scenario": (run_events, ("1",), "Scenario view, mid-run: status and notes per test"),
    "run": (run_events, ("2",), "Run view: rate chart, monitors, trace level, a threshold violated"),
    "threads": (threads_events, ("3",), "Threads view: a bar per worker thread, an error, the totals"),
    "autotune": (tune_events, ("4",), "Auto-tune view: ranking and each candidate's mean and CI"),
    "results": (list, ("5", "enter"), "Results view: a directory's cases with their statistics"),
}


async def render(name: str, out: Path) -> Path:
    from gftpwb.tui.app import WorkbenchApp

    events_of, keys, _ = VIEWS[name]
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # relative paths on screen, as in the snapshot tests
        try:
            Path(SCENARIO_FILE).write_text(snap.SCENARIO)
            if name == "results":
                write_mixed(Path("results/20261122T100000Z-mixed"))
            app = WorkbenchApp(None if name == "results" else SCENARIO_FILE, results_base="results",
                               clock=lambda: snap.NOW, stable=True, refresh_s=0.1)
            async with app.run_test(size=SIZE) as pilot:
                for event in events_of():
                    app.live(event)
                await pilot.press(*keys)
                for _ in range(2):  # twice: the second draw sees the sizes the layout gave
                    app.draw(force=True)
                    await pilot.pause()
                svg = app.export_screenshot(title=f"gftpwb tui: {name}")
        finally:
            os.chdir(here)
    path = out / f"{name}.svg"
    path.write_text(svg)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "gallery"), help="where the SVGs go")
    parser.add_argument("--only", default="", help=f"comma-separated views ({', '.join(VIEWS)})")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(VIEWS)
    unknown = [n for n in names if n not in VIEWS]
    if unknown:
        parser.error(f"unknown view(s) {', '.join(unknown)}; one of {', '.join(VIEWS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        print(asyncio.run(render(name, out.resolve())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
