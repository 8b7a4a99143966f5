"""``gftpwb export batchfile`` writes a file the real tgftp 0.7.0 runs as the scenario says.

tgftp 0.7.0's bug B1 made every line after a connection test a connection test, and a line without a
log-comment after one with a comment a usage error (no log at all); the export steers clear of both.
What a batchfile cannot hold (``needs:``, ``expect:``, ...) is warned about at the scenario's
file:line:col. The exported file is run by the real tgftp against the lab's server, and every log it
leaves is read by the real tgftp_log.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from compat.harness import reference_dir, run_tool, tgftp_log

SCENARIO = textwrap.dedent("""\
    version: 1
    name: exported
    defaults:
      source: "@URL@@DATA@/small.bin"
      target: "@URL@/dev/null"
      timeout: 30s
    tests:
      - id: probe
        kind: connection-test
        comment: "#is the server there?"
      - id: first
        kind: guc
        options: {length: 1M}
        comment: "#with a comment"
        expect: {median_rate: ">= 1MiB/s"}
      - id: second
        kind: guc
        options: {length: 2M}
        needs: [probe]
      - id: third
        kind: guc
        source: "@URL@/dev/zero"
        options: {length: 3M, parallel: 2}
        repeat: 2
      - id: probe-again
        kind: connection-test
    """)

# what each test is, by the log names tgftp gives the lines of the exported file (transfers first)
EXPECTED = {
    "first": ("t.csv_#000_000.log", "-len 1M", "#with a comment"),
    "second": ("t.csv_#001_000.log", "-len 2M", ""),
    "third": ("t.csv_#002_000.log", "-p 2 -len 3M", ""),
    "third again": ("t.csv_#002_001.log", "-p 2 -len 3M", ""),
    "probe": ("t.csv_#003_000.log", "-dbg -vb", "#is the server there?"),
    "probe-again": ("t.csv_#004_000.log", "-dbg -vb", ""),
}


def test_the_real_tgftp_runs_an_exported_batchfile_as_the_scenario_says(lab, tmp_path):
    scenario = tmp_path / "exported.yaml"
    scenario.write_text(lab.fill(SCENARIO))
    out = subprocess.run([sys.executable, "-m", "gftpwb", "export", "batchfile", str(scenario), "-o",
                          str(tmp_path / "t.csv")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    warnings = out.stderr
    assert f"{scenario}:15:5: warning: test first: expect: is not in the batchfile" in warnings
    assert f"{scenario}:19:5: warning: test second: needs: is not in the batchfile" in warnings
    assert f"{scenario}:8:5: warning: test probe: connection tests come after the transfers" in warnings
    run = run_tool("tgftp", [str(reference_dir() / "bin" / "tgftp"), "-f", "t.csv"], tmp_path / "tgftp", lab,
                   inputs={"t.csv": (tmp_path / "t.csv").read_bytes()})
    assert run.exit == 0, run.stderr
    assert sorted(run.logs) == sorted(name for name, _, _ in EXPECTED.values()), (run.stdout, run.stderr)
    for test, (name, params, comment) in EXPECTED.items():
        log = run.workdir / name
        command = tgftp_log(log, "GSIFTP_TRANSFER_COMMAND").stdout.strip()
        # the guc parameters gftpwb would use (-vb where it adds it), and -dbg only for connection tests
        assert f" {params} " in command and ("-dbg" in command) == ("-dbg" in params), (test, command)
        assert tgftp_log(log, "GSIFTP_TRANSFER_LOG_COMMENT").stdout.strip() == comment, test
        if "-dbg" not in params:
            assert tgftp_log(log, "GSIFTP_TRANSFER_RATE").stdout.strip().endswith("MB/s"), test
    transfers = [call for call in run.calls if "-dbg" not in call and "-do" not in call]
    assert len(transfers) == 4 and len(run.calls) - len(transfers) == 2 + 4  # 2 connection tests, 4 listings
