"""Per-stripe progress of striped guc transfers, from the servers' 112 performance markers.

tests/data/guc/striped-dbg.* is the output of a real ``globus-url-copy -vb -dbg -stripe -len 12G``
between the lab's striped front ends (two data nodes per side; its 111 Range Marker lines are cut
short to keep the file small)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.output import ProgressSample
from gftpwb.core.plan import plan
from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.guc.markers import StripeTracker
from gftpwb.kinds.guc.session import GucRun

DATA = Path(__file__).parent / "data" / "guc"
STDERR = (DATA / "striped-dbg.stderr").read_bytes()
STDOUT = (DATA / "striped-dbg.stdout").read_bytes()


def run_of(stderr: bytes, cuts=()) -> tuple[GucRun, list]:
    run, items, last = GucRun(length_bytes=12 * GIB, per_stripe=True), [], 0
    items += run.feed("stdout", STDOUT)
    for cut in sorted(set(cuts)):
        items += run.feed("stderr", stderr[last:cut])
        last = cut
    items += run.feed("stderr", stderr[last:]) + run.close()
    return run, items


def test_markers_become_per_stripe_samples_with_rates_on_server_time():
    _, items = run_of(STDERR)
    stripes = [i for i in items if isinstance(i, ProgressSample) and i.channel]
    assert [(s.channel, s.bytes) for s in stripes] == [
        ("stripe 1", 0), ("stripe 1", 4077387776), ("stripe 0", 4291559424), ("stripe 0", 6442450944),
        ("stripe 1", 6442450944)]
    # Timestamps 662.2 (start) -> 667.2 -> 669.9 for stripe 1: 5.0 s, then 2.7 s.
    assert stripes[1].inst_mib_s == pytest.approx(4077387776 / MIB / 5.0)
    assert stripes[4].inst_mib_s == pytest.approx((6442450944 - 4077387776) / MIB / 2.7, rel=1e-6)
    assert stripes[4].avg_mib_s == pytest.approx(6442450944 / MIB / 7.7, rel=1e-6)
    assert stripes[0].avg_mib_s is None and stripes[2].inst_mib_s is None  # first of their kind
    # guc's own -vb totals are still the run's progress (channel None).
    totals = [i for i in items if isinstance(i, ProgressSample) and i.channel is None]
    assert totals[-1].bytes == 12 * GIB


def test_the_record_keeps_each_stripes_bytes_and_rate():
    run, _ = run_of(STDERR)
    outcome = run.outcome(0, 8.1)
    assert outcome.status == "passed" and outcome.bytes == 12 * GIB
    assert outcome.rate_guc_avg_mib_s == 1606.34  # guc's last average, not a stripe's
    assert outcome.details == {"stripes": {"count": 2, "stripes": [
        {"stripe": 0, "bytes": 6442450944, "markers": 2, "seconds": 7.6, "mib_s": round(6442450944 / MIB / 7.6, 3)},
        {"stripe": 1, "bytes": 6442450944, "markers": 3, "seconds": 7.7, "mib_s": round(6442450944 / MIB / 7.7, 3)},
    ]}}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STDERR)), max_size=10))
def test_samples_do_not_depend_on_chunking(cuts):
    assert run_of(STDERR, cuts)[1] == run_of(STDERR)[1]


def test_other_replies_and_damaged_markers_are_ignored():
    tracker = StripeTracker()
    lines = ["112-Perf Marker", " Timestamp:  12.0", " Stripe Index: x", "112 End.",  # unreadable: skipped
             "211-Extensions supported", " Stripe Index: 3", "211 End.",  # another reply
             "112-Perf Marker", " Timestamp:  13.0", " Stripe Index: 0", " Stripe Bytes Transferred: 5",
             "112 End."]
    samples = [s for line in lines for s in tracker.feed_line(line)]
    assert samples == [ProgressSample(5, None, None, "stripe 0")]
    assert tracker.summary() == {"count": 1, "stripes": [
        {"stripe": 0, "bytes": 5, "markers": 1, "seconds": 0.0, "mib_s": None}]}
    assert StripeTracker().summary() is None
    assert GucRun().outcome(0, 1.0).details == {}  # a transfer without markers has no stripes
    unstriped = GucRun()  # a run not asked for stripes (a connection test's -dbg) ignores markers
    assert [i for i in unstriped.feed("stderr", STDERR) if isinstance(i, ProgressSample)] == []
    assert unstriped.outcome(0, 1.0).details == {}


def test_stripe_true_passes_stripe_and_dbg_and_options_stripe_alone_does_not():
    scenario = load_scenario_text("""\
version: 1
name: s
tests:
  - id: study
    kind: guc
    source: ftp://10.0.0.1:2812/dev/zero
    target: ftp://10.0.0.1:2813/dev/null
    stripe: true
    options: {length: 1G}
  - id: plain
    kind: guc
    source: ftp://10.0.0.1:2812/dev/zero
    target: ftp://10.0.0.1:2813/dev/null
    options: {length: 1G, stripe: true}
""", "s.yaml")
    study, plain = plan(scenario)
    assert study.argv == ("globus-url-copy", "-vb", "-dbg", "-len", "1G", "-stripe", "ftp://10.0.0.1:2812/dev/zero",
                          "ftp://10.0.0.1:2813/dev/null")
    assert plain.argv == ("globus-url-copy", "-vb", "-len", "1G", "-stripe", "ftp://10.0.0.1:2812/dev/zero",
                          "ftp://10.0.0.1:2813/dev/null")  # as tgftp passes it
    assert study.params == plain.params == {"length": 1 << 30, "stripe": True}


def test_the_console_headline_names_each_stripes_rate():
    from gftpwb.core.records import ResultRecord
    from gftpwb.kinds.guc.report import headline

    run, _ = run_of(STDERR)
    outcome = run.outcome(0, 8.0)
    record = ResultRecord(scenario="s", test_id="t", run_id="t/0", case=0, repeat=0, kind="guc", host="local",
                          argv=[], status=outcome.status, seconds=8.0, bytes=outcome.bytes,
                          rate_incl_setup_mib_s=outcome.rate_incl_setup_mib_s,
                          rate_guc_avg_mib_s=outcome.rate_guc_avg_mib_s, details=outcome.details)
    assert headline(record) == ("12.00 GiB in 8.000s  1536.0 MiB/s incl. set-up  1606.3 MiB/s guc avg  2 stripes: "
                                "808.4, 797.9 MiB/s")
