"""JSON Schemas of the gftpwb DSL, shipped inside the package as ``gftpwb.schemas``."""
