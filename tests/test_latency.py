"""Latency histograms: bucket maths, merging, and percentiles that stay within a bucket of the truth."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gftpwb.kinds.gfapi.latency import NBUCKETS, Histogram, bucket_bounds, bucket_of, nearest_rank

latencies = st.integers(min_value=0, max_value=1 << 42)


@given(latencies)
def test_every_value_lies_in_its_bucket_and_buckets_are_at_most_6_25_percent_wide(ns):
    index = bucket_of(ns)
    low, high = bucket_bounds(index)
    if index < NBUCKETS - 1:
        assert low <= ns < high
        assert (high - low) <= max(1, low / 16)
    else:
        assert ns >= low


@given(latencies, latencies)
def test_buckets_are_ordered_like_values(a, b):
    if a <= b:
        assert bucket_of(a) <= bucket_of(b)


def test_bucket_edges():
    assert [bucket_of(v) for v in (0, 1, 15, 16, 17, 31, 32, 34)] == [0, 1, 15, 16, 17, 31, 32, 33]
    assert bucket_bounds(32) == (32, 34)
    assert bucket_of(1 << 45) == NBUCKETS - 1
    with pytest.raises(ValueError):
        bucket_bounds(NBUCKETS)


sample_lists = st.lists(st.lists(st.integers(min_value=0, max_value=10**10), min_size=0, max_size=60),
                        min_size=1, max_size=6)


@given(sample_lists, st.sampled_from([1, 10, 50, 90, 99, 99.9, 100]))
def test_percentile_of_merged_thread_histograms_lies_in_the_bucket_of_the_raw_percentile(threads, p):
    histograms = []
    for samples in threads:
        h = Histogram()
        for ns in samples:
            h.record(ns)
        histograms.append(h)
    merged = Histogram.merged(histograms)
    everything = [ns for samples in threads for ns in samples]
    if not everything:
        assert merged.percentile(p) is None
        return
    raw = nearest_rank(everything, p)
    estimate = merged.percentile(p)
    low, high = bucket_bounds(bucket_of(raw))
    assert low <= estimate < high or (bucket_of(raw) == NBUCKETS - 1 and estimate >= low)
    assert estimate <= max(everything)
    assert merged.count == len(everything) == sum(merged.buckets.values())
    assert merged.sum_ns == sum(everything) and merged.max_ns == max(everything)


@given(st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=50))
def test_deltas_add_up_like_raw_samples_and_survive_json(samples):
    direct = Histogram()
    for ns in samples:
        direct.record(ns)
    via_deltas = Histogram()
    half = len(samples) // 2
    for part in (samples[:half], samples[half:]):
        buckets: dict[int, int] = {}
        for ns in part:
            buckets[bucket_of(ns)] = buckets.get(bucket_of(ns), 0) + 1
        via_deltas.add_delta(len(part), sum(part), max(part, default=0), buckets)
    assert via_deltas == direct
    assert Histogram.from_json(direct.to_json()) == direct


def test_summary_in_microseconds():
    h = Histogram()
    for ns in (1000, 2000, 3000, 100_000):
        h.record(ns)
    s = h.summary_us()
    assert s["count"] == 4 and s["max_us"] == 100.0 and s["mean_us"] == 26.5
    assert 1.9 < s["p50_us"] < 2.1 and s["p99_us"] == 100.0  # clamped to the exact maximum
