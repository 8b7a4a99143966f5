"""Kernel buffer caps: parsing, the path's cap, duplicate marking, notices, and reading them from a
real /proc (locally) or saying why an end cannot be read."""

import asyncio
from pathlib import Path

import pytest

from gftpwb.core.bus import EventBus
from gftpwb.core.specs import RunSpec
from gftpwb.core.units import MIB
from gftpwb.kinds.autotune.candidates import make_candidates, tgftp_37
from gftpwb.kinds.autotune.caps import EndCaps, duplicates, notices, parse_caps, path_cap
from gftpwb.kinds.autotune.run.caps import read_end, read_path_caps
from gftpwb.shell.executor import Executor

CANDIDATES = make_candidates(tgftp_37())


def test_parse_caps():
    assert parse_caps("4194304\n212992\n") == (4194304, 212992)
    for bad in ("", "12", "a b", "1 2 3", "0 5"):
        with pytest.raises(ValueError):
            parse_caps(bad)


def test_path_cap_is_the_senders_wmem_and_the_receivers_rmem():
    source = EndCaps("source", "a", rmem_max=64 * MIB, wmem_max=8 * MIB)
    target = EndCaps("target", "b", rmem_max=16 * MIB, wmem_max=1 * MIB)
    assert path_cap(source, target) == 8 * MIB
    assert path_cap(EndCaps("source", "a", error="x"), target) == 16 * MIB
    assert path_cap(EndCaps("source", "a", error="x"), EndCaps("target", "b", error="y")) is None


def test_duplicates_need_a_capped_buffer():
    assert duplicates(CANDIDATES, None) == {}
    assert duplicates(CANDIDATES, 64 * MIB) == {}
    # Each -p group is #first..#first+4 with 1M, 2M, 4M, 8M, 16M; capped at 2M, 4M..16M act as 2M.
    firsts = (8, 13, 18, 23, 28, 33)
    assert duplicates(CANDIDATES, 2 * MIB) == {f + k: f + 1 for f in firsts for k in (2, 3, 4)}
    # 3M (not a tgftp size) caps 4M, 8M and 16M to 3M: 4M is the first of them, the others repeat it.
    assert duplicates(CANDIDATES, 3 * MIB)[11] == 10 and 10 not in duplicates(CANDIDATES, 3 * MIB)


def test_notices_say_what_was_read_and_what_it_means():
    both = EndCaps("source", "127.0.0.1", 4 * MIB, 4 * MIB), EndCaps("target", "127.0.0.1", 4 * MIB, 4 * MIB)
    lines = notices(*both, CANDIDATES, duplicates(CANDIDATES, 4 * MIB))
    assert lines[0] == ("info", "buffer caps on 127.0.0.1 (both ends): net.core.rmem_max=4194304, "
                                "net.core.wmem_max=4194304")
    assert lines[1][0] == "warning" and "-tcp-bs 8M, 16M exceed the kernel cap of 4M" in lines[1][1]
    assert "12 candidate(s) duplicate" in lines[1][1]
    unknown = notices(EndCaps("source", "far.example.org", error="not this machine"), both[1], CANDIDATES, {})
    assert unknown[0][0] == "warning" and "cannot read the buffer caps of far.example.org" in unknown[0][1]


def spec(source, target, engine="real"):
    return RunSpec(run_id="t", scenario="s", test_id="t", case=0, repeat=0, kind="autotune", host="local",
                   argv=(), source=source, target=target, engine=engine)


def test_reads_the_real_values_locally_and_explains_a_remote_end():
    expected = tuple(int(Path(f"/proc/sys/net/core/{n}").read_text()) for n in ("rmem_max", "wmem_max"))
    executor = Executor(EventBus())
    source, target = asyncio.run(read_path_caps(executor, spec("ftp://127.0.0.1:2811/dev/zero",
                                                               "gsiftp://far.example.org/dev/null")))
    assert (source.rmem_max, source.wmem_max) == expected and source.host == "127.0.0.1"
    assert not target.known and target.host == "far.example.org" and "not this machine" in target.error
    local_file = asyncio.run(read_end(executor, "target", "file:///dev/null", "local"))
    assert (local_file.rmem_max, local_file.wmem_max) == expected


def test_an_end_whose_host_maps_elsewhere_is_read_through_that_transport():
    # The SSH inventory plugs in here: a host name mapped to an executor host.
    seen = []

    class Recording:
        name = "recording"

        async def start(self, argv, **kwargs):
            seen.append(argv)
            raise __import__("gftpwb.shell.transports.local", fromlist=["StartError"]).StartError("ssh: no route")

    executor = Executor(EventBus(), transport_for=lambda host: Recording())
    end = asyncio.run(read_end(executor, "source", "gsiftp://far.example.org/x", "local",
                               host_of=lambda name: "far"))
    assert seen == [["cat", "/proc/sys/net/core/rmem_max", "/proc/sys/net/core/wmem_max"]]
    assert not end.known and end.error == "ssh: no route"


def test_which_host_reads_an_end():
    from gftpwb.kinds.autotune.run.caps import host_resolver

    host_of = host_resolver("dtn1", {"10.9.0.2": "dtn1", "dtn2.example.org": "dtn2"})
    assert host_of("127.0.0.1") == "dtn1" and host_of("localhost") == "dtn1"  # loopback of the guc host
    assert host_of("dtn2.example.org") == "dtn2" and host_of("10.9.0.2") == "dtn1"
    assert host_of("far.example.org") is None
    assert host_resolver("local")("127.0.0.1") == "local"
    import socket

    assert host_resolver("dtn1")(socket.gethostname()) == "local"  # this machine, by its own name
