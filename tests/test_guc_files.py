"""``files:`` of guc tests: checks at file:line:col, the planned argv (directory or list), and the
shell steps run for real with /bin/sh on this machine (make, verify, compare, clean up)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.kinds.guc.files import EXIT_UNREACHABLE, FileSet, compare, made_directories, unreachable_text

HEAD = "version: 1\nname: f\nhosts:\n  h1: {address: 10.9.0.2}\n  h2: {address: 10.9.0.3}\ntests:\n"
FIRST = HEAD.count("\n") + 1


def load(tests: str):
    return load_scenario_text(HEAD + textwrap.dedent(tests), "f.yaml")


def test_directory_and_list_transfers_are_planned_with_their_files():
    scenario = load("""\
      - id: dir
        kind: guc
        source: ftp://10.9.0.2:2811/data/src/
        target: ftp://h2:2811/data/dst/
        files: {size: 64M, count: 4, drop_caches: true}
        matrix: {parallel: [1, 4]}
      - id: lst
        kind: guc
        on: h1
        source: file:///scratch/a/
        target: ftp://10.9.0.3:2811/scratch/b/
        files: {size: 1M, transfer: list, verify: checksum, content: sparse}
    """)
    one, four, lst = plan(scenario)
    assert one.argv == ("globus-url-copy", "-vb", "-p", "1", "-cd", "-r", "ftp://10.9.0.2:2811/data/src/",
                        "ftp://h2:2811/data/dst/")
    assert four.length_bytes == 256 << 20 and four.details["mode"] == "extended"
    files = FileSet.from_dict(four.details["files"])
    assert (files.source_host, files.source_dir, files.target_host, files.target_dir, files.drop_caches) == (
        "h1", "/data/src/", "h2", "/data/dst/", True)
    assert lst.argv == ("globus-url-copy", "-vb", "-f", "/tmp/gftpwb-list-lst.txt")
    assert lst.details["files"]["list"] == "/tmp/gftpwb-list-lst.txt"
    assert (lst.details["files"]["source_host"], lst.details["files"]["target_host"]) == ("h1", "h2")
    assert lst.details["mode"] == "stream" and lst.details["live_progress"] is True


def test_files_that_cannot_work_are_errors_at_their_key():
    with pytest.raises(ScenarioError) as info:
        load("""\
          - id: nodir
            kind: guc
            source: ftp://h1/data/src
            target: ftp://h2/data/dst/
            files: {size: 1M}
          - id: len
            kind: guc
            source: ftp://h1/data/src/
            target: ftp://h2/data/dst/
            options: {length: 1M}
            files: {size: 1M}
          - id: where
            kind: guc
            source: ftp://far.example/data/src/
            target: ftp://h2/data/dst/
            files: {size: 1M}
          - id: same
            kind: guc
            source: file:///data/x/
            target: ftp://localhost:2811/data/x/
            files: {size: 1M}
          - id: copies
            kind: guc
            source: file:///data/x/
            target: ftp://localhost:2811/data/y/
            concurrency: 2
            files: {size: 1M}
        """)
    line = FIRST
    assert [str(d) for d in info.value.diagnostics] == [
        f"f.yaml:{line + 4}:10: test 'nodir': files: the source must be a directory URL ending in / (got "
        "ftp://h1/data/src)",
        f"f.yaml:{line + 10}:10: test 'len': files: the files' size is what moves; leave options.length (-len) out",
        f"f.yaml:{line + 15}:10: test 'where': files: cannot tell which host the source "
        "ftp://far.example/data/src/ is on (its host 'far.example' is neither this machine nor a host of the "
        "inventory, by name or address)",
        f"f.yaml:{line + 20}:10: test 'same': files: source and target are the same directory on the same host",
        f"f.yaml:{line + 26}:10: test 'copies': files: copies of a run (concurrency) would make, move and remove the "
        "same files; run one copy",
    ]


def sh(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, check=True)


@pytest.fixture
def open_dir():
    """A directory every user can reach (pytest's tmp_path is under a 0700 directory of root's)."""
    path = Path(tempfile.mkdtemp(prefix="gftpwb-files-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize("content", ["random", "sparse"])
def test_the_steps_make_verify_and_remove_the_files(open_dir: Path, content: str):
    src, dst = open_dir / "a b" / "c" / "src", open_dir / "dst"
    files = FileSet(size=100_000, count=3, content=content, transfer="directory", verify="checksum",
                    drop_caches=False, source_host="local", target_host="local",
                    source_dir=f"{src}/", target_dir=f"{dst}/", source_url="", target_url="")
    dst.mkdir()  # the target directory is there already: the clean-up leaves it
    made_source = made_directories(sh(files.create_script()).stdout)
    made_target = made_directories(sh(files.target_script()).stdout)
    assert made_source == [str(src), str(src.parent), str(src.parent.parent)] and made_target == []
    made = sorted(src.iterdir())
    assert [p.name for p in made] == files.names and {p.stat().st_size for p in made} == {100_000}
    blocks = sum(p.stat().st_blocks for p in made)
    assert (blocks == 0) == (content == "sparse")  # holes take no blocks; random data does
    for path in made:  # "transfer": copy two whole, one short
        data = path.read_bytes()
        (dst / path.name).write_bytes(data if path.name != files.names[2] else data[:10])
    source, target = sh(files.verify_script("source")).stdout, sh(files.verify_script("target")).stdout
    assert compare(files, source, target) == [f"{files.names[2]}: 10 bytes on the target, 100000 expected"]
    (dst / files.names[2]).write_bytes(b"x" * 100_000)  # right size, other content
    target = sh(files.verify_script("target")).stdout
    problems = compare(files, source, target)
    assert len(problems) == 1 and problems[0].startswith(f"{files.names[2]}: SHA-256 differs")
    (dst / files.names[0]).unlink()
    assert compare(files, source, sh(files.verify_script("target")).stdout)[0] == (
        f"{files.names[0]}: missing on the target")
    sh(files.cleanup_script("source", made_source))
    sh(files.cleanup_script("target", made_target))
    assert list(open_dir.iterdir()) == [dst]  # src and the parents mkdir -p made for it: removed
    assert [p.name for p in dst.iterdir()] == []  # our files only; the directory was there before
    (dst / "mine").write_text("not ours")
    sh(files.target_script())
    sh(files.cleanup_script("target", [str(dst)]))
    assert [p.name for p in dst.iterdir()] == ["mine"]  # only our files go; a directory not empty stays


def test_a_directory_other_users_cannot_pass_stops_the_preparation(open_dir: Path, tmp_path: Path):
    """pytest's own tmp_path is under /tmp/pytest-of-root (0700): the lab's servers, which run transfers
    as nobody, could not reach files there, and guc would only say "Permission denied"."""
    closed = open_dir / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    files = FileSet(size=1000, count=1, content="sparse", transfer="directory", verify="size", drop_caches=False,
                    source_host="h1", target_host="h2", source_dir=f"{closed}/deep/src/",
                    target_dir=f"{tmp_path}/dst/", source_url="", target_url="")
    for script, host in ((files.create_script(), "h1"), (files.target_script(), "h2")):
        out = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True)
        assert out.returncode == EXIT_UNREACHABLE, out
        message = unreachable_text(out.stdout, host)
        assert message is not None and "the transfer was not started" in message
        assert not (closed / "deep").exists() and not (tmp_path / "dst").exists()  # nothing made
    assert unreachable_text(subprocess.run(["/bin/sh", "-c", files.create_script()], capture_output=True,
                                           text=True).stdout, "h1") == (
        f"{closed} on h1 is mode 0700 (owner root): other users cannot pass through it, and the GridFTP server may "
        "run the transfer as another user (the lab's servers run it as nobody), which gets \"Permission denied\"; "
        f"run `chmod o+x {closed}` on h1, or put the test files under a directory every user can reach (such as "
        "/var/tmp/gftpwb); the transfer was not started")


def test_a_probe_measures_both_disks_before_each_case_beside_the_directories():
    scenario = load("""\
      - id: p
        kind: guc
        source: ftp://h1/data/src/
        target: ftp://h2/data/dst/
        files: {size: 64M, count: 8, probe: true}
        matrix: {parallel: [1, 4]}
        repeat: 2
    """)
    specs = list(plan(scenario))
    assert [s.run_id for s in specs[:7]] == [
        "p[0]/probe/source-write", "p[0]/probe/source-read", "p[0]/probe/source-clean", "p[0]/probe/target-write",
        "p[0]/probe/target-clean", "p[0]/0", "p[0]/1"]
    read, write = specs[8], specs[10]  # case 1: four streams
    assert (read.kind, read.host, read.case, read.details) == ("gfapi", "h1", 1,
                                                               {"probe": "source-read", "probe_side": "source"})
    assert (read.params["workload"], read.params["threads"], read.params["files"], read.params["direct"]) == (
        "seq-rd", 4, 2, True)  # the 8 files' bytes over 4 threads, past the page cache
    assert (read.params["directory"], write.params["directory"]) == ("/data/src.gftpwb-probe", "/data/dst.gftpwb-probe")
    assert (write.host, write.params["workload"]) == ("h2", "seq-wr")


def test_what_limits_a_disk_to_disk_transfer():
    from gftpwb.kinds.guc.efficiency import limit_text

    probe = {"source-read": 80.0, "target-write": 200.0}
    assert limit_text(75.0, 110.0, probe) == "source disk (80.0)"
    assert limit_text(40.0, 45.0, probe) == "network/guc (45.0)"
    assert limit_text(40.0, None, probe) == "network, guc or file I/O (the disks are faster)"
    assert limit_text(20.0, 110.0, probe) == "the servers' file I/O (every probe is faster)"
    assert limit_text(75.0, None, probe) == "source disk (80.0)"
    assert limit_text(75.0, 110.0, {}) == "-"


MULTIFILE = Path(__file__).parent / "data" / "guc" / "multifile-progress.json"


def _whole_series(run, chunks):
    """The run's whole-transfer samples as the samples sink keeps them (time ms, bytes)."""
    from gftpwb.core.output import ProgressSample
    from gftpwb.core.samples import SeriesBuilder

    builder = SeriesBuilder()
    for t, text in chunks:
        for item in run.feed("stdout", text.encode()):
            if isinstance(item, ProgressSample) and item.channel is None:
                builder.add(t, item.bytes)
    return builder.finish()


def test_a_multi_file_transfer_counts_on_across_files_and_is_not_a_stall():
    """A real guc -vb -cd -r of three 1 GiB files: its byte count starts again at each file's
    "Source:" line. Read as it is, every new file looked like a stall in the report's notes; the
    run adds the earlier files' bytes, so the count grows to the whole transfer and nothing stalls."""
    import json

    from gftpwb.core.samples import stalls
    from gftpwb.kinds.guc.session import GucOutputParser, GucRun

    chunks = json.loads(MULTIFILE.read_text())["chunks"]

    class Raw(GucRun):  # guc's own count, as the parser reads it: what the samples had before
        def feed(self, stream, data):
            return self.parser.feed(stream, data)

    raw = _whole_series(Raw(parser=GucOutputParser()), chunks)
    assert stalls(raw) == [(13.801, 18.869), (24.421, 29.467)]  # the two new files, seen as stalls

    run = GucRun()
    series = _whole_series(run, chunks)
    assert series.b == sorted(series.b) and len(set(series.b)) == len(series.b)  # always growing
    assert series.b[-1] == 3 * 2**30 and run.last_progress is not None and run.last_progress.bytes == 3 * 2**30
    assert stalls(series) == []
    outcome = run.outcome(0, 32.1)
    assert outcome.bytes == 3 * 2**30  # without a length, the run's bytes are all three files'


# --- the preflight: the same check on every host before any run starts (exit 3) -------------------

PREFLIGHT = """\
  - id: disk
    kind: guc
    source: ftp://10.9.0.2:2811/data/src/
    target: ftp://10.9.0.3:2811/scratch/deep/dst/
    files: {size: 1M}
  - id: again
    kind: guc
    source: file:///var/tmp/src/
    target: ftp://10.9.0.3:2811/scratch/deep/dst/
    files: {size: 1M}
    repeat: 2
  - {id: mem, kind: guc, source: ftp://10.9.0.2:2811/dev/zero, target: ftp://10.9.0.3:2811/dev/null}
"""


def stat_lines(modes: dict[str, str]):
    """A scripted host answering ``stat -L -c '%a %U %n' -- PATHS`` from ``modes`` (missing: no line)."""
    from gftpwb.shell.transports.scripted import Script

    def handler(call):
        assert call.argv[:5] == ("stat", "-L", "-c", "%a %U %n", "--"), call.argv
        known = [p for p in call.argv[5:] if p in modes]
        return Script.of(stdout="".join(f"{modes[p]} {p}\n" for p in known),
                         stderr="stat: cannot statx: No such file or directory\n" if len(known) < len(call.argv) - 5
                         else "", exit_code=0 if len(known) == len(call.argv) - 5 else 1)
    return handler


def scripted_hosts(answers: dict):
    from gftpwb.shell.transports.scripted import ScriptedTransport

    transports = {host: ScriptedTransport(handler, name=host) for host, handler in answers.items()}
    return transports, transports.__getitem__


OPEN = {"/": "755 root", "/data": "755 root", "/data/src": "755 root", "/var": "755 root", "/var/tmp": "1777 root",
        "/scratch": "755 root"}


def test_the_preflight_stats_each_directory_once_per_host_and_refuses_a_closed_one():
    from gftpwb.core.errors import EnvironmentProblem
    from gftpwb.shell import frontend

    scenario = load(PREFLIGHT)
    closed = {**OPEN, "/scratch": "750 gftp"}
    transports, transport_for = scripted_hosts({"h1": stat_lines(OPEN), "h2": stat_lines(closed),
                                                "local": stat_lines(OPEN)})
    with pytest.raises(EnvironmentProblem) as refused:
        frontend.preflight(plan(scenario), scenario.hosts, transport_for)
    assert str(refused.value) == (
        "test 'disk', target: /scratch on h2 is mode 0750 (owner gftp): other users cannot pass through it, and the "
        "GridFTP server may run the transfer as another user (the lab's servers run it as nobody), which gets "
        "\"Permission denied\"; run `chmod o+x /scratch` on h2, or put the test files under a directory every user "
        "can reach (such as /var/tmp/gftpwb); the transfer was not started")
    # one stat per (host, directory): the repeats and the test sharing the target ask nothing more; no mkdir,
    # no guc: nothing but the look
    assert [c.argv[5:] for c in transports["h1"].calls] == [("/data/src", "/data", "/")]
    assert [c.argv[5:] for c in transports["h2"].calls] == [("/scratch/deep/dst", "/scratch/deep", "/scratch", "/")]
    assert [c.argv[5:] for c in transports["local"].calls] == [("/var/tmp/src", "/var/tmp", "/var", "/")]
    transports, transport_for = scripted_hosts({"h1": stat_lines(OPEN), "h2": stat_lines(OPEN),
                                                "local": stat_lines(OPEN)})
    frontend.preflight(plan(scenario), scenario.hosts, transport_for)  # every directory passable: runs go ahead


def test_the_preflight_names_every_problem_and_leaves_unreachable_hosts_to_the_run():
    from gftpwb.core.errors import EnvironmentProblem
    from gftpwb.core.transport import StartError
    from gftpwb.shell import frontend

    def down(call):
        raise StartError("h1: cannot connect: Connection refused")

    scenario = load(PREFLIGHT)
    _, transport_for = scripted_hosts({"h1": down, "h2": stat_lines(OPEN),
                                       "local": stat_lines({**OPEN, "/var/tmp": "1776 root"})})
    with pytest.raises(EnvironmentProblem, match=r"^test 'again', source: /var/tmp on local is mode 1776 "):
        frontend.preflight(plan(scenario), scenario.hosts, transport_for)
    _, transport_for = scripted_hosts({"h1": down, "h2": stat_lines(OPEN), "local": stat_lines(OPEN)})
    frontend.preflight(plan(scenario), scenario.hosts, transport_for)  # h1 unreachable: its run will say so
    _, transport_for = scripted_hosts({})
    frontend.preflight(plan(scenario, ["mem"]), scenario.hosts, transport_for)  # no files: no host is asked


def test_the_preflight_and_the_in_run_walk_give_the_same_message(open_dir: Path, tmp_path: Path):
    """The real ``stat`` of this machine and the preparation's sh walk, on the same trees."""
    from gftpwb.kinds.guc.files import reach_argv, unreachable_in_stat, walk_up

    closed = open_dir / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    for path in (f"{closed}/deep/src/", f"{tmp_path}/dst/", f"{open_dir}/fine/"):
        walked = unreachable_text(subprocess.run(["/bin/sh", "-c", walk_up(path) + "exit 0"], capture_output=True,
                                                 text=True).stdout, "h1")
        looked = unreachable_in_stat(subprocess.run(list(reach_argv(path)), capture_output=True, text=True).stdout,
                                     path, "h1")
        assert looked == walked and (looked is None) == (path.startswith(f"{open_dir}/fine"))
    assert [p.name for p in open_dir.iterdir()] == ["closed"] and not (tmp_path / "dst").exists()  # made nothing
