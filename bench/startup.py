"""Start-up cost of the commands scripts call often: the tgftp_log drop-in against the real
tgftp_log 0.2.0 on the same logs, and ``gftpwb --help``, ``gftpwb validate`` and ``gftpwb log get``.

Each command runs ``--rounds`` times; the commands take turns within a round (so a busy machine
slows all of them alike), and the table gives the median wall time per call and the drop-in's
ratio to the real script. The logs are a tgftp-format log and a gftpwb log (made here), read for
the RATE and the COMMAND_OUTPUT attribute. With ``--wheel`` the drop-in is also measured from a
wheel installed into a fresh virtualenv (what users get; the editable install of a checkout puts
setuptools' import finder into every interpreter start).

Usage: .venv/bin/python bench/startup.py [--rounds 40] [--wheel] [--reference DIR]
(reference: $GFTPWB_TGFTP_REFERENCE, else ../shared/reference/tgftp-0.7.0 next to the checkout)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gftpwb.converters.taglog import format_taglog

from gftpwb.records import ResultRecord

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

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

SCENARIO = """\
version: 1
name: bench
defaults: {source: ftp://127.0.0.1:2811/dev/zero, target: ftp://127.0.0.1:2811/dev/null}
tests:
  - {id: a, kind: guc, options: {length: 1G, parallel: 4}, repeat: 3}
  - {id: b, kind: guc, matrix: {parallel: [1, 2, 4, 8]}, options: {length: 64M}}
"""


def reference_dir(given: str | None) -> Path:
    for candidate in (given, os.environ.get("GFTPWB_TGFTP_REFERENCE"),
                      str(ROOT.parent / "shared" / "reference" / "tgftp-0.7.0")):
        if candidate and (Path(candidate) / "bin" / "tgftp_log").exists():
            return Path(candidate)
    sys.exit("no tgftp 0.7.0 reference found: pass --reference DIR or set GFTPWB_TGFTP_REFERENCE")


def write_inputs(directory: Path) -> dict[str, Path]:
    tgftp_log = directory / "tests.csv_#000_000.log"
    tgftp_log.write_text(TGFTP_LOG)
    record = ResultRecord(scenario="bench", test_id="a", run_id="a/0", case=0, repeat=0, kind="guc", host="local",
                          argv=["globus-url-copy", "-p", "4", "-len", "1G", "ftp://h/dev/zero", "ftp://h/dev/null"],
                          status="passed", started_at="2026-11-22T14:27:18.100000+00:00",
                          ended_at="2026-11-22T14:27:18.600000+00:00", seconds=0.5, bytes=1 << 30,
                          rate_incl_setup_mib_s=2048.0, output="Source: x\nDest: y\n", comment="# bench")
    gftpwb_log = directory / "bench_#000_000.log"
    gftpwb_log.write_text(format_taglog(record, "gftpwb run bench.yaml"))
    scenario = directory / "bench.yaml"
    scenario.write_text(SCENARIO)
    return {"tgftp log": tgftp_log, "gftpwb log": gftpwb_log, "scenario": scenario}


def install_wheel(directory: Path) -> Path:
    """Build gftpwb's wheel and install it (without its dependencies: the drop-in needs none) into a
    fresh virtualenv; returns that virtualenv's tgftp_log."""
    quiet = {"check": True, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(directory / "wheel"), str(ROOT)], **quiet)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory / "venv")], **quiet)
    wheel = next((directory / "wheel").glob("gftpwb-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(directory / "venv" / "bin" / "python"), "install",
                    "--no-deps", "-q", str(wheel)], **quiet)
    return directory / "venv" / "bin" / "tgftp_log"


def timed(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited {proc.returncode}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--wheel", action="store_true", help="also measure the drop-in installed from a wheel")
    parser.add_argument("--reference", help="directory of the real tgftp 0.7.0 (with bin/tgftp_log)")
    args = parser.parse_args()
    real = reference_dir(args.reference) / "bin" / "tgftp_log"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        inputs = write_inputs(work)
        commands: dict[str, list[str]] = {}
        drop_ins = {"drop-in (this checkout)": str(BIN / "tgftp_log")}
        if args.wheel:
            drop_ins["drop-in (wheel)"] = str(install_wheel(work))
        for log in ("tgftp log", "gftpwb log"):
            for attribute in ("GSIFTP_TRANSFER_RATE", "GSIFTP_TRANSFER_COMMAND_OUTPUT"):
                call = ["-a", attribute, "-f", str(inputs[log])]
                commands[f"real tgftp_log | {log} | {attribute}"] = [str(real), *call]
                for label, program in drop_ins.items():
                    commands[f"{label} | {log} | {attribute}"] = [program, *call]
        gftpwb = [str(BIN / "gftpwb")]
        commands["gftpwb --help"] = [*gftpwb, "--help"]
        commands["gftpwb validate"] = [*gftpwb, "validate", str(inputs["scenario"])]
        commands["gftpwb log get"] = [*gftpwb, "log", "get", "GSIFTP_TRANSFER_RATE", str(inputs["tgftp log"])]
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # warm the caches (page cache, .pyc) once
            timed(argv, work)
        for _ in range(args.rounds):
            for name, argv in commands.items():
                times[name].append(timed(argv, work))
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(f"rounds: {args.rounds}; load average before: {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    print()
    print("| command | log | attribute | median ms | vs real tgftp_log |")
    print("|---|---|---|---|---|")
    for name, value in median.items():
        parts = name.split(" | ")
        if len(parts) == 3:
            real_ms = median[f"real tgftp_log | {parts[1]} | {parts[2]}"]
            ratio = "1.00" if parts[0] == "real tgftp_log" else f"{value / real_ms:.2f}"
            print(f"| {parts[0]} | {parts[1]} | {parts[2]} | {value:.1f} | {ratio}x |")
    print()
    print("| command | median ms |")
    print("|---|---|")
    for name in ("gftpwb --help", "gftpwb validate", "gftpwb log get"):
        print(f"| {name} | {median[name]:.1f} |")


if __name__ == "__main__":
    main()
