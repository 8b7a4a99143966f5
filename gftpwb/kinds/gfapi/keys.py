"""The DSL keys of a ``kind: gfapi`` test, from the settings table (:mod:`.settings`)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.dsl.repeats import REPEAT_KEYS
from gftpwb.core.scenario.bounds import MAX_BYTES, MAX_COUNT, MAX_WORKER_COUNT, whole
from gftpwb.core.scenario.keys import DURATION, SIZE, Key

from .settings import GFAPI_SETTINGS, SWEEPABLE, TRANSPORTS, WORKLOADS, GfapiSetting


def gfapi_setting_schema(setting: GfapiSetting) -> dict[str, Any]:
    """The schema of one gfapi setting value."""
    return {
        "count": whole(1, MAX_WORKER_COUNT),
        "count0": whole(0, MAX_BYTES),  # io_requests and the seed: the worker's 64-bit whole numbers
        "fanout": whole(2, MAX_WORKER_COUNT),
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
    Key("repeat", whole(1, MAX_COUNT), "How many times each case runs. Default 1."),
    *REPEAT_KEYS,
    Key("timeout", DURATION,
        "Stop the workers after this long (building, connecting and running together); the run is recorded "
        "as timeout with what the threads did so far. Default: no limit."),
    Key("comment", {"type": "string"}, "Free text written to the record."),
)
