"""The xrdcp and gfal-copy output parsers on real output (tests/data/protocols, captured from Debian
12's xrdcp 5.5.3 and gfal-copy 1.8.0 against the lab's xrootd), in any chunking; the sessions'
outcomes; the DSL's checks at file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, seed
from hypothesis import strategies as st
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.output import ProgressSample, TextLine
from gftpwb.core.records import FAILED, PASSED, TIMEOUT
from gftpwb.kinds.copytool.session import CopyRun
from gftpwb.kinds.http.tool import GFAL_TOOL
from gftpwb.kinds.xrootd.tool import XRDCP_TOOL

DATA = Path(__file__).parent / "data" / "protocols"


def parse(tool, stream: str, data: bytes, cuts: list[int] = ()):
    parser = tool.parser()
    items, last = [], 0
    for cut in sorted(set(c for c in cuts if 0 < c < len(data))):
        items += parser.feed(stream, data[last:cut])
        last = cut
    items += parser.feed(stream, data[last:])
    return items + parser.close()


def test_xrdcp_progress_reads_bytes_and_its_average():
    items = parse(XRDCP_TOOL, "stderr", (DATA / "xrdcp-download.stderr").read_bytes())
    samples = [i for i in items if isinstance(i, ProgressSample)]
    assert len(samples) >= 3
    assert samples[-1].bytes == 1024 * 1048576
    assert samples[0].bytes == 8 * 1048576 and samples[0].avg_mib_s == 8.0
    assert all(s.inst_mib_s is None for s in samples)
    assert not [i for i in items if isinstance(i, TextLine)]


@seed(FUZZ_SEED)
@given(st.lists(st.integers(min_value=1, max_value=1100), max_size=12))
def test_xrdcp_parsing_does_not_depend_on_the_chunking(cuts):
    say_seed()
    data = (DATA / "xrdcp-tpc.stderr").read_bytes()
    assert parse(XRDCP_TOOL, "stderr", data, cuts) == parse(XRDCP_TOOL, "stderr", data)


def test_xrdcp_errors_are_its_run_lines():
    for name, words in (("xrdcp-refused.stderr", "Connection error"), ("xrdcp-missing.stderr", "no such file")):
        run = CopyRun(XRDCP_TOOL)
        run.feed("stderr", (DATA / name).read_bytes())
        run.close()
        outcome = run.outcome(54, 0.1)
        assert outcome.status == FAILED and words in outcome.error and not outcome.error.startswith("Run:")


def test_gfal_tpc_progress_reads_bytes_and_the_markers_rate():
    samples = [i for i in parse(GFAL_TOOL, "stdout", (DATA / "gfal-tpc-pull.stdout").read_bytes())
               if isinstance(i, ProgressSample)]
    assert samples and all(s.avg_mib_s is None and s.inst_mib_s for s in samples)
    assert samples[-1].bytes <= 3 * 1024 ** 3
    assert [s.bytes for s in samples] == sorted(s.bytes for s in samples)


def test_gfal_streamed_copy_reports_bytes_once_its_monitor_does():
    """A streamed copy prints only its elapsed seconds for about 5 s, then bytes and rate: the
    seconds-only lines are dropped, not published as text."""
    items = parse(GFAL_TOOL, "stdout", (DATA / "gfal-streamed.stdout").read_bytes())
    assert items and all(isinstance(i, ProgressSample) for i in items)
    assert items[0].bytes == round(3.28 * 1024 ** 3) and items[0].inst_mib_s == 560.0


def test_gfal_errors_and_a_pass_without_progress():
    run = CopyRun(GFAL_TOOL)
    run.feed("stderr", (DATA / "gfal-missing.stderr").read_bytes())
    outcome = run.outcome(2, 0.2)
    assert outcome.status == FAILED and outcome.error.startswith("2 (No such file or directory)")
    run = CopyRun(GFAL_TOOL, length_bytes=8 * 1024 ** 3)
    run.feed("stdout", (DATA / "gfal-streamed.stdout").read_bytes())
    outcome = run.outcome(0, 4.0)
    assert outcome.status == PASSED and outcome.rate_incl_setup_mib_s == pytest.approx(2048.0)
    assert outcome.rate_guc_avg_mib_s is None


def test_xrdcp_average_over_few_seconds_is_quantised_and_a_timeout_says_so():
    run = CopyRun(XRDCP_TOOL, length_bytes=1024 * 1048576)
    run.feed("stderr", (DATA / "xrdcp-download.stderr").read_bytes())
    run.close()
    passed = run.outcome(0, 9.5)
    assert passed.status == PASSED and passed.details.get("guc_avg_quantised") is True
    timed = run.outcome(None, 3.0, timed_out=True, timeout_s=3.0)
    assert timed.status == TIMEOUT and "xrdcp" in timed.error


SCENARIO = """\
version: 1
name: p
tests:
  - id: x
    kind: xrootd
    source: /dev/shm/a
    target: root://127.0.0.1:1094//dev/shm/b
    options: {tpc: only}
  - id: h
    kind: http
    source: http://127.0.0.1:8094/a
    target: /dev/null
    matrix: {copy_mode: [pull]}
  - id: s
    kind: xrootd
    source: ftp://127.0.0.1/a
    target: /dev/null
"""


def test_the_checks_point_at_the_value():
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(SCENARIO, "p.yaml")
    text = str(caught.value)
    assert "p.yaml:8:20:" in text and "tpc: only is a third-party copy" in text
    assert "p.yaml:13:" in text and "copy_mode: pull" in text
    assert "p.yaml:16:13:" in text and "no URL xrdcp takes" in text


def test_streams_beyond_xrootds_limit_are_a_schema_error():
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(SCENARIO.replace("{tpc: only}", "{streams: 16}"), "p.yaml")
    assert "p.yaml:8:24:" in str(caught.value)
