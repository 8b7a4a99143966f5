"""The lab's XRootD servers: one xrootd per place serving ``root://`` and ``http://`` (XrdHttp) with
third-party copies (XRootD TPC through ``ofs.tpc``, HTTP-TPC through XrdHttpTPC), anonymous, over the
whole file system the lab's GridFTP servers serve (``all.export /``), as the user ``nobody`` (the
GridFTP servers' anonymous user).

Places: this machine on loopback (``gftpwb lab up --xrootd``), and each namespace host of the lab
(``--xrootd`` with ``--hosts N``), where a server listens on the host's own address. The state
directory keeps ``<state dir>/xrootd/``: ``xrootd.json`` with what was started, and a small CA
(Debian's xrootd 5.5 loads its HTTP extension handlers, TPC among them, only once TLS is configured;
clients keep using plain ``http://``, the port answers both). What the servers themselves read and
write as ``nobody`` (configuration, certificate and key, admin directory, log, pid file: one
directory per server) lives in a run directory ``nobody`` can reach: the state directory is often
under a home only root may enter (``/root`` is 0700), so it is a fresh ``gftpwb-xrootd-*`` directory
in the system's temporary directory, recorded in ``xrootd.json`` and removed by ``lab down``. Ports
are chosen per state directory, so the loopback servers of two labs (two sessions' tests) do not
meet; in a namespace the standard ports are free.

xrootd listens on every address of its network namespace (it has no per-address bind): on this
machine that is loopback and the lab's bridge address, nothing else the lab reaches.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field

from gftpwb.core.errors import EnvironmentProblem, LabError
from gftpwb.shell.files import atomic_write

from .gridftp import _pid_alive, free_port, kill_group, port_open, read_state, user_state_dir

XROOTD = "xrootd"
XRDCP = "xrdcp"
STATE_FILE = "xrootd.json"
RUN_DIR_PREFIX = "gftpwb-xrootd-"
LOCAL_PLACE = "local"
DEFAULT_ROOT_PORT = 1094  # XRootD's registered port
DEFAULT_HTTP_PORT = 8094
RUN_AS = "nobody"
EXTHANDLER = "libXrdHttpTPC.so"
PACKAGES = "xrootd-server xrootd-server-plugins xrootd-client"


def _hand_over(where: str) -> None:
    """Gives a server's folder to :data:`RUN_AS`. A folder used before holds what an earlier xrootd left
    in its admin area (links into /proc of a process gone, files it removes as it stops): links are
    handed over themselves, never followed, and an entry gone meanwhile is not an error."""
    account = pwd.getpwnam(RUN_AS)
    for root, dirs, files in os.walk(where):
        for name in [*dirs, *files]:
            with contextlib.suppress(FileNotFoundError):
                os.chown(os.path.join(root, name), account.pw_uid, account.pw_gid, follow_symlinks=False)
    os.chown(where, account.pw_uid, account.pw_gid)


@dataclass
class XrootdServer:
    """One xrootd: where it runs (``local`` or a namespace host's name), its address and ports."""

    place: str
    address: str
    root_port: int
    http_port: int
    netns: str = ""
    pid: int | None = None

    @property
    def root_url(self) -> str:
        return f"root://{self.address}:{self.root_port}/"

    @property
    def http_url(self) -> str:
        return f"http://{self.address}:{self.http_port}/"


@dataclass
class XrootdState:
    servers: list[XrootdServer] = field(default_factory=list)
    #: The servers' run directory (see the module's text); "" before the first start.
    run_dir: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> XrootdState:
        return cls(servers=[XrootdServer(**s) for s in data.get("servers", [])], run_dir=data.get("run_dir", ""))


def config_text(server: XrootdServer, directory: str, cadir: str) -> str:
    """The server's configuration: the whole file system exported read-write, xroot on ``root_port``,
    XrdHttp with the TPC handler on ``http_port``, XRootD TPC by the server's own ``xrdcp``."""
    return "\n".join([
        "all.export /",
        # No reverse lookups of clients: a namespace host has no DNS server, and each lookup would
        # wait out the resolver's timeouts (10 s per connection seen) before the handshake.
        "xrd.network nodnr",
        # checksums the clients may ask for (xrdcp --cksum, gfal-copy -K); computed when asked
        "xrootd.chksum max 4 adler32 crc32 crc32c md5",
        f"xrd.port {server.root_port}",
        f"all.adminpath {directory}/admin",
        f"all.pidpath {directory}/run",
        f"xrd.protocol XrdHttp:{server.http_port} libXrdHttp.so",
        f"http.exthandler xrdtpc {EXTHANDLER}",
        "http.desthttps false",
        f"xrd.tls {directory}/server.pem {directory}/server.key",
        f"xrd.tlsca certdir {cadir}",
        f"ofs.tpc ttl 60 60 xfr 16 pgm {shutil.which(XRDCP) or '/usr/bin/xrdcp'} --server",
        "",
    ])


def _openssl(*args: str) -> None:
    result = subprocess.run(["openssl", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise LabError(f"openssl {args[0]} failed: {(result.stderr or result.stdout).strip()}")


class XrootdLab:
    """The XRootD servers of one lab state directory."""

    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.directory = os.path.join(state_dir, "xrootd")
        self.state_file = os.path.join(self.directory, STATE_FILE)
        self.pki = os.path.join(self.directory, "pki")

    # --- state ------------------------------------------------------------------------------------

    def load(self) -> XrootdState:
        return XrootdState.from_dict(read_state(self.state_file))

    def _save(self, state: XrootdState) -> None:
        os.makedirs(self.directory, exist_ok=True)
        atomic_write(self.state_file, json.dumps(state.to_dict(), indent=1))

    def configured(self) -> bool:
        return os.path.exists(self.state_file)

    @staticmethod
    def running(server: XrootdServer) -> bool:
        """Its process is alive and is xrootd (by name: its command line is not a safe guide, it was
        seen empty once while xrootd started; a namespace host's is ``ip netns exec`` until that
        execs xrootd)."""
        if server.pid is None or not _pid_alive(server.pid):
            return False
        try:
            with open(f"/proc/{server.pid}/comm", "rb") as handle:
                name = handle.read().strip()
            with open(f"/proc/{server.pid}/cmdline", "rb") as handle:
                command = handle.read()
        except OSError:
            return False
        return name in (XROOTD.encode(), b"ip") or XROOTD.encode() in command

    # --- up ---------------------------------------------------------------------------------------

    def up(self, *, address: str = "127.0.0.1", hosts: list[dict] | None = None, wait_s: float = 20.0) -> XrootdState:
        """Start the loopback server and one per namespace host (``hosts``: the net lab's status
        entries: name, netns, address) unless already running; wait until each answers both ports."""
        self._check_tools()
        state = self.load()
        wanted = [self._local(state, address)] + [self._in_host(state, h) for h in hosts or []]
        os.makedirs(self.directory, exist_ok=True)
        self._make_ca()
        state.run_dir = self._run_dir(state)
        started = []
        for server in wanted:
            if not self.running(server):
                self._start(server, state.run_dir)
                started.append(server)
        state.servers = wanted + [s for s in state.servers if s.place not in {w.place for w in wanted}]
        self._save(state)
        try:
            self._wait(started, wait_s, state.run_dir)
        except BaseException:
            self.down(keep_run_dir=True)  # its logs say why
            raise
        return state

    def _run_dir(self, state: XrootdState) -> str:
        """The servers' run directory: the one recorded while it is still there (servers of this lab
        may be running from it), else a new one: a unique name, made by root, readable by all."""
        if state.run_dir and os.path.isdir(state.run_dir) and os.stat(state.run_dir).st_uid == os.geteuid():
            return state.run_dir
        path = tempfile.mkdtemp(prefix=RUN_DIR_PREFIX)
        os.chmod(path, 0o755)
        return path

    def _local(self, state: XrootdState, address: str) -> XrootdServer:
        known = next((s for s in state.servers if s.place == LOCAL_PLACE), None)
        if known is not None:
            return known
        default = os.path.realpath(self.state_dir) == os.path.realpath(user_state_dir())
        ports = [DEFAULT_ROOT_PORT, DEFAULT_HTTP_PORT] if default else [free_port(address)]
        while len(ports) < 2:
            port = free_port(address)
            if port not in ports:
                ports.append(port)
        for port in ports:
            if port_open(address, port):
                raise LabError(f"port {address}:{port} is already in use by another program; the lab's xrootd "
                               "needs it (start the lab in another state directory: --state-dir)")
        return XrootdServer(LOCAL_PLACE, address, ports[0], ports[1])

    @staticmethod
    def _in_host(state: XrootdState, host: dict) -> XrootdServer:
        known = next((s for s in state.servers if s.place == host["name"]), None)
        if known is not None and known.address == host["address"]:
            return known
        return XrootdServer(host["name"], host["address"], DEFAULT_ROOT_PORT, DEFAULT_HTTP_PORT, netns=host["netns"])

    @staticmethod
    def _check_tools() -> None:
        for tool in (XROOTD, XRDCP, "openssl"):
            if shutil.which(tool) is None:
                raise EnvironmentProblem(f"{tool} not found in PATH; install the Debian packages {PACKAGES} openssl "
                                         "(make test does)")
        if os.geteuid() != 0:
            raise LabError(f"the lab's xrootd runs as {RUN_AS} and must be started as root")

    def _make_ca(self) -> None:
        """A CA of the lab (once) whose directory the servers trust (XrdHttpTPC's pulls verify with it)."""
        cadir = os.path.join(self.pki, "cadir")
        ca_key, ca_pem = os.path.join(self.pki, "ca.key"), os.path.join(self.pki, "ca.pem")
        if os.path.exists(ca_pem):
            return
        os.makedirs(cadir, exist_ok=True)
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca_pem, "-days", "3650",
                 "-subj", "/CN=gftpwb lab CA")
        shutil.copy(ca_pem, os.path.join(cadir, "ca.pem"))
        _openssl("rehash", cadir)

    def _make_cert(self, server: XrootdServer) -> None:
        """The server's certificate for its address (and localhost), signed by the lab's CA."""
        base = os.path.join(self.pki, server.place)
        if os.path.exists(base + ".pem"):
            return
        ext = base + ".ext"
        with open(ext, "w", encoding="ascii") as handle:
            handle.write(f"subjectAltName=IP:{server.address},DNS:localhost\nbasicConstraints=CA:FALSE\n"
                         "extendedKeyUsage=serverAuth,clientAuth\n")
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".csr",
                 "-subj", f"/CN={server.address}")
        _openssl("x509", "-req", "-in", base + ".csr", "-CA", os.path.join(self.pki, "ca.pem"), "-CAkey",
                 os.path.join(self.pki, "ca.key"), "-CAcreateserial", "-out", base + ".pem", "-days", "3650",
                 "-extfile", ext)
        os.chmod(base + ".key", 0o600)

    def _start(self, server: XrootdServer, run_dir: str) -> None:
        self._make_cert(server)
        where = os.path.join(run_dir, server.place)
        for sub in ("admin", "run", "cadir"):
            os.makedirs(os.path.join(where, sub), exist_ok=True)
        base = os.path.join(self.pki, server.place)
        shutil.copy(base + ".pem", os.path.join(where, "server.pem"))
        shutil.copy(base + ".key", os.path.join(where, "server.key"))
        cadir = os.path.join(self.pki, "cadir")
        for name in os.listdir(cadir):
            shutil.copy(os.path.join(cadir, name), os.path.join(where, "cadir", name), follow_symlinks=True)
        config = os.path.join(where, "xrootd.cfg")
        with open(config, "w", encoding="ascii") as handle:
            handle.write(config_text(server, where, os.path.join(where, "cadir")))
        _hand_over(where)
        os.chmod(os.path.join(where, "server.key"), 0o600)
        argv = [shutil.which(XROOTD) or XROOTD, "-c", config, "-R", RUN_AS, "-l", os.path.join(where, "xrootd.log")]
        if server.netns:
            argv = ["ip", "netns", "exec", server.netns, *argv]
        with open(os.path.join(where, "xrootd.out"), "ab") as out:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=where)
        server.pid = proc.pid

    def _wait(self, servers: list[XrootdServer], wait_s: float, run_dir: str) -> None:
        deadline = time.monotonic() + wait_s
        for server in servers:
            while not (port_open(server.address, server.root_port) and port_open(server.address, server.http_port)):
                if not self.running(server):
                    out = os.path.join(run_dir, server.place, "xrootd.out")
                    raise LabError(f"xrootd ({server.place}) exited at start: {_tail(out)} (see {out} and the "
                                   "xrootd.log beside it)")
                if time.monotonic() > deadline:
                    raise LabError(f"xrootd ({server.place}) did not answer on {server.address}:{server.root_port} "
                                   f"and :{server.http_port} within {wait_s:.0f}s")
                time.sleep(0.05)

    # --- down and status --------------------------------------------------------------------------

    def down(self, places: set[str] | None = None, *, keep_run_dir: bool = False) -> bool:
        """Stop the servers (those of ``places`` only, when given) and, with the last, remove their run
        directory unless ``keep_run_dir``; True if one was running."""
        state = self.load()
        was = False
        for server in state.servers:
            if places is not None and server.place not in places:
                continue
            if self.running(server) and server.pid is not None:
                kill_group(server.pid)
                was = True
        state.servers = [s for s in state.servers if places is not None and s.place not in places]
        if state.servers:
            self._save(state)
        else:
            if state.run_dir and not keep_run_dir and os.path.basename(state.run_dir).startswith(RUN_DIR_PREFIX):
                shutil.rmtree(state.run_dir, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.state_file)
        return was

    def status(self) -> dict | None:
        """The servers and their URLs (None when the lab has none)."""
        if not self.configured():
            return None
        state = self.load()
        return {"servers": [{**asdict(s), "root_url": s.root_url, "http_url": s.http_url, "running": self.running(s),
                             "log": os.path.join(state.run_dir, s.place, "xrootd.log")} for s in state.servers]}

    def server(self, place: str = LOCAL_PLACE) -> XrootdServer | None:
        return next((s for s in self.load().servers if s.place == place), None)


def _tail(path: str) -> str:
    """The last line of a server's output (why it exited), or what is known without it."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        return "no output"
    return lines[-1] if lines else "no output"


