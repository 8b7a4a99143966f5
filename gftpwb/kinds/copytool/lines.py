"""Splitting a tool's output into complete lines, whatever the chunking (progress bars end in ``\\r``,
other lines in ``\\n``), and classifying each with the tool's own rule. Pure."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from gftpwb.core.output import ParsedItem, TextLine

Classify = Callable[[str, str], "ParsedItem | bool | None"]


class LineParser:
    """Feed it chunks per stream; ``classify(stream, line)`` returns a progress sample, None for a
    line to drop (a progress line without bytes), or True for an ordinary text line."""

    def __init__(self, classify: Classify):
        self._classify = classify
        self._decoders: dict[str, codecs.IncrementalDecoder] = {}
        self._partial: dict[str, str] = {}

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        decoder = self._decoders.setdefault(stream, codecs.getincrementaldecoder("utf-8")(errors="replace"))
        return self._split(stream, decoder.decode(data), final=False)

    def close(self) -> list[ParsedItem]:
        items: list[ParsedItem] = []
        for stream, decoder in self._decoders.items():
            items.extend(self._split(stream, decoder.decode(b"", final=True), final=True))
        return items

    def _split(self, stream: str, text: str, final: bool) -> list[ParsedItem]:
        pieces = re.split(r"[\r\n]", self._partial.get(stream, "") + text)
        rest = pieces.pop()
        if final and rest:
            pieces.append(rest)
            rest = ""
        self._partial[stream] = rest
        out: list[ParsedItem] = []
        for piece in pieces:
            line = piece.rstrip()
            if not line.strip():
                continue
            item = self._classify(stream, line)
            if item is True:
                out.append(TextLine(stream, line))
            elif item is not None and item is not False:
                out.append(item)
        return out


_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "M": 1024 ** 2, "MB": 1024 ** 2, "G": 1024 ** 3, "GB": 1024 ** 3,
          "T": 1024 ** 4, "TB": 1024 ** 4}


def size_bytes(number: str, unit: str) -> int:
    """``1.016`` ``GB`` -> bytes (both tools count in powers of 1024: 8.00GB is 8 GiB)."""
    return round(float(number) * _UNITS[unit.upper()])
