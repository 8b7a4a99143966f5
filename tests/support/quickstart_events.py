"""The snapshot tests' scenario (a loopback quickstart) and a realistic mid-run moment of it as events
with fixed timestamps: three runs finished, the fourth in flight with two progress reports."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.events import OutputLine, Progress, RunFinished, RunStarted, ScenarioStarted
from gftpwb.core.live.models import MIB
from gftpwb.core.plan import plan
from support.live_events import record

SCENARIO = """\
version: 1
name: quickstart
description: guc configurations over loopback, each repeated
defaults:
  source: ftp://127.0.0.1:2811/dev/zero
  target: ftp://127.0.0.1:2811/dev/null
  timeout: 60s
  options: {length: 2G}
tests:
  - {id: stream-mode, kind: guc, repeat: 2}
  - {id: parallel, kind: guc, matrix: {parallel: [1, 4, 8]}, repeat: 2}
  - {id: refused, kind: guc, source: "ftp://127.0.0.1:1/dev/zero"}
"""
T0 = 1000.0
RESULTS = "results/20261122T004512Z-quickstart"


def write_quickstart(directory: Path) -> str:
    """The scenario in ``directory`` (the tests chdir there: relative paths on screen, no results/)."""
    (directory / "quickstart.yaml").write_text(SCENARIO)
    return "quickstart.yaml"


def mid_run_events(path: str, *, simulated: bool = False) -> list:
    """``simulated``: the run in flight is carried out by the simulated engine (marked SIMULATED)."""
    specs = {s.run_id: s for s in plan(load_scenario(path))}
    if simulated:
        specs["parallel[1]/1"] = replace(specs["parallel[1]/1"], engine="simulated")
    events: list = [ScenarioStarted(scenario="quickstart", results_dir=RESULTS, plan=tuple(specs.values()), t=T0)]
    t = T0
    for run_id, seconds, status in (("stream-mode/0", 2.1, "passed"), ("stream-mode/1", 2.0, "passed"),
                                    ("parallel[1]/0", 1.8, "passed")):
        spec = specs[run_id]
        events.append(RunStarted(spec=spec, argv=spec.argv, started_at="", t=t + 0.1))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="Source: ftp://127.0.0.1:2811/dev/", t=t + 0.2))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="Dest:   ftp://127.0.0.1:2811/dev/", t=t + 0.2))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="  zero  ->  null", t=t + 0.2))
        events.append(RunFinished(record=record(spec, status, 2 << 30, seconds), t=t + 0.1 + seconds))
        t += seconds + 0.3
    spec = specs["parallel[1]/1"]
    events.append(RunStarted(spec=spec, argv=spec.argv, started_at="", t=t))
    for n, (nbytes, avg, inst) in enumerate(((620, 1240.0, 1240.0), (1350, 1350.0, 1460.0)), start=1):
        events.append(Progress(run_id=spec.run_id, bytes=nbytes * MIB, rate_avg_mib_s=avg, rate_inst_mib_s=inst,
                               elapsed_s=0.5 * n, length_bytes=2 << 30, t=t + 0.5 * n))
    return events
