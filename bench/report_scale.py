"""How long ``gftpwb report`` and ``gftpwb compare`` take, and how much memory, on results
directories of 100,000 records (each under 5 s).

Generates a results base under a temporary directory (or ``--base``): ``--dirs`` results
directories of one scenario, each with ``--records`` guc records (``--cases`` cases, the rest
repeats; seeded lognormal rates, a warm-up per case, 1 % failures, a progress sample line per run
for 1 % of the runs), meta.json and plan.json, as ``gftpwb run`` writes them. Then runs each command
``--repeats`` times as a user would (a new ``python -m gftpwb`` process, output to /dev/null) and
prints the median and range of the wall time and the peak RSS of the process (``ru_maxrss`` of the
child, KiB), as a Markdown table for docs/benchmarks/.

``--before TREE`` runs each command with another gftpwb as well, round by round in turns (a source
tree, e.g. ``git archive <commit> gftpwb schemas | tar -x -C TREE``, put first on PYTHONPATH), so a
change is measured against what it replaces under the same load. ``--only report,compare`` runs
only the commands whose label starts with one of those words.

Usage: python bench/report_scale.py [--records 100000] [--cases 1000] [--repeats 3] [--before TREE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gftpwb.core.records import ResultRecord
from gftpwb.core.samples import RunSampler

SRC, DST = "ftp://a.example:2811/dev/zero", "ftp://b.example:2811/dev/null"


def write_directory(path: Path, records: int, cases: int, seed: int, created: str, slower: float = 1.0) -> None:
    """One results directory: ``records`` guc records over ``cases`` cases (test t<case // 10>, -p 1..10)."""
    rng = random.Random(seed)
    path.mkdir(parents=True)
    repeats = records // cases
    plan, lines, samples = [], [], []
    for case in range(cases):
        test, p = f"t{case // 10:03d}", case % 10 + 1
        true_rate = 100.0 * p * (0.5 + rng.random()) * slower
        for repeat in range(repeats):
            run_id = f"{test}[{p - 1}]/{repeat}"
            failed = rng.random() < 0.01
            rate = None if failed else true_rate * rng.lognormvariate(0, 0.1)
            seconds = 1024 / rate if rate else 3.0
            details = {"mode": "extended", "live_progress": True, **({"warmup": True} if repeat == 0 else {})}
            plan.append({"run_id": run_id, "test_id": test, "kind": "guc", "case": case, "repeat": repeat})
            lines.append(ResultRecord(
                scenario="scale", test_id=test, run_id=run_id, case=case, repeat=repeat, kind="guc", host="local",
                argv=["globus-url-copy", "-vb", "-p", str(p), "-len", "1G", SRC, DST],
                status="failed" if failed else "passed", params={"parallel": p, "length": 1 << 30},
                started_at=created, ended_at=created, seconds=seconds, bytes=None if failed else 1 << 30,
                rate_incl_setup_mib_s=rate, rate_guc_avg_mib_s=rate * 1.05 if rate else None,
                exit_code=1 if failed else 0, error="globus_xio: Connection refused" if failed else "",
                taglog=f"scale_#{case:03d}_{repeat:03d}.log", details=details).to_json())
            if rate and rng.random() < 0.01:
                sampler = RunSampler(run_id)
                for i in range(1, int(seconds) + 1):
                    sampler.add("", float(i), int(i * rate * 1048576))
                finished = sampler.finish()
                if finished is not None:  # a run shorter than its first sample has none
                    samples.append(finished.to_json())
    (path / "results.jsonl").write_text("\n".join(lines) + "\n")
    (path / "samples.jsonl").write_text("\n".join(samples) + "\n" if samples else "")
    (path / "plan.json").write_text(json.dumps(plan))
    (path / "meta.json").write_text(json.dumps({
        "gftpwb_version": "bench", "created_at": created, "command": ["gftpwb", "run", "scale.yaml"],
        "controller": "bench", "scenario": "scale", "runs": len(plan), "environment": {"hosts": {}}}))


def run_once(args: list[str], tree: str | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one ``python -m gftpwb ARGS``:
    a new process, as a user runs it, with its own rusage (wait4); ``tree``: the gftpwb source tree
    to run instead of the installed one."""
    env = {**os.environ, "COLUMNS": "200"}
    if tree:
        env["PYTHONPATH"] = os.pathsep.join([tree, *filter(None, [os.environ.get("PYTHONPATH")])])
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "gftpwb", *args], stdout=sink, stderr=subprocess.DEVNULL,
                                env=env, cwd=tree or None)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gftpwb {' '.join(args)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000, help="records per results directory")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--dirs", type=int, default=3, help="results directories of the scenario (history)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--base", help="write the results base here (default: a temporary directory)")
    parser.add_argument("--before", help="a gftpwb source tree to measure as well, in turns with this one")
    parser.add_argument("--only", default="", help="comma-separated first words of the commands to run")
    args = parser.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="gftpwb-scale-")
    base = Path(args.base or tmp.name)
    start = time.perf_counter()
    names = []
    for i in range(args.dirs):
        name = f"2026112{i}T100000Z-scale"
        if (base / name / "results.jsonl").exists():  # a --base generated before: used as it is
            names.append(name)
            continue
        write_directory(base / name, args.records, args.cases, seed=i, created=f"2026-11-2{i}T10:00:00+00:00",
                        slower=0.9 if i == args.dirs - 1 else 1.0)
        names.append(name)
    size = sum(f.stat().st_size for f in (base / names[-1]).iterdir())
    print(f"generated {args.dirs} x {args.records} records ({args.cases} cases) in {time.perf_counter() - start:.1f} s;"
          f" one directory: {size / 1048576:.1f} MiB; python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}\n")
    a, b = str(base / names[0]), str(base / names[-1])
    html = str(base / "report.html")
    commands = [
        ("report DIR (console)", ["report", b]),
        ("report DIR --json", ["report", b, "--json"]),
        ("report DIR --html FILE --trend 0", ["report", b, "--html", html, "--trend", "0"]),
        (f"report DIR --html FILE (trend over {args.dirs} directories)", ["report", b, "--html", html]),
        ("compare A B", ["compare", a, b]),
        ("compare A B --json", ["compare", a, b, "--json"]),
        (f"results list ({args.dirs} directories)", ["results", "list", "--results-base", str(base)]),
        ("results query (median per case, all directories)",
         ["results", "query", "--results-base", str(base), "--csv",
          "SELECT directory, test_id, \"case\", median(value) FROM figures WHERE headline AND counted GROUP BY ALL"]),
    ]
    only = tuple(word for word in args.only.split(",") if word)
    commands = [(label, command) for label, command in commands if not only or label.startswith(only)]
    trees = [("before", args.before), ("after", None)] if args.before else [("", None)]
    print(f"| command ({args.records:,} records per directory) |{' |' if args.before else ''} wall s "
          f"| CPU s (user + sys) | peak RSS MiB |\n|---|{'---|' if args.before else ''}---|---|---|")
    for label, command in commands:
        runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name, _ in trees}
        for _ in range(args.repeats):  # in turns, so both see the same load
            for name, tree in trees:
                runs[name].append(run_once(command, tree))
        for name, _ in trees:
            got = runs[name]
            print(f"| `gftpwb {label}` |{f' {name} |' if name else ''} {spread([r[0] for r in got])} "
                  f"| {spread([r[1] for r in got])} | {max(r[2] for r in got) / 1024:.0f} |", flush=True)
    print(f"\nmedian (min-max) of {args.repeats}; load average after: {os.getloadavg()[0]:.1f}")
    tmp.cleanup()


if __name__ == "__main__":
    main()
