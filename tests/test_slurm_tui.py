"""The TUI with a scenario on the lab's real Slurm: the threads view and the run view's chart show the
node slots as hosts, ``s`` stops the workers on every node (no task, no job left), and the results view
names the nodes the slots stood for."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.polling import eventually, eventually_async
from support.slurm import jobs, tasks_of
from support.tui import cells

from gftpwb.core.live import read
from gftpwb.core.slurm.report import allocation_text
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import WorkbenchApp

pytestmark = [pytest.mark.real, pytest.mark.slow]
SIZE = (120, 40)


def workers_writing(app: WorkbenchApp, hosts: int) -> bool:
    parts = [part for run in app.live.running.values() for part in run.parts.values()]
    return len({p.host for p in parts if p.state == "running" and p.files}) == hosts


async def test_nodes_show_as_hosts_and_s_stops_every_node(slurm_lab, tmp_path):
    path = tmp_path / "tuislurm.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: tuislurm
        slurm: {{nodes: 3, on_failure: cancel, conf: {slurm_lab.conf}}}
        tests:
          - id: many
            kind: gfapi
            on: slurm
            directory: {tmp_path / "files"}
            workload: seq-wr
            threads: 2
            files: 100000
            file_size: 1
            record_size: 1
            timeout: 5m
        """))
    app = WorkbenchApp(str(path), results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: workers_writing(app, 3), "workers writing on three nodes", pause=pilot.pause,
                               timeout=180)
        await pilot.press("3")
        await eventually_async(lambda: len(cells(app, "thread-table")) == 6, "a row per thread and node",
                               pause=pilot.pause)
        rows = cells(app, "thread-table")
        assert sorted({row[1] for row in rows.values()}) == ["node1", "node2", "node3"]  # the host column
        assert sorted(read.thread_rows(app.live)[i].host for i in range(6)) == ["node1", "node1", "node2", "node2",
                                                                                "node3", "node3"]
        await pilot.press("s")
        await eventually_async(lambda: app.summary is not None, "the stop", pause=pilot.pause, timeout=120)
        assert app.summary.interrupted
        results = app.live.results_dir
        await pilot.press("5")
        await pilot.pause()
    eventually(lambda: tasks_of(slurm_lab) == [], "every task to end")
    assert jobs(slurm_lab) == ""
    summary = read_directory(results)
    assert allocation_text(summary.meta).endswith(": node1=n1, node2=n2, node3=n3 (on_failure cancel)")
    app = WorkbenchApp(None, results_base=str(Path(results).parent))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("enter")
        await eventually_async(lambda: "slurm job" in str(app.query_one("#detail-head").render()), "the detail",
                               pause=pilot.pause)
        assert allocation_text(summary.meta) in str(app.query_one("#detail-head").render())
