"""The sampler under python3: one long-lived process per monitored host, started by the sh command of
:func:`gftpwb.core.monitors.sampler.sampler_command` (``exec python3 -E -S -c THIS_TEXT ...``) where
the host has python3. It writes the same stream as the sh sampler (clock line, readings between
markers carrying the nonce, the raw text), so the controller reads both alike.

Why: the sh sampler forks a ``sleep`` every round and an ``ss -tinp`` every tcp reading; ``ss``
costs a program start, two walks of the kernel's established-socket table (one per family) and,
for ``-p``, a look at every process's file descriptors, about 1 % of a core at 1 Hz. Here:

* /proc files are read directly, the clock is CLOCK_BOOTTIME (/proc/uptime's clock, no read), and
  the wait is ``time.sleep``: no process is started, except for command monitors;
* a tcp reading is one NETLINK_SOCK_DIAG dump of both families at once (the compatible
  TCPDIAG_GETSOCK request: one walk of the table; ``inet_diag_req_v2`` per family if the kernel
  refuses it; ``ss`` itself if netlink is refused), written as the lines ``ss -tinp state
  established`` writes for those sockets (only the items gftpwb reads), so ``parse_ss`` reads them;
* the owners (``users:(("comm",pid=N,fd=F))``, what ``-p`` adds) are remembered per socket inode,
  and every process's file descriptors are looked at only when a socket appears whose owner is not
  known yet.

This file is a program, not a gftpwb module: it runs on the monitored host under whatever python3 is
there, so it imports only the standard library, keeps to Python 3.4's syntax (no f-strings: hence
the % formatting) and imports the C modules ``_socket`` and ``_signal`` rather than ``socket`` and
``signal``, whose wrappers load ``enum`` (7 ms more CPU at every start). Its helpers are pure
functions, imported by the tests. It never lets a traceback out: a reading that fails ends with a
non-zero status and its message as its text (an error of that sample), a failure to start falls
back to the sh sampler (unless ``GFTPWB_SAMPLER=python`` asked for this one), and anything else is
one line on stderr, which the controller reports as a warning.
"""
# ruff: noqa: UP031, UP036
# (% formatting, and a check of the version: this program keeps to Python 3.4, for old hosts' python3)

import os
import struct
import sys
import time

try:  # the C modules: socket.py and signal.py import enum, which costs more than the rest of a start
    import _signal as signals
    import _socket as sockets
except ImportError:  # pragma: no cover - another Python implementation
    import signal as signals  # type: ignore[no-redef]
    import socket as sockets  # type: ignore[no-redef]

CLOCK = "@gftpwb-clock"
START = "@gftpwb-s"
END = "@gftpwb-e"
NAME = "gftpwb-sampler"
CLOCK_BOOTTIME = 7  # Linux: the clock of /proc/uptime (time.CLOCK_BOOTTIME only from Python 3.7)
TIMEOUT_STATUS = 124  # what timeout(1) returns when it stopped the command
AF_INET, AF_INET6, AF_NETLINK = 2, 10, 16
NETLINK_SOCK_DIAG = 4
TCPDIAG_GETSOCK = 18  # the compatible request: both families in one walk of the table
SOCK_DIAG_BY_FAMILY = 20  # inet_diag_req_v2: one family per request
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST_DUMP = 0x301
TCP_ESTABLISHED = 1
INET_DIAG_INFO = 2
IPPROTO_TCP = 6
HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port id
DIAG_MSG = struct.Struct("=BBBB")  # inet_diag_msg: family, state, timer, retrans ...
DIAG_ID = struct.Struct(">HH16s16s")  # ... its inet_diag_sockid: ports and addresses, network order ...
DIAG_TAIL = struct.Struct("=IIIII")  # ... expires, rqueue, wqueue, uid, inode (at offset 52 of 72)
DIAG_MSG_LEN = 72
ATTR = struct.Struct("=HH")  # rtattr: length, type

# struct tcp_info (linux/tcp.h): the fields behind the items gftpwb reads, with their offsets. An
# older kernel sends a shorter struct; a field past its end is left out (as ss reads it as 0).
TCP_INFO_FIELDS = (
    ("retrans", 36, "=I"), ("rtt", 68, "=I"), ("rttvar", 72, "=I"), ("snd_cwnd", 80, "=I"),
    ("total_retrans", 100, "=I"), ("bytes_acked", 120, "=Q"), ("bytes_received", 128, "=Q"),
    ("delivery_rate", 160, "=Q"), ("bytes_retrans", 208, "=Q"),
)


class Probe:
    """One monitor as this sampler runs it (:func:`gftpwb.core.monitors.sampler.python_config`)."""

    __slots__ = ("command", "index", "interval_cs", "owners", "skip_ports", "timeout_s", "type")

    def __init__(self, index, interval_cs, type_, owners, timeout_s, skip_ports, command):
        self.index, self.interval_cs, self.type, self.owners = index, interval_cs, type_, owners
        self.timeout_s, self.skip_ports, self.command = timeout_s, skip_ports, command


def parse_config(text):
    """The nonce and the probes of the configuration text: the nonce on the first line, then a probe
    per line: ``INDEX INTERVAL_CS TYPE OWNERS TIMEOUT_S PORTS [ARG...]`` (``PORTS``: comma-separated
    or ``-``; each command argument hex-encoded UTF-8, so no character needs quoting)."""
    lines = text.split("\n")
    nonce, probes = lines[0], []
    if not nonce.isalnum():
        raise ValueError("bad nonce")
    for line in lines[1:]:
        if not line:
            continue
        fields = line.split(" ")
        ports = () if fields[5] == "-" else tuple(int(p) for p in fields[5].split(","))
        command = tuple(bytes.fromhex(arg).decode("utf-8") for arg in fields[6:])
        probes.append(Probe(int(fields[0]), max(1, int(fields[1])), fields[2], fields[3] == "1",
                            float(fields[4]), ports, command))
    if not probes:
        raise ValueError("no monitors")
    return nonce, probes


# --- tcp_info and ss's lines (pure) -----------------------------------------------------------------

def unpack_tcp_info(data):
    """The fields of :data:`TCP_INFO_FIELDS` that ``data`` (an INET_DIAG_INFO attribute) holds."""
    out = {}
    for name, offset, form in TCP_INFO_FIELDS:
        if offset + struct.calcsize(form) <= len(data):
            out[name] = struct.unpack_from(form, data, offset)[0]
    return out


def info_items(info):
    """The tcp_info items ``ss -i`` prints for these fields, in its order and with its conditions
    (iproute2 misc/ss.c, tcp_show_info and tcp_stats_print): an item of a zero field is left out."""
    get = info.get
    out = []
    if get("rtt", 0):
        out.append("rtt:%g/%g" % (get("rtt", 0) / 1000.0, get("rttvar", 0) / 1000.0))
    if get("snd_cwnd", 0):
        out.append("cwnd:%d" % get("snd_cwnd", 0))
    for name in ("bytes_retrans", "bytes_acked", "bytes_received"):
        if get(name, 0):
            out.append("%s:%d" % (name, get(name, 0)))
    if get("delivery_rate", 0):
        out.append("delivery_rate %.0fbps" % (get("delivery_rate", 0) * 8.0))
    if get("retrans", 0) or get("total_retrans", 0):
        out.append("retrans:%d/%d" % (get("retrans", 0), get("total_retrans", 0)))
    return out


def address(family, raw, port):
    """``127.0.0.1:80`` or ``[::1]:80``, as ``ss -n`` prints an address and port."""
    if family == AF_INET:
        return "%s:%d" % (sockets.inet_ntop(AF_INET, raw[:4]), port)
    return "[%s]:%d" % (sockets.inet_ntop(AF_INET6, raw[:16]), port)


def socket_lines(rqueue, wqueue, local, peer, owners, items):
    """The lines ``ss -tin[p] state established`` prints for one socket: ``Recv-Q Send-Q Local
    Peer [users:(...)]``, then its tcp_info items on a line of their own. ``owners``: (comm, pid,
    fd) in ss's order; a control character of a name is a ``?``, as ss escapes it."""
    line = "%d %d %s %s" % (rqueue, wqueue, local, peer)
    if owners:
        line += " users:(%s)" % ",".join('("%s",pid=%d,fd=%d)' % (_printable(comm), pid, fd)
                                         for comm, pid, fd in owners)
    return [line, "\t " + " ".join(items)] if items else [line]


def _printable(name):
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in name)


def parse_diag(data, skip_ports=()):
    """Sockets of netlink replies of a sock_diag dump: ``(rqueue, wqueue, local, peer, inode,
    tcp_info fields)`` per socket on no port of ``skip_ports``, and whether the dump is done. An
    error reply raises OSError with its errno."""
    out, done, offset = [], False, 0
    while offset + HEADER.size <= len(data):
        length, kind = HEADER.unpack_from(data, offset)[:2]
        if length < HEADER.size or offset + length > len(data):
            break
        if kind == NLMSG_DONE:
            done = True
            break
        if kind == NLMSG_ERROR:
            error = -struct.unpack_from("=i", data, offset + HEADER.size)[0]
            if error:
                raise OSError(error, os.strerror(error))
            done = True
            break
        body = offset + HEADER.size
        if length >= HEADER.size + DIAG_MSG_LEN:
            family = DIAG_MSG.unpack_from(data, body)[0]
            sport, dport, src, dst = DIAG_ID.unpack_from(data, body + 4)
            _expires, rqueue, wqueue, _uid, inode = DIAG_TAIL.unpack_from(data, body + 52)
            if sport not in skip_ports and dport not in skip_ports:
                info = {}
                attr, end = body + DIAG_MSG_LEN, offset + length
                while attr + ATTR.size <= end:
                    size, kind = ATTR.unpack_from(data, attr)
                    if size < ATTR.size:
                        break
                    if kind == INET_DIAG_INFO:
                        info = unpack_tcp_info(bytes(data[attr + ATTR.size:attr + size]))
                    attr += (size + 3) & ~3
                out.append((rqueue, wqueue, address(family, src, sport), address(family, dst, dport), inode, info))
        offset += (length + 3) & ~3
    return out, done


def diag_request(family=None, sequence=1):
    """A dump request of the established TCP sockets with their tcp_info: both families in one
    (TCPDIAG_GETSOCK with inet_diag_req), or one ``family`` (inet_diag_req_v2)."""
    states, ext, sockid = 1 << TCP_ESTABLISHED, 1 << (INET_DIAG_INFO - 1), b"\0" * 48
    if family is None:
        kind, body = TCPDIAG_GETSOCK, struct.pack("=BBBB", 0, 0, 0, ext) + sockid + struct.pack("=II", states, 0)
    else:
        kind, body = SOCK_DIAG_BY_FAMILY, struct.pack("=BBBBI", family, IPPROTO_TCP, ext, 0, states) + sockid
    return HEADER.pack(HEADER.size + len(body), kind, NLM_F_REQUEST_DUMP, sequence, 0) + body


def ss_argv(probe):
    """What the sh sampler runs for a tcp probe (this sampler runs it when netlink is refused)."""
    argv = ["ss", "-tinp" if probe.owners else "-tin", "state", "established"]
    if probe.skip_ports:
        argv.append("not ( %s )" % " or ".join("sport = :%d or dport = :%d" % (p, p) for p in probe.skip_ports))
    return argv


# --- I/O ----------------------------------------------------------------------------------------------

def read_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


class Owners:
    """Socket inode -> its owners ``(comm, pid, fd)``, as ``ss -p`` finds them (every process's
    /proc/PID/fd), looked up again only when a socket appears that was not there at the last look:
    a socket's owners rarely change while it lives, and the look costs ms on a busy host."""

    def __init__(self, proc="/proc"):
        self.proc = proc
        self.by_inode = {}
        self.scans = 0

    def of(self, inodes):
        known = self.by_inode
        if any(inode not in known for inode in inodes):
            self.scan(inodes)
        elif len(known) > len(inodes):
            self.by_inode = {inode: known[inode] for inode in inodes}
        return self.by_inode

    def scan(self, inodes):
        wanted = set(inodes)
        found = {}
        for pid in os.listdir(self.proc):
            if not pid.isdigit():
                continue
            base = "%s/%s/fd/" % (self.proc, pid)
            try:
                fds = os.listdir(base)
            except OSError:
                continue
            comm = None
            for fd in fds:
                try:
                    link = os.readlink(base + fd)
                except OSError:
                    continue
                if not link.startswith("socket:["):
                    continue
                inode = int(link[8:-1])
                if inode not in wanted:
                    continue
                if comm is None:
                    comm = self.comm(pid)
                found.setdefault(inode, []).append((comm, int(pid), int(fd)))
        # ss keeps each inode's owners in a list it prepends to, so it prints them last found first
        self.by_inode = {inode: tuple(reversed(found.get(inode, ()))) for inode in wanted}
        self.scans += 1

    def comm(self, pid):
        try:
            stat = read_file("%s/%s/stat" % (self.proc, pid)).decode("utf-8", "replace")
        except OSError:
            return ""
        return stat.partition("(")[2].partition(")")[0]


class Diag:
    """The tcp readings of one probe: a netlink socket kept open across readings."""

    def __init__(self, probe):
        self.probe = probe
        self.owners = Owners() if probe.owners else None
        self.sock = None
        self.families = [None]  # one compatible request; [AF_INET, AF_INET6] if it is refused
        self.sequence = 0
        self.worked = False  # a dump has succeeded: netlink works here

    def read(self):
        """(status, text) of one reading. If the kernel refuses the first dump, the per-family
        requests are tried, then ``ss`` (as the sh sampler) for the rest of the run; a dump that fails
        later is an error of that reading."""
        if self.families is None:
            return run_command(ss_argv(self.probe), 10.0)
        try:
            found = self.dump()
        except OSError as exc:
            self.close()
            if self.worked:
                return 1, "%s: sock_diag: %s" % (NAME, exc)
            if self.families == [None]:
                self.families = [AF_INET, AF_INET6]
            else:
                self.families = None
                sys.stderr.write("%s: sock_diag refused (%s); the tcp monitor runs ss\n" % (NAME, exc))
                sys.stderr.flush()
            return self.read()
        self.worked = True
        return 0, self.text(found)

    def dump(self):
        """The sockets of one dump (:func:`parse_diag`)."""
        if self.sock is None:
            self.sock = sockets.socket(AF_NETLINK, sockets.SOCK_RAW, NETLINK_SOCK_DIAG)
            self.sock.bind((0, 0))
        found = []
        for family in self.families:
            self.sequence += 1
            self.sock.sendto(diag_request(family, self.sequence), (0, 0))
            done = False
            while not done:
                data = self.sock.recv(65536)
                if not data:
                    break
                sockets_, done = parse_diag(data, self.probe.skip_ports)
                found.extend(sockets_)
        return found

    def text(self, found):
        """The lines ss prints for the sockets ``found``, with their owners if the probe wants them."""
        owners = self.owners.of([s[4] for s in found]) if self.owners is not None else {}
        lines = []
        for rqueue, wqueue, local, peer, inode, info in found:
            lines.extend(socket_lines(rqueue, wqueue, local, peer, owners.get(inode, ()), info_items(info)))
        return "\n".join(lines)

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def run_command(argv, timeout_s):
    """(status, output with stderr) of a command, stopped after ``timeout_s`` like ``timeout -k 1``:
    SIGTERM, then SIGKILL a second later, status 124."""
    import subprocess  # only with a command monitor: importing it costs more than a whole start

    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    except OSError as exc:
        return (127 if isinstance(exc, FileNotFoundError) else 126), "%s: %s" % (argv[0], exc.strerror)
    try:
        try:
            out = proc.communicate(timeout=timeout_s)[0]
            status = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                out = proc.communicate(timeout=1.0)[0]
            except subprocess.TimeoutExpired:
                proc.kill()
                out = proc.communicate()[0]
            status = TIMEOUT_STATUS
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return status, out.decode("utf-8", "replace")


def reading(probe, diag):
    """(status, text) of one reading of ``probe``."""
    kind = probe.type
    try:
        if kind == "cpu":
            stat = read_file("/proc/stat").decode("ascii", "replace")
            load = read_file("/proc/loadavg").decode("ascii", "replace")
            return 0, stat.partition("\n")[0].strip() + "\n" + load.strip()
        if kind == "memory":
            return 0, read_file("/proc/meminfo").decode("utf-8", "replace")
        if kind == "net":
            return 0, read_file("/proc/net/dev").decode("utf-8", "replace")
        if kind == "disk":
            return 0, read_file("/proc/diskstats").decode("utf-8", "replace")
        if kind == "tcp":
            return diag.read()
        if kind == "command":
            return run_command(probe.command, max(probe.timeout_s, 0.1))
    except OSError as exc:
        return 1, "%s: %s" % (NAME, exc)
    return 1, "%s: unknown monitor type %s" % (NAME, kind)


def uptime_clock():
    """A function giving the uptime clock in hundredths of a second (/proc/uptime's clock)."""
    try:
        time.clock_gettime(CLOCK_BOOTTIME)
        return lambda: int(time.clock_gettime(CLOCK_BOOTTIME) * 100)
    except (AttributeError, OSError):
        def from_file():
            return int(float(read_file("/proc/uptime").split()[0]) * 100)
        return from_file


def write_all(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def run(nonce, probes, parent):
    """The loop: every probe at its interval (deadlines on the uptime clock, so lateness does not
    add up), each round's readings in one write, then a sleep until the next deadline."""
    up = uptime_clock()
    before = up()
    epoch = time.time()
    now = up()
    out = ["%s %s %d %.6f %d\n" % (CLOCK, nonce, before, epoch, now)]
    due = {probe.index: now for probe in probes}
    diags = {probe.index: Diag(probe) for probe in probes if probe.type == "tcp"}
    while True:
        for probe in probes:
            now = up()
            if now >= due[probe.index]:
                status, text = reading(probe, diags.get(probe.index))
                text = text.rstrip("\n")
                out.append("%s %s %d %d\n%s%s%s %s %d %d\n" % (
                    START, nonce, probe.index, now, text, "\n" if text else "", END, nonce, probe.index, status))
                due[probe.index] += probe.interval_cs
                if due[probe.index] <= now:
                    due[probe.index] = now + probe.interval_cs
        if out:
            write_all("".join(out).encode("utf-8", "replace"))
            out = []
        if os.getppid() != parent:
            return
        wait = min(due.values()) - up()
        if wait > 0:
            time.sleep(wait / 100.0)


def fall_back(shloop, why):
    """Become the sh sampler (same process, same parent)."""
    sys.stderr.write("%s: python3 cannot sample here (%s); the sh sampler runs\n" % (NAME, why))
    sys.stderr.flush()
    try:
        os.execv("/bin/sh", ["/bin/sh", "-c", shloop, NAME])
    except OSError as exc:
        sys.stderr.write("%s: cannot run /bin/sh: %s\n" % (NAME, exc))
    return 127


def stop(signum, frame):
    raise SystemExit(0)


def main(argv):
    """``argv``: NAME MODE PARENT_PID CONFIG SH_LOOP (the sh command's ``exec python3 -c ...``)."""
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        signals.signal(getattr(signals, name), stop)
    try:
        _name, mode, parent, config, shloop = argv[:5]
    except ValueError:
        sys.stderr.write("%s: expected NAME MODE PARENT CONFIG SH_LOOP\n" % NAME)
        return 2
    try:
        if sys.version_info < (3, 4):
            raise RuntimeError("Python %d.%d is older than 3.4" % sys.version_info[:2])
        nonce, probes = parse_config(config)
        parent = int(parent)
    except Exception as exc:
        if mode == "python":
            sys.stderr.write("%s: cannot start: %s\n" % (NAME, exc))
            return 2
        return fall_back(shloop, exc)
    try:  # found by name (pgrep gftpwb-sampler) as well as by command line
        with open("/proc/self/comm", "w") as handle:
            handle.write(NAME)
    except OSError:
        pass
    try:
        run(nonce, probes, parent)
    except BrokenPipeError:
        pass  # the controller went: nobody reads any more
    except Exception as exc:  # a bug of this program: one line, never a traceback
        sys.stderr.write("%s: stopped: %s: %s\n" % (NAME, type(exc).__name__, exc))
        return 70
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))  # python3 -c TEXT NAME ...: sys.argv[0] is "-c"
