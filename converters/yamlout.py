"""The scenarios the converters write, as YAML text: ruamel's round trip (comments kept), block
style with lists indented under their key, and long values (URLs, guc's options) on one line each, as
a person writes a scenario."""

from __future__ import annotations

import io
from typing import Any

from ruamel.yaml import YAML


def scenario_yaml(doc: Any) -> str:
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(doc, stream)
    return stream.getvalue()
