"""Auto-tunes with real globus-url-copy against the loopback GridFTP server the fixture starts:
both strategies end to end, kernel caps read from /proc, and the function `gftpwb tgftp -a` calls.
Kept small (64 MiB transfers, a few candidates); rates are not asserted, only that they exist."""

import textwrap
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.results import records

from gftpwb.core.units import format_size_arg
from gftpwb.kinds.autotune.ranking import tgftp_pick
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.tgftp.run.autotune import run_tgftp_autotune

pytestmark = pytest.mark.real


def proc_caps() -> tuple[int, int]:
    return tuple(int(Path(f"/proc/sys/net/core/{n}").read_text()) for n in ("rmem_max", "wmem_max"))


def cap() -> int:
    return min(proc_caps())  # the path's cap on loopback: wmem_max of the sender, rmem_max of the receiver


def scenario(tmp_path, url: str, strategy: str) -> str:
    how = "repetitions: 2" if strategy == "exhaustive" else "budget: 12"
    # The fourth candidate asks for twice the kernel's cap: it behaves as the third.
    path = tmp_path / "tune.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: realtune
        tests:
          - id: tune
            kind: autotune
            source: {url}/any/source/path
            target: {url}/any/target/path
            strategy: {strategy}
            {how}
            length: 64M
            timeout: 60s
            candidates:
              - {{}}
              - {{parallel: 4}}
              - {{parallel: 4, tcp_buffer: {format_size_arg(cap())}}}
              - {{parallel: 4, tcp_buffer: {format_size_arg(2 * cap())}}}
        """))
    return str(path)


# Between two servers the first candidate runs in stream mode, without -vb (the mode rule): its label is what ran.
LABELS = ["(no options)", "-vb -p 4", f"-vb -p 4 -tcp-bs {format_size_arg(cap())}",
          f"-vb -p 4 -tcp-bs {format_size_arg(2 * cap())}"]


@pytest.mark.parametrize("strategy", ["exhaustive", "adaptive"])
def test_real_autotune_end_to_end(tmp_path, gridftp, strategy):
    results = tmp_path / "r"
    out = gftpwb("run", scenario(tmp_path, gridftp.url, strategy), "--results", str(results), "--progress", "never",
                 timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    tune = recs[-1]
    transfers = [r for r in recs if r["kind"] == "guc"]
    details = tune["details"]
    assert tune["kind"] == "autotune" and tune["status"] == "passed" and tune["engine"] == "real"
    assert all(r["status"] == "passed" and r["engine"] == "real" and r["bytes"] == 64 << 20 for r in transfers)
    assert all(r["rate_incl_setup_mib_s"] > 0 and r["argv"][-2:] == [f"{gridftp.url}/dev/zero",
                                                                      f"{gridftp.url}/dev/null"] for r in transfers)
    assert details["transfers_used"] == len(transfers)
    pick = details["pick"]["params"]
    # The exhaustive strategy runs the kernel-capped duplicate too (as tgftp), so noise may crown it.
    assert pick in (LABELS if strategy == "exhaustive" else LABELS[:3])
    assert details["tgftp_line"] == ("" if pick == LABELS[0] else pick)  # guc's arguments as they ran
    assert f"best guc parameters (as tgftp -a prints them):\n{pick}\n" in out.stdout
    rmem, wmem = proc_caps()
    assert details["buffer_caps"]["source"]["rmem_max"] == rmem and details["buffer_caps"]["target"]["wmem_max"] == wmem
    assert details["duplicates"] == {"4": 3}
    ranking = {row["candidate"]: row for row in details["ranking"]}
    assert ranking[LABELS[3]]["note"].startswith(f"same kernel-capped -tcp-bs as {LABELS[2]}")
    if strategy == "exhaustive":
        assert len(transfers) == 8 and [r["run_id"] for r in transfers[:2]] == ["tune#1/0", "tune#1/1"]
        by_case: dict[int, list[float]] = {}
        for r in transfers:
            by_case.setdefault(r["case"], []).append(r["rate_incl_setup_mib_s"])
        means = [sum(v) / len(v) for _, v in sorted(by_case.items())]
        assert LABELS[tgftp_pick(means, 20.0)] == pick
    else:
        assert len(transfers) <= 12 and ranking[LABELS[3]]["runs"] == 0
        assert 0.0 <= details["p_within_margin"] <= 1.0 and details["stop_reason"]
    # Every transfer has its tgftp tag log.
    assert sorted(p.name for p in results.glob("realtune_#*.log")) == sorted(r["taglog"] for r in transfers)


def test_tgftp_autotune_function_returns_tgftps_line(tmp_path, gridftp):
    result = run_tgftp_autotune(f"{gridftp.url}/data/in", f"{gridftp.url}/data/out",
                                results_dir=str(tmp_path / "a"), candidates=[GucOptions(), GucOptions(parallel=2)],
                                length="64M", repetitions=2, install_signal_handlers=False)
    assert result.line in ("", "-vb -p 2")  # the first ran with no arguments (stream mode between two servers)
    assert result.record.details["tgftp_line"] == result.line and result.summary.all_passed
    assert [t.status for t in result.transfers] == ["passed"] * 4
    assert result.transfers[0].argv[-2:] == [f"{gridftp.url}/dev/zero", f"{gridftp.url}/dev/null"]
    assert (tmp_path / "a" / "results.jsonl").exists() and (tmp_path / "a" / "scenario.yaml").exists()


def test_tgftp_autotune_function_prints_an_empty_line_when_nothing_works(tmp_path, gridftp):
    dead = f"ftp://127.0.0.1:{free_port()}"
    result = run_tgftp_autotune(f"{gridftp.url}/x", f"{dead}/y", results_dir=str(tmp_path / "b"),
                                candidates=[GucOptions(parallel=2)], length="1M", repetitions=2,
                                install_signal_handlers=False)
    assert result.line == ""
    assert result.record.status == "failed" and [t.status for t in result.transfers] == ["failed", "failed"]
    assert "Connection refused" in result.transfers[0].error


def test_an_autotune_on_a_namespace_host_runs_guc_there_and_reads_its_caps_over_ssh(netlab, tmp_path):
    from support.labhosts import hosts_yaml

    status = netlab.status()
    controller = status["controller_address"]
    path = tmp_path / "remote.yaml"
    path.write_text(f"version: 1\nname: remotetune\n{hosts_yaml(netlab)}" + textwrap.dedent(f"""\
        tests:
          - id: tune
            kind: autotune
            on: h1
            source: ftp://{controller}:2811/some/file
            target: file:///tmp/ignored
            repetitions: 1
            length: 16M
            timeout: 60s
            candidates: [{{}}, {{parallel: 2}}]
        """))
    results = tmp_path / "r"
    out = gftpwb("run", str(path), "--results", str(results), "--progress", "never", timeout=180)
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    tune = recs[-1]
    assert tune["run_id"] == "tune@h1" and tune["host"] == "h1" and tune["status"] == "passed"
    transfers = recs[:-1]
    assert [(r["run_id"], r["host"], r["status"]) for r in transfers] == [
        ("tune#1/0@h1", "h1", "passed"), ("tune#2/0@h1", "h1", "passed")]
    assert transfers[0]["argv"][-2:] == [f"ftp://{controller}:2811/dev/zero", "file:///dev/null"]
    caps = tune["details"]["buffer_caps"]
    rmem, wmem = proc_caps()  # namespaces share these sysctls with the controller
    assert caps["source"]["host"] == controller and caps["source"]["rmem_max"] == rmem  # the controller: local
    assert caps["target"]["host"] == "h1 (file:// end)" and caps["target"]["wmem_max"] == wmem  # over SSH
    assert tune["details"]["tgftp_line"] in ("-vb", "-vb -p 2")  # a file end: -vb leaves the mode alone


def test_every_candidate_is_named_by_what_its_transfers_ran(tmp_path, gridftp):
    """Between two servers the candidate tgftp calls ``-vb`` runs ``globus-url-copy -len 16M SRC DST`` (the
    mode rule keeps stream mode): the ranking, the pick, the console, the report and its JSON and CSV all
    name each candidate by the arguments its transfers ran with."""
    def args_line(argv: list[str]) -> str:  # guc's arguments without -len N and the ends
        args = argv[1:-2]
        at = args.index("-len")
        return " ".join(args[:at] + args[at + 2:])

    path = tmp_path / "tune.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: labels
        tests:
          - {{id: tune, kind: autotune, source: {gridftp.url}/a, target: {gridftp.url}/b, strategy: exhaustive,
              repetitions: 1, length: 16M, timeout: 60s, candidates: [{{}}, {{parallel: 2}}]}}
        """))
    results = tmp_path / "r"
    out = gftpwb("run", str(path), "--results", str(results), "--progress", "never", timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    tune, transfers = recs[-1], [r for r in recs if r["kind"] == "guc"]
    ran = [args_line(r["argv"]) or "(no options)" for r in sorted(transfers, key=lambda r: r["case"])]
    assert ran == ["(no options)", "-vb -p 2"]
    assert transfers[0]["argv"][:3] == ["globus-url-copy", "-len", "16M"]
    ranking = {row["candidate"] for row in tune["details"]["ranking"]}
    assert ranking == set(ran) and tune["details"]["pick"]["params"] in ran
    assert "-vb" not in ranking
    console = [line.split("│")[2].strip() for line in out.stdout.splitlines() if line.count("│") > 6]
    assert set(ran) <= set(console), out.stdout
    report = gftpwb("report", str(results), "--json", timeout=120)
    assert report.returncode == 0, report.stderr
    assert '"-vb"' not in report.stdout and tune["details"]["pick"]["params"] in report.stdout
    csv = gftpwb("report", str(results), "--csv", str(tmp_path / "r.csv"), timeout=120)
    assert csv.returncode == 0, csv.stderr
    assert ",-vb," not in (tmp_path / "r.csv").read_text()
