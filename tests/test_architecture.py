"""The architecture, enforced (docs/architecture.md draws it):

* every module belongs to a layer, by its folder; bottom up: the **core** (``gftpwb/core``), the
  **kinds** (their own modules ``gftpwb/kinds/<kind>/*.py``), **tgftp's pure rules** (``gftpwb/tgftp``:
  its shells, command line and model), the **converters** (``converters/``, ``gftpwb.converters``),
  the **shell** (``gftpwb/shell``, the kinds' runners ``gftpwb/kinds/<kind>/run``) and the **front
  ends** (the command line ``gftpwb/cli``, the TUI ``tui/`` as ``gftpwb.tui``, the tgftp drop-ins);
* a module imports only from its own layer and the layers below it, never from a higher one;
* the core, kinds, tgftp rules and converters are sans-I/O: no I/O library (asyncio, subprocess,
  sockets, SSH, Rich, Textual); ``gftpwb.core`` imports no kind at all (it reaches kinds through the
  registry), and inside the core only the loader (``gftpwb.core.dsl``) imports the loader;
* the shell reaches the kinds through the registry too (a kind's report hook prints what is its own);
* only the TUI and the command line import Textual or the TUI; the TUI reaches the shell through the
  front-end service;
* there is no import cycle among gftpwb's modules, counting every import: inside functions (lazy
  ones) and under ``if TYPE_CHECKING:`` too;
* no module outside the kinds' folders branches on a kind's name (``spec.kind == "gfapi"``).

The import graph is read from the source with ``ast``, like import-linter's layers, forbidden and
acyclic contracts, without another dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = {"gftpwb": ROOT / "gftpwb", "gftpwb.schemas": ROOT / "schemas", "gftpwb.tui": ROOT / "tui",
                "gftpwb.converters": ROOT / "converters"}

FORBIDDEN_IN_CORE = {"asyncio", "subprocess", "socket", "selectors", "threading", "multiprocessing", "asyncssh",
                     "textual", "rich", "pty", "signal"}
# Modules allowed to branch on kind names outside gftpwb/kinds (none: the tgftp area asks the kinds).
KIND_BRANCH_ALLOWED: set[str] = set()


def module_name(path: Path) -> str:
    for package, directory in PACKAGE_DIRS.items():
        if path.is_relative_to(directory):
            parts = [*package.split("."), *path.relative_to(directory).with_suffix("").parts]
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    raise AssertionError(path)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for directory in PACKAGE_DIRS.values() for p in sorted(directory.rglob("*.py"))}


LAYERS = ("core", "kinds", "tgftp", "converters", "shell", "frontend")
SANS_IO = ("core", "kinds", "tgftp", "converters")


def layer(name: str) -> str:
    """The layer of module ``name``: one of :data:`LAYERS`, bottom up."""
    parts = name.split(".")
    if name == "gftpwb.__main__" or parts[:2] in (["gftpwb", "cli"], ["gftpwb", "tui"]):
        return "frontend"
    if name.startswith("gftpwb.tgftp.run") or name == "gftpwb.tgftp.log":
        return "frontend"  # the tgftp drop-ins
    if parts[:2] == ["gftpwb", "kinds"]:
        return "shell" if "run" in parts[3:] else "kinds"
    if parts[:2] in (["gftpwb", "shell"], ["gftpwb", "schemas"]):
        return "shell"
    if parts[:2] == ["gftpwb", "tgftp"]:
        return "tgftp"
    if parts[:2] == ["gftpwb", "converters"]:
        return "converters"
    return "core"


def rank(name: str) -> int:
    return LAYERS.index(layer(name))


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports (anywhere in it), as absolute names."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in modules())
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def internal_imports(name: str) -> set[str]:
    """The gftpwb modules ``name`` imports (a package's ``__init__`` counts as imported with it)."""
    out = set()
    for imported in imports_of(name):
        parts = imported.split(".")
        out.update(prefix for cut in range(len(parts), 0, -1) if (prefix := ".".join(parts[:cut])) in modules())
    out -= {name, *(".".join(name.split(".")[:cut]) for cut in range(1, name.count(".") + 1))}  # its own packages
    return out


def test_every_module_has_a_layer_and_the_packages_are_listed():
    assert set(modules()) >= {"gftpwb.core.registry", "gftpwb.shell.executor", "gftpwb.tui.app"}
    # Every folder with modules is a package, so nothing is left out of the wheel.
    for path in modules().values():
        assert (path.parent / "__init__.py").is_file(), f"{path.parent} has no __init__.py"


def test_the_sans_io_layers_import_no_io_library():
    bad = [f"{name} ({layer(name)}) imports {imported}" for name in modules() if layer(name) in SANS_IO
           for imported in imports_of(name) if imported.split(".")[0] in FORBIDDEN_IN_CORE]
    assert bad == []


def test_no_module_imports_from_a_higher_layer():
    bad = [f"{name} ({layer(name)}) imports {imported} ({layer(imported)})"
           for name in modules() for imported in internal_imports(name) if rank(imported) > rank(name)]
    assert bad == []


def test_the_core_reaches_kinds_through_the_registry_and_only_the_loader_imports_the_loader():
    bad = []
    for name in modules():
        if not name.startswith("gftpwb.core"):
            continue
        for imported in internal_imports(name):
            if imported.startswith("gftpwb.kinds"):
                bad.append(f"{name} imports the kind module {imported}: use the registry")
            if imported.startswith("gftpwb.core.dsl") and not name.startswith("gftpwb.core.dsl"):
                bad.append(f"{name} imports the loader {imported}: use gftpwb.core.scenario")
    assert bad == []


def test_the_shell_reaches_kinds_through_the_registry():
    bad = [f"{name} imports {imported}" for name in modules()
           if name.startswith("gftpwb.shell") for imported in internal_imports(name)
           if imported.startswith("gftpwb.kinds.")]
    assert bad == []


def test_the_layer_rule_finds_an_upward_import():
    assert rank("gftpwb.tui.app") > rank("gftpwb.shell.frontend") > rank("gftpwb.converters.taglog")
    assert rank("gftpwb.converters.taglog") > rank("gftpwb.tgftp.model") > rank("gftpwb.kinds.guc.plan")
    assert rank("gftpwb.kinds.guc.plan") > rank("gftpwb.core.plan")
    assert layer("gftpwb.kinds.guc.run.runner") == "shell" and layer("gftpwb.tgftp.run.dropin") == "frontend"


def test_only_the_tui_and_the_command_line_import_textual_or_the_tui():
    bad = []
    for name in modules():
        if name.startswith(("gftpwb.tui", "gftpwb.cli")):
            continue
        for imported in imports_of(name):
            if imported.split(".")[0] == "textual" or imported.startswith("gftpwb.tui"):
                bad.append(f"{name} imports {imported}")
    assert bad == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_import_cycles():
    graph = {name: internal_imports(name) for name in modules()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_cycles():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _kind_branches(path: Path) -> list[str]:
    """Comparisons of a kind (``x.kind``, ``x["kind"]``) with a literal name."""

    def is_kind(node: ast.AST) -> bool:
        return ((isinstance(node, ast.Attribute) and node.attr == "kind") or (isinstance(node, ast.Subscript)
                and isinstance(node.slice, ast.Constant) and node.slice.value == "kind"))

    def is_literal(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str)
        return isinstance(node, ast.Tuple | ast.List | ast.Set) and all(is_literal(e) for e in node.elts)

    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_kind(s) for s in sides) and any(is_literal(s) for s in sides):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_kind_branches_outside_the_kinds_folders():
    found = [branch for name, path in modules().items()
             if not name.startswith("gftpwb.kinds.") and name not in KIND_BRANCH_ALLOWED
             for branch in _kind_branches(path)]
    assert found == []


def test_the_kind_branch_finder_finds_branches(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('if spec.kind == "gfapi": pass\nif r.kind in ("guc", "autotune"): pass\n'
                      'if test["kind"] != "x": pass\nif spec.kind == other.kind: pass\nif kind == "error": pass\n')
    assert len(_kind_branches(sample)) == 3


def test_importing_the_whole_core_loads_no_io_or_shell_module():
    # Numeric libraries may load what they like (scipy loads subprocess for its own helpers); what
    # matters is that the core itself neither does I/O nor pulls in the shell, SSH, Rich or Textual.
    names = sorted(n for n in modules() if layer(n) in SANS_IO)
    watched = ["asyncio", "asyncssh", "rich", "textual"]
    code = (f"import importlib, sys\nfor n in {names!r}: importlib.import_module(n)\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {watched!r} or "
            f"m.startswith(('gftpwb.shell', 'gftpwb.tui')) or '.run' in m and m.startswith('gftpwb.kinds')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
