"""The tgftp drop-in ends as tgftp 0.7.0 ended after a signal, whatever the instant it comes.

tgftp's batch mode did not survive a Ctrl-C: a shell at the terminal saw it killed by SIGINT
(tests/compat/test_compat_signals.py compares both at one instant, with guc running). The drop-in
must end the same way at every instant, from its first line through the first execution's run, on a
busy machine: killed by SIGINT, no traceback, and every tag log it wrote whole.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.instants import all_ended_before, instants, signal_at
from support.load import busy_cores
from support.processes import pgrep

from gftpwb.converters.taglog import get_attribute

pytestmark = [pytest.mark.real, pytest.mark.slow]

# What the tgftp console script runs, saying on stderr when the drop-in's code has begun (its first act,
# taking Ctrl-C over, done before the marker: see test_hardening_real.STARTED).
STARTED = ("import sys; from gftpwb.shell import interrupts; interrupts.install(); "
           "from gftpwb.tgftp.run.dropin import main; sys.argv[0] = 'tgftp'; "
           "sys.stderr.write('python started\\n'); sys.stderr.flush(); main()")
BATCH = "#%tgftp%v0.7.0\n{url}/dev/zero;{url}/dev/null;-len 64M;no;60;;;;;2\n"


def test_a_ctrl_c_at_any_instant_of_a_batch_kills_the_drop_in_by_sigint(tmp_path, gridftp):
    tried = []
    with busy_cores():
        for n, at in enumerate(instants()):
            work = tmp_path / f"w{n}"
            work.mkdir()
            (work / "b.csv").write_text(BATCH.format(url=gridftp.url))
            proc = subprocess.Popen([sys.executable, "-c", STARTED, "-f", "b.csv"], cwd=work, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            assert proc.stderr.readline() == "python started\n"
            ended = signal_at(proc, at)
            seen = f"Ctrl-C {at:.3f} s after start-up: exit {ended.returncode}\n{ended.stdout}\n{ended.stderr}"
            logs = [log.read_text() for log in sorted(work.glob("b.csv_#*.log"))]
            statuses = [get_attribute(log, "GFTPWB_STATUS") for log in logs]
            ends = [json.loads(get_attribute(log, "GFTPWB_RECORD")[0])["ended_at"] for log in logs]
            # as tgftp's batch: killed by SIGINT, unless every execution had ended before the signal came
            over = statuses == [["passed"]] * 2 and all_ended_before(ended, ends)
            assert ended.returncode == -2 or (over and ended.returncode == 0), seen
            assert "Traceback" not in ended.stderr and "Exception ignored" not in ended.stderr, seen
            assert all(status in (["passed"], ["interrupted"]) for status in statuses), (statuses, seen)
            tried.append(at)
            if ["passed"] in statuses:
                break  # the first execution had ended before the signal
        else:
            pytest.fail(f"the first execution never ended before a Ctrl-C in {len(tried)} instants "
                        f"up to {tried[-1]:.1f} s")
    assert pgrep(f"globus-url-copy.*{gridftp.port}") == []
