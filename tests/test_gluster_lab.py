"""`gftpwb lab up --gluster` / `status` / `down` against the real glusterd: exactly our volume, then nothing."""

import json
import shutil
import subprocess

import pytest
from support.clihelp import gftpwb

from gftpwb.shell.lab.gluster import lab_address, volume_name
from gftpwb.shell.lab.gridftp import free_port

pytestmark = [pytest.mark.real, pytest.mark.slow]


def volumes() -> list[str]:
    out = subprocess.run(["gluster", "--mode=script", "volume", "list"], capture_output=True, text=True)
    return out.stdout.split()


def addresses() -> str:
    return subprocess.run(["ip", "-o", "addr", "show", "dev", "lo"], capture_output=True, text=True).stdout


def test_up_status_down(tmp_path):
    state = str(tmp_path / "lab")
    port = str(free_port())
    volume, address = volume_name(state), lab_address(state)
    try:
        out = gftpwb("lab", "up", "--gluster", "--state-dir", state, "--port", port)
        assert out.returncode == 0, out.stderr
        assert f"GlusterFS volume {volume} started: server {address}, brick {state}/gluster/brick" in out.stdout
        assert volume in volumes() and f"{address}/32" in addresses()
        again = gftpwb("lab", "up", "--gluster", "--state-dir", state, "--port", port)  # idempotent
        assert again.returncode == 0, again.stderr
        status = json.loads(gftpwb("lab", "status", "--json", "--state-dir", state).stdout)
        assert status["gluster"] == {"configured": True, "glusterd": True, "running": True, "volume": volume,
                                     "address": address, "brick": f"{state}/gluster/brick", "state_dir": state}
        moved = gftpwb("lab", "up", "--gluster", "--gluster-address", "198.18.250.250", "--state-dir", state,
                       "--port", port)
        assert moved.returncode == 4
        assert moved.stderr == (f"gftpwb: the lab's volume {volume} already uses address {address}; run 'gftpwb lab "
                                "down' first to move it\n")
    finally:
        down = gftpwb("lab", "down", "--state-dir", state)
    assert down.returncode == 0 and "GlusterFS volume of the lab stopped and deleted" in down.stdout
    assert volume not in volumes() and f"{address}/32" not in addresses()
    assert not (tmp_path / "lab" / "gluster").exists()
    status = json.loads(gftpwb("lab", "status", "--json", "--state-dir", state).stdout)
    assert "gluster" not in status


def test_up_makes_the_volume_again_when_its_brick_folder_is_gone(tmp_path):
    """A lab whose brick folder went while the volume stayed defined (the state directory cleared by hand,
    a machine's /tmp emptied at boot) came back with 'the brick did not come online within 60s' on every
    `lab up`: glusterd never starts a brick without its folder. The lab makes the volume again."""
    state = str(tmp_path / "lab")
    port = str(free_port())
    volume = volume_name(state)
    try:
        assert gftpwb("lab", "up", "--gluster", "--state-dir", state, "--port", port).returncode == 0
        subprocess.run(["gluster", "--mode=script", "volume", "stop", volume, "force"], capture_output=True,
                       check=True)
        shutil.rmtree(tmp_path / "lab" / "gluster")
        again = gftpwb("lab", "up", "--gluster", "--state-dir", state, "--port", port)
        assert again.returncode == 0, again.stderr
        status = json.loads(gftpwb("lab", "status", "--json", "--state-dir", state).stdout)
        assert status["gluster"]["running"] is True and (tmp_path / "lab" / "gluster" / "brick").is_dir()
    finally:
        gftpwb("lab", "down", "--state-dir", state)
    assert volume not in volumes()


def test_a_loopback_brick_address_is_refused_before_anything_is_made(tmp_path):
    state = str(tmp_path / "lab")
    try:
        out = gftpwb("lab", "up", "--gluster", "--gluster-address", "127.0.0.1", "--state-dir", state,
                     "--port", str(free_port()))
        assert out.returncode == 4
        assert out.stderr.startswith("gftpwb: GlusterFS refuses a loopback brick address (127.0.0.1)")
        assert volume_name(state) not in volumes()
    finally:
        gftpwb("lab", "down", "--state-dir", state)
