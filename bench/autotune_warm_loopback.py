"""Cold and warm adaptive auto-tunes with real guc on loopback, side by side in one session: wall time,
transfers, the pick, and what the warm start did.

Starts a private GridFTP server (the project's lab code, free port) and runs ``gftpwb run`` (the real
command, a subprocess) on one scenario: an adaptive auto-tune of tgftp's 37 candidates, memory to
memory, ``--length`` per transfer. Each round runs a cold tune (``warm_start: off``) and then a warm
one (``warm_start: auto``), both writing into the same results base, so the warm one's history is
every campaign before it (round 1's warm tune has the cold one; round 2's has three). Prints a
Markdown table for BENCHMARKS.md; the results base is kept (printed) for inspection.

Usage: .venv/bin/python bench/autotune_warm_loopback.py [--length 4G] [--rounds 2] [--budget 120]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

from gftpwb.shell.lab.gridftp import GridftpLab, free_port

GFTPWB = os.path.join(os.path.dirname(sys.executable), "gftpwb")


def scenario(url: str, length: str, budget: int, margin: str, warm: str) -> str:
    return textwrap.dedent(f"""\
        version: 1
        name: loopback-tune
        tests:
          - id: tune
            kind: autotune
            source: {url}/
            target: {url}/
            strategy: adaptive
            budget: {budget}
            length: {length}
            margin: {margin}
            warm_start: {warm}
        """)


def tune_record(results: str) -> dict:
    with open(os.path.join(results, "results.jsonl"), encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    return [r for r in records if r["kind"] == "autotune"][-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--length", default="4G", help="bytes per transfer (tgftp: 4G)")
    parser.add_argument("--rounds", type=int, default=2, help="cold + warm pairs to run")
    parser.add_argument("--budget", type=int, default=120, help="the cold budget (a warm tune gets a third)")
    parser.add_argument("--margin", default="20MB/s")
    args = parser.parse_args(argv)
    base = tempfile.mkdtemp(prefix="gftpwb-autotune-warm-")
    lab = GridftpLab(f"{base}/lab")
    status = lab.up(port=free_port())
    results_base = f"{base}/results"
    with open("/proc/loadavg", encoding="ascii") as handle:
        load = handle.read().split()[:3]
    print(f"# length {args.length}, budget {args.budget}, margin {args.margin}, tgftp-37, server {status.url}, "
          f"results under {results_base}, load average at start {' '.join(load)}\n")
    print("| round | start | transfers | wall time | pick | its mean ± 95 % CI | P(within margin) | what the history "
          "did |")
    print("|---|---|---|---|---|---|---|---|")
    try:
        for round_ in range(1, args.rounds + 1):
            for warm in ("off", "auto"):
                name = f"r{round_}-{'cold' if warm == 'off' else 'warm'}"
                path = f"{base}/{name}.yaml"
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(scenario(status.url, args.length, args.budget, args.margin, warm))
                results = f"{results_base}/{name}"
                started = time.monotonic()
                done = subprocess.run([GFTPWB, "run", path, "--results", results, "--progress", "never"],
                                      capture_output=True, text=True, check=False)
                seconds = time.monotonic() - started
                if done.returncode != 0:
                    print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
                    return 1
                d = tune_record(results)["details"]
                pick = d["pick"] or {}
                row = next((r for r in d["ranking"] if r["candidate"] == pick.get("params")), {})
                low, high = row.get("ci_low_mib_s"), row.get("ci_high_mib_s")
                ci = f"{row.get('mean_mib_s', 0):.0f}" + (f" ± {(high - low) / 2:.0f}" if low is not None else "")
                what = (d.get("warm_start") or {}).get("text", "")
                print(f"| {round_} | {'cold' if warm == 'off' else 'warm'} | {d['transfers_used']} | {seconds:.0f} s | "
                      f"`{pick.get('params')}` | {ci} | {d['p_within_margin']:.2f} | {what} |", flush=True)
    finally:
        lab.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
