"""The iperf3 kind's pure parts against output captured from the real iperf3 3.12 of Debian 12
(tests/data/iperf3/): the server's interval reports (live progress), the client's JSON (results),
the RTT probe, argv and the window arithmetic, and how a session judges a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.core.output import ProgressSample, TextLine
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT
from gftpwb.core.units import MIB
from gftpwb.kinds.iperf3.job import Iperf3Job, bdp_window
from gftpwb.kinds.iperf3.result import Iperf3OutputError, parse_json, probe_rtt_s, summarize
from gftpwb.kinds.iperf3.serverlog import ServerLog
from gftpwb.kinds.iperf3.session import Iperf3Session

DATA = Path(__file__).parent / "data" / "iperf3"


def data(name: str) -> bytes:
    return (DATA / name).read_bytes()


def samples(items) -> list[ProgressSample]:
    return [i for i in items if isinstance(i, ProgressSample)]


def feed_all(log: ServerLog, payload: bytes, cuts: list[int] = ()) -> list:
    items, last = [], 0
    for cut in sorted(set(cuts)):
        items += log.feed("stdout", payload[last:cut])
        last = cut
    return items + log.feed("stdout", payload[last:]) + log.close()


# --- the server's interval reports ----------------------------------------------------------------------


def test_server_intervals_become_per_stream_and_total_samples():
    found = samples(feed_all(ServerLog(), data("server_forward.txt")))
    streams = [s for s in found if s.channel is not None]
    totals = [s for s in found if s.channel is None]
    # Three intervals (one omitted) of two streams: six stream samples and three totals.
    assert [s.channel for s in streams] == ["stream 1", "stream 2"] * 3
    assert len(totals) == 3
    assert streams[0].bytes == 602 * MIB and streams[0].inst_mib_s == pytest.approx(602.0)
    # Cumulative per stream, the omitted second included: 602 + 532 + 411 MBytes over 1 + 1 + 1.01 s.
    assert streams[4].bytes == (602 + 532 + 411) * MIB
    assert streams[4].avg_mib_s == pytest.approx((602 + 532 + 411) / 3.01)
    # The total is the sum of the streams, its instantaneous rate the interval's sum.
    assert totals[-1].bytes == streams[4].bytes + streams[5].bytes
    assert totals[-1].inst_mib_s == pytest.approx((411 + 402) / 1.01)
    assert totals[0].inst_mib_s == pytest.approx(602 + 594)  # not from the [SUM] line (1.17 GBytes)


def test_reverse_intervals_with_retransmit_columns_parse_and_summary_lines_do_not():
    found = samples(feed_all(ServerLog(), data("server_reverse.txt")))
    assert {s.channel for s in found} == {"stream 1", "stream 2", None}
    text = data("server_reverse.txt").decode()
    last_interval_end = max(float(line.split()[2].split("-")[1]) for line in text.splitlines()
                            if line.startswith("[  5]") and "sec" in line and "sender" not in line)
    assert max(s.bytes for s in found if s.channel == "stream 1") > 0
    assert all(s.avg_mib_s is not None for s in found)
    assert last_interval_end == pytest.approx(2.0, abs=0.1)


def test_a_probe_before_the_test_gives_no_samples_of_its_own():
    log = ServerLog(main_test=2)
    found = samples(feed_all(log, data("server_probe_then_test.txt")))
    assert log.listening == 3
    # Only the second test's three streams (-P 3 in the capture) report.
    assert {s.channel for s in found} == {"stream 1", "stream 2", "stream 3", None}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=1500), max_size=12))
def test_server_log_items_do_not_depend_on_chunking(cuts):
    payload = data("server_forward.txt")
    assert feed_all(ServerLog(), payload, cuts) == feed_all(ServerLog(), payload)


def test_server_errors_are_collected_and_every_line_is_text():
    log = ServerLog()
    items = feed_all(log, b"iperf3: error - unable to start listener for connections: Address already in use\n"
                          b"iperf3: exiting\n")
    assert log.address_in_use and log.listening == 0
    assert [i.text for i in items if isinstance(i, TextLine)] == [
        "server: iperf3: error - unable to start listener for connections: Address already in use",
        "server: iperf3: exiting"]


# --- the client's JSON --------------------------------------------------------------------------------


def test_client_json_gives_totals_streams_retransmits_and_omitted_bytes():
    raw = json.loads(data("client_forward.json"))
    result = summarize(parse_json(data("client_forward.json").decode()))
    assert result.received_bytes == raw["end"]["sum_received"]["bytes"]
    assert result.received_mib_s == pytest.approx(raw["end"]["sum_received"]["bits_per_second"] / 8 / MIB, abs=1e-3)
    omitted = [i["sum"]["bytes"] for i in raw["intervals"] if i["sum"]["omitted"]]
    assert len(omitted) == 1 and result.omitted_bytes == omitted[0]
    streams = result.figures["streams"]
    assert [s["stream"] for s in streams] == [1, 2]
    assert sum(s["received_bytes"] for s in streams) == result.received_bytes
    assert result.figures["retransmits"] == raw["end"]["sum_sent"]["retransmits"]
    assert streams[0]["min_rtt_ms"] == raw["end"]["streams"][0]["sender"]["min_rtt"] / 1000


def test_reverse_json_keeps_the_servers_retransmits():
    raw = json.loads(data("client_reverse.json"))
    result = summarize(parse_json(data("client_reverse.json").decode()))
    assert raw["start"]["test_start"]["reverse"] == 1
    assert result.figures["retransmits"] == raw["end"]["sum_sent"]["retransmits"]
    assert result.figures["streams"][0]["min_rtt_ms"] is None  # the receiving client sees no RTT


def test_an_error_in_the_json_is_the_failure_even_with_exit_status_0():
    with pytest.raises(Iperf3OutputError, match="unable to connect to server: Connection refused"):
        parse_json(data("client_refused.json").decode())
    with pytest.raises(Iperf3OutputError, match="no JSON"):
        parse_json("")
    with pytest.raises(Iperf3OutputError, match="incomplete"):
        parse_json(data("client_forward.json").decode()[:300])


def test_probe_rtt_is_the_smallest_sender_rtt_in_seconds():
    raw = json.loads(data("probe.json"))
    assert probe_rtt_s(data("probe.json").decode()) == raw["end"]["streams"][0]["sender"]["min_rtt"] / 1e6
    with pytest.raises(Iperf3OutputError, match="no RTT"):
        probe_rtt_s(data("client_reverse.json").decode())


# --- argv and the window --------------------------------------------------------------------------------


def test_bdp_window_divides_the_product_among_streams():
    # 400 Mbit/s x 60 ms = 3,000,000 bytes; over 4 streams 750,000 each.
    bandwidth = 400e6 / 8 / MIB
    assert bdp_window(bandwidth, 0.060, 1) == 3_000_000
    assert bdp_window(bandwidth, 0.060, 4) == 750_000
    assert bdp_window(bandwidth, 1e-9, 8) == 1


def test_argv_of_server_client_and_probe():
    job = Iperf3Job(client="h1", server="h2", server_address="10.0.0.3", streams=4, window="bdp",
                    bandwidth_mib_s=400e6 / 8 / MIB, duration_s=10, reverse=True, omit_s=2)
    assert job.needs_probe
    assert job.server_argv(5201) == ["iperf3", "-s", "-p", "5201", "--forceflush"]  # serves the probe too
    assert job.client_argv(5201, 750_000) == ["iperf3", "-c", "10.0.0.3", "-p", "5201", "-J", "-P", "4", "-w",
                                              "750000", "-t", "10", "-R", "-O", "2"]
    assert job.probe_argv(5201) == ["iperf3", "-c", "10.0.0.3", "-p", "5201", "-J", "-t", "1"]
    assert job.display_argv()[-9:] == ("-P", "4", "-w", "<bdp>", "-t", "10", "-R", "-O", "2")
    fixed = Iperf3Job(client="local", server="local", server_address="127.0.0.1", port=6000, bytes=1 << 30)
    assert fixed.server_argv(6000) == ["iperf3", "-s", "-p", "6000", "-1", "--forceflush"]
    assert fixed.display_argv() == ("iperf3", "-c", "127.0.0.1", "-p", "6000", "-J", "-P", "1", "-n", "1073741824")
    assert Iperf3Job.from_params(job.to_params()) == job


# --- the session's judgement ----------------------------------------------------------------------------


def finished_session(client_json: bytes, **job) -> Iperf3Session:
    session = Iperf3Session(Iperf3Job(client="local", server="local", server_address="127.0.0.1", **job))
    session.port, session.server_argv = 5311, ["iperf3", "-s", "-p", "5311", "-1", "--forceflush"]
    session.client_argv = ["iperf3", "-c", "127.0.0.1", "-p", "5311", "-J"]
    session.feed_server("stdout", data("server_forward.txt"))
    session.feed_client("stdout", client_json)
    session.client_seconds = 3.0
    return session


def test_a_finished_run_passes_with_iperf3s_rate_and_the_rate_incl_setup():
    raw = json.loads(data("client_forward.json"))
    outcome = finished_session(data("client_forward.json"), omit_s=1).outcome(0, 3.5)
    assert outcome.status == PASSED
    assert outcome.bytes == raw["end"]["sum_received"]["bytes"]
    moved = raw["end"]["sum_received"]["bytes"] + raw["intervals"][0]["sum"]["bytes"]
    assert outcome.rate_incl_setup_mib_s == pytest.approx(moved / MIB / 3.0)
    assert outcome.details["iperf3"]["port"] == 5311
    assert "# server on local: iperf3 -s -p 5311" in outcome.output and '"sum_received"' in outcome.output


def test_failures_timeouts_and_interruptions_are_judged_in_that_order():
    refused = finished_session(data("client_refused.json")).outcome(0, 1.0)
    assert refused.status == FAILED and "Connection refused" in refused.error
    assert finished_session(data("client_forward.json")).outcome(1, 1.0).status == FAILED
    timeout = finished_session(b"").outcome(None, 5.0, timed_out=True, timeout_s=5)
    assert timeout.status == TIMEOUT and "client and server were stopped" in timeout.error
    assert finished_session(b"").outcome(None, 5.0, interrupted=True).status == INTERRUPTED
    started = finished_session(b"").outcome(None, 0.1, start_error="the iperf3 server on local did not start")
    assert started.status == FAILED and started.error.startswith("the iperf3 server")
