"""Logs of tgftp 0.7.0 and of the drop-in, imported: each log is a run of its own, and a drop-in's log
is the same run with or without gftpwb's own tags (``GFTPWB_*``) as the log tgftp wrote in its place.

The logs are the ones every batchfile and command line of the corpus left (tgftp's and the drop-in's,
same names), so batch logs, single tests' logs (named or by default) and the logs of tgftp's
auto-tuning batchfile (what ``tgftp -a`` runs) are all here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from compat.corpus import BATCH, SINGLE

from gftpwb.converters.taglog import number_cases, record_from_taglog

IDENTITY = ("scenario", "test_id", "run_id", "case", "repeat")


def without_gftpwb_tags(data: bytes) -> bytes:
    """The log as tgftp would have written it: gftpwb's tags (all before the comment tag) taken out."""
    head = b"<GSIFTP_TRANSFER_LOG_COMMENT>\n"
    return data[data.index(head):] if data.startswith(b"<GFTPWB_") and head in data else data


def identities(logs: list[tuple[bytes, str]]) -> list[tuple]:
    """The runs ``gftpwb import taglogs`` makes of these logs imported together (the executions of one
    batch line one case: number_cases)."""
    imported = [record_from_taglog(data.decode("utf-8", "surrogateescape"), name, scenario="imported", case=i)
                for i, (data, name) in enumerate(logs)]
    number_cases(imported)
    return [tuple(getattr(entry.record, field) for field in IDENTITY) for entry in imported]


def runs_of(runs: dict, tool: str) -> dict[str, dict[str, bytes]]:
    """Case -> log name -> bytes, of every case ``tool`` ran."""
    out: dict[str, dict[str, bytes]] = {}
    for case, by_path in sorted(runs.items()):
        run = by_path.get(tool)
        if run is not None and run.logs:
            root = run.log_root or run.workdir
            out[case] = {name: (root / name).read_bytes() for name in sorted(run.logs)}
    return out


@pytest.mark.parametrize("kind", ["batch", "single"])
def test_every_drop_in_log_is_its_own_run_the_one_tgftps_log_gives(kind, batch_runs, single_runs):
    runs = batch_runs if kind == "batch" else single_runs
    theirs, ours = runs_of(runs, "tgftp"), runs_of(runs, "dropin")
    assert len(ours) >= (30 if kind == "batch" else 25)
    problems = []
    for case, logs in ours.items():
        names = sorted(logs)
        with_tags = identities([(logs[name], name) for name in names])
        without = identities([(without_gftpwb_tags(logs[name]), name) for name in names])
        if len(set(with_tags)) != len(names):
            problems.append(f"{kind}/{case}: {len(names)} logs import as {len(set(with_tags))} run(s): {with_tags}")
        if with_tags != without:
            problems.append(f"{kind}/{case}: with gftpwb's tags {with_tags} != without {without}")
        tgftp_logs = theirs.get(case, {})
        if sorted(tgftp_logs) == names and not any(b"testgftp.sh.log" in n.encode() for n in names):
            expected = identities([(tgftp_logs[name], name) for name in names])
            if with_tags != expected:
                problems.append(f"{kind}/{case}: the drop-in's logs {with_tags} != tgftp's {expected}")
    assert not problems, "\n".join(problems[:20])


def test_the_auto_tuning_batchfile_logs_are_runs_of_their_own(batch_runs):
    """tgftp -a ran ``tgftp -f .autoTuneBatchJob.csv``: its logs are those of an auto-tuning batchfile."""
    for tool in ("tgftp", "dropin"):
        logs = runs_of(batch_runs, tool)["autotune-batchfile"]
        assert len(logs) >= 4
        ids = set(identities([(data, name) for name, data in sorted(logs.items())]))
        assert len(ids) == len(logs), (tool, ids)


def test_import_taglogs_of_a_batch_single_tests_and_both_tools_keeps_every_run(batch_runs, single_runs, tmp_path):
    """The command a user types after ``tgftp -f batch.csv`` and a few single tests: ``gftpwb import
    taglogs *.log``, once for the drop-in's logs, once for the same logs without gftpwb's tags."""
    batch = next(c.name for c in BATCH if c.name == "quoted-params")
    singles = [c.name for c in SINGLE if c.name in ("gtransfer", "plain-len", "refused", "default-log-name")]
    for variant in ("with", "without"):
        directory = tmp_path / variant
        directory.mkdir()
        for case, runs in [(batch, batch_runs), *((name, single_runs) for name in singles)]:
            for name, data in runs_of(runs, "dropin").get(case, {}).items():
                (directory / name).write_bytes(data if variant == "with" else without_gftpwb_tags(data))
        logs = sorted(directory.iterdir())
        assert len(logs) == 6  # 2 executions of the batch line, 4 single tests
        out = subprocess.run([sys.executable, "-m", "gftpwb", "import", "taglogs", *map(str, logs), "--results",
                              str(tmp_path / f"r-{variant}")], capture_output=True, text=True)
        assert out.returncode == 0 and "comes from both" not in out.stderr, out.stderr
        records = [json.loads(line) for line in (tmp_path / f"r-{variant}" / "results.jsonl").read_text().splitlines()]
        keys = {(r["scenario"], r["run_id"]) for r in records}
        assert len(keys) == len(logs), (variant, sorted(keys))
        if variant == "with":
            expected = keys
        else:
            assert keys == expected


def test_records_of_an_older_drop_in_that_named_every_run_tgftp_0_are_named_after_their_logs(batch_runs):
    logs = runs_of(batch_runs, "dropin")["quoted-params"]
    older = []
    for name, data in sorted(logs.items()):
        text = data.decode()
        line = next(line for line in text.split("\n") if line.startswith('{"scenario"'))
        record = json.loads(line)
        old = {**record, "scenario": "tgftp", "test_id": "tgftp", "run_id": "tgftp/0", "case": 0, "repeat": 0}
        older.append((text.replace(line, json.dumps(old)).encode(), name))
    assert len(set(identities(older))) == len(logs) == 2

