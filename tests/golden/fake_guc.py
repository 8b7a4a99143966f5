"""A deterministic stand-in for globus-url-copy for the golden-output test (tests/test_golden.py).

Its output depends only on its arguments: a source containing ``/fail/`` fails as guc does when it
cannot connect; ``-dbg`` (a connection test) prints a recorded successful control-channel
conversation; anything else moves ``-len`` bytes in three -vb progress lines.
"""

import os
import sys

args = sys.argv[1:]
if any("/fail/" in arg for arg in args):
    sys.stderr.write("error: globus_xio: Unable to connect to 127.0.0.1:1\n"
                     "globus_xio: System error in connect: Connection refused\n")
    sys.exit(1)
if "-dbg" in args:
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "third_party_ok.stderr")) as handle:
        sys.stderr.write(handle.read())
    sys.exit(0)
length = 3 * 1048576
if "-len" in args:
    text = args[args.index("-len") + 1]
    length = int(text[:-1]) * {"K": 1024, "M": 1048576, "G": 1073741824}[text[-1]] if text[-1] in "KMG" else int(text)
out = sys.stdout
out.write(f"Source: {args[-2]}\nDest:   {args[-1]}\n  zero  ->  null\n\n")
for step in (1, 2, 3):
    out.write(f" {length * step // 3:12d} bytes {100.0 * step:12.2f} MB/sec avg {90.0:12.2f} MB/sec inst\r")
out.write("\n")
sys.exit(0)
