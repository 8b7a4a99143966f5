"""The auto-tune varies the parameters any kind declares tunable (its tuning facet): xrdcp's and
gfal-copy's as guc's, with the same strategies, tie rule and margin; every mistake at file:line:col."""

import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.registry import registry
from gftpwb.core.units import MIB
from gftpwb.kinds.autotune.candidates import make_candidates
from gftpwb.kinds.autotune.caps import duplicates
from gftpwb.kinds.autotune.plan import TuneSettings, describe, transfer_spec

ROOT = "root://127.0.0.1:1094/"


def load(body: str):
    return load_scenario_text("version: 1\nname: s\ntests:\n" + textwrap.dedent(body), "s.yaml")


def errors_of(body: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(body)
    return [str(d) for d in info.value.diagnostics]


def test_each_tunable_kind_declares_what_may_vary():
    declared = {k.name: [t.name for t in k.tuning.parameters] for k in registry().kinds() if k.tuning.parameters}
    assert declared == {
        "guc": ["parallel", "tcp_buffer", "block_size", "concurrency", "pipeline", "fast"],
        "xrootd": ["streams", "parallel", "chunk_size", "parallel_chunks", "page_checksums"],
        "http": ["streams", "tcp_buffer", "just_copy"],
    }


def test_an_xrootd_tune_tries_its_declared_values_and_runs_xrdcp():
    (test,) = load(f"""\
      - id: xt
        kind: autotune
        transfers: xrootd
        source: /dev/shm/tune/src.bin
        target: {ROOT}/dev/shm/tune/dst.bin
        length: 64M
        strategy: adaptive
        budget: 30
    """).tests
    assert test.transfers == "xrootd" and not test.memory_to_memory and test.candidate_set == "default"
    assert len(test.candidates) == 12 and test.candidates[0] == {"streams": 1, "chunk_size": MIB}
    (spec,) = plan(load_scenario_text(
        "version: 1\nname: s\ntests:\n" + textwrap.dedent(f"""\
          - id: xt
            kind: autotune
            transfers: xrootd
            source: /dev/shm/tune/src.bin
            target: {ROOT}/dev/shm/tune/dst.bin
            length: 64M
            candidates: {{streams: [2, 4], page_checksums: [false]}}
            repetitions: 2
        """), "s.yaml"))
    settings = TuneSettings.of(spec)
    assert [c.label for c in settings.candidates] == ["streams=2 page_checksums=false",
                                                      "streams=4 page_checksums=false"]
    transfer = transfer_spec(spec, settings.candidates[1], 1, settings.length)
    assert transfer.kind == "xrootd" and transfer.run_id == "xt#2/1" and transfer.length_bytes == 64 * MIB
    assert transfer.argv == ("env", "XRD_CPUSEPGWRTRD=0", "xrdcp", "-f", "-S", "4", "/dev/shm/tune/src.bin",
                             f"{ROOT}/dev/shm/tune/dst.bin")
    assert transfer.details == {"mode": "upload", "live_progress": True}
    assert "xrootd copies of 64M" in describe(spec)[0]
    kind = registry().kind("autotune")
    assert [p.name for p in kind.planner.programs(spec)] == ["xrdcp", "/usr/bin/python3"]
    assert kind.planner.endpoints(spec) == ("root://127.0.0.1:1094/",)


def test_an_http_tune_and_its_kernel_capped_buffers():
    (spec,) = plan(load("""\
      - id: ht
        kind: autotune
        transfers: http
        source: http://h1:8094/dev/shm/a.bin
        target: http://h2:8094/dev/shm/b.bin
        length: 1G
        candidates: [{streams: 4, copy_mode: pull}]
    """.replace(", copy_mode: pull", "")))
    settings = TuneSettings.of(spec)
    assert settings.candidates[0].label == "streams=4"
    assert transfer_spec(spec, settings.candidates[0], 0, settings.length).details["mode"] == "third-party"
    tuning = registry().kind("http").tuning
    candidates = make_candidates([{"tcp_buffer": 4 * MIB}, {"tcp_buffer": 8 * MIB}],
                                 label=lambda params, extra: tuning.candidate_label(spec.source, spec.target, params,
                                                                                    settings.length, extra))
    assert [c.label for c in candidates] == ["tcp_buffer=4M", "tcp_buffer=8M"]
    assert duplicates(candidates, 4 * MIB, ["tcp_buffer"]) == {2: 1}


def test_guc_tunes_are_planned_as_before():
    (spec,) = plan(load("  - {id: t, kind: autotune, source: ftp://h/a, target: ftp://h/b}\n"))
    assert "transfers" not in spec.params and len(spec.params["candidates"]) == 37
    settings = TuneSettings.of(spec)
    transfer = transfer_spec(spec, settings.candidates[8], 0, settings.length)
    assert transfer.kind == "guc" and transfer.argv[:5] == ("globus-url-copy", "-vb", "-p", "1", "-tcp-bs")
    assert settings.candidates[8].label == "-vb -p 1 -tcp-bs 2M"


def test_mistakes_in_a_tune_of_another_kind():
    errs = errors_of(f"""\
      - id: a
        kind: autotune
        transfers: iperf3
        source: /x
        target: {ROOT}/y
      - id: b
        kind: autotune
        transfers: xrootd
        source: /dev/shm/x
        target: {ROOT}/dev/shm/y
        memory_to_memory: true
        engine: simulated
      - id: c
        kind: autotune
        transfers: xrootd
        source: /dev/shm/x
        target: {ROOT}/dev/shm/y
        length: 1G
        candidates: tgftp-37
      - id: d
        kind: autotune
        transfers: xrootd
        source: /dev/shm/x
        target: {ROOT}/dev/shm/y
        length: 1G
        candidates: {{streams: [4, 16], tcp_buffer: [1M]}}
      - id: e
        kind: autotune
        transfers: http
        source: /dev/shm/x
        target: http://h:8094/dev/shm/y
        length: 1G
        candidates: [{{streams: 2}}, {{streams: 2}}]
    """)
    assert errs == [
        "s.yaml:6:14: transfers: iperf3 is no kind an auto-tune can vary (kinds that declare tunable parameters: "
        "guc, xrootd, http)",
        "s.yaml:9:3: an auto-tune of xrootd transfers copies its source file whole: give its size in length (the "
        "rates need it)",
        "s.yaml:14:21: memory_to_memory: xrootd transfers cannot read /dev/zero nor write /dev/null on the "
        "servers; set memory_to_memory: false and a source file on tmpfs (/dev/shm)",
        "s.yaml:15:11: engine: simulated does not carry out xrootd transfers; an auto-tune of xrootd transfers "
        "runs them for real",
        "s.yaml:22:15: candidates: tgftp-37 are guc configurations; an auto-tune of xrootd transfers takes a grid "
        "or a list of its options",
        "s.yaml:29:29: candidates: streams: 16 is greater than the maximum of 15",
        "s.yaml:29:34: candidates: tcp_buffer is no option an auto-tune of xrootd transfers may vary (streams, "
        "parallel, chunk_size, parallel_chunks, page_checksums)",
        "s.yaml:36:3: candidate 2 repeats candidate 1 (streams=2)",
    ]


@pytest.mark.parametrize(("target", "first"), [("ftp://h/b", "(no options)"), ("file:///tmp/b", "-vb")])
def test_a_candidates_label_is_the_command_its_transfers_run(target, first):
    """tgftp's first candidate is ``-vb``; between two servers the mode rule runs it without -vb (stream
    mode), with a file end with it: the label says which, for each of the 37, and --dry-run agrees."""
    from gftpwb.kinds.guc.tuning import args_line

    (spec,) = plan(load(f"  - {{id: t, kind: autotune, source: ftp://h/a, target: {target}}}\n"))
    settings = TuneSettings.of(spec)
    ran = [args_line(transfer_spec(spec, c, 0, settings.length).argv) for c in settings.candidates]
    assert [c.label for c in settings.candidates] == [line or "(no options)" for line in ran]
    assert settings.candidates[0].label == first and settings.candidates[1].label == "-vb -p 1"
    assert describe(spec)[1].startswith("  #1: globus-url-copy " + ("-len" if first != "-vb" else "-vb -len"))
