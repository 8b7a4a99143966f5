"""gftpwb.tgftp: tgftp 0.7.0 in pure Python: its shells' rules (``bash``), its command line (``args``),
its batch and single-test model (``model``), the quoting of its words (``shellwords``). No I/O beyond
the text the caller passes in, except ``log`` (the ``tgftp_log`` drop-in) and ``run/`` (the ``tgftp``
drop-in and its auto-tune). The converters between tgftp's files and gftpwb's data build on these
rules in :mod:`gftpwb.converters`.
"""
