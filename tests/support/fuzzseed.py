"""The seed of this test session's fuzz suites: random per run (so runs explore), printed by every
fuzz test, and fixed with GFTPWB_FUZZ_SEED=N to repeat a run that found something."""

from __future__ import annotations

import os
import random

FUZZ_SEED = int(os.environ.get("GFTPWB_FUZZ_SEED", str(random.SystemRandom().randrange(2**32))))


def say_seed() -> None:
    print(f"fuzz seed {FUZZ_SEED} (GFTPWB_FUZZ_SEED={FUZZ_SEED} repeats this run)")
