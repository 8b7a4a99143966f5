"""A run stopped with Ctrl-C and resumed: ``gftpwb run`` (SIGINT to its process group while a transfer is in
flight, as a terminal sends it), ``gftpwb run --resume``, ``gftpwb report`` and ``gftpwb report --html``
opened in headless Chromium.

The transfer in flight reads a FIFO, so it is in flight for as long as the test needs on any machine: it
ends only when the test writes to the FIFO, which it does for the resumed run. What the user sees: exit
130 and the run in flight recorded as interrupted, guc gone; the resumed run does only what is left; the
journal keeps every run that finished (and the interrupted attempt); the report, on the console and in
the browser, shows the cases the run's own table showed."""

from __future__ import annotations

import os
import re
import threading

import pytest
from support.browser import PageTables, browser, console_messages
from support.journey import User, table_titled
from support.polling import eventually
from support.processes import guc_processes
from support.results import records

pytestmark = pytest.mark.real

SCENARIO = """\
version: 1
name: stopped
defaults:
  source: {url}/dev/zero
  target: {url}/dev/null
  timeout: 300s
tests:
  - id: quick
    kind: guc
    options: {{length: 16M}}
    repeat: 2
  - id: gated                 # reads a FIFO: in flight until something writes to it
    kind: guc
    source: file://{gate}
    options: {{length: 8M}}
  - id: after
    kind: guc
    options: {{length: 16M}}
    matrix: {{parallel: [1, 2]}}
"""
GATE_BYTES = 8 << 20


def open_the_gate(gate) -> threading.Thread:
    """Write the gated transfer's data into the FIFO once guc opens it (a thread: opening blocks until then)."""
    def write() -> None:
        with open(gate, "wb") as fifo:
            fifo.write(b"\0" * GATE_BYTES)
    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.fixture(scope="module")
def walked(tmp_path_factory, gridftp):
    home = tmp_path_factory.mktemp("stopped")
    gate = home / "gate"
    os.mkfifo(gate)
    (home / "stopped.yaml").write_text(SCENARIO.format(url=gridftp.url, gate=gate))
    user = User(home)

    first = user.start("gftpwb run stopped.yaml")
    first.wait_for_output("gated/0: globus-url-copy")
    eventually(lambda: guc_processes(str(gate)), "guc reading the FIFO")
    relative = re.search(r"-> (results/\S+-stopped)\n", first.printed())[1]
    eventually(lambda: len(records(home / relative)) == 2, "the two quick runs in the journal")
    mid_run = user.sh(f"gftpwb report {relative}")  # from another terminal, while the run goes on
    first.ctrl_c()
    stopped = first.finish(expect=130)
    directory = home / relative
    journal_after_stop = records(directory)
    eventually(lambda: not guc_processes(str(gate)), "guc to be gone after Ctrl-C",
               detail=lambda: guc_processes(str(gate)))

    writer = open_the_gate(gate)
    resumed = user.sh("gftpwb run stopped.yaml --resume")
    writer.join(timeout=60)
    return {"user": user, "dir": directory, "stopped": stopped, "journal_after_stop": journal_after_stop,
            "resumed": resumed, "relative": directory.relative_to(home), "mid_run": mid_run}


def test_a_report_while_the_run_goes_on_says_it_is_still_running(walked):
    """Not '3 not run': one is in flight and two wait their turn."""
    last = walked["mid_run"].stdout.rstrip().splitlines()[-1]
    assert re.fullmatch(r"2 passed of 5 planned; 3 not run yet: still running \(pid \d+: gftpwb run stopped.yaml\)",
                        last), last
    after = walked["user"].sh(f"gftpwb report {walked['relative']}").stdout.rstrip().splitlines()[-1]
    assert after == "5 passed of 5 planned"  # once it ended, nothing says it runs


def test_ctrl_c_records_the_run_in_flight_as_interrupted_and_keeps_what_finished(walked):
    stopped = walked["stopped"]
    assert "INTERRUPTED gated/0  interrupted by the user (Ctrl-C); guc was stopped" in stopped.stdout
    assert stopped.stdout.rstrip().endswith(f"1 interrupted, 2 passed of 5 planned (interrupted by the user "
                                            f"(Ctrl-C)). Results: {walked['relative']}")
    assert [(r["run_id"], r["status"]) for r in walked["journal_after_stop"]] == [
        ("quick/0", "passed"), ("quick/1", "passed"), ("gated/0", "interrupted")]
    table = table_titled(stopped.stdout, "Results")
    assert [(row["test"], row["ok/runs"]) for row in table.records()] == [("quick", "2/2"), ("gated", "0/1")]


def test_resume_runs_only_what_is_left_and_the_journal_keeps_every_finished_run(walked):
    resumed, directory = walked["resumed"], walked["dir"]
    assert f"stopped: 3 run(s) (2 already done, resuming) -> {walked['relative']}" in resumed.stdout
    user = walked["user"]
    planned = [line.split(": ", 1)[0] for line in user.sh("gftpwb run stopped.yaml --dry-run").stdout.splitlines()]
    assert len(planned) == 5 and planned[:3] == ["quick/0", "quick/1", "gated/0"]
    started = re.findall(r"^\[\d+/\d+\] (\S+): ", resumed.stdout, flags=re.M)
    assert started == planned[2:]  # what the first run left, in the plan's order
    assert resumed.stdout.rstrip().endswith(f"5 passed of 5 planned. Results: {walked['relative']}")
    journal = records(directory)
    assert journal[:3] == walked["journal_after_stop"]  # nothing that was written is lost or rewritten
    assert [(r["run_id"], r["status"]) for r in journal[3:]] == [(run_id, "passed") for run_id in planned[2:]]
    assert journal[3]["bytes"] == GATE_BYTES
    runs = user.sh("gftpwb results query \"SELECT status, count(*) AS n FROM runs GROUP BY ALL ORDER BY ALL\" --csv")
    assert runs.stdout.split() == ["status,n", "passed,5"]
    attempts = user.sh("gftpwb results query \"SELECT status, count(*) AS n FROM records GROUP BY ALL ORDER BY ALL\" "
                       "--csv")
    assert attempts.stdout.split() == ["status,n", "interrupted,1", "passed,5"]


def test_the_report_shows_the_cases_the_resumed_run_showed(walked):
    report = walked["user"].sh(f"gftpwb report {walked['relative']}")
    from_run = table_titled(walked["resumed"].stdout, "Results")
    from_report = table_titled(report.stdout, "Results")
    assert from_report.rows == from_run.rows
    assert [(row["test"], row["#"], row["ok/runs"]) for row in from_report.records()] == [
        ("quick", "000", "2/2"), ("gated", "001", "1/1"), ("after", "002", "1/1"), ("after", "003", "1/1")]
    assert report.stdout.rstrip().endswith("5 passed of 5 planned")


def test_the_html_report_opens_in_chromium_with_the_same_cases(walked):
    user = walked["user"]
    user.sh(f"gftpwb report {walked['relative']} --html report.html")
    rendered = browser("--dump-dom", (user.home / "report.html").as_uri())
    assert rendered.returncode == 0, rendered.stderr
    assert console_messages(rendered) == []
    header, rows = PageTables(rendered.stdout).titled("Results (rates in MiB/s)")
    console = table_titled(walked["resumed"].stdout, "Results")
    assert header == console.header and rows == console.rows
    assert "5 passed of 5 planned" in " ".join(rendered.stdout.split())
