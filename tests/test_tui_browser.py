"""``R`` in the results view opens the HTML report it wrote (tui/opener.py): ``$BROWSER`` as Python's
webbrowser reads it (``os.pathsep``-separated, ``%s`` for the URL), else the desktop's opener; no
browser, or one that fails, is a notification saying where the file is. The browser is a real process:
a recording script (its argv and pid checked) and headless Chromium loading the page."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from support.polling import eventually, eventually_async
from support.results_pair import write_pair
from support.tui import Notes

from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import WorkbenchApp
from gftpwb.tui.opener import browser_argv, open_in_browser
from gftpwb.tui.results_view import HTML_NAME

SIZE = (120, 40)


def script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A browser that writes its pid and argv (one JSON line) and stays a moment, as a browser stays."""
    log = tmp_path / "opened.jsonl"
    rec = script(tmp_path / "record-browser",
                 f'python3 -c \'import json, os, sys; print(json.dumps([os.getpid(), sys.argv[1:]]))\' '
                 f'"$0" "$@" >> {log}\nsleep 3\n')
    return rec, log


def without_browser(monkeypatch) -> None:
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)


async def press_R(results: Path, *prefixes: str) -> tuple[list[tuple[str, str]], bool]:
    """Open the results view on ``results``, press ``R`` on the highlighted (newest) directory and wait
    for a notification starting with one of ``prefixes``: (what was notified, the app still running)."""
    app = WorkbenchApp(None, results_base=str(results))
    notes = Notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("R")
        await eventually_async(lambda: any(m.startswith(prefixes) for m, _ in notes.seen), " or ".join(prefixes),
                               pause=pilot.pause)
        running = app.is_running
    return notes.seen, running


def test_the_command_comes_from_BROWSER_then_the_desktop(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("mybrowser", "xdg-open"):
        script(bin_dir / name, "exit 0\n")
    url = "file:///r/report.html"
    path = str(bin_dir)
    # the first entry that exists; %s is the URL, else the URL goes last
    assert browser_argv(url, {"PATH": path, "BROWSER": os.pathsep.join(["nosuch", "mybrowser --new-tab"])}) == \
        ["mybrowser", "--new-tab", url]
    assert browser_argv(url, {"PATH": path, "BROWSER": "mybrowser --url=%s -x"}) == ["mybrowser", f"--url={url}", "-x"]
    assert browser_argv(url, {"PATH": path, "BROWSER": "'unbalanced"}) is None
    assert browser_argv(url, {"PATH": path, "DISPLAY": ":0"}, platform="linux") == ["xdg-open", url]
    assert browser_argv(url, {"PATH": path}, platform="linux") is None  # over SSH: no display, no $BROWSER
    assert browser_argv(url, {"PATH": path, "BROWSER": "nosuch"}, platform="linux") is None


def test_a_failing_browser_is_reported_with_its_status(tmp_path):
    bad = script(tmp_path / "bad-browser", "exit 3\n")
    page = tmp_path / "p.html"
    page.write_text("<html></html>")
    opened = open_in_browser(str(page), {"PATH": os.environ["PATH"], "BROWSER": str(bad)})
    assert not opened.ok and opened.why == f"{bad} exited with status 3"


async def test_R_opens_the_report_in_BROWSER(tmp_path, monkeypatch):
    _a, b = write_pair(tmp_path / "results")
    rec, log = recorder(tmp_path)
    monkeypatch.setenv("BROWSER", str(rec))
    seen, running = await press_R(tmp_path / "results", "opened in the browser")  # the newest directory: B
    assert running
    target = b / HTML_NAME
    assert target.is_file()
    ((pid, argv),) = [json.loads(line) for line in log.read_text().splitlines()]
    assert argv == [str(rec), target.resolve().as_uri()]
    assert pid != os.getpid()  # a process of its own
    assert (f"opened in the browser ({rec})", "information") in seen


async def test_R_without_a_browser_says_where_the_report_is(tmp_path, monkeypatch):
    _a, b = write_pair(tmp_path / "results")
    without_browser(monkeypatch)
    seen, running = await press_R(tmp_path / "results", "not opened")
    assert running
    target = b / HTML_NAME
    assert (f"not opened: no browser here (no $BROWSER, no display); the report is at {target}", "warning") in seen
    assert not any("Traceback" in m for m, _ in seen)


async def test_the_report_R_opens_loads_in_headless_chromium(tmp_path, monkeypatch):
    assert shutil.which("chromium"), "chromium is missing: scripts/install-deps.sh test installs it"
    _a, b = write_pair(tmp_path / "results")
    dom = tmp_path / "dom.html"
    chromium = script(tmp_path / "chromium-browser",
                      f'exec chromium --headless --no-sandbox --disable-gpu --dump-dom "$1" > {dom} 2>/dev/null\n')
    monkeypatch.setenv("BROWSER", str(chromium))
    seen, _running = await press_R(tmp_path / "results", "opened", "not opened")
    assert (f"opened in the browser ({chromium})", "information") in seen
    eventually(lambda: "</html>" in (dom.read_text() if dom.exists() else ""), "Chromium's dump of the page",
               step=0.2)
    page = dom.read_text()  # the document as Chromium parsed it from the file:// URL R passed
    scenario = read_directory(str(b)).scenario
    assert f"<title>gftpwb report: {scenario}</title>" in page and f"<h1>gftpwb report: {scenario}</h1>" in page
    assert str(b) in page and "sweep" in page  # this directory's report, its cases
