"""Metric names of figures: a kind's figures (``kind.report.figures``) and a monitor's (their names carry
their units, :mod:`gftpwb.core.monitors.readers`) in base units, as Prometheus names them.

* a kind's figure: ``gftpwb_<kind>_<figure without its unit>_<unit>``; MiB/s become
  ``_bytes_per_second`` (times 1048576), files/s ``_files_per_second``, IOPS
  ``_operations_per_second``; a figure that is nothing but its unit (gfapi's ``mib_s``) is named by
  the unit alone (``gftpwb_gfapi_bytes_per_second``);
* a monitor's figure: ``gftpwb_monitor_<type>_<figure>`` with ``_pct`` as a ``_ratio`` (0 to 1),
  ``_mib_s`` and ``_mbit_s`` as ``_bytes_per_second``, ``_mib`` as ``_bytes``, ``_ms`` as
  ``_seconds`` (moved to the end: ``rtt_ms_mean`` is ``rtt_mean_seconds``), ``_s`` as
  ``_per_second``; ``<device>.<figure>`` (an interface, a disk) gives the device as a label.
"""

from __future__ import annotations

import re

from .model import PREFIX

MIB = 1048576.0
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_]+")

#: A kind's figure unit -> (the name's unit, factor to base units).
FIGURE_UNITS: dict[str, tuple[str, float]] = {
    "MiB/s": ("bytes_per_second", MIB),
    "files/s": ("files_per_second", 1.0),
    "IOPS": ("operations_per_second", 1.0),
    "s": ("seconds", 1.0),
    "%": ("ratio", 0.01),
}
_UNIT_WORDS = frozenset({"", "mib", "files", "iops", "ops"})  # a figure named by its unit only


def sanitize(text: str) -> str:
    """``text`` as a part of a metric name: letters, digits and single underscores."""
    name = _NOT_NAME.sub("_", text).strip("_").lower()
    return re.sub(r"_+", "_", name)


def figure_metric(kind: str, key: str, unit: str) -> tuple[str, float]:
    """The metric name of a kind's figure and the factor its values are multiplied by."""
    base = key
    for suffix in ("_mib_s", "_s"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    base = sanitize(base)
    if base in _UNIT_WORDS:
        base = ""
    word, factor = FIGURE_UNITS.get(unit, (sanitize(unit), 1.0))
    parts = [part for part in (sanitize(kind), base, word) if part]
    return PREFIX + "_".join(parts), factor


#: A monitor figure's unit suffix -> (the name's unit, factor), longest first.
_MONITOR_SUFFIXES = (("_mbit_s", "bytes_per_second", 1e6 / 8), ("_mib_s", "bytes_per_second", MIB),
                     ("_pct", "ratio", 0.01), ("_mib", "bytes", MIB), ("_ms", "seconds", 0.001),
                     ("_s", "per_second", 1.0))


def monitor_metric(monitor_type: str, figure: str) -> tuple[str, str, float]:
    """(metric name, device, factor) of a monitor's figure; device is "" for a host-wide figure."""
    device, _, name = figure.rpartition(".")
    base, word, factor = name, "", 1.0
    for suffix, unit, scale in _MONITOR_SUFFIXES:
        if base.endswith(suffix):
            base, word, factor = base[: -len(suffix)], unit, scale
            break
        middle = f"{suffix}_"
        if suffix == "_ms" and middle in base:  # rtt_ms_mean: the unit goes last
            base, word, factor = base.replace(middle, "_", 1), unit, scale
            break
    parts = [part for part in ("monitor", sanitize(monitor_type), sanitize(base), word) if part]
    return PREFIX + "_".join(parts), device, factor
