"""A tgftp user moves over: a batchfile run with the ``tgftp -f`` drop-in (and single tests with ``tgftp -s
-t``), the tag logs turned into records with ``gftpwb import taglogs *.log``, looked at with ``gftpwb
report`` and two batches compared with ``gftpwb compare``; old logs of the real tgftp 0.7.0 the same way
(when GFTPWB_TGFTP_REFERENCE has it, else logs as tgftp wrote them: the drop-in's without gftpwb's tags).

Every log is one run after import, the report shows the batchfile's lines as its cases with the runs
each had, and compare pairs those cases; a rate tgftp timed to the whole second is never compared with
one gftpwb timed to the microsecond without saying so."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support.journey import User, reference_tgftp, table_titled
from support.results import records

pytestmark = pytest.mark.real

BATCH = """\
#%tgftp%v0.7.0
#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;execs
{url}/dev/zero;{url}/dev/null;-len 16M;no;60;;"#stream mode";;;2
{url}/dev/zero;{url}/dev/null;-vb -p 2 -len 16M;no;60;;"#two streams";;;2
"""
LOGS = ["batch.csv_#000_000.log", "batch.csv_#000_001.log", "batch.csv_#001_000.log", "batch.csv_#001_001.log"]
CASES = [{"test": "test-000", "#": "000", "guc options": "-len 16M", "ok/runs": "2/2"},
         {"test": "test-001", "#": "001", "guc options": "-p 2 -len 16M", "ok/runs": "2/2"}]


def without_gftpwb_tags(text: str) -> str:
    """A drop-in's tag log as tgftp 0.7.0 wrote it: gftpwb's own tags (all before the comment tag) left out."""
    return text[text.index("<GSIFTP_TRANSFER_LOG_COMMENT>\n"):]


@pytest.fixture(scope="module")
def user(tmp_path_factory, gridftp) -> User:
    """Two batches and two single tests run with the drop-in, each directory's logs imported; when the real
    tgftp is there, a batch of it too, else the drop-in's logs as tgftp wrote them."""
    home = tmp_path_factory.mktemp("tgftp-user")
    user = User(home)
    (home / "batch.csv").write_text(BATCH.format(url=gridftp.url))
    for name in ("a", "b"):
        (home / name).mkdir()
        shutil.copy(home / "batch.csv", home / name)
        user.sh(f"cd {name} && tgftp -f batch.csv > screen.txt")
        user.sh(f"cd {name} && gftpwb import taglogs batch.csv_#*.log --results ../results/{name} 2> import.err")
    (home / "single").mkdir()
    for length in ("8M", "12M"):
        user.sh(f"cd single && tgftp -s {gridftp.url}/dev/zero -t {gridftp.url}/dev/null -- -len {length}")
    user.sh("cd single && gftpwb import taglogs *.log --results ../results/single 2> import.err")
    (home / "old").mkdir()
    real = reference_tgftp()
    if real is not None:
        shutil.copy(home / "batch.csv", home / "old")
        user.sh(f"cd old && {real} -f batch.csv > screen.txt")
    else:
        for log in LOGS:
            (home / "old" / log).write_text(without_gftpwb_tags((home / "a" / log).read_text()))
    user.sh("cd old && gftpwb import taglogs batch.csv_#*.log --results ../results/old 2> import.err")
    return user


def test_the_drop_in_runs_the_batch_and_leaves_a_tag_log_per_execution(user):
    screen = (user.home / "a" / "screen.txt").read_text()
    for test, execution in ((0, 0), (0, 1), (1, 0), (1, 1)):
        assert f" Test #{test}_{execution} was successful!" in screen
    assert "tgftp: test #0 was successful!" in screen and "tgftp: test #1 was successful!" in screen
    assert sorted(p.name for p in (user.home / "a").glob("*.log")) == LOGS
    for log in LOGS:
        rate = user.sh(f"cd a && tgftp_log -a GSIFTP_TRANSFER_RATE -f '{log}'")
        assert re.fullmatch(r"\d+ MB/s\n", rate.stdout), rate


def test_every_log_the_drop_in_wrote_is_a_run_of_its_own_after_import(user):
    for name, logs in (("a", 4), ("b", 4), ("single", 2)):
        assert "comes from both" not in (user.home / name / "import.err").read_text()
        journal = records(user.home / "results" / name)
        assert len(journal) == logs
        assert len({(r["scenario"], r["run_id"]) for r in journal}) == logs, [r["run_id"] for r in journal]
    query = user.sh("gftpwb results query \"SELECT directory, count(*) AS runs FROM runs WHERE directory IN "
                    "('a', 'b', 'old', 'single') GROUP BY ALL ORDER BY ALL\" --csv")
    assert query.stdout.split() == ["directory,runs", "a,4", "b,4", "old,4", "single,2"]


def test_the_report_of_an_imported_batch_shows_its_lines_as_cases(user):
    report = user.sh("gftpwb report results/a")
    table = table_titled(report.stdout, "Results")
    assert [{k: row[k] for k in CASES[0]} for row in table.records()] == CASES
    assert report.stdout.rstrip().endswith("4 passed of 4 planned")


def test_compare_of_two_imported_batches_pairs_their_cases(user):
    compare = user.sh("gftpwb compare results/a results/b")
    table = table_titled(compare.stdout, "B results/b")
    assert [(row["test"], row["#"]) for row in table.records()] == [("test-000", "000"), ("test-001", "001")]
    assert all(row["A median"].endswith("(n=2)") and row["B median"].endswith("(n=2)") for row in table.records())
    assert "2 compared:" in compare.stdout


def test_old_tgftp_logs_are_a_run_each_and_their_report_says_whose_clock_timed_them(user):
    journal = records(user.home / "results" / "old")
    assert sorted(r["run_id"] for r in journal) == ["test-000/0", "test-000/1", "test-001/0", "test-001/1"]
    assert "note: " in (user.home / "old" / "import.err").read_text()  # the import says the rates are tgftp's
    report = user.sh("gftpwb report results/old")
    table = table_titled(report.stdout, "Results")
    assert [{k: row[k] for k in CASES[0]} for row in table.records()] == CASES
    assert all("timed by tgftp to the whole second" in row["notes"] for row in table.records()), table.rows


def test_compare_of_old_tgftp_logs_with_a_gftpwb_run_warns_that_the_clocks_differ(user):
    """tgftp's rate is the size over whole seconds (a transfer of 0.1 s counts as 1 s), gftpwb's is timed to
    the microsecond: a change between them is partly the clock's, which compare must say."""
    run = user.sh("gftpwb run batch.csv --results results/new --progress never")
    assert run.stdout.rstrip().endswith("4 passed of 4 planned. Results: results/new")
    compare = user.sh("gftpwb compare results/old results/new")
    table = table_titled(compare.stdout, "B results/new")
    assert [(row["test"], row["#"]) for row in table.records()] == [("test-000", "000"), ("test-001", "001")]
    warning = " ".join(compare.stdout.split())
    assert ("warning: environments differ: -: rates timed by: A 'tgftp, to the whole second (4 of 4 runs)', "
            "B 'gftpwb, to the microsecond'") in warning
    same = user.sh("gftpwb compare results/new results/new")
    assert "rates timed by" not in same.stdout


def test_every_command_of_the_journey_printed_no_traceback(user):
    """The steps above check their own output; the files the fixture's steps wrote stderr to are read here."""
    for path in Path(user.home).rglob("*.err"):
        assert "Traceback" not in path.read_text(), path


NIGHTLY = """\
#%tgftp%v0.7.0
{url}/dev/zero;{url}/dev/null;-vb -len 16M;no;60;nightly.log;"#nightly";;;3
"""


@pytest.mark.parametrize("tool", ["drop-in", "tgftp 0.7.0"])
def test_a_batch_line_run_three_times_is_one_case_of_three_runs_after_import(tmp_path, gridftp, tool):
    """``tgftp -f b.csv`` with one line, ``execs`` 3 and a log name: nightly_000..002.log. Imported, they are
    the three runs of one case (test nightly, case 0, as the drop-in's own records say; from the log names and
    the batch line in tgftp's logs), in the import's table, the report, compare and the history: not three
    cases of one run. tgftp's logs are the real tgftp's when GFTPWB_TGFTP_REFERENCE has it, else the
    drop-in's as tgftp wrote them (without gftpwb's tags)."""
    real = reference_tgftp()
    user = User(tmp_path)
    (tmp_path / "b.csv").write_text(NIGHTLY.format(url=gridftp.url))
    user.sh(f"{real if tool != 'drop-in' and real is not None else 'tgftp'} -f b.csv > screen.txt")
    if tool != "drop-in" and real is None:
        for log in tmp_path.glob("nightly_*.log"):
            log.write_text(without_gftpwb_tags(log.read_text()))
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["nightly_000.log", "nightly_001.log", "nightly_002.log"]
    imported = user.sh("gftpwb import taglogs nightly_*.log --results results/nightly")
    table = table_titled(imported.stdout, "Results")
    assert [(row["test"], row["#"], row["ok/runs"]) for row in table.records()] == [("nightly", "000", "3/3")]
    assert sorted((r["test_id"], r["case"], r["repeat"]) for r in records(tmp_path / "results" / "nightly")) == [
        ("nightly", 0, 0), ("nightly", 0, 1), ("nightly", 0, 2)]
    report = table_titled(user.sh("gftpwb report results/nightly").stdout, "Results")
    assert [(row["test"], row["#"], row["ok/runs"]) for row in report.records()] == [("nightly", "000", "3/3")]
    compare = user.sh("gftpwb compare results/nightly results/nightly")
    assert [row["A median"].endswith("(n=3)") for row in table_titled(compare.stdout, "B results/nightly").records()] \
        == [True]
    history = user.sh("gftpwb results query \"SELECT test_id, \\\"case\\\", count(*) AS n FROM runs WHERE directory = "
                      "'nightly' GROUP BY ALL\" --csv")
    assert history.stdout.split() == ["test_id,case,n", "nightly,0,3"]
