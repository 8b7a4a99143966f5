"""Where every node of a YAML file stands: paths from the document root to 1-based (line, column)
positions of values and mapping keys, whichever loader read the file (:mod:`.yamlpos`)."""

from __future__ import annotations

from dataclasses import dataclass, field

Path = tuple[str | int, ...]


def label(path: Path) -> str:
    """``tests[0].options.length``: a path as the DSL reads."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "scenario"


# Bounds on what a file may make us build: no scenario nests deeper than a dozen levels,
# and without aliases a file of n characters holds fewer than n values; an alias "bomb" (anchors of
# anchors: a few hundred bytes that expand to billions of values) stops at the budget.
MAX_NESTING = 64
MIN_VALUE_BUDGET = 200_000  # values after aliases are expanded: max(this, 20 per character of the file)


@dataclass
class Positions:
    """1-based (line, column) of values and mapping keys, by path from the document root.

    ``files`` names another file for the subtrees that came from one (hosts read with ``include:``);
    :meth:`file_of` says which file a path's position is in.
    """

    values: dict[Path, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)
    files: dict[Path, str] = field(default_factory=dict)

    def file_of(self, path: Path, default: str) -> str:
        """The file the position of ``path`` is in: that of its nearest grafted ancestor, else ``default``."""
        if self.files:
            for cut in range(len(path), -1, -1):
                name = self.files.get(tuple(path[:cut]))
                if name is not None:
                    return name
        return default

    def graft(self, prefix: Path, other: Positions, source: Path, filename: str) -> None:
        """Take the positions of ``other`` below ``source`` as those below ``prefix``, in ``filename``."""
        cut = len(source)
        for mine, theirs in ((self.values, other.values), (self.keys, other.keys)):
            for path, where in theirs.items():
                if path[:cut] == source and len(path) > cut:
                    mine[(*prefix, *path[cut:])] = where
        for path in list(other.values):
            if path[:cut] == source and len(path) == cut + 1:
                self.files[(*prefix, *path[cut:])] = filename

    def of_value(self, path: Path) -> tuple[int, int]:
        """Position of the value at ``path``, or of the nearest ancestor that has one."""
        for cut in range(len(path), -1, -1):
            pos = self.values.get(tuple(path[:cut]))
            if pos:
                return pos
        return (1, 1)

    def of_key(self, path: Path) -> tuple[int, int]:
        """Position of the key naming ``path`` (falls back to the value position)."""
        return self.keys.get(tuple(path)) or self.of_value(path)


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
