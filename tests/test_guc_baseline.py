"""``baseline:`` of guc tests: the hosts inferred from the URLs, the checks at file:line:col, the
planned pairs (iperf3 just before each guc run, same streams and window), and the efficiency with
its bootstrap interval (:func:`gftpwb.core.stats.ratio_of_means`)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.baseline_records import record

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.records import FAILED
from gftpwb.core.stats import ratio_of_means
from gftpwb.core.summary import summarize_cases
from gftpwb.kinds.guc.efficiency import efficiencies
from gftpwb.kinds.guc.report import tables
from gftpwb.kinds.iperf3.job import Iperf3Job

HEAD = ("version: 1\nname: b\n"
        "hosts:\n  h1: {address: 10.9.0.2}\n  h2: {address: 10.9.0.3}\n"
        "tests:\n")
FIRST = HEAD.count("\n") + 1


def load(tests: str):
    return load_scenario_text(HEAD + textwrap.dedent(tests), "b.yaml")


def errors_of(tests: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(tests)
    return [str(d) for d in info.value.diagnostics]


def test_hosts_come_from_the_urls_and_each_guc_run_follows_its_iperf3_run():
    scenario = load("""\
      - id: eff
        kind: guc
        source: ftp://10.9.0.2:2811/dev/zero
        target: ftp://h2:2811/dev/null
        options: {length: 1G, tcp_buffer: 2M}
        matrix: {parallel: [1, 4]}
        repeat: 2
        warmup: 1
        baseline: {duration: 3s, omit: 1s}
    """)
    specs = list(plan(scenario))
    assert [(s.run_id, s.kind) for s in specs] == [
        ("eff[0]/0/iperf3", "iperf3"), ("eff[0]/0", "guc"), ("eff[0]/1/iperf3", "iperf3"), ("eff[0]/1", "guc"),
        ("eff[1]/0/iperf3", "iperf3"), ("eff[1]/0", "guc"), ("eff[1]/1/iperf3", "iperf3"), ("eff[1]/1", "guc")]
    base, guc = specs[6], specs[7]
    job = Iperf3Job.from_params(base.params)
    assert (base.host, job.client, job.server, job.server_address) == ("h1", "h1", "h2", "h2")
    assert (job.streams, job.window, job.duration_s, job.omit_s, job.reverse) == (4, 2 << 20, 3.0, 1.0, False)
    assert (base.test_id, base.case, base.repeat) == (guc.test_id, guc.case, guc.repeat)
    assert base.details == {"baseline_for": "eff[1]/1", "guc_streams": 4}
    assert specs[4].details["warmup"] and specs[5].details["warmup"]  # a warm-up pair
    assert base.argv == ("iperf3", "-c", "h2", "-p", "<port>", "-J", "-P", "4", "-w", str(2 << 20), "-t", "3",
                         "-O", "1")


def test_file_ends_are_the_guc_host_and_a_server_source_reverses_the_baseline():
    scenario = load("""\
      - id: push
        kind: guc
        on: h1
        source: file:///dev/zero
        target: ftp://10.9.0.3:2811/dev/null
        baseline: iperf3
      - id: pull
        kind: guc
        source: ftp://localhost:2811/dev/zero
        target: file:///dev/null
        baseline: iperf3
    """)
    push, _, pull, _ = list(plan(scenario))
    push_job, pull_job = Iperf3Job.from_params(push.params), Iperf3Job.from_params(pull.params)
    assert (push_job.client, push_job.server, push_job.server_address, push_job.reverse) == (
        "h1", "h2", "10.9.0.3", False)
    assert (pull_job.client, pull_job.server, pull_job.server_address, pull_job.reverse) == (
        "local", "local", "localhost", True)
    assert push.details["baseline_for"] == "push/0@h1"
    assert (push_job.streams, push_job.window, push_job.duration_s) == (1, None, 10.0)


def test_a_named_iperf3_test_lends_its_settings():
    scenario = load("""\
      - id: net
        kind: iperf3
        client: h1
        server: h2
        server_address: 10.9.0.33
        duration: 2s
        port: 5999
      - id: eff
        kind: guc
        source: ftp://10.9.0.2:2811/dev/zero
        target: ftp://10.9.0.3:2811/dev/null
        options: {parallel: 2}
        baseline: net
    """)
    specs = list(plan(scenario))
    assert [s.run_id for s in specs] == ["net/0", "eff/0/iperf3", "eff/0"]
    job = Iperf3Job.from_params(specs[1].params)
    assert (job.server_address, job.port, job.duration_s, job.streams) == ("10.9.0.33", 5999, 2.0, 2)


def test_baselines_that_cannot_work_are_errors_at_their_key():
    errs = errors_of("""\
      - id: far
        kind: guc
        source: file:///dev/zero
        target: ftp://example.org/dev/null
        baseline: iperf3
      - id: files
        kind: guc
        source: file:///dev/zero
        target: file:///dev/null
        baseline: iperf3
      - id: other
        kind: guc
        source: ftp://h1/dev/zero
        target: ftp://h2/dev/null
        baseline: far
      - id: back
        kind: guc
        on: h1
        source: file:///dev/zero
        target: ftp://localhost/dev/null
        baseline: {duration: 2s}
      - id: striped
        kind: guc
        source: ftp://h1/dev/zero
        target: ftp://h2/dev/null
        stripe: true
        baseline: iperf3
      - id: half
        kind: guc
        source: ftp://h1/dev/zero
        target: ftp://h2/dev/null
        baseline: {duration: 1.5s}
    """)
    line = FIRST
    assert errs == [
        f"b.yaml:{line + 4}:13: test 'far': baseline: iperf3 cannot tell which host the target "
        "ftp://example.org/dev/null is on (its host 'example.org' is neither this machine nor a host of the "
        "inventory, by name or address); give baseline: {client: HOST, server: HOST, server_address: ADDRESS}",
        f"b.yaml:{line + 9}:13: test 'files': baseline: iperf3 needs a network path, but both ends of this test are "
        "files on the host guc runs on",
        f"b.yaml:{line + 14}:13: test 'other': baseline 'far' names a test of kind guc; it must name an iperf3 test "
        "(or be 'iperf3')",
        f"b.yaml:{line + 20}:13: test 'back': baseline: the iperf3 server would run on this machine and the client "
        "on 'h1'; give server_address: (the address at which that host reaches this machine)",
        f"b.yaml:{line + 26}:13: test 'striped': baseline: a striped transfer spreads over several host pairs; an "
        "iperf3 baseline measures one (pair the unstriped test instead)",
        f"b.yaml:{line + 31}:13: test 'half': baseline: iperf3 takes whole seconds for duration",
    ]


# --- the efficiency ----------------------------------------------------------------------------------


@given(st.lists(st.floats(1, 1000), min_size=3, max_size=12), st.lists(st.floats(1, 1000), min_size=3, max_size=12))
def test_ratio_of_means_is_the_ratio_and_its_interval_stays_above_zero(num, den):
    ratio = ratio_of_means(num, den)
    assert ratio is not None and ratio.ci is not None
    assert ratio.value == pytest.approx(np.mean(num) / np.mean(den))
    assert ratio_of_means(num, den) == ratio
    assert 0 < ratio.ci.low <= ratio.ci.high


def test_ratio_of_means_small_samples():
    assert ratio_of_means([], [1.0]) is None
    assert ratio_of_means([1.0], [0.0]) is None
    one = ratio_of_means([95.0], [100.0, 100.0])
    assert one is not None and (one.value, one.ci) == (0.95, None)
    two = ratio_of_means([95.0, 96.0], [100.0, 100.0, 101.0])  # an interval needs 3 runs a side
    assert two is not None and two.ci is None
    same = ratio_of_means([95.0] * 3, [100.0] * 3)
    assert same is not None and same.ci is not None and (same.ci.low, same.ci.high) == pytest.approx((0.95, 0.95))


def test_efficiency_pairs_cases_and_the_report_shows_it():
    records = []
    for repeat, (guc, base) in enumerate([(44.0, 46.0), (45.0, 47.0), (43.0, 45.0)]):
        records.append(record(f"eff[0]/{repeat}/iperf3", "iperf3", 0, repeat, base + 1, base,
                              params={"client": "h1", "server": "h2", "server_address": "x", "streams": 4}))
        records.append(record(f"eff[0]/{repeat}", "guc", 0, repeat, guc - 1, guc, params={"parallel": 4}))
    records.append(record("eff[1]/0", "guc", 1, 0, 40.0, 41.0))  # a case without a baseline
    records.append(record("eff[0]/3/iperf3", "iperf3", 0, 3, 0.0, 0.0, status=FAILED))  # not counted
    (found,) = efficiencies(summarize_cases(records))
    assert found.streams == 4 and found.iperf3_mib_s == pytest.approx(46.0)
    assert found.guc_avg is not None and found.guc_avg.value == pytest.approx(44.0 / 46.0)
    assert found.guc_rate is not None and found.guc_rate.value == pytest.approx(43.0 / 46.0)
    assert found.guc_avg.ci is not None and found.guc_avg.ci.low < 44 / 46 < found.guc_avg.ci.high
    results, eff, iperf3 = tables(records)[:3]
    assert [row[0][1] for row in results.rows] == ["000", "001"]  # guc cases only
    (row,) = eff.rows
    assert row[0][:8] == ("eff", "000", "-p 4", "4", "3/4", "46.0", "44.0", "95.7 %")
    assert row[1] == "red"  # a baseline run failed
    assert iperf3.title.startswith("iperf3 baselines")
