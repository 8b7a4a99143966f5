"""Pure parts of ``hosts check``: clock offset estimation, probe parsing, TCP buffer caps, the report."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from gftpwb.core.clockoffset import ClockOffset, ClockSample, estimate_offset, parse_remote_time, to_controller_time
from gftpwb.core.hostcheck import (
    BufferCaps,
    HostReport,
    ProbeFacts,
    combined_caps,
    guc_version,
    hosts_table,
    human_size,
    parse_probe,
    table_row,
)
from gftpwb.shell.sinks.plain_table import PlainTable

delays = st.floats(min_value=0.0, max_value=0.5, allow_nan=False)


@given(offset=st.floats(min_value=-1e4, max_value=1e4, allow_nan=False),
       legs=st.lists(st.tuples(delays, delays), min_size=1, max_size=10),
       start=st.floats(min_value=1.6e9, max_value=1.9e9))
def test_estimate_is_within_its_uncertainty_of_the_true_offset(offset, legs, start):
    samples = []
    t = start
    for out, back in legs:
        remote = t + out + offset  # the host reads its clock when the request arrives
        samples.append(ClockSample(sent=t, remote=remote, received=t + out + back))
        t += out + back + 0.01
    est = estimate_offset(samples)
    assert abs(est.offset_s - offset) <= est.uncertainty_s + 1e-6
    assert est.uncertainty_s == pytest.approx(min(o + b for o, b in legs) / 2, abs=1e-6)
    assert est.samples == len(legs)


def test_the_shortest_round_trip_wins_and_conversion_undoes_the_offset():
    samples = [ClockSample(100.0, 105.4, 101.0), ClockSample(200.0, 205.01, 200.02), ClockSample(300.0, 305.5, 300.9)]
    est = estimate_offset(samples)
    assert est.offset_s == pytest.approx(5.0) and est.uncertainty_s == pytest.approx(0.01)
    assert to_controller_time(1000.0, est) == pytest.approx(995.0)
    with pytest.raises(ValueError):
        estimate_offset([])
    with pytest.raises(ValueError):
        estimate_offset([ClockSample(2.0, 1.0, 1.0)])  # negative round trip: a clock stepped mid-sample


def test_remote_time_parsing_accepts_date_and_bash_formats():
    assert parse_remote_time("1795309523.639019\n") == pytest.approx(1795309523.639019)
    assert parse_remote_time("1795309523,639019") == pytest.approx(1795309523.639019)  # a comma locale
    for bad in ("", "nan", "date: invalid", "-5"):
        with pytest.raises(ValueError):
            parse_remote_time(bad)


PROBE_OUTPUT = """\
hostname=client7
kernel=6.1.0-18-amd64
guc=10.12
gcc=gcc (Debian 12.2.0-14) 12.2.0
gfapi_headers=no
gfapi_library=yes
net/core/rmem_max=4194304
net/core/wmem_max=212992
net/ipv4/tcp_rmem=4096	131072	33554432
net/ipv4/tcp_wmem=4096 16384 4194304
some login banner line
"""


def test_probe_output_is_parsed_into_facts():
    facts = parse_probe(PROBE_OUTPUT)
    assert (facts.hostname, facts.kernel, facts.guc) == ("client7", "6.1.0-18-amd64", "10.12")
    assert facts.gcc.startswith("gcc (Debian") and (facts.gfapi_headers, facts.gfapi_library) == (False, True)
    assert facts.caps == BufferCaps(4194304, 212992, (4096, 131072, 33554432), (4096, 16384, 4194304))
    empty = parse_probe("guc=\ngcc=\nnet/core/rmem_max=\nnet/ipv4/tcp_rmem=1 2\n")
    assert (empty.guc, empty.gcc, empty.caps) == ("", "", BufferCaps())
    assert guc_version("globus-url-copy: 10.12") == "10.12"


def test_buffer_caps_say_what_a_tcp_bs_becomes():
    caps = parse_probe(PROBE_OUTPUT).caps
    assert caps.explicit_cap() == 212992  # the smaller of rmem_max and wmem_max
    assert caps.effective_tcp_bs(16 << 20) == 212992 and caps.effective_tcp_bs(65536) == 65536
    assert caps.autotune_max() == 4194304
    assert BufferCaps().effective_tcp_bs(1 << 20) == 1 << 20 and BufferCaps().autotune_max() is None
    other = BufferCaps(1 << 20, 8 << 20, (4096, 87380, 6 << 20), None)
    both = combined_caps([caps, other])
    assert both == BufferCaps(1 << 20, 212992, (4096, 87380, 6 << 20), (4096, 16384, 4194304))


def test_report_rows_and_json():
    facts = parse_probe(PROBE_OUTPUT)
    ok = HostReport("c7", "10.0.0.7:22", "ok", facts=facts, clock=ClockOffset(0.0123, 0.0004, 8), seconds=0.51234)
    assert table_row(ok) == ("c7", "10.0.0.7:22", "ok", "10.12", "12.2.0", "library only", "+12.3 ms ±0.4",
                             "4M/208K", "32M/4M")
    data = ok.to_dict()
    assert data["reachable"] and data["authenticated"] and data["guc_version"] == "10.12"
    assert data["clock"] == {"offset_s": 0.0123, "uncertainty_s": 0.0004, "samples": 8}
    assert data["tcp_buffers"]["tcp_rmem"] == (4096, 131072, 33554432) and data["seconds"] == 0.512
    down = HostReport("c8", "10.0.0.8:22", "unreachable", "host c8: connection refused")
    assert down.to_dict()["reachable"] is False and down.to_dict()["authenticated"] is None
    assert table_row(down)[2:4] == ("unreachable", "-")
    refused = HostReport("c9", "x:22", "auth-failed", "login refused")
    assert refused.reachable and refused.authenticated is False and not refused.ok
    assert table_row(HostReport("l", "-", "ok", facts=ProbeFacts()))[3] == "missing"
    assert [human_size(n) for n in (None, 4096, 4 << 20, 1 << 30, 1000)] == ["-", "4K", "4M", "1G", "1000"]


@pytest.mark.parametrize("width", [80, 100, 160])
def test_hosts_table_never_cuts_a_value_in_a_narrow_console(width):
    """rich narrowed every column of the old table alike, cutting versions and clock offsets at 80
    columns; drawn like the report's tables, every value is printed whole at any width."""
    facts = parse_probe(PROBE_OUTPUT)
    reports = [HostReport(f"client-{i}.grid.example.org", f"10.0.0.{i}:22", "ok", facts=facts,
                          clock=ClockOffset(0.0123 * i, 0.0004, 8)) for i in range(1, 4)]
    reports.append(HostReport("c8", "10.0.0.8:22", "unreachable", "host c8: connection refused"))
    out = io.StringIO()
    Console(file=out, width=width, highlight=False, color_system=None).print(
        PlainTable(hosts_table("grid", reports)))
    text = out.getvalue()
    assert "…" not in text and "Hosts of grid" in text
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    for report in reports:
        for cell in table_row(report)[3:]:  # versions, libgfapi, clock offset and buffer caps: whole on a line
            assert any(cell in line for line in lines), (cell, text)
