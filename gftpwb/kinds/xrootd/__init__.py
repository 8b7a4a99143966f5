"""The ``xrootd`` kind: XRootD copies with xrdcp."""
