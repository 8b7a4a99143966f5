"""``gftpwb report --junit FILE``: JUnit XML for CI servers (Jenkins, GitLab, GitHub test reporters).
Pure.

One ``testsuite`` per results directory, one ``testcase`` per run (the latest record of each run id):
classname ``<scenario>.<test>``, name the run id, time its duration. A run that failed or timed out
is a ``failure`` (type = its status), one interrupted by the user an ``error``, a skipped one or a
planned run that never ran (stopped before it) ``skipped``. Each threshold checked (``expect:``) is a
testcase too (``expect <case>: <metric> <op value>``), a ``failure`` of type ``expectation`` when
violated. Each testcase's ``properties`` carry its
figures (the rates), whether it was a warm-up, and its kind's facts (guc's transfer mode), as pytest's
``record_property`` writes them.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from .format import short_error
from .records import FAILED, INTERRUPTED, SKIPPED, TIMEOUT
from .summary import DirectorySummary, RunRow


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}" if abs(value) < 1e6 else f"{value:.1f}"


def _testcase(suite: ET.Element, scenario: str, test_id: str, run: RunRow) -> None:
    case = ET.SubElement(suite, "testcase", classname=f"{scenario}.{test_id}", name=run.run_id,
                         time=f"{run.seconds or 0:.3f}")
    properties = ET.SubElement(case, "properties")
    for key, value in run.values.items():
        if value is not None:
            ET.SubElement(properties, "property", name=key, value=_number(value))
    for key, reason in run.excluded.items():
        ET.SubElement(properties, "property", name=f"{key}_excluded", value=reason)
    for key, fact in run.facts.items():
        if fact is not None:
            ET.SubElement(properties, "property", name=key, value=str(fact).lower() if isinstance(fact, bool)
                          else str(fact))
    if run.warmup:
        ET.SubElement(properties, "property", name="warmup", value="true")
    if run.outlier:
        ET.SubElement(properties, "property", name="outlier", value=",".join(run.outlier))
    if not len(properties):
        case.remove(properties)
    message = short_error(run.error) or run.status
    if run.status in (FAILED, TIMEOUT):
        ET.SubElement(case, "failure", message=message, type=run.status).text = run.error or None
    elif run.status == INTERRUPTED:
        ET.SubElement(case, "error", message=message, type=run.status).text = run.error or None
    elif run.status == SKIPPED:
        ET.SubElement(case, "skipped", message=message)


def junit_xml(summaries: Sequence[DirectorySummary]) -> str:
    """The JUnit XML document (UTF-8 text with its declaration)."""
    root = ET.Element("testsuites", name="gftpwb")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for summary in summaries:
        runs = [(case.test_id, run) for case in summary.cases for run in case.runs]
        counts = {
            "tests": len(runs) + len(summary.not_run) + len(summary.checks),
            "failures": sum(1 for _, r in runs if r.status in (FAILED, TIMEOUT)) + summary.violations,
            "errors": sum(1 for _, r in runs if r.status == INTERRUPTED),
            "skipped": sum(1 for _, r in runs if r.status == SKIPPED) + len(summary.not_run),
            "time": sum(r.seconds or 0.0 for _, r in runs),
        }
        suite = ET.SubElement(root, "testsuite", name=f"{summary.scenario} ({summary.path})",
                              tests=str(counts["tests"]), failures=str(counts["failures"]),
                              errors=str(counts["errors"]), skipped=str(counts["skipped"]),
                              time=f"{counts['time']:.3f}", timestamp=summary.created_at)
        for test_id, run in runs:
            _testcase(suite, summary.scenario, test_id, run)
        for check in summary.checks:
            case = ET.SubElement(suite, "testcase", classname=f"{summary.scenario}.{check.test_id}",
                                 name=f"expect {check.case_text}: {check.metric} {check.expression}", time="0.000")
            properties = ET.SubElement(case, "properties")
            ET.SubElement(properties, "property", name="value", value=check.value_text)
            if not check.ok:
                note = f" ({check.note})" if check.note else ""
                ET.SubElement(case, "failure", message=f"{check.metric} {check.expression}: {check.value_text}{note}",
                              type="expectation")
        for run_id in summary.not_run:
            case = ET.SubElement(suite, "testcase", classname=f"{summary.scenario}.{run_id.split('/')[0]}",
                                 name=run_id, time="0.000")
            ET.SubElement(case, "skipped", message="not run (the scenario run stopped before it)")
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        root.set(key, f"{value:.3f}" if key == "time" else str(value))
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
