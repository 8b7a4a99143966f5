"""The DSL keys of guc transfers (shared by the guc, connection-test and autotune kinds): the typed
guc options, their matrix, and the keys every transfer test has, including the engine choice."""

from __future__ import annotations

from typing import Any

from gftpwb.core.registry import registry
from gftpwb.core.scenario.bounds import MAX_COUNT, MAX_STREAMS, whole
from gftpwb.core.scenario.keys import DURATION, SIZE, Key, ref
from gftpwb.core.specs import REAL_ENGINE

from .options import GUC_OPTIONS, GucOption


def option_schema(option: GucOption) -> dict[str, Any]:
    """The schema of one guc option value."""
    if option.type == "count":
        return whole(1, MAX_STREAMS)
    if option.type == "size":
        return {"$ref": "#/definitions/size"}
    if option.type == "level":
        return {"type": "integer", "minimum": 0, "maximum": 3}
    return {"type": "boolean"}


def options_object() -> dict[str, Any]:
    return {
        "description": "Typed globus-url-copy options; each becomes its guc flag. Unset options are "
        "not passed, so guc's own defaults apply.",
        "type": "object",
        "additionalProperties": False,
        "properties": {o.name: {**option_schema(o), "description": o.description} for o in GUC_OPTIONS},
    }


def matrix_object() -> dict[str, Any]:
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


def definitions() -> dict[str, dict[str, Any]]:
    from .files import FILES_SCHEMA

    return {"guc_options": options_object(), "guc_matrix": matrix_object(), "guc_files": FILES_SCHEMA}


def engine_keys() -> tuple[Key, ...]:
    """``engine`` (real, or a registered engine) and the keys the engines add (the simulated link)."""
    engines = registry().engines()
    text = " ".join(["real (default): run globus-url-copy.", *(f"{e.name}: {e.description}" for e in engines)])
    return (Key("engine", {"enum": [REAL_ENGINE, *(e.name for e in engines)]}, text),
            *(key for engine in engines for key in engine.dsl.test_keys()))


def shared_keys() -> tuple[Key, ...]:
    """Keys a transfer test and the defaults block share; a test's value replaces the default
    (``options`` merge key by key)."""
    return (
        Key("source", {"type": "string", "minLength": 1},
            "Source URL given to guc, e.g. ftp://127.0.0.1:2811/dev/zero or gsiftp://host/path."),
        Key("target", {"type": "string", "minLength": 1},
            "Destination URL given to guc, e.g. ftp://127.0.0.1:2811/dev/null."),
        Key("options", ref("guc_options"), "Typed guc options (see guc_options).", merge=True),
        Key("extra_args", {"type": "array", "items": {"type": "string"}},
            "Further guc arguments, passed as they are (one list item per argument, never through a shell), "
            "after the typed options and before the URLs."),
        Key("repeat", whole(1, MAX_COUNT),
            "How many times each case runs (tgftp's execs). Default 1."),
        Key("timeout", DURATION,
            "Kill guc (its whole process group) after this long; the run is recorded as timeout. "
            "Default: no limit."),
        Key("comment", {"type": "string"},
            "Free text written to the record and to the tag log's comment tag."),
        *engine_keys(),
    )


MODE_KEY = Key(
    "mode", {"enum": ["stream", "extended"]},
    "The transfer mode the test means to measure. Unset: the options decide (parallel, fast, pipeline and "
    "stripe make guc use extended block mode, MODE E; otherwise stream mode), and gftpwb adds -vb for live "
    "progress only where it does not change that: between two servers -vb would switch guc to MODE E, so "
    "such runs have no live progress, only their elapsed time. extended: the test wants MODE E; between two "
    "servers -vb (which asks for it) is then added. stream: the test must run in stream mode (an error if "
    "its options say otherwise). Every record says the mode it ran in (details.mode).")

MATRIX_KEY = Key("matrix", ref("guc_matrix"), "Option lists to sweep (see guc_matrix).")

# guc's parameters as one exact list, and what gftpwb may add: tgftp batchfiles import to these.
EXACT_KEYS: tuple[Key, ...] = (
    Key("args", {"type": "array", "items": {"type": "string"}},
        "guc's parameters exactly as given, in this order, between globus-url-copy and the URLs (one list "
        "item per argument, never through a shell). gftpwb adds nothing (no -vb, see add_vb), so the transfer "
        "measured is the one described. Cannot be combined with options, extra_args, matrix, stripe or files. Imported "
        "tgftp batchfiles use it, so their guc calls stay tgftp's."),
    Key("add_vb", {"type": "boolean"},
        "May gftpwb add -vb for live progress and guc's own average? Default true with options/extra_args "
        "and false with args (tgftp-derived tests: guc runs exactly as tgftp ran it). Even when true, -vb is "
        "added only where it leaves the transfer mode alone (see mode): between two servers it would switch "
        "guc to MODE E, so there only mode: extended adds it. Without -vb a run shows no live rate. Recorded "
        "per run (details.vb_added, next to details.mode)."),
    Key("tgftp_style", {"type": "boolean"},
        "Run and log the test as tgftp 0.7.0 did: after a successful transfer list it (globus-url-copy -do, "
        "outside the timing; local runs only) for the tag log's GSIFTP_TRANSFER_LIST and the size of a "
        "transfer without -len, as tgftp did unless it copied /dev/zero or to /dev/null without -len; leave "
        "guc's output buffered as tgftp's FIFO did (so no live progress); write the comment, command and list "
        "tags with echo -e. Default false; imported batchfiles set it."),
)

STRIPE_KEY = Key(
    "stripe", {"type": "boolean"},
    "A striped transfer with live rates per stripe: passes -stripe and -dbg, and reads the servers' performance "
    "markers (112 replies, which guc prints only with -dbg) as each stripe's progress; the record keeps each "
    "stripe's bytes and rate. options.stripe passes -stripe alone, as tgftp does. Default false.")

BASELINE_KEY = Key(
    "baseline", {"anyOf": [ref("name"), {
        "type": "object", "additionalProperties": False,
        "properties": {
            "client": {**ref("name"), "description": "Host of the iperf3 client. Default: the source end's host."},
            "server": {**ref("name"), "description": "Host of the iperf3 server. Default: the target end's host."},
            "server_address": {"type": "string", "minLength": 1,
                               "description": "Address the client connects to. Default: the target URL's host."},
            "port": {"type": "integer", "minimum": 1, "maximum": 65535,
                     "description": "Server port. Default: a free one per run."},
            "duration": {**DURATION, "description": "How long each iperf3 run sends (whole seconds). Default 10s."},
            "bytes": {**SIZE, "description": "Send this many bytes instead of for a duration."},
            "omit": {**DURATION, "description": "Seconds left out at the start (iperf3 -O). Default 0."},
            "timeout": {**DURATION, "description": "Stop an iperf3 run after this long. Default: no limit."},
        }}]},
    "An iperf3 run on the same host pair before every guc run, with the case's streams (parallel) and window "
    "(tcp_buffer): the report gives guc's efficiency = guc rate / iperf3 rate with its 95 % CI. iperf3: the hosts "
    "from the URLs (the client on the source end's host, the server on the target end's; a file end is the host "
    "guc runs on); a mapping: the same with client, server, server_address, port, duration, bytes, omit or "
    "timeout given; the id of an iperf3 test: that test's settings (it still runs where it stands too).",
    expected="iperf3, the id of an iperf3 test, or a mapping of iperf3 settings")


def files_key() -> Key:
    from .files import FILES_DESCRIPTION

    return Key("files", ref("guc_files"), FILES_DESCRIPTION)
