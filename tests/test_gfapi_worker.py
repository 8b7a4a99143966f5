"""The real C worker in POSIX mode on a local directory: workloads, layout, protocol, start and stop."""

import random
import subprocess
import time

import pytest
from support.gfapi_helpers import files_under, run_worker, worker_binary

from gftpwb.kinds.gfapi.latency import bucket_of
from gftpwb.kinds.gfapi.protocol import End, Fatal, Hello, HistogramDelta, Sample, Text, ThreadDone, ThreadStarted

pytestmark = pytest.mark.real


def common(tmp_path, workload: str, **extra) -> list[str]:
    args = {"dir": str(tmp_path / "data" / "local"), "threads": 2, "workload": workload, "files": 250,
            "file-size": 8192, "record-size": 4096, "files-per-dir": 10, "dirs-per-dir": 5, "interval-ms": 50}
    args.update(extra)
    return [x for k, v in args.items() for x in ((f"--{k}",) if v == "" else (f"--{k}", str(v)))]


def done(messages) -> dict[int, ThreadDone]:
    return {m.thread: m for m in messages if isinstance(m, ThreadDone)}


def latency_counts(messages) -> dict[tuple[int, str], int]:
    counts: dict[tuple[int, str], int] = {}
    for m in messages:
        if isinstance(m, HistogramDelta):
            counts[(m.thread, m.op)] = counts.get((m.thread, m.op), 0) + m.count
            assert m.count == sum(m.buckets.values())
    return counts


def test_version_and_buckets_match_the_python_mapping():
    out = subprocess.run([worker_binary(), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == "gftpwb-gfapi-worker 1 gfapi\n"
    rng = random.Random(5)
    values = [0, 1, 15, 16, 17, 31, 32, 33, 1023, 1024, 1 << 40, (1 << 41) - 1, 1 << 41, 1 << 60,
              *(rng.randrange(1 << rng.randrange(1, 62)) for _ in range(2000))]
    out = subprocess.run([worker_binary(), "--bucket-of"], input="".join(f"{v}\n" for v in values),
                         capture_output=True, text=True, check=True)
    assert [int(x) for x in out.stdout.split()] == [bucket_of(v) for v in values]


def test_seq_wr_seq_rd_random_mix_and_unlink_on_a_directory_tree(tmp_path):
    code, messages = run_worker(common(tmp_path, "seq-wr"))
    assert code == 0, messages
    assert messages[0] == Hello(1, messages[0].pid, 2, "posix", "seq-wr", 0)
    assert isinstance(messages[-1], End) and messages[-1].exit_code == 0
    assert {t: (d.status, d.files, d.ios, d.bytes) for t, d in done(messages).items()} == {
        0: ("ok", 250, 500, 250 * 8192), 1: ("ok", 250, 500, 250 * 8192)}
    counts = latency_counts(messages)
    assert counts[(0, "open")] == counts[(0, "close")] == counts[(0, "file")] == 250 and counts[(0, "write")] == 500
    # 250 files, 10 per leaf -> 25 leaves; 5 subdirectories per directory -> two levels (d0/d0 .. d4/d4).
    tree = files_under(tmp_path / "data" / "local")
    assert len(tree) == 500 and set(tree.values()) == {8192}
    assert "t000/d0/d0/f0000000" in tree and "t001/d4/d4/f0000249" in tree and "t000/d2/d3/f0000134" in tree

    code, messages = run_worker(common(tmp_path, "seq-rd"))
    assert code == 0 and {d.bytes for d in done(messages).values()} == {250 * 8192}

    code, messages = run_worker(common(tmp_path, "rnd-rd", **{"io-requests": 1}))
    assert code == 0 and {(d.ios, d.bytes) for d in done(messages).values()} == {(250, 250 * 4096)}

    code, messages = run_worker(common(tmp_path, "rnd-wr", fsync=""))
    assert code == 0 and {(d.ios, d.bytes) for d in done(messages).values()} == {(500, 250 * 8192)}
    assert latency_counts(messages)[(1, "fsync")] == 250

    code, messages = run_worker(common(tmp_path, "rw-mix", **{"read-pct": 50}))
    counts = latency_counts(messages)
    assert code == 0 and counts[(0, "read")] + counts[(0, "write")] == 500 and counts[(0, "read")] > 0
    assert set(files_under(tmp_path / "data" / "local").values()) == {8192}

    code, messages = run_worker(common(tmp_path, "unlink"))
    assert code == 0 and {(d.files, d.bytes) for d in done(messages).values()} == {(250, 0)}
    assert latency_counts(messages)[(0, "unlink")] == 250
    assert files_under(tmp_path / "data") == {}


def test_seq_wr_again_replaces_the_files_of_an_earlier_run(tmp_path):
    assert run_worker(common(tmp_path, "seq-wr", files=20))[0] == 0
    code, messages = run_worker(common(tmp_path, "seq-wr", files=20))
    assert code == 0 and {d.files for d in done(messages).values()} == {20}


def test_direct_io_with_aligned_buffers(tmp_path):
    code, messages = run_worker(common(tmp_path, "seq-wr", files=20, direct="", **{"record-size": 4096}))
    assert code == 0, [m for m in messages if isinstance(m, Text)]
    code, messages = run_worker(common(tmp_path, "seq-rd", files=20, direct=""))
    assert code == 0 and {d.bytes for d in done(messages).values()} == {20 * 8192}


def test_reading_what_was_never_written_fails_before_the_start_with_a_hint(tmp_path):
    code, messages = run_worker(common(tmp_path, "seq-rd"))
    assert code == 1
    errors = [m for m in messages if type(m).__name__ == "ThreadError"]
    assert len(errors) == 2 and "No such file or directory (run seq-wr with the same layout first)" in errors[0].message
    assert not any(isinstance(m, ThreadStarted) for m in messages)


def test_threads_start_at_the_given_instant_not_before(tmp_path):
    target = time.time_ns() + 300_000_000
    code, messages = run_worker(common(tmp_path, "seq-wr", files=5, threads=4), f"start {target}\n")
    starts = [m.start_unix_ns for m in messages if isinstance(m, ThreadStarted)]
    assert code == 0 and len(starts) == 4 and min(starts) >= target


def test_no_start_signal_and_stop_before_start(tmp_path):
    code, messages = run_worker(common(tmp_path, "seq-wr"), "", close_stdin=True)
    assert code == 4 and isinstance(messages[-1], End) and messages[-1].exit_code == 4
    assert {d.status for d in done(messages).values()} == {"stopped"}
    code, _messages = run_worker(common(tmp_path, "seq-wr"), "stop\n")
    assert code == 5


def test_stop_mid_run_reports_partial_work(tmp_path):
    proc = subprocess.Popen([worker_binary(), *common(tmp_path, "seq-wr", files=200000, **{"files-per-dir": 1000})],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    while not proc.stdout.readline().startswith(b"ready"):
        pass
    proc.stdin.write(b"start 0\n")
    proc.stdin.flush()
    busy: set[bytes] = set()
    while len(busy) < 2:  # both threads have finished files
        fields = proc.stdout.readline().split()
        if fields[:1] == [b"p"] and int(fields[3]) > 0:
            busy.add(fields[1])
    proc.stdin.write(b"snap\nstop\n")
    proc.stdin.flush()
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 5
    from gftpwb.kinds.gfapi.protocol import WorkerStream

    messages = WorkerStream().feed("stdout", rest)
    finals = done(messages)
    assert {d.status for d in finals.values()} == {"stopped"}
    assert all(0 < d.files < 200000 for d in finals.values())
    last = {m.thread: m for m in messages if isinstance(m, Sample)}
    assert all(last[t].files == finals[t].files for t in finals)


def test_usage_errors_are_one_fatal_line(tmp_path):
    code, messages = run_worker(["--dir", str(tmp_path), "--workload", "seq-write"])
    assert code == 2 and messages == [Fatal(2, "--workload: unknown workload 'seq-write' (seq-wr, seq-rd, rnd-wr, "
                                               "rnd-rd, unlink, rw-mix)")]
    code, messages = run_worker(["--dir", str(tmp_path), "--file-size", "8192", "--record-size", "4096",
                                 "--io-requests", "3"])
    assert code == 2 and "exceeds the 2 records" in messages[0].message


def test_io_trace_keeps_a_64_mib_write_whole_in_a_wide_event(tmp_path):
    """The worker's 16-byte events hold up to 2**26 - 1 bytes; a 64 MiB write takes a second slot with the
    full count (nothing truncated), the 64 MiB - 1 write after it one slot, and the block header counts
    slots and events."""
    from gftpwb.core.trace.iofmt import BLOCK, BLOCK_MARKER, BLOCK_SIZE, EVENT_SIZE, HEADER_SIZE, decode

    trace = tmp_path / "t.bin"
    size = 2**27 - 1  # records of 64 MiB: one of 2**26 bytes, one of 2**26 - 1
    code, messages = run_worker(common(tmp_path, "seq-wr", threads=1, files=1, **{
        "file-size": size, "record-size": 2**26, "io-trace": trace}))
    assert code == 0, messages
    data = trace.read_bytes()
    header, events = decode(data)
    assert header.version == 2
    assert [(e.op_name, e.bytes) for e in events] == [("open", 0), ("write", 2**26), ("write", 2**26 - 1),
                                                      ("close", 0)]
    assert all(e.thread == 0 and e.duration_ns > 0 and not e.flags for e in events)
    assert BLOCK.unpack_from(data, HEADER_SIZE) == (BLOCK_MARKER, 0, 5, 4)
    assert len(data) == HEADER_SIZE + BLOCK_SIZE + 5 * EVENT_SIZE
