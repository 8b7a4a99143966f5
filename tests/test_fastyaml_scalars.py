"""The fast YAML path reads the usual plain scalars without ruamel (so quick commands need not import
it); each one it reads must mean exactly what ruamel's YAML 1.2 resolver and safe constructor make of
it (seeded, see fuzzseed.py), and everything else is left to ruamel."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML, nodes
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.scenario.fastyaml import RESOLVED_FIRST, UNKNOWN, WORDS, quick_scalar
from gftpwb.core.scenario.yamlpos import load_yaml_with_positions, ruamel_load

ROOT = Path(__file__).resolve().parent.parent
RUAMEL = YAML(typ="safe", pure=True)


def ruamel_value(text: str):
    tag = RUAMEL.resolver.resolve(nodes.ScalarNode, text, (True, False))
    if tag == "tag:yaml.org,2002:str":
        return text
    return RUAMEL.constructor.construct_object(nodes.ScalarNode(tag, text), deep=True)


def test_the_first_characters_ruamel_looks_further_at_are_those_named():
    table = RUAMEL.resolver.versioned_resolver
    assert set(table) - {""} <= RESOLVED_FIRST
    for first in "tTfFnN":  # under these, only the words are anything but text
        assert {tag for tag, _ in table.get(first, [])} <= {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}
    for word, value in WORDS.items():
        assert ruamel_value(word) is value


def test_the_usual_scalars_are_read_without_ruamel():
    for text, value in (("ftp://127.0.0.1:2811/dev/zero", "ftp://127.0.0.1:2811/dev/zero"), ("60s", "60s"),
                        ("2G", "2G"), ("250ms", "250ms"), ("-12", -12), ("0", 0), ("tcp", "tcp"), ("on", "on"),
                        ("yes", "yes"), ("null", None), ("True", True), ("stream-mode", "stream-mode")):
        assert quick_scalar(text) == value and type(quick_scalar(text)) is type(value)
    for text in ("0.5", "1e3", "0x1f", "0o7", "007", "1_000", ".inf", "2026-01-01", "<<", "=", "10Gbps"):
        assert quick_scalar(text) is UNKNOWN


PLAIN = st.text(alphabet="0123456789abefnotxyzABEFNOTXYZ.-+_:~ /=<", min_size=1, max_size=8).filter(
    lambda t: t == t.strip() and not t.startswith(("-", "?", ":", "#")) and ": " not in t and " #" not in t)


@seed(FUZZ_SEED)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(PLAIN, st.sampled_from(sorted(WORDS)), st.from_regex(r"[-+]?[0-9]{1,5}[a-zA-Z]{0,3}",
                                                                      fullmatch=True)))
def test_what_the_fast_path_reads_ruamel_reads_alike(text):
    say_seed()
    quick = quick_scalar(text)
    if quick is UNKNOWN:
        return
    expected = ruamel_value(text)
    assert quick == expected and type(quick) is type(expected), text


def test_every_scenario_in_the_repository_loads_alike_on_both_paths():
    for path in sorted((ROOT / "scenarios").glob("*.yaml")):
        text = path.read_text()
        fast, fast_pos, _ = load_yaml_with_positions(text, str(path))
        slow, slow_pos, _ = ruamel_load(text, str(path), 10 ** 6)
        assert fast == slow, path
        assert fast_pos.values == slow_pos.values and fast_pos.keys == slow_pos.keys, path


def test_the_unusual_characters_are_those_outside_the_usual_ones():
    import re

    from gftpwb.core.scenario.fastyaml import _UNUSUAL, USUAL

    outside = re.compile(f"[^{USUAL}]")
    for code in range(0x110000):
        char = chr(code)
        assert bool(_UNUSUAL.match(char)) == bool(outside.match(char)), hex(code)


def test_pyyaml_imported_by_the_fast_path_works_as_ever():
    """Its pure-Python reader's big pattern is compiled when first used (not at import); re.compile is
    re's own again, and that reader still refuses a control character."""
    import subprocess
    import sys

    probe = (
        "import re\n"
        "compile = re.compile\n"
        "from gftpwb.core.scenario import fastyaml\n"
        "import yaml\n"
        "assert re.compile is compile\n"
        "assert type(yaml.reader.Reader.NON_PRINTABLE) is fastyaml.PatternOnFirstUse\n"
        "assert yaml.load('a: [1, b]', Loader=yaml.SafeLoader) == {'a': [1, 'b']}\n"
        "try:\n"
        "    yaml.load('a: \\x01', Loader=yaml.SafeLoader)\n"
        "except yaml.reader.ReaderError:\n"
        "    print('refused')\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "refused"
