"""A sans-I/O parser for globus-url-copy output.

guc's ``-vb`` progress line is printed with ``printf(" %12d bytes %12.2f MB/sec avg %12.2f MB/sec
inst\\r")`` and overwritten in place, so lines end in ``\\r`` as well as ``\\n``. The parser accepts
bytes in arbitrary chunks (as they come off a pipe or an SSH channel), splits on either terminator,
and returns the same items whatever the chunking: that property is tested with hypothesis.
"""

from __future__ import annotations

import codecs
import re

from gftpwb.core.output import ParsedItem, ProgressSample, TextLine

__all__ = ["PROGRESS_RE", "GucOutputParser", "ParsedItem", "ProgressSample", "TextLine", "classify"]

PROGRESS_RE = re.compile(
    r"^\s*(?P<bytes>\d+) bytes\s+(?P<avg>\d+(?:\.\d+)?) MB/sec avg\s+(?P<inst>\d+(?:\.\d+)?) MB/sec inst\s*$"
)


class GucOutputParser:
    """Feed it chunks per stream; it returns progress samples and text lines as they complete."""

    def __init__(self) -> None:
        self._decoders: dict[str, codecs.IncrementalDecoder] = {}
        self._partial: dict[str, str] = {}

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        decoder = self._decoders.setdefault(stream, codecs.getincrementaldecoder("utf-8")(errors="replace"))
        return self._split(stream, decoder.decode(data), final=False)

    def between_lines(self, stream: str) -> bool:
        """Nothing of ``stream`` is held back (no partial line, no partial UTF-8 sequence): a chunk of
        whole lines may then be taken without this parser."""
        decoder = self._decoders.get(stream)
        return not self._partial.get(stream) and (decoder is None or not decoder.getstate()[0])

    def close(self) -> list[ParsedItem]:
        """Flush whatever is left unterminated on each stream (the end of a killed transfer)."""
        items: list[ParsedItem] = []
        for stream, decoder in self._decoders.items():
            items.extend(self._split(stream, decoder.decode(b"", final=True), final=True))
        return items

    def _split(self, stream: str, text: str, final: bool) -> list[ParsedItem]:
        buffer = self._partial.get(stream, "") + text
        pieces = re.split(r"[\r\n]", buffer)
        rest = pieces.pop()  # after the last terminator: incomplete unless final
        if final and rest:
            pieces.append(rest)
            rest = ""
        self._partial[stream] = rest
        return [item for piece in pieces if (item := classify(stream, piece)) is not None]


def classify(stream: str, line: str) -> ParsedItem | None:
    """A complete line becomes a progress sample, a text line, or nothing when it is blank."""
    if not line.strip():
        return None
    match = PROGRESS_RE.match(line)
    if match:
        return ProgressSample(int(match["bytes"]), float(match["avg"]), float(match["inst"]))
    return TextLine(stream, line.rstrip())
