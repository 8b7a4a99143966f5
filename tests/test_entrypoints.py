"""gftpwb.core.entrypoints finds what importlib.metadata finds (the registry reads its kinds with it).

Compared on the real environment and on made-up distributions put on ``sys.path``: two of one name
(the first on the path wins), comments, extras, other groups, names with dots and capitals, and the
cases left to importlib.metadata itself (a line without "=", a folder suffix in capitals).
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from gftpwb.core import entrypoints
from gftpwb.core.entrypoints import entry_points


def _pairs(found) -> list[tuple[str, str, str]]:
    return sorted((e.name, e.value, e.group) for e in found)


def _dist(site: Path, folder: str, text: str) -> None:
    info = site / folder
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {folder.split('-')[0]}\nVersion: 1\n")
    (info / "entry_points.txt").write_text(text)


@pytest.mark.parametrize("group", ["gftpwb.kinds", "console_scripts", "pytest11", "no.such.group"])
def test_the_installed_entry_points_are_importlib_metadatas(group: str) -> None:
    assert _pairs(entrypoints._scan(group)) == _pairs(metadata.entry_points(group=group))


def test_made_up_distributions_are_read_as_importlib_metadata_reads_them(tmp_path: Path, monkeypatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "Demo.Kinds-1.0.dist-info", "# a comment\n[gftpwb.kinds]\n alpha = demo.a:KIND \n"
          "beta=demo.b:KIND [extra]\n\n[console_scripts]\ndemo = demo.cli:main\n")
    _dist(second, "demo_kinds-2.0.dist-info", "[gftpwb.kinds]\nshadowed = demo.c:KIND\n")  # same name: hidden
    _dist(second, "other-0.1.egg-info", "[gftpwb.kinds]\ngamma = other:KIND\n")
    _dist(second, "noentries-1.dist-info", "")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    for group in ("gftpwb.kinds", "console_scripts"):
        found = entrypoints._scan(group)
        assert _pairs(found) == _pairs(metadata.entry_points(group=group))
    names = {e.name for e in entrypoints._scan("gftpwb.kinds")}
    assert {"alpha", "beta", "gamma"} <= names and "shadowed" not in names


def test_what_it_does_not_read_itself_goes_to_importlib_metadata(tmp_path: Path, monkeypatch) -> None:
    _dist(tmp_path, "broken-1.dist-info", "[gftpwb.kinds]\nno equals sign here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(entrypoints._Unusual):
        entrypoints._scan("gftpwb.kinds")
    with pytest.raises(TypeError):  # importlib.metadata's own answer, as before
        list(entry_points("gftpwb.kinds"))


def test_capital_suffixes_go_to_importlib_metadata(tmp_path: Path, monkeypatch) -> None:
    _dist(tmp_path, "Upper-1.DIST-INFO", "[gftpwb.kinds]\nupper = upper:KIND\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(entrypoints._Unusual):
        entrypoints._scan("gftpwb.kinds")
    assert _pairs(entry_points("gftpwb.kinds")) == _pairs(metadata.entry_points(group="gftpwb.kinds"))


def test_load_imports_the_named_object() -> None:
    point = entrypoints.EntryPoint("x", "gftpwb.core.entrypoints:EntryPoint.load", "g")
    assert point.load() is entrypoints.EntryPoint.load
    assert entrypoints.EntryPoint("m", "gftpwb.core.entrypoints", "g").load() is entrypoints
