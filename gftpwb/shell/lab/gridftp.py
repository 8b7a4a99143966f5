"""The local lab: a GridFTP server on loopback that gftpwb starts, inspects and stops itself.

State lives in one directory (``--state-dir``, ``$GFTPWB_LAB_DIR`` or ~/.local/state/gftpwb/lab):
``gridftp.pid``, ``gridftp.json`` (address, port, command) and ``gridftp.log``. The server runs in
the foreground mode (``-s``) in a session of its own, so its pid is ours to signal and its forked
per-connection children die with its process group.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass

from gftpwb.core.errors import EnvironmentProblem, LabError
from gftpwb.shell.files import atomic_write

SERVER = "globus-gridftp-server"
DEFAULT_PORT = 2811
DEFAULT_ADDRESS = "127.0.0.1"


def user_state_dir() -> str:
    """The user's own lab, the one every command uses when told of no other (no ``--state-dir``, no
    ``GFTPWB_LAB_DIR``): only it takes the standard names and ports (GlusterFS's demo volume, xrootd's
    1094 and 8094); any other lab takes its own, so labs side by side never meet."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "gftpwb", "lab")


def default_state_dir() -> str:
    """The lab a command uses unless given ``--state-dir``: ``$GFTPWB_LAB_DIR``, else the user's own."""
    return os.environ.get("GFTPWB_LAB_DIR") or user_state_dir()


@dataclass
class GridftpStatus:
    running: bool
    pid: int | None
    address: str
    port: int
    url: str
    log: str
    state_dir: str


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not a server: read its state.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _is_our_server(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return SERVER.encode() in handle.read()
    except OSError:
        return False


def read_state(path: str) -> dict:
    """A lab state file (JSON); empty when it is missing or damaged, which means "nothing made"."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def kill_group(pid: int, wait_s: float = 3.0) -> None:
    """End a daemon the lab started in a session of its own: SIGTERM its process group, wait up to
    ``wait_s`` for the leader to go, then SIGKILL whatever of the group is left, and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and _pid_alive(pid):
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def port_open(address: str, port: int, timeout: float = 0.5) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((address, port), timeout=timeout):
        return True
    return False


def free_port(address: str = DEFAULT_ADDRESS) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


class GridftpLab:
    def __init__(self, state_dir: str | None = None):
        self.state_dir = state_dir or default_state_dir()
        self.pid_file = os.path.join(self.state_dir, "gridftp.pid")
        self.info_file = os.path.join(self.state_dir, "gridftp.json")
        self.log_file = os.path.join(self.state_dir, "gridftp.log")

    def _info(self) -> dict:
        return read_state(self.info_file)

    def _pid(self) -> int | None:
        try:
            with open(self.pid_file, encoding="ascii") as handle:
                return int(handle.read().strip())
        except (OSError, ValueError):
            return None

    def status(self) -> GridftpStatus:
        info = self._info()
        pid = self._pid()
        running = pid is not None and _pid_alive(pid) and _is_our_server(pid)
        address = info.get("address", DEFAULT_ADDRESS)
        port = int(info.get("port", DEFAULT_PORT))
        return GridftpStatus(running=running, pid=pid if running else None, address=address, port=port,
                             url=f"ftp://{address}:{port}", log=self.log_file, state_dir=self.state_dir)

    def up(self, port: int | None = None, address: str | None = None, wait_s: float = 15.0) -> GridftpStatus:
        """Start the server unless ours is already running; wait until it greets clients. A port or
        address not given is the running server's (a later ``lab up --hosts 2`` keeps the lab where it
        is), else the default."""
        current = self.status()
        if current.running:
            if (address or current.address, port or current.port) != (current.address, current.port):
                raise LabError(f"the lab's GridFTP server already runs on {current.address}:{current.port} "
                               f"(pid {current.pid}); run 'gftpwb lab down' first to move it")
            return current
        port = port or DEFAULT_PORT
        address = address or DEFAULT_ADDRESS
        binary = shutil.which(SERVER)
        if binary is None:
            raise EnvironmentProblem(f"{SERVER} not found in PATH; install the Debian package "
                                     "globus-gridftp-server-progs (make demo and make test do)")
        if port_open(address, port):
            raise LabError(f"port {address}:{port} is already in use by another program; "
                           "choose another with --port")
        os.makedirs(self.state_dir, exist_ok=True)
        argv = [binary, "-aa", "-anonymous-user", "nobody", "-p", str(port), "-control-interface", address,
                "-data-interface", address, "-s", "-l", self.log_file]
        with open(os.path.join(self.state_dir, "gridftp.out"), "ab") as out:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=self.state_dir)
        atomic_write(self.pid_file, f"{proc.pid}\n")
        atomic_write(self.info_file, json.dumps({"address": address, "port": port, "argv": argv,
                                                 "started": time.time()}))
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LabError(f"{SERVER} exited with status {proc.returncode} at start; see {self.log_file} "
                               f"and {os.path.join(self.state_dir, 'gridftp.out')}")
            if self._greets(address, port):
                return self.status()
            time.sleep(0.1)
        self.down()
        raise LabError(f"{SERVER} did not answer on {address}:{port} within {wait_s:.0f}s; see {self.log_file}")

    @staticmethod
    def _greets(address: str, port: int) -> bool:
        try:
            with socket.create_connection((address, port), timeout=1.0) as sock:
                sock.settimeout(2.0)
                return sock.recv(64).startswith(b"220")
        except OSError:
            return False

    def down(self, wait_s: float = 5.0) -> bool:
        """Stop our server (and its per-connection children); True if one was running."""
        pid = self._pid()
        was_running = pid is not None and _pid_alive(pid) and _is_our_server(pid)
        if was_running and pid is not None:
            kill_group(pid, wait_s)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.pid_file)
        return was_running

    def status_dict(self) -> dict:
        return asdict(self.status())
