"""The DSL keys of the simulated engine: ``link``, the link model a test's transfers are computed on."""

from __future__ import annotations

from gftpwb.core.scenario.bounds import MAX_SEED, MAX_TIME_SCALE, whole
from gftpwb.core.scenario.keys import DURATION, FRACTION, RATE, SIZE, Key, object_schema, ref

# The simulated engine's link model (gftpwb/kinds/simulated/link.py); every key is optional.
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
    Key("noise", FRACTION, "Run-to-run coefficient of variation of a transfer's time. Noise only slows: the "
        "time is multiplied by a factor of at least 1, so no run is faster than the link. Default 3%."),
    Key("outliers", FRACTION, "Share of runs slowed further, to 0.5-0.8x of their rate (a competing flow, a "
        "stall). Default 0."),
    Key("failures", FRACTION, "Share of runs that fail. Default 0."),
    Key("seed", whole(0, MAX_SEED),
        "Seed of the model's random numbers; the same seed and run id always give the same result. Default 0."),
    Key("time_scale", {"type": "number", "minimum": 0, "maximum": MAX_TIME_SCALE},
        "Let a simulated transfer take this share of its simulated duration in real time (1 = real time). "
        "Default 0: results arrive at once."),
)

LINK_KEY = Key("link", ref("link"), "The simulated link (engine: simulated); see link.", merge=True)


def link_definition() -> dict:
    return object_schema(LINK_KEYS, "A simulated link (engine: simulated): what a guc transfer would measure on it; "
                                    "see gftpwb/kinds/simulated/link.py.")
