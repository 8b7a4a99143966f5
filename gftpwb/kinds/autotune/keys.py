"""The DSL keys of an auto-tune: which candidates, which strategy, and the transfers' settings."""

from __future__ import annotations

from typing import Any

from gftpwb.core.scenario.keys import DURATION, RATE, SIZE, Key, ref
from gftpwb.kinds.guc.keys import option_schema, shared_keys
from gftpwb.kinds.guc.options import GUC_OPTIONS

from .candidates import GRID_OPTIONS

CANDIDATE_FORMS = "tgftp-37, a mapping of option lists (a grid) or a list of option sets"
WARM_START_FORMS = "auto, off, or a mapping with history and campaigns"


def warm_start_schema() -> dict[str, Any]:
    return {
        "description": "The adaptive strategy's warm start from earlier campaigns and sweeps of a similar path. "
        "auto (default): use the history under the run's results base when it has one (a third of the "
        "budget then, or the whole budget after a fall-back to a cold search); off: always a cold search. "
        "A mapping: auto with its settings.",
        "anyOf": [
            {"enum": ["auto", "off"]},
            {"type": "object", "additionalProperties": False, "minProperties": 1,
             "description": "auto, with settings.",
             "properties": {
                 "history": {"type": "string", "minLength": 1,
                             "description": "The results base to learn from (a directory of results directories, "
                             "or a URL DuckDB reads). Default: the base of this run's results directory."},
                 "campaigns": {"type": "integer", "minimum": 1,
                               "description": "Use at most this many of the latest similar campaigns. Default 5."},
             }},
        ],
    }


def candidates_schema() -> dict[str, Any]:
    by_name = {o.name: o for o in GUC_OPTIONS}
    grid_props = {}
    for name in GRID_OPTIONS:
        option = by_name[name]
        item = option_schema(option)
        if option.type != "flag":
            item = {"anyOf": [item, {"type": "null"}]}
        grid_props[name] = {"description": f"Values of {name} ({option.flag}) to try; null: not passed.",
                            "type": "array", "minItems": 1, "items": item}
    set_props = {name: {**option_schema(by_name[name]), "description": by_name[name].description}
                 for name in GRID_OPTIONS}
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


def autotune_keys() -> tuple[Key, ...]:
    return (
        *(k for k in shared_keys() if k.name in ("source", "target", "extra_args", "comment", "engine", "link")),
        Key("timeout", DURATION, "Kill a transfer after this long; it counts as failed (tgftp: 30 s). "
            "Default 30s; 0 = no limit."),
        Key("memory_to_memory", {"type": "boolean"},
            "Replace the paths of source and target by /dev/zero and /dev/null on the same servers, as "
            "tgftp -a does. Default true; false uses the URLs as they are."),
        Key("candidates", ref("autotune_candidates"), "The configurations to try (see autotune_candidates). "
            "Default tgftp-37.", expected=CANDIDATE_FORMS),
        Key("strategy", {"enum": ["exhaustive", "adaptive"]},
            "exhaustive (default): every candidate `repetitions` times, as tgftp. adaptive: a race that "
            "spends transfers only where they can change the pick, at most `budget`."),
        Key("repetitions", {"type": "integer", "minimum": 1},
            "exhaustive: transfers per candidate (tgftp's execs). Default 10."),
        Key("budget", {"type": "integer", "minimum": 1},
            "adaptive: the most transfers it may use. Default 120."),
        Key("warm_start", ref("autotune_warm_start"), "adaptive: start from what earlier campaigns of a similar "
            "path found (see autotune_warm_start). Default auto.", expected=WARM_START_FORMS),
        Key("length", SIZE, "Bytes per transfer (guc -len). Default 4G, as tgftp."),
        Key("margin", RATE, "Tie margin: a later candidate replaces the pick only if its mean is at least this "
            "much better, so the earlier wins near-ties. Default 20MB/s (tgftp's documentation); 10MB/s "
            "reproduces tgftp 0.7.0's code."),
    )
