"""How validation time grows with the number of tests (issue 17: 20,000 tests took 9-10 s).

Writes scenarios of N guc tests and times `load_scenario` + `plan` in this process (median of
--repeat tries each), then prints seconds and microseconds per test; linear growth shows as a flat
per-test figure. Run: .venv/bin/python bench/validate_scale.py [--sizes 2500,5000,10000,20000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from gftpwb.core.dsl import yamlpos
from gftpwb.core.dsl.diagnostics import schema_diagnostics
from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.plan import plan


def scenario_text(n: int) -> str:
    lines = ["version: 1", "name: scale", "tests:"]
    for i in range(n):
        lines += [f"  - id: t{i}", "    kind: guc", "    source: ftp://127.0.0.1:2811/dev/zero",
                  "    target: file:///dev/null", "    options: {length: 1M, parallel: 2}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2500,5000,10000,20000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'tests':>7} {'total s':>8} {'us/test':>8} {'yaml s':>7} {'schema s':>8} {'rest s':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            path = os.path.join(tmp, f"s{n}.yaml")
            text = scenario_text(n)
            with open(path, "w") as handle:
                handle.write(text)
            totals, yamls, schemas = [], [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                data, pos, _ = yamlpos.load_yaml_with_positions(text, path)
                t1 = time.perf_counter()
                schema_diagnostics(data, pos, path)
                t2 = time.perf_counter()
                yamls.append(t1 - t0)
                schemas.append(t2 - t1)
                t0 = time.perf_counter()
                assert len(plan(load_scenario(path))) == n
                totals.append(time.perf_counter() - t0)
            total, y, s = statistics.median(totals), statistics.median(yamls), statistics.median(schemas)
            print(f"{n:>7} {total:>8.2f} {total / n * 1e6:>8.0f} {y:>7.2f} {s:>8.2f} {total - y - s:>7.2f}")


if __name__ == "__main__":
    main()
