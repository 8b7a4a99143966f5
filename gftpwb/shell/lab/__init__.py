"""The local lab: a loopback GridFTP server, namespace hosts with sshd, a GlusterFS volume."""
