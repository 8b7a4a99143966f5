"""gftpwb.converters: pure conversions between gftpwb's data and legacy formats.

Installed from the repository's ``converters/`` folder. No I/O beyond the text the caller passes in.
"""
