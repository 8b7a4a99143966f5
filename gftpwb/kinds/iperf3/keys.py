"""The DSL keys of a ``kind: iperf3`` test.

The hosts are ``client`` and ``server`` rather than ``source`` and ``target``: a test inherits every
key of ``defaults:`` its kind has, and there ``source``/``target`` are guc URLs.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.scenario.bounds import MAX_COUNT, whole
from gftpwb.core.scenario.keys import COMMAND_KEYS, DURATION, RATE, SIZE, Key, ref

WINDOW_SCHEMA: dict[str, Any] = {"anyOf": [dict(SIZE), {"const": "bdp"}]}

# Keys a matrix may sweep, with the schema of one value.
SWEEPABLE: dict[str, dict[str, Any]] = {
    "streams": {"type": "integer", "minimum": 1, "maximum": 128},
    "window": WINDOW_SCHEMA,
    "bandwidth": RATE,
    "duration": DURATION,
    "bytes": SIZE,
    "reverse": {"type": "boolean"},
    "omit": DURATION,
}

IPERF3_KEYS: tuple[Key, ...] = (
    Key("client", ref("name"),
        "Host the iperf3 client runs on (the sending end, unless reverse): 'local' or a host of the inventory. "
        "Default: the test's on: when it names one host, else local."),
    Key("server", ref("name"),
        "Host the iperf3 server is started on for each run (on a free port, stopped afterwards): 'local' or a "
        "host of the inventory. Default local."),
    Key("server_address", {"type": "string", "minLength": 1},
        "Address the client connects to. Default: the server host's inventory address, or 127.0.0.1 when client "
        "and server are both local; needed when the server is local and the client is not (the address at which "
        "the client reaches this machine)."),
    Key("duration", DURATION, "How long to send (iperf3 -t, whole seconds). Default 10s, unless bytes is set."),
    Key("omit", DURATION,
        "Seconds at the start left out of the results while TCP ramps up (iperf3 -O, whole seconds). Default 0."),
    Key("port", {"type": "integer", "minimum": 1, "maximum": 65535},
        "Server port. Default: a free one, chosen for each run (another is tried when it is taken)."),
    Key("streams", SWEEPABLE["streams"], "Parallel TCP streams (iperf3 -P). Default 1."),
    Key("window", WINDOW_SCHEMA,
        "Socket buffer size per stream (iperf3 -w), e.g. 4M; or bdp: bandwidth x RTT divided by the number of "
        "streams, so that window x streams is about the path's bandwidth-delay product (as in the TeraGrid "
        "GridFTP study). Default: not passed (the kernel's autotuning).",
        expected="a size such as 4M, or bdp"),
    Key("bandwidth", RATE,
        "The path's bandwidth for window: bdp, e.g. 400Mbit/s or 10Gbit/s (a number is MiB/s)."),
    Key("rtt", DURATION,
        "The path's round-trip time for window: bdp, e.g. 60ms. Default: measured before each run by a 1 s "
        "iperf3 probe over the same path (the smallest RTT the kernel saw, tcp_info min_rtt)."),
    Key("bytes", SIZE, "Send this many bytes instead of for a duration (iperf3 -n), e.g. 1G."),
    Key("reverse", {"type": "boolean"}, "The server sends and the client receives (iperf3 -R). Default false."),
    Key("matrix", {
        "description": "Lists of values; the test runs once for every combination (the cross product, first key "
                       "outermost, order kept). A matrix value overrides the same key of the test.",
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {name: {"description": f"Values of {name} to sweep.", "type": "array", "minItems": 1,
                              "items": schema} for name, schema in SWEEPABLE.items()},
    }, "Values to sweep (streams, window, bandwidth, duration, bytes, reverse, omit)."),
    Key("repeat", whole(1, MAX_COUNT), "How many times each case runs. Default 1."),
    Key("timeout", DURATION,
        "Stop the client and the server (their whole process groups) after this long, server start and RTT probe "
        "included; the run is recorded as timeout. Default: no limit."),
    Key("comment", {"type": "string"}, "Free text written to the record."),
    *COMMAND_KEYS,
)
