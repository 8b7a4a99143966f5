"""How long gftpwb's quick commands take from exec to exit (start-up plus the work), side by side.

Each round runs every command once, in turn, so load on a shared machine hits them alike; the table
gives the median (min-max) wall time of the rounds, with bare ``python -c pass`` as the floor.

    .venv/bin/python bench/startup.py [--rounds 21] [--pythonpath CHECKOUT]

``--pythonpath`` also measures another checkout's gftpwb (e.g. a ``git archive`` of an older commit,
with ``gftpwb/tui``, ``gftpwb/converters`` and ``gftpwb/schemas`` linked to its top-level folders), in
the same rounds, so both sides see the same load: the installed editable gftpwb is hidden for it and
the checkout run as ``python -m gftpwb``.

Target (issue 11): ``gftpwb --help``, ``gftpwb validate`` and ``gftpwb log get`` under 150 ms median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAG_LOG = ROOT / "tests" / "golden" / "golden" / "golden_#000_000.log"
GFTPWB = [sys.executable, "-m", "gftpwb"]

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
    ("gftpwb --help", [*GFTPWB, "--help"]),
    ("gftpwb validate --help", [*GFTPWB, "validate", "--help"]),
    ("gftpwb validate scenarios/quickstart.yaml", [*GFTPWB, "validate", "scenarios/quickstart.yaml"]),
    ("gftpwb validate scenarios/autotune.yaml", [*GFTPWB, "validate", "scenarios/autotune.yaml"]),
    ("gftpwb log get GSIFTP_TRANSFER_RATE LOG", [*GFTPWB, "log", "get", "GSIFTP_TRANSFER_RATE", str(TAG_LOG)]),
    ("gftpwb tgftp --version", [*GFTPWB, "tgftp", "--version"]),
]
ENV = {**os.environ, "NO_COLOR": "1"}
# Run another checkout's gftpwb: hide the editable install's finder, put the checkout first.
REFERENCE = ("import runpy, sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
             "sys.path_hooks[:] = [h for h in sys.path_hooks if 'editable' not in repr(h).lower()]; "
             "sys.path_importer_cache.clear(); sys.path.insert(0, {path!r}); sys.argv = ['gftpwb', *sys.argv[1:]]; "
             "runpy.run_module('gftpwb', run_name='__main__', alter_sys=True)")


def once(argv: list[str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--pythonpath", help="measure this checkout's gftpwb instead of the installed one")
    args = parser.parse_args()
    if args.pythonpath:
        reference = REFERENCE.format(path=args.pythonpath)
        COMMANDS.extend((f"{name} [reference]", [sys.executable, "-c", reference, *argv[3:]])
                        for name, argv in list(COMMANDS) if argv[:3] == GFTPWB)
    for _, argv in COMMANDS:  # warm the page cache and __pycache__ first
        once(argv)
    times: dict[str, list[float]] = {name: [] for name, _ in COMMANDS}
    for _ in range(args.rounds):
        for name, argv in COMMANDS:
            times[name].append(once(argv) * 1000)
    print(f"| command | median ms | min-max ms |  ({args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.1f})")
    print("|---|---|---|")
    for name, values in times.items():
        print(f"| `{name}` | {statistics.median(values):.0f} | {min(values):.0f}-{max(values):.0f} |")


if __name__ == "__main__":
    main()
