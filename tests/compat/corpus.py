"""The differential corpus: tgftp batchfiles and single-test command lines, run by both tools.

Placeholders, filled in at run time: ``@URL@`` the lab's GridFTP server (``ftp://127.0.0.1:PORT``),
``@DEAD@`` a port with nothing listening, ``@DATA@`` a world-readable directory with ``small.bin``
(64 KiB) and ``one.bin`` (1 MiB) that the server reads, and a world-writable ``sink/`` below it, and
``@TOOL@`` a word naming the tool that runs the case (so files it writes through the server never
clash); ``@PWURL@`` and ``@PWDEAD@`` are the server and the dead port with ``anonymous:s3cr3t@`` in
the URL. The tools see ``COMPAT_NAME=site1`` and ``COMPAT_LEN=8M`` in their environment. Transfers
are small so the whole suite stays fast; cases that would leave a process of tgftp hanging (a
timeout that coreutils refuses makes tgftp's FIFO reader wait forever) are covered by unit tests
instead.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = "#%tgftp%v0.7.0\n"
FIELDS = ("#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;"
          "post-command;execs\n")

# Every path a batchfile can take through gftpwb: the drop-in `tgftp -f`, `gftpwb tgftp -f`,
# `gftpwb run BATCHFILE` and `gftpwb import` + `gftpwb run`.
ALL_BATCH_PATHS = ("dropin", "gftpwb-tgftp", "run", "import")
BATCH_PATHS = ("dropin", "run", "import")
SINGLE_PATHS = ("dropin",)
ALL_SINGLE_PATHS = ("dropin", "gftpwb-tgftp")


@dataclass(frozen=True)
class BatchCase:
    name: str
    text: str  # the batchfile (placeholders filled in at run time)
    paths: tuple[str, ...] = BATCH_PATHS
    filename: str = "tests.csv"
    dirs: tuple[str, ...] = ()  # directories made in the working directory first
    env: tuple[tuple[str, str], ...] = ()  # added to every tool's environment


@dataclass(frozen=True)
class SingleCase:
    name: str
    args: str  # tgftp's arguments as a user would type them (split with shlex)
    paths: tuple[str, ...] = SINGLE_PATHS
    files: tuple[tuple[str, str], ...] = ()  # input files in the working directory
    dirs: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # added to every tool's environment


def batch(name: str, *lines: str, header: str = HEADER + FIELDS, paths: tuple[str, ...] = BATCH_PATHS,
          end: str = "\n", filename: str = "tests.csv", dirs: tuple[str, ...] = (),
          env: tuple[tuple[str, str], ...] = ()) -> BatchCase:
    return BatchCase(name, header + "\n".join(lines) + end, paths, filename, dirs, env)


Z, N = "@URL@/dev/zero", "@URL@/dev/null"
SMALL, ONE, SINK = "@URL@@DATA@/small.bin", "@URL@@DATA@/one.bin", "@URL@@DATA@/sink"
OK = f"{Z};{N};-len 2M;no;30"  # the first five fields of a line that just works
# Passwords in URLs: masked in gftpwb's tag logs unless tgftp-faithful logs are asked for.
FAITHFUL = (("GFTPWB_TGFTP_FAITHFUL_LOGS", "1"),)
PW = "-s @PWURL@/dev/zero -t @PWURL@/dev/null --log-filename pw.log -- -vb -len 1M"
PW_REFUSED = "-s @PWDEAD@/dev/zero -t @PWURL@/dev/null --log-filename pw.log -- -len 1M"  # no -vb: guc's
# stdout and stderr would come in either order
PW_LINE = "@PWURL@/dev/zero;@PWURL@/dev/null;-vb -len 1M;no;30;;;;;"
CAFE = "@URL@@DATA@/caf\udce9.bin"  # @DATA@/caf<0xE9>.bin: a file name that is not UTF-8 (see the lab fixture)

BATCH: list[BatchCase] = [
    # A batchfile with quoted params, a quoted text comment, two executions.
    batch("quoted-params", f'{Z};{N};"-vb -p 4 -tcp-bs 4M -len 1G";no;30;;"# loopback p4";;;2', paths=ALL_BATCH_PATHS),
    # gtransfer's tgftp call, -- "$gsiftpParams" "$addGsiftpParams", as a batchfile field
    batch("gtransfer-style", f'{Z};{N};"-vb -p 4 -len 64M" "";no;30;;;;;', paths=ALL_BATCH_PATHS),
    batch("help-example", "#  GridFTP tests on the lab server", f'{Z};{N};-vb -p 2 -tcp-bs 4M -len 64M;no;30;;'
          '"#Domain1 to Domain2";;;', "", "#  and again", f'{Z};{N};-vb -p 2 -tcp-bs 4M -len 32M;no;30;;'
          '"#Domain1 to Domain3";;;', paths=ALL_BATCH_PATHS),
    batch("single-quoted-params", f"{Z};{N};'-vb -p 2 -len 8M';no;30;;;;;"),
    batch("inner-quoted-params", f'{Z};{N};-len "8M" "-vb";no;30;;;;;', f"{Z};{N};\"-p\" '2' -len 4M;no;30;;;;;"),
    batch("params-quoted-three-times", f'{Z};{N};-len 4M "\'\\"-vb\\"\'";no;30;;;;;'),
    batch("param-with-a-space-after-two-shells", f'{Z};{N};-len 4M -ss "\'/CN=host one\'";no;30;;;;;'),
    batch("hash-inside-params", f"{Z};{N};-len 4M # -p 8 was slower;no;30;;;;;"),
    batch("unquoted-hash-comment", f"{Z};{N};-len 4M;no;3;;#no quotes;;;"),
    batch("refused", f'@DEAD@/dev/zero;{N};-len 1M;no;10;;"#nobody home";;;'),
    batch("refused-target", f'{Z};@DEAD@/dev/null;-len 1M;no;10;;;;"touch post-ran";'),
    batch("comment-command-pre-post",
          f'{Z};{N};-len 16M;no;30;;"cat pre.txt";"echo pre-ran > pre.txt";"touch post-ran";'),
    batch("comment-command-plain", f'{OK};;hostname;;;'),
    batch("comment-command-with-variable", f'{OK};;"echo $COMPAT_NAME";;;'),
    batch("text-comment-with-variable", f'{OK};;"#on $COMPAT_NAME";;;'),
    batch("text-comment-with-escapes", f'{OK};;"#tab\\there";;;'),
    batch("unquoted-command-fields", f"{OK};;;echo pre;touch post-ran;"),
    batch("failing-pre-command", f'{OK};;;"false";"touch post-ran";'),
    batch("failing-post-command", f'{OK};;;;"false";'),
    batch("pre-and-post-output", f'{OK};;;"echo from-pre";"echo from-post";'),
    batch("execs-three", f"{OK};;;;;3"),
    batch("execs-zero-and-words", f"{OK};;;;;0", f"{OK};;;;;two", f"{OK};;;;;2x", f"{OK};;;;; 2"),
    batch("execs-left-out-and-extra-fields", f"{OK};;;;", f"{OK};;;;;1;extra;fields"),
    batch("short-line", f"{Z};{N};-len 1M;no;30", f"{Z};{N};-len 2M;no;30;;;;;"),
    batch("skipped-lines", ";starts with an empty field", f"{Z};;-len 1M;no;30;;;;;", f"{Z};{N};-len 1M;YES;30;;;;;",
          f"{Z};{N};-len 1M;;30;;;;;", f"{OK};;;;;", " #not a comment;x", "", f"{OK};;;;;"),
    batch("empty-timeout-first", f"{Z};{N};-len 1M;no;;;;;;", f"{OK};;;;;", f"{Z};{N};-len 1M;no;;;;;;"),
    batch("odd-timeouts", f"{Z};{N};-len 1M;no;abc;;;;;", f"{Z};{N};-len 1M;no;5m;;;;;",
          f"{Z};{N};-len 1M;no;2.5;;;;;", f"{Z};{N};-len 1M;no;0x10;;;;;", f"{Z};{N};-len 1M;no;0;;;;;"),
    batch("timeout-kills", f'{Z};{N};-vb;no;1;;"#forever";;"touch post-ran";'),
    batch("log-filename", f"{OK};my.log;;;;2", f"{OK};plain;;;;", f"{OK};with.log.log;;;;"),
    batch("log-filename-reused-without-suffix", f"{OK};plain;;;;2"),
    batch("log-filename-twice", f"{OK};same.log;;;;", f"{OK};same.log;;;;"),
    batch("log-filename-in-a-directory", f"{OK};logs/x.log;;;;", f"{OK};missing/y.log;;;;", dirs=("logs",)),
    batch("log-filename-with-a-variable", f"{OK};${{COMPAT_NAME}}.log;;;;", f"{OK};$UNSET_IN_COMPAT-x.log;;;;"),
    batch("log-filename-with-spaces", f'{OK};"my log.log";;;;'),
    batch("crlf", f"{OK};;;;;2", f"{OK};;\"#crlf\";;;", end="\r\n",
          header=(HEADER + FIELDS).replace("\n", "\r\n")),
    batch("no-final-newline", f"{OK};;;;;", f"{Z};{N};-len 4M;no;30;;;;;", end=""),
    batch("other-version", f"{OK};;;;;", header="#%tgftp%v0.6.1\n"),
    batch("no-header", f"{OK};;;;;", header=""),
    batch("header-further-down", f"{OK};;;;;", header="# written by hand\n" + HEADER),
    batch("connection-test", f"{SMALL};{N};-p 4;yes;30;;\"#conn\";;;", f"@DEAD@/dev/zero;{N};;yes;;;\"#dead\";;;"),
    batch("sticky-connection-test", f"@DEAD@/dev/zero;{N};;yes;30;;;;;", f"{OK};;;;;"),
    batch("sticky-log-comment", f'{OK};;"#first";;;', f"{OK};;;;;"),
    batch("command-substitution", f"{Z};{N};-len $(echo 2M);no;30;;;;;", f"{OK};;;;;"),
    batch("unterminated-quote", f'{Z};{N};-len "2M;no;30;;;;;', f'{OK};;"#open;;;', f'{OK};;"#closed";;;'),
    batch("variables-in-urls-and-params", f"{Z};{N};-len $COMPAT_LEN;no;30;;;;;",
          f"{Z};{N};-len ${{COMPAT_MISSING:-3M}};no;30;;;;;"),
    batch("file-source-whole-file", f"{ONE};{SINK}/whole-@TOOL@.bin;;no;30;;;;;"),
    batch("file-source-partial", f"{ONE};{SINK}/part-@TOOL@.bin;-len 512K;no;30;;;;;",
          f"{ONE};{N};-partial-length 256K;no;30;;;;;"),
    batch("file-to-dev-null-no-len", f"{ONE};{N};;no;30;;;;;"),
    batch("zero-to-null-no-len-timeout", f"{Z};{N};-p 2;no;1;;;;;"),
    batch("odd-length-units", f"{Z};{N};-len 8m;no;30;;;;;", f"{Z};{N};-len 010M;no;30;;;;;",
          f"{Z};{N};-len 1048576;no;30;;;;;", f"{Z};{N};-len 512K;no;30;;;;;"),
    batch("length-given-twice", f"{Z};{N};-len 1M -len 2M;no;30;;;;;"),
    batch("recursive-and-nodcau-listing", f"{Z};{N};-len 2M -rst -nodcau;no;30;;;;;"),
    batch("long-line", f"{Z};{N};-vb -p 2 -tcp-bs 1M -bs 64K -len 16M -rst-retries 3 -rst-interval 1 -cd -fast;"
          f"no;30;;\"#{'a long comment ' * 30}\";\"echo {'x' * 200}\";;"),
    batch("autotune-batchfile", "#%tgftp_autotuning_batchfile", f"{Z};{N};-vb -len 8M;no;30;;;;;2",
          f"{Z};{N};-vb -p 2 -len 8M;no;30;;;;;2"),
    batch("password-in-url", PW_LINE, paths=ALL_BATCH_PATHS),
    # A file name that is not UTF-8 (Latin-1 e-acute): guc refuses the URL and prints it in its error, and
    # tgftp's logs hold the byte as it came; the importer makes a scenario of text, so the drop-in only.
    # (No -vb: guc's stdout and stderr would come in either order.)
    batch("undecodable-file-name", f"{CAFE};{N};;no;30;;\"#caf\udce9\";;;", paths=("dropin",)),
    batch("password-in-url-faithful", PW_LINE, paths=("dropin", "gftpwb-tgftp"), env=FAITHFUL),
]

SINGLE: list[SingleCase] = [
    # gtransfer: tgftp -s SRC -t DST -- "$gsiftpParams" "$addGsiftpParams"
    SingleCase("gtransfer", f'-s {Z} -t {N} --log-filename g.log -- "-vb -p 4 -len 64M"', ALL_SINGLE_PATHS),
    SingleCase("gtransfer-two-params", f'-s {Z} -t {N} --log-filename g.log -- "-vb -p 4 -len 64M" ""',
               ALL_SINGLE_PATHS),
    SingleCase("plain-len", f"-s {Z} -t {N} --log-filename p.log -- -len 32M", ALL_SINGLE_PATHS),
    SingleCase("several-params", f"-s {Z} -t {N} --log-filename p.log -- -vb -p 2 -tcp-bs 1M -len 16M"),
    SingleCase("one-quoted-argument", f"-s {Z} -t {N} --log-filename q.log -- '-len 8M -p 2'"),
    SingleCase("quotes-for-the-third-shell", f"-s {Z} -t {N} --log-filename q.log -- -len 8M -ss \"'/CN=x y'\""),
    SingleCase("refused", f"-s @DEAD@/dev/zero -t {N} --log-filename r.log -- -len 1M", ALL_SINGLE_PATHS),
    SingleCase("default-log-name", f"-s {Z} -t {N} -- -len 8M"),
    SingleCase("undecodable-file-name", f"-s {CAFE} -t {N} --log-filename u.log"),
    SingleCase("no-params", f"-s {ONE} -t {N} --log-filename n.log"),
    SingleCase("empty-params", f"-s {Z} -t {N} --log-filename e.log -k 1 --"),
    SingleCase("text-comment", f'-s {Z} -t {N} --log-filename c.log --log-comment "#hello world" -- -len 2M'),
    SingleCase("command-comment", f'-s {Z} -t {N} --log-filename c.log --log-comment "echo hi there" -- -len 2M'),
    SingleCase("comment-with-escapes", f"-s {Z} -t {N} --log-filename c.log --log-comment '#a\\tb\\nc' -- -len 2M"),
    SingleCase("multi-line-comment", f"-s {Z} -t {N} --log-filename c.log --log-comment '#line one\nline two' "
                                     "-- -len 2M"),
    SingleCase("comment-not-text", f"-s {Z} -t {N} --log-filename c.log --log-comment 'hello world' -- -len 2M"),
    SingleCase("empty-comment", f"-s {Z} -t {N} --log-filename c.log --log-comment '' -- -len 2M"),
    SingleCase("pre-and-comment", f"-s {Z} -t {N} --log-filename c.log --pre-command 'echo pre > p.txt' "
                                  "--log-comment 'cat p.txt' -- -len 2M"),
    SingleCase("failing-pre", f"-s {Z} -t {N} --log-filename f.log --pre-command false -- -len 2M"),
    SingleCase("post", f"-s {Z} -t {N} --log-filename f.log --post-command 'touch post-ran' -- -len 2M"),
    SingleCase("post-after-failure", f"-s @DEAD@/dev/zero -t {N} --log-filename f.log --post-command 'touch post-ran' "
                                     "-- -len 2M"),
    SingleCase("pre-and-post-output", f"-s {Z} -t {N} --log-filename o.log --pre-command 'echo from pre' "
                                      "--post-command 'echo from post; echo post err >&2' -- -len 2M"),
    SingleCase("timeout-kills", f"-s {Z} -t {N} --log-filename t.log --timeout 1 -- -vb"),
    SingleCase("timeout-short-option", f"-s {Z} -t {N} --log-filename t.log -k 2 -- -len 4M"),
    SingleCase("timeout-words", f"-s {Z} -t {N} --log-filename t.log --timeout abc -- -len 4M"),
    SingleCase("timeout-minutes", f"-s {Z} -t {N} --log-filename t.log --timeout 5m -- -len 4M"),
    SingleCase("timeout-zero", f"-s {Z} -t {N} --log-filename t.log --timeout 0 -- -len 4M"),
    SingleCase("connection-test-refused", f"-c -s @DEAD@/dev/zero -t {N} --log-filename ct.log"),
    SingleCase("connection-test-small-file", f"-s {SMALL} -t {N} --connection-test --log-filename ct.log "
                                             "--log-comment '#conn' -- -p 4"),
    SingleCase("duplicate-option", f"-s {Z} -t {N} -s {Z}"),
    SingleCase("duplicate-flag", f"-c -s {Z} -t {N} -c"),
    SingleCase("unknown-option", f"-s {Z} -t {N} --bogus"),
    SingleCase("missing-target", f"-s {Z} -- -len 1M"),
    SingleCase("autotune-misspelt", f"-s {Z} -t {N} --autotune"),
    SingleCase("version", "--version"),
    SingleCase("version-short", "-V"),
    SingleCase("help", "--help"),
    SingleCase("help-batchfile", "--help-batchfile"),
    SingleCase("missing-batchfile", "-f nothing.csv"),
    SingleCase("existing-log", f"-s {Z} -t {N} --log-filename old.log -- -len 1M", files=(("old.log", "old\n"),)),
    SingleCase("existing-log-forced", f"-s {Z} -t {N} --log-filename old.log --force-log-overwrite -- -len 1M",
               files=(("old.log", "old\n"),)),
    SingleCase("log-in-a-directory", f"-s {Z} -t {N} --log-filename logs/x.log -- -len 1M", dirs=("logs",)),
    SingleCase("log-in-a-missing-directory", f"-s {Z} -t {N} --log-filename nowhere/x.log -- -len 1M"),
    SingleCase("variable-for-the-third-shell", f"-s {Z} -t {N} --log-filename v.log -- '-len $COMPAT_LEN'"),
    SingleCase("variable-in-log-name", f"-s {Z} -t {N} --log-filename '$COMPAT_NAME.log' -- -len 1M"),
    SingleCase("url-with-a-space", f"-s '{Z} x' -t {N} --log-filename u.log -- -len 1M"),
    SingleCase("command-substitution", f"-s {Z} -t {N} --log-filename s.log -- '-len $(echo 1M)'"),
    SingleCase("empty-argument-ends-the-options", f"-s {ONE} -t {N} --log-filename a.log '' --bogus -- -len 1M"),
    SingleCase("guc-url-list", "--log-filename l.log -- -f pairs.txt",
               files=(("pairs.txt", f"{ONE} {N}\n"),)),
    SingleCase("file-to-file", f"-s {ONE} -t {SINK}/single-@TOOL@.bin --log-filename w.log"),
    SingleCase("lowercase-length", f"-s {Z} -t {N} --log-filename m.log -- -len 4m"),
    SingleCase("password-in-url", PW, ALL_SINGLE_PATHS),
    SingleCase("password-in-url-faithful", PW, ALL_SINGLE_PATHS, env=FAITHFUL),
    SingleCase("password-refused", PW_REFUSED),
    SingleCase("password-refused-faithful", PW_REFUSED, env=FAITHFUL),
]
