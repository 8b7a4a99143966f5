"""The lab's test hosts: network namespaces joined to the controller, each with its own sshd.

``gftpwb lab up --hosts N`` builds, for one lab state directory::

    controller (root namespace)                        namespace <prefix>-h1 ... -hN
    bridge <prefix>-br  10.A.B.1/24  <── veth ──>  <prefix>-hIn  10.A.B.(I+1)/24  sshd :22
           (a GridFTP server on 10.A.B.1 too)        (optionally a GridFTP server on :2811)

* Every name starts with a prefix made from a hash of the state directory (``gw3f2a``), and the /24
  is chosen free on this machine, so labs of several checkouts coexist. ``hosts.json`` records what
  was made *before* it is made; ``lab down`` removes exactly that and nothing else.
* Keys: one ed25519 host key per namespace, one user key (``id_ed25519``) for root logins, and a
  ``known_hosts`` file with every host's key, so host keys are verified as in production.
* The controller's address on the bridge (``controller_address``) is where namespace hosts reach
  the controller: a second GridFTP server of the lab listens there (the loopback one is unchanged),
  and other services (glusterd) can bind it too.
* ``--rate`` shapes every link in both directions with ``tc qdisc ... tbf`` (netem is not available).
* WAN links between hosts (``--rtt``, ``--loss``, ``--jitter``, ``--link``): a user-space delay line
  per host pair (:mod:`.wan`); the controller's links stay fast, and ``--rate`` then shapes the WAN
  links instead of the veths.
* ``hosts.yaml`` is an inventory snippet (``hosts:``) for scenarios; ``status()`` returns the same
  data for ``lab status --json``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from gftpwb.core.errors import EnvironmentProblem, LabError, UsageError
from gftpwb.core.wanlink import RATE_PATTERN, LinkSettings
from gftpwb.shell.files import atomic_write

from .gridftp import SERVER, GridftpLab, _pid_alive, kill_group, port_open
from .striped import LabNode, StripedLab
from .wan import WanLink, WanLinks

SSHD = "/usr/sbin/sshd"
STATE_FILE = "hosts.json"
LOCK_FILE = "/run/lock/gftpwb-netlab.lock"  # serialises subnet choice between labs of this machine
MAX_HOSTS = 200


def lab_prefix(state_dir: str) -> str:
    """``gw`` + 4 hex digits of the state directory's path: short enough for interface names."""
    return "gw" + hashlib.sha1(os.path.realpath(state_dir).encode()).hexdigest()[:4]


@dataclass
class LabHost:
    name: str  # inventory name: h1, h2, ...
    netns: str
    veth_controller: str
    veth_host: str
    address: str
    host_key: str
    sshd_pid: int | None = None
    gridftp_pid: int | None = None


@dataclass
class NetLabState:
    prefix: str
    subnet: str  # 10.A.B.0/24
    bridge: str
    controller_address: str
    identity: str
    known_hosts: str
    rate: str = ""
    gridftp_on_hosts: bool = False
    gridftp_port: int = 2811
    striped: bool = False  # striped GridFTP: data nodes on the hosts, front ends on the bridge (striped.py)
    hosts: list[LabHost] = field(default_factory=list)
    links: list[WanLink] = field(default_factory=list)  # WAN links between hosts (wan.py)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NetLabState:
        hosts = [LabHost(**h) for h in data.get("hosts", [])]
        links = [WanLink.from_dict(k) for k in data.get("links", [])]
        return cls(**{**data, "hosts": hosts, "links": links})

    def link_request(self) -> dict[tuple[str, str], dict]:
        """The links ``lab up`` was asked for (``lab link`` changes since then do not count)."""
        return {(k.pair[0], k.pair[1]): LinkSettings.from_dict(k.requested or k.settings).to_dict() for k in self.links}


def _run(argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if check and result.returncode != 0:
        raise LabError(f"{' '.join(argv)} failed: {(result.stderr or result.stdout).strip()}")
    return result


def _ns(netns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv]


def _cmdline_has(pid: int, needle: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return needle.encode() in handle.read()
    except OSError:
        return False


def _used_networks() -> list[ipaddress.IPv4Network]:
    """Every IPv4 network on this machine's addresses and routes (root namespace)."""
    nets: list[ipaddress.IPv4Network] = []
    for argv in (["ip", "-o", "-4", "addr", "show"], ["ip", "-4", "route", "show", "table", "all"]):
        for token in _run(argv, check=False).stdout.split():
            with contextlib.suppress(ValueError):
                if "/" in token or re.fullmatch(r"\d+\.\d+\.\d+\.\d+", token):
                    nets.append(ipaddress.ip_network(token, strict=False))  # type: ignore[arg-type]
    return nets


def _pick_subnet(prefix: str) -> ipaddress.IPv4Network:
    """A free 10.A.B.0/24, starting from one derived from the prefix (stable for a state directory)."""
    used = _used_networks()
    start = int(prefix[2:], 16)
    for step in range(4096):
        n = (start + step) % 4096
        candidate = ipaddress.ip_network(f"10.{200 + n // 256 % 50}.{n % 256}.0/24")
        if not any(candidate.overlaps(u) for u in used if u.prefixlen > 0):
            return candidate
    raise LabError("no free 10.x.y.0/24 network for the lab on this machine")


class NetLab:
    """Namespace hosts of one lab state directory."""

    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.prefix = lab_prefix(state_dir)
        self.state_file = os.path.join(state_dir, STATE_FILE)
        self.key_dir = os.path.join(state_dir, "ssh")
        self.bridge_gridftp = GridftpLab(os.path.join(state_dir, "bridge-gridftp"))
        self.striped = StripedLab(state_dir)
        self.wan = WanLinks(state_dir, self.prefix)

    # --- state ------------------------------------------------------------------------------------

    def load(self) -> NetLabState | None:
        try:
            with open(self.state_file, encoding="utf-8") as handle:
                return NetLabState.from_dict(json.load(handle))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            raise LabError(f"{self.state_file} is unreadable ({exc}); remove the lab's namespaces by hand "
                           f"(ip netns list | grep {self.prefix}) and delete the file") from None

    def _save(self, state: NetLabState) -> None:
        os.makedirs(self.state_dir, exist_ok=True)
        atomic_write(self.state_file, json.dumps(state.to_dict(), indent=1))
        self._write_inventory(state)

    # --- up ---------------------------------------------------------------------------------------

    def up(self, count: int, *, rate: str = "", gridftp_on_hosts: bool = False,
           gridftp_port: int = 2811, striped: bool = False,
           links: Mapping[tuple[str, str], LinkSettings] | None = None) -> NetLabState:
        """Create ``count`` namespace hosts (idempotent for the same request); with ``striped``, a
        striped GridFTP data node per side on each and a front end per side (:mod:`.striped`); with
        ``links`` (:func:`gftpwb.core.wanlink.plan_links`), a WAN link per host pair named (:mod:`.wan`)."""
        self.check_request(count, rate)
        self._check_tools(gridftp_on_hosts)
        links = dict(links or {})
        existing = self.load()
        if existing is not None:
            if (len(existing.hosts), existing.rate, existing.gridftp_on_hosts, existing.striped) != (
                    count, rate, gridftp_on_hosts, striped) or existing.link_request() != {
                    pair: s.to_dict() for pair, s in links.items()}:
                raise LabError(f"the lab already has {len(existing.hosts)} host(s) (rate {existing.rate or 'unshaped'}"
                               f", GridFTP on hosts: {'yes' if existing.gridftp_on_hosts else 'no'}, striped: "
                               f"{'yes' if existing.striped else 'no'}, WAN links: {_links_text(existing)}); run "
                               "'gftpwb lab down' first to change it (or 'gftpwb lab link' to change a WAN link)")
            self._revive(existing)
            return existing
        os.makedirs(self.key_dir, exist_ok=True)
        os.makedirs(os.path.dirname(LOCK_FILE), exist_ok=True)
        with open(LOCK_FILE, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            subnet = _pick_subnet(self.prefix)
            addresses = list(subnet.hosts())
            state = NetLabState(
                prefix=self.prefix, subnet=str(subnet), bridge=f"{self.prefix}-br",
                controller_address=str(addresses[0]), identity=os.path.join(self.key_dir, "id_ed25519"),
                known_hosts=os.path.join(self.key_dir, "known_hosts"), rate=rate, gridftp_on_hosts=gridftp_on_hosts,
                gridftp_port=gridftp_port, striped=striped,
                hosts=[LabHost(name=f"h{i}", netns=f"{self.prefix}-h{i}", veth_controller=f"{self.prefix}-h{i}c",
                               veth_host=f"{self.prefix}-h{i}n", address=str(addresses[i]),
                               host_key=os.path.join(self.key_dir, f"h{i}_host_ed25519"))
                       for i in range(1, count + 1)])
            state.links = self.wan.plan({h.name: (h.netns, h.address) for h in state.hosts}, links, _now())
            self._save(state)  # recorded before anything exists, so down can undo a half-made lab
            try:
                self._make_network(state)
                self.wan.make(state.links)
                self._save(state)
            except BaseException:
                self.down()
                raise
        try:
            self._make_keys(state)
            for host in state.hosts:
                self._start_sshd(state, host)
                if gridftp_on_hosts:
                    self._start_host_gridftp(state, host)
                self._save(state)
            self.bridge_gridftp.up(port=gridftp_port, address=state.controller_address)
            self._wait_for_sshd(state)
            self.wan.measure(state.links)
            self._save(state)
            self.wan.publish(state.links)
            if striped:
                self.striped.up(state.controller_address, self._striped_nodes(state))
        except BaseException:
            self.down()
            raise
        return state

    def change_links(self, values: Mapping[str, str], pairs: list[tuple[str, str]] | None = None) -> list[dict]:
        """Give running WAN links new settings (``{"rate": "500mbit"}``, as typed): every link, or those
        of ``pairs``. Returns each changed link's status; a new delay is measured again."""
        state = self.load()
        if state is None or not state.links:
            raise LabError("the lab has no WAN links; make them with gftpwb lab up --hosts N --rtt 60ms "
                           "(or --link h1-h2:rtt=60ms)")
        chosen = [k for k in state.links if pairs is None or (k.pair[0], k.pair[1]) in pairs]
        missing = [f"{a}-{b}" for a, b in pairs or [] if not any(k.pair == [a, b] for k in state.links)]
        if missing:
            raise UsageError(f"the lab has no WAN link {', '.join(missing)} (links: "
                             f"{', '.join(k.name for k in state.links)})")
        try:
            new = {k.name: k.link_settings().changed(values) for k in chosen}
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        when = _now()
        remeasure = []
        for link in chosen:
            old = link.link_settings()
            self.wan.change(link, new[link.name], when)
            if (old.rtt_s, old.jitter_s, old.offload) != (new[link.name].rtt_s, new[link.name].jitter_s,
                                                           new[link.name].offload):
                remeasure.append(link)
            self._save(state)
        self.wan.measure(remeasure)
        self._save(state)
        self.wan.publish(state.links)
        return [self.wan.status(k) for k in chosen]

    @staticmethod
    def check_request(count: int, rate: str = "") -> None:
        """Command-line mistakes, caught before anything is started."""
        if not 1 <= count <= MAX_HOSTS:
            raise UsageError(f"--hosts must be between 1 and {MAX_HOSTS}")
        if rate and not RATE_PATTERN.fullmatch(rate):
            raise UsageError(f"bad --rate {rate!r}: use a tc rate such as 400mbit, 1gbit or 100mbps")

    @staticmethod
    def _check_tools(gridftp: bool) -> None:
        for tool in ("ip", "tc", "ssh-keygen"):
            if shutil.which(tool) is None:
                raise EnvironmentProblem(f"{tool} not found; install iproute2 and openssh-client (make test does)")
        if not os.path.exists(SSHD):
            raise EnvironmentProblem(f"{SSHD} not found; install openssh-server (make test does)")
        if shutil.which(SERVER) is None:
            raise EnvironmentProblem(f"{SERVER} not found; install globus-gridftp-server-progs")
        if os.geteuid() != 0:
            raise LabError("namespace hosts need root (ip netns, veth, sshd); run as root or with sudo")

    def _make_network(self, state: NetLabState) -> None:
        prefixlen = ipaddress.ip_network(state.subnet).prefixlen
        _run(["ip", "link", "add", state.bridge, "type", "bridge"])
        _run(["ip", "addr", "add", f"{state.controller_address}/{prefixlen}", "dev", state.bridge])
        _run(["ip", "link", "set", state.bridge, "up"])
        for host in state.hosts:
            _run(["ip", "netns", "add", host.netns])
            self._write_netns_etc(state, host)
            _run(["ip", "link", "add", host.veth_controller, "type", "veth", "peer", "name", host.veth_host])
            _run(["ip", "link", "set", host.veth_host, "netns", host.netns])
            _run(["ip", "link", "set", host.veth_controller, "master", state.bridge])
            _run(["ip", "link", "set", host.veth_controller, "up"])
            _run(_ns(host.netns, "ip", "link", "set", "lo", "up"))
            _run(_ns(host.netns, "ip", "addr", "add", f"{host.address}/{prefixlen}", "dev", host.veth_host))
            _run(_ns(host.netns, "ip", "link", "set", host.veth_host, "up"))
            _run(_ns(host.netns, "ip", "route", "add", "default", "via", state.controller_address))
            if state.rate:
                tbf = ["root", "tbf", "rate", state.rate, "burst", "256kb", "latency", "50ms"]
                _run(["tc", "qdisc", "replace", "dev", host.veth_controller, *tbf])
                _run(_ns(host.netns, "tc", "qdisc", "replace", "dev", host.veth_host, *tbf))

    @staticmethod
    def _write_netns_etc(state: NetLabState, host: LabHost) -> None:
        """Files ``ip netns exec`` mounts over /etc inside the namespace. ``hosts``: the machine's
        entries plus every lab address, so reverse lookups (the GridFTP server does them at start)
        answer from the file instead of a DNS server the namespace cannot reach."""
        directory = os.path.join("/etc/netns", host.netns)
        os.makedirs(directory, exist_ok=True)
        try:
            with open("/etc/hosts", encoding="utf-8") as handle:
                base = handle.read()
        except OSError:
            base = "127.0.0.1\tlocalhost\n"
        lines = [f"{state.controller_address}\t{state.prefix}-controller"]
        lines += [f"{h.address}\t{h.netns} {state.prefix}-{h.name}" for h in state.hosts]
        with open(os.path.join(directory, "hosts"), "w", encoding="utf-8") as handle:
            handle.write(base.rstrip("\n") + "\n# gftpwb lab\n" + "\n".join(lines) + "\n")
        # And resolv.conf naming loopback, where nothing answers: a namespace has no route to this
        # machine's DNS server, and every lookup the files cannot answer (the AAAA of this machine's own
        # name, which xrdcp and gfal-copy ask for) would wait out the resolver's timeouts (10 s seen).
        with open(os.path.join(directory, "resolv.conf"), "w", encoding="utf-8") as handle:
            handle.write("# gftpwb lab: no DNS in a namespace host\nnameserver 127.0.0.1\n")
        # And /etc/passwd with /bin/sh as root's shell: sshd runs every command through the login
        # shell, and bash would source this machine's ~/.bashrc for each one (slow; with pyenv it
        # can block on a lock). A lab host is a clean client: dash reads no start-up files.
        with open("/etc/passwd", encoding="utf-8") as handle:
            entries = handle.read().splitlines()
        with open(os.path.join(directory, "passwd"), "w", encoding="utf-8") as handle:
            for entry in entries:
                fields = entry.split(":")
                if len(fields) == 7 and fields[0] == "root":
                    fields[6] = "/bin/sh"
                handle.write(":".join(fields) + "\n")

    def _make_keys(self, state: NetLabState) -> None:
        if not os.path.exists(state.identity):
            _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"gftpwb-lab-{self.prefix}",
                  "-f", state.identity])
        with open(state.identity + ".pub", encoding="ascii") as handle:
            user_pub = handle.read()
        with open(os.path.join(self.key_dir, "authorized_keys"), "w", encoding="ascii") as handle:
            handle.write(user_pub)
        lines = []
        for host in state.hosts:
            if not os.path.exists(host.host_key):
                _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", host.netns, "-f", host.host_key])
            with open(host.host_key + ".pub", encoding="ascii") as handle:
                key_type, key_b64 = handle.read().split()[:2]
            lines.append(f"{host.address} {key_type} {key_b64}\n")
        with open(state.known_hosts, "w", encoding="ascii") as handle:
            handle.writelines(lines)

    def sshd_argv(self, host: LabHost) -> list[str]:
        options = {
            "Port": "22", "ListenAddress": host.address, "HostKey": host.host_key,
            "AuthorizedKeysFile": os.path.join(self.key_dir, "authorized_keys"),
            "PidFile": os.path.join(self.key_dir, f"{host.name}.sshd.pid"), "StrictModes": "no",
            "PermitRootLogin": "prohibit-password", "PasswordAuthentication": "no",
            "KbdInteractiveAuthentication": "no", "UsePAM": "no", "UseDNS": "no", "PrintMotd": "no",
            "ClientAliveInterval": "5", "ClientAliveCountMax": "3", "Subsystem": "sftp internal-sftp",
            "MaxStartups": "30:30:100", "LogLevel": "ERROR",
        }
        argv = [SSHD, "-D", "-f", "/dev/null", "-E", os.path.join(self.key_dir, f"{host.name}.sshd.log")]
        for key, value in options.items():
            argv += ["-o", f"{key}={value}"]
        return _ns(host.netns, *argv)

    def _start_sshd(self, state: NetLabState, host: LabHost) -> None:
        os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
        proc = subprocess.Popen(self.sshd_argv(host), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        host.sshd_pid = proc.pid

    def _start_host_gridftp(self, state: NetLabState, host: LabHost) -> None:
        log = os.path.join(self.state_dir, f"{host.name}.gridftp.log")
        argv = _ns(host.netns, shutil.which(SERVER) or SERVER, "-aa", "-anonymous-user", "nobody", "-p",
                   str(state.gridftp_port), "-control-interface", host.address, "-data-interface", host.address,
                   "-s", "-l", log)
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True, cwd=self.state_dir)
        host.gridftp_pid = proc.pid

    def _wait_for_sshd(self, state: NetLabState, wait_s: float = 15.0) -> None:
        deadline = time.monotonic() + wait_s
        for host in state.hosts:
            while state.gridftp_on_hosts and not GridftpLab._greets(host.address, state.gridftp_port):
                if host.gridftp_pid is None or not _pid_alive(host.gridftp_pid):
                    raise LabError(f"the GridFTP server of {host.name} exited at start; see "
                                   f"{os.path.join(self.state_dir, host.name + '.gridftp.log')}")
                if time.monotonic() > deadline:
                    raise LabError(f"the GridFTP server of {host.name} did not answer within {wait_s:.0f}s")
                time.sleep(0.05)
            while not self._sshd_answers(host):
                if host.sshd_pid is None or not _pid_alive(host.sshd_pid):
                    raise LabError(f"sshd of {host.name} ({host.netns}) exited at start; see "
                                   f"{os.path.join(self.key_dir, host.name + '.sshd.log')}")
                if time.monotonic() > deadline:
                    raise LabError(f"sshd of {host.name} did not answer on {host.address}:22 within {wait_s:.0f}s")
                time.sleep(0.05)

    @staticmethod
    def _sshd_answers(host: LabHost) -> bool:
        # From the controller: the bridge routes to every namespace.
        return port_open(host.address, 22, timeout=0.5)

    def _revive(self, state: NetLabState) -> None:
        """``lab up`` again: restart what died (sshd killed by a fault test, for instance)."""
        changed = False
        for host in state.hosts:
            if not self._sshd_running(host):
                self._start_sshd(state, host)
                changed = True
            if state.gridftp_on_hosts and not self._gridftp_running(host):
                self._start_host_gridftp(state, host)
                changed = True
        dead = [link for link in state.links if not self.wan.line_running(link)]
        if dead:
            self.wan.restart_lines(dead)
            changed = True
        if changed:
            self._save(state)
            self._wait_for_sshd(state)
        self.bridge_gridftp.up(port=state.gridftp_port, address=state.controller_address)
        if state.striped:
            self.striped.up(state.controller_address, self._striped_nodes(state))

    @staticmethod
    def _striped_nodes(state: NetLabState) -> list[LabNode]:
        return [LabNode(h.name, h.netns, h.address) for h in state.hosts]

    def restart_sshd(self, name: str) -> None:
        """Start a host's sshd again (after a fault test killed it)."""
        state = self.load()
        if state is None:
            raise LabError("the lab has no hosts")
        host = next(h for h in state.hosts if h.name == name)
        if not self._sshd_running(host):
            self._start_sshd(state, host)
            self._save(state)
        self._wait_for_sshd(NetLabState.from_dict({**state.to_dict(), "hosts": [asdict(host)]}))

    @staticmethod
    def _sshd_running(host: LabHost) -> bool:
        return host.sshd_pid is not None and _pid_alive(host.sshd_pid) and _cmdline_has(host.sshd_pid, host.host_key)

    def _gridftp_running(self, host: LabHost) -> bool:
        return host.gridftp_pid is not None and _pid_alive(host.gridftp_pid) and _cmdline_has(host.gridftp_pid, SERVER)

    # --- down -------------------------------------------------------------------------------------

    def down(self) -> bool:
        """Remove every namespace, link and process this lab recorded; True if there was a lab."""
        state = self.load()
        if state is None:
            return False
        self.striped.down()
        self.wan.down(state.links)
        for host in state.hosts:
            for pid, needle in ((host.sshd_pid, host.host_key), (host.gridftp_pid, SERVER)):
                if pid is not None and _pid_alive(pid) and _cmdline_has(pid, needle):
                    kill_group(pid)
            # Whatever else still runs in the namespace was started in the lab: TERM, then KILL.
            _end_namespace_processes(host.netns)
            if host.netns in _netns_names():
                _run(["ip", "netns", "del", host.netns], check=False)
            if _link_exists(host.veth_controller):
                _run(["ip", "link", "del", host.veth_controller], check=False)
            shutil.rmtree(os.path.join("/etc/netns", host.netns), ignore_errors=True)
        self.bridge_gridftp.down()
        if _link_exists(state.bridge):
            _run(["ip", "link", "del", state.bridge], check=False)
        for path in (self.state_file, os.path.join(self.state_dir, "hosts.yaml")):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
        return True

    # --- status and inventory ---------------------------------------------------------------------

    def status(self) -> dict | None:
        state = self.load()
        if state is None:
            return None
        bridge = self.bridge_gridftp.status()
        return {
            "prefix": state.prefix, "subnet": state.subnet, "bridge": state.bridge,
            "controller_address": state.controller_address, "identity": state.identity,
            "known_hosts": state.known_hosts, "rate": state.rate or None, "user": "root",
            "gridftp": {"url": f"ftp://{state.controller_address}:{bridge.port}", "running": bridge.running,
                        "pid": bridge.pid},
            "inventory": os.path.join(self.state_dir, "hosts.yaml"),
            "striped": self.striped.status() if state.striped else None,
            "links": [self.wan.status(k) for k in state.links],
            "hosts": [{
                "name": h.name, "netns": h.netns, "address": h.address, "port": 22,
                "controller_address": state.controller_address, "veth_controller": h.veth_controller,
                "veth_host": h.veth_host, "sshd_running": self._sshd_running(h), "sshd_pid": h.sshd_pid,
                "gridftp_url": f"ftp://{h.address}:{state.gridftp_port}" if state.gridftp_on_hosts else None,
                "gridftp_running": self._gridftp_running(h) if state.gridftp_on_hosts else None,
            } for h in state.hosts],
        }

    def _write_inventory(self, state: NetLabState) -> None:
        lines = ["# The lab's namespace hosts, for a scenario's hosts: block (written by gftpwb lab up).",
                 f"# The controller is {state.controller_address} from every host.", "hosts:"]
        for h in state.hosts:
            lines.append(f"  {h.name}: {{address: {h.address}, user: root, identity: {json.dumps(state.identity)}, "
                         f"known_hosts: {json.dumps(state.known_hosts)}}}")
        with open(os.path.join(self.state_dir, "hosts.yaml"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _links_text(state: NetLabState) -> str:
    if not state.links:
        return "none"
    return "; ".join(f"{k.name} {LinkSettings.from_dict(k.requested or k.settings).describe()}" for k in state.links)


def _end_namespace_processes(netns: str, wait_s: float = 2.0) -> None:
    def pids() -> list[int]:
        out = _run(["ip", "netns", "pids", netns], check=False).stdout.split()
        return [int(p) for p in out if p.isdigit() and _pid_alive(int(p))]

    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while pids() and time.monotonic() < deadline:
            time.sleep(0.05)


def _netns_names() -> set[str]:
    return {line.split()[0] for line in _run(["ip", "netns", "list"], check=False).stdout.splitlines() if line.strip()}


def _link_exists(name: str) -> bool:
    return _run(["ip", "link", "show", "dev", name], check=False).returncode == 0
