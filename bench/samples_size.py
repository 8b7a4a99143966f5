"""How many bytes the progress samples add per run (samples.jsonl), for typical runs.

Feeds the sampler what guc and gfapi report (guc: a whole-run sample every 2 s; gfapi: the 1 s
aggregate and 250 ms per-thread counters) and prints the size of each run's line; the records in
results.jsonl do not grow. Usage: python bench/samples_size.py
"""

from __future__ import annotations

from gftpwb.core.samples import RunSampler


def guc_run(seconds: int, rate_mib_s: float = 1100.0) -> int:
    sampler = RunSampler("sweep[3]/12")
    for i in range(1, seconds // 2 + 1):
        sampler.add("", i * 2.0 + 0.013, int(i * 2 * rate_mib_s * 1048576))
    return len(sampler.finish().to_json()) + 1


def gfapi_run(seconds: int, threads: int, hosts: int = 2) -> int:
    sampler = RunSampler("files[1]/3")
    for tick in range(1, seconds * 4 + 1):
        t = tick * 0.25
        if tick % 4 == 0:
            sampler.add("", t, tick * 4_000_000, tick * 61)
        for thread in range(threads):
            sampler.add(f"client{thread % hosts}/{thread}", t + 0.001, tick * 500_000, tick * 8)
    return len(sampler.finish().to_json()) + 1


def main() -> None:
    print("| run | samples.jsonl bytes |\n|---|---|")
    for seconds in (10, 60, 600, 3600):
        print(f"| guc, {seconds} s, progress every 2 s | {guc_run(seconds)} |")
    for seconds, threads in ((30, 8), (60, 32), (600, 8)):
        print(f"| gfapi, {seconds} s, {threads} threads | {gfapi_run(seconds, threads)} |")


if __name__ == "__main__":
    main()
