"""Batchfile fields are split the way tgftp's second bash splits them -- checked against real bash."""

import subprocess

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gftpwb.tgftp.shellwords import quote_word, split_words


def bash_words(text: str) -> list[str]:
    """What bash makes of ``text`` on a command line (after a first word, as in tgftp's)."""
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", f"printf '%s\\0' START {text}"],
                         capture_output=True, check=True, env={"PATH": "/usr/bin:/bin"})
    words = out.stdout.decode("utf-8", errors="surrogateescape").split("\0")[:-1]
    assert words[0] == "START"
    return words[1:]


def test_examples():
    assert split_words('"#Domain1 to Domain2"').words == ["#Domain1 to Domain2"]
    assert split_words("-vb -p 16   -tcp-bs 4M\t-len 4G").words == ["-vb", "-p", "16", "-tcp-bs", "4M", "-len", "4G"]
    parsed = split_words("-len 1G # -p 8 was slower")
    assert parsed.words == ["-len", "1G"] and parsed.comment == "# -p 8 was slower" and parsed.comment_column == 8
    assert split_words("a#b").words == ["a#b"] and split_words("a#b").comment is None
    assert split_words("'it''s' \"a\\\"b\" c\\ d").words == ["its", 'a"b', "c d"]
    assert split_words('"unterminated').unterminated == '"'
    assert split_words("echo $HOME `date` *.log ~/x").expansions == ["$HOME", "`date`", "*", "~"]
    assert split_words("a > b | c").operators == [">", "|"]


SHELL_TEXT = st.text(alphabet=st.sampled_from(list("ab-./= \t\"'\\#")), max_size=24)


@settings(max_examples=150, deadline=None)
@given(SHELL_TEXT)
def test_split_matches_bash(text):
    parsed = split_words(text)
    assume(not parsed.unterminated)
    assert parsed.words == bash_words(text)


WORD = st.text(alphabet=st.characters(blacklist_characters=";\n\r\x00", blacklist_categories=("Cs",)), max_size=16)


@given(WORD)
def test_quote_word_reads_back_as_the_same_single_word(word):
    assert split_words(quote_word(word)).words == [word]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -#$`\"'\\*~|>")), min_size=1, max_size=12))
def test_quoted_words_survive_bash_too(word):
    assert bash_words(quote_word(word)) == [word]
