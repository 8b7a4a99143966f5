"""The tgftp area's shell part: the ``tgftp`` drop-in (:mod:`.dropin`), ``gftpwb import``/``export``
(:mod:`.migrate`) and tgftp's auto-tune mode (:mod:`.autotune`). They run through the executor, the
journal and the tag-log writer; the pure rules they follow are in :mod:`gftpwb.tgftp`."""
