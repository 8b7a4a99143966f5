"""Transports: this machine (local), SSH hosts (ssh, remote, hosts), and scripted ones for tests."""
