"""The journeys: paths a user walks through several commands, end to end, with the real components (the
lab's GridFTP server, namespace hosts over SSH, headless Chromium, a pseudo-terminal for the TUI and, when
GFTPWB_TGFTP_REFERENCE points at it, the real tgftp 0.7.0). Each step checks what a user would notice:
exit codes, messages without tracebacks, every finished run in the journal, and the same counts and
case numbers in every command that shows them. The helpers are in tests/support/journey.py."""
