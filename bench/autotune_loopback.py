"""Both auto-tune strategies with real guc on loopback: transfers, wall time, and whether the adaptive
pick is within the margin of the best mean the exhaustive run measured (tgftp's 370 transfers as the
reference, itself noisy).

Starts a private GridFTP server (the project's lab code, free port), runs the exhaustive tune and
then the adaptive one over tgftp's 37 candidates, and prints a Markdown table for docs/benchmarks/.
Loopback is one host: every -tcp-bs above its kernel cap duplicates another candidate, which the
adaptive strategy does not run. Results directories are kept (printed) for inspection.

Usage: .venv/bin/python bench/autotune_loopback.py [--length 1G] [--rounds 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.tgftp.run.autotune import run_tgftp_autotune


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", default="1G", help="bytes per transfer (tgftp: 4G)")
    parser.add_argument("--rounds", type=int, default=1, help="exhaustive + adaptive pairs to run")
    parser.add_argument("--margin", default="20MB/s")
    args = parser.parse_args(argv)
    base = tempfile.mkdtemp(prefix="gftpwb-autotune-loopback-")
    lab = GridftpLab(f"{base}/lab")
    status = lab.up(port=free_port())
    print(f"# length {args.length}, margin {args.margin}, tgftp-37, server {status.url}, results under {base}\n")
    print("| round | strategy | transfers | wall time | pick | its mean (exhaustive run) | best mean (exhaustive "
          "run) | pick within margin of that best |")
    print("|---|---|---|---|---|---|---|---|")
    try:
        for round_ in range(1, args.rounds + 1):
            runs, minutes = {}, {}
            for strategy in ("exhaustive", "adaptive"):
                started = time.monotonic()
                runs[strategy] = run_tgftp_autotune(
                    f"{status.url}/", f"{status.url}/", results_dir=f"{base}/r{round_}-{strategy}",
                    strategy=strategy, length=args.length, margin=args.margin, install_signal_handlers=False,
                    command=["bench/autotune_loopback.py"])
                minutes[strategy] = (time.monotonic() - started) / 60
            reference = {row["candidate"]: row["mean_mib_s"] for row in runs["exhaustive"].record.details["ranking"]}
            best = max(v for v in reference.values() if v is not None)
            margin = runs["exhaustive"].record.details["margin_mib_s"]
            for strategy, result in runs.items():
                d = result.record.details
                mean = reference.get(result.line)
                ok = "yes" if mean is not None and mean >= best - margin else "no"
                print(f"| {round_} | {strategy} | {d['transfers_used']} | {minutes[strategy]:.1f} min | "
                      f"`{result.line}` | {mean:.0f} | {best:.0f} | {ok} |", flush=True)
    finally:
        lab.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
