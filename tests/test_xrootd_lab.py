"""The lab's xrootd folders: what a server killed before it cleaned up leaves must not stop the next start."""

import os
import pwd

from gftpwb.shell.lab.xrootd import RUN_AS, _hand_over


def test_a_folder_with_a_killed_servers_links_is_handed_over(tmp_path):
    """xrootd keeps ``admin/.xrd/=/proc/xrootd -> /proc/PID``; killed, the link dangles. Following it
    made ``lab up --xrootd`` a traceback (FileNotFoundError); the link itself is handed over."""
    proc = tmp_path / "admin" / ".xrd" / "=" / "proc"
    proc.mkdir(parents=True)
    (proc / "xrootd").symlink_to("/proc/999999999")
    (tmp_path / "xrootd.cfg").write_text("all.export /\n")
    _hand_over(str(tmp_path))
    uid = pwd.getpwnam(RUN_AS).pw_uid
    assert os.lstat(proc / "xrootd").st_uid == uid
    assert os.stat(tmp_path / "xrootd.cfg").st_uid == uid and os.stat(tmp_path).st_uid == uid
