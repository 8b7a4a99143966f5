"""The ``guc`` kind's language and planning (its DSL and planner facets, imported when a scenario has a
guc test: :mod:`.kind` names them) and the helpers connection tests and auto-tunes share with it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.commands import command_of
from gftpwb.core.dsl.repeats import REPEAT_KEYS, SEQUENTIAL, check_repeats
from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import (
    Dsl,
    HostCheck,
    Planner,
    Program,
    TestInput,
)
from gftpwb.core.scenario.keys import COMMAND_KEYS, LOG_FILENAME_KEY, Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel, on_tuple
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import parse_duration
from gftpwb.kinds.simulated.link import build_link

from .baseline import Baseline, BaselineError, build_baseline
from .driver import (
    EXTENDED,
    GUC,
    STREAM,
    VERBOSE_FLAGS,
    implies_extended,
    mode_of,
    option_args,
    server_endpoints,
    third_party,
)
from .files import build_files
from .keys import (
    BASELINE_KEY,
    EXACT_KEYS,
    MATRIX_KEY,
    MODE_KEY,
    STRIPE_KEY,
    definitions,
    files_key,
    shared_keys,
)
from .model import GucOptions, Test
from .plan import guc_shape, plan_transfers
from .urls import url_problem

if TYPE_CHECKING:
    from gftpwb.core.records import ResultRecord

GUC_PROGRAM = Program(GUC, "install the Debian package globus-gass-copy-progs (make demo does)")


def timeout_of(merged: dict[str, Any], default: float) -> float | None:
    """A test's timeout in seconds (``default`` when it sets none); None: no limit."""
    return (parse_duration(merged["timeout"]) if "timeout" in merged else default) or None


def check_ends(test: TestInput, *, guc_urls: bool = True) -> None:
    """A transfer needs a source and a target (from the test or the defaults), each (``guc_urls``: the
    transfers are guc's) a URL guc reads or a local path (:func:`check_urls`)."""
    for key in ("source", "target"):
        if not test.merged.get(key):
            test.error(f"test '{test.id}' has no {key} (set it on the test or in defaults)")
    if guc_urls:
        check_urls(test)


def check_urls(test: TestInput) -> None:
    """Each of the test's source and target that is text: a URL guc reads or a local path
    (:mod:`gftpwb.kinds.guc.urls`); a bad one is reported where it is written (a default's once,
    however many tests take it: the loader drops repeated diagnostics). Needs only the two values, so
    it also runs on a scenario that breaks the schema (:meth:`~gftpwb.core.registry.Dsl.check_values`)."""
    for key in ("source", "target"):
        value = test.merged.get(key)
        problem = url_problem(value) if isinstance(value, str) and value else None
        if problem is None:
            continue
        if key in test.raw:
            test.error(f"test '{test.id}' {key}: {problem}", key)
        else:
            line, col = test.pos.of_value(("defaults", key))
            test.errors.append(Diagnostic(test.filename, line, col, f"defaults.{key}: {problem}"))


def build_transfer_test(test: TestInput, default_timeout: float = 0.0, **own: Any) -> Test:
    """The model of a test that runs guc once per run (a guc or a connection test); ``own``: fields
    only one kind sets (a guc test's exact ``args``), given here rather than replaced afterwards
    (``dataclasses.replace`` of every test was a tenth of validating 20,000 of them)."""
    raw, merged = test.raw, test.merged
    return Test(
        id=raw["id"],
        kind=raw["kind"],
        description=raw.get("description", ""),
        source=merged["source"],
        target=merged["target"],
        options=GucOptions.from_mapping(merged.get("options", {})),
        extra_args=tuple(merged.get("extra_args", ())),
        repeat=merged.get("repeat", 1),
        warmup=merged.get("warmup", 0),
        order=merged.get("order", SEQUENTIAL),
        order_seed=merged.get("order_seed", 0),
        mode=merged.get("mode", ""),
        timeout_s=timeout_of(merged, default_timeout),
        comment=merged.get("comment", ""),
        matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
        pre=command_of(merged.get("pre")),
        post=command_of(merged.get("post")),
        comment_command=command_of(merged.get("comment_command")),
        log_filename=raw.get("log_filename", ""),
        on=on_tuple(merged.get("on", LOCAL)),
        engine=merged.get("engine", REAL_ENGINE),
        stripe=bool(merged.get("stripe", False)),
        baseline=baseline_of(test),
        files=files_of(test),
        link=build_link(merged.get("link")),
        index=test.index,
        **own,
    )


def baseline_of(test: TestInput) -> Baseline | None:
    """The test's iperf3 baseline, or None (checked first: :func:`check_baseline`)."""
    value = test.merged.get("baseline")
    if value is None:
        return None
    return build_baseline(value, source=str(test.merged.get("source", "")), target=str(test.merged.get("target", "")),
                          on=on_tuple(test.merged.get("on", LOCAL)), inventory=test.inventory, tests=test.tests)


def files_of(test: TestInput) -> Any:
    """The test's file set (``files:``), or None."""
    value = test.merged.get("files")
    if value is None:
        return None
    return build_files(value, source=str(test.merged.get("source", "")), target=str(test.merged.get("target", "")),
                       on=on_tuple(test.merged.get("on", LOCAL)), inventory=test.inventory)


def check_files(test: TestInput) -> None:
    """A files test needs directories on known hosts, and no -len (the files' size is the length)."""
    if test.merged.get("files") is None:
        return
    key = "files" if "files" in test.raw else None
    if test.merged.get("engine", REAL_ENGINE) != REAL_ENGINE:
        test.error(f"test '{test.id}': files: disk-to-disk runs are real; this test uses another engine", key)
        return
    if "length" in test.merged.get("options", {}) or "length" in test.raw.get("matrix", {}):
        test.error(f"test '{test.id}': files: the files' size is what moves; leave options.length (-len) out", key)
    if test.merged.get("baseline") is not None:
        test.error(f"test '{test.id}': files: a baseline is memory to memory; pair the test without files instead",
                   key)
    if int(test.merged.get("concurrency", 1) or 1) > 1:
        test.error(f"test '{test.id}': files: copies of a run (concurrency) would make, move and remove the same "
                   "files; run one copy", key)
    try:
        files_of(test)
    except ValueError as exc:
        test.error(f"test '{test.id}': {exc}", key)


def check_baseline(test: TestInput) -> None:
    """A baseline must find its hosts; a simulated or striped test has no path iperf3 could measure alike."""
    if test.merged.get("baseline") is None:
        return
    key = "baseline" if "baseline" in test.raw else None
    if test.merged.get("engine", REAL_ENGINE) != REAL_ENGINE:
        test.error(f"test '{test.id}': baseline: an iperf3 baseline measures a real path; this test uses another "
                   "engine", key)
        return
    if test.merged.get("stripe"):
        test.error(f"test '{test.id}': baseline: a striped transfer spreads over several host pairs; an iperf3 "
                   "baseline measures one (pair the unstriped test instead)", key)
        return
    try:
        baseline_of(test)
    except (BaselineError, ValueError) as exc:
        test.error(f"test '{test.id}': {exc}", key)


def transfer_endpoints(spec: RunSpec) -> tuple[str, ...]:
    """The (Grid)FTP servers of a real transfer (a simulated one talks to nobody)."""
    return server_endpoints(spec.source, spec.target) if spec.engine == REAL_ENGINE else ()


def transfer_facts(record: ResultRecord) -> dict[str, str | float | int | bool | None]:
    """A guc run's transfer mode, whether it had live progress (from the record, or for records
    written before gftpwb recorded them, from its command line) and where its size came from
    (``size_from``: -len, files, listing or progress; :mod:`gftpwb.kinds.guc.sizing`)."""
    details = record.details
    if not record.argv and "mode" not in details:
        return {}
    live = details.get("live_progress")
    size_from = details.get("size_from")
    return {"mode": details.get("mode") or mode_of(record.argv),
            "live_progress": live if isinstance(live, bool) else any(f in record.argv for f in VERBOSE_FLAGS),
            **({"size_from": size_from} if isinstance(size_from, str) else {})}


def check_mode(test: TestInput) -> None:
    """``mode`` must be one guc can give without other options changing behind the user's back, and
    a ``-vb`` of the test's own between two servers (which makes guc use MODE E) is worth a word."""
    merged = test.merged
    source, target = str(merged.get("source", "")), str(merged.get("target", ""))
    where = "args" if "args" in test.raw else "extra_args"  # exact args stand for options and extra_args
    extra = [str(a) for a in (test.raw["args"] if "args" in test.raw else merged.get("extra_args", ()))]
    options = dict(merged.get("options", {}))
    matrix = test.raw.get("matrix", {})
    try:
        flags = option_args(GucOptions.from_mapping(options))
    except (TypeError, ValueError, KeyError):
        return  # the schema reports bad option values
    sweeps_extended = any(name in matrix for name in ("parallel", "fast", "pipeline", "stripe"))
    extended = implies_extended([*flags, *extra])
    own_vb = any(flag in extra for flag in VERBOSE_FLAGS)
    between_servers = third_party(source, target)
    mode = merged.get("mode")
    key = "mode" if "mode" in test.raw else None
    tgftp_style = bool(test.raw.get("tgftp_style"))  # runs as tgftp did, its -vb included: no word needed
    if mode == STREAM and (extended or sweeps_extended):
        test.error("mode: stream, but the options make guc use extended block mode (MODE E): parallel, fast, "
                   "pipeline and stripe all do (even parallel: 1); drop them or the mode", key)
    elif mode == STREAM and own_vb and between_servers:
        test.error(f"mode: stream, but -vb in {where} makes guc use MODE E between two servers; drop -vb "
                   "(gftpwb then records the elapsed time only)", key)
    elif mode == EXTENDED and not between_servers and not (extended or sweeps_extended):
        test.error("mode: extended, but with one end on this machine (file://) guc uses MODE E only with "
                   "parallel, fast, pipeline or stripe; set one (parallel: 1 keeps one stream)", key)
    elif mode is None and own_vb and between_servers and not (extended or sweeps_extended) and not tgftp_style:
        test.warning("-vb between two servers makes guc use extended block mode (MODE E); the runs are "
                     "recorded as extended (say mode: extended, or drop -vb to measure stream mode)", where)


class GucDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return (*shared_keys(), *EXACT_KEYS, MATRIX_KEY, STRIPE_KEY, BASELINE_KEY, files_key(), *REPEAT_KEYS,
                MODE_KEY, *COMMAND_KEYS, LOG_FILENAME_KEY)

    def defaults_keys(self) -> tuple[Key, ...]:
        return (*shared_keys(), BASELINE_KEY, *REPEAT_KEYS, MODE_KEY, *COMMAND_KEYS)

    def definitions(self) -> dict[str, dict[str, Any]]:
        return definitions()

    def check(self, test: TestInput) -> None:
        check_ends(test)
        merged = test.merged
        if "args" in test.raw:
            clash = [key for key in ("options", "extra_args", "matrix", "stripe", "files") if merged.get(key)]
            if clash:
                where = " (from defaults)" if not any(key in test.raw for key in clash) else ""
                test.error(f"test '{test.id}': args gives guc's parameters exactly, so it cannot be combined with "
                           f"{' or '.join(clash)}{where}", "args", of_key=True)
        timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0
        has_length = "length" in merged.get("options", {}) or "length" in test.raw.get("matrix", {}) or any(
            arg in ("-len", "-partial-length") for arg in test.raw.get("args", ()))
        if "/dev/zero" in str(merged.get("source", "")) and not has_length and not timeout:
            test.warning(f"test '{test.id}' reads /dev/zero with no length and no timeout: guc never stops; set "
                         "options.length or timeout")
        check_repeats(test)
        check_mode(test)
        check_baseline(test)
        check_files(test)

    def check_values(self, test: TestInput) -> None:
        check_urls(test)

    def build(self, test: TestInput) -> Test:
        raw = test.raw
        return build_transfer_test(test, args=tuple(raw["args"]) if "args" in raw else None,
                                   add_vb=raw.get("add_vb", "args" not in raw),
                                   tgftp_style=raw.get("tgftp_style", False))


class GucPlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, Test)
        return plan_transfers(scenario, test, first_case)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (GUC_PROGRAM,) if spec.engine == REAL_ENGINE else ()

    def host_checks(self, spec: RunSpec) -> tuple[HostCheck, ...]:
        """``files:``: the server's user must pass every directory above the test files, on both ends."""
        files = spec.details.get("files")
        if not files:
            return ()
        from .files import FileSet, reach_checks

        return reach_checks(FileSet.from_dict(files), f"test '{spec.test_id}'")

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        return transfer_endpoints(spec)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        from .files import plan_line

        line = plan_line(spec.details, spec.run_id)
        return [*super().describe(spec, limit), *([line] if line else [])]


def tgftp_batchfile_line(test: Test, point: dict[str, Any]) -> tuple[tuple[str, ...], bool, str]:
    """One case (matrix ``point``) of ``test`` as a tgftp 0.7.0 batchfile line: the parameters of the
    guc call gftpwb itself makes (its -vb rule, stripe and exact args included), not a connection test,
    nothing tgftp cannot say."""
    return guc_shape(test, test.options.with_values(point))[0][1:-2], False, ""
