"""gftpwb.converters: the pure format converters between the tools gftpwb replaces and its own data.

* ``batchfile``: tgftp 0.7.0 batchfiles <-> scenarios;
* ``taglog``: tgftp tag logs <-> result records.

Each takes and returns text or data (the caller reads and writes the files), so they are tested
without a disk and used alike by ``gftpwb import``/``export``, ``gftpwb run BATCHFILE`` and the drop-ins.
"""
