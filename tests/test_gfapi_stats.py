"""Aggregation of gfapi results: sums that add up, stonewalled figures, skew, interpolation."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.kinds.gfapi.latency import Histogram
from gftpwb.kinds.gfapi.stats import NS, ThreadResult, summarize

MIB = 1024 * 1024


@st.composite
def thread_results(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    threads = []
    for i in range(n):
        host = draw(st.sampled_from(["c1", "c2", "local"]))
        process = draw(st.integers(min_value=0, max_value=2))
        started = draw(st.booleans()) or i == 0
        start = draw(st.integers(min_value=10**18, max_value=10**18 + 5 * 10**7)) if started else None
        elapsed = draw(st.integers(min_value=1, max_value=5 * NS)) if started else 0
        files, ios, nbytes = (draw(st.integers(min_value=0, max_value=10**6)) for _ in range(3))
        samples = []
        if started:
            for _ in range(draw(st.integers(min_value=0, max_value=5))):
                f = draw(st.floats(min_value=0, max_value=1))
                samples.append((max(1, int(elapsed * f)), int(files * f), int(ios * f), int(nbytes * f)))
            samples.sort()
        latency = {}
        for op in draw(st.lists(st.sampled_from(["open", "write", "close", "file"]), unique=True)):
            h = Histogram()
            for ns in draw(st.lists(st.integers(min_value=0, max_value=10**8), max_size=20)):
                h.record(ns)
            latency[op] = h
        status = draw(st.sampled_from(["ok", "ok", "failed", "stopped"])) if started else "not-started"
        threads.append(ThreadResult(host=host, process=process, thread=i, status=status, start_ns=start,
                                    elapsed_ns=elapsed, files=files, ios=ios, bytes=nbytes, samples=samples,
                                    latency=latency, requested_files=files + 10, requested_ios=ios + 10,
                                    requested_bytes=nbytes + 10))
    return threads


@settings(max_examples=100)
@given(thread_results())
def test_aggregates_equal_the_sum_of_the_per_thread_records(threads):
    s = summarize(threads)
    for key in ("files", "ios", "bytes"):
        total = sum(getattr(t, key) for t in threads)
        assert s["cluster"][key] == total
        assert sum(h[key] for h in s["hosts"].values()) == total
        assert sum(p[key] for p in s["processes"]) == total
        assert sum(row[key] for row in s["threads"]) == total
    assert s["cluster"]["threads"] == len(threads) == len(s["threads"])
    for op, summary in s["cluster"]["latency"].items():
        assert summary["count"] == sum(t.latency[op].count for t in threads if op in t.latency)
        assert s["latency_histograms"][op]["count"] == summary["count"]
    starts = [t.start_ns for t in threads if t.start_ns is not None]
    assert s["start_skew_ms"] == round((max(starts) - min(starts)) / 1e6, 3)


@settings(max_examples=100)
@given(thread_results())
def test_first_done_never_exceeds_last_done(threads):
    cluster = summarize(threads)["cluster"]
    last, first = cluster["last_done"], cluster["first_done"]
    if not any(t.status == "ok" for t in threads):
        assert first is None
        return
    assert first["seconds"] <= last["seconds"]
    for key in ("files", "ios", "bytes"):
        assert first[key] <= last[key] + 1e-6
    assert 0 <= first["pct_done"] <= 100


def test_stonewalled_and_last_done_rates_of_a_known_run():
    # Two threads start together; a does 100 MiB in 1 s, b 100 MiB in 2 s at a steady pace.
    t0 = 10**18
    a = ThreadResult("c1", 0, 0, "ok", start_ns=t0, elapsed_ns=NS, files=100, ios=1600, bytes=100 * MIB,
                     samples=[(NS // 2, 50, 800, 50 * MIB)], requested_files=100, requested_ios=1600,
                     requested_bytes=100 * MIB)
    b = ThreadResult("c2", 0, 0, "ok", start_ns=t0, elapsed_ns=2 * NS, files=100, ios=1600, bytes=100 * MIB,
                     samples=[(NS, 50, 800, 50 * MIB)], requested_files=100, requested_ios=1600,
                     requested_bytes=100 * MIB)
    s = summarize([a, b])
    c = s["cluster"]
    assert c["last_done"] == {"seconds": 2.0, "files": 200, "ios": 3200, "bytes": 200 * MIB, "mib_s": 100.0,
                              "files_s": 100.0, "iops": 1600.0}
    assert c["first_done"] == {"seconds": 1.0, "files": 150.0, "ios": 2400.0, "bytes": 150 * MIB, "mib_s": 150.0,
                               "files_s": 150.0, "iops": 2400.0, "pct_done": 75.0}
    assert s["hosts"]["c2"]["last_done"]["mib_s"] == 50.0
    assert [row["at_first_done"]["files"] for row in s["threads"]] == [100.0, 50.0]
    assert s["start_skew_ms"] == 0.0


def test_start_skew_and_offsets_are_relative_to_the_first_start():
    t0 = 10**18
    threads = [ThreadResult("c1", 0, i, "ok", start_ns=t0 + i * 1_500_000, elapsed_ns=NS, files=1, ios=1, bytes=1)
               for i in range(3)]
    s = summarize(threads)
    assert s["start_skew_ms"] == 3.0
    assert [row["start_offset_ms"] for row in s["threads"]] == [0.0, 1.5, 3.0]


def test_interpolation_between_samples():
    t = ThreadResult("h", 0, 0, "ok", start_ns=1000, elapsed_ns=400, files=40, ios=400, bytes=4000,
                     samples=[(100, 10, 100, 1000), (300, 20, 200, 2000)])
    assert t.counters_at(1000) == (0.0, 0.0, 0.0)
    assert t.counters_at(1050) == pytest.approx((5.0, 50.0, 500.0))
    assert t.counters_at(1200) == pytest.approx((15.0, 150.0, 1500.0))
    assert t.counters_at(1350) == pytest.approx((30.0, 300.0, 3000.0))
    assert t.counters_at(5000) == (40.0, 400.0, 4000.0)


def test_unlink_work_is_counted_in_files():
    t = ThreadResult("h", 0, 0, "ok", start_ns=0, elapsed_ns=NS, files=500, requested_files=500)
    cluster = summarize([t])["cluster"]
    assert cluster["last_done"]["files_s"] == 500.0 and cluster["first_done"]["pct_done"] == 100.0


def test_nobody_started():
    s = summarize([ThreadResult("h", 0, 0, "not-started", error="glfs_init failed")])
    assert s["cluster"]["last_done"] is None and s["start_skew_ms"] is None
    assert s["threads"][0]["status"] == "not-started" and s["processes"][0]["status"] == "failed"
