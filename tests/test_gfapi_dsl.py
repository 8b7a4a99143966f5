"""kind: gfapi in the DSL: loading, checks at file:line:col, planning, and the worker argv."""

import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan, plan_fingerprint
from gftpwb.kinds.gfapi.job import GfapiJob, worker_args
from gftpwb.kinds.gfapi.model import GfapiTest

HEAD = "version: 1\nname: g\ndefaults: {timeout: 1m, repeat: 2, source: ftp://h/x}\ntests:\n"


def load(tests: str):
    return load_scenario_text(HEAD + textwrap.dedent(tests), "g.yaml")


def errors_of(tests: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(tests)
    return [str(d) for d in info.value.diagnostics]


def test_a_gfapi_test_loads_with_defaults_and_sizes():
    s = load("""\
      - id: w
        kind: gfapi
        volume: {name: gv0, server: 10.0.0.1}
        workload: seq-wr
        threads: 8
        files: 500
        file_size: 1M
        record_size: 64k
    """)
    (t,) = s.tests
    assert isinstance(t, GfapiTest) and t.mode == "gfapi"
    assert (t.volume.name, t.volume.server, t.volume.port, t.volume.transport) == ("gv0", "10.0.0.1", 24007, "tcp")
    assert t.directory == "/gftpwb" and t.file_size == 1 << 20 and t.record_size == 64 << 10
    assert (t.threads, t.processes, t.files, t.files_per_dir) == (8, 1, 500, 1000)
    assert t.timeout_s == 60 and t.repeat == 2  # inherited; the guc default `source` is not


def test_posix_mode_needs_a_directory():
    errs = errors_of("""\
      - id: p
        kind: gfapi
        threads: 2
    """)
    assert errs == ["g.yaml:5:3: test 'p' needs volume: (libgfapi) or directory: (POSIX mode on a mounted file system)"]


def test_layout_errors_point_at_the_key_even_inside_a_matrix():
    errs = errors_of("""\
      - id: r
        kind: gfapi
        volume: {name: v, server: s}
        workload: rnd-rd
        record_size: 4K
        io_requests: 8
        matrix: {file_size: [64K, 10000]}
        direct: true
    """)
    assert errs == [
        "g.yaml:10:16: test 'r': io_requests 8 exceeds the 3 records of a 10000-byte file with 4096-byte records",
        "g.yaml:11:23: test 'r': rnd-rd needs file_size (10000) to be a multiple of record_size (4096)",
        "g.yaml:12:11: test 'r': direct (O_DIRECT) needs file_size and record_size in multiples of 4096 bytes, "
        "got 10000 and 4096",
    ]


def test_io_requests_larger_than_a_file_and_a_relative_volume_directory():
    errs = errors_of("""\
      - id: r
        kind: gfapi
        volume: {name: v, server: s}
        directory: data
        workload: rnd-wr
        file_size: 16K
        record_size: 4K
        io_requests: 5
    """)
    assert errs == [
        "g.yaml:8:14: test 'r': directory must be an absolute path inside the volume, e.g. /gftpwb, got 'data'",
        "g.yaml:12:16: test 'r': io_requests 5 exceeds the 4 records of a 16384-byte file with 4096-byte records",
    ]


def test_warnings_for_settings_that_do_nothing_and_an_oversized_record():
    s = load("""\
      - id: w
        kind: gfapi
        directory: /tmp/x
        file_size: 4K
        read_pct: 30
    """)
    assert [str(w) for w in s.warnings] == [
        "g.yaml:5:3: warning: test 'w': record_size 65536 is larger than file_size 4096: each file is written or "
        "read in one 4096-byte request",
        "g.yaml:9:13: warning: test 'w': read_pct only matters for workload rw-mix",
    ]
    (spec,) = plan(s)[:1]
    assert spec.params["record_size"] == 4096  # clamped, as the warning says


def test_schema_rejects_unknown_workload_and_bad_volume():
    errs = errors_of("""\
      - id: w
        kind: gfapi
        volume: {name: v}
        workload: seq-write
        dirs_per_dir: 1
    """)
    assert "g.yaml:7:11: tests[0].volume: missing required key 'server'" in errs
    assert ("g.yaml:8:13: tests[0].workload: 'seq-write' is not one of: seq-wr, seq-rd, rnd-wr, rnd-rd, unlink, "
            "rw-mix; did you mean 'seq-wr'?") in errs
    assert "g.yaml:9:17: tests[0].dirs_per_dir: must be at least 2, got 1" in errs


def test_planning_a_matrix_and_the_worker_argv():
    s = load("""\
      - id: sweep
        kind: gfapi
        volume: {name: gv0, server: 10.0.0.1, port: 24008}
        workload: rw-mix
        read_pct: 70
        files: 10
        file_size: 64K
        record_size: 16K
        repeat: 1
        matrix: {threads: [1, 4], processes: [1, 2]}
    """)
    specs = plan(s)
    assert [s.run_id for s in specs] == ["sweep[0]/0", "sweep[1]/0", "sweep[2]/0", "sweep[3]/0"]
    assert [(s.params["threads"], s.params["processes"]) for s in specs] == [(1, 1), (1, 2), (4, 1), (4, 2)]
    job = GfapiJob.from_params(specs[3].params)
    assert job.total_threads == 8 and job.total_bytes == 8 * 10 * 64 * 1024
    assert specs[3].length_bytes == job.total_bytes and specs[3].target == "gfapi://10.0.0.1:24008/gv0/gftpwb"
    argv = worker_args(job, "/cache/gfapi-worker", "c1", 1)
    assert argv[:10] == ["/cache/gfapi-worker", "--gfapi", "--volume", "gv0", "--server", "10.0.0.1",
                         "--transport", "tcp", "--port", "24008"]
    assert argv[argv.index("--dir") + 1] == "/gftpwb/c1"
    assert argv[argv.index("--thread-base") + 1] == "4"  # process 1 of 4 threads: threads 4..7 on this host
    assert argv[argv.index("--read-pct") + 1] == "70" and "--io-requests" not in argv
    assert specs[0].argv[0] == "gfapi-worker"


def test_changing_the_start_lead_changes_the_resume_fingerprint():
    base = """\
      - id: w
        kind: gfapi
        directory: /tmp/x
    """
    a = plan(load(base))
    b = plan(load(base + "    start_lead: 1s\n"))
    assert a[0].argv == b[0].argv and plan_fingerprint(a) != plan_fingerprint(b)
