"""The xrootd kind's runner."""
