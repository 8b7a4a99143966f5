"""What tgftp's shells did to a piece of text, in pure Python (no shell is ever run).

tgftp 0.7.0 is bash, and every value it hands to globus-url-copy passes through bash one to three
times (see gftpwb/tgftp/model.py for which value passes where). This module reproduces the parts of
bash those passes use:

* :func:`expand` -- read a command line into words the way bash does: blanks separate words;
  single quotes, double quotes and backslashes quote; an unquoted ``#`` at the start of a word
  starts a comment; ``$NAME``, ``${NAME}``, ``${NAME:-word}`` (also ``-``, ``:+``, ``+``) expand
  from the environment given; unquoted results are split on IFS; ``~`` and ``~/...`` at the start of
  a word become the home directory; ``$'...'`` is ANSI-C quoting.
* :func:`arith` -- bash's integer arithmetic on a value (``[[ $X -eq 0 ]]``, ``$(( ... ))``):
  decimal, octal (``010``), hex (``0x10``) and ``base#digits`` literals, variable names, unary and
  binary ``+ - * / %``, parentheses.
* :func:`coreutils_duration` -- what coreutils ``timeout`` accepts as a duration.
* :func:`echo_e` -- ``echo -e``'s backslash escapes, which tgftp used to write its logs.

What bash would do but this module does not (each reported as a :class:`Problem`, so the caller can
refuse or warn with the position): command substitution (``$(...)``, backticks), arithmetic
expansion (``$((...))``), special parameters (``$0``, ``$1``, ``$$``, ``$?``, ``$#``, ``$@``, ...),
other ``${...}`` forms, brace expansion (``{a,b}``, ``{1..3}``), operators and redirections
(``| & ; < > ( )``). Pathname expansion (``*``, ``?``, ``[``) is not done: a pattern is kept as it is,
which is what bash does when no file matches; :attr:`Expansion.globs` lists them so callers can warn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

BLANKS = " \t"
OPERATORS = "|&;<>()"
DEFAULT_IFS = " \t\n"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = "0123456789#@*$!?-_"


@dataclass(frozen=True)
class Problem:
    """Something bash would have done that gftpwb does not: ``column`` is 0-based in the text."""

    column: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"{self.text!r}: {self.message}"


@dataclass
class Expansion:
    words: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    comment: str | None = None  # from an unquoted '#' starting a word to the end, if any
    comment_column: int = 0
    expanded: list[tuple[str, str]] = field(default_factory=list)  # ("$HOME", "/root"), ("~", "/root")
    unset: list[str] = field(default_factory=list)  # variables that were not set (expanded to nothing)
    globs: list[str] = field(default_factory=list)  # words with an unquoted * ? [ (kept as they are)
    quoted: bool = False  # any quoting or escaping was used


class _Word:
    """A word being built: its characters, which of them came from unquoted expansions (and so may
    be split on IFS), and whether any part was quoted (then an empty word still counts)."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.splittable: list[bool] = []
        self.quoted = False
        self.started = False
        self.glob = False
        self.marks: set[int] = set()  # positions of quoted parts (an empty "" still makes a field)

    def add(self, text: str, *, splittable: bool = False) -> None:
        self.started = True
        self.chars.extend(text)
        self.splittable.extend([splittable] * len(text))

    def mark_quoted(self) -> None:
        self.quoted = self.started = True
        self.marks.add(len(self.chars))

    def fields(self, ifs: str) -> list[str]:
        if not any(self.splittable):
            if self.chars or self.quoted:
                return ["".join(self.chars)]
            return []
        white = [c for c in ifs if c in DEFAULT_IFS]
        other = [c for c in ifs if c not in DEFAULT_IFS]
        out: list[str] = []
        current: list[str] = []
        pending = False  # current holds a field (possibly empty) that must be emitted
        i, n = 0, len(self.chars)
        while i < n:
            if i in self.marks:
                pending = True
            ch, split = self.chars[i], self.splittable[i]
            if split and ch in white:
                if current or pending:
                    out.append("".join(current))
                current, pending = [], False
                while i < n and self.splittable[i] and self.chars[i] in white:
                    i += 1
                if i < n and self.splittable[i] and self.chars[i] in other:
                    i += 1  # whitespace around a non-whitespace IFS character belongs to it
                    while i < n and self.splittable[i] and self.chars[i] in white:
                        i += 1
                continue
            if split and ch in other:
                out.append("".join(current))
                current, pending = [], False
                i += 1
                while i < n and self.splittable[i] and self.chars[i] in white:
                    i += 1
                continue
            current.append(ch)
            if not split:
                pending = True
            i += 1
        if current or pending or n in self.marks:
            out.append("".join(current))
        return out


def expand(text: str, env: Mapping[str, str], *, ifs: str = DEFAULT_IFS) -> Expansion:
    """Read ``text`` as one bash command line and expand it (see the module doc)."""
    return _Parser(text, env, ifs).run()


class _Parser:
    def __init__(self, text: str, env: Mapping[str, str], ifs: str):
        self.text = text
        self.env = env
        self.ifs = ifs
        self.i = 0
        self.out = Expansion()
        self.word = _Word()

    # -- driver --------------------------------------------------------------------------------------

    def run(self) -> Expansion:
        text, n = self.text, len(self.text)
        while self.i < n:
            ch = text[self.i]
            if ch in BLANKS:
                self.end_word()
                self.i += 1
            elif ch == "\n":
                self.problem(self.i, "\\n", "a line break ends the command in bash; the rest would be another "
                                            "command")
                self.end_word()
                self.i += 1
            elif ch == "#" and not self.word.started:
                self.out.comment = text[self.i:]
                self.out.comment_column = self.i
                break
            elif ch in OPERATORS:
                self.operator()
            elif ch == "\\":
                if self.i + 1 >= n or text[self.i + 1] == "\n":
                    self.i += 2  # backslash-newline (also at the very end, before the file's newline): removed
                    continue
                self.out.quoted = True
                self.word.mark_quoted()
                self.word.add(text[self.i + 1])
                self.i += 2
            elif ch == "'":
                self.single_quoted()
            elif ch == '"':
                self.double_quoted()
            elif ch == "$":
                if text.startswith("$'", self.i):
                    self.ansi_c()
                elif text.startswith('$"', self.i):
                    self.i += 1
                    self.double_quoted()
                else:
                    self.dollar(quoted=False)
            elif ch == "`":
                self.backquote()
            elif ch == "~" and (not self.word.started or self.after_assignment()):
                self.tilde(stop=":" if self.word.started else "")
            elif ch == "{" and self.brace_expansion():
                pass
            else:
                if ch in "*?[":
                    self.word.glob = True
                self.word.add(ch)
                self.i += 1
        self.end_word()
        return self.out

    def end_word(self) -> None:
        if self.word.started or self.word.quoted:
            fields = self.word.fields(self.ifs)
            if self.word.glob:
                self.out.globs.extend(fields)
            self.out.words.extend(fields)
        self.word = _Word()

    def problem(self, column: int, text: str, message: str) -> None:
        self.out.problems.append(Problem(column, text, message))

    # -- pieces ----------------------------------------------------------------------------------------

    def operator(self) -> None:
        start = self.i
        while self.i < len(self.text) and self.text[self.i] in OPERATORS:
            self.i += 1
        op = self.text[start:self.i]
        self.problem(start, op, "shell operator or redirection (bash would pipe, redirect or start another "
                                "command here)")
        self.end_word()

    def single_quoted(self) -> None:
        self.out.quoted = True
        self.word.mark_quoted()
        close = self.text.find("'", self.i + 1)
        if close < 0:
            self.problem(self.i, "'", "unterminated single quote")
            self.word.add(self.text[self.i + 1:])
            self.i = len(self.text)
            return
        self.word.add(self.text[self.i + 1:close])
        self.word.started = True
        self.i = close + 1

    def double_quoted(self) -> None:
        self.out.quoted = True
        self.word.mark_quoted()
        start = self.i
        self.i += 1
        text, n = self.text, len(self.text)
        while self.i < n and text[self.i] != '"':
            ch = text[self.i]
            if ch == "\\" and self.i + 1 < n and text[self.i + 1] in '$`"\\\n':
                if text[self.i + 1] != "\n":
                    self.word.add(text[self.i + 1])
                self.i += 2
            elif ch == "$" and self.i + 1 < n and (text[self.i + 1] in "{(" or _NAME.match(text, self.i + 1)
                                                   or text[self.i + 1] in _SPECIAL):
                self.dollar(quoted=True)
            elif ch == "`":
                self.backquote()
            else:
                self.word.add(ch)
                self.i += 1
        if self.i >= n:
            self.problem(start, '"', "unterminated double quote")
            return
        self.i += 1

    def ansi_c(self) -> None:
        """``$'...'``: backslash escapes as in C."""
        self.out.quoted = True
        self.word.mark_quoted()
        start = self.i
        self.i += 2
        buf: list[str] = []
        text, n = self.text, len(self.text)
        while self.i < n and text[self.i] != "'":
            if text[self.i] == "\\" and self.i + 1 < n:
                decoded, used = _escape(text, self.i, ansi=True)
                buf.append(decoded)
                self.i += used
            else:
                buf.append(text[self.i])
                self.i += 1
        if self.i >= n:
            self.problem(start, "$'", "unterminated $'...' quote")
        self.i += 1
        self.word.add("".join(buf))

    def backquote(self) -> None:
        close = self.text.find("`", self.i + 1)
        end = len(self.text) if close < 0 else close + 1
        chunk = self.text[self.i:end]
        self.problem(self.i, chunk, "command substitution (bash would run this command)")
        self.word.add(chunk)
        self.i = end

    def after_assignment(self) -> bool:
        """bash also expands ``~`` after the ``=`` and any ``:`` of a word that looks like an assignment
        (``NAME=~/x``, ``P=a:~/b``), even as an argument."""
        so_far = "".join(self.word.chars)
        if self.word.quoted or any(self.word.splittable) or not re.match(r"[A-Za-z_][A-Za-z0-9_]*=", so_far):
            return False
        return so_far.endswith(":") or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=", so_far) is not None

    def tilde(self, stop: str = "") -> None:
        text, n = self.text, len(self.text)
        j = self.i + 1
        while j < n and text[j] not in "/" + stop + BLANKS + OPERATORS + "'\"\\$`":
            j += 1
        user = text[self.i + 1:j]
        odd_end = bool(stop) and j < n and text[j] not in "/:" + BLANKS + OPERATORS
        if odd_end or (not stop and any(c in user for c in "=:")):
            self.problem(self.i, text[self.i:j], "a tilde prefix with '=' or ':' (bash's tilde rules for it are "
                                                 "its own)")
            self.word.add(text[self.i:j])
            self.i = j
            return
        continuation = text[j:] in ("\\", "\\\n")  # a backslash-newline at the end is removed first
        if j < n and text[j] not in "/" + stop + BLANKS + OPERATORS and not continuation:
            self.word.add("~")  # quoting in the prefix: no tilde expansion
            self.i += 1
            return
        if user == "":
            home = self.env.get("HOME")
            if home is None:
                self.word.add("~")
            else:
                self.word.add(home)
                self.out.expanded.append(("~", home))
        else:
            self.problem(self.i, text[self.i:j], "~user is the home directory of another user; gftpwb does not "
                                                 "look it up")
            self.word.add(text[self.i:j])
        self.i = j

    def brace_expansion(self) -> bool:
        """``{a,b}`` or ``{1..3}`` unquoted: bash would expand it. Reported, kept as text."""
        text = self.text
        close = text.find("}", self.i + 1)
        if close < 0:
            return False
        inner = text[self.i + 1:close]
        if any(c in inner for c in BLANKS + "'\"\\$`{"):
            return False
        if "," in inner or re.fullmatch(r"-?\w+\.\.-?\w+(\.\.-?\d+)?", inner):
            self.problem(self.i, text[self.i:close + 1], "brace expansion (bash would make several words)")
            self.word.add(text[self.i:close + 1])
            self.i = close + 1
            return True
        return False

    def dollar(self, *, quoted: bool) -> None:
        text, n = self.text, len(self.text)
        start = self.i
        nxt = text[self.i + 1] if self.i + 1 < n else ""
        if nxt == "(":
            depth, j = 0, self.i + 1
            while j < n:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            chunk = text[start:j]
            what = "arithmetic expansion" if chunk.startswith("$((") else "command substitution (bash would " \
                                                                           "run this command)"
            self.problem(start, chunk, what)
            self.word.add(chunk)
            self.i = j
            return
        if nxt == "{":
            close = text.find("}", self.i + 2)
            if close < 0:
                self.problem(start, text[start:], "unterminated ${")
                self.word.add(text[start:])
                self.i = n
                return
            chunk = text[start:close + 1]
            self.i = close + 1
            value = self.braced(chunk, start)
            if value is None:
                self.word.add(chunk)
                return
            self.word.add(value, splittable=not quoted)
            return
        match = _NAME.match(text, self.i + 1)
        if match:
            name = match.group(0)
            self.i = match.end()
            self.word.add(self.lookup(name, f"${name}"), splittable=not quoted)
            return
        if nxt and nxt in _SPECIAL:
            self.problem(start, text[start:start + 2], "special parameter (its value is tgftp's own: arguments, "
                                                       "PID, exit status)")
            self.word.add(text[start:start + 2])
            self.i += 2
            return
        self.word.add("$")  # a lone $ is literal
        self.i += 1

    def lookup(self, name: str, shown: str) -> str:
        value = self.env.get(name)
        if value is None:
            self.out.unset.append(name)
            return ""
        self.out.expanded.append((shown, value))
        return value

    def braced(self, chunk: str, start: int) -> str | None:
        inner = chunk[2:-1]
        match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])(.*))?", inner, re.S)
        if match is None:
            self.problem(start, chunk, "parameter expansion gftpwb does not evaluate (it reads ${NAME}, "
                                       "${NAME:-word}, ${NAME-word}, ${NAME:+word}, ${NAME+word})")
            return None
        name, op, word = match.group(1), match.group(2), match.group(3) or ""
        value = self.env.get(name)
        if op is None:
            return self.lookup(name, chunk)
        if any(c in word for c in "$`\\'\""):
            self.problem(start, chunk, "a default value with quotes or expansions inside ${...}")
            return None
        is_set = value is not None and (value != "" or ":" not in op)
        use_default = op.endswith("-")  # ${NAME-word}: word when unset; ${NAME+word}: word when set
        result = (value if is_set else word) if use_default else (word if is_set else "")
        self.out.expanded.append((chunk, result or ""))
        return result or ""


def _escape(text: str, i: int, *, ansi: bool) -> tuple[str, int]:
    """One backslash escape at ``text[i]`` for ``echo -e`` (ansi=False) or ``$'...'``: (text, length)."""
    simple = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
              "v": "\v", "\\": "\\"}
    if ansi:
        simple.update({"'": "'", '"': '"', "?": "?"})
    c = text[i + 1]
    if c in simple:
        return simple[c], 2
    if (c == "0" and not ansi) or (c in "01234567" and ansi):
        start = i + 2 if (c == "0" and not ansi) else i + 1
        j = start
        while j < len(text) and j < start + 3 and text[j] in "01234567":
            j += 1
        return chr(int(text[start:j] or "0", 8) & 0xFF), j - i
    if c == "x":
        j = i + 2
        while j < len(text) and j < i + 4 and text[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i + 2:
            return "\\x", 2
        return chr(int(text[i + 2:j], 16)), j - i
    if c in "uU":
        limit = 4 if c == "u" else 8
        j = i + 2
        while j < len(text) and j < i + 2 + limit and text[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i + 2:
            return "\\" + c, 2
        return chr(int(text[i + 2:j], 16)), j - i
    return "\\" + c, 2


def echo_e(text: str) -> str:
    """What bash's ``echo -e`` (``-en``) prints for one argument: escapes decoded, ``\\c`` ends output."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == "\\" and i + 1 < n:
            if text[i + 1] == "c":
                break
            decoded, used = _escape(text, i, ansi=False)
            out.append(decoded)
            i += used
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# --- arithmetic ------------------------------------------------------------------------------------

class ArithError(ValueError):
    """bash would print an arithmetic error (and the command using the value fails)."""


_INT = re.compile(r"\s*(?:(\d+)#([0-9A-Za-z@_]+)|0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*)|([A-Za-z_]\w*))")


def arith(text: str, env: Mapping[str, str], _depth: int = 0) -> int:
    """bash's value of ``$(( text ))``; raises :class:`ArithError` where bash reports an error."""
    if _depth > 10:
        raise ArithError("expression recursion level exceeded")
    if text.strip() == "":
        return 0
    parser = _Arith(text, env, _depth)
    value = parser.expr()
    parser.skip()
    if parser.i != len(text):
        raise ArithError(f"syntax error in expression (error token is {text[parser.i:]!r})")
    return value


class _Arith:
    def __init__(self, text: str, env: Mapping[str, str], depth: int):
        self.text, self.env, self.depth, self.i = text, env, depth, 0

    def skip(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\n":
            self.i += 1

    def expr(self) -> int:
        value = self.term()
        while True:
            self.skip()
            if self.i < len(self.text) and self.text[self.i] in "+-" and not self.text.startswith(("++", "--"),
                                                                                                    self.i):
                op = self.text[self.i]
                self.i += 1
                right = self.term()
                value = value + right if op == "+" else value - right
            else:
                return _wrap(value)

    def term(self) -> int:
        value = self.unary()
        while True:
            self.skip()
            if self.i < len(self.text) and self.text[self.i] in "*/%" and not self.text.startswith("**", self.i):
                op = self.text[self.i]
                self.i += 1
                right = self.unary()
                if op == "*":
                    value = value * right
                elif right == 0:
                    raise ArithError("division by 0")
                else:
                    quotient = abs(value) // abs(right)
                    if op == "/":
                        value = quotient if (value >= 0) == (right >= 0) else -quotient
                    else:
                        value = value - right * (quotient if (value >= 0) == (right >= 0) else -quotient)
                value = _wrap(value)
            else:
                return value

    def unary(self) -> int:
        self.skip()
        if self.i < len(self.text) and self.text[self.i] in "+-" and not self.text.startswith(("++", "--"), self.i):
            op = self.text[self.i]
            self.i += 1
            value = self.unary()
            return -value if op == "-" else value
        return self.primary()

    def primary(self) -> int:
        self.skip()
        if self.i < len(self.text) and self.text[self.i] == "(":
            self.i += 1
            value = self.expr()
            self.skip()
            if self.i >= len(self.text) or self.text[self.i] != ")":
                raise ArithError("missing `)'")
            self.i += 1
            return value
        match = _INT.match(self.text, self.i)
        if match is None:
            raise ArithError(f"syntax error: operand expected (error token is {self.text[self.i:]!r})")
        end = match.end()
        if end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_#@"):
            raise ArithError(f"value too great for base (error token is {self.text[self.i:].strip()!r})")
        if end < len(self.text) and self.text[end] == ".":
            raise ArithError(f"syntax error: invalid arithmetic operator (error token is {self.text[end:]!r})")
        self.i = end
        base, digits, hexa, octal, dec, name = match.groups()
        if name:
            value = self.env.get(name, "")
            return arith(value, self.env, self.depth + 1) if value else 0
        if hexa:
            return _wrap(int(hexa, 16))
        if octal:
            return _wrap(int(octal, 8))
        if dec:
            return _wrap(int(dec))
        return _wrap(_base_value(int(base), digits))


def _base_value(base: int, digits: str) -> int:
    if not 2 <= base <= 64:
        raise ArithError("invalid arithmetic base")
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"
    value = 0
    for ch in digits:
        digit = alphabet.index(ch) if base > 36 else int(ch, 36)
        if digit >= base:
            raise ArithError("value too great for base")
        value = value * base + digit
    return value


def _wrap(value: int) -> int:
    """bash's integers are 64-bit and wrap around."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


# --- coreutils timeout ------------------------------------------------------------------------------

_DURATION = re.compile(
    r"^[ \t\n\v\f\r]*\+?(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?i:inf(?:inity)?))(?P<unit>[smhd]?)$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def coreutils_duration(text: str) -> float | None:
    """Seconds coreutils ``timeout`` (9.x) reads from ``text``, or None when it refuses it (exit 125)."""
    match = _DURATION.match(text)
    if match is None:
        return None
    number = match["num"]
    value = float.fromhex(number) if number[:2].lower() == "0x" else float(number)
    return value * _UNIT_SECONDS[match["unit"]]
