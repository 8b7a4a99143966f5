"""Auto-tunes end to end on the simulated engine (deterministic): the CLI's ranking and tgftp line,
results.jsonl (every transfer plus the ranking), tag logs, TuneUpdate events, and --resume after a
SIGKILL or Ctrl-C giving exactly the result of an uninterrupted run. The same paths with real guc
are in test_autotune_real.py."""

import asyncio
import signal
import textwrap

import pytest
from support.clihelp import gftpwb, popen
from support.results import records

from gftpwb.converters.taglog import parse_tags
from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished, TuneUpdate
from gftpwb.core.plan import plan
from gftpwb.kinds.autotune.ranking import tgftp_pick
from gftpwb.shell.executor import Executor

LINK = "{bandwidth: 1GB/s, rtt: 20ms, noise: 4%, buffer_cap: 4M, seed: 7EXTRA}"


def scenario_text(strategy: str = "adaptive", extra: str = "", link_extra: str = "", name: str = "sim") -> str:
    budget = "budget: 60" if strategy == "adaptive" else "repetitions: 3"
    return textwrap.dedent(f"""\
        version: 1
        name: {name}
        tests:
          - id: tune
            kind: autotune
            source: gsiftp://src.example.org/data/file
            target: gsiftp://dst.example.org/incoming/
            engine: simulated
            strategy: {strategy}
            {budget}
            link: {LINK.replace("EXTRA", link_extra)}
        """) + textwrap.indent(textwrap.dedent(extra), "    ")


def write(tmp_path, text: str, name: str = "sim.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def tune_record(results) -> dict:
    return [r for r in records(results) if r["kind"] == "autotune"][-1]


@pytest.mark.parametrize("strategy", ["exhaustive", "adaptive"])
def test_cli_prints_the_ranking_and_tgftps_line_and_journals_everything(tmp_path, strategy):
    results = tmp_path / "r"
    out = gftpwb("run", write(tmp_path, scenario_text(strategy)), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    tune = tune_record(results)
    transfers = [r for r in recs if r["kind"] == "guc"]
    details = tune["details"]
    assert tune["status"] == "passed" and tune["engine"] == "simulated" and tune["run_id"] == "tune"
    assert details["transfers_used"] == len(transfers) == (111 if strategy == "exhaustive" else len(transfers))
    if strategy == "adaptive":
        assert len(transfers) <= 60
    assert all(r["engine"] == "simulated" and r["run_id"].startswith("tune#") for r in transfers)
    # Memory to memory on the same servers, as tgftp -a: /dev/zero -> /dev/null, default port added.
    assert transfers[0]["argv"][-2:] == ["gsiftp://src.example.org:2811/dev/zero",
                                         "gsiftp://dst.example.org:2811/dev/null"]
    line = details["tgftp_line"]
    assert line == details["pick"]["params"] == details["ranking"][0]["candidate"]
    # The console: a ranking table, the tie marks, and tgftp's line on a line of its own.
    assert "SIMULATED" in out.stdout and "auto-tune ranking" in out.stdout
    assert "best guc parameters (as tgftp -a prints them):\n" + line + "\n" in out.stdout
    tied = [row for row in details["ranking"] if row["tied_with_leader"]]
    assert ("tied with #1 (within 20MB/s)" in out.stdout) == bool(tied)
    assert "same kernel-capped -tcp-bs as -vb -p 1 -tcp-bs 4M" in out.stdout
    assert "net.core.rmem_max=4194304" in out.stdout
    # One tag log per transfer, labelled SIMULATED; none for the ranking record.
    first = transfers[0]
    tags = dict(parse_tags((results / first["taglog"]).read_text()))
    assert tags["GSIFTP_TRANSFER_COMMAND_OUTPUT"].startswith("SIMULATED")
    assert tune["taglog"] == "" and len(list(results.glob("sim_#*.log"))) == len(transfers)
    if strategy == "exhaustive":
        # tgftp's pick, recomputed from the journal: mean of successful runs per candidate, in order.
        by_case: dict[int, list[float]] = {}
        for r in transfers:
            if r["status"] == "passed":
                by_case.setdefault(r["case"], []).append(r["rate_incl_setup_mib_s"])
        means = [sum(by_case[c]) / len(by_case[c]) if c in by_case else None for c in range(37)]
        assert details["pick"]["candidate"] == tgftp_pick(means, 20.0) + 1
        assert details["p_within_margin"] is not None


def test_a_tune_update_follows_every_transfer():
    scenario = load_scenario_text(scenario_text("adaptive"), "sim.yaml")
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    summary = asyncio.run(Executor(bus).run(plan(scenario), results_dir="r", scenario="sim"))
    assert summary.all_passed
    updates = [e for e in events if isinstance(e, TuneUpdate)]
    finished = [e.record for e in events if isinstance(e, RunFinished)]
    transfers = [r for r in finished if r.kind == "guc"]
    assert [u.transfers_used for u in updates] == [0, *range(1, len(transfers) + 1), len(transfers)]
    assert [u.finished for u in updates] == [False] * (len(updates) - 1) + [True]
    # Each transfer's RunFinished comes before the update that counts it.
    order = [type(e).__name__ for e in events if isinstance(e, RunFinished | TuneUpdate)]
    assert order[:3] == ["TuneUpdate", "RunFinished", "TuneUpdate"]
    last = updates[-1]
    assert last.strategy == "adaptive" and last.engine == "simulated" and last.budget == 60
    assert last.margin_mib_s == 20.0 and len(last.rows) == 37
    assert last.leader == last.rows[0].candidate == finished[-1].details["tgftp_line"]
    assert any(r.eliminated for r in last.rows)


SMALL_GRID = "candidates: {parallel: [null, 2, 4, 8], tcp_buffer: [null, 8M]}\n"


def test_resume_after_sigkill_gives_the_result_of_an_uninterrupted_run(tmp_path):
    text = scenario_text("exhaustive", extra=SMALL_GRID, link_extra=", time_scale: 0.005")
    path = write(tmp_path, text)
    killed = tmp_path / "killed"
    proc = popen("run", path, "--results", str(killed), "--progress", "never")
    seen = 0
    for line in proc.stdout:
        if line.startswith("ok   tune#"):
            seen += 1
            if seen == 10:
                break
    proc.kill()
    proc.wait(timeout=10)
    partial = records(killed)
    assert 10 <= len(partial) < 24 and all(r["kind"] == "guc" for r in partial)  # no ranking yet

    resumed = gftpwb("run", path, "--resume", str(killed), "--progress", "never")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(partial)} transfer(s) taken from the journal" in resumed.stdout

    clean = tmp_path / "clean"
    assert gftpwb("run", path, "--results", str(clean), "--progress", "never").returncode == 0
    a, b = tune_record(killed)["details"], tune_record(clean)["details"]
    assert a["tgftp_line"] == b["tgftp_line"] and a["ranking"] == b["ranking"] and a["transfers_used"] == 24
    runs_a = {r["run_id"]: r["rate_incl_setup_mib_s"] for r in records(killed) if r["kind"] == "guc"}
    runs_b = {r["run_id"]: r["rate_incl_setup_mib_s"] for r in records(clean) if r["kind"] == "guc"}
    assert runs_a == runs_b and len(runs_a) == 24


def test_ctrl_c_records_the_partial_ranking_and_resume_finishes(tmp_path):
    path = write(tmp_path, scenario_text("adaptive", extra=SMALL_GRID, link_extra=", time_scale: 0.02"))
    results = tmp_path / "r"
    proc = popen("run", path, "--results", str(results), "--progress", "never")
    for line in proc.stdout:
        if line.startswith("  [5/"):  # four transfers done, the fifth in flight
            break
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    assert proc.wait(timeout=30) == 130, rest + proc.stderr.read()
    assert "Traceback" not in proc.stderr.read()
    tune = tune_record(results)
    assert tune["status"] == "interrupted" and "--resume" in tune["error"]
    assert 4 <= tune["details"]["transfers_used"] < 8
    out = gftpwb("run", path, "--resume", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    assert tune_record(results)["status"] == "passed"
    assert [r["run_id"] for r in records(results) if r["kind"] == "autotune"] == ["tune", "tune"]


def test_when_every_transfer_fails_there_is_no_pick_and_the_exit_code_says_so(tmp_path):
    # 4 GiB at 50 MiB/s needs ~80 s: every transfer hits the 30 s timeout, as tgftp -a on a slow path.
    text = scenario_text("exhaustive").replace("bandwidth: 1GB/s", "bandwidth: 50MB/s")
    results = tmp_path / "r"
    out = gftpwb("run", write(tmp_path, text), "--results", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr
    tune = tune_record(results)
    assert tune["status"] == "failed" and tune["error"] == "no candidate had a successful transfer"
    assert tune["details"]["tgftp_line"] == "" and tune["details"]["pick"] is None
    assert "no pick" in out.stdout
    assert all(row["note"].startswith("all 3 runs failed: SIMULATED timeout")
               for row in tune["details"]["ranking"] if "kernel-capped" not in row["note"])


def test_dry_run_lists_the_candidates(tmp_path):
    out = gftpwb("run", write(tmp_path, scenario_text("adaptive")), "--dry-run")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("tune: SIMULATED auto-tune of 37 candidates (adaptive, at most 60 transfers, 20 with "
                               "a warm start from the history in the results base)")
    # tgftp's "-vb" candidate runs in stream mode: between two servers -vb would make it MODE E
    assert lines[1] == ("  #1: globus-url-copy -len 4G gsiftp://src.example.org:2811/dev/zero "
                        "gsiftp://dst.example.org:2811/dev/null")
    assert lines[2] == ("  #2: globus-url-copy -vb -p 1 -len 4G gsiftp://src.example.org:2811/dev/zero "
                        "gsiftp://dst.example.org:2811/dev/null")
    assert len(lines) == 38


def test_simulated_guc_tests_need_no_guc_and_are_labelled(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    text = textwrap.dedent("""\
        version: 1
        name: simguc
        tests:
          - {id: g, kind: guc, source: ftp://h/dev/zero, target: ftp://h/dev/null, engine: simulated,
             options: {length: 1G}, matrix: {parallel: [1, 4]}, repeat: 2}
        """)
    results = tmp_path / "r"
    out = gftpwb("run", write(tmp_path, text), "--results", str(results), "--progress", "never",
                 env={"PATH": "/nonexistent"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Results SIMULATED" in out.stdout and "ok   g[1]/1 SIMULATED" in out.stdout
    recs = records(results)
    assert [r["engine"] for r in recs] == ["simulated"] * 4 and all(r["rate_incl_setup_mib_s"] > 0 for r in recs)
    again = tmp_path / "again"
    gftpwb("run", write(tmp_path, text), "--results", str(again), env={"PATH": "/nonexistent"})
    assert [r["rate_incl_setup_mib_s"] for r in records(again)] == [r["rate_incl_setup_mib_s"] for r in recs]


def test_tgftp_dash_a_prints_only_the_tuners_line(monkeypatch, capsys, tmp_path):
    """The drop-in's -a calls gftpwb.tgftp.run.autotune.run_tgftp_autotune (checked against the real
    server in test_autotune_real.py); here: what it prints and returns around that call."""
    import gftpwb.tgftp.run.autotune as tuner_module
    from gftpwb.core.records import Summary
    from gftpwb.tgftp.run.dropin import tgftp_main

    calls = []

    def fake(source, target, **kwargs):
        calls.append((source, target, kwargs))
        interrupted = source.endswith("stop")
        return tuner_module.TgftpAutotuneResult(
            line="" if interrupted else "-vb -p 16 -tcp-bs 8M", results_dir=kwargs["results_dir"],
            summary=Summary(total=1, counts={}, interrupted=interrupted))

    monkeypatch.setattr(tuner_module, "run_tgftp_autotune", fake)
    monkeypatch.chdir(tmp_path)
    assert tgftp_main(["-s", "gsiftp://a/x", "-t", "gsiftp://b/y", "-a", "--", "-p", "4"], program="tgftp") == 0
    out = capsys.readouterr()
    assert out.out == "-vb -p 16 -tcp-bs 8M\n"
    assert "guc parameters are not used with --auto-tune (as in tgftp): -p 4" in out.err
    assert "results in results/" in out.err and "-tgftp-autotune" in calls[0][2]["results_dir"]
    assert calls[0][:2] == ("gsiftp://a/x", "gsiftp://b/y")
    assert tgftp_main(["-s", "gsiftp://a/stop", "-t", "gsiftp://b/y", "-a"], program="tgftp") == 130
    assert capsys.readouterr().out == ""
