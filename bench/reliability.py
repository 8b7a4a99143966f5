"""Fuzz campaigns behind docs/benchmarks/reliability.md: the test suite's fuzzers
(tests/test_bounded_inputs.py, tests/test_fuzz_readers.py, tests/test_fuzz_tgftp.py) run for many more
cases, outside pytest.

For each target: cases tried, how the cases ended, failures (a traceback, an error without its
line, fastyaml and ruamel disagreeing), the slowest case and the peak memory of this process.
Run: .venv/bin/python bench/reliability.py [--cases 3000] [--seed N] [--only WORD]; a failure prints its
input.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import random
import resource
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import yaml
from rich.console import Console
from support.report_fixture import write_mixed
from test_bounded_inputs import SEEDS, mutate
from test_fuzz_readers import BASES, damage, mutate_scenario
from test_fuzz_tgftp import BATCH_SEEDS, TAGLOG_SEEDS, import_case, mutate_text, taglog_case
from test_fuzz_tgftp import mutate as mutate_batch

from gftpwb.cli.report import print_directory
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import GftpwbError, ScenarioError
from gftpwb.core.junit import junit_xml
from gftpwb.core.plan import plan
from gftpwb.core.report_csv import report_csv
from gftpwb.core.report_json import report_json
from gftpwb.core.scenario.fastyaml import fast_load
from gftpwb.core.scenario.yamlpos import MAX_NESTING, MIN_VALUE_BUDGET, ruamel_load
from gftpwb.shell.results_index import load_records, read_directory


class Failure(Exception):
    """A case that broke a promise (positioned errors, identical data on both YAML paths)."""


def load_and_plan(text: str) -> str:
    try:
        planned = plan(load_scenario_text(text, "f.yaml"))
    except ScenarioError as exc:
        if not exc.diagnostics or any(d.line < 1 or d.file != "f.yaml" for d in exc.diagnostics):
            raise Failure("an error without its line") from None
        return "error with file:line:col (exit 2)"
    except GftpwbError as exc:
        return f"other documented error (exit {exc.exit_code})"
    return f"valid ({'1' if len(planned) == 1 else 'several'} runs)"


def scenario_text_case(rng: random.Random) -> tuple[str, str]:
    edits = [(rng.randrange(10_000), rng.randrange(1_000), rng.randrange(4)) for _ in range(rng.randrange(7))]
    text = mutate(rng.choice(SEEDS), edits)
    return text, load_and_plan(text)


def fast_yaml_case(rng: random.Random) -> tuple[str, str]:
    edits = [(rng.randrange(10_000), rng.randrange(1_000), rng.randrange(4)) for _ in range(rng.randrange(7))]
    text = mutate(rng.choice(SEEDS), edits)
    fast = fast_load(text, MIN_VALUE_BUDGET, MAX_NESTING)
    if fast is None:
        return text, "ruamel path"
    try:
        slow, pos, _ = ruamel_load(text, "f.yaml", MIN_VALUE_BUDGET)
    except ScenarioError:
        raise Failure("fastyaml took a file ruamel refuses") from None
    if fast[0] != slow or fast[1] != {k: v for k, v in pos.values.items() if k} or fast[2] != pos.keys:
        raise Failure("fastyaml and ruamel disagree")
    return text, "fast path, same data and positions"


def scenario_type_case(rng: random.Random) -> tuple[str, str]:
    data = copy.deepcopy(rng.choice(BASES))
    for _ in range(rng.randint(1, 3)):
        data = mutate_scenario(rng, data)
    text = yaml.safe_dump(data, sort_keys=False)
    return text, load_and_plan(text)


def results_dir_case(rng: random.Random) -> tuple[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "r"
        directory.mkdir()
        write_mixed(directory)
        damage(rng, directory)
        summary = read_directory(str(directory))
        report_csv([summary])
        junit_xml([summary])
        json.loads(report_json([summary], "bench"))
        print_directory(Console(file=io.StringIO(), width=120), summary)
        load_records(str(directory))
        if any(not p.startswith(("results.jsonl: line ", "samples.jsonl: line ")) for p in summary.problems):
            raise Failure("a problem without its file and line")
        return "", f"read, {'problems reported' if summary.problems else 'no problem'}"


def edits(rng: random.Random) -> list[tuple[int, int, int]]:
    return [(rng.randrange(10_000), rng.randrange(1_000), rng.randrange(4)) for _ in range(rng.randrange(9))]


def batchfile_case(rng: random.Random) -> tuple[str, str]:
    data = mutate_batch(rng.choice(BATCH_SEEDS), edits(rng))
    try:
        return repr(data), import_case(data)
    except Exception as exc:  # any exception is a failure to report, with its input
        raise Failure(f"{exc!r} on {data!r}") from None


def taglog_target_case(rng: random.Random) -> tuple[str, str]:
    text = mutate_text(rng.choice(TAGLOG_SEEDS), edits(rng))
    name = rng.choice(["tests.csv_#001_000.log", "x.log", "a b_#9_1.log", "..%2f_#1_0.log"])
    with tempfile.TemporaryDirectory() as tmp:
        try:
            return text, taglog_case(text, name, tmp)
        except Exception as exc:  # any exception is a failure to report, with its input
            raise Failure(f"{exc!r} on {name}: {text!r}") from None


TARGETS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "scenario text (byte edits)": scenario_text_case,
    "fastyaml vs ruamel": fast_yaml_case,
    "scenario values of the wrong type": scenario_type_case,
    "damaged results directories": results_dir_case,
    "tgftp batchfiles (byte edits)": batchfile_case,
    "tag logs (text edits)": taglog_target_case,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=3000, help="cases per target")
    parser.add_argument("--seed", type=int, default=random.SystemRandom().randrange(2**32))
    parser.add_argument("--only", metavar="WORD", action="append",
                        help="only the targets whose name contains WORD (may be given several times)")
    args = parser.parse_args()
    print(f"seed {args.seed}, {args.cases} cases per target")
    failed = 0
    for name, case in TARGETS.items():
        if args.only and not any(word in name for word in args.only):
            continue
        rng = random.Random(f"{args.seed}:{name}")
        outcomes: Counter[str] = Counter()
        failures: list[str] = []
        slowest = 0.0
        for _ in range(args.cases):
            started = time.perf_counter()
            text = ""
            try:
                text, outcome = case(rng)
                outcomes[outcome] += 1
            except Failure as exc:
                failures.append(f"{exc}: {text!r}")
            except Exception:
                failures.append(traceback.format_exc(limit=-2))
            slowest = max(slowest, time.perf_counter() - started)
        failed += len(failures)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\n{name}: {args.cases} cases, {len(failures)} failures, slowest case {slowest:.2f} s, "
              f"peak memory {peak:.0f} MiB")
        for outcome, count in outcomes.most_common():
            print(f"  {count:6d}  {outcome}")
        for failure in list(dict.fromkeys(failures))[:8]:  # the distinct ones
            print(f"  FAILURE {failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
