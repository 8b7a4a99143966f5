"""How long gftpwb's quick commands take from exec to exit (start-up plus the work), side by side;
and the ``tgftp_log`` drop-in against the real tgftp_log 0.2.0 on the same logs.

Each round runs every command once, in turn, so load on a shared machine hits them alike; the table
gives the median (min-max) wall time of the rounds, with bare ``python -c pass`` as the floor, and the
median CPU time (user + system of the child, from ``wait4``), which load inflates far less than wall
time: on a shared machine, read the ratios and the CPU column.

    .venv/bin/python bench/startup.py [--rounds 21] [--pythonpath CHECKOUT] [--wheel] [--tgftp-log]
        [--only validate]

``--tgftp-log`` adds the real tgftp_log (from ``--reference``, ``$GFTPWB_TGFTP_REFERENCE`` or
../shared/reference/tgftp-0.7.0) and the drop-in, reading RATE and COMMAND_OUTPUT from a tgftp log and
from a gftpwb log, with the drop-in's ratio to the real script (the target: within 3x).
``--wheel`` also measures gftpwb installed from a wheel into a fresh virtualenv and run by its console
script, as users get it (the checkout's editable install puts setuptools' import finder into every
interpreter start): this checkout's, and with ``--pythonpath`` that checkout's too, each built and
installed without its dependencies, which the virtualenv finds in this interpreter's site-packages (a
path line in a ``.pth`` file: the editable install's own ``.pth`` there is not run). ``--only WORD`` keeps the gftpwb
commands whose name has WORD (the floor is always measured).

``--pythonpath`` also measures another checkout's gftpwb (e.g. a ``git archive`` of an older commit,
with ``gftpwb/schemas`` (in older layouts also ``gftpwb/tui`` and ``gftpwb/converters``) linked to its
top-level folders), in the same rounds, so both sides see the same load: the installed editable gftpwb
is hidden for it and the checkout run as ``python -m gftpwb``.

Targets: ``gftpwb --help``, ``gftpwb validate`` and ``gftpwb log get`` under 150 ms median;
the ``tgftp_log`` drop-in within 3x of the real one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAG_LOG = ROOT / "tests" / "golden" / "golden" / "golden_#000_000.log"
GFTPWB = [sys.executable, "-m", "gftpwb"]

FLOOR = "python -c pass (floor)"
COMMANDS: list[tuple[str, list[str]]] = [
    (FLOOR, [sys.executable, "-c", "pass"]),
    ("gftpwb --help", [*GFTPWB, "--help"]),
    ("gftpwb validate --help", [*GFTPWB, "validate", "--help"]),
    ("gftpwb validate scenarios/quickstart.yaml", [*GFTPWB, "validate", "scenarios/quickstart.yaml"]),
    ("gftpwb validate scenarios/autotune.yaml", [*GFTPWB, "validate", "scenarios/autotune.yaml"]),
    ("gftpwb log get GSIFTP_TRANSFER_RATE LOG", [*GFTPWB, "log", "get", "GSIFTP_TRANSFER_RATE", str(TAG_LOG)]),
    ("gftpwb tgftp --version", [*GFTPWB, "tgftp", "--version"]),
    ("tgftp --help (drop-in)", [str(Path(sys.executable).parent / "tgftp"), "--help"]),
]
# Bytecode as users have it (pip compiles a wheel's modules at install): a PYTHONDONTWRITEBYTECODE in
# the caller's environment would make every call compile gftpwb's sources again (about 130 ms).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "NO_COLOR": "1"}
# Run another checkout's gftpwb: hide the editable install's finder, put the checkout first.
REFERENCE = ("import runpy, sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
             "sys.path_hooks[:] = [h for h in sys.path_hooks if 'editable' not in repr(h).lower()]; "
             "sys.path_importer_cache.clear(); sys.path.insert(0, {path!r}); sys.argv = ['gftpwb', *sys.argv[1:]]; "
             "runpy.run_module('gftpwb', run_name='__main__', alter_sys=True)")


def once(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv``, exec to exit; CPU is the child's user + system time."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-500:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


TGFTP_LOG = """\
<GSIFTP_TRANSFER_LOG_COMMENT>
# loopback p4
</GSIFTP_TRANSFER_LOG_COMMENT>
<TGFTP_COMMAND>
/usr/local/bin/tgftp --source ftp://127.0.0.1:2811/dev/zero --target ftp://127.0.0.1:2811/dev/null --timeout 30 \
--log-filename tests.csv_#000_000.log --log-comment # loopback p4 -- -vb -p 4 -tcp-bs 4M -len 1G
</TGFTP_COMMAND>
<GSIFTP_TRANSFER_COMMAND>
globus-url-copy -vb -p 4 -tcp-bs 4M -len 1G ftp://127.0.0.1:2811/dev/zero ftp://127.0.0.1:2811/dev/null
</GSIFTP_TRANSFER_COMMAND>
<GSIFTP_TRANSFER_COMMAND_OUTPUT>
Source: ftp://127.0.0.1:2811/dev/
Dest:   ftp://127.0.0.1:2811/dev/
  zero  ->  null

   1073741824 bytes      2560.00 MB/sec avg      2560.00 MB/sec inst

</GSIFTP_TRANSFER_COMMAND_OUTPUT>
<GSIFTP_TRANSFER_START>
2026-11-22_14:27:18
</GSIFTP_TRANSFER_START>
<GSIFTP_TRANSFER_END>
2026-11-22_14:27:18
</GSIFTP_TRANSFER_END>
<GSIFTP_TRANSFER_LIST>
"ftp://127.0.0.1:2811/dev/zero" "ftp://127.0.0.1:2811/dev/null"
</GSIFTP_TRANSFER_LIST>
<GSIFTP_TRANSFER_SIZE>
1 GB
</GSIFTP_TRANSFER_SIZE>
<GSIFTP_TRANSFER_RATE>
1024 MB/s
</GSIFTP_TRANSFER_RATE>
"""
DROP_IN_ROWS = "drop-in"


def reference_dir(given: str | None) -> Path:
    for candidate in (given, os.environ.get("GFTPWB_TGFTP_REFERENCE"),
                      str(ROOT.parent / "shared" / "reference" / "tgftp-0.7.0")):
        if candidate and (Path(candidate) / "bin" / "tgftp_log").exists():
            return Path(candidate)
    raise SystemExit("no tgftp 0.7.0 reference: pass --reference DIR or set GFTPWB_TGFTP_REFERENCE")


def install_wheel(directory: Path, source: Path = ROOT) -> Path:
    """Build the wheel of the checkout ``source`` and install it without its dependencies into a fresh
    virtualenv in ``directory``, which finds them in this interpreter's site-packages; returns that
    virtualenv's bin directory."""
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(directory / "wheel"), str(source)], **quiet)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory / "venv")], **quiet)
    wheel = next((directory / "wheel").glob("gftpwb-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(directory / "venv" / "bin" / "python"), "install",
                    "--no-deps", "-q", str(wheel)], **quiet)
    purelib = next((directory / "venv" / "lib").glob("python*/site-packages"))
    (purelib / "zz-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return directory / "venv" / "bin"


def wheel_commands(work: Path, reference: str | None) -> None:
    """The gftpwb commands again, from a wheel of this checkout (and of ``reference``)."""
    installs = {"wheel": install_wheel(work / "this")}
    if reference:
        installs["reference wheel"] = install_wheel(work / "reference", Path(reference))
    for label, bin_dir in installs.items():
        COMMANDS.extend((f"{name} [{label}]", [str(bin_dir / "gftpwb"), *argv[3:]])
                        for name, argv in list(COMMANDS) if argv[:3] == GFTPWB)


def tgftp_log_commands(work: Path, reference: Path, wheel: bool) -> None:
    """Add the real tgftp_log and the drop-in(s) on a tgftp log and a gftpwb log to COMMANDS."""
    from gftpwb.converters.taglog import format_taglog
    from gftpwb.core.records import ResultRecord

    logs = {"tgftp log": work / "tests.csv_#000_000.log", "gftpwb log": work / "bench_#000_000.log"}
    logs["tgftp log"].write_text(TGFTP_LOG)
    record = ResultRecord(scenario="bench", test_id="a", run_id="a/0", case=0, repeat=0, kind="guc", host="local",
                          argv=["globus-url-copy", "-p", "4", "-len", "1G", "ftp://h/dev/zero", "ftp://h/dev/null"],
                          status="passed", started_at="2026-11-22T14:27:18.100000+00:00",
                          ended_at="2026-11-22T14:27:18.600000+00:00", seconds=0.5, bytes=1 << 30,
                          rate_incl_setup_mib_s=2048.0, output="Source: x\nDest: y\n", comment="# bench")
    logs["gftpwb log"].write_text(format_taglog(record, "gftpwb run bench.yaml"))
    programs = {"tgftp_log (real)": str(reference / "bin" / "tgftp_log"),
                f"tgftp_log {DROP_IN_ROWS} (this checkout)": str(Path(sys.executable).parent / "tgftp_log")}
    if wheel:
        programs[f"tgftp_log {DROP_IN_ROWS} (wheel)"] = str(install_wheel(work / "drop-in") / "tgftp_log")
    for log, path in logs.items():
        for attribute in ("GSIFTP_TRANSFER_RATE", "GSIFTP_TRANSFER_COMMAND_OUTPUT"):
            for label, program in programs.items():
                COMMANDS.append((f"{label} | {log} | {attribute}", [program, "-a", attribute, "-f", str(path)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--pythonpath", help="measure this checkout's gftpwb instead of the installed one")
    parser.add_argument("--tgftp-log", action="store_true", help="also the tgftp_log drop-in against the real one")
    parser.add_argument("--wheel", action="store_true", help="also from wheels, as users install gftpwb")
    parser.add_argument("--only", metavar="WORD", help="only the gftpwb commands whose name has WORD")
    parser.add_argument("--reference", help="directory of the real tgftp 0.7.0 (with bin/tgftp_log)")
    args = parser.parse_args()
    if args.only:
        COMMANDS[:] = [(n, a) for n, a in COMMANDS if args.only in n or n == FLOOR]
    with tempfile.TemporaryDirectory() as work:
        if args.tgftp_log:
            tgftp_log_commands(Path(work), reference_dir(args.reference), args.wheel)
        if args.wheel:
            wheel_commands(Path(work), args.pythonpath)
        measure(args)


def measure(args: argparse.Namespace) -> None:
    if args.pythonpath:
        reference = REFERENCE.format(path=args.pythonpath)
        COMMANDS.extend((f"{name} [reference]", [sys.executable, "-c", reference, *argv[3:]])
                        for name, argv in list(COMMANDS) if argv[:3] == GFTPWB)
    for _, argv in COMMANDS:  # warm the page cache and __pycache__ first
        once(argv)
    times: dict[str, list[float]] = {name: [] for name, _ in COMMANDS}
    cpu: dict[str, list[float]] = {name: [] for name, _ in COMMANDS}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for name, argv in COMMANDS:
            wall, used = once(argv)
            times[name].append(wall * 1000)
            cpu[name].append(used * 1000)
    print(f"| command | median ms | min-max ms | CPU median ms |  ({args.rounds} rounds, load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    print("|---|---|---|---|")
    for name, values in times.items():
        if " | " not in name:
            print(f"| `{name}` | {statistics.median(values):.0f} | {min(values):.0f}-{max(values):.0f} | "
                  f"{statistics.median(cpu[name]):.0f} |")
    rows = [name for name in times if " | " in name]
    if rows:
        print()
        print("| tgftp_log | log | attribute | median ms | min-max ms | vs the real one |")
        print("|---|---|---|---|---|---|")
        for name in rows:
            program, log, attribute = name.split(" | ")
            real = statistics.median(times[f"tgftp_log (real) | {log} | {attribute}"])
            median = statistics.median(times[name])
            print(f"| {program} | {log} | {attribute} | {median:.1f} | {min(times[name]):.1f}-"
                  f"{max(times[name]):.1f} | {median / real:.2f}x |")


if __name__ == "__main__":
    main()
