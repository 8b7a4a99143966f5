"""Golden outputs: fixed runs whose results, tag logs and console text must stay the same.

``produce()`` runs ``gftpwb run SCENARIO --results out --progress never`` in a subprocess, in a fresh
directory, with :mod:`fake_guc` as ``globus-url-copy`` on PATH, and returns every file the run wrote
(and its console output) by name. ``tests/golden/<scenario>/`` holds what the code on ``main`` wrote
before the architecture change to plug-in kinds (made with ``python tests/support/golden_runs.py --pythonpath
CHECKOUT``, CHECKOUT being a ``git archive`` of that commit with ``gftpwb/tui``,
``gftpwb/converters`` and ``gftpwb/schemas`` linked to its top-level folders);
``tests/test_golden.py`` compares a fresh run with it. The statistics change changed them on purpose (regenerated
with ``python tests/support/golden_runs.py``): third-party stream-mode runs lost ``-vb``, records gained
``details.mode``/``live_progress``/``guc_avg_quantised``, plan.json specs their ``details``, the
console its statistics table and the auto-tune lines, and real runs write ``samples.jsonl``. The tgftp rewrite
regenerated them for its tag-log and record changes only: the GFTPWB_* tags moved before tgftp's
own, GSIFTP_TRANSFER_RATE/SIZE follow tgftp's formulas, records gain ``details.vb_added`` and plans
gain ``tgftp_style`` and ``on_failure``. The auto-tune's warm start regenerated them for its own facts
only: the plan's ``warm_start``, the adaptive tune's record and console line saying what the history
did (a cold search here: no earlier campaign), and the ranking's ``start`` column. The statistics at
small n regenerated them for the tables' ``n`` and intervals, and the auto-tunes' ranking (its
intervals, the notes on why each candidate stopped, the P said with its history and the reconciled
picks of one path). The simulated link's noise that only slows regenerated ``golden-sim`` for its
simulated times and rates only, and naming a candidate by what ran for its stream-mode candidate's
label, ``(no options)`` where it was ``-vb``. Saying where a guc run's size came from regenerated
``golden`` for ``details.size_from`` only.

Only clock readings differ from run to run. :func:`normalise` replaces them (start and end times,
durations, and the rates computed from durations of real processes) by placeholders, on both sides;
every other byte must be equal.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "golden"
SCENARIOS = ("golden", "golden-sim")
TIME_KEYS = ("started_at", "ended_at")
WALL = "<wall clock>"


def produce(scenario: str, workdir: Path, pythonpath: str | None = None) -> dict[str, str]:
    """Run one golden scenario in ``workdir``; return {file name: text} of what it wrote."""
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / f"{scenario}.yaml", workdir / f"{scenario}.yaml")
    bindir = workdir / "bin"
    bindir.mkdir(exist_ok=True)
    guc = bindir / "globus-url-copy"
    guc.write_text(f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {str(HERE / 'fake_guc.py')!r}\n"
                   f"runpy.run_path({str(HERE / 'fake_guc.py')!r}, run_name='__main__')\n")
    guc.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(NO_COLOR="1", PATH=f"{bindir}{os.pathsep}{env['PATH']}", TZ="UTC")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run([sys.executable, "-m", "gftpwb", "run", f"{scenario}.yaml", "--results", "out",
                           "--progress", "never"], cwd=workdir, env=env, capture_output=True, text=True, timeout=300)
    files = {"console.stdout": proc.stdout, "console.stderr": proc.stderr, "exit_code": f"{proc.returncode}\n"}
    out = workdir / "out"
    for path in sorted(out.iterdir()):
        # meta.json: creation time, host name, version; .gftpwb.lock: the pid that held the directory
        if path.is_file() and path.name not in ("meta.json", ".gftpwb.lock"):
            files[path.name] = path.read_text()
    return files


def _record(data: dict) -> dict:
    """A record with its clock readings replaced: times always; durations, and rates derived from
    them, when a real process was timed (simulated transfers take their duration from the model)."""
    data = dict(data)
    for key in TIME_KEYS:
        if data.get(key):
            data[key] = WALL
    timed = data.get("engine") == "real" or data.get("kind") == "autotune"
    if timed and data.get("seconds") is not None:
        data["seconds"] = WALL
    if data.get("engine") == "real" and data.get("rate_incl_setup_mib_s") is not None:
        data["rate_incl_setup_mib_s"] = WALL
    for key in ("warm_start", "warm_start_plan"):  # the results base the tune read: a fresh folder each time
        warm = (data.get("details") or {}).get(key)
        if isinstance(warm, dict) and warm.get("history"):
            data["details"] = {**data["details"], key: {**warm, "history": "<history>"}}
    commands = (data.get("details") or {}).get("commands")
    if commands:
        data["details"] = {**data["details"], "commands": {
            role: {**c, "seconds": WALL} if "seconds" in c else c for role, c in commands.items()}}
    return data


def _taglog(text: str) -> str:
    record_line = re.search(r"<GFTPWB_RECORD>\n(.*)\n</GFTPWB_RECORD>", text)
    record = json.loads(record_line.group(1)) if record_line else {}
    real = record.get("engine") == "real"

    def blank(tag: str, body: str) -> str:
        nonlocal text
        return re.sub(rf"(<{tag}>\n)(.*?)(\n</{tag}>)", lambda m: m.group(1) + body + m.group(3), text)

    for tag in ("GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END"):
        text = blank(tag, WALL)
    if real:
        for tag in ("GSIFTP_TRANSFER_RATE", "GFTPWB_RATE_INCL_SETUP_MIB_S", "GFTPWB_SECONDS"):
            text = blank(tag, WALL)
    if record_line:
        text = blank("GFTPWB_RECORD", json.dumps(_record(record)))
    return text


def _console(text: str) -> str:
    # Real runs: "in 0.123s" and every rate figure vary, and so do the table's column widths and
    # where its caption wraps (white space of any kind made one space); simulated runs are
    # deterministic and left alone.
    if "SIMULATED" in text:
        return text
    text = re.sub(r"\d+\.\d+", "<n>", text)
    return re.sub(r"[─━]+", "─", re.sub(r"\s+", " ", text))


def _samples(line: str) -> str:
    """A samples line with its times (ms since the run started, clock readings) replaced."""
    data = json.loads(line)
    for series in data.get("series", {}).values():
        series["t"] = [WALL] * len(series.get("t", []))
    return json.dumps(data)


def normalise(name: str, text: str) -> str:
    if name == "samples.jsonl":
        return "".join(_samples(line) + "\n" for line in text.splitlines())
    if name == "results.jsonl":
        return "".join(json.dumps(_record(json.loads(line))) + "\n" for line in text.splitlines())
    if name.endswith(".log"):
        return _taglog(text)
    if name.startswith("console."):
        return _console(text)
    return text


def main() -> None:
    """Write the golden outputs of every scenario into tests/golden/<scenario>/."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description="write tests/golden/<scenario>/ from a gftpwb checkout")
    parser.add_argument("--pythonpath", help="the checkout to run (default: the installed gftpwb)")
    args = parser.parse_args()
    for scenario in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            files = produce(scenario, Path(tmp), args.pythonpath)
        target = HERE / scenario
        target.mkdir(exist_ok=True)
        for old in target.iterdir():
            old.unlink()
        for name, text in files.items():
            (target / name).write_text(text)
        print(f"{scenario}: {len(files)} file(s) -> {target}")


if __name__ == "__main__":
    main()
