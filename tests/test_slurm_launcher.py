"""The Slurm launcher against a real Slurm of the lab: one job step per run, exact per-task streams,
start errors, stops, exit codes, clock offsets, uploads, failure policies and lost nodes, and an
allocation that cannot be had; nothing left in squeue or among the processes afterwards."""

import asyncio
import os
import subprocess
import time

import pytest
from support.polling import eventually_async
from support.slurm import alive, jobs

from gftpwb.core.errors import AllocationError
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.transport import ProcessLost, StartError
from gftpwb.shell.context import launch_group, run_program
from gftpwb.shell.lab.slurm import SlurmLab
from gftpwb.shell.transports.hosts import HostTransports
from gftpwb.shell.transports.slurm.allocation import preflight

pytestmark = [pytest.mark.real]


def setup_for(lab: SlurmLab, nodes: int = 4, **changes) -> SlurmSetup:
    return SlurmSetup(nodes=nodes, on_failure=changes.pop("on_failure", "cancel"), conf=lab.conf,
                      job=changes.pop("job", "new"), **changes)


async def collect(proc) -> tuple[bytes, bytes, int]:
    out, err = bytearray(), bytearray()
    async for stream, data in proc.output():
        (out if stream == "stdout" else err).extend(data)
    return bytes(out), bytes(err), await proc.wait()


async def in_group(name: str, coro):
    launch_group.set(name)
    return await coro


async def test_the_starts_of_a_run_are_one_job_step_task_per_node(slurm_lab):
    transports = HostTransports(slurm=setup_for(slurm_lab))
    try:
        env = await transports.open_slurm()
        assert env["nodes"] == {"node1": "n1", "node2": "n2", "node3": "n3", "node4": "n4"}  # all 4, in order
        job = env["job"]
        assert jobs(slurm_lab, "-j", job, "-o", "%T") == "RUNNING"
        argv = ["sh", "-c", 'echo "$SLURMD_NODENAME $SLURM_JOB_ID.$SLURM_STEP_ID $SLURM_PROCID"']

        async def run_all():
            procs = await asyncio.gather(*(transports(f"node{i}").start(argv) for i in (1, 2, 3, 4, 2)))
            return await asyncio.gather(*(collect(p) for p in procs))

        results = await in_group("copy/0", run_all())
        lines = [out.decode().split() for out, _err, code in results]
        assert all(code == 0 for _o, _e, code in results)
        assert [line[0] for line in lines] == ["n1", "n2", "n3", "n4", "n2"]
        assert len({line[1] for line in lines}) == 1  # one step for the run
        assert [line[2] for line in lines] == ["0", "1", "2", "3", "4"]
        other = await in_group("copy/1", collect(await transports("node1").start(argv)))
        assert other[0].split()[1] != lines[0][1].encode()  # the next run: a step of its own
    finally:
        await transports.close()
    assert jobs(slurm_lab, "-j", job) == ""  # the job gftpwb asked for is released


async def test_each_task_has_its_own_exact_streams_and_input(slurm_lab):
    transports = HostTransports(slurm=setup_for(slurm_lab, nodes=2))
    # a line far longer than srun's 1024-byte label buffer, binary bytes, no final newline, stderr, stdin
    program = ["python3", "-c", "import os,sys; data=sys.stdin.buffer.read(); os.write(1, b'x'*5000 + bytes(range(256))"
               " + data); os.write(2, b'err ' + data[::-1])"]
    try:
        async def both():
            a, b = await asyncio.gather(transports("node1").start(program, stdin=True),
                                        transports("node2").start(program, stdin=True))
            for proc, text in ((a, b"to one"), (b, b"to two\n")):
                await proc.write(text)
                await proc.close_stdin()
            return await asyncio.gather(collect(a), collect(b))

        (out1, err1, code1), (out2, err2, code2) = await in_group("io", both())
    finally:
        await transports.close()
    assert (code1, code2) == (0, 0)
    assert out1 == b"x" * 5000 + bytes(range(256)) + b"to one" and err1 == b"err eno ot"
    assert out2 == b"x" * 5000 + bytes(range(256)) + b"to two\n" and err2 == b"err \nowt ot"


async def test_start_errors_name_the_node_and_leave_the_others_running(slurm_lab):
    transports = HostTransports(slurm=setup_for(slurm_lab, nodes=2, on_failure="continue"))
    try:
        first = (await transports.open_slurm())["nodes"]["node1"]  # whichever nodes the new job got

        async def both():
            return await asyncio.gather(transports("node1").start(["no-such-program-gftpwb", "x"]),
                                        transports("node2").start(["sh", "-c", "echo fine"]),
                                        return_exceptions=True)

        missing, fine = await in_group("errors", both())
        assert isinstance(missing, StartError)
        assert str(missing) == f"node1 (node {first}): no-such-program-gftpwb: command not found"
        assert await collect(fine) == (b"fine\n", b"", 0)
        with pytest.raises(StartError, match="/etc/passwd: not an executable file"):
            await transports("node1").start(["/etc/passwd"])
        code = await in_group("exit", collect(await transports("node2").start(["sh", "-c", "exit 7"])))
        assert code == (b"", b"", 7)
    finally:
        await transports.close()


async def test_stop_ends_the_whole_process_group_on_the_node(slurm_lab):
    marker = f"gftpwb-stop-test-{os.getpid()}"
    transports = HostTransports(slurm=setup_for(slurm_lab, nodes=1))
    try:
        proc = await transports("node1").start(["sh", "-c", f"sleep 300 & sleep 300; : {marker}"])
        await eventually_async(lambda: len(alive(f"sleep 300; : {marker}")) >= 1, "the task to start")
        started = time.monotonic()
        await proc.stop(1.0)
        assert await proc.wait() == 143
        assert time.monotonic() - started < 30
        await eventually_async(lambda: alive(marker) == [], "the tasks to end")
        job = (await transports.open_slurm())["job"]
        await eventually_async(lambda: jobs(slurm_lab, "-s", "-j", job, "-o", "%j").count("gftpwb") == 0,
                               "the step to end")
    finally:
        await transports.close()
    assert alive(marker) == []


async def test_closing_the_run_stops_tasks_and_cancels_their_steps(slurm_lab):
    marker = f"gftpwb-close-test-{os.getpid()}"
    transports = HostTransports(slurm=setup_for(slurm_lab, nodes=3))
    procs = await in_group("long", asyncio.gather(*(transports(f"node{i}").start(["sh", "-c", f"sleep 300; : {marker}"])
                                                    for i in (1, 2, 3))))
    job = (await transports.open_slurm())["job"]
    await eventually_async(lambda: len(alive(f"^[^ ]*sh -c sleep 300; : {marker}")) == 3, "the tasks to start")
    await transports.close()
    assert all(p.exited.done() for p in procs)
    await eventually_async(lambda: alive(marker) == [], "the tasks to end")
    assert jobs(slurm_lab, "-j", job) == ""


async def test_clock_offset_and_upload(slurm_lab, tmp_path):
    transports = HostTransports(slurm=setup_for(slurm_lab, nodes=2))
    source = tmp_path / "payload.bin"
    source.write_bytes(os.urandom(200_000))
    source.chmod(0o640)
    target = tmp_path / "remote" / "dir" / "copy.bin"
    try:
        offsets = await in_group("clock", asyncio.gather(transports("node1").clock_offset(),
                                                         transports("node2").clock_offset()))
        for offset in offsets:  # the same machine: its own clock, within the round trip
            assert offset.samples == 8
            assert abs(offset.offset_s) <= offset.uncertainty_s + 0.005
        assert await transports("node2").upload(str(source), str(target)) is True
        assert target.read_bytes() == source.read_bytes() and (target.stat().st_mode & 0o777) == 0o640
        assert await transports("node1").upload(str(source), str(target)) is False  # identical: not copied
    finally:
        await transports.close()


def test_an_allocation_that_cannot_be_had_is_refused_before_anything_runs(slurm_lab):
    with pytest.raises(AllocationError, match="the scenario needs 9 nodes, and partition lab has 4") as info:
        preflight(setup_for(slurm_lab, nodes=9))
    assert info.value.exit_code == 10
    with pytest.raises(AllocationError, match="Slurm has no partition nope"):
        preflight(setup_for(slurm_lab, nodes=1, partition="nope"))
    with pytest.raises(AllocationError, match="Slurm job 999999 is not known to the controller"):
        preflight(setup_for(slurm_lab, nodes=1, job="999999"))
    preflight(setup_for(slurm_lab, nodes=4))  # fine

    async def too_many():
        transports = HostTransports(slurm=setup_for(slurm_lab, nodes=9, wait_s=30))
        try:
            with pytest.raises(AllocationError, match="Requested partition configuration not available now"):
                await transports.open_slurm()
        finally:
            await transports.close()

    asyncio.run(too_many())
    assert jobs(slurm_lab) == ""  # the pending job was cancelled
    granted = subprocess.run(["salloc", "--no-shell", "-N", "1"], capture_output=True, text=True,
                             env=slurm_lab.client_env(), timeout=60)
    job = granted.stderr.split("Granted job allocation ")[1].split()[0]
    try:
        with pytest.raises(AllocationError, match=f"the scenario needs 2 nodes \\(slurm: nodes\\), and job {job} "
                                                  "has 1 \\(n[0-9]\\)"):
            preflight(setup_for(slurm_lab, nodes=2, job=job))
        with pytest.raises(AllocationError, match="the scenario needs 2 nodes"):
            asyncio.run(_acquire_in(slurm_lab, job))
    finally:
        subprocess.run(["scancel", job], env=slurm_lab.client_env())


async def _acquire_in(lab: SlurmLab, job: str) -> None:
    """As inside salloc or sbatch: SLURM_JOB_ID names the enclosing allocation."""
    from gftpwb.shell.transports.slurm.allocation import acquire

    await acquire(setup_for(lab, nodes=2, job="auto"), environ={"SLURM_JOB_ID": job})


@pytest.fixture
def own_slurm(tmp_path):
    """A lab of its own: these tests set nodes and partitions down."""
    lab = SlurmLab(str(tmp_path / "lab"))
    lab.up(3)
    yield lab
    lab.down()


def test_a_partition_that_is_down(own_slurm):
    subprocess.run(["scontrol", "update", "partitionname=lab", "state=down"], env=own_slurm.client_env(), check=True)
    with pytest.raises(AllocationError, match="partition lab is DOWN: it starts no jobs"):
        preflight(setup_for(own_slurm, nodes=1))

    async def acquire():
        transports = HostTransports(slurm=setup_for(own_slurm, nodes=1))
        try:
            with pytest.raises(AllocationError, match=r"no Slurm allocation for the scenario: Partition in DOWN "
                                                      r"state; job \d+ cancelled"):
                await transports.open_slurm()
        finally:
            await transports.close()

    asyncio.run(acquire())
    assert jobs(own_slurm) == ""


def test_a_job_pending_past_its_wait_is_cancelled(own_slurm):
    holder = subprocess.run(["salloc", "--no-shell", "--exclusive", "-N", "3"], capture_output=True, text=True,
                            env=own_slurm.client_env(), timeout=60)
    assert "Granted job allocation" in holder.stderr

    async def acquire():
        transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, wait_s=2, options=("--exclusive",)))
        try:
            with pytest.raises(AllocationError, match=r"job (\d+) was still pending after 2s \(slurm: wait\); "
                                                      r"job \1 cancelled"):
                await transports.open_slurm()
        finally:
            await transports.close()

    asyncio.run(acquire())
    assert len(jobs(own_slurm).splitlines()) == 1  # only the holder


async def _three_tasks(transports, programs):
    """Start one program per slot as one run; (the processes or start errors, each one's output or error)."""
    async def start():
        run_program.set(True)  # a run's own programs: the failure policy is theirs
        return await asyncio.gather(*(transports(f"node{i}").start(p) for i, p in enumerate(programs, 1)),
                                    return_exceptions=True)

    async def outcome(proc):
        if isinstance(proc, BaseException):
            return proc
        return await collect(proc)

    procs = await in_group("faults", start())
    return procs, await asyncio.gather(*(outcome(p) for p in procs), return_exceptions=True)


async def test_a_failed_task_cancels_its_step_under_cancel(own_slurm):
    transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, on_failure="cancel"))
    try:
        _procs, results = await _three_tasks(transports, [["sleep", "30"], ["sh", "-c", "sleep 0.5; exit 3"],
                                                          ["sleep", "30"]])
    finally:
        await transports.close()
    assert results[1] == (b"", b"", 3)
    for lost in (results[0], results[2]):
        assert isinstance(lost, ProcessLost)
        assert "cancelled with its job step: task 1 on n2 (node2) failed: Exited with exit code 3 (the " \
               "scenario's slurm on_failure is cancel)" in str(lost)


async def test_survivors_finish_under_continue(own_slurm):
    transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, on_failure="continue"))
    try:
        _procs, results = await _three_tasks(transports, [["sh", "-c", "sleep 1; echo a"], ["sh", "-c", "exit 3"],
                                                          ["sh", "-c", "sleep 1; echo c"]])
    finally:
        await transports.close()
    assert results == [(b"a\n", b"", 0), (b"", b"", 3), (b"c\n", b"", 0)]


async def test_a_lost_node_is_named_and_the_others_finish_under_continue(own_slurm):
    marker = f"gftpwb-lost-node-{os.getpid()}"
    transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, on_failure="continue"))
    try:
        programs = [["sh", "-c", f"sleep 3; echo survived; : {marker}"]] * 3
        task = asyncio.ensure_future(_three_tasks(transports, programs))
        await eventually_async(lambda: len(alive(f"^[^ ]*sh -c sleep 3; echo survived; : {marker}")) == 3,
                               "the tasks to start")
        subprocess.run(["scontrol", "update", "nodename=n2", "state=down", "reason=gftpwb-test"],
                       env=own_slurm.client_env(), check=True)
        _procs, results = await task
        # the next run: the lost node's start fails at once, the others run
        _procs, later = await _three_tasks(transports, [["echo", "a"], ["echo", "b"], ["echo", "c"]])
    finally:
        await transports.close()
    assert later[0] == (b"a\n", b"", 0) and later[2] == (b"c\n", b"", 0)
    assert isinstance(later[1], StartError) and str(later[1]).startswith(
        "node2 (node n2): the node failed earlier in this scenario run (srun: Node failure on n2); job ")
    assert results[0] == (b"survived\n", b"", 0) and results[2] == (b"survived\n", b"", 0)
    assert isinstance(results[1], ProcessLost)
    assert "node2 (node n2, task 1 of step" in str(results[1]) and "node n2 failed (srun: Node failure on n2)" in \
        str(results[1])
    await eventually_async(lambda: alive(marker) == [], "the tasks to end")


async def test_a_task_gftpwb_stops_does_not_cancel_its_step(own_slurm):
    """A stop is not a failure: under cancel, the other tasks of the step go on (a gfapi worker that is
    not ready in time is stopped and dropped; the others still run)."""
    transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, on_failure="cancel"))
    try:
        async def start():
            run_program.set(True)
            return await asyncio.gather(transports("node1").start(["sleep", "300"]),
                                        transports("node2").start(["sh", "-c", "sleep 2; echo b"]),
                                        transports("node3").start(["sh", "-c", "sleep 2; echo c"]))

        first, second, third = await in_group("stop-one", start())
        await first.stop(1.0)
        assert await first.wait() == 143
        assert await collect(second) == (b"b\n", b"", 0) and await collect(third) == (b"c\n", b"", 0)
    finally:
        await transports.close()


async def test_a_lost_node_cancels_the_step_under_cancel(own_slurm):
    marker = f"gftpwb-lost-cancel-{os.getpid()}"
    transports = HostTransports(slurm=setup_for(own_slurm, nodes=3, on_failure="cancel"))
    try:
        programs = [["sh", "-c", f"sleep 30; : {marker}"]] * 3
        task = asyncio.ensure_future(_three_tasks(transports, programs))
        await eventually_async(lambda: len(alive(f"^[^ ]*sh -c sleep 30; : {marker}")) == 3,
                               "the tasks to start")
        subprocess.run(["scontrol", "update", "nodename=n3", "state=down", "reason=gftpwb-test"],
                       env=own_slurm.client_env(), check=True)
        _procs, results = await task
    finally:
        await transports.close()
    assert all(isinstance(r, ProcessLost) for r in results)
    assert "node n3 failed (srun: Node failure on n3)" in str(results[2])
    for other in results[:2]:
        assert "cancelled with its job step: node n3 failed (srun: Node failure on n3; the scenario's slurm " \
               "on_failure is cancel)" in str(other)
    await eventually_async(lambda: alive(marker) == [], "the tasks to end")
