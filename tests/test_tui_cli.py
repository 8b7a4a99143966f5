"""``gftpwb tui`` and ``gftpwb run --tui`` as users start them: in a real pseudo-terminal, with exit codes
and clear refusals; and headless parity: the same scenario with and without --tui writes equivalent
results (records, tag logs, plan)."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.results import records
from support.terminal import Terminal

from gftpwb.converters.taglog import parse_tags

pytestmark = pytest.mark.real

# Figures that depend on when and how fast a run went, not on what it was.
TIMING_FIELDS = {"started_at", "ended_at", "seconds", "rate_incl_setup_mib_s", "rate_guc_avg_mib_s", "output"}
TIMING_TAGS = {"GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_RATE", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
               "GFTPWB_RATE_INCL_SETUP_MIB_S", "GFTPWB_RATE_GUC_AVG_MIB_S", "GFTPWB_SECONDS", "TGFTP_COMMAND"}


Step = tuple[Callable[[bytes], bool], "bytes | Callable[[subprocess.Popen], None]"]


def comparable(tag: tuple[str, str]) -> tuple[str, object]:
    """A tag with what timing decides taken out (the whole record some logs end with, as JSON)."""
    name, value = tag
    if name == "GFTPWB_RECORD":
        return name, {k: v for k, v in untimed(json.loads(value)).items() if k != "output_chars"}
    return name, value


def run_in_pty(args: list[str], *, cwd: Path, keys: list[Step], timeout: float = 180.0) -> tuple[int, bytes]:
    """Run gftpwb on an 80x24 pseudo-terminal; once each step's condition (on the output so far, or
    anything else) holds, type its keys or call it with the process. Returns (exit code, output)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "gftpwb", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env, start_new_session=True)
    os.close(slave)
    output = bytearray()
    pending = list(keys)
    deadline = time.monotonic() + timeout
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the program closed the terminal
                    break
                if not chunk:
                    break
                output += chunk
            if pending and pending[0][0](bytes(output)):
                time.sleep(0.3)  # let the app finish the frame it is drawing
                action = pending.pop(0)[1]
                if isinstance(action, bytes):
                    os.write(master, action)
                else:
                    action(proc)
            if proc.poll() is not None and not ready:
                break
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"gftpwb {' '.join(args)} did not finish; output tail: {bytes(output[-2000:])!r}")
    finally:
        os.close(master)
    return proc.wait(timeout=30), bytes(output)


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

    code, screen = run_in_pty(["run", str(path), "--results", str(tui), "--tui"], cwd=tmp_path,
                              keys=[(lambda _: journal_lines(tui) == 4, b"q")])  # q alone ends a finished run
    assert code == 0, screen[-3000:]
    assert b"Traceback" not in screen

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

    def finished(_: bytes) -> bool:
        dirs = list(base.glob("*-parity"))
        return len(dirs) == 1 and journal_lines(dirs[0]) == 4

    code, screen = run_in_pty(["tui", str(path), "--results-base", str(base)], cwd=tmp_path,
                              keys=[(lambda out: b"Scenario" in out and b"parity" in out, b"r"), (finished, b"q")])
    assert code == 0, screen[-3000:]
    (results,) = base.glob("*-parity")
    assert [r["status"] for r in records(results)] == ["passed"] * 4
    # On quit the TUI prints what a headless run prints at its end: the report and the results path.
    after = screen.rsplit(b"\x1b[?1049l", 1)[-1].replace(b"\r", b"").replace(b"\n", b"")  # after the screen closed
    assert b"4 passed of 4 planned. Results: " in after and str(results).encode() in after
    assert b"median" in after  # the report's statistics table
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
    code, screen = run_in_pty(["run", str(path), "--results", str(used), "--tui"], cwd=tmp_path, keys=[])
    assert code == 2
    assert b"already holds results" in screen and b"Traceback" not in screen


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
    code, screen = run_in_pty(["run", str(path), "--results", str(results), "--tui"], cwd=tmp_path,
                              keys=[(lambda out: b"ETA " in out, lambda proc: proc.send_signal(signal.SIGHUP))])
    assert code == 129, screen[-3000:]  # 128 + SIGHUP, as headless
    assert [(r["run_id"], r["status"]) for r in records(results)] == [("big/0", "interrupted")]
    assert records(results)[0]["details"]["interrupted_by"] == "SIGHUP"
    out = subprocess.run(["pgrep", "-f", f"globus-url-copy.*{gridftp.port}"], capture_output=True, text=True)
    assert out.stdout.strip() == ""
