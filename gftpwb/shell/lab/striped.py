"""Striped GridFTP in the lab (``gftpwb lab up --hosts N --striped``): N data nodes per side, one on
every namespace host, and a striped front end per side on the controller's bridge address::

    guc -stripe ftp://CTRL:2812/dev/zero ftp://CTRL:2813/dev/null

    front end "source" CTRL:2812  -r h1:2812,h2:2812,...,hN:2812     (data nodes: -dn, one per host)
    front end "target" CTRL:2813  -r h2:2813,...,hN:2813,h1:2813     (the same hosts, rotated by one)

For the study of striping (1, 2, ..., N nodes per side) the lab also starts a front-end pair for every
smaller count k: source ``CTRL:2818+2k`` over h1..hk, target ``CTRL:2819+2k`` over h2..h(k+1) (the
hosts after the source's, wrapping around), so even one stripe crosses from one host to another, over
the links a transfer of N stripes uses too. ``lab status`` lists them under ``subsets``.

A striped transfer pairs stripe i of the source with stripe i of the target (checked with ``ss`` in
the namespaces), so rotating the target's list makes every stripe cross from one namespace to the
next (h1 -> h2, ..., hN -> h1) over the hosts' veths, shaped or not; with one host the single stripe
stays inside h1. The front ends only steer: data flows between data nodes.

State lives in ``striped.json`` in the lab's state directory, written before and after each server
starts, so ``down`` stops exactly what was started (front ends by pid; data nodes by pid too, and
with their namespaces). Checked on this machine (globus-gridftp-server 13.24): ``-dbg`` shows
``229-Entering Striped Passive Mode`` with one address per data node, and 112 performance markers
per stripe.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field

from gftpwb.core.errors import LabError
from gftpwb.shell.files import atomic_write

from .gridftp import SERVER, GridftpLab, _is_our_server, _pid_alive, kill_group, port_open, read_state

STATE_FILE = "striped.json"
SIDES = {"source": 2812, "target": 2813}  # the same port in every namespace, and on the controller
SUBSET_BASE = 2818  # front ends over the first k < N nodes: source 2818 + 2k, target 2819 + 2k


def front_port(side: str, k: int, n: int) -> int:
    """The controller port of the front end of ``side`` over ``k`` of the lab's ``n`` data nodes."""
    return SIDES[side] if k == n else SUBSET_BASE + 2 * k + (side == "target")


@dataclass(frozen=True)
class LabNode:
    """A namespace host as the striped servers need it."""

    name: str
    netns: str
    address: str


@dataclass
class Server:
    side: str
    host: str  # "controller" for a front end, else the namespace host's name
    address: str
    port: int
    argv: list[str]
    pid: int | None = None
    nodes: int | None = None  # a front end: how many data nodes it stripes over (None: all, as before)

    @property
    def contact(self) -> str:
        return f"{self.address}:{self.port}"


@dataclass
class StripedState:
    controller_address: str
    data_nodes: list[Server] = field(default_factory=list)
    front_ends: list[Server] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict) -> StripedState:
        return cls(controller_address=data["controller_address"],
                   data_nodes=[Server(**s) for s in data.get("data_nodes", [])],
                   front_ends=[Server(**s) for s in data.get("front_ends", [])])


def stripe_order(nodes: list[LabNode], side: str, k: int | None = None) -> list[LabNode]:
    """The data nodes of a side's front end over ``k`` nodes (all by default) in stripe order: the
    source's first k, the target's the k after them, wrapping around (see the module docstring)."""
    k = len(nodes) if k is None else k
    rotated = nodes[1:] + nodes[:1] if side == "target" else list(nodes)
    return rotated[:k]


def _is_server(pid: int | None) -> bool:
    return pid is not None and _pid_alive(pid) and _is_our_server(pid)


class StripedLab:
    """The striped servers of one lab state directory."""

    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.state_file = os.path.join(state_dir, STATE_FILE)
        #: The servers this object started, by pid: while they start, their Popen says whether they
        #: exited and how (reading /proc for a server started by an earlier ``lab up``).
        self._procs: dict[int, subprocess.Popen] = {}

    def load(self) -> StripedState | None:
        data = read_state(self.state_file)
        try:
            return StripedState.from_dict(data) if data else None
        except (KeyError, TypeError) as exc:
            raise LabError(f"{self.state_file} is unreadable ({exc}); stop its servers by hand") from None

    def _save(self, state: StripedState) -> None:
        atomic_write(self.state_file, json.dumps(asdict(state), indent=1))

    def _log(self, server: Server) -> str:
        subset = f"-{server.nodes}" if server.nodes else ""
        return os.path.join(self.state_dir, f"striped-{server.side}-{server.host}{subset}.log")

    # --- up -------------------------------------------------------------------------------------

    def up(self, controller_address: str, nodes: list[LabNode], wait_s: float = 20.0) -> StripedState:
        """Start whatever of the data nodes and front ends is not running (idempotent)."""
        binary = shutil.which(SERVER) or SERVER
        state = self.load() or StripedState(controller_address)
        if not state.data_nodes:
            for side, port in SIDES.items():
                for node in nodes:
                    state.data_nodes.append(Server(side, node.name, node.address, port, [
                        "ip", "netns", "exec", node.netns, binary, "-dn", "-aa", "-anonymous-user", "nobody",
                        "-p", str(port), "-control-interface", node.address, "-data-interface", node.address, "-s"]))
            for k in range(len(nodes), 0, -1):
                for side, port in SIDES.items():
                    contacts = ",".join(f"{n.address}:{port}" for n in stripe_order(nodes, side, k))
                    front = front_port(side, k, len(nodes))
                    if port_open(controller_address, front):
                        raise LabError(f"port {controller_address}:{front} for the striped {side} front end is in "
                                       "use")
                    state.front_ends.append(Server(side, "controller", controller_address, front, [
                        binary, "-aa", "-anonymous-user", "nobody", "-p", str(front), "-control-interface",
                        controller_address, "-r", contacts, "-s"], nodes=k))
            self._save(state)  # recorded before anything is started
        for server in state.data_nodes:
            self._start(state, server)
        self._wait(state.data_nodes, wait_s, greeting=False)
        for server in state.front_ends:
            self._start(state, server)
        self._wait(state.front_ends, wait_s, greeting=True)
        return state

    def _start(self, state: StripedState, server: Server) -> None:
        if _is_server(server.pid):
            return
        with open(self._log(server), "ab") as out:
            proc = subprocess.Popen([*server.argv, "-l", self._log(server)], stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True, cwd=self.state_dir)
        server.pid = proc.pid
        self._procs[proc.pid] = proc
        self._save(state)

    def _exit_status(self, server: Server) -> int | None:
        """The server's exit status if it has exited (-N: killed by signal N), else None."""
        proc = self._procs.get(server.pid or -1)
        if proc is not None:
            return proc.poll()
        return None if _is_server(server.pid) else -1

    def _exited_text(self, server: Server, status: int) -> str:
        how = (f"killed by signal {-status}" if status < -1 else "exited" if status == -1 else
               f"exited with status {status}")
        log = self._log(server)
        try:
            with open(log, encoding="utf-8", errors="replace") as handle:
                tail = [line.strip() for line in handle.read().splitlines()[-3:] if line.strip()]
        except OSError:
            tail = []
        said = f"; its log ends: {' | '.join(tail)}" if tail else ""
        return (f"the striped {server.side} GridFTP server on {server.host} ({server.contact}) {how} at start{said}; "
                f"see {log}")

    def _wait(self, servers: list[Server], wait_s: float, *, greeting: bool) -> None:
        deadline = time.monotonic() + wait_s
        for server in servers:
            while not (GridftpLab._greets(server.address, server.port) if greeting
                       else port_open(server.address, server.port)):
                status = self._exit_status(server)
                if status is not None:
                    raise LabError(self._exited_text(server, status))
                if time.monotonic() > deadline:
                    raise LabError(f"the striped {server.side} GridFTP server on {server.host} did not answer on "
                                   f"{server.contact} within {wait_s:.0f}s; see {self._log(server)}")
                time.sleep(0.05)

    # --- down and status ------------------------------------------------------------------------

    def down(self) -> bool:
        """Stop every server this lab started; True if there were any."""
        state = self.load()
        if state is None:
            return False
        for server in [*state.front_ends, *state.data_nodes]:
            if _is_server(server.pid) and server.pid is not None:
                kill_group(server.pid)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.state_file)
        return True

    def status(self) -> dict | None:
        state = self.load()
        if state is None:
            return None
        sides: dict = {}
        total = max((f.nodes or 0 for f in state.front_ends), default=0)
        subsets: dict[str, dict[str, str]] = {}
        for front in state.front_ends:
            if front.nodes is not None and front.nodes < total:
                subsets.setdefault(str(front.nodes), {})[front.side] = f"ftp://{front.contact}"
                continue
            nodes = [s for s in state.data_nodes if s.side == front.side]
            order = front.argv[front.argv.index("-r") + 1].split(",")
            by_contact = {n.contact: n for n in nodes}
            sides[front.side] = {
                "url": f"ftp://{front.contact}", "running": _is_server(front.pid), "pid": front.pid,
                "stripes": [{"host": by_contact[c].host if c in by_contact else "?", "contact": c,
                             "running": c in by_contact and _is_server(by_contact[c].pid)} for c in order],
            }
        return {"nodes": len(sides.get("source", {}).get("stripes", [])), **sides, "subsets": subsets}
