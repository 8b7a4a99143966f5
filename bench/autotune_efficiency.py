"""Adaptive vs exhaustive auto-tune over many seeded simulated campaigns.

For every setting (link speed x run-to-run noise) it draws ``--campaigns`` links from a seeded
generator (RTT, set-up cost, per-stream cost, contention vary; the speed and noise are the setting's),
runs both strategies of ``gftpwb.autotune`` on each link through the simulated engine's link model
(``gftpwb.simlink``, the same code ``engine: simulated`` runs), and reports the transfers used and
how often the pick is within the margin of the true best (the best expected rate of the link model).

Everything is seeded: the same command prints the same table. The campaigns are simulated, so the
figures say how the strategies behave on the model, not on a particular real network.

Usage: .venv/bin/python bench/autotune_efficiency.py [--campaigns 500] [--speeds 100,250,500,1000,2500]
       [--noise 0.01,0.03,0.05,0.08] [--margin 20] [--budget 120] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from gftpwb.autotune.candidates import make_candidates, tgftp_37
from gftpwb.autotune.strategies import Adaptive, Exhaustive, Tuner
from gftpwb.simlink import LinkModel, Transfer, expected_rate, simulate
from gftpwb.units import GIB

CANDIDATES = make_candidates(tgftp_37())
TIMEOUT_S = 30.0
OUTLIERS = float(__import__("os").environ.get("OUTLIERS", "0.05"))


@dataclass(frozen=True)
class Setting:
    speed: float  # MiB/s
    noise: float  # coefficient of variation of a run

    @property
    def length(self) -> int:
        # tgftp's 4 GiB needs >= 137 MiB/s to finish in its 30 s timeout; slower links get 1 GiB.
        return 4 * GIB if self.speed > 250 else GIB


def draw_link(setting: Setting, rng: np.random.Generator, seed: int) -> LinkModel:
    return LinkModel(
        bandwidth_mib_s=setting.speed,
        rtt_s=float(math.exp(rng.uniform(math.log(0.002), math.log(0.1)))),
        window=4 * 1024 * 1024,
        setup_s=float(rng.uniform(0.2, 1.0)),
        per_stream_s=float(rng.uniform(0.005, 0.03)),
        contention=float(rng.uniform(0.0, 0.006)),
        noise=setting.noise,
        outliers=OUTLIERS,
        seed=seed,
    )


def transfer_of(candidate, length: int) -> Transfer:
    o = candidate.options
    return Transfer(parallel=o.parallel, tcp_buffer=o.tcp_buffer, block_size=o.block_size, fast=o.fast,
                    length=length)


def run_campaign(tuner: Tuner, link: LinkModel, transfers: list[Transfer], rng: np.random.Generator) -> int | None:
    while (index := tuner.ask()) is not None:
        outcome = simulate(link, transfers[index], rng, TIMEOUT_S)
        tuner.tell(index, outcome.rate_incl_setup_mib_s, outcome.error)
    return tuner.pick()


def campaign(args: tuple[Setting, int, float, int]) -> tuple[bool, int, bool, int, float, bool]:
    setting, seed, margin, budget = args
    link_rng = np.random.default_rng([seed, 1])
    link = draw_link(setting, link_rng, seed)
    transfers = [transfer_of(c, setting.length) for c in CANDIDATES]
    truth = np.array([expected_rate(link, t) for t in transfers])
    best = truth.max()

    def ok(pick: int | None) -> bool:
        return pick is not None and truth[pick] >= best - margin

    exhaustive = Exhaustive(CANDIDATES, margin, 10)
    e_pick = run_campaign(exhaustive, link, transfers, np.random.default_rng([seed, 2]))
    adaptive = Adaptive(CANDIDATES, margin, budget)
    a_pick = run_campaign(adaptive, link, transfers, np.random.default_rng([seed, 3]))
    p_est = adaptive.p_within_margin()
    return (ok(e_pick), exhaustive.transfers_used, ok(a_pick), adaptive.transfers_used,
            p_est if p_est is not None else 0.0, ok(a_pick))


def wilson(k: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaigns", type=int, default=500)
    parser.add_argument("--speeds", default="100,250,500,1000,2500", help="link speeds, MiB/s")
    parser.add_argument("--noise", default="0.01,0.03,0.05,0.08", help="run-to-run CV of a transfer")
    parser.add_argument("--margin", type=float, default=20.0, help="tie margin, MiB/s")
    parser.add_argument("--budget", type=int, default=120, help="adaptive: most transfers")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=1, help="base seed of the campaigns")
    args = parser.parse_args(argv)
    speeds = [float(s) for s in args.speeds.split(",")]
    noises = [float(s) for s in args.noise.split(",")]
    started = time.monotonic()
    print(f"# {args.campaigns} campaigns per setting, tgftp-37 candidates, margin {args.margin:g} MiB/s, "
          f"adaptive budget {args.budget}, outliers 5 % at 0.5-0.8x, timeout {TIMEOUT_S:g} s, "
          f"seed {args.seed}")
    print("| speed MiB/s | noise CV | exhaustive: transfers | exhaustive: within margin | adaptive: transfers "
          "median (max) | adaptive: within margin (95 % CI) | adaptive - exhaustive | adaptive: mean estimated P |")
    print("|---|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for speed in speeds:
            for noise in noises:
                setting = Setting(speed, noise)
                jobs = [(setting, args.seed * 1_000_003 + i, args.margin, args.budget)
                        for i in range(args.campaigns)]
                results = list(pool.map(campaign, jobs, chunksize=16))
                e_ok = sum(r[0] for r in results)
                a_ok = sum(r[2] for r in results)
                a_used = [r[3] for r in results]
                e_used = statistics.median(r[1] for r in results)
                n = len(results)
                low, high = wilson(a_ok, n)
                mean_p = statistics.fmean(r[4] for r in results)
                print(f"| {speed:g} | {noise:.0%} | {e_used:g} | {e_ok / n:.3f} | {statistics.median(a_used):g} "
                      f"({max(a_used)}) | {a_ok / n:.3f} ({low:.3f}-{high:.3f}) | {(a_ok - e_ok) / n:+.3f} | "
                      f"{mean_p:.3f} |", flush=True)
    print(f"# {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
