"""Results, tag logs and console output stay byte-for-byte what they were before the architecture
change to plug-in kinds, for fixed fake-guc runs and simulated runs and auto-tunes: see support/golden_runs.py.
The tgftp rewrite regenerated the files once for its intended changes to tag logs and records (GFTPWB_* tags
first, tgftp's RATE and SIZE rules, ``details.vb_added``, new plan fields); nothing else moved.

Clock readings are the only thing replaced before comparing. Statistics in auto-tune records
(confidence intervals, the probability of being within the margin) are compared to 1e-9 relative:
they moved from our own t distribution to scipy's, which agree to that precision, not to the last bit.
"""

import json
import math

import pytest
from support.golden_runs import HERE, SCENARIOS, normalise, produce


def _close(a, b, path=""):
    """Equal, floats within 1e-9 relative (only the statistics fields differ at all)."""
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), path
    elif isinstance(a, dict) and isinstance(b, dict):
        assert list(a) == list(b), path
        for key in a:
            _close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _close(x, y, f"{path}[{i}]")
    else:
        assert a == b, path


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_outputs_match_the_golden_files(tmp_path, scenario):
    produced = produce(scenario, tmp_path)
    golden = {p.name: p.read_text() for p in sorted((HERE / scenario).iterdir())}
    assert sorted(produced) == sorted(golden)
    for name in golden:
        want, got = normalise(name, golden[name]), normalise(name, produced[name])
        if name == "results.jsonl":
            for line_want, line_got in zip(want.splitlines(), got.splitlines(), strict=True):
                record_want, record_got = json.loads(line_want), json.loads(line_got)
                if record_want.get("kind") == "autotune":
                    _close(record_want, record_got, record_want["run_id"])
                else:
                    assert line_got == line_want
        else:
            assert got == want, name
