"""The DSL keys of the scenario's ``slurm:`` block (the schema's ``slurm`` definition)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.scenario.bounds import MAX_JOB_ID, MAX_STREAMS, whole
from gftpwb.core.scenario.keys import DURATION, Key, object_schema

from .model import AUTO, BUILD_POLICIES, FAILURE_POLICIES, MAX_NODES, NEW, ON_SLURM, SLOT_PREFIX

OPTION_LIST = {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^-"}}

SLURM_KEYS: tuple[Key, ...] = (
    Key("nodes", {"type": "integer", "minimum": 1, "maximum": MAX_NODES},
        f"How many nodes the scenario runs on: its tests and monitors name them {SLOT_PREFIX}1 .. {SLOT_PREFIX}N "
        f"in on: (on: {ON_SLURM} is all of them), standing for the allocation's nodes in the order Slurm lists "
        "them. An enclosing allocation must have at least this many; a new one is asked for with this many.",
        True),
    Key("on_failure", {"enum": list(FAILURE_POLICIES)},
        "What a failed task (non-zero exit) or a lost node does to the other tasks of its run's job step: cancel "
        "(srun --kill-on-bad-exit: the whole step is cancelled, its runs fail naming the node and why) or "
        "continue (the survivors finish; only the failed node's runs fail, with the reason).", True),
    Key("tasks_per_node", whole(1, MAX_STREAMS),
        "Tasks per node asked of a new allocation (salloc --ntasks-per-node). Runs may start more (copies, "
        "processes): steps overcommit. Default 1."),
    Key("partition", {"type": "string"}, "Partition of a new allocation (salloc -p); empty: the cluster's default."),
    Key("time", DURATION, "Time limit of a new allocation (salloc -t, rounded up to whole minutes)."),
    Key("account", {"type": "string", "minLength": 1}, "Account charged for a new allocation (salloc -A)."),
    Key("options", OPTION_LIST,
        "More salloc options for a new allocation, passed as they are, one per item: [--exclusive, "
        "--constraint=ib, --qos=debug]."),
    Key("step_options", OPTION_LIST,
        "More srun options for every job step gftpwb starts, passed as they are: [--cpu-bind=cores]."),
    Key("job", {"anyOf": [{"enum": [AUTO, NEW]}, {"type": "string", "pattern": "^[0-9]{1,10}$"},
                          whole(1, MAX_JOB_ID)]},
        f"Which allocation: {AUTO} (default: the one gftpwb runs in, from SLURM_JOB_ID inside salloc or sbatch, "
        f"else a new one), {NEW} (always ask for one, released at the end), or a job id (an allocation made "
        "elsewhere, e.g. salloc --no-shell).", expected="auto, new or a job id"),
    Key("wait", DURATION, "How long a new allocation may stay pending before the run gives up (exit 10). "
        "Default 60s."),
    Key("build", {"enum": list(BUILD_POLICIES)},
        "Programs gftpwb builds for its workers (the gfapi worker): shared (default: built once, on the first "
        "node, into a directory every node sees, GFTPWB_WORKER_DIR or $HOME) or per_node (built on every node, "
        "for nodes whose file systems or libraries differ)."),
    Key("conf", {"type": "string"},
        "slurm.conf for every Slurm command gftpwb runs (SLURM_CONF), e.g. the lab's; default (or empty): Slurm's "
        "own, or SLURM_CONF as set."),
    Key("callback_address", {"type": "string", "minLength": 1},
        "Address at which tasks reach this machine for their input and output (default: the address srun "
        "gives its tasks, SLURM_SRUN_COMM_HOST)."),
)


def slurm_definition() -> dict[str, Any]:
    return object_schema(SLURM_KEYS, "Run the scenario's tests on the nodes of a Slurm allocation, as job steps "
                                     "started with srun.")
