"""The controller's run tracker: states, failures that stay local, first done, offsets, events."""

from gftpwb.core.events import OutputLine, WorkerProgress
from gftpwb.kinds.gfapi.job import GfapiJob
from gftpwb.kinds.gfapi.protocol import WorkerStream
from gftpwb.kinds.gfapi.tracker import GfapiRun, describe_exit


def job(**changes) -> GfapiJob:
    values = dict(mode="posix", directory="/d", hosts=("c1", "c2"), workload="seq-wr", threads=2, processes=1,
                  files=10, file_size=4096, record_size=4096, files_per_dir=1000, dirs_per_dir=1000, io_requests=0,
                  read_pct=50, direct=False, fsync=False, trace_level=4, seed=1, start_lead_s=0.1,
                  ready_timeout_s=5)
    values.update(changes)
    return GfapiJob(**values)


def feed(run: GfapiRun, host: str, process: int, text: str) -> list:
    events = []
    for message in WorkerStream().feed("stdout", text.encode()):
        events.extend(run.feed(host, process, message))
    return events


def test_a_killed_worker_fails_only_its_threads_and_says_how():
    run = GfapiRun(job(), "r/0", {"c2": 5_000_000})
    assert [e.state for e in run.initial_events()] == ["preparing"] * 4
    feed(run, "c1", 0, "hello 1 11 2 posix seq-wr 0\nr 0 -1\nr 1 -1\nready 2\n")
    feed(run, "c2", 0, "hello 1 22 2 posix seq-wr 0\nr 0 -1\nr 1 -1\nready 2\n")
    assert run.all_settled() and len(run.startable()) == 2
    events = feed(run, "c1", 0, "s 0 1000000000\ns 1 1000000100\np 0 5 1 1 4096\nd 0 ok 9 10 10 40960\n"
                                "d 1 ok 9 10 10 40960\nend 0\n")
    assert isinstance(events[-1], WorkerProgress) and events[-1].state == "done"
    assert run.take_first_done() and not run.take_first_done()
    feed(run, "c2", 0, "s 0 1005000050\np 0 5 3 3 12288\n")
    events = run.process_exited("c2", 0, -9)
    assert [(e.host, e.thread, e.state) for e in events] == [("c2", 0, "failed"), ("c2", 1, "failed")]
    assert events[0].error == "c2 p0: worker (pid 22) was killed by SIGKILL before its threads finished"
    assert run.problems() == ["c2 p0: worker (pid 22) was killed by SIGKILL before its threads finished"]
    results = {(r.host, r.thread): r for r in run.results()}
    assert results[("c2", 0)].status == "failed" and results[("c2", 0)].files == 3
    assert results[("c2", 1)].status == "not-started"  # it never reported a start
    assert results[("c2", 0)].start_ns == 1_000_000_050  # host clock minus its offset
    assert results[("c1", 0)].status == "ok" and results[("c1", 0)].files == 10
    assert run.totals() == (23, 23, 94208)


def test_fatal_preparation_error_and_stderr():
    run = GfapiRun(job(hosts=("local",)), "r/0")
    events = feed(run, "local", 0, "hello 1 7 2 gfapi seq-wr 0\nfatal 3 cannot connect to volume 'nosuch'\n")
    assert all(e.state == "failed" for e in events if isinstance(e, WorkerProgress))
    assert run.problems() == ["local p0: cannot connect to volume 'nosuch'"]
    events = run.feed("local", 0, WorkerStream().feed("stderr", b"E [glfs-mgmt.c:586] failed to get the volume\n")[0])
    assert events == [OutputLine(run_id="r/0", stream="stderr", text="[local p0] E [glfs-mgmt.c:586] failed to get the "
                                                                     "volume", t=events[0].t)]
    assert run.process_exited("local", 0, 3) == []
    assert "fatal: cannot connect" in run.output_text()


def test_thread_errors_and_stops_are_kept_per_thread():
    run = GfapiRun(job(hosts=("local",)), "r/0")
    feed(run, "local", 0, "hello 1 7 2 posix seq-rd 0\nr 1 4096\nready 1\n"
                          "e 0 2 prepare /d/local/t000: No such file or directory (run seq-wr first)\n"
                          "d 0 failed 0 0 0 0\ns 1 5\np 1 10 1 1 4096\nd 1 stopped 20 1 1 4096\nend 5\n")
    run.process_exited("local", 0, 5)
    assert run.problems() == ["local p0 thread 0: /d/local/t000: No such file or directory (run seq-wr first)",
                              "local p0 thread 1: stopped before finishing"]
    assert {r.thread: r.status for r in run.results()} == {0: "failed", 1: "stopped"}


def test_exit_descriptions():
    assert describe_exit(0) == "exited with status 0 (all threads finished)"
    assert describe_exit(-15) == "was killed by SIGTERM"
    assert describe_exit(None) == "ended without an exit status"
