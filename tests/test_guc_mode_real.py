"""The transfer measured is the transfer described: the mode gftpwb records for a guc run is the mode
the real globus-url-copy asks the lab's GridFTP server for (its -dbg conversation), and gftpwb adds
-vb only where that leaves the mode alone (between two servers -vb makes guc send MODE E)."""

import json
import subprocess

import pytest
from support.clihelp import gftpwb

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan


def scenario_text(url: str, test: str) -> str:
    return (f"version: 1\nname: modes\ndefaults: {{source: {url}/dev/zero, target: {url}/dev/null, "
            f"options: {{length: 1M}}, timeout: 60s}}\ntests:\n  - {test}\n")


CASES = {
    # test (YAML flow)                                           -vb added, mode
    "{id: plain, kind: guc}": (False, "stream"),
    "{id: ext, kind: guc, mode: extended}": (True, "extended"),
    "{id: par, kind: guc, options: {parallel: 2}}": (True, "extended"),
    "{id: fast, kind: guc, options: {fast: true}}": (True, "extended"),
    "{id: pipe, kind: guc, options: {pipeline: true}}": (True, "extended"),
    "{id: buf, kind: guc, options: {tcp_buffer: 1M}}": (False, "stream"),
    "{id: own, kind: guc, extra_args: [-vb]}": (True, "extended"),
    "{id: local, kind: guc, target: file:///dev/null}": (True, "stream"),
    "{id: localp, kind: guc, target: file:///dev/null, options: {parallel: 1}}": (True, "extended"),
}


def modes_sent(argv: tuple[str, ...]) -> list[str]:
    """The MODE commands guc sends, from its -dbg conversation with the servers."""
    debug = [argv[0], "-dbg", *argv[1:]]
    out = subprocess.run(debug, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return [line.strip() for line in (out.stdout + out.stderr).splitlines() if line.startswith("MODE ")]


@pytest.mark.parametrize("test", list(CASES))
def test_recorded_mode_is_what_guc_asks_the_server_for(gridftp, test):
    vb, mode = CASES[test]
    (spec,) = plan(load_scenario_text(scenario_text(gridftp.url, test), "modes.yaml"))
    assert ("-vb" in spec.argv) == vb, spec.argv
    assert spec.details["mode"] == mode and spec.details["live_progress"] == vb
    sent = modes_sent(spec.argv)
    assert (sent != []) == (mode == "extended"), (spec.argv, sent)
    assert set(sent) <= {"MODE E"}


def test_a_stream_mode_run_between_servers_says_it_has_no_live_progress(tmp_path, gridftp):
    path = tmp_path / "modes.yaml"
    path.write_text(scenario_text(gridftp.url, "{id: plain, kind: guc, repeat: 2}"))
    out = gftpwb("run", str(path), "--results", str(tmp_path / "r"), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    notes = [line for line in out.stdout.splitlines() if line.startswith("note: plain:")]
    assert notes == ["note: plain: no live progress, elapsed time only: between two servers -vb would switch guc "
                     "from stream mode to MODE E"]  # once per test
    recs = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
    for r in recs:
        assert r["status"] == "passed" and "-vb" not in r["argv"]
        assert r["details"] == {"mode": "stream", "live_progress": False, "vb_added": False, "size_from": "-len"}
        assert r["rate_guc_avg_mib_s"] is None and r["rate_incl_setup_mib_s"] > 0
    assert "stream (no -vb)" in out.stdout
    # meta.json: this machine as the run saw it, with the lab server's banner read by guc -dbg
    local = json.loads((tmp_path / "r" / "meta.json").read_text())["environment"]["hosts"]["local"]
    server = local["servers"][f"{gridftp.url}/"]
    assert "GridFTP Server" in server["banner"] and server["version"] in local["gridftp_server"]
    assert local["routes"]["127.0.0.1"] == {"ip": "127.0.0.1", "dev": "lo", "mtu": 65536}


def test_mode_conflicts_are_errors_at_their_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("version: 1\nname: bad\ndefaults: {source: ftp://a/x, target: ftp://b/y}\ntests:\n"
                    "  - {id: s, kind: guc, mode: stream, options: {parallel: 4}}\n"
                    "  - {id: e, kind: guc, target: file:///tmp/y, mode: extended}\n"
                    "  - {id: w, kind: guc, warmup: 2, repeat: 2}\n")
    out = gftpwb("validate", str(path))
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        f"{path}:5:30: mode: stream, but the options make guc use extended block mode (MODE E): parallel, fast, "
        "pipeline and stripe all do (even parallel: 1); drop them or the mode",
        f"{path}:6:53: mode: extended, but with one end on this machine (file://) guc uses MODE E only with "
        "parallel, fast, pipeline or stripe; set one (parallel: 1 keeps one stream)",
        f"{path}:7:32: warmup (2) must be less than repeat (2): every run would be a warm-up and no statistics "
        "would remain"]
