"""``gftpwb tui`` and ``gftpwb run --tui`` as users start them: in a real pseudo-terminal, with exit codes
and clear refusals; and headless parity: the same scenario with and without --tui writes equivalent
results (records, tag logs, plan)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.polling import eventually
from support.results import records
from support.terminal import Terminal

from gftpwb.converters.taglog import parse_tags

pytestmark = pytest.mark.real

# Figures that depend on when and how fast a run went, not on what it was.
TIMING_FIELDS = {"started_at", "ended_at", "seconds", "rate_incl_setup_mib_s", "rate_guc_avg_mib_s", "output"}
TIMING_TAGS = {"GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_RATE", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
               "GFTPWB_RATE_INCL_SETUP_MIB_S", "GFTPWB_RATE_GUC_AVG_MIB_S", "GFTPWB_SECONDS", "TGFTP_COMMAND"}


def comparable(tag: tuple[str, str]) -> tuple[str, object]:
    """A tag with what timing decides taken out (the whole record some logs end with, as JSON)."""
    name, value = tag
    if name == "GFTPWB_RECORD":
        return name, {k: v for k, v in untimed(json.loads(value)).items() if k != "output_chars"}
    return name, value


def scenario(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "parity.yaml"
    path.write_text(f"""\
version: 1
name: parity
defaults: {{source: "{url}/dev/zero", target: "{url}/dev/null", timeout: 60s}}
tests:
  - {{id: stream, kind: guc, options: {{length: 128M}}, repeat: 2, comment: "#stream"}}
  - {{id: par, kind: guc, options: {{length: 128M}}, matrix: {{parallel: [2, 4]}}}}
""")
    return path


def journal_lines(results: Path) -> int:
    try:
        return (results / "results.jsonl").read_text().count("\n")
    except FileNotFoundError:
        return 0


def untimed(record: dict) -> dict:
    """A record without what depends on timing (guc's average is quantised when a transfer is short)."""
    details = {k: v for k, v in record.get("details", {}).items() if k != "guc_avg_quantised"}
    return {**{k: v for k, v in record.items() if k not in TIMING_FIELDS}, "details": details}


def test_run_with_tui_writes_the_same_results_as_headless(tmp_path, gridftp):
    path = scenario(tmp_path, gridftp.url)
    headless, tui = tmp_path / "headless", tmp_path / "tui"
    out = gftpwb("run", str(path), "--results", str(headless))
    assert out.returncode == 0, out.stdout + out.stderr

    term = Terminal.gftpwb("run", str(path), "--results", str(tui), "--tui", cwd=tmp_path)
    try:
        eventually(lambda: journal_lines(tui) == 4, "the TUI's run to record its 4 runs", timeout=180)
        term.wait_for("finished: 4 passed of 4 planned")
        term.press("q")  # q alone ends a finished run
        code = term.wait()
    finally:
        term.close()
    assert code == 0, term.screen()
    assert b"Traceback" not in term.output

    a, b = records(headless), records(tui)
    assert [r["run_id"] for r in a] == [r["run_id"] for r in b] == ["stream/0", "stream/1", "par[1]/0", "par[2]/0"]
    for ra, rb in zip(a, b, strict=True):
        assert untimed(ra) == untimed(rb)
        assert ra["status"] == "passed" and rb["rate_incl_setup_mib_s"] > 0
        # stream mode between two servers runs without -vb, so guc prints nothing; -p runs report progress
        assert rb["output"].startswith("Source:") == (rb["details"]["mode"] == "extended")
    assert (headless / "plan.json").read_text() == (tui / "plan.json").read_text()
    names = sorted(p.name for p in headless.glob("*.log"))
    assert names == sorted(p.name for p in tui.glob("*.log")) and len(names) == 4
    for name in names:
        tags_a, tags_b = parse_tags((headless / name).read_text()), parse_tags((tui / name).read_text())
        # guc's own average exists only when guc printed a progress line, which depends on timing.
        assert [t for t, _ in tags_a if t != "GFTPWB_RATE_GUC_AVG_MIB_S"] == \
            [t for t, _ in tags_b if t != "GFTPWB_RATE_GUC_AVG_MIB_S"]
        assert [comparable(tv) for tv in tags_a if tv[0] not in TIMING_TAGS] == \
            [comparable(tv) for tv in tags_b if tv[0] not in TIMING_TAGS]
    meta_a = json.loads((headless / "meta.json").read_text())
    meta_b = json.loads((tui / "meta.json").read_text())
    assert meta_a["plan_fingerprint"] == meta_b["plan_fingerprint"]
    assert meta_b["command"][-1] == "--tui"


def test_tui_command_runs_on_r_and_quits_on_q(tmp_path, gridftp):
    path = scenario(tmp_path, gridftp.url)
    base = tmp_path / "results"

    def finished() -> bool:
        dirs = list(base.glob("*-parity"))
        return len(dirs) == 1 and journal_lines(dirs[0]) == 4

    term = Terminal.gftpwb("tui", str(path), "--results-base", str(base), cwd=tmp_path)
    try:
        term.wait_for(lambda screen: "Scenario" in screen and "parity" in screen, "the scenario view")
        term.press("r")
        eventually(finished, "the run started with r to record its 4 runs", timeout=180)
        term.wait_for("finished: 4 passed of 4 planned")
        term.press("q")
        code = term.wait()
    finally:
        term.close()
    assert code == 0, term.screen()
    (results,) = base.glob("*-parity")
    assert [r["status"] for r in records(results)] == ["passed"] * 4
    # On quit the TUI prints what a headless run prints at its end: the report and the results path.
    after = term.printed_after_closing().replace("\n", "")  # the path may wrap at 80 columns
    assert "4 passed of 4 planned. Results: " in after and str(results) in after
    assert "median" in after  # the report's statistics table
    meta = json.loads((results / "meta.json").read_text())
    assert meta["command"] == ["gftpwb", "run", str(path), "--results", str(results)]


def test_tui_needs_a_terminal(tmp_path, gridftp):
    path = scenario(tmp_path, gridftp.url)
    for args in (["tui", str(path)], ["run", str(path), "--tui", "--results", str(tmp_path / "r")]):
        out = gftpwb(*args)
        assert out.returncode == 2, out.stderr
        assert out.stderr.startswith("gftpwb: the TUI needs a terminal") and "Traceback" not in out.stderr
    assert not (tmp_path / "r").exists()


def test_run_tui_reports_an_invalid_scenario_before_opening(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("version: 1\nname: bad\ntests:\n  - {id: a, kind: guc, source: s, target: t, parallel: 4}\n")
    out = gftpwb("run", str(path), "--tui")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{path}:4:46: unknown key 'parallel'")


BAD = "version: 1\nname: bad\ntests:\n  - {id: a, kind: guc, source: s, target: t, parallel: 4}\n"
GOOD = "version: 1\nname: bad\ntests:\n  - {id: a, kind: guc, source: s, target: t, options: {parallel: 4}}\n"


def test_tui_on_an_invalid_scenario_offers_reload_and_quits_as_validate_does(tmp_path):
    """``gftpwb tui bad.yaml``: the key bar offered ``r Run`` (which only said there was nothing to run)
    and not ``l`` to reload; the auto-tune view offered ``c Copy line  w Save line`` with nothing to copy;
    and ``q`` exited 0 where ``validate`` exits 2. The bar offers l Reload, no key that does nothing, and
    quitting ends as validate does: its errors on the terminal, exit 2."""
    (tmp_path / "bad.yaml").write_text(BAD)
    validate = gftpwb("validate", "bad.yaml", cwd=tmp_path)
    assert validate.returncode == 2
    tui = Terminal.gftpwb("tui", "bad.yaml", cwd=tmp_path)
    try:
        screen = tui.wait_for("l Reload")
        bar = screen.splitlines()[-1]
        assert "r Run" not in bar and "q Quit" in bar, bar
        tui.press("4")
        screen = tui.wait_for("No auto-tune test has reported yet")
        assert "Copy line" not in screen and "Save line" not in screen, screen
        tui.press("q")
        code = tui.wait()
    finally:
        tui.close()
    assert code == validate.returncode == 2
    closing = tui.printed_after_closing()
    assert validate.stderr.strip() in closing and "Traceback" not in closing, closing


def test_tui_on_a_scenario_fixed_and_reloaded_runs_and_quits_with_0(tmp_path):
    """Fixed and reloaded with l, the scenario is valid: the bar offers r Run again (not l), and q ends
    as a session that ran nothing does (0), validate's refusal no longer applies."""
    (tmp_path / "bad.yaml").write_text(BAD)
    tui = Terminal.gftpwb("tui", "bad.yaml", cwd=tmp_path)
    try:
        tui.wait_for("l Reload")
        (tmp_path / "bad.yaml").write_text(GOOD)
        tui.press("l")
        screen = tui.wait_for("r Run")
        assert "l Reload" not in screen.splitlines()[-1], screen
        tui.press("q")
        code = tui.wait()
    finally:
        tui.close()
    assert code == 0 and "unknown key" not in tui.printed_after_closing()


def test_run_tui_refuses_a_used_results_directory_before_opening(tmp_path, gridftp):
    path = scenario(tmp_path, gridftp.url)
    used = tmp_path / "used"
    used.mkdir()
    (used / "results.jsonl").write_text("")
    term = Terminal.gftpwb("run", str(path), "--results", str(used), "--tui", cwd=tmp_path)
    try:
        code = term.wait()
    finally:
        term.close()
    assert code == 2
    assert b"already holds results" in term.output and b"Traceback" not in term.output


def test_a_hangup_stops_the_run_gracefully(tmp_path, gridftp):
    """A dropped SSH session sends SIGHUP: the run in flight is recorded as interrupted, guc is gone."""
    path = tmp_path / "long.yaml"
    path.write_text(f"""\
version: 1
name: long
tests:
  - {{id: big, kind: guc, source: "{gridftp.url}/dev/zero", target: "file:///dev/null", options: {{length: 2000G}},
      timeout: 300s}}
""")
    results = tmp_path / "r"
    term = Terminal.gftpwb("run", str(path), "--results", str(results), "--tui", cwd=tmp_path)
    try:
        term.wait_for("ETA ")  # the transfer in flight
        term.process.send_signal(signal.SIGHUP)
        code = term.wait()
    finally:
        term.close()
    assert code == 129, term.screen()  # 128 + SIGHUP, as headless
    assert [(r["run_id"], r["status"]) for r in records(results)] == [("big/0", "interrupted")]
    assert records(results)[0]["details"]["interrupted_by"] == "SIGHUP"
    out = subprocess.run(["pgrep", "-f", f"globus-url-copy.*{gridftp.port}"], capture_output=True, text=True)
    assert out.stdout.strip() == ""
