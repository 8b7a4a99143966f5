"""Each run's line of ``report --json`` written straight from the run (gftpwb/core/report_json_runs.py)
is ``json.dumps(run_data(summary, run), ensure_ascii=False)``, character for character: held to it by
hypothesis over runs of every shape (floats, whole numbers, null, numpy numbers, booleans where a
number goes, infinities, text with escapes and non-ASCII, facts of every type, outliers), and over
a directory with samples and every kind of run (report_fixture)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.report_fixture import write_mixed

from gftpwb.core.report_json import _row_encoder, run_data
from gftpwb.core.report_json_runs import RunLines
from gftpwb.core.summary import DirectorySummary, RunRow
from gftpwb.shell.results_index import read_directory


def general_line(encode):
    return lambda summary, run: encode(run_data(summary, run))

_TEXT = st.text(st.characters(codec="utf-8"), max_size=6)
_NUMBER = st.one_of(st.none(), st.floats(), st.integers(-10**20, 10**20), st.booleans(),
                    st.floats(-1e6, 1e6).map(np.float64))
_FACT = st.one_of(_NUMBER, _TEXT, st.lists(st.integers(), max_size=2))
_KEY = st.one_of(_TEXT, st.sampled_from(["rate_incl_setup_mib_s", "mode", "live_progress"]))


def _run(**fields) -> RunRow:
    return RunRow(record=None, **fields)  # type: ignore[arg-type]


_RUNS = st.builds(
    _run, run_id=_TEXT, repeat=st.one_of(st.integers(0, 10**6), st.booleans()), host=_TEXT,
    status=st.sampled_from(["passed", "failed", "timeout"]), warmup=st.booleans(),
    values=st.dictionaries(_KEY, _NUMBER, max_size=3), excluded=st.dictionaries(_KEY, _TEXT, max_size=2),
    outlier=st.lists(_KEY, max_size=2).map(tuple), facts=st.dictionaries(_KEY, _FACT, max_size=3),
    seconds=_NUMBER, bytes=st.one_of(st.none(), st.integers(0, 10**15)), started_at=_TEXT, error=_TEXT,
    engine=st.sampled_from(["real", "simulated", "é"]))

_EMPTY = DirectorySummary(path="d", scenario="s", created_at="", planned=None, counts={}, cases=(), meta={},
                          problems=(), not_run=(), kinds={}, samples={})


@settings(max_examples=600, deadline=None)
@given(st.lists(_RUNS, min_size=1, max_size=4))
def test_a_run_s_line_is_its_dict_encoded(runs: list[RunRow]) -> None:
    encode = _row_encoder()
    lines = RunLines(_EMPTY, general_line(encode))
    for run in runs:  # several, so what is remembered from one run is used for the next
        assert lines.line(run) == json.dumps(run_data(_EMPTY, run), ensure_ascii=False)


def test_every_run_of_a_directory_with_samples(tmp_path) -> None:
    summary = read_directory(str(write_mixed(tmp_path / "d")))
    assert summary.samples  # some runs go the general way
    lines = RunLines(summary, general_line(_row_encoder()))
    runs = [run for case in summary.cases for run in case.runs]
    assert len(runs) > 10
    for run in runs:
        assert lines.line(run) == json.dumps(run_data(summary, run), ensure_ascii=False)
    bare = dataclasses.replace(summary, samples={})
    for run in runs:
        assert RunLines(bare, general_line(_row_encoder())).line(run) == json.dumps(run_data(bare, run),
                                                                                  ensure_ascii=False)
