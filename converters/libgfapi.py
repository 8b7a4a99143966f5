"""parallel-libgfapi's settings and client list -> a ``kind: gfapi`` scenario. Pure.

:mod:`.libgfapi_settings` works out what parallel-libgfapi would have run from its variables; this
module writes that as a gfapi test, faithfully, and says at ``file:line:col`` (a warning, also
written as a comment in the scenario) wherever gftpwb cannot do the same or the same key means
something else:

* the launcher's default 1 ms sleep after every file (``PGFAPI_USEC_DELAY_PER_FILE=1000``), inside
  the timed loop: gftpwb has no such delay, so its files/s come out higher for the same work;
* ``GFAPI_IOREQ=4096``, which the launcher set for every run: random workloads do 4096 requests per
  file, and files of fewer records made every worker refuse to run;
* ``unlink``: parallel-libgfapi counted no deleted file (no rates at all); gftpwb counts them;
* ``seq-rdwrmix`` (read or append whole files) becomes ``rw-mix`` (read or write each record);
* appending to or overwriting existing files, an external starting gun, a debug trace: no equivalent;
* reading workloads find their files where a gftpwb ``seq-wr`` test wrote them
  (``<directory>/<host>/t<thread>/``), not in parallel-libgfapi's ``smf-gfapi-<client>.<NN>/``.

Each client of the list becomes a host of the scenario (``user@host`` keeps its user; ``localhost``
and loopback addresses become ``local``, this machine without SSH); hosts found in an inventory
the scenario includes (``hosts: {include: FILE}``) are taken from there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from gftpwb import __version__
from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.core.scenario.model import LOCAL

from .libgfapi_settings import CURRENT, LAUNCHERS, RANDOM, WORKER, Origin, ToolRun, choose_launcher, resolve
from .shellenv import ShellEnv, read_assignments
from .yamlout import scenario_yaml

_NAME_RE = re.compile(NAME_PATTERN)
LOOPBACK = re.compile(r"^(localhost(\.localdomain)?|127(\.\d{1,3}){3}|::1|ip6-localhost)$")
DIRECT_KB = 4  # gftpwb's O_DIRECT needs sizes in multiples of 4096 bytes


@dataclass(frozen=True)
class Client:
    name: str  # the scenario's host name ("local" for this machine)
    address: str
    user: str
    line: int
    column: int


@dataclass
class ClientList:
    filename: str
    clients: list[Client]
    warnings: list[Diagnostic]


@dataclass
class TestDraft:
    """One gfapi test on its way into a scenario, and what the reader must know about it."""

    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportResult:
    text: str  # the scenario as YAML
    name: str
    launcher: str
    tests: int
    warnings: list[Diagnostic]
    lines: dict[str, int] = field(default_factory=dict)  # test id -> line of the settings (none: 0)


def read_clients(text: str, filename: str) -> ClientList:
    """The clients of parallel-libgfapi's list, as its launcher read them: every blank-separated word
    (``for c in $(cat FILE)``) is a client; it counted them with ``wc -l`` (lines) and waited for that
    many clients' ready files."""
    warnings: list[Diagnostic] = []
    clients: list[Client] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith("#"):
            warnings.append(Diagnostic(filename, number, 1, "a comment line: parallel-libgfapi's launcher took "
                                       "each word of it for a client and failed to reach it; skipped",
                                       severity="warning"))
            continue
        for match in re.finditer(r"\S+", line):
            word, column = match.group(), match.start() + 1
            user, _, address = word.rpartition("@")
            name = LOCAL if LOOPBACK.match(address) else host_name(address)
            if name in seen:
                warnings.append(Diagnostic(filename, number, column, f"{word} is listed again (line {seen[name]}): "
                                           "the launcher started its processes twice, into the same directories and "
                                           "log files; the scenario runs it once", severity="warning"))
                continue
            seen[name] = number
            clients.append(Client(name, address, user, number, column))
    lines, words = text.count("\n"), len(text.split())
    if clients and lines != words:
        warnings.append(Diagnostic(filename, 0, 0, f"{lines} line(s) but {words} client name(s): the launcher "
                                   "counted clients with wc -l (lines) and waited for the ready files of that many, "
                                   "so a run with this list never started (a missing last newline, a blank line or "
                                   "two clients on a line do this); the scenario runs every client listed",
                                   severity="warning"))
    if not clients:
        raise ScenarioError([Diagnostic(filename, 1, 1, "no clients in the list (one host name per line)")])
    return ClientList(filename, clients, warnings)


def host_name(address: str) -> str:
    """A scenario host name for a client's address (characters a name cannot hold become ``_``)."""
    if _NAME_RE.match(address):
        return address
    return re.sub(r"[^A-Za-z0-9._-]", "_", address).strip("._-") or "client"


def scenario_name_for(filename: str) -> str:
    """``pgfapi`` for ``pgfapi.env``, ``start_test`` for ``start_test.sh``."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", stem).lstrip("._-")
    return cleaned or "parallel-libgfapi"


def import_parallel_libgfapi(settings_text: str, settings_name: str, clients: ClientList | None, *,
                             launcher: str = "auto", environ: Mapping[str, str] | None = None,
                             included_hosts: Sequence[str] = (), include: str = "",
                             name: str = "") -> ImportResult:
    """A gfapi scenario doing what parallel-libgfapi did with the variables of ``settings_text`` (an
    env file, a script that exports them, or the launcher with its edited lines) on ``clients``
    (None: the worker run by itself on this machine). ``environ`` is what ``$NAME`` means in the
    settings; ``include`` an inventory the scenario includes, holding the hosts ``included_hosts``.
    Raises ScenarioError (file:line:col) for settings parallel-libgfapi could not have run."""
    env = read_assignments(settings_text, environ)
    return import_env(env, settings_name, clients, launcher=launcher, included_hosts=included_hosts,
                      include=include, name=name)


def import_env(env: ShellEnv, settings_name: str, clients: ClientList | None, *, launcher: str = "auto",
               included_hosts: Sequence[str] = (), include: str = "", name: str = "") -> ImportResult:
    chosen = choose_launcher(env, clients is not None) if launcher == "auto" else launcher
    resolved = resolve(env, settings_name, chosen)
    if resolved.run is None:
        raise ScenarioError(sorted(resolved.errors, key=lambda d: (d.line, d.column)))
    run = resolved.run
    client_list = clients.clients if clients is not None else [Client(LOCAL, "", "", 0, 0)]
    draft, warnings, errors = test_draft(run, settings_name, [c.name for c in client_list])
    if errors:
        raise ScenarioError(errors)
    all_warnings = sorted([*resolved.warnings, *warnings, *(clients.warnings if clients else [])],
                          key=lambda d: (d.file, d.line, d.column))
    draft.notes = [_note(d) for d in all_warnings]
    scenario = name or scenario_name_for(settings_name)
    source = f"the settings {_base(settings_name)}" + (f" and the client list {_base(clients.filename)}"
                                                       if clients else "")
    text = render_scenario(scenario, f"Imported from parallel-libgfapi: {source}", [draft],
                           hosts=_hosts(client_list, included_hosts), include=include,
                           header=(f"Imported by gftpwb {__version__} from parallel-libgfapi: {source},\n"
                                   f"read as {run.launcher.title} would have run them.\n"
                                   "Warnings about what differs are comments before the test."))
    return ImportResult(text, scenario, chosen, 1, all_warnings, {draft.data["id"]: 0})


def _base(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _note(d: Diagnostic) -> str:
    where = _base(d.file) + (f":{d.line}" if d.line else "")
    return f"{where}: {d.message}"


def size_text(kb: int) -> str:
    return f"{kb // (1024 * 1024)}G" if kb % (1024 * 1024) == 0 else f"{kb // 1024}M" if kb % 1024 == 0 else f"{kb}K"


def test_id_for(run: ToolRun) -> str:
    """The test's id: its workload (gftpwb's name), so that imported results and runs of the imported
    scenario line up in ``gftpwb compare``."""
    return gftpwb_workload(run.workload)


def gftpwb_workload(workload: str) -> str:
    return "rw-mix" if workload == "seq-rdwrmix" else workload


def test_draft(run: ToolRun, settings_name: str,
               hosts: Sequence[str]) -> tuple[TestDraft, list[Diagnostic], list[Diagnostic]]:
    """The gfapi test for ``run`` on ``hosts``, with warnings about what changes meaning and errors
    for what gftpwb cannot run."""
    warnings: list[Diagnostic] = []
    errors: list[Diagnostic] = []

    def warn(origin: Origin, message: str) -> None:
        warnings.append(origin.diagnostic(message))

    def error(origin: Origin, message: str) -> None:
        errors.append(origin.diagnostic(message, "error"))

    workload = gftpwb_workload(run.workload)
    data: dict[str, Any] = {"id": test_id_for(run), "kind": "gfapi"}
    on = sorted(set(hosts))
    if on != [LOCAL]:
        data["on"] = on
    if not run.fuse:
        volume: dict[str, Any] = {"name": run.volume, "server": run.server}
        if run.port != 24007:
            volume["port"] = run.port
        if run.transport != "tcp":
            volume["transport"] = run.transport
        data["volume"] = volume
    data["directory"] = run.directory
    data["workload"] = workload
    data["processes"] = run.processes
    data["threads"] = run.threads
    data["files"] = run.files
    record_kb = run.record_size_kb
    if record_kb > run.file_size_kb:
        origin = run.origin("record_size")
        if run.launcher.name == "first-release":
            warn(origin, f"records of {record_kb} KB are larger than the {run.file_size_kb} KB files: the first "
                         "release then did no I/O at all (0 records per file); the scenario reads or writes each "
                         "file in one request")
        else:
            warn(origin, f"records of {record_kb} KB are larger than the {run.file_size_kb} KB files: the worker "
                         "truncated them to the file size, and so does the scenario")
        record_kb = run.file_size_kb
    data["file_size"] = size_text(run.file_size_kb)
    data["record_size"] = size_text(record_kb)
    records = run.file_size_kb // record_kb
    if run.workload in RANDOM:
        _random(run, record_kb, records, data, warn, error)
    if workload == "rw-mix":
        pct = run.rdpct
        data["read_pct"] = max(0, min(100, round(pct)))
        warn(run.origin("workload"), f"seq-rdwrmix read or appended whole files ({pct:g} % of the files read, the "
                                     "others appended to); gftpwb's rw-mix reads or overwrites each record of "
                                     f"existing files, read_pct {data['read_pct']} % of the records read")
    if run.direct:
        data["direct"] = True
        if run.file_size_kb % DIRECT_KB or record_kb % DIRECT_KB:
            error(run.origin("direct"), f"O_DIRECT in gftpwb needs file and record sizes in multiples of 4 KB "
                                        f"(got {run.file_size_kb} KB and {record_kb} KB); parallel-libgfapi's "
                                        "buffer was not page-aligned (memalign misuse), so such runs often failed")
    if run.fsync:
        data["fsync"] = True
    if run.files_per_dir != 1000:
        data["files_per_dir"] = run.files_per_dir
    if run.trace_level:  # reaches the workers only when the worker runs by itself; 0 (none) leaves gftpwb's 4
        data["trace_level"] = max(0, min(9, run.trace_level))
    _changes_of_meaning(run, workload, warn)
    return TestDraft(data), warnings, sorted(errors, key=lambda d: (d.line, d.column))


def _random(run: ToolRun, record_kb: int, records: int, data: dict[str, Any], warn, error) -> None:
    origin = run.origin("io_requests")
    if run.file_size_kb % record_kb:
        error(run.origin("file_size"), f"{run.workload} in gftpwb needs the file size ({run.file_size_kb} KB) to be "
                                       f"a multiple of the record size ({record_kb} KB); parallel-libgfapi never "
                                       "touched the last, partial record")
        return
    requests = run.io_requests
    launcher_set = run.launcher.name != WORKER
    if requests > records:
        why = (f"the launcher always set GFAPI_IOREQ={requests}" if launcher_set
               else f"{origin.named(str(requests))}")
        warn(origin, f"{why}, more than the {records} records of a {run.file_size_kb} KB file: every worker refused "
                     "to run ('GFAPI_IOREQ too large for file size and record size'), so parallel-libgfapi never "
                     "ran this; the scenario does every record of each file once")
        return
    if requests:
        data["io_requests"] = requests
        if launcher_set:
            warn(origin, f"the launcher always set GFAPI_IOREQ={requests}: {requests} random requests per file of "
                         f"its {records} records, whatever GFAPI_IOREQ said; so does the scenario (io_requests)")


def _changes_of_meaning(run: ToolRun, workload: str, warn) -> None:
    if run.usec_delay:
        origin = run.origin("usec_delay")
        default = " (the launcher's default)" if origin.is_default else ""
        warn(origin, f"every thread slept {run.usec_delay} µs after each file{default}, inside its timed loop, which "
                     f"capped it below {1e6 / run.usec_delay:,.0f} files/s; gftpwb has no per-file delay, so its "
                     "files/s are higher than parallel-libgfapi's for the same work")
    if run.workload == "unlink":
        warn(run.origin("workload"), "parallel-libgfapi counted no deleted file (no throughput, file rate or IOPS; "
                                     "its summary said 0 threads finished); gftpwb counts them: files/s of deletes")
    if run.workload != "seq-wr":
        warn(run.origin("workload"), f"{workload} works on files a gftpwb seq-wr test wrote with the same settings "
                                     "(<directory>/<host>/t<thread>/...), not on those parallel-libgfapi wrote "
                                     "(<directory>/smf-gfapi-<client>.<NN>/thrd<ttt>-d<dddd>/...): run the "
                                     "scenario imported from your seq-wr settings first, as you did before")
    for setting, what in (("append", "appending to existing files"), ("overwrite", "overwriting existing files")):
        if getattr(run, setting):
            warn(run.origin(setting), f"{what}: gftpwb has no equivalent; its seq-wr removes the files of an "
                                      "earlier run with the same layout and creates them again")
    extra = run.values.get("external_start")
    if extra is not None and extra.text:
        warn(extra.origin, "an external starting gun: gftpwb has no equivalent; it starts every thread at one "
                           "common instant once all are ready")
    gun = run.values.get("starting_gun")
    if gun is not None and gun.text:
        warn(gun.origin, "the worker waited for a starting gun file; gftpwb starts every thread at one common "
                         "instant once all are ready")
    debug = run.values.get("debug")
    if debug is not None and debug.text.strip() not in ("", "0"):
        warn(debug.origin, "DEBUG printed every step of the worker; gftpwb has no such trace (see trace_level and "
                           "gftpwb trace)")


def _hosts(clients: Sequence[Client], included: Sequence[str]) -> dict[str, dict[str, Any]]:
    hosts: dict[str, dict[str, Any]] = {}
    for c in clients:
        if c.name == LOCAL or c.name in included:
            continue
        entry: dict[str, Any] = {"address": c.address}
        if c.user:
            entry["user"] = c.user
        hosts[c.name] = entry
    return hosts


KEY_ORDER = ("id", "kind", "on", "volume", "directory", "workload", "processes", "threads", "files", "file_size",
             "record_size", "io_requests", "read_pct", "direct", "fsync", "files_per_dir", "trace_level", "repeat",
             "comment")


def _flow(value: Any) -> Any:
    if isinstance(value, dict):
        out = CommentedMap(value)
        out.fa.set_flow_style()
        return out
    if isinstance(value, list):
        seq = CommentedSeq(value)
        seq.fa.set_flow_style()
        return seq
    return value


def render_scenario(name: str, description: str, drafts: Sequence[TestDraft], *, hosts: Mapping[str, Any],
                    include: str = "", header: str = "") -> str:
    """The scenario as YAML: the hosts (an included inventory first), then the tests, each after its notes."""
    doc = CommentedMap()
    if header:
        doc.yaml_set_start_comment(header)
    doc["version"] = 1
    doc["name"] = name
    doc["description"] = description
    if hosts or include:
        block = CommentedMap()
        if include:
            block["include"] = include
        for host, entry in hosts.items():
            block[host] = _flow(dict(entry))
        doc["hosts"] = block
    tests = CommentedSeq()
    for draft in drafts:
        test = CommentedMap()
        for key in KEY_ORDER:
            if key in draft.data:
                test[key] = _flow(draft.data[key]) if key in ("on", "volume") else draft.data[key]
        tests.append(test)
        if draft.notes:
            tests.yaml_set_comment_before_after_key(len(tests) - 1, before="\n".join(
                "gftpwb: " + " ".join(note.split()) for note in draft.notes), indent=2)
    doc["tests"] = tests
    return scenario_yaml(doc)


__all__ = ["CURRENT", "LAUNCHERS", "Client", "ClientList", "ImportResult", "import_env", "import_parallel_libgfapi",
           "read_clients", "render_scenario", "test_draft"]
