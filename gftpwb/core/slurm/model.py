"""The ``slurm:`` block of a scenario, typed, and the node slots its tests run on.

A scenario that runs on Slurm names how many nodes it needs (``nodes: N``); its tests and monitors
run on the *slots* ``node1`` .. ``nodeN`` (``on: slurm`` is all of them), which stand for the
allocation's nodes in the order ``scontrol show hostnames`` lists them. Slots, not node names, are
what run ids, tag logs and the plan name: a run resumed in a new allocation (other nodes) keeps its
ids, and the record of every run says which node a slot was (the allocation's map is in meta.json).
"""

from __future__ import annotations

from dataclasses import dataclass, field

ON_SLURM = "slurm"  # on: slurm  = every slot
SLOT_PREFIX = "node"
AUTO, NEW = "auto", "new"  # job: the enclosing allocation (SLURM_JOB_ID) or a new one; or a job id
CANCEL, CONTINUE = "cancel", "continue"  # on_failure: a task that fails or a node that is lost
FAILURE_POLICIES = (CANCEL, CONTINUE)
SHARED, PER_NODE = "shared", "per_node"  # build: programs gftpwb builds (the gfapi worker)
BUILD_POLICIES = (SHARED, PER_NODE)
DEFAULT_WAIT_S = 60.0
MAX_NODES = 100000


def slot_names(count: int) -> tuple[str, ...]:
    return tuple(f"{SLOT_PREFIX}{i}" for i in range(1, count + 1))


def slot_index(name: str) -> int | None:
    """0-based index of a slot name (``node3`` -> 2), None for any other name."""
    if not name.startswith(SLOT_PREFIX):
        return None
    digits = name[len(SLOT_PREFIX):]
    if not digits.isdigit() or digits.startswith("0"):
        return None
    return int(digits) - 1


@dataclass(frozen=True)
class SlurmSetup:
    """How a scenario runs on Slurm: the allocation it needs or asks for, and how steps behave."""

    nodes: int
    tasks_per_node: int = 1
    partition: str = ""
    time: str = ""  # as written (a duration); time_limit_min is what salloc gets
    time_limit_min: int | None = field(default=None, metadata={"derived": True})
    account: str = ""
    options: tuple[str, ...] = ()  # passed to salloc as they are
    step_options: tuple[str, ...] = ()  # passed to every srun as they are
    job: str = AUTO
    wait_s: float = field(default=DEFAULT_WAIT_S, metadata={"key": "wait"})
    on_failure: str = CANCEL
    build: str = SHARED
    conf: str = ""  # SLURM_CONF for every Slurm command ("" = Slurm's default)
    callback_address: str = ""  # where tasks reach the controller ("" = SLURM_SRUN_COMM_HOST)

    @property
    def slots(self) -> tuple[str, ...]:
        return slot_names(self.nodes)

    @property
    def existing_job(self) -> str:
        """The job id the scenario names (``job: 1234``), "" for auto and new."""
        return "" if self.job in (AUTO, NEW) else self.job

    def describe(self) -> str:
        """One line for --dry-run and notices."""
        parts = [f"{self.nodes} node(s)"]
        if self.tasks_per_node != 1:
            parts.append(f"{self.tasks_per_node} task(s) per node")
        if self.partition:
            parts.append(f"partition {self.partition}")
        if self.time:
            parts.append(f"time {self.time}")
        if self.account:
            parts.append(f"account {self.account}")
        job = {AUTO: "the enclosing allocation, else a new one", NEW: "a new allocation"}.get(self.job,
                                                                                         f"job {self.job}")
        return f"slurm: {', '.join(parts)}; {job}; on failure: {self.on_failure}; slots {self.slots[0]}.." \
               f"{self.slots[-1]}"
