"""Whether a gfapi figure's run was long enough for its rate to mean something. Pure.

A rate is work over a window of time, and the window's ends are known only so well: the threads did
not start at one instant (the start skew: a late thread that also ends last lengthens the window by
up to that much), the hosts' clocks agree only to within their measured offsets' uncertainty, and the
clock that timed the window has a resolution. When those together are a large share of the window,
the rate says more about them than about the storage: a run of 0.021 s with 8.84 ms of skew is off by
up to 42 %, and two such runs of the same test differ by a factor of four.

**The rule** (one place: :data:`LIMIT_PCT`): a figure is *too short to publish* when its run's start
skew, clock uncertainty and resolution together are more than 1 % of the window it is measured over
("last done": first thread start to last thread end; "first done": first thread start to the first
thread's end). The cure is a longer run of the same work: more files per thread, or larger files;
:func:`needed_s` says how long.

Records imported from parallel-libgfapi did not measure a start skew: no verdict is made for them.
"""

from __future__ import annotations

from typing import Any

LIMIT_PCT = 1.0  # skew + clock uncertainty + resolution, as a share of the window, at most
OWN_RESOLUTION_S = 1e-6  # gftpwb's workers time with the nanosecond clock; the record keeps microseconds


def needed_s(error_s: float) -> float:
    """The shortest window for which ``error_s`` is at most :data:`LIMIT_PCT` of it."""
    return error_s * 100.0 / LIMIT_PCT


def judge(window_s: float | None, error_s: float) -> dict[str, Any] | None:
    """The verdict on one figure's window: its share taken by the timing's error, too short or not,
    and the window it would need. None without a window."""
    if window_s is None or window_s <= 0:
        return None
    share = 100.0 * error_s / window_s
    return {"seconds": round(window_s, 6), "share_pct": round(share, 3), "too_short": share > LIMIT_PCT,
            "needed_s": round(needed_s(error_s), 3)}


def timing(gfapi: dict[str, Any], clocks: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``details.gfapi.timing`` of a run: what limits how well its windows are known, and the verdict on
    its cluster's last-done and first-done figures. ``clocks``: per host, its offset's ``uncertainty_ms``
    (None when not measured). None when the run measured no start skew (no thread started, or imported)."""
    skew_ms = gfapi.get("start_skew_ms")
    if skew_ms is None:
        return None
    uncertainty_ms = max((c.get("uncertainty_ms") or 0.0 for c in clocks.values()), default=0.0)
    error_s = (skew_ms + uncertainty_ms) / 1000 + OWN_RESOLUTION_S
    cluster = gfapi.get("cluster") or {}
    return {"limit_pct": LIMIT_PCT, "start_skew_ms": skew_ms, "clock_uncertainty_ms": round(uncertainty_ms, 3),
            "resolution_ms": OWN_RESOLUTION_S * 1000,
            "last_done": judge((cluster.get("last_done") or {}).get("seconds"), error_s),
            "first_done": judge((cluster.get("first_done") or {}).get("seconds"), error_s)}


def too_short(gfapi: dict[str, Any], figure: str = "last_done") -> bool:
    """Whether a record's ``figure`` (last_done, first_done) is too short to publish."""
    verdict = ((gfapi.get("timing") or {}).get(figure)) or {}
    return bool(verdict.get("too_short"))


def short_text(gfapi: dict[str, Any]) -> str:
    """'too short to publish: start skew 8.84 ms is 42.1 % of the 0.021 s measured (limit 1 %); make the run
    last 0.9 s or more (more files per thread, or larger files)'; "" when the last-done figure is not too
    short (a first-done figure that is says so more briefly)."""
    t = gfapi.get("timing") or {}
    last, first = t.get("last_done") or {}, t.get("first_done") or {}
    if not last.get("too_short"):
        if first.get("too_short"):
            return (f"first done too short to publish ({first['share_pct']:.1f} % of its {first['seconds']:.3f} s "
                    f"is timing error; limit {LIMIT_PCT:g} %)")
        return ""
    causes = [f"start skew {t['start_skew_ms']:.2f} ms"]
    if t.get("clock_uncertainty_ms"):
        causes.append(f"clock uncertainty {t['clock_uncertainty_ms']:.2f} ms")
    return (f"too short to publish: {' + '.join(causes)} is {last['share_pct']:.1f} % of the {last['seconds']:.3f} s "
            f"measured (limit {LIMIT_PCT:g} %); make the run last {last['needed_s']:.1f} s or more "
            "(more files per thread, or larger files)")
