"""The Slurm part of the lab: one munged, one slurmctld and N slurmd on this machine, from Debian's
packages, all in the lab's state directory.

``gftpwb lab up --slurm N`` makes ``<state dir>/slurm/`` (munge key and socket, ``slurm.conf``, the
controller's state, one spool directory, pid file and log per node) and starts::

    munged     --socket <dir>/munge.sock                    (one for every daemon and client)
    slurmctld  port P                                       (SlurmctldHost = this host, 127.0.0.1)
    slurmd -N n1 ... slurmd -N nN, ports Q .. Q+N-1         (NodeAddr 127.0.0.1, one port each)

The configuration is the one verified on Debian 12's Slurm 22.05: ``proctrack/linuxproc``,
``task/none``, ``select/cons_tres``, ``SlurmdParameters=config_overrides`` (so nodes may declare
more CPUs than the machine has), one partition ``lab`` over every node. Ports are chosen free on
this machine (under a lock, so labs of two checkouts never take the same ones), which is what lets
tests start a small Slurm of their own in a temporary directory beside the user's lab.

``slurm.json`` records what the lab made *before* it is made, so ``lab down`` undoes exactly that:
it cancels every job of the lab's cluster, stops the daemons by their pid files, then ends every
process that still carries the lab's ``SLURM_CONF`` in its environment (slurmstepd outlives its
slurmd, and the tasks of a step inherit the variable), and removes the directory. Clients reach the
lab through ``SLURM_CONF=<dir>/slurm.conf``: :meth:`SlurmLab.client_env`, and ``lab status --vars``
gives scenarios ``slurm_conf``, ``slurm_nodes`` and ``slurm_partition``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass, field

from gftpwb.core.errors import EnvironmentProblem, LabError, UsageError
from gftpwb.shell.files import atomic_write

from .gridftp import _pid_alive, read_state

STATE_FILE = "slurm.json"
PARTITION = "lab"
NODE_PREFIX = "n"
CPUS_PER_NODE = 4
MAX_NODES = 256
LOCK_FILE = "/run/lock/gftpwb-slurmlab.lock"  # serialises port choice between labs of this machine
PORT_LOW, PORT_HIGH = 17000, 47000  # where the lab looks for free ports (below Linux's ephemeral range)
PROGRAMS = ("munged", "mungekey", "slurmctld", "slurmd", "scontrol", "sinfo", "squeue", "scancel", "srun")
PACKAGES = "munge slurmctld slurmd slurm-client"


@dataclass
class SlurmNode:
    name: str
    port: int
    pid: int | None
    running: bool
    state: str  # what sinfo says (idle, mixed, allocated, down, ...); "" when the controller does not answer


@dataclass
class SlurmStatus:
    configured: bool  # the lab made (or began to make) a Slurm cluster here
    running: bool  # munged, slurmctld and every slurmd run, and the controller answers
    cluster: str
    partition: str
    conf: str  # SLURM_CONF for clients
    controller: str  # host:port of slurmctld
    nodes: list[SlurmNode] = field(default_factory=list)
    state_dir: str = ""

    @property
    def node_names(self) -> list[str]:
        return [n.name for n in self.nodes]


def node_names(count: int) -> list[str]:
    return [f"{NODE_PREFIX}{i}" for i in range(1, count + 1)]


def node_range(count: int) -> str:
    """``n[1-8]`` (Slurm's host list for the lab's nodes)."""
    return f"{NODE_PREFIX}1" if count == 1 else f"{NODE_PREFIX}[1-{count}]"


def cluster_name(state_dir: str) -> str:
    """A cluster name of the state directory (Slurm wants it short and lower case)."""
    return "gw" + hashlib.sha1(os.path.realpath(state_dir).encode()).hexdigest()[:8]


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    with socket.socket() as sock:  # slurmd binds every address
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def choose_ports(state_dir: str, count: int) -> tuple[int, int]:
    """``(controller port, first node port)``: count + 1 consecutive free ports, starting where a hash
    of the state directory points, so a lab's ports are the same each time when they are free."""
    span = PORT_HIGH - PORT_LOW - count - 1
    start = PORT_LOW + int(hashlib.sha1(os.path.realpath(state_dir).encode()).hexdigest()[:6], 16) % span
    base = start
    for _ in range(200):
        if all(_port_free(p) for p in range(base, base + count + 1)):
            return base, base + 1
        base = PORT_LOW + (base - PORT_LOW + count + 7) % span
    raise LabError(f"no {count + 1} consecutive free ports found between {PORT_LOW} and {PORT_HIGH}")


def slurm_conf(*, state: str, cluster: str, host: str, ctld_port: int, node_port: int, count: int,
               cpus: int, munge_socket: str) -> str:
    """The lab's slurm.conf (every path inside ``state``, the lab's slurm directory)."""
    last_port = node_port + count - 1
    ports = str(node_port) if count == 1 else f"[{node_port}-{last_port}]"
    lines = [
        "# written by gftpwb lab up --slurm; removed by gftpwb lab down",
        f"ClusterName={cluster}",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={ctld_port}",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        f"AuthInfo=socket={munge_socket}",
        "CredType=cred/munge",
        f"StateSaveLocation={state}/ctld",
        f"SlurmdSpoolDir={state}/spool/%n",
        f"SlurmctldPidFile={state}/slurmctld.pid",
        f"SlurmctldLogFile={state}/slurmctld.log",
        f"SlurmdPidFile={state}/slurmd.%n.pid",
        f"SlurmdLogFile={state}/slurmd.%n.log",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres",
        "MpiDefault=none",
        "ReturnToService=2",
        "SlurmdParameters=config_overrides",
        "MailProg=/bin/true",
        "KillWait=5",
        "MinJobAge=5",
        "InactiveLimit=0",
        f"NodeName={node_range(count)} NodeHostname={host} NodeAddr=127.0.0.1 Port={ports} CPUs={cpus} State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes={node_range(count)} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES",
    ]
    return "\n".join(lines) + "\n"


def _read_pid(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def _is_program(pid: int, name: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv0 = handle.read().split(b"\0", 1)[0]
    except OSError:
        return False
    return os.path.basename(argv0.decode("utf-8", "replace")) == name


DAEMONS = frozenset({"munged", "slurmctld", "slurmscriptd", "slurmd", "slurmstepd"})


def _stat(pid: str) -> tuple[str, int] | None:
    """``(comm, parent pid)`` of a process, None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return None if fields[0] == "Z" else (comm, int(fields[1]))


def lab_processes(entry: str) -> list[int]:
    """Live processes of one lab: those whose environment holds ``entry`` (``SLURM_CONF=/path``) and
    that are Slurm's or munge's daemons, or run under a slurmstepd (a step's tasks). Nothing of
    another lab, and never a user's shell that merely exported the variable."""
    wanted = entry.encode()
    procs: dict[int, tuple[str, int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(name)
            if stat is not None:
                procs[int(name)] = stat
    found = []
    for pid, (comm, _parent) in procs.items():
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
        except OSError:
            continue
        ancestor, seen = pid, 0
        ours = comm in DAEMONS
        while not ours and ancestor in procs and seen < 64:
            ancestor = procs[ancestor][1]
            ours = procs.get(ancestor, ("", 0))[0] == "slurmstepd"
            seen += 1
        if ours:
            found.append(pid)
    return found


def _wait_gone(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    left = [p for p in pids if _pid_alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if _pid_alive(p)]
    return left


class SlurmLab:
    """The lab's Slurm cluster in ``<state dir>/slurm`` (see the module docstring)."""

    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.dir = os.path.join(state_dir, "slurm")
        self.info_file = os.path.join(state_dir, STATE_FILE)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.munge_socket = os.path.join(self.dir, "munge.sock")
        self.munge_pid = os.path.join(self.dir, "munged.pid")

    @property
    def configured(self) -> bool:
        return os.path.exists(self.info_file)

    def _info(self) -> dict:
        return read_state(self.info_file)

    def client_env(self) -> dict[str, str]:
        """The environment the Slurm commands need to talk to this lab."""
        return {**os.environ, "SLURM_CONF": self.conf}

    def _run(self, argv: list[str], timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=self.client_env(),
                                  stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise EnvironmentProblem(f"{argv[0]} not found in PATH; install the Debian packages {PACKAGES} "
                                     "(scripts/install-deps.sh test does)") from None
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(argv, 124, "", f"{argv[0]} did not answer within {timeout:g}s")

    # --- status --------------------------------------------------------------------------------

    def _node_states(self) -> dict[str, str]:
        if not os.path.exists(self.conf) or shutil.which("sinfo") is None:
            return {}
        answer = self._run(["sinfo", "-h", "-N", "-o", "%N %T"], timeout=10)
        if answer.returncode != 0:
            return {}
        states = {}
        for line in answer.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                states[parts[0]] = parts[1].lower()
        return states

    def status(self) -> SlurmStatus:
        info = self._info()
        count = int(info.get("nodes", 0))
        munged = self._daemon_pid(self.munge_pid, "munged")
        ctld = self._daemon_pid(os.path.join(self.dir, "slurmctld.pid"), "slurmctld")
        states = self._node_states() if ctld else {}
        nodes = []
        for index, name in enumerate(node_names(count)):
            pid = self._daemon_pid(os.path.join(self.dir, f"slurmd.{name}.pid"), "slurmd")
            nodes.append(SlurmNode(name=name, port=int(info.get("node_port", 0)) + index, pid=pid,
                                   running=pid is not None, state=states.get(name, "")))
        running = bool(info) and munged is not None and ctld is not None and bool(nodes) \
            and all(n.running for n in nodes) and bool(states)
        return SlurmStatus(configured=bool(info), running=running, cluster=info.get("cluster", ""),
                           partition=info.get("partition", PARTITION), conf=self.conf if info else "",
                           controller=f"127.0.0.1:{info.get('ctld_port', 0)}" if info else "",
                           nodes=nodes, state_dir=self.state_dir)

    def status_dict(self) -> dict:
        status = self.status()
        return {**asdict(status), "nodes": [asdict(n) for n in status.nodes]}

    @staticmethod
    def _daemon_pid(pid_file: str, program: str) -> int | None:
        pid = _read_pid(pid_file)
        return pid if pid is not None and _pid_alive(pid) and _is_program(pid, program) else None

    def variables(self) -> dict[str, str]:
        """What scenarios take of the lab (``lab status --vars``)."""
        status = self.status()
        return {"slurm_conf": status.conf, "slurm_nodes": str(len(status.nodes)), "slurm_partition": status.partition}

    # --- up ------------------------------------------------------------------------------------

    @staticmethod
    def check_request(count: int) -> None:
        if not 1 <= count <= MAX_NODES:
            raise UsageError(f"--slurm {count}: give 1 to {MAX_NODES} nodes")

    def up(self, count: int, *, cpus: int = CPUS_PER_NODE, wait_s: float | None = None) -> SlurmStatus:
        """Start the lab's Slurm with ``count`` nodes unless it runs already (with as many nodes), and
        wait until every node is idle."""
        self.check_request(count)
        for program in PROGRAMS:
            if shutil.which(program) is None:
                raise EnvironmentProblem(f"{program} not found in PATH; install the Debian packages {PACKAGES} "
                                         "(scripts/install-deps.sh test does)")
        if os.geteuid() != 0:
            raise LabError("the Slurm lab needs root: slurmd runs its steps as their owner")
        info = self._info()
        if info:
            current = self.status()
            if current.running and int(info.get("nodes", 0)) == count:
                return current
            if int(info.get("nodes", 0)) != count:
                raise LabError(f"the lab's Slurm has {info.get('nodes')} node(s); run 'gftpwb lab down' first to "
                               f"start it with {count}")
            self.down()  # made, but not (all) running: start again from nothing
        wait_s = wait_s if wait_s is not None else 30.0 + count * 0.5
        os.makedirs(self.state_dir, exist_ok=True)
        os.makedirs(os.path.dirname(LOCK_FILE), exist_ok=True)
        with open(LOCK_FILE, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # until the daemons hold their ports
            ctld_port, node_port = choose_ports(self.state_dir, count)
            host = socket.gethostname().split(".")[0]
            info = {"nodes": count, "cpus": cpus, "cluster": cluster_name(self.state_dir), "partition": PARTITION,
                    "ctld_port": ctld_port, "node_port": node_port, "host": host, "dir": self.dir,
                    "conf": self.conf, "started": time.time()}
            atomic_write(self.info_file, json.dumps(info, indent=1))  # from here on, `lab down` knows what to undo
            try:
                self._start(info, wait_s)
            except BaseException:
                with contextlib.suppress(Exception):
                    self.down()
                raise
        return self.status()

    def _start(self, info: dict, wait_s: float) -> None:
        count = info["nodes"]
        for sub in ("ctld", "spool"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        os.chmod(self.dir, 0o700)
        key = os.path.join(self.dir, "munge.key")
        if not os.path.exists(key):
            made = self._run(["mungekey", "--create", f"--keyfile={key}"])
            if made.returncode != 0:
                raise LabError(f"mungekey failed: {made.stderr.strip()}")
        os.chmod(key, 0o600)
        atomic_write(self.conf, slurm_conf(state=self.dir, cluster=info["cluster"], host=info["host"],
                                           ctld_port=info["ctld_port"], node_port=info["node_port"], count=count,
                                           cpus=info["cpus"], munge_socket=self.munge_socket))
        started = self._run(["munged", f"--socket={self.munge_socket}", f"--key-file={key}",
                             f"--pid-file={self.munge_pid}", f"--log-file={os.path.join(self.dir, 'munged.log')}",
                             f"--seed-file={os.path.join(self.dir, 'munge.seed')}", "--force"])
        if started.returncode != 0:
            raise LabError(f"munged did not start: {started.stderr.strip() or started.stdout.strip()}")
        self._wait(lambda: os.path.exists(self.munge_socket), 10, "munged did not make its socket")
        ctld = self._run(["slurmctld", "-c"])
        if ctld.returncode != 0:
            raise LabError(f"slurmctld did not start: {ctld.stderr.strip()}; see {self.dir}/slurmctld.log")
        self._wait(lambda: self._run(["scontrol", "ping"], timeout=5).stdout.count("is UP") > 0, wait_s,
                   f"slurmctld did not answer; see {self.dir}/slurmctld.log")
        procs = [subprocess.Popen(["slurmd", "-N", name], env=self.client_env(), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for name in node_names(count)]
        for name, proc in zip(node_names(count), procs, strict=True):
            _out, err = proc.communicate(timeout=wait_s)
            if proc.returncode != 0:
                raise LabError(f"slurmd -N {name} did not start: {err.decode(errors='replace').strip()}; see "
                               f"{self.dir}/slurmd.{name}.log")

        def all_idle() -> bool:
            states = self._node_states()
            return len(states) == count and all(s.rstrip("*") in ("idle", "mixed", "allocated")
                                                for s in states.values())

        self._wait(all_idle, wait_s, f"the lab's {count} slurmd did not all register as idle; see {self.dir}")

    @staticmethod
    def _wait(condition, seconds: float, failure: str) -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        raise LabError(f"{failure} (waited {seconds:g}s)")

    # --- down ----------------------------------------------------------------------------------

    def down(self) -> bool:
        """Cancel the lab's jobs, stop its daemons and whatever carries its SLURM_CONF, remove its
        directory; True if the lab had a Slurm."""
        info = self._info()
        if not info:
            return False
        if self._daemon_pid(os.path.join(self.dir, "slurmctld.pid"), "slurmctld") is not None:
            jobs = self._run(["squeue", "-h", "-o", "%i"], timeout=10)
            ids = jobs.stdout.split() if jobs.returncode == 0 else []
            if ids:
                self._run(["scancel", *ids], timeout=20)
                with contextlib.suppress(LabError):  # then stop the daemons anyway
                    self._wait(lambda: not self._run(["squeue", "-h", "-o", "%i"], timeout=5).stdout.strip(), 10,
                               "jobs still listed")
        pids = [p for p in (self._daemon_pid(os.path.join(self.dir, f"slurmd.{n}.pid"), "slurmd")
                            for n in node_names(int(info.get("nodes", 0)))) if p]
        ctld = self._daemon_pid(os.path.join(self.dir, "slurmctld.pid"), "slurmctld")
        pids += [ctld] if ctld else []
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in _wait_gone(pids, 3):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        # slurmstepd outlives its slurmd, and steps' tasks inherit SLURM_CONF: end all of them
        marker = f"SLURM_CONF={self.conf}"
        left = lab_processes(marker)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _wait_gone(left, 5)
        munged = self._daemon_pid(self.munge_pid, "munged")
        if munged is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(munged, signal.SIGTERM)
            for pid in _wait_gone([munged], 5):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(self.dir)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.info_file)
        return True

    def leftovers(self) -> list[int]:
        """Processes of this lab still alive (for checks after ``down``): daemons by pid file, and
        anything carrying the lab's SLURM_CONF."""
        return lab_processes(f"SLURM_CONF={self.conf}")
