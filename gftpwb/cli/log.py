"""``gftpwb log``: tag logs read as tgftp_log reads them (and gftpwb's own ``GFTPWB_*`` tags).

It is called once per value by evaluation scripts, so it starts lean: tgftp's attributes go through
the drop-in's own reader (:mod:`gftpwb.tgftp.log`, os and sys only); the tag-log model is imported
only for gftpwb's own tags and for ``list-attributes``.
"""

from __future__ import annotations

import argparse
import json
import sys

from gftpwb.tgftp.log import get, own_tag, read_file

EXIT_OK = 0  # gftpwb.core.errors.EXIT_OK, without its dataclasses: `log get` starts as fast as tgftp_log

EXIT_LOG_ERROR = 1  # tgftp_log's exit status for a bad attribute or a missing file


def warn(text: str) -> None:
    print(text, file=sys.stderr)


def cmd_log(args: argparse.Namespace) -> int:
    if args.log_command == "list-attributes":
        from gftpwb.converters.taglog import GFTPWB_TAGS, STANDARD_TAGS

        names = [*STANDARD_TAGS, *GFTPWB_TAGS]
        print(json.dumps(names) if args.json else "\n".join(names))
        return EXIT_OK
    return log_get(args.attribute, args.files, as_json=args.json)


def log_get(attribute: str, files: list[str], *, as_json: bool = False) -> int:
    """tgftp_log for one or more files: for tgftp's attributes exactly what the real tgftp_log prints
    (gftpwb.tgftp.log), and gftpwb's own ``GFTPWB_*`` tags. With several files each line starts with
    ``FILE:``. Exit 1 for an unknown attribute or a missing file, else 0."""
    own = attribute.startswith("GFTPWB_")
    if own:
        from gftpwb.converters.taglog import GFTPWB_TAGS  # only for gftpwb's own tags: tgftp's start fast

        if attribute not in GFTPWB_TAGS:
            warn(f'gftpwb: the attribute "{attribute}" is not supported! (gftpwb\'s own: {", ".join(GFTPWB_TAGS)})')
            return EXIT_LOG_ERROR
    status = EXIT_OK
    results = []
    for path in files:
        if own:
            data = read_file(path)
            value = None if data is None else own_tag(data, attribute)
            code, out, err = ((1, b"", f'gftpwb: the logfile "{path}" does not exist!\n') if value is None else
                              (0, value + b"\n", "") if value.strip(b"\n") else
                              (0, b"", f'gftpwb: attribute "{attribute}" not found in "{path}" or empty.\n'))
        else:
            code, out, err = get(attribute, path, prog="gftpwb")
        if code == 1 and not out and "is not supported" in err:
            warn(err.rstrip("\n"))
            return EXIT_LOG_ERROR
        sys.stderr.write(err)
        status = max(status, code)
        text = out.decode("utf-8", "surrogateescape")
        results.append({"file": path, "found": bool(out), "value": text[:-1] if out else None,
                        "error": err.strip() if code else None})
        if as_json or not out:
            continue
        prefix = f"{path}:" if len(files) > 1 else ""
        sys.stdout.flush()
        sys.stdout.buffer.write("".join(f"{prefix}{line}\n" for line in text[:-1].split("\n"))
                                .encode("utf-8", "surrogateescape"))
    if as_json:
        print(json.dumps({"attribute": attribute, "files": results}, ensure_ascii=False))
    sys.stdout.flush()
    return status
