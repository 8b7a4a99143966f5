"""The user's own lab gets the volume name and address the shipped gfapi scenario uses by default; any
other state directory (GFTPWB_LAB_DIR's too) gets names of its own, so parallel labs and tests never
share a volume."""

from pathlib import Path

from gftpwb.core.dsl.loader import load_scenario
from gftpwb.shell.lab.gluster import DEMO_ADDRESS, DEMO_VOLUME, lab_address, volume_name
from gftpwb.shell.lab.gridftp import default_state_dir, user_state_dir

ROOT = Path(__file__).resolve().parent.parent


def test_default_lab_matches_the_shipped_scenario(monkeypatch):
    monkeypatch.delenv("GFTPWB_LAB_DIR", raising=False)
    assert default_state_dir() == user_state_dir()
    assert (volume_name(default_state_dir()), lab_address(default_state_dir())) == (DEMO_VOLUME, DEMO_ADDRESS)
    scenario = load_scenario(str(ROOT / "scenarios" / "smallfile-gfapi.yaml"))
    volumes = {(t.volume.name, t.volume.server) for t in scenario.tests if getattr(t, "volume", None)}
    assert volumes == {(DEMO_VOLUME, DEMO_ADDRESS)}


def test_other_state_directories_get_their_own_names(monkeypatch, tmp_path):
    # Was: a lab in $GFTPWB_LAB_DIR counted as the user's and took gftpwb-demo at 198.18.0.1, the volume
    # of the user's own lab (a test lab then replaced it).
    monkeypatch.setenv("GFTPWB_LAB_DIR", str(tmp_path / "mine"))
    assert volume_name(default_state_dir()) != DEMO_VOLUME and lab_address(default_state_dir()) != DEMO_ADDRESS
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    assert volume_name(a) != volume_name(b) != DEMO_VOLUME
    assert lab_address(a) != DEMO_ADDRESS and lab_address(a).startswith("198.1")
