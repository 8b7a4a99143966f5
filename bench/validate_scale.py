"""How validation time grows with the number of tests (20,000 tests once took 9-10 s).

Writes scenarios of N guc tests and times what `gftpwb validate` does (`load_scenario` + `plan`) in
this process (CPU seconds), median of --repeat tries, then microseconds per test (linear growth shows as a flat
per-test figure); and, side by side, YAML loading alone on the libyaml fast path and on the ruamel
path every file took before. Run: .venv/bin/python bench/validate_scale.py [--sizes 2500,...]; the same
with PYTHONPATH=<an export of older code> (`git archive <rev> gftpwb converters | tar -x -C DIR`)
times that code's validation for comparison.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from gftpwb.core.dsl import yamlpos
from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.plan import plan


def scenario_text(n: int) -> str:
    lines = ["version: 1", "name: scale", "tests:"]
    for i in range(n):
        lines += [f"  - id: t{i}", "    kind: guc", "    source: ftp://127.0.0.1:2811/dev/zero",
                  "    target: file:///dev/null", "    options: {length: 1M, parallel: 2}"]
    return "\n".join(lines) + "\n"


def median_time(fn, repeat: int) -> float:
    """CPU seconds of this process (not wall time: the machine is shared, and waiting for a core is not
    validation's cost), median of `repeat` tries."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2500,5000,10000,20000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'tests':>7} {'validate s':>10} {'us/test':>8} {'yaml (libyaml) s':>16} {'yaml (ruamel) s':>15}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            path = os.path.join(tmp, f"s{n}.yaml")
            text = scenario_text(n)
            with open(path, "w") as handle:
                handle.write(text)
            total = median_time(lambda path=path, n=n: len(plan(load_scenario(path))) == n or exit(1), args.repeat)
            if not hasattr(yamlpos, "ruamel_load"):  # code from before the fast loader (PYTHONPATH=an export of it)
                print(f"{n:>7} {total:>10.2f} {total / n * 1e6:>8.0f}")
                continue
            fast = median_time(lambda text=text, path=path: yamlpos.load_yaml_with_positions(text, path), args.repeat)
            slow = median_time(lambda text=text, path=path: yamlpos.ruamel_load(text, path, 10**9), args.repeat)
            print(f"{n:>7} {total:>10.2f} {total / n * 1e6:>8.0f} {fast:>16.2f} {slow:>15.2f}")


if __name__ == "__main__":
    main()
