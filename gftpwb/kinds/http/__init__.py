"""The ``http`` kind: HTTP/WebDAV copies with gfal-copy."""
