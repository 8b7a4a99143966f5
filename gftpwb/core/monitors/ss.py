"""Parser of ``ss -tinp state established`` (iproute2): one TCP socket per entry, its addresses,
the processes that own it and its ``tcp_info`` (cwnd, rtt, retransmissions, delivery rate).

An entry is a line starting in the first column (``Recv-Q Send-Q Local:Port Peer:Port users:(...)``,
with a state column first when no state filter was given) followed by indented lines of
``tcp_info`` items: ``key:value`` (``cwnd:10``, ``rtt:0.5/0.2``, ``retrans:0/9``) or ``key value``
(``send 1234bps``, ``pacing_rate ...``, ``delivery_rate ...``). ``ss -O`` puts both on one line;
both forms are read. Unknown items are ignored, so a newer ss keeps working. The python3 sampler
(:mod:`gftpwb.shell.hostsampler`) writes the same lines from its own netlink dump (only the items
read here), so this parser reads both samplers. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_USER = re.compile(r'\("((?:[^"\\]|\\.)*)",pid=(\d+)')
_RATE = re.compile(r"^(\d+(?:\.\d+)?)([KMGT]?)bps$")
_RATE_FACTORS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
# The items read, each at the start of a word (not minrtt:, bbr:(...,mrtt:...), bytes_retrans: for retrans:).
# Matched after a blank rather than behind a look-behind: the engine then skips to the next blank
# instead of trying every character (about 5 times faster on ss's long, space-padded lines), so the
# text searched starts with a blank and has its padding stripped (:func:`tcp_info_items`).
_INFO = re.compile(r"\s(?:(cwnd|rtt|retrans|bytes_retrans|bytes_acked|bytes_received):(\S+)"
                   r"|delivery_rate (\S+))")
_STATES = frozenset({"ESTAB", "SYN-SENT", "SYN-RECV", "FIN-WAIT-1", "FIN-WAIT-2", "TIME-WAIT", "UNCONN", "CLOSE-WAIT",
                     "LAST-ACK", "LISTEN", "CLOSING"})


@dataclass(frozen=True)
class TcpSocket:
    local: str  # address without the port ("127.0.0.1", "::1")
    local_port: int
    peer: str
    peer_port: int
    processes: tuple[str, ...] = ()  # names of the owning processes (``comm``: at most 15 characters)
    cwnd: int | None = None  # segments
    rtt_ms: float | None = None
    retrans_total: int = 0  # segments retransmitted over the connection's life
    bytes_retrans: int = 0
    delivery_rate_bps: float | None = None  # bits per second
    bytes_acked: int = 0
    bytes_received: int = 0

    @property
    def key(self) -> tuple[str, int, str, int]:
        return (self.local, self.local_port, self.peer, self.peer_port)


def split_address(text: str) -> tuple[str, int]:
    """``127.0.0.1:2811``, ``[::1]:2811``, ``[::ffff:10.0.0.1]:80``, ``10.0.0.1%eth0:22`` -> address, port."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isascii() or not port.isdigit() or not host:
        raise ValueError(f"not an address:port: {text[:60]!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.split("%", 1)[0]
    return host, int(port)


def parse_rate(text: str) -> float:
    """``1126051104bps`` or (older ss) ``1126.1Mbps`` -> bits per second."""
    match = _RATE.match(text)
    if not match:
        raise ValueError(f"not a rate: {text[:30]!r}")
    return float(match.group(1)) * _RATE_FACTORS[match.group(2)]


Keep = Callable[[TcpSocket], bool]


def parse_ss(lines: Iterable[str], keep: Keep | None = None) -> list[TcpSocket]:
    """Every socket of ``ss -tin[p]`` output (a header line, if any, is skipped); with ``keep``, only
    the sockets it accepts (judged on addresses and processes, before their tcp_info is read: a busy
    host has many connections that are not wanted)."""
    entries: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        if line[0].isspace():
            if not entries:
                raise ValueError(f"ss: tcp_info without a socket line: {line.strip()[:60]!r}")
            entries[-1].append(line)
        elif line.startswith(("Recv-Q", "State", "Netid")):
            continue
        else:
            entries.append([line])
    out = []
    for entry in entries:
        sock = _socket(entry, keep)
        if sock is not None:
            out.append(sock)
    return out


def _socket(entry: list[str], keep: Keep | None) -> TcpSocket | None:
    words = entry[0].split(None, 4)
    if words and words[0] in _STATES:
        words = entry[0].split(None, 5)[1:]
    if len(words) < 4 or not words[0].isdigit() or not words[1].isdigit():
        raise ValueError(f"not an ss socket line: {entry[0].strip()[:80]!r}")
    local, local_port = split_address(words[2])
    peer, peer_port = split_address(words[3])
    rest = words[4] if len(words) > 4 else ""
    processes = tuple(dict.fromkeys(name for name, _pid in _USER.findall(rest))) if "users:" in rest else ()
    if keep is not None and not keep(TcpSocket(local, local_port, peer, peer_port, processes)):
        return None
    info: dict = {}
    for text in (rest, *entry[1:]):  # ss -O: the items follow on the socket's own line
        for key, value, rate in tcp_info_items(text):
            if rate:
                info["delivery_rate_bps"] = _or_none(parse_rate, rate)
            elif key == "cwnd":
                info["cwnd"] = _or_none(int, value)
            elif key == "rtt":
                info["rtt_ms"] = _or_none(float, value.partition("/")[0])
            elif key == "retrans":
                info["retrans_total"] = _or_none(int, value.partition("/")[2]) or 0
            else:
                info[key] = _or_none(int, value) or 0
    return TcpSocket(local, local_port, peer, peer_port, processes, **info)


def tcp_info_items(text: str) -> list[tuple[str, str, str]]:
    """``(key, value, "")`` or ``("", "", rate)`` of the tcp_info items :data:`_INFO` reads in ``text``."""
    return _INFO.findall(" " + text.rstrip()) if text else []


def _or_none(convert, text: str):
    try:
        return convert(text)
    except ValueError:
        return None
