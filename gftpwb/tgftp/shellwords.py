"""Split a tgftp batchfile field into words the way tgftp's generated command line is read by bash.

tgftp 0.4-0.7 writes every batchfile line into a command file (``tgftp --source ... --log-comment
<field> ... -- <gsiftp-params>``) and runs it with a second ``bash``. So inside a field:

* double and single quotes group words (``"#Domain1 to Domain2"`` is one word, quotes removed);
* a backslash outside quotes takes the next character literally; inside double quotes it only
  escapes ``$``, a backtick, ``"`` and ``\\``;
* an unquoted ``#`` at the start of a word starts a shell comment: it and everything after it on
  that command line is ignored;
* ``$``, backticks, globs and ``| & < > ( )`` would be interpreted by that shell.

We do not run a shell: we split, remember where a comment started, and report the shell syntax we
met so the importer can warn that tgftp would have done something else with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_BLANKS = " \t"
_OPERATORS = "|&<>()"
_GLOBS = "*?["
_DQ_ESCAPABLE = '$`"\\\n'


@dataclass
class Words:
    """The words of one field, the text of a trailing shell comment, and the shell syntax seen."""

    words: list[str] = field(default_factory=list)
    comment: str | None = None  # text from an unquoted '#' on (including the '#'), if any
    comment_column: int = 0  # 0-based offset of that '#' in the field
    quoted: bool = False  # any quote or backslash was used (the field needed a shell to read)
    expansions: list[str] = field(default_factory=list)  # "$HOME", "`date`", "*", "~": what bash would expand
    operators: list[str] = field(default_factory=list)  # unquoted | & < > ( )
    unterminated: str = ""  # '"' or "'" when a quote is never closed
    unterminated_column: int = 0


def split_words(text: str) -> Words:
    """Split ``text`` as bash would split one stretch of a command line (see the module doc)."""
    out = Words()
    word: list[str] = []
    in_word = False
    i = 0
    n = len(text)

    def end_word() -> None:
        nonlocal word, in_word
        if in_word:
            out.words.append("".join(word))
        word, in_word = [], False

    while i < n:
        ch = text[i]
        if ch in _BLANKS:
            end_word()
            i += 1
            continue
        if ch == "#" and not in_word:
            out.comment = text[i:]
            out.comment_column = i
            break
        in_word = True
        if ch == "\\":
            out.quoted = True
            if i + 1 < n:
                word.append(text[i + 1])
                i += 2
            else:
                word.append("\\")
                i += 1
            continue
        if ch == "'":
            out.quoted = True
            close = text.find("'", i + 1)
            if close < 0:
                out.unterminated, out.unterminated_column = "'", i
                word.append(text[i + 1:])
                break
            word.append(text[i + 1:close])
            i = close + 1
            continue
        if ch == '"':
            out.quoted = True
            i += 1
            while i < n and text[i] != '"':
                c = text[i]
                if c == "\\" and i + 1 < n and text[i + 1] in _DQ_ESCAPABLE:
                    word.append(text[i + 1])
                    i += 2
                    continue
                if c == "`":
                    i = _backquote(text, i, word, out)
                    continue
                if c == "$":
                    out.expansions.append(_expansion_at(text, i))
                word.append(c)
                i += 1
            if i >= n:
                out.unterminated, out.unterminated_column = '"', text.rfind('"')
                break
            i += 1
            continue
        if ch == "`":
            i = _backquote(text, i, word, out)
            continue
        if ch == "$":
            out.expansions.append(_expansion_at(text, i))
        elif ch in _GLOBS or (ch == "~" and not word):
            out.expansions.append(ch)
        elif ch in _OPERATORS:
            out.operators.append(ch)
        word.append(ch)
        i += 1
    end_word()
    return out


def _backquote(text: str, i: int, word: list[str], out: Words) -> int:
    """A `command substitution`: note it, keep its text, and go on after its closing backtick."""
    close = text.find("`", i + 1)
    end = len(text) if close < 0 else close + 1
    out.expansions.append(text[i:end])
    word.append(text[i:end])
    return end


def _expansion_at(text: str, i: int) -> str:
    """A short excerpt of the expansion starting at ``text[i]`` for messages: ``$HOME``, ```date```."""
    if text[i] == "`":
        close = text.find("`", i + 1)
        return text[i:close + 1] if close > 0 else text[i:i + 12]
    j = i + 1
    if j < len(text) and text[j] in "({":
        closer = ")" if text[j] == "(" else "}"
        close = text.find(closer, j)
        return text[i:close + 1] if close > 0 else text[i:i + 12]
    while j < len(text) and (text[j].isalnum() or text[j] == "_"):
        j += 1
    return text[i:j] if j > i + 1 else "$"


def quote_word(word: str) -> str:
    """Quote ``word`` so :func:`split_words` (and bash) read it back as exactly that one word.

    Plain words stay bare; others go in double quotes with ``$``, backtick, ``"`` and ``\\`` escaped,
    which is also what tgftp's shell needs. (A batchfile field can never hold ``;`` or a newline.)
    """
    if word and all(c.isalnum() or c in "-_./:,+@%=^!" for c in word) and word[0] not in "#~":
        return word
    escaped = "".join("\\" + c if c in '$`"\\' else c for c in word)
    return f'"{escaped}"'
