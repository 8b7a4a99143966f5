"""A WAN link's settings, pure: what the options mean, the shaper's queue, the line's settings file,
which links a run crossed; and the delay line's C source builds without a warning."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, seed
from hypothesis import strategies as st
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.wanlink import (
    LinkSettings,
    links_on_path,
    parse_link_option,
    parse_tc_rate,
    plan_links,
)
from gftpwb.shell.cbuild import CFLAGS
from gftpwb.shell.lab.wan import DELAYLINE


def test_settings_as_typed():
    link = LinkSettings().changed({"rtt": "60ms", "loss": "0.01%", "rate": "1gbit", "jitter": "1ms"})
    assert (link.rtt_s, link.loss, link.rate, link.jitter_s, link.mtu) == (0.060, 0.0001, "1gbit", 0.001, 9000)
    assert link.describe() == "RTT 60 ms, jitter ±1 ms, loss 0.01 %, rate 1gbit, MTU 9000"
    # 1 Gbit/s x 60 ms = 7.5 MB: the shaper's queue on each end
    assert link.bdp_bytes() == link.queue_bytes() == 7_500_000
    assert link.tbf() == ["tbf", "rate", "1gbit", "burst", str(125_000 + 1024), "limit", "7500000"]
    assert not link.offload  # lossy: every segment crosses on its own
    assert link.line_settings(3, 1 << 20) == ("delay_us = 30000.000\njitter_us = 1000.000\nloss = 0.0001\n"
                                              "seed = 3\nbuffer_bytes = 1048576\n")
    assert LinkSettings.from_dict(link.to_dict()) == link


def test_a_small_bdp_still_queues_a_few_packets_and_unshaped_has_no_shaper():
    small = LinkSettings(rtt_s=0.001, rate="10mbit")
    assert small.bdp_bytes() == 1250 and small.queue_bytes() == 8 * 65536
    assert LinkSettings(rtt_s=0.06).tbf() == [] and LinkSettings(rtt_s=0.06).offload


@pytest.mark.parametrize(("values", "message"), [
    ({"rtt": "11s"}, "longer than 10 s"),
    ({"loss": "100%"}, "a share below 100 %"),
    ({"rate": "1gb/s"}, "bad rate '1gb/s'"),
    ({"mtu": "100"}, "bad MTU '100'"),
    ({"rtt": "2ms", "jitter": "3ms"}, "jitter 3 ms is more than the one-way delay (1 ms)"),
    ({"delay": "1ms"}, "unknown link setting 'delay'"),
])
def test_bad_settings_say_what_is_wrong(values, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        LinkSettings().changed(values)


def test_rates_as_tc_writes_them():
    assert parse_tc_rate("400mbit") == 400e6 and parse_tc_rate("1gbit") == 1e9 and parse_tc_rate("100mbps") == 800e6
    assert LinkSettings(rate="1gbit").changed({"rate": "none"}).rate == ""


def test_every_pair_and_one_pair_of_its_own():
    links = plan_links(["h1", "h2", "h3"], LinkSettings(rtt_s=0.06), {("h1", "h3"): {"rtt": "10ms"}})
    assert list(links) == [("h1", "h2"), ("h1", "h3"), ("h2", "h3")]
    assert links[("h1", "h3")].rtt_s == 0.010 and links[("h2", "h3")].rtt_s == 0.060
    assert list(plan_links(["h1", "h2", "h3"], None, {("h2", "h3"): {"rtt": "5ms"}})) == [("h2", "h3")]
    assert parse_link_option("h3-h1:rtt=60ms, loss=0.1%") == (("h1", "h3"), {"rtt": "60ms", "loss": "0.1%"})
    for bad in ("h1", "h1-h1", "a-b:rtt=1ms", "h1-h2:rtt"):
        with pytest.raises(ValueError):
            parse_link_option(bad)


def test_the_links_a_run_crossed():
    link = {"name": "h1-h2", "ends": [{"address": "10.0.0.2", "device": "gw1-w1-2"},
                                      {"address": "10.0.0.3", "device": "gw1-w1-2"}]}
    assert links_on_path([link], {"10.0.0.3"}, {"gw1-w1-2"}) == [link]  # routed through it
    assert links_on_path([link], {"10.0.0.2", "10.0.0.3"}, {"gw1-br"}) == [link]  # third party between its ends
    assert links_on_path([link], {"10.0.0.3"}, {"gw1-br"}) == []  # the controller to one host: the bridge


@given(rtt_ms=st.integers(0, 10_000), rate_mbit=st.integers(1, 100_000), loss=st.integers(0, 9999))
@seed(FUZZ_SEED)
def test_the_queue_holds_the_bdp_and_a_packet_fits_the_bucket(rtt_ms, rate_mbit, loss):
    say_seed()
    link = LinkSettings(rtt_s=rtt_ms / 1000, rate=f"{rate_mbit}mbit", loss=loss / 10000)
    queue, burst = link.queue_bytes(), link.burst_bytes()
    assert queue is not None and burst is not None
    assert queue >= link.bdp_bytes() and burst > (65536 if link.offload else link.mtu)


def test_the_delay_line_compiles_without_warnings(tmp_path):
    source = tmp_path / DELAYLINE.source
    source.write_bytes(DELAYLINE.source_bytes())
    out = subprocess.run(["cc", *CFLAGS, "-o", str(tmp_path / "line"), str(source)], capture_output=True, text=True)
    assert (out.returncode, out.stdout + out.stderr) == (0, "")
    version = subprocess.run([str(tmp_path / "line"), "--version"], capture_output=True, text=True)
    assert version.stdout.startswith(DELAYLINE.version_prefix)
