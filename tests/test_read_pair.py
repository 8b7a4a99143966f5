"""``gftpwb compare`` reads B in a forked child while it reads A (gftpwb/shell/read_pair.py): the
comparison is the one of both directories read in turn, in full; errors come in the same order with
the same messages; without a second CPU (or with threads running) it reads them in turn."""

from __future__ import annotations

import os

import pytest
from support.report_fixture import write_mixed

from gftpwb.core.compare import compare_summaries, comparison_data, for_comparison
from gftpwb.core.errors import UsageError
from gftpwb.shell import read_pair
from gftpwb.shell.results_index import read_directory


@pytest.fixture
def pair(tmp_path):
    write_mixed(tmp_path / "a")
    write_mixed(tmp_path / "b")
    return str(tmp_path / "a"), str(tmp_path / "b")


def _data(a, b):
    return comparison_data(compare_summaries(a, b, all_figures=True), "gftpwb test")


def test_the_child_s_summary_compares_as_the_whole_one(pair, monkeypatch):
    a_path, b_path = pair
    forks = []
    real_fork = os.fork

    def counting_fork():
        forks.append(1)
        return real_fork()

    monkeypatch.setattr(read_pair, "_cpus", lambda: 2)
    monkeypatch.setattr(os, "fork", counting_fork)
    a, b = read_pair.read_for_comparison(a_path, b_path)
    assert forks == [1] and read_pair._pending  # the child is reaped later
    read_pair.reap_children()
    assert not read_pair._pending
    assert b.cases and all(c.runs == () for c in b.cases)  # B came back as compare reads it
    whole_a, whole_b = read_directory(a_path), read_directory(b_path)
    assert _data(a, b) == _data(whole_a, whole_b)
    assert _data(for_comparison(whole_a), for_comparison(whole_b)) == _data(whole_a, whole_b)


@pytest.mark.parametrize("cpus", [1, 2])
def test_errors_keep_their_order_and_words(pair, tmp_path, monkeypatch, cpus):
    monkeypatch.setattr(read_pair, "_cpus", lambda: cpus)
    a_path, b_path = pair
    missing = str(tmp_path / "nowhere")
    with pytest.raises(UsageError, match="nowhere: no such results directory"):
        read_pair.read_for_comparison(a_path, missing)
    with pytest.raises(UsageError, match="nowhere: no such results directory"):
        read_pair.read_for_comparison(missing, b_path)
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(UsageError, match="nowhere: no such"):  # A's error first, as in turn
        read_pair.read_for_comparison(missing, str(other))
    read_pair.reap_children()


def test_one_cpu_reads_in_turn(pair, monkeypatch):
    monkeypatch.setattr(read_pair, "_cpus", lambda: 1)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked with one CPU"))
    a, b = read_pair.read_for_comparison(*pair)
    assert _data(a, b) == _data(read_directory(pair[0]), read_directory(pair[1]))
