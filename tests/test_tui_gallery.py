"""The README's gallery script (scripts/tui_gallery.py) draws a view at 120x40 from the snapshot tests'
fixed data: the run view with its monitors panel, trace level and a violated threshold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_gallery_script_draws_the_run_view(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "tui_gallery.py"), "--out", str(tmp_path),
                          "--only", "run"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    svg = (tmp_path / "run.svg").read_text()
    assert svg.startswith("<svg") and "gftpwb&#160;tui:&#160;run" in svg
    for seen in ("monitors:", "cpu&#160;local", "VIOLATED", "trace", "Trace&#160;run/io"):
        assert seen in svg, seen
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "tui_gallery.py"), "--out", str(tmp_path),
                          "--only", "nosuch"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown view(s) nosuch" in bad.stderr
