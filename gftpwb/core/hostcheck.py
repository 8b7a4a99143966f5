"""``gftpwb hosts check``, the pure half: the probe a host runs, parsing its answer, TCP buffer caps,
and the report. The shell (:mod:`gftpwb.shell.hostprobe`) connects, runs the probe and samples clocks.

The buffer caps are what the kernel allows a socket: an explicit ``guc -tcp-bs`` (setsockopt
SO_SNDBUF / SO_RCVBUF) is capped by ``net.core.wmem_max`` / ``rmem_max``; without it, TCP autotuning
grows buffers up to the third value of ``net.ipv4.tcp_wmem`` / ``tcp_rmem``. Auto-tune uses them to
skip ``-tcp-bs`` values the kernel would cap to the same size.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from .clockoffset import ClockOffset
from .registry import ReportTable

# Each line of the answer is key=value; missing tools leave the value empty. POSIX sh, no bashisms.
PROBE_SCRIPT = r"""
first_line() { "$@" 2>&1 | head -n 1; }
echo "hostname=$(cat /proc/sys/kernel/hostname 2>/dev/null)"
echo "kernel=$(uname -r 2>/dev/null)"
guc=; command -v globus-url-copy >/dev/null 2>&1 && guc=$(first_line globus-url-copy -version)
echo "guc=$guc"
gcc=; command -v gcc >/dev/null 2>&1 && gcc=$(first_line gcc --version)
echo "gcc=$gcc"
if [ -e /usr/include/glusterfs/api/glfs.h ]; then echo "gfapi_headers=yes"; else echo "gfapi_headers=no"; fi
lib=no
for f in /usr/lib/*/libgfapi.so* /usr/lib64/libgfapi.so* /usr/lib/libgfapi.so* /lib/*/libgfapi.so*; do
  [ -e "$f" ] && lib=yes
done
echo "gfapi_library=$lib"
for key in net/core/rmem_max net/core/wmem_max net/ipv4/tcp_rmem net/ipv4/tcp_wmem \
           net/ipv4/tcp_congestion_control net/ipv4/tcp_available_congestion_control; do
  echo "$key=$(cat /proc/sys/$key 2>/dev/null)"
done
echo "cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
echo "cpu_count=$(getconf _NPROCESSORS_ONLN 2>/dev/null)"
srv=; command -v globus-gridftp-server >/dev/null 2>&1 && srv=$(first_line globus-gridftp-server -version)
echo "gridftp_server=$srv"
"""

# Per server and address the transfers of a run use, appended by probe_script(): the server's banner
# as guc sees it from this host (guc -dbg shows the 220 greeting right after connecting, before any
# login; all servers at once, 5 s at most, so a server that never answers delays a run by 5 s, not
# more), and the route to the address with its interface's MTU.
ENDPOINT_FUNCTIONS = r"""
banner() {
  b=; command -v globus-url-copy >/dev/null 2>&1 && \
    b=$(timeout 5 globus-url-copy -dbg -list "$1" 2>&1 | sed -n 's/^220[ -]//p' | head -n 1)
  echo "banner.$1=$b"
}
route() {
  case "$1" in *[!0-9.:]*) ip=$(getent ahosts "$1" 2>/dev/null | awk 'NR==1{print $1}') ;; *) ip=$1 ;; esac
  r=; [ -n "$ip" ] && r=$(ip route get "$ip" 2>/dev/null | head -n 1)
  dev=$(echo "$r" | awk '{for (i = 1; i < NF; i++) if ($i == "dev") {print $(i + 1); exit}}')
  mtu=$(echo "$r" | awk '{for (i = 1; i < NF; i++) if ($i == "mtu") {print $(i + 1); exit}}')
  [ -z "$mtu" ] && [ -n "$dev" ] && mtu=$(cat "/sys/class/net/$dev/mtu" 2>/dev/null)
  echo "route.$1=$ip $dev $mtu"
}
"""


def probe_script(servers: Sequence[str] = (), addresses: Sequence[str] = ()) -> str:
    """The probe, plus the banner of each server URL (``ftp://host:port/``) and the route and MTU
    to each address, as this host sees them. Values are shell-quoted: scenario text never reaches a
    shell unquoted."""
    if not servers and not addresses:
        return PROBE_SCRIPT
    lines = [*(f"banner {shlex.quote(url)} &" for url in servers), *(f"route {shlex.quote(a)}" for a in addresses),
             "wait"]
    return PROBE_SCRIPT + ENDPOINT_FUNCTIONS + "\n".join(lines) + "\n"

SYSCTL_KEYS = ("net/core/rmem_max", "net/core/wmem_max", "net/ipv4/tcp_rmem", "net/ipv4/tcp_wmem")


@dataclass(frozen=True)
class BufferCaps:
    """The kernel's TCP buffer limits on one host (bytes; None when the host did not say)."""

    rmem_max: int | None = None
    wmem_max: int | None = None
    tcp_rmem: tuple[int, int, int] | None = None  # min, default, max (autotuning)
    tcp_wmem: tuple[int, int, int] | None = None

    def explicit_cap(self) -> int | None:
        """The largest buffer an explicit ``-tcp-bs`` gets for both directions (min of the two caps)."""
        caps = [c for c in (self.rmem_max, self.wmem_max) if c is not None]
        return min(caps) if caps else None

    def effective_tcp_bs(self, requested: int) -> int:
        """What a ``-tcp-bs requested`` becomes on this host: capped by rmem_max / wmem_max."""
        cap = self.explicit_cap()
        return requested if cap is None else min(requested, cap)

    def autotune_max(self) -> int | None:
        """How far the kernel grows buffers on its own (no ``-tcp-bs``)."""
        caps = [t[2] for t in (self.tcp_rmem, self.tcp_wmem) if t is not None]
        return min(caps) if caps else None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def combined_caps(caps: list[BufferCaps]) -> BufferCaps:
    """The tightest limits of several hosts (both ends of a transfer): element-wise minimum."""

    def low(values: list[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return min(known) if known else None

    def low3(values: list[tuple[int, int, int] | None]) -> tuple[int, int, int] | None:
        known = [v for v in values if v is not None]
        return tuple(min(v[i] for v in known) for i in range(3)) if known else None  # type: ignore[return-value]

    return BufferCaps(rmem_max=low([c.rmem_max for c in caps]), wmem_max=low([c.wmem_max for c in caps]),
                      tcp_rmem=low3([c.tcp_rmem for c in caps]), tcp_wmem=low3([c.tcp_wmem for c in caps]))


@dataclass(frozen=True)
class ProbeFacts:
    hostname: str = ""
    kernel: str = ""
    guc: str = ""  # version, e.g. "10.12"; "" = not installed
    gcc: str = ""  # first line of gcc --version; "" = not installed
    gfapi_headers: bool = False
    gfapi_library: bool = False
    caps: BufferCaps = field(default_factory=BufferCaps)
    cpu_model: str = ""
    cpu_count: int | None = None
    congestion_control: str = ""
    congestion_available: str = ""
    gridftp_server: str = ""  # first line of globus-gridftp-server -version; "" = not installed
    banners: dict[str, str] = field(default_factory=dict)  # server URL -> its 220 greeting ("" = none)
    routes: dict[str, Route] = field(default_factory=dict)  # address -> how this host reaches it

    def environment(self) -> dict[str, object]:
        """What meta.json keeps of a host (plain JSON data)."""
        return {
            "hostname": self.hostname, "kernel": self.kernel, "cpu_model": self.cpu_model,
            "cpu_count": self.cpu_count, "guc": self.guc or None, "gridftp_server": self.gridftp_server or None,
            "tcp": {"rmem_max": self.caps.rmem_max, "wmem_max": self.caps.wmem_max,
                    "tcp_rmem": list(self.caps.tcp_rmem) if self.caps.tcp_rmem else None,
                    "tcp_wmem": list(self.caps.tcp_wmem) if self.caps.tcp_wmem else None,
                    "congestion_control": self.congestion_control or None,
                    "congestion_available": self.congestion_available.split() or None},
            "servers": {url: {"banner": text or None, "version": server_version(text)}
                        for url, text in self.banners.items()},
            "routes": {address: asdict(route) for address, route in self.routes.items()},
        }


@dataclass(frozen=True)
class Route:
    """How a host reaches an address: the address it resolved to, the interface, and its MTU."""

    ip: str | None
    dev: str | None
    mtu: int | None


def server_version(banner: str) -> str | None:
    """``220 vm GridFTP Server 13.24 (gcc64, ...) [...] ready.`` -> ``13.24``; None when not a GridFTP banner."""
    words = banner.split()
    for i, word in enumerate(words[:-1]):
        if word == "Server" and i and words[i - 1] == "GridFTP":
            return words[i + 1]
    return None


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


def _triple(text: str) -> tuple[int, int, int] | None:
    parts = text.split()
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return (int(parts[0]), int(parts[1]), int(parts[2]))


def guc_version(line: str) -> str:
    """``globus-url-copy: 10.12`` -> ``10.12``; any other non-empty text is kept as it is."""
    line = line.strip()
    prefix = "globus-url-copy:"
    return line[len(prefix):].strip() if line.startswith(prefix) else line


def parse_probe(text: str) -> ProbeFacts:
    """Parse the probe's ``key=value`` lines; unknown keys and junk lines are ignored."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    caps = BufferCaps(rmem_max=_int(values.get("net/core/rmem_max", "")),
                      wmem_max=_int(values.get("net/core/wmem_max", "")),
                      tcp_rmem=_triple(values.get("net/ipv4/tcp_rmem", "")),
                      tcp_wmem=_triple(values.get("net/ipv4/tcp_wmem", "")))
    routes = {}
    for key, value in values.items():
        if key.startswith("route."):
            ip, dev, mtu = ([*value.split(), "", "", ""])[:3]
            routes[key[len("route."):]] = Route(ip or None, dev or None, _int(mtu))
    return ProbeFacts(hostname=values.get("hostname", ""), kernel=values.get("kernel", ""),
                      guc=guc_version(values.get("guc", "")), gcc=values.get("gcc", ""),
                      gfapi_headers=values.get("gfapi_headers") == "yes",
                      gfapi_library=values.get("gfapi_library") == "yes", caps=caps,
                      cpu_model=values.get("cpu_model", ""), cpu_count=_int(values.get("cpu_count", "")),
                      congestion_control=values.get("net/ipv4/tcp_congestion_control", ""),
                      congestion_available=values.get("net/ipv4/tcp_available_congestion_control", ""),
                      gridftp_server=values.get("gridftp_server", ""),
                      banners={k[len("banner."):]: v for k, v in values.items() if k.startswith("banner.")},
                      routes=routes)


# Statuses of a host check, worst last.
OK = "ok"
UNREACHABLE = "unreachable"
HOST_KEY = "host-key"
AUTH = "auth-failed"
ERROR = "error"


@dataclass(frozen=True)
class HostReport:
    host: str
    address: str
    status: str  # ok, unreachable, host-key, auth-failed, error
    error: str = ""
    facts: ProbeFacts | None = None
    clock: ClockOffset | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def reachable(self) -> bool:
        return self.status not in (UNREACHABLE,)

    @property
    def authenticated(self) -> bool | None:
        if self.status in (UNREACHABLE, HOST_KEY):
            return None  # never got that far
        return self.status != AUTH

    def to_dict(self) -> dict[str, object]:
        facts = self.facts
        return {
            "host": self.host, "address": self.address, "status": self.status, "error": self.error,
            "reachable": self.reachable, "authenticated": self.authenticated,
            "guc_version": facts.guc or None if facts else None,
            "gcc": facts.gcc or None if facts else None,
            "gfapi_headers": facts.gfapi_headers if facts else None,
            "gfapi_library": facts.gfapi_library if facts else None,
            "hostname": facts.hostname if facts else None,
            "kernel": facts.kernel if facts else None,
            "clock": self.clock.to_dict() if self.clock else None,
            "tcp_buffers": facts.caps.to_dict() if facts else None,
            "cpu_model": facts.cpu_model or None if facts else None,
            "cpu_count": facts.cpu_count if facts else None,
            "congestion_control": facts.congestion_control or None if facts else None,
            "gridftp_server": facts.gridftp_server or None if facts else None,
            "seconds": round(self.seconds, 3),
        }


def human_size(nbytes: int | None) -> str:
    """4194304 -> 4M, as tcp-bs values are written; '-' when unknown."""
    if nbytes is None:
        return "-"
    for unit, factor in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


def format_offset(clock: ClockOffset | None) -> str:
    if clock is None:
        return "-"
    return f"{clock.offset_s * 1000:+.1f} ms ±{clock.uncertainty_s * 1000:.1f}"


TABLE_COLUMNS = ("host", "address", "status", "guc", "gcc", "libgfapi", "clock offset", "rmem/wmem max",
                 "tcp_rmem/wmem max")
# Versions, sizes and the clock offset are kept whole in a narrow console (never cut, never folded);
# the host, its address and its status may wrap.
_RIGHT = frozenset({"clock offset", "rmem/wmem max", "tcp_rmem/wmem max"})
_WHOLE = ("guc", "gcc", "libgfapi")
HOSTS_CAPTION = ("clock offset: host minus controller; buffer caps: -tcp-bs is capped by rmem/wmem_max, "
                 "autotuning by tcp_rmem/tcp_wmem")


def hosts_table(scenario: str, reports: Sequence[HostReport]) -> ReportTable:
    """The ``hosts check`` table, drawn like the report's tables (numbers never cut); a host that
    cannot be used is shown in red."""
    columns = tuple((name, "right" if name in _RIGHT else "left") for name in TABLE_COLUMNS)
    rows = tuple((table_row(report), "" if report.ok else "red") for report in reports)
    return ReportTable(f"Hosts of {scenario}", HOSTS_CAPTION, columns, rows, whole=_WHOLE, keys=1)


def table_row(report: HostReport) -> tuple[str, ...]:
    """One row of the ``hosts check`` table (TABLE_COLUMNS)."""
    f = report.facts
    if f is None:
        return (report.host, report.address, report.status, "-", "-", "-", "-", "-", "-")
    gfapi = {(True, True): "yes", (False, True): "library only", (True, False): "headers only"}.get(
        (f.gfapi_headers, f.gfapi_library), "no")
    gcc = f.gcc.split()[-1] if f.gcc else "no"
    caps = f.caps
    explicit = f"{human_size(caps.rmem_max)}/{human_size(caps.wmem_max)}"
    auto = (f"{human_size(caps.tcp_rmem[2] if caps.tcp_rmem else None)}/"
            f"{human_size(caps.tcp_wmem[2] if caps.tcp_wmem else None)}")
    return (report.host, report.address, report.status, f.guc or "missing", gcc, gfapi,
            format_offset(report.clock), explicit, auto)
