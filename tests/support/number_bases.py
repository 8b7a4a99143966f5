"""Valid scenarios that hold, between them, every place of the schema a number can go (a test of each
kind with each of its keys, every form of delay and baseline, the inventory, monitors, Slurm), for
tests/test_bounded_inputs.py to put huge, zero and negative numbers in. A key in a new place of the
schema that none of them holds fails that test, naming the place, until one here holds it."""

from __future__ import annotations

URL = "ftp://127.0.0.1:2811"
COMMAND = "{run: [echo, hi], timeout: 5s}"
BASES = [
    # the scenario's own keys, the inventory, monitors, and every defaults key a guc test takes
    f"""\
version: 1
name: bounds
seed: 1
loops: 1
concurrent_tests: 1
trace: {{level: io, every: 2}}
hosts:
  h1: {{address: 127.0.0.1, port: 22, connect_timeout: 5}}
monitors:
  - {{id: m, type: tcp, on: local, interval: 1, control_ports: [2811]}}
defaults:
  source: {URL}/dev/zero
  target: {URL}/dev/null
  options: {{length: 1M, parallel: 2, concurrency: 1, block_size: 1M, tcp_buffer: 1M, offset: 0, sync_level: 1}}
  baseline: {{port: 5201, duration: 1, omit: 0, timeout: 10, bytes: 1M}}
  pre: {COMMAND}
  post: {COMMAND}
  comment_command: {COMMAND}
  concurrency: 1
  delay: 1
  repeat: 2
  warmup: 1
  order: random
  order_seed: 1
  timeout: 10
tests:
  - {{id: t, kind: guc}}
""",
    # the other forms of defaults' delay and baseline, and a simulated link
    f"""\
version: 1
name: bounds
defaults:
  source: {URL}/dev/zero
  target: {URL}/dev/null
  options: {{length: 1M}}
  delay: {{uniform: [0, 1]}}
  engine: simulated
  link: {{bandwidth: 100, rtt: 0.02, window: 1M, buffer_cap: 1M, setup: 0.1, per_stream: 0.01, contention: 0.01,
          noise: 0.1, outliers: 0.1, failures: 0.1, seed: 1, time_scale: 0}}
tests:
  - {{id: t, kind: guc}}
""",
    f"""\
version: 1
name: bounds
defaults: {{source: {URL}/dev/zero, target: {URL}/dev/null, options: {{length: 1M}}, delay: {{exponential: 1}}}}
tests:
  - {{id: t, kind: guc}}
""",
    # a Slurm block
    f"""\
version: 1
name: bounds
slurm: {{nodes: 1, on_failure: cancel, tasks_per_node: 1, time: 60, wait: 60, job: 12345}}
tests:
  - {{id: t, kind: guc, source: {URL}/dev/zero, target: {URL}/dev/null, options: {{length: 1M}}}}
""",
]


def test(kind_and_keys: str) -> str:
    return f"version: 1\nname: bounds\ntests:\n  - {kind_and_keys}\n"


GUC = f"source: {URL}/dev/zero, target: {URL}/dev/null"
BASES += [
    test(f"""{{id: t, kind: guc, {GUC}, options: {{length: 1M}}, repeat: 2, warmup: 1, order: random, order_seed: 1,
      concurrency: 1, delay: 1, timeout: 10, trace: {{level: io, every: 2}}, pre: {COMMAND}, post: {COMMAND},
      comment_command: {COMMAND}, engine: simulated, link: {{bandwidth: 100, rtt: 0.02, window: 1M, buffer_cap: 1M,
      setup: 0.1, per_stream: 0.01, contention: 0.01, noise: 0.1, outliers: 0.1, failures: 0.1, seed: 1,
      time_scale: 0}},
      matrix: {{parallel: [1], concurrency: [1], sync_level: [1], length: [1M], tcp_buffer: [1M], block_size: [1M],
      offset: [0]}}}}"""),
    test(f"""{{id: t, kind: guc, source: /tmp/gftpwb-bounds-src/, target: {URL}/tmp/gftpwb-bounds-dst/,
      files: {{size: 1M, count: 2}}, delay: {{uniform: [0, 1]}}}}"""),
    test(f"""{{id: t, kind: guc, {GUC}, options: {{length: 1M}}, delay: {{exponential: 1}},
      baseline: {{port: 5201, duration: 1, omit: 0, timeout: 10, bytes: 1M}}}}"""),
    test(f"""{{id: t, kind: connection-test, {GUC}, repeat: 1, concurrency: 1, delay: 1, timeout: 10,
      trace: {{level: io, every: 2}}, pre: {COMMAND}, post: {COMMAND}, comment_command: {COMMAND}}}"""),
    test(f"""{{id: t, kind: connection-test, {GUC}, delay: {{uniform: [0, 1]}}}}"""),
    test(f"""{{id: t, kind: connection-test, {GUC}, delay: {{exponential: 1}}}}"""),
    test(f"""{{id: t, kind: autotune, {GUC}, strategy: exhaustive, repetitions: 2, length: 1M, timeout: 10, margin: 20,
      concurrency: 1, delay: 1, trace: {{level: io, every: 2}},
      engine: simulated, link: {{bandwidth: 100, rtt: 0.02, window: 1M, buffer_cap: 1M, setup: 0.1, per_stream: 0.01,
      contention: 0.01, noise: 0.1, outliers: 0.1, failures: 0.1, seed: 1, time_scale: 0}},
      candidates: {{parallel: [1, 2], tcp_buffer: [1M], block_size: [1M], concurrency: [1]}}}}"""),
    test(f"""{{id: t, kind: autotune, {GUC}, strategy: adaptive, budget: 10, warm_start: {{campaigns: 2}},
      delay: {{uniform: [0, 1]}},
      candidates: [{{parallel: 1, tcp_buffer: 1M, block_size: 1M, concurrency: 1}}, {{}}]}}"""),
    test(f"""{{id: t, kind: autotune, {GUC}, delay: {{exponential: 1}}}}"""),
]
DELAYS = ("delay: 1", "delay: {uniform: [0, 1]}", "delay: {exponential: 1}")
COMMON = f"concurrency: 1, timeout: 10, trace: {{level: io, every: 2}}, pre: {COMMAND}, post: {COMMAND}, " \
         f"comment_command: {COMMAND}"
GFAPI_COMMON = "concurrency: 1, timeout: 10, trace: {level: io, every: 2}"
REPEATS = "repeat: 2, warmup: 1, order: random, order_seed: 1"
BASELINE = "baseline: {port: 5201, duration: 1, omit: 0, timeout: 10, bytes: 1M}"
for delay in DELAYS:
    BASES.append(test(f"""{{id: t, kind: iperf3, server: local, {delay}, {COMMON}, repeat: 2, port: 5201, streams: 2,
      window: 1M, bandwidth: 100, duration: 1, omit: 0, rtt: 0.02,
      matrix: {{streams: [1], window: [1M], bandwidth: [100], duration: [1], omit: [0]}}}}"""))
    BASES.append(test(f"""{{id: t, kind: iperf3, server: local, {delay}, bytes: 1M, matrix: {{bytes: [1M]}}}}"""))
    BASES.append(test(f"""{{id: t, kind: gfapi, directory: /tmp/gftpwb-bounds, {delay}, {GFAPI_COMMON}, {REPEATS},
      threads: 1, processes: 1, files: 1, file_size: 1M, record_size: 1M, files_per_dir: 10, dirs_per_dir: 10,
      io_requests: 0, read_pct: 50, trace_level: 0, seed: 1, start_lead: 0.1, ready_timeout: 10,
      matrix: {{threads: [1], processes: [1], files: [1], file_size: [1M], record_size: [1M], files_per_dir: [10],
      dirs_per_dir: [10], io_requests: [0], read_pct: [50]}}}}"""))
    BASES.append(test(f"""{{id: t, kind: gfapi, volume: {{name: v, server: 127.0.0.1, port: 24007}}, {delay}}}"""))
    for kind, url, options in (("xrootd", "root://127.0.0.1:1094", "{streams: 2, parallel: 1, parallel_chunks: 1, "
                                "chunk_size: 1M, rate_limit: 1M}"),
                               ("http", "http://127.0.0.1:8094", "{streams: 2, tcp_buffer: 1M}")):
        matrix = "{" + ", ".join(f"{o.split(':')[0].strip()}: [{o.split(':')[1].strip()}]"
                                 for o in options.strip("{}").split(", ")) + "}"
        BASES.append(test(f"""{{id: t, kind: {kind}, source: {url}//tmp/a, target: /tmp/gftpwb-bounds-b, length: 1M,
      {delay}, {COMMON}, {REPEATS}, {BASELINE}, options: {options}, matrix: {matrix}}}"""))
        BASES.append(test(f"""{{id: t, kind: {kind}, source: /tmp/gftpwb-bounds-src/, target: {url}//tmp/gftpwb-b/,
      files: {{size: 1M, count: 2}}, {delay}}}"""))
    BASES.append(test(f"""{{id: t, kind: autotune, transfers: xrootd, source: /tmp/a, target: root://127.0.0.1:1094//tmp/b,
      memory_to_memory: false, length: 1M, {delay}, candidates: {{streams: [1, 2], parallel: [1], parallel_chunks: [1],
      chunk_size: [1M]}}}}"""))
    BASES.append(test("""{id: t, kind: autotune, transfers: xrootd, source: /tmp/a, target: root://127.0.0.1:1094//tmp/b,
      memory_to_memory: false, length: 1M,
      candidates: [{streams: 1, parallel: 1, parallel_chunks: 1, chunk_size: 1M}]}"""))
    BASES.append(test("""{id: t, kind: autotune, transfers: http, source: /tmp/a, target: http://127.0.0.1:8094//tmp/b,
      memory_to_memory: false, length: 1M, candidates: {streams: [1, 2], tcp_buffer: [1M]}}"""))
    BASES.append(test("""{id: t, kind: autotune, transfers: http, source: /tmp/a, target: http://127.0.0.1:8094//tmp/b,
      memory_to_memory: false, length: 1M, candidates: [{streams: 1, tcp_buffer: 1M}]}"""))


def number_keys(schema: dict) -> list[tuple[tuple, str | None, dict]]:
    """Every place of ``schema`` a whole number can go: (its path in a scenario, ``"*"`` for any key of a
    mapping and 0 for a list's items; the kind of the test it is in, None outside tests; its schema)."""
    defs = schema.get("definitions", {})
    out: list[tuple[tuple, str | None, dict]] = []

    def walk(node: object, path: tuple, kind: str | None, refs: frozenset) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in refs:
                walk(defs[name], path, kind, refs | {name})
            return
        types = node.get("type", [])
        types = types if isinstance(types, list) else [types]
        if "integer" in types or "number" in types:
            out.append((path, kind, node))
        for key, sub in node.get("properties", {}).items():
            walk(sub, (*path, key), kind, refs)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], (*path, "*"), kind, refs)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*path, 0), kind, refs)
        for word in ("anyOf", "oneOf"):
            for sub in node.get(word, []):
                walk(sub, path, kind, refs)
        for sub in node.get("allOf", []):
            const = sub.get("if", {}).get("properties", {}).get("kind", {}).get("const")
            walk(sub.get("then", sub), path, const or kind, refs)

    walk(schema, (), None, frozenset())
    return out
