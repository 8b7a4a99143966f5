"""Monitors, the pure parts: the /proc, ss and command-output parsers (hypothesis: what
the kernel, ss or a command prints reads back), the sampler's stream in chunks of any size, the
readers' rates, the summary of samples per run, host clocks, the DSL and the plan; and the sampler
script run by the real /bin/sh on this machine."""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.sampler_readings import read_until
from support.sampler_readings import readings as sampler_readings

from gftpwb.core.clockoffset import ClockOffset
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.dsl.schema import build_schema
from gftpwb.core.errors import ScenarioError
from gftpwb.core.monitors.keys import MONITOR_KEYS
from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.numbers import parse_command_values
from gftpwb.core.monitors.plan import control_ports, probes_by_host
from gftpwb.core.monitors.procfs import (
    CpuTimes,
    DiskCounters,
    NetCounters,
    parse_cpu_line,
    parse_diskstats,
    parse_loadavg,
    parse_meminfo,
    parse_net_dev,
)
from gftpwb.core.monitors.readers import CpuReader, DiskReader, NetReader, TcpReader, reader_for
from gftpwb.core.monitors.report import monitors_table
from gftpwb.core.monitors.sampler import (
    ClockLine,
    Probe,
    Reading,
    SamplerStream,
    parse_clock_line,
    sampler_command,
    sampler_script,
)
from gftpwb.core.monitors.ss import TcpSocket, parse_ss, tcp_info_items
from gftpwb.core.monitors.summary import Span, SummaryBook, directory_monitors, figures_to_dict, summarize
from gftpwb.core.monitors.timeline import ClockMap, HostClock
from gftpwb.core.specs import RunSpec
from gftpwb.shell.monitors import host_program

ROOT = Path(__file__).resolve().parent.parent
counters = st.integers(min_value=0, max_value=2**64 - 1)
names = st.from_regex(r"[a-z][a-z0-9_-]{0,10}", fullmatch=True)

# --- /proc ------------------------------------------------------------------------------------------


@given(st.lists(counters, min_size=8, max_size=8), st.lists(counters, max_size=2))
def test_the_cpu_line_of_proc_stat_reads_back(values, guest):
    times = CpuTimes(*values)
    line = "cpu  " + " ".join(str(v) for v in [*values, *guest])
    assert parse_cpu_line(line) == times


@given(st.tuples(*[st.decimals(0, 999, places=2)] * 3), st.integers(0, 9999), st.integers(0, 99999))
def test_loadavg_reads_back(loads, running, tasks):
    avg = parse_loadavg(f"{loads[0]} {loads[1]} {loads[2]} {running}/{tasks} 12345")
    assert (avg.load1, avg.load5, avg.load15, avg.running, avg.tasks) == (
        float(loads[0]), float(loads[1]), float(loads[2]), running, tasks)


@given(st.dictionaries(st.from_regex(r"[A-Z][A-Za-z_()]{0,14}", fullmatch=True), st.integers(0, 2**40),
                       min_size=1, max_size=20))
def test_meminfo_reads_back_in_bytes(entries):
    entries = {"MemTotal": 1000, **entries}
    text = "".join(f"{name + ':':<16}{value:>10} kB\n" for name, value in entries.items()) + "HugePages_Total:  3\n"
    info = parse_meminfo(text.splitlines())
    assert info == {**{k: v * 1024 for k, v in entries.items()}, "HugePages_Total": 3}


net_counters = st.builds(NetCounters, *[counters] * 8)


@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9@.-]{0,14}", fullmatch=True), net_counters, max_size=6))
def test_proc_net_dev_reads_back_even_when_a_counter_touches_the_colon(interfaces):
    lines = ["Inter-|   Receive                                                |  Transmit",
             " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls "
             "carrier compressed"]
    for name, c in interfaces.items():
        lines.append(f"{name:>6}:{c.rx_bytes:8d} {c.rx_packets:7d} {c.rx_errs:4d} {c.rx_drop:4d}    0     0          0 "
                     f"        0 {c.tx_bytes:8d} {c.tx_packets:7d} {c.tx_errs:4d} {c.tx_drop:4d}    0     0       0    "
                     "      0")
    assert parse_net_dev(lines) == interfaces


@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True), st.lists(counters, min_size=17,
                                                                                       max_size=17), max_size=6))
def test_proc_diskstats_reads_back(devices):
    lines = [f"   8       0 {name} " + " ".join(str(v) for v in values) for name, values in devices.items()]
    got = parse_diskstats(lines)
    assert got == {name: DiskCounters(reads=v[0], read_sectors=v[2], read_ms=v[3], writes=v[4], write_sectors=v[6],
                                      write_ms=v[7], in_flight=v[8], io_ms=v[9], weighted_ms=v[10])
                   for name, v in devices.items()}


@pytest.mark.parametrize(("parser", "text"), [
    (lambda t: parse_cpu_line(t), "intr 1 2 3"),
    (lambda t: parse_cpu_line(t), "cpu  1 2 x 4"),
    (lambda t: parse_loadavg(t), "0.1 0.2"),
    (lambda t: parse_meminfo(t.splitlines()), "Cached: lots kB"),
    (lambda t: parse_net_dev(t.splitlines()), "eth0: 1 2 3"),
    (lambda t: parse_diskstats(t.splitlines()), "8 0 sda 1 2"),
    (lambda t: parse_cpu_line(t), "cpu  ² 2 3 4"),
])
def test_what_is_not_the_kernels_format_is_refused(parser, text):
    with pytest.raises(ValueError):
        parser(text)


# --- ss -----------------------------------------------------------------------------------------------

addresses = st.one_of(st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str))
sockets = st.builds(
    TcpSocket, local=addresses, local_port=st.integers(1, 65535), peer=addresses, peer_port=st.integers(1, 65535),
    processes=st.lists(st.sampled_from(["globus-url-copy", "globus-gridftp-", "sshd", "glusterfsd"]), max_size=2,
                       unique=True).map(tuple),
    cwnd=st.one_of(st.none(), st.integers(1, 10**6)),
    rtt_ms=st.one_of(st.none(), st.decimals(0, 10**4, places=3).map(float)),
    retrans_total=st.integers(0, 10**6), bytes_retrans=st.integers(0, 2**48),
    delivery_rate_bps=st.one_of(st.none(), st.integers(0, 10**12).map(float)),
    bytes_acked=st.integers(0, 2**48), bytes_received=st.integers(0, 2**48))


def ss_text(items: list[TcpSocket], *, state_column: bool, one_line: bool) -> str:
    """What ``ss -tinp [state established]`` (or with -O) prints for these sockets."""
    def address(host: str, port: int) -> str:
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    out = [("State  " if state_column else "") + "Recv-Q Send-Q Local Address:Port Peer Address:Port Process"]
    for s in items:
        users = ",".join(f'("{p}",pid={100 + i},fd={5 + i})' for i, p in enumerate(s.processes))
        head = ("ESTAB  " if state_column else "") + f"0      0      {address(s.local, s.local_port)} " \
            f"{address(s.peer, s.peer_port)} " + (f"users:({users})" if users else "")
        info = ["bbr", "wscale:10,10", "rto:204"]
        if s.rtt_ms is not None:
            info.append(f"rtt:{s.rtt_ms}/0.131")
        info += ["ato:40", "mss:32768"]
        if s.cwnd is not None:
            info.append(f"cwnd:{s.cwnd}")
        info += [f"bytes_sent:{s.bytes_acked}", f"bytes_retrans:{s.bytes_retrans}", f"bytes_acked:{s.bytes_acked}",
                 f"bytes_received:{s.bytes_received}", "send 291271111111bps", "pacing_rate 832409595032bps"]
        if s.delivery_rate_bps is not None:
            info.append(f"delivery_rate {s.delivery_rate_bps:.0f}bps")
        info += ["app_limited", f"retrans:0/{s.retrans_total}", "rcv_space:65483", "minrtt:0.007"]
        out += [head + " " + " ".join(info)] if one_line else [head, "\t " + " ".join(info) + "   "]
    return "\n".join(out) + "\n"


@settings(max_examples=200)
@given(st.lists(sockets, max_size=6), st.booleans(), st.booleans())
def test_ss_output_reads_back(items, state_column, one_line):
    assert parse_ss(ss_text(items, state_column=state_column, one_line=one_line).splitlines()) == items


# What the tcp_info items are (the parser's first form, with a look-behind): the faster form must find
# the same items in any text, padding and look-alikes (minrtt:, mrtt:, bytes_retrans:) included.
_INFO_SPEC = re.compile(r"(?<!\S)(cwnd|rtt|retrans|bytes_retrans|bytes_acked|bytes_received):(\S+)"
                        r"|(?<!\S)delivery_rate (\S+)")
info_words = st.sampled_from(["cwnd:10", "rtt:0.5/0.2", "minrtt:0.1", "bbr:(bw:1bps,mrtt:0.2)", "retrans:0/9",
                              "bytes_retrans:77", "bytes_acked:5", "bytes_received:6", "delivery_rate", "12bps",
                              "send", "x:rtt:1", "cwnd:", "rtt:", ":", "users:((\"a\",pid=1,fd=2))"])


@settings(max_examples=300)
@given(st.lists(st.tuples(info_words, st.sampled_from([" ", "  ", "\t", "\t ", ""])), max_size=12),
       st.sampled_from(["", " ", "\t ", "   "]), st.sampled_from(["", " ", "      "]))
def test_the_tcp_info_items_are_found_as_the_look_behind_form_finds_them(words, lead, padding):
    text = lead + "".join(word + gap for word, gap in words) + padding
    assert tcp_info_items(text) == _INFO_SPEC.findall(text)


def test_ss_reads_the_real_output_of_a_guc_transfer():
    text = textwrap.dedent("""\
        0       0            127.0.0.1:54930      127.0.0.1:38893 users:(("globus-gridftp-",pid=11640,fd=11))
        \t bbr wscale:10,10 rto:204 rtt:1.015/1.554 mss:65483 pmtu:65535 rcvmss:536 advmss:65483 cwnd:30 ssthresh:18 bytes_sent:852485066 bytes_retrans:199655 bytes_acked:852285412 segs_out:15369 segs_in:2888 data_segs_out:15367 bbr:(bw:43057306936bps,mrtt:0.001,pacing_gain:1,cwnd_gain:2) send 15483665025bps lastrcv:1472 pacing_rate 42626733872bps delivery_rate 1126051104bps delivered:15367 busy:896ms rwnd_limited:64ms(7.1%) retrans:0/9 dsack_dups:8 reordering:34 reord_seen:4 rcv_space:65495 rcv_ssthresh:65495 minrtt:0.001 snd_wnd:30053376
        0       0            [::1]:2811      [::ffff:10.0.0.2]:50242 users:(("globus-url-copy",pid=11611,fd=7))
        \t cubic rtt:0.135/0.131 cwnd:18 send 1.2Mbps delivery_rate 2.5Gbps
    """)  # noqa: E501
    first, second = parse_ss(text.splitlines())
    assert (first.local_port, first.peer_port, first.processes, first.cwnd, first.rtt_ms, first.retrans_total,
            first.bytes_retrans, first.delivery_rate_bps) == (54930, 38893, ("globus-gridftp-",), 30, 1.015, 9, 199655,
                                                              1126051104.0)
    assert (second.local, second.peer, second.delivery_rate_bps) == ("::1", "::ffff:10.0.0.2", 2.5e9)


# --- a command's numbers -----------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15)


@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,12}", fullmatch=True).filter(
           lambda n: not n.startswith("value")), finite, max_size=5),
       st.lists(finite, max_size=3), st.sampled_from(["{} {}", "{}={}", "{}: {}", "{}\t{}"]), st.randoms())
def test_a_commands_numbers_read_back(named, bare, style, rnd):
    lines = [style.format(name, repr(value)) for name, value in named.items()]
    lines += [repr(value) for value in bare]
    lines += ["some header", "status: ok"]
    rnd.shuffle(lines)
    if not named and not bare:
        with pytest.raises(ValueError, match="no number"):
            parse_command_values("\n".join(lines))
        return
    got = parse_command_values("\n".join(lines))
    order = [float(line) for line in lines if line in {repr(v) for v in bare}]
    expected_bare = {("value" if i == 0 else f"value{i + 1}"): v for i, v in enumerate(order)}
    assert got == {**named, **expected_bare}


def test_a_command_without_numbers_is_an_error_naming_its_output():
    with pytest.raises(ValueError, match="no number in the output: 'permission denied'"):
        parse_command_values("permission denied\n")
    with pytest.raises(ValueError, match="no output"):
        parse_command_values("")
    assert parse_command_values("nan\ninf\n12\n") == {"value": 12.0}


# --- the sampler's stream ------------------------------------------------------------------------------

NONCE = "a1b2c3"
raw_lines = st.lists(st.text(st.characters(blacklist_categories=["Cs", "Cc"]), max_size=30).map(str.rstrip)
                     .filter(lambda t: t.strip() != ""), max_size=5)
readings = st.lists(st.builds(Reading, index=st.integers(0, 9), uptime_cs=st.integers(1, 10**9),
                              lines=raw_lines.map(tuple), status=st.integers(0, 255)), max_size=8)


def render(clock: ClockLine, items: list[Reading], nonce: str = NONCE) -> bytes:
    out = [f"@gftpwb-clock {nonce} {clock.before_cs} {clock.epoch:.9f} {clock.after_cs}"]
    for r in items:
        out += [f"@gftpwb-s {nonce} {r.index} {r.uptime_cs}", *r.lines, "", f"@gftpwb-e {nonce} {r.index} {r.status}"]
    return ("\n".join(out) + "\n").encode()


@settings(max_examples=200)
@given(readings, st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_the_sampler_stream_reads_the_same_in_chunks_of_any_size(items, cuts):
    data = render(ClockLine(100, 1700000000.25, 101), items)
    stream = SamplerStream(NONCE)
    got, at, i = [], 0, 0
    while at < len(data):
        size = cuts[i % len(cuts)]
        got += stream.feed(data[at:at + size])
        at, i = at + size, i + 1
    assert got == [ClockLine(100, 1700000000.25, 101), *items]


def test_markers_of_another_nonce_are_output_and_a_torn_reading_is_dropped():
    stream = SamplerStream(NONCE)
    data = (f"@gftpwb-s {NONCE} 3 500\n@gftpwb-e other 3 0\n42\n\n@gftpwb-e {NONCE} 3 0\n"
            f"@gftpwb-s {NONCE} 4 600\npartial\n").encode()
    assert stream.feed(data) == [Reading(3, 500, ("@gftpwb-e other 3 0", "42"), 0)]
    assert parse_clock_line("12 1700000000.N 13") == ClockLine(12, 1700000000.0, 13)
    assert parse_clock_line("12  13") == ClockLine(12, None, 13)


def test_the_sampler_script_quotes_every_argument_of_a_command():
    probe = Probe(0, 100, "command", command=("echo", "$(touch /tmp/x)", "a'b"))
    script = sampler_script([probe], "n0")
    assert "'$(touch /tmp/x)'" in script and "'a'\"'\"'b'" in script
    with pytest.raises(ValueError):
        sampler_script([probe], "n;0")


def test_the_sampler_runs_under_the_real_sh_and_every_reading_parses(tmp_path):
    """The generated script on this machine's /bin/sh (dash): the clock line, then every monitor at
    its interval (never sooner: the k-th reading of a monitor comes k intervals or more after the
    start, however late the machine runs it), each reading parsed by its reader without error; it
    exits on SIGTERM."""
    monitors = [Monitor("c", "cpu", interval_s=0.2), Monitor("m", "memory"), Monitor("n", "net"),
                Monitor("d", "disk"), Monitor("t", "tcp"),
                Monitor("q", "command", command=("sh", "-c", "echo depth=3; echo 7")),
                Monitor("bad", "command", command=("sh", "-c", "echo nope; exit 2"))]
    probes = probes_by_host(monitors)["local"]
    proc = subprocess.Popen(["/bin/sh", "-c", sampler_script([p for _, p in probes], NONCE), "gftpwb-sampler"],
                            stdout=subprocess.PIPE, start_new_session=True)
    try:
        head = read_until(proc, NONCE, monitors, {"c": 4, "m": 2, **dict.fromkeys("ndtq", 1), "bad": 1})
        proc.terminate()
        rest, _ = proc.communicate(timeout=10)
    finally:
        proc.kill()
    out = head + rest
    got = sampler_readings(out, NONCE, monitors, probes)
    assert len(got["c"]) >= 4 and len(got["m"]) >= 2
    clock, *items = SamplerStream(NONCE).feed(out)
    stamps = {p.index: [i.uptime_cs for i in items if i.index == p.index] for _, p in probes}
    assert [i.uptime_cs for i in items] == sorted(i.uptime_cs for i in items)  # in the order they were taken
    for _, probe in probes:  # 0.2 s against 1 s: each at its own interval, never sooner
        assert all(t - clock.after_cs >= k * probe.interval_cs for k, t in enumerate(stamps[probe.index])), \
            (probe, clock, stamps[probe.index])
    assert all(not f.error for key in ("c", "m", "n", "d", "t", "q") for f in got[key])
    assert "busy_pct" in got["c"][-1].values and got["q"][0].values == {"depth": 3.0, "value": 7.0}
    assert got["bad"][0].error == "exit status 2: nope"
    assert proc.returncode == 0


@pytest.mark.parametrize("mode", ["sh", "python"])
def test_the_sampler_writes_each_round_at_once_and_looks_for_timeout_only_for_commands(mode):
    """One write per round (the controller wakes once per round, not once per marker and line), by
    either sampler: every chunk read from the pipe ends with a reading's end marker. The sh sampler
    probes ``timeout`` only for a command monitor (the probe starts two programs)."""
    monitors = [Monitor("c", "cpu", interval_s=0.1), Monitor("m", "memory", interval_s=0.2)]
    probes = [p for _, p in probes_by_host(monitors)["local"]]
    script = sampler_script(probes, NONCE)
    assert "timeout" not in script
    assert "timeout --foreground 5 true" in sampler_script([Probe(0, 100, "command", command=("true",))], NONCE)
    proc = subprocess.Popen(sampler_command(probes, NONCE, host_program(), mode), stdout=subprocess.PIPE,
                            start_new_session=True)
    chunks: list[bytes] = []
    try:
        import os
        import time
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            chunks.append(os.read(proc.stdout.fileno(), 65536))  # type: ignore[union-attr]
    finally:
        proc.kill()
        proc.wait()
    assert len(chunks) >= 8  # 0.1 s rounds
    assert all(re.search(rf"@gftpwb-e {NONCE} \d+ \d+\n\Z".encode(), chunk) for chunk in chunks), chunks[:3]
    items = SamplerStream(NONCE).feed(b"".join(chunks))
    assert isinstance(items[0], ClockLine) and {item.index for item in items[1:]} == {0, 1}


# --- readers -----------------------------------------------------------------------------------------


def test_cpu_figures_come_from_two_readings():
    reader = CpuReader(Monitor("c", "cpu"))
    first = reader.read(Reading(0, 100, ("cpu  100 0 100 800 0 0 0 0", "1.00 0.50 0.25 2/100 7"), 0))
    assert first.values == {"load1": 1.0, "load5": 0.5, "load15": 0.25, "running": 2.0}
    second = reader.read(Reading(0, 200, ("cpu  160 0 120 900 20 0 0 0", "1.00 0.50 0.25 3/100 7"), 0))
    assert second.values["busy_pct"] == pytest.approx(40.0) and second.values["iowait_pct"] == pytest.approx(10.0)
    assert reader.read(Reading(0, 300, ("garbage",), 0)).error


def test_network_rates_skip_a_counter_that_went_backwards():
    reader = NetReader(Monitor("n", "net", interfaces=("veth*",)))
    def dev(rx: int) -> tuple[str, ...]:
        return (f"veth0: {rx} 10 0 0 0 0 0 0 {2 * rx} 20 0 0 0 0 0 0", "lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0")
    assert reader.read(Reading(0, 100, dev(1048576), 0)).values == {}
    rates = reader.read(Reading(0, 300, dev(3 * 1048576), 0)).values
    assert rates["veth0.rx_mib_s"] == 1.0 and rates["veth0.tx_mib_s"] == 2.0 and not any("lo" in k for k in rates)
    assert "veth0.rx_mib_s" not in reader.read(Reading(0, 400, dev(10), 0)).values


def test_disk_rates_per_device_with_utilisation_capped_at_100():
    reader = DiskReader(Monitor("d", "disk"))
    def stats(reads: int, sectors: int, io_ms: int) -> tuple[str, ...]:
        return (f"   8       0 sda {reads} 0 {sectors} 0 {reads} 0 {sectors} 0 0 {io_ms} {2 * io_ms}",
                f"   7       0 loop0 {reads} 0 {sectors} 0 0 0 0 0 0 0 0")
    assert reader.read(Reading(0, 100, stats(0, 0, 0), 0)).values == {}
    rates = reader.read(Reading(0, 200, stats(100, 2048, 500), 0)).values  # one second later (uptime in cs)
    assert rates["sda.reads_s"] == 100.0 and rates["sda.writes_s"] == 100.0
    assert rates["sda.read_mib_s"] == 1.0 and rates["sda.write_mib_s"] == 1.0  # 2048 sectors of 512 bytes
    assert rates["sda.util_pct"] == 50.0 and rates["sda.queue"] == 1.0
    assert not any(k.startswith("loop") for k in rates)  # loop devices are left out by default
    assert reader.read(Reading(0, 250, stats(200, 4096, 1200), 0)).values["sda.util_pct"] == 100.0


def test_tcp_counts_data_connections_of_guc_and_the_server_only():
    reader = TcpReader(Monitor("t", "tcp"), control_ports=(2811,))
    def ss(retrans: int) -> tuple[str, ...]:
        return tuple(ss_text([
            TcpSocket("10.0.0.2", 40000, "10.0.0.1", 50000, ("globus-url-copy",), cwnd=10, rtt_ms=1.0,
                      retrans_total=retrans, delivery_rate_bps=8e6),
            TcpSocket("10.0.0.1", 50000, "10.0.0.2", 40000, ("globus-gridftp-",), cwnd=30, rtt_ms=3.0,
                      retrans_total=1, delivery_rate_bps=1.6e7),
            TcpSocket("10.0.0.2", 40001, "10.0.0.1", 2811, ("globus-url-copy",), cwnd=5),  # control
            TcpSocket("10.0.0.2", 40002, "10.0.0.9", 22, ("sshd",), cwnd=5),
        ], state_column=False, one_line=False).splitlines())
    first = reader.read(Reading(0, 100, ss(2), 0)).values
    assert first == {"connections": 2.0, "cwnd_mean": 20.0, "cwnd_max": 30.0, "rtt_ms_mean": 2.0, "rtt_ms_max": 3.0,
                     "delivery_mbit_s": 24.0}
    assert reader.read(Reading(0, 300, ss(6), 0)).values["retrans_s"] == 2.0  # 4 more in 2 s
    anyone = TcpReader(Monitor("t", "tcp", processes=("*",)), control_ports=(2811,))
    assert anyone.read(Reading(0, 100, ss(2), 0)).values["connections"] == 3.0  # sshd's too, still no control
    (_, probe), = probes_by_host([Monitor("t", "tcp", processes=("*",))])["local"]
    assert "ss -tin state established" in sampler_script([probe], "n") and not probe.owners


def test_a_failed_reading_is_an_error_never_a_number():
    reader = reader_for(Monitor("q", "command", command=("x",)))
    assert reader.read(Reading(0, 100, ("x: not found",), 127)).error == "exit status 127: x: not found"
    assert "longer than its interval" in reader.read(Reading(0, 100, (), 124)).error


# --- summaries and time -------------------------------------------------------------------------------

spans = st.lists(st.tuples(st.floats(0, 100), st.floats(0.01, 5), st.floats(-1e6, 1e6)), max_size=12)


@given(spans, st.floats(0, 100), st.floats(0, 20))
def test_a_runs_mean_is_the_overlap_weighted_mean_of_the_samples_it_overlaps(items, start, length):
    end = start + length
    samples = [Span("m", "h", s, s + d, {"x": v}) for s, d, v in items]
    got = summarize(samples, start, end)
    weights = [(min(end, s.end) - max(start, s.start), s.values["x"]) for s in samples]
    if end <= start:
        weights = [(1e-9, s.values["x"]) for s in samples if s.start <= start <= s.end]
    weights = [(w, v) for w, v in weights if w > 0]
    if not weights:
        assert got == {}
        return
    stat = got["m"]["h"]["x"]
    assert stat.n == len(weights) and stat.max == max(v for _, v in weights)
    assert stat.mean == pytest.approx(sum(w * v for w, v in weights) / sum(w for w, _ in weights), rel=1e-6, abs=1e-6)


def test_a_runs_summary_waits_for_every_live_stream_to_pass_its_end():
    book = SummaryBook([("cpu", "a"), ("cpu", "b")])
    book.started("r", 10.0)
    assert book.finished("r", 12.0) == []
    assert book.add(Span("cpu", "a", 9.0, 10.5, {"x": 1.0})) == []
    assert book.add(Span("cpu", "a", 10.5, 12.5, {"x": 3.0})) == []  # b has not read past 12 yet
    (summary,) = book.add(Span("cpu", "b", 11.0, 12.1, {"x": 5.0}))
    assert summary.run_id == "r" and summary.figures["cpu"]["a"]["x"].mean == pytest.approx((0.5 + 3 * 1.5) / 2)
    assert book.finished("never-started", 13.0) == []
    book.started("s", 20.0)
    book.finished("s", 21.0)
    assert book.ended(("cpu", "b")) == [] and book.waiting
    (late,) = book.flush()
    assert late.run_id == "s" and late.figures == {} and not book.waiting


def test_host_readings_land_on_the_controllers_time_line():
    clock = ClockMap(mono=1000.0, epoch=1_700_000_000.0)
    host = HostClock.of(ClockLine(5000, 1_700_000_002.0, 5002), ClockOffset(0.5, 0.001, 8), fallback_epoch=0.0)
    # uptime 5001 was the host's 1_700_000_002.0, i.e. the controller's 1_700_000_001.5 (host is 0.5 s ahead)
    assert clock.to_mono(host.to_epoch(5101)) == pytest.approx(1000.0 + 1.5 + 1.0)
    assert clock.utc(1000.25) == "2023-11-14T22:13:20.250000+00:00"
    no_date = HostClock.of(ClockLine(5000, None, 5002), ClockOffset(0.5, 0.001, 8), fallback_epoch=42.0)
    assert no_date.to_epoch(5001) == 42.0


# --- DSL and plan ---------------------------------------------------------------------------------------

SCENARIO = """\
version: 1
name: m
hosts: {{h1: {{address: 10.0.0.2}}}}
monitors:
{monitors}
tests:
  - {{id: a, kind: guc, source: "gsiftp://dtn:2812/a", target: "ftp://x/b"}}
"""


def test_monitors_in_the_dsl_become_typed_entries():
    s = load_scenario_text(SCENARIO.format(monitors=textwrap.indent(textwrap.dedent("""\
        - {id: load, type: cpu}
        - {id: nic, type: net, on: [local, h1], interval: 500ms, interfaces: [veth*]}
        - {id: q, type: command, on: h1, command: [cat, /proc/sys/fs/file-nr]}
        - {id: tcp, type: tcp, control_ports: [2811, 5000]}
    """), "  ")), "m.yaml")
    assert s.monitors == (
        Monitor("load", "cpu"), Monitor("nic", "net", on=("local", "h1"), interval_s=0.5, interfaces=("veth*",)),
        Monitor("q", "command", on=("h1",), command=("cat", "/proc/sys/fs/file-nr")),
        Monitor("tcp", "tcp", control_ports=(2811, 5000)))
    assert load_scenario_text(SCENARIO.replace("monitors:\n{monitors}\n", "").format(), "m.yaml").monitors == ()


def test_monitor_mistakes_are_reported_at_their_place():
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(SCENARIO.format(monitors=textwrap.indent(textwrap.dedent("""\
            - {id: load, type: cpu, devices: [sda]}
            - {id: q, type: command}
            - {id: load, type: memory, on: [h2], interval: 20ms}
        """), "  ")), "m.yaml")
    assert [str(d) for d in info.value.diagnostics] == [
        "m.yaml:5:27: monitor 'load': devices is for disk monitors, not cpu",
        "m.yaml:6:19: monitor 'q': a command monitor needs command: the command to run, as a list of arguments",
        "m.yaml:7:10: duplicate monitor id 'load' (first used at line 5)",
        "m.yaml:7:35: unknown host 'h2' (not in hosts, and not 'local'); known: local, h1",
        "m.yaml:7:50: monitor 'load': interval 20ms is too short; at least 0.1s",
    ]


def test_validate_counts_the_monitors_and_dry_run_lists_them():
    from support.clihelp import gftpwb

    out = gftpwb("run", "scenarios/monitors.yaml", "--dry-run", cwd=str(ROOT))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:6] == [
        "# monitor load: cpu every 1s on local", "# monitor mem: memory every 5s on local",
        "# monitor lo: net lo every 1s on local", "# monitor io: disk every 1s on local",
        "# monitor tcp: tcp every 0.5s on local",
        "# monitor sockets: command cat /proc/sys/fs/file-nr every 1s on local"]
    out = gftpwb("validate", "scenarios/monitors.yaml", cwd=str(ROOT))
    assert out.stdout == "scenarios/monitors.yaml: ok (1 test(s), 32 run(s), 6 monitor(s))\n"


def test_the_monitor_schema_and_model_name_the_same_keys():
    from dataclasses import fields

    model = {f.metadata.get("key", f.name) for f in fields(Monitor)}
    assert model == {k.name for k in MONITOR_KEYS} == set(build_schema()["definitions"]["monitor"]["properties"])


def test_one_sampler_per_host_and_the_control_ports_of_the_scenario():
    monitors = [Monitor("c", "cpu", on=("local", "h1")), Monitor("t", "tcp", on=("h1",)),
                Monitor("t2", "tcp", on=("h1",), control_ports=(7,))]
    by_host = probes_by_host(monitors, (2811, 2812))
    assert {host: [p.index for _, p in items] for host, items in by_host.items()} == {"local": [0], "h1": [0, 1, 2]}
    assert [p.skip_ports for _, p in by_host["h1"]] == [(), (2811, 2812), (7,)]
    specs = [RunSpec("a/0", "s", "a", 0, 0, "guc", "local", (), source="gsiftp://dtn:2812/x", target="ftp://h/y"),
             RunSpec("b/0", "s", "b", 0, 0, "guc", "local", (), source="file:///x", target="gsiftp://[::1]/y"),
             RunSpec("c/0", "s", "c", 0, 0, "x", "local", (), source="ftp://h:99999/bad")]
    assert control_ports(specs) == (21, 2811, 2812)


def test_the_report_shows_headline_figures_and_leaves_idle_interfaces_out():
    stat = {"mean": 1.5, "min": 1.0, "max": 2.0, "n": 3}
    idle = {"mean": 0.0, "min": 0.0, "max": 0.0, "n": 3}
    table = monitors_table({"nic": {"h1": {"veth0.rx_mib_s": stat, "lo.rx_mib_s": idle, "veth0.rx_packets_s": stat}},
                            "load": {"local": {"busy_pct": stat, "user_pct": stat}}},
                           {"nic": "net", "load": "cpu"}, samples=9)
    assert [cells[:3] for cells, _ in table.rows] == [("nic", "h1", "veth0.rx_mib_s"), ("load", "local", "busy_pct")]
    assert table.title == "Monitors over the whole run (9 samples)"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["load", "nic"]), st.sampled_from(["local", "h1"]),
                          st.integers(1, 2000), st.one_of(st.none(), st.dictionaries(
                              st.sampled_from(["a", "b"]), st.floats(-1e6, 1e6, allow_nan=False), min_size=1))),
                max_size=30))
def test_the_report_reads_back_the_whole_runs_figures_the_run_computed(items):
    """``gftpwb report`` recomputes the table from monitors.jsonl: the same figures the live
    SummaryBook kept, failed readings counted as samples, the monitors in the samplers' order, and
    the latest summary line of a run id (a resumed run's) kept."""
    book = SummaryBook()
    lines: list[dict] = [{"event": "sampler-started", "host": "local", "monitors": ["nic", "load"]}, {"torn": 1}]
    t = 100.0
    for monitor, host, span_ms, values in items:
        t += span_ms / 1000
        if values is None:
            lines.append({"event": "sample", "monitor": monitor, "type": "x", "host": host, "span_s": span_ms / 1000,
                          "error": "boom"})
            continue
        book.add(Span(monitor, host, t - span_ms / 1000, t, values))
        lines.append({"event": "sample", "monitor": monitor, "type": "x", "host": host, "span_s": span_ms / 1000,
                      "values": values})
    runs = [{"run_id": "r/0", "monitors": {"old": {}}}, {"run_id": "r/0", "monitors": {"new": {}}}]
    read = directory_monitors(lines, runs)
    assert read is not None and read.samples == len(items) and read.runs == {"r/0": {"new": {}}}
    live = figures_to_dict(book.overall)
    assert read.figures.keys() == live.keys()
    for monitor, hosts in live.items():
        for host, figures in hosts.items():
            for name, stat in figures.items():
                got = read.figures[monitor][host][name]
                assert (got["min"], got["max"], got["n"]) == (stat["min"], stat["max"], stat["n"])
                assert abs(got["mean"] - stat["mean"]) <= 1e-6 * max(1.0, abs(stat["mean"]))
    assert list(read.types) == [m for m in ("nic", "load") if m in {i[0] for i in items}]
    assert directory_monitors([{"event": "sampler-started", "monitors": ["x"]}], []) is None
