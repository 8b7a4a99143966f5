"""The DSL keys of an auto-tune: which candidates, which strategy, and the transfers' settings."""

from __future__ import annotations

from typing import Any

from gftpwb.core.registry import Tunable, registry
from gftpwb.core.scenario.bounds import MAX_CAMPAIGNS, MAX_COUNT, whole
from gftpwb.core.scenario.keys import DURATION, RATE, SIZE, Key, ref
from gftpwb.kinds.guc.keys import shared_keys

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
                 "campaigns": whole(1, MAX_CAMPAIGNS, description="Use at most this many of the latest "
                                    "similar campaigns. Default 5."),
             }},
        ],
    }


def tunables() -> dict[str, list[Tunable]]:
    """Every parameter name some kind declares tunable, with each kind's declaration of it."""
    out: dict[str, list[Tunable]] = {}
    for kind in registry().kinds():
        for parameter in kind.tuning.parameters:
            out.setdefault(parameter.name, []).append(parameter)
    return out


def _one_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    distinct = [dict(s) for i, s in enumerate(schemas) if s not in schemas[:i]]
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


def candidates_schema() -> dict[str, Any]:
    grid_props, set_props = {}, {}
    for name, declared in tunables().items():
        item = _one_of([dict(t.schema) for t in declared])
        flag = all(t.switch for t in declared)
        described = declared[0].description
        grid_props[name] = {"description": f"Values of {name} to try; null: not passed.", "type": "array",
                            "minItems": 1, "items": item if flag else {"anyOf": [item, {"type": "null"}]}}
        set_props[name] = {**item, "description": described}
    return {
        "description": "tgftp-37 (guc): tgftp's 37 configurations in its order (-vb; -p 1..32; -p 1..32 with "
        "-tcp-bs 1M..16M). A mapping of option lists: their cross product, first key outermost. A list of "
        "option sets: exactly those, in that order ({} is the tool's defaults, guc's plain -vb). The options "
        "are those the kind of the transfers declares tunable. Earlier candidates win near-ties.",
        "anyOf": [
            {"const": "tgftp-37", "description": "tgftp's 37 configurations (transfers: guc)."},
            {"type": "object", "additionalProperties": False, "minProperties": 1, "properties": grid_props,
             "description": "A grid: option lists to combine."},
            {"type": "array", "minItems": 1, "description": "Candidates one by one.",
             "items": {"type": "object", "additionalProperties": False, "properties": set_props,
                       "description": "One candidate's options."}},
        ],
    }


def autotune_keys() -> tuple[Key, ...]:
    return (
        *(k for k in shared_keys() if k.name in ("source", "target", "extra_args", "comment", "engine", "link")),
        Key("transfers", {"type": "string", "minLength": 1},
            "The kind whose transfers it varies: guc (default, as tgftp -a), or another kind that declares "
            "tunable parameters (xrootd, http)."),
        Key("timeout", DURATION, "Kill a transfer after this long; it counts as failed (tgftp: 30 s). "
            "Default 30s; 0 = no limit."),
        Key("memory_to_memory", {"type": "boolean"},
            "Replace the paths of source and target by /dev/zero and /dev/null on the same servers, as "
            "tgftp -a does. Default true for guc; false uses the URLs as they are (the only way for kinds "
            "whose servers serve no devices: xrootd)."),
        Key("candidates", ref("autotune_candidates"), "The configurations to try (see autotune_candidates). "
            "Default tgftp-37 for guc, else the values the kind declares for its tunable options combined.",
            expected=CANDIDATE_FORMS),
        Key("strategy", {"enum": ["exhaustive", "adaptive"]},
            "exhaustive (default): every candidate `repetitions` times, as tgftp. adaptive: a race that "
            "spends transfers only where they can change the pick, at most `budget`."),
        Key("repetitions", whole(1, MAX_COUNT),
            "exhaustive: transfers per candidate (tgftp's execs). Default 10."),
        Key("budget", whole(1, MAX_COUNT),
            "adaptive: the most transfers it may use. Default 120."),
        Key("warm_start", ref("autotune_warm_start"), "adaptive: start from what earlier campaigns of a similar "
            "path found (see autotune_warm_start). Default auto.", expected=WARM_START_FORMS),
        Key("length", SIZE, "Bytes per transfer: guc moves that many (-len; default 4G, as tgftp); a copy "
            "tool moves its source file whole: give the file's size (required)."),
        Key("margin", RATE, "Tie margin: a later candidate replaces the pick only if its mean is at least this "
            "much better, so the earlier wins near-ties. Default 20MB/s (tgftp's documentation); 10MB/s "
            "reproduces tgftp 0.7.0's code."),
    )
