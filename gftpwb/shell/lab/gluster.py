"""The gluster part of the lab: glusterd and one started single-brick volume that gftpwb owns.

``gftpwb lab up --gluster`` starts glusterd unless it runs already, and creates and starts a volume
named ``gftpwb-demo`` (for the default state directory; ``gftpwb-<hash of the state directory>``
otherwise) with its brick in
``<state dir>/gluster/brick`` (``force``: the brick is on the root file system). ``lab down``
stops and deletes exactly that volume, removes its brick, and stops glusterd only when the lab
started it and no other volume is left. State: ``<state dir>/gluster.json``.

The brick address: GlusterFS refuses loopback brick addresses, and a brick named by the host name
resolves to 127.0.0.1 here, which clients in network namespaces cannot reach. The volume's server
address is therefore given (``--gluster-address``, e.g. the controller's veth address once the
namespace lab exists) or, by default, one the lab adds to ``lo`` for itself: a /32 from
198.18.0.0/15, the range set aside for benchmarking (RFC 2544): 198.18.0.1 for the default state
directory, otherwise derived from the state directory so two labs do not collide. Clients in
namespaces reach it through their route to the controller.
"""

from __future__ import annotations

import contextlib
import hashlib
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass

from gftpwb.core.errors import EnvironmentProblem, LabError
from gftpwb.shell.files import atomic_write

from .gridftp import default_state_dir, read_state, user_state_dir

GLUSTER = "gluster"
GLUSTERD = "glusterd"
LAB_DEVICE = "lo"


@dataclass
class GlusterStatus:
    configured: bool  # this lab made a volume (gluster.json exists)
    glusterd: bool  # glusterd answers
    running: bool  # the volume is started and its brick is online
    volume: str
    address: str
    brick: str
    state_dir: str


def _run(argv: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise EnvironmentProblem(f"{argv[0]} not found in PATH; install glusterfs-server "
                                 "(scripts/install-deps.sh test does)") from None
    except subprocess.TimeoutExpired:
        raise LabError(f"{' '.join(argv)} did not finish within {timeout:g}s") from None


def _gluster(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return _run([GLUSTER, "--mode=script", *args], timeout)


def _why(proc: subprocess.CompletedProcess[str]) -> str:
    return (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}").splitlines()[-1]


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return address == "localhost"


# The user's own lab (the default state directory) gets fixed, memorable names, so the shipped
# scenarios/smallfile-gfapi.yaml runs after a plain `gftpwb lab up --gluster`; other state
# directories (tests, parallel labs) get names derived from their path, so they never collide.
DEMO_VOLUME = "gftpwb-demo"
DEMO_ADDRESS = "198.18.0.1"


def _is_default(state_dir: str) -> bool:
    return os.path.realpath(state_dir) == os.path.realpath(user_state_dir())


def lab_address(state_dir: str) -> str:
    """A 198.18.0.0/15 address for this state directory (never .0 or .255 in the last octet)."""
    if _is_default(state_dir):
        return DEMO_ADDRESS
    digest = hashlib.sha256(os.path.abspath(state_dir).encode()).digest()
    return f"198.{18 + (digest[0] & 1)}.{digest[1]}.{1 + digest[2] % 254}"


def volume_name(state_dir: str) -> str:
    if _is_default(state_dir):
        return DEMO_VOLUME
    return "gftpwb-" + hashlib.sha256(os.path.abspath(state_dir).encode()).hexdigest()[:8]


def local_addresses() -> set[str]:
    proc = _run(["ip", "-o", "addr", "show"])
    out = set()
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] in ("inet", "inet6"):
            out.add(fields[3].split("/")[0])
    return out


def glusterd_answers() -> bool:
    try:
        return _gluster("volume", "list", timeout=20).returncode == 0
    except LabError:
        return False


class GlusterLab:
    def __init__(self, state_dir: str | None = None):
        self.state_dir = state_dir or default_state_dir()
        self.info_file = os.path.join(self.state_dir, "gluster.json")
        self.pid_file = os.path.join(self.state_dir, "glusterd.pid")
        self.brick = os.path.join(self.state_dir, "gluster", "brick")

    @property
    def configured(self) -> bool:
        """Whether this lab made (or began to make) a volume: only then has `lab down` work here."""
        return os.path.exists(self.info_file)

    def _info(self) -> dict:
        return read_state(self.info_file)

    def _save(self, info: dict) -> None:
        os.makedirs(self.state_dir, exist_ok=True)
        atomic_write(self.info_file, json.dumps(info, indent=1))

    # --- status --------------------------------------------------------------------------------

    def _volume_state(self, volume: str) -> tuple[bool, bool, str]:
        """(exists, started with its brick online, brick spec) of ``volume``."""
        info = _gluster("volume", "info", volume, "--xml")
        if info.returncode != 0 or "<opRet>0</opRet>" not in info.stdout:
            return False, False, ""
        root = ET.fromstring(info.stdout)
        started = root.findtext(".//volume/statusStr") == "Started"
        brick = root.findtext(".//volume/bricks/brick/name") or ""
        if not started:
            return True, False, brick
        status = _gluster("volume", "status", volume, "--xml")
        online = status.returncode == 0 and "<status>1</status>" in status.stdout
        return True, online, brick

    def status(self) -> GlusterStatus:
        info = self._info()
        volume = info.get("volume", volume_name(self.state_dir))
        answers = shutil.which(GLUSTER) is not None and glusterd_answers()
        running = answers and bool(info) and self._volume_state(volume)[1]
        return GlusterStatus(configured=bool(info), glusterd=answers, running=running, volume=volume,
                             address=info.get("address", ""), brick=self.brick, state_dir=self.state_dir)

    def status_dict(self) -> dict:
        return asdict(self.status())

    # --- up ------------------------------------------------------------------------------------

    def up(self, address: str | None = None, volume: str | None = None, wait_s: float = 60.0) -> GlusterStatus:
        """Start glusterd if needed and make the lab's volume exist, started, its brick online.

        ``volume`` and ``address`` default to names derived from the state directory."""
        for tool in (GLUSTERD, GLUSTER):
            if shutil.which(tool) is None:
                raise EnvironmentProblem(f"{tool} not found in PATH; install the Debian packages glusterfs-server "
                                         "and libglusterfs-dev (scripts/install-deps.sh test does)")
        if os.geteuid() != 0:
            raise LabError("the gluster lab needs root: glusterd, its volumes and the lab address are system-wide")
        info = self._info()
        if info and volume is not None and info.get("volume") != volume:
            raise LabError(f"the lab already has volume {info.get('volume')}; run 'gftpwb lab down' first to make "
                           f"{volume} instead")
        volume = info.get("volume") or volume or volume_name(self.state_dir)
        if address is not None and _is_loopback(address):
            raise LabError(f"GlusterFS refuses a loopback brick address ({address}); give an address clients "
                           "reach, e.g. this machine's veth or LAN address, or leave --gluster-address out")
        if info and address is not None and info.get("address") != address:
            raise LabError(f"the lab's volume {volume} already uses address {info.get('address')}; "
                           "run 'gftpwb lab down' first to move it")
        address = address or info.get("address") or lab_address(self.state_dir)
        info.update({"volume": volume, "address": address, "brick": self.brick})
        self._save(info)  # from here on, `lab down` knows what to undo
        if not glusterd_answers():
            self._start_glusterd(info, wait_s)
        if address not in local_addresses():
            added = _run(["ip", "addr", "add", f"{address}/32", "dev", LAB_DEVICE])
            if added.returncode != 0:
                raise LabError(f"cannot add the lab address {address} to {LAB_DEVICE}: {_why(added)}")
            info["address_added"] = f"{address}/32 dev {LAB_DEVICE}"
            self._save(info)
        exists, online, brick = self._volume_state(volume)
        spec = f"{address}:{self.brick}"
        if exists and brick != spec:
            raise LabError(f"volume {volume} exists with brick {brick}, not {spec}; remove it "
                           f"(gluster volume stop/delete {volume}) or use another --state-dir")
        if exists and not online and not os.path.isdir(self.brick):
            # the brick's folder went (the state directory removed by hand, a lab down while glusterd did
            # not answer): the volume's data is gone with it and glusterd never starts a brick without its
            # folder, so the lab makes the volume again
            _gluster("volume", "stop", volume, "force")
            deleted = _gluster("volume", "delete", volume)
            if deleted.returncode != 0:
                raise LabError(f"volume {volume}'s brick folder {self.brick} is gone and the volume could not "
                               f"be deleted to make it again: {_why(deleted)}")
            exists = False
        if not exists:
            if os.path.exists(self.brick):  # left over from a volume deleted outside the lab: ours to clear
                shutil.rmtree(self.brick)
            os.makedirs(self.brick)
            created = _gluster("volume", "create", volume, spec, "force")
            if created.returncode != 0:
                raise LabError(f"gluster volume create {volume} {spec} failed: {_why(created)}")
        if not online:
            started = _gluster("volume", "start", volume, "force")
            if started.returncode != 0:
                raise LabError(f"gluster volume start {volume} failed: {_why(started)}")
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self._volume_state(volume)[1]:
                return self.status()
            time.sleep(0.5)
        raise LabError(f"volume {volume}'s brick did not come online within {wait_s:g}s; see "
                       "/var/log/glusterfs/bricks/")

    def _start_glusterd(self, info: dict, wait_s: float) -> None:
        started = _run([GLUSTERD, "-p", self.pid_file])
        if started.returncode != 0:
            raise LabError(f"glusterd did not start: {_why(started)}; see /var/log/glusterfs/glusterd.log")
        info["started_glusterd"] = True
        self._save(info)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if glusterd_answers():
                return
            time.sleep(0.3)
        raise LabError(f"glusterd did not answer within {wait_s:g}s; see /var/log/glusterfs/glusterd.log")

    # --- down ----------------------------------------------------------------------------------

    def down(self) -> bool:
        """Stop and delete the lab's volume and brick, remove its address; True if there was one."""
        info = self._info()
        if not info:
            return False
        volume = info["volume"]
        if shutil.which(GLUSTER) and glusterd_answers():
            exists, _online, _brick = self._volume_state(volume)
            if exists:
                _gluster("volume", "stop", volume, "force")
                deleted = _gluster("volume", "delete", volume)
                if deleted.returncode != 0:
                    raise LabError(f"gluster volume delete {volume} failed: {_why(deleted)}")
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(os.path.dirname(self.brick))
        if info.get("address_added"):
            _run(["ip", "addr", "del", f"{info['address']}/32", "dev", LAB_DEVICE])
        if info.get("started_glusterd"):
            self._stop_glusterd_if_idle()
        os.remove(self.info_file)
        return True

    def _stop_glusterd_if_idle(self) -> None:
        listed = _gluster("volume", "list")
        if listed.returncode == 0 and "No volumes present" not in listed.stdout and listed.stdout.strip():
            return  # somebody else's volumes: leave glusterd to them
        try:
            with open(self.pid_file, encoding="ascii") as handle:
                pid = int(handle.read().strip())
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if GLUSTERD.encode() not in handle.read():
                    return
        except (OSError, ValueError):
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)
        with contextlib.suppress(FileNotFoundError):
            os.remove(self.pid_file)
