"""Planning guc transfers (guc and connection tests): one case per matrix combination, each run
``repeat`` times on every host of ``on`` (together, as a group, when there are several)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gftpwb.core.plan import case_label, log_name_for, matrix_points, order_runs, run_id_on
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.kinds.guc.gucargs import length_from_args, split_guc_args
from gftpwb.kinds.simulated.link import LinkModel

from .baseline import Baseline
from .driver import build_argv, exact_argv, run_details, vb_added
from .files import LIST, FileSet, list_path
from .model import GucOptions, Test
from .probe import probe_specs

BASELINE_SUFFIX = "/iperf3"  # the run id of a guc run's baseline: the guc run's id plus this

# What differs between kinds that run guc once per run: its argv, the parameters recorded, the length.
Shape = Callable[[Test, GucOptions], tuple[tuple[str, ...], dict[str, Any], int | None]]


def guc_shape(test: Test, options: GucOptions) -> tuple[tuple[str, ...], dict[str, Any], int | None]:
    if test.args is not None:  # exact parameters: nothing reordered, -vb only when asked for
        argv = exact_argv(test.source, test.target, test.args, add_vb=test.add_vb, mode=test.mode)
        params, length = params_of(test.args)
        return argv, params, length
    if test.stripe:  # a striped study run: -stripe, and -dbg for the per-stripe performance markers
        options = options.with_values({"stripe": True})
    if test.files is not None:
        return files_argv(test, options), options.set_options(), test.files.total_bytes
    argv = build_argv(test.source, test.target, options, test.extra_args, mode=test.mode, add_vb=test.add_vb,
                      debug=test.stripe)
    return argv, options.set_options(), options.length


def files_argv(test: Test, options: GucOptions) -> tuple[str, ...]:
    """A files run: ``... -cd -r SRC/ DST/``, or ``... -f LIST`` (no URLs: the list has them; build_argv
    puts its last two arguments last, which is where ``-f LIST`` goes)."""
    files: FileSet = test.files
    if files.transfer == LIST:
        return build_argv("-f", list_path(test.id), options, test.extra_args, mode=test.mode, add_vb=test.add_vb,
                          debug=test.stripe)
    return build_argv(files.source_url, files.target_url, options, (*test.extra_args, "-cd", "-r"), mode=test.mode,
                      add_vb=test.add_vb, debug=test.stripe)


def params_of(args: tuple[str, ...]) -> tuple[dict[str, Any], int | None]:
    """The typed options an exact guc argument list amounts to (for reports), and its -len in bytes."""
    try:
        params: dict[str, Any] = dict(GucOptions.from_mapping(split_guc_args(list(args)).options).set_options())
    except (TypeError, ValueError):
        params = {}
    return params, length_from_args(list(args))


def own_details(test: Test, argv: tuple[str, ...]) -> dict[str, Any]:
    """What a guc run's record starts with besides its mode: whether gftpwb added -vb (a connection
    test's argv is fixed), and that a tgftp-style run's tag log follows tgftp's rules."""
    details: dict[str, Any] = {}
    if test.kind == "guc":
        details["vb_added"] = vb_added(argv, test.args if test.args is not None else test.extra_args)
    if test.tgftp_style:
        details["tgftp_style"] = True  # its tag log as tgftp wrote it (see gftpwb.converters.taglog)
    return details


def plan_transfers(scenario: Scenario, test: Test, first_case: int,
                   shape: Shape = guc_shape) -> tuple[list[RunSpec], int]:
    """Specs of a test that runs one guc per run; ``shape`` gives each case's argv, params and length.
    Their details say the transfer mode and whether guc reports progress (:func:`run_details`), and
    mark the first ``warmup`` runs of each case; ``order`` arranges the repeats of a matrix."""
    cases: list[list[list[RunSpec]]] = []
    points = matrix_points(test)
    link = (test.link or LinkModel()) if test.engine != REAL_ENGINE else None
    for variant, point in enumerate(points):
        argv, params, length = shape(test, test.options.with_values(point))
        details = {**run_details(argv), **own_details(test, argv)}
        if test.files is not None:
            details["files"] = {**test.files.to_dict(), **({"list": argv[-1]} if test.files.transfer == LIST else {})}
        cases.append([])
        if test.files is not None and test.files.probe:  # the disks of both ends, before the case's runs
            cases[-1].append(probe_specs(scenario.name, test.id, test.files, case=first_case + variant,
                                         label=case_label(test, variant), streams=params.get("parallel") or 1,
                                         timeout_s=test.timeout_s))
        for repeat in range(test.repeat):
            base = f"{case_label(test, variant)}/{repeat}"
            group = [baseline_spec(scenario, test, test.baseline, first_case + variant, repeat, base,
                                   test.options.with_values(point), repeat < test.warmup)] if test.baseline else []
            cases[-1].append(group + [RunSpec(
                run_id=run_id_on(base, host, test),
                scenario=scenario.name,
                test_id=test.id,
                case=first_case + variant,
                repeat=repeat,
                kind=test.kind,
                host=host,
                group=base if len(test.on) > 1 else "",
                argv=argv,
                params=params,
                timeout_s=test.timeout_s,
                length_bytes=length,
                comment=test.comment,
                source=test.source,
                target=test.target,
                engine=test.engine,
                link=link,
                pre=test.pre,
                post=test.post,
                comment_command=test.comment_command,
                log_name=log_name_for(test, variant, repeat),
                tgftp_style=test.tgftp_style,
                details={**details, "warmup": True} if repeat < test.warmup else dict(details),
            ) for host in test.on])
    return order_runs(cases, test.order, test.order_seed), len(points)


def baseline_spec(scenario: Scenario, test: Test, baseline: Baseline, case: int, repeat: int, base: str,
                  options: GucOptions, warmup: bool) -> RunSpec:
    """The iperf3 run before a guc run: same test and case (so reports pair them), kind iperf3, the
    case's streams (``parallel``) and window (``tcp_buffer``); the guc run's id plus ``/iperf3``."""
    from gftpwb.kinds.iperf3.job import IPERF3, Iperf3Job  # the iperf3 kind's own description of a run

    job = Iperf3Job(client=baseline.client, server=baseline.server, server_address=baseline.server_address,
                    port=baseline.port, streams=options.parallel or 1, window=options.tcp_buffer,
                    duration_s=baseline.duration_s, bytes=baseline.bytes, reverse=baseline.reverse,
                    omit_s=baseline.omit_s)
    details: dict[str, Any] = {"baseline_for": run_id_on(base, test.on[0], test), "guc_streams": options.parallel or 1}
    if warmup:
        details["warmup"] = True
    return RunSpec(run_id=f"{base}{BASELINE_SUFFIX}", scenario=scenario.name, test_id=test.id, case=case,
                   repeat=repeat, kind=IPERF3, host=baseline.client, argv=job.display_argv(), params=job.to_params(),
                   timeout_s=baseline.timeout_s, length_bytes=job.bytes, comment=test.comment,
                   source=baseline.client, target=baseline.server, details=details)
