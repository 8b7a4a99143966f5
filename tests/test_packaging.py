"""The top-level folders schemas/, tui/ and converters/ install as gftpwb.schemas, gftpwb.tui and
gftpwb.converters, from a wheel and editable; the tgftp area, the kinds and the input formats come along."""

import re
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import gftpwb.converters
import gftpwb.schemas
import gftpwb.tgftp
import gftpwb.tui

ROOT = Path(__file__).resolve().parent.parent


def test_editable_install_maps_top_level_folders():
    # The test environment is the editable install made by `make test`.
    assert Path(gftpwb.tui.__file__).resolve() == ROOT / "tui" / "__init__.py"
    assert Path(gftpwb.converters.__file__).resolve() == ROOT / "converters" / "__init__.py"
    assert Path(gftpwb.schemas.__file__).resolve() == ROOT / "schemas" / "__init__.py"
    assert Path(gftpwb.tgftp.__file__).resolve() == ROOT / "gftpwb" / "tgftp" / "__init__.py"


def test_every_package_is_in_the_wheel_list():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    mapped = {"gftpwb": ROOT / "gftpwb", "gftpwb.tui": ROOT / "tui", "gftpwb.converters": ROOT / "converters"}
    found = {".".join([*package.split("."), *p.parent.relative_to(folder).parts])
             for package, folder in mapped.items() for p in folder.rglob("__init__.py")}
    assert found - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"


@pytest.mark.slow
def test_wheel_installs_and_imports(tmp_path):
    dist = tmp_path / "dist"
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' build/lib keeps files of older layouts
    built = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist),
                            str(ROOT)], check=True, capture_output=True, text=True)
    # what `make demo` shows a new user while pip builds gftpwb: no warnings about this project's configuration
    # (build prints setuptools' BuildBackendWarnings as "WARNING ..." lines, pip as "...BuildBackendWarning: ...")
    said = built.stdout + built.stderr
    assert "BuildBackendWarning" not in said and not re.search(r"^WARNING ", said, flags=re.M), said
    (wheel,) = dist.glob("gftpwb-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # A clean environment, as a user's: the wheel and its declared dependencies only.
    subprocess.run([py, "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True)
    code = ("import gftpwb.tui, gftpwb.converters.taglog, gftpwb.core.dsl.schema as s, pathlib;"
            "from gftpwb.core.formats import input_formats;"
            "assert [f.name for f in input_formats()] == ['tgftp-batchfile'], input_formats();"
            "assert 'site-packages' in gftpwb.converters.__file__, gftpwb.converters.__file__;"
            "from gftpwb.core.registry import registry;"
            "names = registry().kind_names();"
            "assert names == ('guc', 'connection-test', 'autotune', 'gfapi', 'iperf3', 'xrootd', 'http'), names;"
            "assert 'site-packages' in gftpwb.tui.__file__, gftpwb.tui.__file__;"
            "assert s.scenario_schema()['title'] == 'gftpwb scenario';"
            "from gftpwb.core.event_stream import schema; assert schema()['title'].startswith('gftpwb run --events');"
            "from gftpwb.kinds.gfapi.run.worker_build import source_bytes; assert b'glfs_init' in source_bytes();"
            "from gftpwb.shell.lab.wan import DELAYLINE; assert b'TUNSETIFF' in DELAYLINE.source_bytes();"
            "import gftpwb.tui.app as a; assert pathlib.Path(a.WorkbenchApp.CSS_PATH).is_file(), 'no stylesheet';"
            "print('ok')")
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.strip() == "ok", out.stderr
    schema = subprocess.run([env_dir / "bin" / "gftpwb", "schema"], capture_output=True, text=True, cwd=tmp_path)
    assert schema.stdout == (ROOT / "schemas" / "scenario.schema.json").read_text()
    # The tgftp / tgftp_log drop-ins come with the wheel as commands of those names.
    for name, line in (("tgftp", "tgftp - The GridFTP benchmark, test and transfer script v0.7.0"),
                       ("tgftp_log", "tgftp_log - v0.2.0")):
        out = subprocess.run([env_dir / "bin" / name, "--version"], capture_output=True, text=True, cwd=tmp_path)
        assert out.stdout.strip() == line, out.stderr


@pytest.mark.slow
def test_the_editable_install_is_quiet(tmp_path):
    """`make demo` runs `pip install -e .`: setuptools' editable build says nothing a new user must act on (a
    package-dir mapping made it install a meta path finder and warn "be careful with folders ... with the
    same name"); every package is where its name says, so the install is the project's root on sys.path."""
    hook = f"from setuptools.build_meta import build_editable; print(build_editable({str(tmp_path)!r}))"
    built = subprocess.run([sys.executable, "-W", "default", "-c", hook], cwd=ROOT, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    said = built.stdout + built.stderr
    assert "BuildBackendWarning" not in said and "careful with folders" not in said, said
    assert "meta path finder" not in said, said
    (wheel,) = tmp_path.glob("gftpwb-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        (pth,) = [name for name in archive.namelist() if name.endswith(".pth")]
        assert archive.read(pth).decode().split() == [str(ROOT)]
