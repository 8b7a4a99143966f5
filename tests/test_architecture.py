"""The sans-I/O rule, enforced: the core never imports asyncio, subprocess, sockets, SSH or Textual,
nor any shell module. Every module must be classified here, so a new one cannot slip past the rule."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Core: pure logic. Shell: I/O, processes, UI.
CORE_PACKAGES = ["gftpwb/dsl", "gftpwb/drivers", "gftpwb/autotune", "converters"]
CORE_MODULES = ["gftpwb/__init__.py", "gftpwb/units.py", "gftpwb/rates.py", "gftpwb/records.py",
                "gftpwb/specs.py", "gftpwb/events.py", "gftpwb/plan.py", "gftpwb/report.py", "gftpwb/errors.py",
                "gftpwb/bus.py", "gftpwb/commands.py", "gftpwb/tgftp_args.py", "gftpwb/clockoffset.py",
                "gftpwb/hostcheck.py", "gftpwb/simlink.py", "gftpwb/latency.py", "gftpwb/gfapi_stats.py",
                "gftpwb/gfapi_report.py", "gftpwb/live.py", "gftpwb/compare.py", "gftpwb/tgftp_shell.py",
                "gftpwb/tgftp_model.py"]
SHELL_PACKAGES = ["gftpwb/exec", "gftpwb/sinks", "tui", "schemas"]
SHELL_MODULES = ["gftpwb/cli.py", "gftpwb/__main__.py", "gftpwb/session.py", "gftpwb/results_dir.py",
                 "gftpwb/migrate_cli.py", "gftpwb/tgftp_cli.py", "gftpwb/lab_cmd.py", "gftpwb/hosts_cmd.py",
                 "gftpwb/tgftp_autotune.py", "gftpwb/results_index.py", "gftpwb/tgftp_log.py"]

FORBIDDEN_EXTERNAL = {"asyncio", "subprocess", "socket", "selectors", "threading", "multiprocessing", "asyncssh",
                      "textual", "rich", "pty", "signal"}
SHELL_INTERNAL = ("gftpwb.exec", "gftpwb.sinks", "gftpwb.cli", "gftpwb.session", "gftpwb.results_dir", "gftpwb.tui",
                  "gftpwb.migrate_cli", "gftpwb.tgftp_cli", "gftpwb.results_index", "gftpwb.tgftp_log")


def core_files() -> list[Path]:
    files = [ROOT / m for m in CORE_MODULES]
    for package in CORE_PACKAGES:
        files.extend(sorted((ROOT / package).rglob("*.py")))
    return files


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] in ("converters", "tui", "schemas"):
        parts.insert(0, "gftpwb")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            else:
                found.add(node.module or "")
    return found


def test_every_module_is_classified():
    known = {str(ROOT / m) for m in CORE_MODULES + SHELL_MODULES}
    for package in CORE_PACKAGES + SHELL_PACKAGES:
        known.update(str(p) for p in (ROOT / package).rglob("*.py"))
    actual = {str(p) for d in ("gftpwb", "tui", "converters", "schemas") for p in (ROOT / d).rglob("*.py")}
    assert sorted(actual - known) == [], "classify new modules as core or shell in tests/test_architecture.py"


def test_core_imports_no_io_and_no_shell_module():
    bad = []
    for path in core_files():
        for name in imports_of(path):
            if name.split(".")[0] in FORBIDDEN_EXTERNAL or name.startswith(SHELL_INTERNAL):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert bad == []


def test_importing_the_whole_core_loads_no_io_module():
    # threading is left out here: the standard library itself imports it (logging, importlib).
    names = sorted({module_name(p) for p in core_files()})
    watched = sorted(FORBIDDEN_EXTERNAL - {"threading"})
    code = (f"import importlib, sys\nfor n in {names!r}: importlib.import_module(n)\n"
            f"print(sorted(m for m in {watched!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
