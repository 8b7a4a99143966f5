"""The building blocks of the scenario schema that belong to no kind: value types, hosts, commands,
the keys every test has, and the scenario's own keys.

A kind (:mod:`gftpwb.core.registry`) describes its keys with the same :class:`Key` and may use the
shared value types (``SIZE``, ``DURATION``, ``RATE``, ``FRACTION``, ``COMMAND``) by reference; the
schema builder (:mod:`gftpwb.core.dsl.schema`) puts the pieces together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gftpwb.core.commands import SHELL_NAME_PATTERN
from gftpwb.core.trace.setting import TRACE_EXPECTED, TRACE_SCHEMA
from gftpwb.core.units import DURATION_PATTERN, FRACTION_PATTERN, RATE_PATTERN, SIZE_PATTERN

from .bounds import MAX_BYTES, MAX_MIB_S, MAX_SECONDS, MAX_SEED, MAX_TESTS_AT_ONCE, whole

SCHEMA_ID = "https://gftpwb.invalid/schemas/scenario.schema.json"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
LOG_FILENAME_PATTERN = r"^(?!\.\.?$)[^/]+$"
VAR_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"  # = gftpwb.core.dsl.variables.VAR_NAME_PATTERN
MAX_COPIES = 1024  # a test's concurrency: copies of one run at once
MAX_LOOPS = 100000


@dataclass(frozen=True)
class Key:
    """One key of a mapping in the DSL: its JSON-Schema fragment and a description for editors.

    ``merge``: a mapping whose keys merge one by one with the same key of ``defaults`` (a test's
    ``options`` add to the defaults' ``options``) instead of replacing it. ``expected``: how to name
    the accepted forms when a value matches none of the branches of an ``anyOf`` (error messages).
    """

    name: str
    schema: dict[str, Any]
    description: str
    required: bool = False
    merge: bool = False
    expected: str = ""


def ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/definitions/{name}"}


SIZE = ref("size")
DURATION = ref("duration")
RATE = ref("rate")
FRACTION = ref("fraction")
COMMAND = ref("command")
DELAY = ref("delay")

DEFINITIONS: dict[str, dict[str, Any]] = {
    "size": {
        "description": "A byte count: a whole number, or a number with a K, M or G suffix (powers of "
        "1024, upper or lower case) or B, as guc and tgftp accept it: 4M, 512k, 4G. At most 8 EiB (2^63 - 1 "
        "bytes).",
        "type": ["integer", "string"],
        "minimum": 0,
        "maximum": MAX_BYTES,
        "pattern": SIZE_PATTERN,
    },
    "duration": {
        "description": "Seconds, or a number with a unit: 30s, 5m, 1h, 1m30s, 250ms. 0 means no limit. At "
        "most 1000000000 s.",
        "type": ["number", "string"],
        "minimum": 0,
        "maximum": MAX_SECONDS,
        "pattern": DURATION_PATTERN,
    },
    "rate": {
        "description": "A rate: a number of MiB/s, or a number with a unit: 20MB/s, 1GB/s (MB and GB are "
        "2^20 and 2^30 bytes, as in guc and tgftp), or 10Gbit/s, 100Mbit/s (decimal bits). At most 1000000000 "
        "MiB/s as a number.",
        "type": ["number", "string"],
        "minimum": 0,
        "maximum": MAX_MIB_S,
        "pattern": RATE_PATTERN,
    },
    "fraction": {
        "description": "A share: a number between 0 and 1 (0.03) or a percentage (3%).",
        "type": ["number", "string"],
        "minimum": 0,
        "maximum": 1,
        "pattern": FRACTION_PATTERN,
    },
    "name": {
        "description": "A name usable in file names: letters, digits, '.', '_' and '-', starting with a "
        "letter or digit.",
        "type": "string",
        "pattern": NAME_PATTERN,
    },
    "command": {
        "description": "A command to run: a list of arguments (run without a shell), or a mapping with "
        "run (the arguments, or with shell one string of shell code), shell and timeout. Its output and "
        "exit code are recorded.",
        "type": ["array", "object"],
        "minItems": 1,
        "items": {"type": "string"},
        "additionalProperties": False,
        "required": ["run"],
        "properties": {
            "run": {
                "description": "The command: a list of arguments, or (only with shell) one string of shell code.",
                "type": ["array", "string"],
                "minItems": 1,
                "minLength": 1,
                "items": {"type": "string"},
            },
            "shell": {
                "description": "Run run as shell code: true for /bin/sh, or the shell to use, e.g. bash. "
                "Default false: no shell is involved.",
                "type": ["boolean", "string"],
                "pattern": SHELL_NAME_PATTERN,
            },
            "timeout": {**DURATION, "description": "Stop the command after this long (it then counts as "
                        "failed). Default: no limit."},
            "on_failure": {"enum": ["fail", "continue"], "description": "pre only: fail (default) records the "
                           "run as failed without starting the transfer; continue warns and runs the transfer "
                           "anyway, as tgftp did (imported batchfiles use it)."},
        },
    },
    "delay": {
        "description": "A wait before a run starts: exact (a duration such as 2s), or random and drawn from the "
        "scenario's seed and the run's id, so the same scenario gives every run the same delay: "
        "{uniform: [0s, 5s]} (evenly between the two), {exponential: 1s} (exponentially, with that mean).",
        "anyOf": [
            DURATION,
            {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "maxProperties": 1,
                "properties": {
                    "uniform": {"description": "The shortest and the longest delay; every delay between them is "
                                "as likely.", "type": "array", "minItems": 2, "maxItems": 2, "items": DURATION},
                    "exponential": {**DURATION, "description": "The mean delay of exponentially distributed "
                                    "delays (arrivals of a Poisson process)."},
                },
            },
        ],
    },
    "on": {
        "description": "Where the test runs: 'local' (this machine, the default) or the name of a host of "
        "the inventory, or a list of them to run the same test from several hosts at the same time.",
        "oneOf": [
            {"$ref": "#/definitions/name"},
            {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"$ref": "#/definitions/name"}},
        ],
    },
}

# One host of the inventory (``hosts:``). ``local`` is implicit and needs no entry.
HOST_KEYS: tuple[Key, ...] = (
    Key("address", {"type": "string", "minLength": 1}, "Host name or IP address sshd listens on.", True),
    Key("port", {"type": "integer", "minimum": 1, "maximum": 65535}, "sshd port. Default 22."),
    Key("user", {"type": "string", "minLength": 1}, "Login name. Default: the user running gftpwb."),
    Key("identity", {"type": "string", "minLength": 1},
        "Private key file for public-key login (relative paths are relative to the scenario file; ~ "
        "works). Default: the SSH agent and ~/.ssh/id_* keys."),
    Key("known_hosts", {"type": "string", "minLength": 1},
        "known_hosts file the host key is checked against (relative to the scenario file). Default "
        "~/.ssh/known_hosts. --accept-new-host-keys adds unknown hosts to it (trust on first use)."),
    Key("jump", ref("name"), "Another host of the inventory to connect through (like ssh -J)."),
    Key("workdir", {"type": "string", "minLength": 1},
        "Directory the remote commands run in (it must exist). Default: the login directory."),
    Key("env", {"type": "object", "propertyNames": {"pattern": ENV_NAME_PATTERN},
                "additionalProperties": {"type": "string"}},
        "Environment variables set for every remote command (names: letters, digits, '_')."),
    Key("connect_timeout", DURATION, "Give up connecting (and logging in) after this long. Default 10s."),
)

# Commands around a test (tgftp's pre-command, post-command and command log-comment); a kind that
# runs them lists these keys, and the loader checks them wherever they appear.
COMMAND_KEYS: tuple[Key, ...] = (
    Key("pre", COMMAND,
        "Run before the test, before timing starts. If it fails (non-zero exit, cannot start, timeout), "
        "the run is recorded as failed with that reason and the transfer is not started."),
    Key("post", COMMAND,
        "Run after a successful transfer only (not after a failure, timeout or interruption). A failing "
        "post command is recorded and reported but does not change the run's status."),
    Key("comment_command", COMMAND,
        "Run after the transfer; its standard output (trailing newlines removed) becomes the comment in "
        "the record and tag log, after comment if both are set. tgftp's log-comment without a leading #."),
)

# The name of a test's own tag logs, for kinds that write tgftp tag logs; no two tests may share it.
LOG_FILENAME_KEY = Key(
    "log_filename", {"type": "string", "pattern": LOG_FILENAME_PATTERN},
    "Name of this test's tag logs instead of <scenario>_#<case>_<repeat>.log, as tgftp's log-filename: "
    "a trailing .log becomes _<repeat>.log (x.log -> x_000.log, x_001.log); a name without .log is used "
    "as it is for a single run and gets _<repeat> appended otherwise. With a matrix, _#<case> comes "
    "first. A file name, not a path: logs go to the results directory.")

CONCURRENCY_KEY = Key(
    "concurrency", {"type": "integer", "minimum": 1, "maximum": MAX_COPIES},
    "Copies of each run started at the same time (a unit test becomes a stress test), on each host of on; "
    "each copy has its own record (run id <test>[<case>]/<repeat>#<copy>), tag log and events, and the "
    "copies of a run get an aggregate (sum of rates, first and last done, spread). Default 1. Not guc's "
    "-cc, which is options.concurrency.")
DELAY_KEY = Key("delay", DELAY, "Wait this long before each run (and each copy) starts: a duration, "
                "{uniform: [0s, 5s]} or {exponential: 1s} (seeded by the scenario's seed). Default none.",
                expected="a duration such as 2s, {uniform: [0s, 5s]} or {exponential: 1s}")

TRACE_KEY = Key(
    "trace", TRACE_SCHEMA,
    "Performance tracing of this test's runs (NetLogger style; overrides the scenario's trace, and --trace "
    "overrides both): off (default); run: spans of every run and its phases (guc: connect, login, data, "
    "close from its -dbg conversation; workers: prepare, wait, run per thread) and per-interval samples, "
    "in trace.jsonl; io: also an event for every read, write, open, close, fsync and unlink of the gfapi "
    "worker threads (16 bytes each, in trace/), {level: io, every: 64} keeping one in 64 per thread. "
    "gftpwb trace export / summary read them.", expected=TRACE_EXPECTED)

# Keys every kind of test has: what it is, and how the harness runs it (needs, copies, delay, trace).
COMMON_TEST_KEYS: tuple[Key, ...] = (
    Key("id", ref("name"), "Unique id of the test within the scenario; --only selects by it.", True),
    Key("kind", {"type": "string"}, "What the test runs (see the kinds below).", True),
    Key("description", {"type": "string"}, "What the test is for (shown, not used)."),
    Key("on", ref("on"), "Where the test runs: local (default), a host of the inventory, or a list of "
        "hosts (the same runs start at the same time on each)."),
    Key("needs", {"anyOf": [ref("name"), {"type": "array", "minItems": 1, "uniqueItems": True,
                                          "items": ref("name")}]},
        "Tests (ids) that must have passed (every run of them) before this one starts; if one did not, this "
        "test's runs are recorded as skipped with the reason. Tests may not need each other in a circle.",
        expected="a test id or a list of test ids"),
    CONCURRENCY_KEY,
    DELAY_KEY,
    TRACE_KEY,
)

# Keys of a test that belong to the harness rather than to its kind (the generic TestSchedule models them;
# expect is added by the schema to the kinds that have metrics).
HARNESS_TEST_KEYS = ("needs", "concurrency", "delay", "trace", "expect")

# Keys the defaults block accepts besides the ones kinds offer (Dsl.defaults_keys).
DEFAULT_ONLY_KEYS: tuple[Key, ...] = (
    Key("on", ref("on"), "Where tests run unless they say otherwise (see a test's on)."),
    CONCURRENCY_KEY,
    DELAY_KEY,
)

SCENARIO_KEYS: tuple[Key, ...] = (
    Key("version", {"const": 1}, "DSL version; this gftpwb reads version 1.", True),
    Key("name", ref("name"),
        "Scenario name; used in the results directory and in tag log names.", True),
    Key("description", {"type": "string"}, "What the scenario is for."),
    Key("defaults", ref("defaults"), "Values every test inherits unless it sets its own."),
    Key("hosts", {"type": "object", "propertyNames": ref("name"), "additionalProperties": ref("host"),
                  "properties": {"include": {
                      "description": "A YAML file (or a list of them) whose hosts: mapping is read in here, such "
                      "as the lab's hosts.yaml; relative names are relative to this scenario. Hosts written "
                      "here may not repeat an included name.",
                      "anyOf": [{"type": "string", "minLength": 1},
                                {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}]}}},
        "The host inventory: name -> how to reach it over SSH. 'local' is implicit (this machine, no SSH)."),
    Key("vars", {"type": "object", "propertyNames": {"pattern": VAR_NAME_PATTERN}},
        "Variables and their defaults (null: none; it must then be set). ${name} anywhere in a value of the "
        "scenario is replaced by the variable's value ($${ for a literal ${); --set name=value and the "
        "environment variable GFTPWB_VAR_name override the default."),
    Key("seed", whole(0, MAX_SEED),
        "Seed of the random delays: the same seed gives every run the same delay. Recorded in meta.json and "
        "every record. Default 0."),
    Key("loops", {"type": "integer", "minimum": 1, "maximum": MAX_LOOPS},
        "Run the whole suite this many times, one pass after the other; run ids start with loop<n>/ and "
        "records say the loop. Default 1."),
    Key("concurrent_tests", whole(1, MAX_TESTS_AT_ONCE),
        "How many tests may run at the same time (each once its needs passed). Default 1: one after the "
        "other, in order."),
    Key("trace", TRACE_SCHEMA, "Performance tracing of every test that does not set its own trace: off "
        "(default), run or io (see a test's trace). --trace on the command line overrides it.",
        expected=TRACE_EXPECTED),
    Key("monitors", {"type": "array", "minItems": 1, "items": ref("monitor")},
        "Monitors polled on chosen hosts at an interval while the tests run (CPU and load, memory, network "
        "interfaces, disks, the guc data connections' TCP state, a command's numbers); samples go to "
        "monitors.jsonl, and each run gets their mean and max during it (monitor-summaries.jsonl)."),
    Key("slurm", ref("slurm"),
        "Run on the nodes of a Slurm allocation (the enclosing one inside salloc or sbatch, or one asked for): "
        "tests and monitors say on: slurm (every node) or on: [node1, node2]; each run starts as a job step "
        "(srun), never over SSH."),
    Key("tests", {"type": "array", "minItems": 1, "items": ref("test")},
        "The tests, run in this order (or, with needs, after the tests they need).", True),
)


def object_schema(keys: tuple[Key, ...], description: str) -> dict[str, Any]:
    """A closed mapping of ``keys`` (unknown keys are errors)."""
    schema: dict[str, Any] = {
        "description": description,
        "type": "object",
        "additionalProperties": False,
        "properties": {k.name: {**k.schema, "description": k.description} for k in keys},
    }
    required = [k.name for k in keys if k.required]
    if required:
        schema["required"] = required
    return schema
