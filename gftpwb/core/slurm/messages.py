"""Readers of what Slurm's commands print (22.05 and later wording). Pure.

* srun's stderr, while a step runs: which task on which node failed and how
  (``srun: error: n3: task 2: Exited with exit code 3``, ``srun: error: n1: tasks 0-1,4: Killed``), a
  lost node (``srun: error: Node failure on n3``), and anything else it says (kept as the reason of
  a step that could not start);
* salloc's stderr: granted (``Granted job allocation 12``), pending (``Pending job allocation 12``),
  and the lines after which waiting makes no sense (a partition that is down, more nodes than it has);
* ``scontrol show partition -o`` and ``squeue -o "%T|%D|%N"`` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TASK_LINE = re.compile(r"^srun: error: (?P<node>[^\s:]+): tasks? (?P<tasks>[0-9,\-\[\] ]+): (?P<what>.+)$")
NODE_FAILURE = re.compile(r"^srun: error: Node failure on (?P<node>\S+)")
EXIT_CODE = re.compile(r"^Exited with exit code (\d+)$")
LABEL = re.compile(r"^\s*(\d+): ?(.*)$")
GRANTED = re.compile(r"Granted job allocation (\d+)")
PENDING = re.compile(r"Pending job allocation (\d+)")
# salloc lines after which a pending job will not start by itself
HOPELESS = ("Partition in DOWN state", "Requested partition configuration not available now",
            "Requested node configuration is not available", "Partition in INACTIVE state",
            "Partition in DRAIN state", "Job violates accounting/QOS policy")


def task_numbers(text: str) -> list[int]:
    """``0-2,5`` -> [0, 1, 2, 5] (srun's task ranges)."""
    out: list[int] = []
    for part in text.replace("[", "").replace("]", "").replace(" ", "").split(","):
        if not part:
            continue
        first, _, last = part.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            continue
        out.extend(range(int(first), int(last or first) + 1))
    return out


@dataclass(frozen=True)
class TaskEnd:
    """srun's word on tasks of one node: ``exit_code`` when they exited, else ``signal`` (Killed,
    Terminated, ...)."""

    node: str
    tasks: tuple[int, ...]
    what: str

    @property
    def exit_code(self) -> int | None:
        match = EXIT_CODE.match(self.what)
        return int(match.group(1)) if match else None


@dataclass
class StepMessages:
    """What srun said about a step so far (fed line by line from its stderr and stdout)."""

    task_ends: list[TaskEnd] = field(default_factory=list)
    failed_nodes: list[str] = field(default_factory=list)
    wrapper_errors: dict[int, str] = field(default_factory=dict)  # task -> @gftpwb-error text
    other: list[str] = field(default_factory=list)

    def feed(self, line: str) -> None:
        line = line.rstrip("\r\n")
        if not line.strip():
            return
        match = TASK_LINE.match(line)
        if match:
            self.task_ends.append(TaskEnd(match.group("node"), tuple(task_numbers(match.group("tasks"))),
                                          match.group("what").strip()))
            return
        match = NODE_FAILURE.match(line)
        if match:
            if match.group("node") not in self.failed_nodes:
                self.failed_nodes.append(match.group("node"))
            return
        labelled = LABEL.match(line)
        if labelled and labelled.group(2).startswith("@gftpwb-error "):
            self.wrapper_errors[int(labelled.group(1))] = labelled.group(2)[len("@gftpwb-error "):]
            return
        if len(self.other) < 50:
            self.other.append(line)

    def end_of(self, task: int) -> TaskEnd | None:
        for end in self.task_ends:
            if task in end.tasks:
                return end
        return None

    def first_failure(self) -> TaskEnd | None:
        """The first task srun reported failing (non-zero exit or a signal)."""
        for end in self.task_ends:
            if end.exit_code != 0:
                return end
        return None

    def summary(self) -> str:
        """srun's own words, for a step that failed as a whole (could not be created, job gone)."""
        interesting = [line for line in self.other if "error" in line.lower() or "unable" in line.lower()]
        return "; ".join((interesting or self.other)[:3])


@dataclass(frozen=True)
class SallocLine:
    granted: str = ""  # job id
    pending: str = ""  # job id
    hopeless: bool = False
    error: str = ""


def parse_salloc_line(line: str) -> SallocLine:
    line = line.strip()
    match = GRANTED.search(line)
    if match:
        return SallocLine(granted=match.group(1))
    match = PENDING.search(line)
    if match:
        return SallocLine(pending=match.group(1))
    text = line.removeprefix("salloc: ").removeprefix("error: ")
    if any(phrase in line for phrase in HOPELESS):
        return SallocLine(hopeless=True, error=text)
    if "error" in line.lower():
        return SallocLine(error=text)
    return SallocLine()


def parse_fields(line: str) -> dict[str, str]:
    """``Key=value Key2=value2`` (one line of ``scontrol show ... -o``)."""
    out: dict[str, str] = {}
    for word in line.split():
        key, sep, value = word.partition("=")
        if sep:
            out[key] = value
    return out


@dataclass(frozen=True)
class PartitionInfo:
    name: str
    state: str
    total_nodes: int
    default: bool
    max_nodes: int | None  # per job; None: unlimited


def parse_partitions(text: str) -> list[PartitionInfo]:
    out = []
    for line in text.splitlines():
        f = parse_fields(line)
        if "PartitionName" not in f:
            continue
        max_nodes = f.get("MaxNodes", "UNLIMITED")
        out.append(PartitionInfo(name=f["PartitionName"], state=f.get("State", ""),
                                 total_nodes=int(f.get("TotalNodes", "0") or 0) if f.get("TotalNodes", "0").isdigit()
                                 else 0, default=f.get("Default") == "YES",
                                 max_nodes=int(max_nodes) if max_nodes.isdigit() else None))
    return out


def partition_problem(partitions: list[PartitionInfo], wanted: str, nodes: int) -> str:
    """Why an allocation of ``nodes`` nodes in partition ``wanted`` ("" = the default one) cannot be
    granted, or "" when nothing stands in the way that Slurm's configuration shows."""
    chosen = next((p for p in partitions if p.name == wanted), None) if wanted else \
        next((p for p in partitions if p.default), None)
    if chosen is None:
        if wanted:
            known = ", ".join(p.name for p in partitions) or "none"
            return f"Slurm has no partition {wanted} (partitions: {known})"
        return ""  # no default partition: salloc will say what it wants
    if chosen.state != "UP":
        return f"partition {chosen.name} is {chosen.state}: it starts no jobs"
    if chosen.total_nodes and nodes > chosen.total_nodes:
        return f"the scenario needs {nodes} nodes, and partition {chosen.name} has {chosen.total_nodes}"
    if chosen.max_nodes is not None and nodes > chosen.max_nodes:
        return f"the scenario needs {nodes} nodes, and partition {chosen.name} allows {chosen.max_nodes} per job"
    return ""


@dataclass(frozen=True)
class JobState:
    state: str
    node_count: int
    nodelist: str


def parse_job_state(text: str) -> JobState | None:
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3 and parts[0]:
            return JobState(parts[0], int(parts[1]) if parts[1].isdigit() else 0, parts[2])
    return None
