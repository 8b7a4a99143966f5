"""The scenario JSON Schema (draft-07), built from the key tables below.

``schemas/scenario.schema.json`` is generated from :func:`build_schema` (``make schema``) and
committed so editors can use it; ``tests/test_schema.py`` fails when the file, these tables and the
typed model in :mod:`gftpwb.dsl.model` drift apart. Validation always uses the committed file, the
one users see.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..commands import SHELL_NAME_PATTERN
from ..units import DURATION_PATTERN, FRACTION_PATTERN, RATE_PATTERN, SIZE_PATTERN
from .gfapi_settings import GFAPI_SETTINGS, SWEEPABLE, TRANSPORTS, WORKLOADS, GfapiSetting
from .guc_options import GUC_OPTIONS, GucOption

SCHEMA_ID = "https://gftpwb.invalid/schemas/scenario.schema.json"
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


@dataclass(frozen=True)
class Key:
    """One key of a mapping in the DSL: its JSON-Schema fragment and a description for editors."""

    name: str
    schema: dict[str, Any]
    description: str
    required: bool = False


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/definitions/{name}"}


SIZE = _ref("size")
DURATION = _ref("duration")
RATE = _ref("rate")
FRACTION = _ref("fraction")
COMMAND = _ref("command")
LOG_FILENAME_PATTERN = r"^(?!\.\.?$)[^/]+$"

DEFINITIONS: dict[str, dict[str, Any]] = {
    "size": {
        "description": "A byte count: a whole number, or a number with a K, M or G suffix (powers of "
        "1024, upper or lower case) or B, as guc and tgftp accept it: 4M, 512k, 4G.",
        "type": ["integer", "string"],
        "minimum": 0,
        "pattern": SIZE_PATTERN,
    },
    "duration": {
        "description": "Seconds, or a number with a unit: 30s, 5m, 1h, 1m30s, 250ms. 0 means no limit.",
        "type": ["number", "string"],
        "minimum": 0,
        "pattern": DURATION_PATTERN,
    },
    "rate": {
        "description": "A rate: a number of MiB/s, or a number with a unit: 20MB/s, 1GB/s (MB and GB are "
        "2^20 and 2^30 bytes, as in guc and tgftp), or 10Gbit/s, 100Mbit/s (decimal bits).",
        "type": ["number", "string"],
        "minimum": 0,
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
    "on": {
        "description": "Where the test runs: 'local' (this machine, the default) or the name of a host of "
        "the inventory, or a list of them to run the same test from several hosts at the same time.",
        "oneOf": [
            {"$ref": "#/definitions/name"},
            {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"$ref": "#/definitions/name"}},
        ],
    },
}

ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"

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
    Key("jump", _ref("name"), "Another host of the inventory to connect through (like ssh -J)."),
    Key("workdir", {"type": "string", "minLength": 1},
        "Directory the remote commands run in (it must exist). Default: the login directory."),
    Key("env", {"type": "object", "propertyNames": {"pattern": ENV_NAME_PATTERN},
                "additionalProperties": {"type": "string"}},
        "Environment variables set for every remote command (names: letters, digits, '_')."),
    Key("connect_timeout", DURATION, "Give up connecting (and logging in) after this long. Default 10s."),
)


def option_schema(option: GucOption) -> dict[str, Any]:
    """The schema of one guc option value."""
    if option.type == "count":
        return {"type": "integer", "minimum": 1}
    if option.type == "size":
        return dict(SIZE)
    if option.type == "level":
        return {"type": "integer", "minimum": 0, "maximum": 3}
    return {"type": "boolean"}


def _options_object() -> dict[str, Any]:
    return {
        "description": "Typed globus-url-copy options; each becomes its guc flag. Unset options are "
        "not passed, so guc's own defaults apply.",
        "type": "object",
        "additionalProperties": False,
        "properties": {o.name: {**option_schema(o), "description": o.description} for o in GUC_OPTIONS},
    }


def _matrix_object() -> dict[str, Any]:
    return {
        "description": "Lists of option values; the test runs once for every combination (the cross "
        "product, first key outermost, order kept). A matrix value overrides the same key in options.",
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {
            o.name: {
                "description": f"Values of {o.name} ({o.flag}) to sweep.",
                "type": "array",
                "minItems": 1,
                "items": option_schema(o),
            }
            for o in GUC_OPTIONS
        },
    }


ENGINES = ("real", "simulated")

# The simulated engine's link model (gftpwb/simlink.py); every key is optional.
LINK_KEYS: tuple[Key, ...] = (
    Key("bandwidth", RATE, "Capacity of the simulated path. Default 1GB/s."),
    Key("rtt", DURATION, "Round-trip time of the path. Default 20ms."),
    Key("window", SIZE, "Per-stream TCP window when -tcp-bs is not given (the kernel's autotuning). Default 4M."),
    Key("buffer_cap", SIZE, "The simulated ends' net.core.rmem_max / wmem_max: a larger -tcp-bs is capped to "
        "it. Default: no cap."),
    Key("setup", DURATION, "Set-up time of every transfer (connections, authentication). Default 0.4s."),
    Key("per_stream", DURATION, "Extra set-up per parallel stream (guc -p). Default 20ms."),
    Key("contention", {"type": "number", "minimum": 0, "maximum": 0.1},
        "Share of throughput lost per parallel stream. Default 0.004."),
    Key("noise", FRACTION, "Run-to-run coefficient of variation of a transfer's time. Default 3%."),
    Key("outliers", FRACTION, "Share of runs slowed to 0.5-0.8x (a competing flow, a stall). Default 0."),
    Key("failures", FRACTION, "Share of runs that fail. Default 0."),
    Key("seed", {"type": "integer", "minimum": 0},
        "Seed of the model's random numbers; the same seed and run id always give the same result. Default 0."),
    Key("time_scale", {"type": "number", "minimum": 0},
        "Let a simulated transfer take this share of its simulated duration in real time (1 = real time). "
        "Default 0: results arrive at once."),
)

# The guc options an auto-tune candidate may vary.
CANDIDATE_OPTIONS = ("parallel", "tcp_buffer", "block_size", "concurrency", "pipeline", "fast")


def _candidates_schema() -> dict[str, Any]:
    by_name = {o.name: o for o in GUC_OPTIONS}
    grid_props = {}
    for name in CANDIDATE_OPTIONS:
        option = by_name[name]
        item = option_schema(option)
        if option.type != "flag":
            item = {"anyOf": [item, {"type": "null"}]}
        grid_props[name] = {"description": f"Values of {name} ({option.flag}) to try; null: not passed.",
                            "type": "array", "minItems": 1, "items": item}
    set_props = {name: {**option_schema(by_name[name]), "description": by_name[name].description}
                 for name in CANDIDATE_OPTIONS}
    return {
        "description": "tgftp-37: tgftp's 37 configurations in its order (-vb; -p 1..32; -p 1..32 with -tcp-bs "
        "1M..16M). A mapping of option lists: their cross product, first key outermost. A list of option "
        "sets: exactly those, in that order ({} is plain -vb). Earlier candidates win near-ties.",
        "anyOf": [
            {"const": "tgftp-37", "description": "tgftp's 37 configurations."},
            {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": grid_props,
             "description": "A grid: option lists to combine."},
            {"type": "array", "minItems": 1, "description": "Candidates one by one.",
             "items": {"type": "object", "additionalProperties": False, "properties": set_props,
                       "description": "One candidate's guc options."}},
        ],
    }


# Keys a test and the defaults block share; a test's value replaces the default (options merge key by key).
SHARED_KEYS: tuple[Key, ...] = (
    Key("source", {"type": "string", "minLength": 1},
        "Source URL given to guc, e.g. ftp://127.0.0.1:2811/dev/zero or gsiftp://host/path."),
    Key("target", {"type": "string", "minLength": 1},
        "Destination URL given to guc, e.g. ftp://127.0.0.1:2811/dev/null."),
    Key("options", _ref("guc_options"), "Typed guc options (see guc_options)."),
    Key("extra_args", {"type": "array", "items": {"type": "string"}},
        "Further guc arguments, passed as they are (one list item per argument, never through a shell), "
        "after the typed options and before the URLs."),
    Key("repeat", {"type": "integer", "minimum": 1},
        "How many times each case runs (tgftp's execs). Default 1."),
    Key("timeout", DURATION,
        "Kill guc (its whole process group) after this long; the run is recorded as timeout. "
        "Default: no limit."),
    Key("comment", {"type": "string"},
        "Free text written to the record and to the tag log's comment tag."),
    Key("engine", {"enum": list(ENGINES)},
        "real (default): run globus-url-copy. simulated: compute each transfer from the link model in "
        "link (seeded, deterministic); every result, record and log is labelled SIMULATED."),
    Key("link", _ref("link"), "The simulated link (engine: simulated); see link."),
)

# Commands around a test (tgftp's pre-command, post-command and command log-comment).
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

# Keys every kind of test has.
COMMON_TEST_KEYS: tuple[Key, ...] = (
    Key("id", _ref("name"), "Unique id of the test within the scenario; --only selects by it.", True),
    Key("kind", {"type": "string"}, "What the test runs (see the kinds below).", True),
    Key("description", {"type": "string"}, "What the test is for (shown, not used)."),
    Key("on", _ref("on"), "Where the test runs: local (default), a host of the inventory, or a list of "
        "hosts (the same runs start at the same time on each)."),
)


@dataclass(frozen=True)
class Kind:
    """A kind of test: its name, what it does, and the keys it accepts besides the common ones."""

    name: str
    description: str
    keys: tuple[Key, ...]


def gfapi_setting_schema(setting: GfapiSetting) -> dict[str, Any]:
    """The schema of one gfapi setting value."""
    return {
        "count": {"type": "integer", "minimum": 1},
        "count0": {"type": "integer", "minimum": 0},
        "fanout": {"type": "integer", "minimum": 2},
        "size": dict(SIZE),
        "flag": {"type": "boolean"},
        "workload": {"enum": list(WORKLOADS)},
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        "level": {"type": "integer", "minimum": 0, "maximum": 9},
    }[setting.type]


GFAPI_VOLUME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "server"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Volume name (gluster volume list)."},
        "server": {"type": "string", "minLength": 1,
                   "description": "Volfile server: a GlusterFS server of the volume, as every client host "
                   "reaches it (not 127.0.0.1 for clients in other hosts or namespaces)."},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535,
                 "description": "glusterd port on the volfile server. Default 24007."},
        "transport": {"enum": list(TRANSPORTS), "description": "Volfile transport: tcp (default), rdma or unix."},
    },
}

GFAPI_KEYS: tuple[Key, ...] = (
    Key("volume", GFAPI_VOLUME_SCHEMA,
        "The GlusterFS volume, reached through libgfapi. Leave it out for POSIX mode (then set directory)."),
    Key("directory", {"type": "string", "minLength": 1},
        "Base directory of the test files. With volume: an absolute path inside the volume (default "
        "/gftpwb). Without: a directory on every host (a FUSE mount, XFS, tmpfs), the POSIX mode. Each host "
        "works under <directory>/<host>/t<thread>/."),
    *(Key(s.name, gfapi_setting_schema(s), s.description) for s in GFAPI_SETTINGS),
    Key("start_lead", DURATION,
        "How far ahead the common start time is set once every worker is ready, so every thread on every "
        "host starts at the same instant (host clocks corrected by their measured offsets). 0 starts each "
        "worker as the start command reaches it. Default 100ms."),
    Key("ready_timeout", DURATION,
        "How long workers may take to connect and prepare before the hosts that are not ready are dropped. "
        "Default 120s (glfs_init alone can take ~10 s)."),
    Key("matrix", {
        "description": "Lists of setting values; the test runs once for every combination (the cross product, "
                       "first key outermost, order kept). A matrix value overrides the same key of the test.",
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {
            s.name: {"description": f"Values of {s.name} to sweep.", "type": "array", "minItems": 1,
                     "items": gfapi_setting_schema(s)}
            for s in GFAPI_SETTINGS if s.name in SWEEPABLE
        },
    }, "Settings to sweep."),
    Key("repeat", {"type": "integer", "minimum": 1}, "How many times each case runs. Default 1."),
    Key("timeout", DURATION,
        "Stop the workers after this long (building, connecting and running together); the run is recorded "
        "as timeout with what the threads did so far. Default: no limit."),
    Key("comment", {"type": "string"}, "Free text written to the record."),
)

# Every test kind, in the order the schema lists them. A new kind adds an entry here, a model in
# gftpwb/dsl/model.py and a runner in gftpwb/exec/runners.py.
LOG_FILENAME_KEY = Key(
    "log_filename", {"type": "string", "pattern": LOG_FILENAME_PATTERN},
    "Name of this test's tag logs instead of <scenario>_#<case>_<repeat>.log, as tgftp's log-filename: "
    "a trailing .log becomes _<repeat>.log (x.log -> x_000.log, x_001.log); a name without .log is used "
    "as it is for a single run and gets _<repeat> appended otherwise. With a matrix, _#<case> comes "
    "first. A file name, not a path: logs go to the results directory.")

# guc's parameters as one exact list, and what gftpwb may add: tgftp batchfiles import to these.
GUC_ARGS_KEYS: tuple[Key, ...] = (
    Key("args", {"type": "array", "items": {"type": "string"}},
        "guc's parameters exactly as given, in this order, between globus-url-copy and the URLs (one list "
        "item per argument, never through a shell). gftpwb adds nothing (no -vb, see add_vb), so the transfer "
        "measured is the one described. Cannot be combined with options, extra_args or matrix. Imported tgftp "
        "batchfiles use it, so their guc calls stay tgftp's."),
    Key("add_vb", {"type": "boolean"},
        "May gftpwb add -vb for live progress and guc's own average? Default true with options/extra_args "
        "and false with args. Between two servers -vb makes guc switch to MODE E (extended block), so false "
        "keeps the mode the parameters ask for; the run then shows no live rate. Recorded per run "
        "(details.vb_added)."),
    Key("tgftp_style", {"type": "boolean"},
        "Run and log the test as tgftp 0.7.0 did: after a successful transfer list it (globus-url-copy -do, "
        "outside the timing; local runs only) for the tag log's GSIFTP_TRANSFER_LIST and the size of a "
        "transfer without -len, as tgftp did unless it copied /dev/zero or to /dev/null without -len; leave "
        "guc's output buffered as tgftp's FIFO did (so no live progress); write the comment, command and list "
        "tags with echo -e. Default false; imported batchfiles set it."),
)

KINDS: tuple[Kind, ...] = (
    Kind("guc", "globus-url-copy transfers.", (
        *SHARED_KEYS,
        *GUC_ARGS_KEYS,
        Key("matrix", _ref("guc_matrix"), "Option lists to sweep (see guc_matrix)."),
        *COMMAND_KEYS,
        LOG_FILENAME_KEY,
    )),
    Kind("connection-test", "tgftp's connection test: guc -dbg -vb -len 1 moves one byte with the full "
         "control-channel conversation logged, and the record says which step failed (connect, login, "
         "data channel). Default timeout 30s.", (
        *(k for k in SHARED_KEYS if k.name not in ("options", "engine", "link")),
        *COMMAND_KEYS,
        LOG_FILENAME_KEY,
    )),
    Kind("autotune", "find the best guc parameters for a path, as tgftp -a does, or with fewer transfers.", (
        *(k for k in SHARED_KEYS if k.name in ("source", "target", "extra_args", "comment", "engine", "link")),
        Key("timeout", DURATION, "Kill a transfer after this long; it counts as failed (tgftp: 30 s). "
            "Default 30s; 0 = no limit."),
        Key("memory_to_memory", {"type": "boolean"},
            "Replace the paths of source and target by /dev/zero and /dev/null on the same servers, as "
            "tgftp -a does. Default true; false uses the URLs as they are."),
        Key("candidates", _ref("autotune_candidates"), "The configurations to try (see autotune_candidates). "
            "Default tgftp-37."),
        Key("strategy", {"enum": ["exhaustive", "adaptive"]},
            "exhaustive (default): every candidate `repetitions` times, as tgftp. adaptive: a race that "
            "spends transfers only where they can change the pick, at most `budget`."),
        Key("repetitions", {"type": "integer", "minimum": 1},
            "exhaustive: transfers per candidate (tgftp's execs). Default 10."),
        Key("budget", {"type": "integer", "minimum": 1},
            "adaptive: the most transfers it may use. Default 120."),
        Key("length", SIZE, "Bytes per transfer (guc -len). Default 4G, as tgftp."),
        Key("margin", RATE, "Tie margin: a later candidate replaces the pick only if its mean is at least this "
            "much better, so the earlier wins near-ties. Default 20MB/s (tgftp's documentation); 10MB/s "
            "reproduces tgftp 0.7.0's code."),
    )),
    Kind("gfapi", "parallel small-file workers on a GlusterFS volume (libgfapi) or a POSIX directory.",
         GFAPI_KEYS),
)
KIND_NAMES = tuple(k.name for k in KINDS)


def kind_keys(kind: Kind) -> tuple[Key, ...]:
    """All keys a test of ``kind`` accepts, with the kind fixed to its name."""
    common = tuple(
        Key(k.name, {"const": kind.name}, f"{kind.name}: {kind.description}", True) if k.name == "kind" else k
        for k in COMMON_TEST_KEYS
    )
    return (*common, *kind.keys)

# Keys the defaults block accepts besides the shared ones.
DEFAULT_ONLY_KEYS: tuple[Key, ...] = (
    Key("on", _ref("on"), "Where tests run unless they say otherwise (see a test's on)."),
)

SCENARIO_KEYS: tuple[Key, ...] = (
    Key("version", {"const": 1}, "DSL version; this gftpwb reads version 1.", True),
    Key("name", _ref("name"),
        "Scenario name; used in the results directory and in tag log names.", True),
    Key("description", {"type": "string"}, "What the scenario is for."),
    Key("defaults", _ref("defaults"), "Values every test inherits unless it sets its own."),
    Key("hosts", {"type": "object", "propertyNames": _ref("name"), "additionalProperties": _ref("host")},
        "The host inventory: name -> how to reach it over SSH. 'local' is implicit (this machine, no SSH)."),
    Key("tests", {"type": "array", "minItems": 1, "items": _ref("test")},
        "The tests, run in this order.", True),
)


def _object(keys: tuple[Key, ...], description: str) -> dict[str, Any]:
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


def build_schema() -> dict[str, Any]:
    """Assemble the whole scenario schema from the tables in this module."""
    definitions = dict(DEFINITIONS)
    definitions["guc_options"] = _options_object()
    definitions["guc_matrix"] = _matrix_object()
    definitions["link"] = _object(LINK_KEYS, "A simulated link (engine: simulated): "
                                  "what a guc transfer would measure on it; see gftpwb/simlink.py.")
    definitions["autotune_candidates"] = _candidates_schema()
    definitions["defaults"] = _object((*SHARED_KEYS, *COMMAND_KEYS, *DEFAULT_ONLY_KEYS),
                                      "Values every test inherits unless it sets its own (a test takes the "
                                      "ones its kind has).")
    definitions["host"] = _object(HOST_KEYS, "One host of the inventory, reached over SSH.")
    for kind in KINDS:
        definitions[f"{kind.name}_test"] = _object(kind_keys(kind), f"A test of kind {kind.name}: {kind.description}")
    definitions["test"] = {
        "description": "One test. Its kind decides which keys it may have.",
        "type": "object",
        "required": ["id", "kind"],
        "properties": {"kind": {"enum": list(KIND_NAMES), "description": "What the test runs."}},
        "allOf": [
            {"if": {"properties": {"kind": {"const": kind.name, "description": f"Selects the {kind.name} keys."}}},
             "then": _ref(f"{kind.name}_test")} for kind in KINDS
        ],
    }
    root = _object(SCENARIO_KEYS, "A gftpwb scenario: tests to run and how.")
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "gftpwb scenario",
        **root,
        "definitions": definitions,
    }


def render_schema(schema: dict[str, Any] | None = None) -> str:
    """The schema as committed: 2-space indented JSON with a final newline."""
    return json.dumps(build_schema() if schema is None else schema, indent=2, ensure_ascii=False) + "\n"


@cache
def packaged_schema_text() -> str:
    """The committed schema file, as installed (``schemas/`` ships as ``gftpwb.schemas``)."""
    return resources.files("gftpwb.schemas").joinpath("scenario.schema.json").read_text(encoding="utf-8")


@cache
def packaged_schema() -> dict[str, Any]:
    return json.loads(packaged_schema_text())
