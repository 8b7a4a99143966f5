"""A user copies a plain file, the way people move data: 64 MiB between two GridFTP servers without
``-len`` (under a second on loopback, so guc prints no progress at all), and from a server to a local
file; with ``gftpwb run``, then ``gftpwb report`` and ``report --json``, and with the ``tgftp`` drop-in and
``gftpwb import taglogs``.

Every copy is rated: its size is its source's, listed over the control channel after the copy, and the
record, the report's notes and its JSON say that is where it came from; the rates are the size over
the run's own time, so no table shows a copy without a rate."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from support.journey import User, table_titled
from support.results import records

pytestmark = pytest.mark.real

SIZE = 64 << 20


@pytest.fixture(scope="module")
def user(tmp_path_factory, gridftp):
    """A 64 MiB file the server (which runs as nobody) may read, a directory it may write, and the runs."""
    data = Path(tempfile.mkdtemp(prefix="gftpwb-plain-", dir="/tmp"))
    data.chmod(0o755)
    (data / "big.bin").write_bytes(os.urandom(SIZE))
    (data / "big.bin").chmod(0o644)
    (data / "out").mkdir()
    (data / "out").chmod(0o777)
    home = tmp_path_factory.mktemp("plain-copy")
    (home / "copy.yaml").write_text(f"""\
version: 1
name: plain
tests:
  - {{id: servers, kind: guc, source: "{gridftp.url}{data}/big.bin", target: "{gridftp.url}{data}/out/copy.bin",
      repeat: 3}}
  - {{id: download, kind: guc, source: "{gridftp.url}{data}/big.bin", target: "file://{home}/local.bin", repeat: 2}}
""")
    user = User(home)
    user.data = data
    user.url = gridftp.url
    user.run = user.sh("gftpwb run copy.yaml --results results/plain")
    yield user
    shutil.rmtree(data, ignore_errors=True)


def test_every_plain_copy_has_its_size_and_a_rate(user):
    journal = records(user.home / "results" / "plain")
    assert [(r["test_id"], r["status"]) for r in journal] == [("servers", "passed")] * 3 + [("download", "passed")] * 2
    for r in journal:
        assert r["bytes"] == SIZE and r["rate_incl_setup_mib_s"] == pytest.approx(64 / r["seconds"]), r
        assert r["details"]["size_from"] == "listing"
        assert r["details"]["size_listing"]["argv"][-2:] == [r["argv"][-2], "file:///dev/null/gftpwb-size"]
    assert (user.home / "local.bin").stat().st_size == SIZE


def test_the_report_rates_every_case_and_says_where_the_size_came_from(user):
    report = user.sh("gftpwb report results/plain")
    rows = table_titled(report.stdout, "Results").records()
    assert [(row["test"], row["ok/runs"]) for row in rows] == [("servers", "3/3"), ("download", "2/2")]
    for row in rows:
        assert row["median"] != "-" and float(row["median"]) > 0, row
        assert f"{row['ok/runs'][0]} sized by listing the source" in row["notes"], row
    assert table_titled(user.run.stdout, "Results").rows == table_titled(report.stdout, "Results").rows
    data = json.loads(user.sh("gftpwb report results/plain --json").stdout)
    runs = [run for directory in data["directories"] for case in directory["cases"] for run in case["runs"]]
    assert len(runs) == 5 and all(run["bytes"] == SIZE and run["values"]["rate_incl_setup_mib_s"] > 0
                                  and run["facts"]["size_from"] == "listing" for run in runs), runs


def test_the_drop_in_rates_a_plain_copy_and_its_import_keeps_the_rate(user):
    """tgftp had no size for a copy without -len (its log's size and rate tags stay as tgftp wrote them); the
    drop-in's record has the listed size, and importing the log keeps it."""
    user.sh(f"mkdir -p dropin && cd dropin && tgftp -s {user.url}{user.data}/big.bin -t {user.url}{user.data}/out/"
            f"dropin.bin --log-filename copy.log > screen.txt")
    user.sh("cd dropin && gftpwb import taglogs copy.log --results ../results/dropin")
    (record,) = records(user.home / "results" / "dropin")
    assert record["status"] == "passed" and record["bytes"] == SIZE and record["rate_incl_setup_mib_s"] > 0
    assert record["details"]["size_from"] == "listing"
    rate = user.sh("cd dropin && tgftp_log -a GSIFTP_TRANSFER_RATE -f copy.log")
    assert rate.stdout == " MB/s\n", rate  # as tgftp 0.7.0 logged it: no size, so a rate without a number
